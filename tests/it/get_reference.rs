//! get_reference end to end, against the synthetic dbprint package in
//! fixtures/reference-docs (found through `--reference-dir`).

use serde_json::json;

use crate::util::{all_markdown_pages, fixtures, Server};

const MARKER: &str = "\n<!-- next_cursor: ";

fn server() -> Server {
    let docs = fixtures().join("reference-docs");
    let package = docs.join("dbprint");
    Server::start(
        &docs.join("project"),
        &["--reference-dir", package.to_str().expect("utf-8 path")],
    )
}

#[test]
fn table_of_contents_sections_citations_and_guide() {
    let mut s = server();

    let (toc, err) = s.call("get_reference", json!({"document": "spec"}));
    assert!(!err, "{toc}");
    assert_eq!(
        toc,
        "- Widget print format - v1\n  - 0. Scope\n    - 0.1 Terms\n  - 1. Layout\n    - Notes on naming\n    \
         - 1.1 Root directory\n      - 1.1.1 Nested files\n    - 1.2 Index file\n  - 2. Artifacts\n    - 2.1 Long rules\n    \
         - 2.2 Short rules\n    - 2.10 Tenth rules\n"
    );

    // Unnumbered subheadings stay in the body; numbered direct ones are listed.
    let (one, err) = s.call("get_reference", json!({"document": "spec", "section": "1"}));
    assert!(!err, "{one}");
    assert_eq!(
        one,
        "## 1. Layout\n\nWhere files live.\n\n### Notes on naming\n\nUnnumbered subheadings stay inside their parent's text.\n\n\
         Subsections, each read by its own number:\n\n- 1.1 Root directory\n- 1.2 Index file\n"
    );

    // The fenced `## 9.` line is body text, not a heading.
    let (root, _) = s.call(
        "get_reference",
        json!({"document": "spec", "section": "1.1"}),
    );
    assert_eq!(
        root,
        "### 1.1 Root directory\n\nThe root holds one directory per widget.\n\n```markdown\n\
         ## 9. Not a heading - this line sits inside a fenced block\n```\n\n\
         Subsections, each read by its own number:\n\n- 1.1.1 Nested files\n"
    );
    for citation in ["§1.1", "SPEC.md §1.1", "§ 1.1"] {
        let (cited, err) = s.call(
            "get_reference",
            json!({"document": "spec", "section": citation}),
        );
        assert!(!err && cited == root, "{citation}: {cited}");
    }
    let (cited, err) = s.call(
        "get_reference",
        json!({"document": "assertions", "section": "ASSERTIONS.md §1.4"}),
    );
    assert!(!err);
    assert_eq!(
        cited,
        "### 1.4 Unknown widgets\n\nAn unknown widget is reported, not failed.\n"
    );

    let (guide, err) = s.call(
        "get_reference",
        json!({"document": "guide", "section": "  fields THAT are easy   to misread "}),
    );
    assert!(!err, "{guide}");
    assert_eq!(
        guide,
        "## Fields   that are easy to misread\n\n- An absent field means not recorded.\n"
    );
    let (vocab, _) = s.call(
        "get_reference",
        json!({"document": "guide", "section": "vocabulary"}),
    );
    assert_eq!(
        vocab,
        "## Vocabulary\n\nWords the print uses.\n\nSubsections, each read by its own heading:\n\n- Gadget kinds\n"
    );
    let (guide_toc, _) = s.call("get_reference", json!({"document": "guide"}));
    assert_eq!(
        guide_toc,
        "- Reading a widget print\n  - Vocabulary\n    - Gadget kinds\n  - Fields   that are easy to misread\n"
    );
}

#[test]
fn unknown_sections_and_bad_arguments() {
    let mut s = server();
    let (text, err) = s.call("get_reference", json!({"document": "spec", "section": "9"}));
    assert!(err);
    assert_eq!(
        text,
        "section '9' not found in spec. Available: ['0', '0.1', '1', '1.1', '1.1.1', '1.2', '2', '2.1', '2.10', '2.2']"
    );
    let (text, err) = s.call(
        "get_reference",
        json!({"document": "guide", "section": "Nope"}),
    );
    assert!(err);
    assert_eq!(
        text,
        "section 'Nope' not found in guide. Available: ['Fields   that are easy to misread', 'Gadget kinds', \
         'Reading a widget print', 'Vocabulary']"
    );
    let (text, err) = s.call("get_reference", json!({"document": "SPEC"}));
    assert!(err);
    assert_eq!(
        text,
        "document 'SPEC' must be one of ['assertions', 'guide', 'spec']."
    );
    let (text, err) = s.call(
        "get_reference",
        json!({"document": "spec", "connection": "docs"}),
    );
    assert!(err);
    assert_eq!(text, "get_reference takes no argument 'connection'. Accepted: ['cursor', 'document', 'section'].");
}

#[test]
fn a_long_section_pages_through_next_cursor() {
    let mut s = server();
    let args = json!({"document": "spec", "section": "2.1"});
    let pages = all_markdown_pages(&mut s, "get_reference", args.clone());
    assert_eq!(pages.len(), 2);
    assert!(pages.iter().all(|p| p.chars().count() <= 20_000));
    let first = &pages[0];
    let at = first.rfind(MARKER).expect("first page carries the marker");
    assert!(
        !pages[1].contains(MARKER),
        "the last page carries no marker"
    );
    let whole = format!("{}{}", &first[..at], pages[1]);
    assert!(whole.starts_with("### 2.1 Long rules\n\n- Rule 001: "));
    assert!(whole.ends_with("when paged.\n"));
    assert_eq!(whole.matches("- Rule ").count(), 160);
    // Pages break at line ends.
    assert!(first[..at].ends_with('\n'));

    // The cursor belongs to this call: another section refuses it.
    let cursor = &first[at + MARKER.len()..first.len() - " -->".len()];
    let (text, err) = s.call(
        "get_reference",
        json!({"document": "spec", "section": "2.2", "cursor": cursor}),
    );
    assert!(err);
    assert_eq!(
        text,
        "this cursor was not issued by get_reference with these arguments. Repeat the call that returned it with \
         the same arguments, or call again without `cursor`."
    );
    let (text, err) = s.call(
        "get_reference",
        json!({"document": "spec", "cursor": "not-a-cursor"}),
    );
    assert!(err);
    assert!(
        text.starts_with("cursor 'not-a-cursor' is not one this server issued."),
        "{text}"
    );
}
