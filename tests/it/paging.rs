//! Paging and cursors end to end: a print large enough to page, followed to the
//! last page, and cursors refused after the print changes.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{all_pages, Server};

/// A project whose one connection lists `n` tables (manifest only).
fn big_project(dir: &Path, n: usize) {
    std::fs::write(
        dir.join(".dbprint.yaml"),
        "connections:\n  big:\n    adapter: duckdb\n",
    )
    .unwrap();
    write_manifest(dir, n);
}

fn write_manifest(dir: &Path, n: usize) {
    let root = dir.join("prints/big");
    std::fs::create_dir_all(&root).unwrap();
    let mut text = String::from("format_version: 1\nconnection: big\ntables:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  db.s.table_{i:04}:\n    type: table\n    path: db/s/table_{i:04}\n    row_count: {i}\n    columns: 3\n    profiled_at: '2026-01-01T00:00:00Z'\n"
        ));
    }
    std::fs::write(root.join("manifest.yaml"), text).unwrap();
}

#[test]
fn list_tables_pages_cover_every_table_once() {
    let dir = tempfile::tempdir().unwrap();
    big_project(dir.path(), 500);
    let mut server = Server::start(dir.path(), &[]);
    let pages = all_pages(&mut server, "list_tables", json!({"detail": true}));
    assert!(pages.len() > 1, "500 detailed entries exceed one page");
    let mut names = Vec::new();
    for page in &pages {
        assert_eq!(page["total"], json!(500));
        assert!(serde_json::to_string_pretty(page).unwrap().chars().count() <= 20_000);
        names.extend(
            page["tables"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["table"].as_str().unwrap().to_string()),
        );
    }
    let expected: Vec<String> = (0..500).map(|i| format!("db.s.table_{i:04}")).collect();
    assert_eq!(names, expected);
}

#[test]
fn cursors_are_refused_after_the_print_changes_or_for_other_calls() {
    let dir = tempfile::tempdir().unwrap();
    big_project(dir.path(), 500);
    let mut server = Server::start(dir.path(), &[]);
    let (text, _) = server.call("get_manifest", json!({}));
    let first: Value = serde_json::from_str(&text).unwrap();
    let cursor = first["next_cursor"].as_str().expect("paged").to_string();

    let (text, is_error) = server.call("list_tables", json!({"cursor": cursor}));
    assert!(is_error);
    assert_eq!(
        text,
        "this cursor was not issued by list_tables with these arguments. Repeat the call that returned it with the same arguments, or call again without `cursor`."
    );
    let (text, is_error) = server.call("get_manifest", json!({"cursor": cursor, "pattern": "*"}));
    assert!(is_error);
    assert!(text.starts_with("this cursor was not issued by get_manifest"));

    write_manifest(dir.path(), 501);
    let (text, is_error) = server.call("get_manifest", json!({"cursor": cursor}));
    assert!(is_error);
    assert_eq!(
        text,
        "the print changed on disk since this cursor was issued, so get_manifest cannot resume where it left off. Call again without `cursor` to start over."
    );
    // The server keeps serving, and sees the new table.
    let (text, _) = server.call("list_tables", json!({"pattern": "*0500"}));
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["tables"],
        json!(["db.s.table_0500"])
    );
}
