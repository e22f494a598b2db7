//! The n-gram index answers exactly as the straightforward scan, over random corpora and
//! queries built to collide: small alphabets, self-overlapping terms, fences, headings,
//! case pairs .NET maps specially, long lines and duplicate slugs.

use proptest::prelude::*;

use super::{rank, search, search_scan};
use crate::store::pz_docs::Catalog;
use compat::dotnet;

/// Characters that make matches likely and exercise every rule.
const ALPHABET: &[&str] = &[
    "a",
    "a",
    "b",
    "A",
    "B",
    "aa",
    "ab",
    "z",
    " ",
    " ",
    "-",
    ".",
    "_",
    "#",
    "`",
    "```",
    "\t",
    "\u{130}",
    "\u{131}",
    "I",
    "i",
    "\u{3a3}",
    "\u{3c3}",
    "\u{df}",
    "\u{e9}",
    "\u{10400}",
    "\r",
    "\u{a0}",
    ":",
    "/",
    "pz",
    "PZ0214",
];

fn fragment() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..24).prop_map(|v| v.concat())
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => fragment(),
        1 => fragment().prop_map(|f| format!("# {f}")),
        1 => fragment().prop_map(|f| format!("  ```{f}")),
        1 => fragment().prop_map(|f| f.repeat(12)),
    ]
}

#[derive(Debug, Clone)]
struct PageSpec {
    slug: String,
    title: String,
    description: String,
    body: Vec<String>,
}

fn page() -> impl Strategy<Value = PageSpec> {
    (
        prop::sample::select(vec!["a", "b", "B", "c/d", "zeta", "\u{e9}t\u{e9}", "a/b"]),
        fragment(),
        fragment(),
        prop::collection::vec(line(), 0..14),
    )
        .prop_map(|(slug, title, description, body)| PageSpec {
            slug: slug.to_string(),
            title,
            description,
            body,
        })
}

/// The two files for these pages (titles and descriptions kept to what an index line holds).
fn corpus(pages: &[PageSpec]) -> (String, String) {
    let mut index = String::from("# T\n\n## G\n");
    let mut full = String::from("# header\n");
    for p in pages {
        let title: String = p.title.replace([']', '\n', '\r'], "");
        let title = if dotnet::trim(&title).is_empty() {
            "t".to_string()
        } else {
            title
        };
        let desc = p.description.replace(['\n', '\r'], "");
        index.push_str(&format!(
            "- [{title}](https://pipelinez.dev/{}/): {desc}\n",
            p.slug
        ));
        full.push_str(&format!(
            "===== pz-doc: {} | https://pipelinez.dev/{}/ =====\n{}\n",
            p.slug,
            p.slug,
            p.body.join("\n")
        ));
    }
    (index, full)
}

fn query() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 1..4).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn index_agrees_with_scan(
        pages in prop::collection::vec(page(), 0..8),
        queries in prop::collection::vec(query(), 1..6),
        limit in -2i64..60,
    ) {
        let (index, full) = corpus(&pages);
        let catalog = Catalog::build(&index, full, "https://pipelinez.dev", None).unwrap();
        for q in &queries {
            let fast = search(&catalog, Some(q), limit);
            let slow = search_scan(&catalog, Some(q), limit);
            prop_assert_eq!(&fast, &slow, "query {:?}", q);
            let all_fast = search(&catalog, Some(q), 50).unwrap_or_default();
            let all_slow = search_scan(&catalog, Some(q), 50).unwrap_or_default();
            prop_assert_eq!(all_fast, all_slow);
        }
        // Terms taken from the corpus itself are sure to hit.
        for p in &pages {
            for l in &p.body {
                let fast = search(&catalog, Some(l), 50);
                let slow = search_scan(&catalog, Some(l), 50);
                prop_assert_eq!(fast, slow, "line {:?}", l);
            }
        }
        prop_assert!(rank::clamp_limit(limit) >= 1);
    }
}
