//! Agreement with the docs oracle (a re-implementation of pz's parsing and ranking): every
//! query of a `queries.jsonl` answered as its `expected.jsonl` says, by the index and by the
//! scan. The fixture corpus always runs; the real pz docs run when asked (`--ignored`).

use std::path::Path;

use serde_json::Value;

use super::{search, search_scan};
use crate::error::pz::DocsError;
use crate::ingest::pz_docs::parse::decode;
use crate::store::pz_docs::fetch::file_url;
use crate::store::pz_docs::Catalog;

/// (queries compared, queries that differed).
pub fn compare(dir: &Path) -> (usize, Vec<String>) {
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let index = decode(&read("llms.txt"));
    let full = decode(&read("llms-full.txt"));
    let catalog = Catalog::build(&index, full, &file_url(dir), None).expect("builds");
    let expected = String::from_utf8(read("expected.jsonl")).unwrap();
    let mut n = 0;
    let mut bad = Vec::new();
    for line in expected.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Value = serde_json::from_str(line).unwrap();
        let query = rec["query"].as_str();
        let limit = rec["limit"].as_i64().unwrap_or(10);
        n += 1;
        for (how, got) in [
            ("index", search(&catalog, query, limit)),
            ("scan", search_scan(&catalog, query, limit)),
        ] {
            let got = match got {
                Ok(hits) => serde_json::json!({"ok": true, "hits": hits.iter().map(|h| {
                    let p = &catalog.pages[h.page];
                    serde_json::json!({"slug": p.slug, "title": p.title, "url": p.url, "score": h.score,
                        "excerpts": h.excerpts.iter().map(|e| String::from_utf16_lossy(&e.utf16())).collect::<Vec<_>>()})
                }).collect::<Vec<_>>()}),
                Err(DocsError::EmptyQuery) => {
                    serde_json::json!({"ok": false, "error": {"code": "PZ0608"}})
                }
                Err(e) => panic!("{e}"),
            };
            let want = if rec["ok"] == Value::Bool(true) {
                serde_json::json!({"ok": true, "hits": rec["hits"]})
            } else {
                serde_json::json!({"ok": false, "error": {"code": rec["error"]["code"]}})
            };
            if got != want {
                bad.push(format!(
                    "{how} {query:?} limit {limit}:\n got  {got}\n want {want}"
                ));
            }
        }
    }
    (n, bad)
}

#[test]
fn fixture_corpus_matches_oracle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pz-docs");
    let (n, bad) = compare(&dir);
    assert!(n >= 30, "only {n} queries");
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
#[ignore = "needs ../shared/pz-docs, the real pz docs corpus (not in the repository)"]
fn real_corpus_matches_oracle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/pz-docs");
    assert!(
        dir.join("expected.jsonl").exists(),
        "{} is absent: this test needs the real pz docs corpus",
        dir.display()
    );
    let (n, bad) = compare(&dir);
    eprintln!(
        "real pz docs: {} of {n} queries agree with expected.jsonl",
        n - bad.len() / 2
    );
    assert!(
        bad.is_empty(),
        "{} answers of {n} queries differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
