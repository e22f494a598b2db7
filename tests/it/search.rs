//! search_columns and resolve_value end to end over `fixtures/edge/search` (whose every
//! answer is also replayed against the reference's recording in `reference.rs`): the
//! behaviours spelled out, and what the recording cannot show (files changing under a
//! running server, the index surviving a restart or its deletion).

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{all_pages, fixture_copy, fixtures, Server};

/// A private copy of the search fixture, safe to edit.
fn scratch() -> tempfile::TempDir {
    fixture_copy("edge/search")
}

fn people(project: &Path) -> std::path::PathBuf {
    project.join("prints/shop/db/s/people")
}

fn search(server: &mut Server, arguments: Value) -> Value {
    let (text, is_error) = server.call("search_columns", arguments);
    assert!(!is_error, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// `table.column[part]` of every match.
fn labels(reply: &Value) -> Vec<String> {
    reply["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let part = m.get("part").and_then(Value::as_str).unwrap_or("");
            format!(
                "{}.{}{part}",
                m["table"].as_str().unwrap(),
                m["column"].as_str().unwrap()
            )
        })
        .collect()
}

fn resolve(server: &mut Server, arguments: Value) -> Value {
    let (text, is_error) = server.call("resolve_value", arguments);
    assert!(!is_error, "{text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn globs_are_fnmatchcase() {
    let mut server = Server::start(&fixtures().join("edge/search"), &[]);
    // `*` crosses dots: a dotted column name and every part.
    let dots = labels(&search(&mut server, json!({"pattern": "*.*"})));
    assert!(
        dots.contains(&"db.s.people.dot.name".to_string()),
        "{dots:?}"
    );
    assert!(
        dots.contains(&"db.s.people.doc.tags[*]".to_string()),
        "{dots:?}"
    );
    // `[!a-z]` is a negated set; case matters.
    let upper = labels(&search(&mut server, json!({"pattern": "[!a-z]*"})));
    assert!(
        upper.contains(&"db.s.people.Straße".to_string()),
        "{upper:?}"
    );
    assert!(
        upper.contains(&"db.s.people.[weird".to_string()),
        "{upper:?}"
    );
    assert!(!upper.iter().any(|l| l.ends_with(".email")));
    assert_eq!(
        search(&mut server, json!({"pattern": "EMAIL"}))["total"],
        json!(0)
    );
    // An unclosed `[` is a literal bracket.
    assert_eq!(
        labels(&search(&mut server, json!({"pattern": "[weird"}))),
        ["db.s.people.[weird"]
    );
    // A glob matching no real value is an empty list, not an error.
    assert_eq!(
        search(&mut server, json!({"classification": "nope"}))["total"],
        json!(0)
    );
}

#[test]
fn text_is_a_casefolded_substring_of_names_and_notes() {
    let mut server = Server::start(&fixtures().join("edge/search"), &[]);
    // `ß` casefolds to `ss`.
    let found = search(&mut server, json!({"text": "STRASSE"}));
    assert_eq!(labels(&found), ["db.s.people.Straße"]);
    // Through a value note: the match carries the notes, whitespace collapsed.
    let legacy = search(&mut server, json!({"text": "legacy"}));
    let code = legacy["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["column"] == json!("code"))
        .unwrap();
    assert_eq!(
        code["value_notes"],
        json!([{"value": "PZ0214", "note": "Legacy transfer code"}])
    );
    // Through the column note alone: no value_notes.
    let status = legacy["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["column"] == json!("status"))
        .unwrap();
    assert!(status.get("value_notes").is_none());
    assert_eq!(
        status["annotation"],
        json!("Account status; legacy rows use capitals.")
    );
    // A one-character needle, casefolded to `ss`: a name, a value note (`missing code`),
    // and `ssn`.
    let one = labels(&search(&mut server, json!({"text": "ß"})));
    assert_eq!(
        one,
        ["db.s.people.Straße", "db.s.people.code", "db.s.people.ssn"]
    );
}

#[test]
fn filters_need_their_field_and_parts_are_searched() {
    let mut server = Server::start(&fixtures().join("edge/search"), &[]);
    let sensitive = labels(&search(
        &mut server,
        json!({"pattern": "doc*", "sensitivity": "*"}),
    ));
    assert_eq!(sensitive, ["db.s.people.doc.tags[*]"]);
    let keys = search(
        &mut server,
        json!({"candidate_key": true, "pattern": "email"}),
    );
    assert_eq!(keys["matches"][0]["candidate_key"], json!(true));
    assert_eq!(
        keys["matches"][0]["candidate_key_exception"],
        json!("4 duplicates")
    );
    // Catalog-only columns have no detections to match.
    assert_eq!(
        search(&mut server, json!({"pattern": "v_*", "sensitivity": "*"}))["total"],
        json!(0)
    );
    assert_eq!(
        search(&mut server, json!({"pattern": "v_*"}))["total"],
        json!(2)
    );
    // A looks_like filter names the tables where detection was switched off.
    let shaped = search(&mut server, json!({"looks_like": "email"}));
    assert_eq!(shaped["switched_off_tables"], json!(["db.s.off"]));
    assert_eq!(
        shaped["unreadable_tables"],
        json!([
            "db.s.ann_syntax",
            "db.s.bad_ann",
            "db.s.broken_stats",
            "db.s.empty_ann"
        ])
    );
}

#[test]
fn every_resolve_value_match_kind() {
    let mut server = Server::start(&fixtures().join("edge/search"), &[]);
    let kind = |server: &mut Server, column: &str, text: &str| -> (String, Value) {
        let r = resolve(
            server,
            json!({"table": "db.s.people", "column": column, "text": text}),
        );
        (r["match"].as_str().unwrap().to_string(), r)
    };
    let (m, r) = kind(&mut server, "status", "  ACTIVE ");
    assert_eq!(m, "stored");
    // `active`, `Active` and `ACTIVE ` all fold to one key.
    assert_eq!(r["spellings"].as_array().unwrap().len(), 3);
    assert_eq!(kind(&mut server, "status", "overdue").0, "definition");
    assert_eq!(
        kind(&mut server, "status", "the payment overdue notice").0,
        "definition"
    );
    let (m, r) = kind(&mut server, "code", "PZ021");
    assert_eq!(m, "nearest");
    assert!(r["candidates"][0]["score"].as_f64().unwrap() >= 0.3);
    assert!(r["sample_caveat"].is_string());
    assert_eq!(kind(&mut server, "status", "zzzz").0, "none");
    let (m, r) = kind(&mut server, "empty_col", "x");
    assert_eq!((m.as_str(), &r["domain"]), ("none", &json!([])));
    for (column, reason) in [
        (
            "zip",
            "column 'zip' values are unmeasured: the read failed this run",
        ),
        (
            "doc",
            "column 'doc' publishes no values: not carried by json",
        ),
        (
            "comment",
            "column 'comment' publishes no values: not emitted for this column",
        ),
        (
            "phone",
            "column 'phone' is redacted (mask), so its values are withheld",
        ),
    ] {
        let (m, r) = kind(&mut server, column, "x");
        assert_eq!(
            (m.as_str(), r["reason"].as_str().unwrap()),
            ("unavailable", reason)
        );
    }
    let zero = resolve(
        &mut server,
        json!({"table": "db.s.zero", "column": "kind", "text": "x"}),
    );
    assert_eq!(
        zero["reason"],
        json!("the scan read no rows, so there is no value list to match the phrase against")
    );
    assert_eq!(zero["scope"], json!({"rows_scanned": 0, "sample": 0.1}));
    let view = resolve(
        &mut server,
        json!({"table": "db.s.no_stats", "column": "x", "text": "x"}),
    );
    assert_eq!(
        view["reason"],
        json!("table 'db.s.no_stats' declares no statistics artifact")
    );
}

#[test]
fn resolve_value_keys_ride_every_page() {
    let mut server = Server::start(&fixtures().join("edge/search"), &[]);
    let pages = all_pages(
        &mut server,
        "resolve_value",
        json!({"table": "db.s.people", "column": "short_long", "text": "v001"}),
    );
    assert!(pages.len() > 1);
    let (mut domain, mut candidates) = (0, 0);
    for page in &pages {
        for key in [
            "table",
            "column",
            "text",
            "coverage",
            "exhaustive",
            "listed",
        ] {
            assert!(page.get(key).is_some(), "{key} missing from a page");
        }
        assert_eq!(page["match"], json!("nearest"));
        domain += page["domain"].as_array().map_or(0, Vec::len);
        candidates += page["candidates"].as_array().map_or(0, Vec::len);
    }
    assert_eq!((domain, candidates), (50, 1));
    // `total` counts both lists, on every page.
    assert!(pages.iter().all(|p| p["total"] == json!(51)));
}

#[test]
fn a_statistics_edit_is_seen_at_once_and_stales_the_cursor() {
    let project = scratch();
    let mut server = Server::start(project.path(), &[]);
    let (first, _) = server.call("search_columns", json!({"pattern": "*"}));
    let first: Value = serde_json::from_str(&first).unwrap();
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    // Re-type `comment` and note it, without touching the manifest.
    let stats = people(project.path()).join("statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(
        &stats,
        text.replacen(
            "  comment:\n    sql_type: TEXT\n    classification: text",
            "  comment:\n    sql_type: TEXT\n    classification: categorical",
            1,
        ),
    )
    .unwrap();
    let (stale, is_error) =
        server.call("search_columns", json!({"pattern": "*", "cursor": cursor}));
    assert!(is_error);
    assert_eq!(stale, "the print changed on disk since this cursor was issued, so search_columns cannot resume where it left off. Call again without `cursor` to start over.");
    let categorical = labels(&search(
        &mut server,
        json!({"classification": "categorical", "pattern": "comment"}),
    ));
    assert_eq!(categorical, ["db.s.people.comment"]);
    // An edit to an annotation file stales a cursor too; resolve_value reads it on its
    // next call.
    let (again, _) = server.call("search_columns", json!({"pattern": "*"}));
    let again: Value = serde_json::from_str(&again).unwrap();
    let cursor = again["next_cursor"].as_str().unwrap().to_string();
    let ann = people(project.path()).join("statistics.annotations.yaml");
    let text = std::fs::read_to_string(&ann).unwrap();
    std::fs::write(&ann, text.replace("payment overdue", "awaiting payment")).unwrap();
    let (_, is_error) = server.call("search_columns", json!({"pattern": "*", "cursor": cursor}));
    assert!(
        is_error,
        "a cursor over the annotation file before its edit resumed"
    );
    let r = resolve(
        &mut server,
        json!({"table": "db.s.people", "column": "status", "text": "awaiting payment"}),
    );
    assert_eq!(r["match"], json!("definition"));
}

#[test]
fn a_scan_scope_edited_under_a_running_server_is_shown_by_the_next_search() {
    // A match shows its table's scan scope, from the table's record, which a server keeps
    // between calls: an edit to the statistics must reach the next search all the same.
    let project = scratch();
    let mut server = Server::start(project.path(), &[]);
    let late = |server: &mut Server| {
        let reply = search(server, json!({"pattern": "late"}));
        let matches = reply["matches"].as_array().unwrap().clone();
        assert_eq!(matches.len(), 1, "{reply}");
        matches[0].clone()
    };
    let before = late(&mut server);
    assert_eq!(before["table"], json!("db.s.scoped"));
    assert_eq!(before["scope"]["rows_scanned"], json!(250));
    let stats = project
        .path()
        .join("prints/shop/db/s/scoped/statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    assert!(text.contains("  rows_scanned: 250\n"));
    std::fs::write(
        &stats,
        text.replacen("  rows_scanned: 250\n", "  rows_scanned: 300\n", 1),
    )
    .unwrap();
    let after = late(&mut server);
    assert_eq!(after["scope"]["rows_scanned"], json!(300), "{after}");
}

#[test]
fn the_index_survives_a_restart_and_its_deletion() {
    let project = fixtures().join("edge/search");
    let index = tempfile::tempdir().unwrap();
    let ask = json!({"text": "legacy"});
    let cold = {
        let mut server = Server::start_in(&project, &[], Some(index.path()));
        search(&mut server, ask.clone())
    };
    let warm = {
        let mut server = Server::start_in(&project, &[], Some(index.path()));
        search(&mut server, ask.clone())
    };
    assert_eq!(cold, warm);
    std::fs::remove_dir_all(index.path().join("search")).unwrap();
    let mut server = Server::start_in(&project, &[], Some(index.path()));
    assert_eq!(search(&mut server, ask), cold);
}

#[test]
fn one_unreadable_column_block_fails_the_whole_search() {
    let mut server = Server::start(&fixtures().join("edge/search-crash"), &[]);
    let (text, is_error) = server.call("search_columns", json!({"pattern": "zzz"}));
    assert!(is_error);
    assert_eq!(text, "'str' object has no attribute 'get'");
    let fine = resolve(
        &mut server,
        json!({"table": "db.s.fine", "column": "a", "text": "1"}),
    );
    assert_eq!(fine["match"], json!("stored"));
}

#[test]
fn a_file_replaced_by_rename_is_seen_by_the_next_call() {
    let project = scratch();
    let mut server = Server::start(project.path(), &[]);
    let before = search(&mut server, json!({"text": "tomorrow"}));
    assert_eq!(before["total"], json!(0));
    // An atomic replace, as editors and generators write: a new inode under the old name.
    let ann = people(project.path()).join("statistics.annotations.yaml");
    let text = std::fs::read_to_string(&ann).unwrap();
    let staged = ann.with_extension("staged");
    std::fs::write(
        &staged,
        text.replace("Closed by the customer", "Closes tomorrow"),
    )
    .unwrap();
    std::fs::rename(&staged, &ann).unwrap();
    let after = search(&mut server, json!({"text": "tomorrow"}));
    assert_eq!(labels(&after), ["db.s.people.status"]);
    assert_eq!(
        after["matches"][0]["value_notes"],
        json!([{"value": "closed", "note": "Closes tomorrow"}])
    );
}

#[test]
fn an_edit_after_the_watcher_caught_up_with_another_is_seen_by_the_next_call() {
    let project = scratch();
    let mut server = Server::start(project.path(), &[]);
    let ann = people(project.path()).join("statistics.annotations.yaml");
    let original = std::fs::read_to_string(&ann).unwrap();
    assert!(original.contains("Legacy transfer code"));
    assert_eq!(
        search(&mut server, json!({"text": "old transfer"}))["total"],
        json!(0)
    );
    // One edit, given time for the watcher to re-read it and publish a new snapshot.
    std::fs::write(
        &ann,
        original.replace("Legacy transfer code", "Old transfer code"),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(
        search(&mut server, json!({"text": "old transfer"}))["total"],
        json!(1)
    );
    // A second edit asked about at once: the snapshot the watcher made must still know
    // what the feed named since it was last checked, not vouch for the disk blindly.
    std::fs::write(
        &ann,
        original.replace("Legacy transfer code", "Renamed transfer code"),
    )
    .unwrap();
    assert_eq!(
        search(&mut server, json!({"text": "renamed transfer"}))["total"],
        json!(1)
    );
    assert_eq!(
        search(&mut server, json!({"text": "old transfer"}))["total"],
        json!(0)
    );
}
