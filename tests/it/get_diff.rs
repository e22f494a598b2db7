//! get_diff end to end: events about a rejected edge withheld, the filters, odd diffs,
//! paging, and cursors pinned to the files that decided the reply.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::{all_pages, copy_dir, fixtures, Server};

fn rejected_project() -> PathBuf {
    fixtures().join("edge/diff-rejected")
}

fn dict(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A successful call's reply.
fn diff(server: &mut Server, arguments: Value) -> Value {
    let (text, is_error) = server.call("get_diff", arguments);
    assert!(!is_error, "{text}");
    dict(&text)
}

/// (kind, the event's table or source table) of each event on a page.
fn events(reply: &Value) -> Vec<(String, String)> {
    reply["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let table = c.get("table").or_else(|| c.get("source_table")).unwrap();
            (
                c["kind"].as_str().unwrap().to_string(),
                table.as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, t)| (k.to_string(), t.to_string()))
        .collect()
}

const ACTIVITY: &str = "stacks.lending.activity_log";
const PATRONS: &str = "stacks.members.patrons";

fn is_rejected_edge(c: &Value) -> bool {
    c["source_table"] == json!(ACTIVITY)
        && c["source_column"] == json!(["patron_id"])
        && c["target_table"] == json!(PATRONS)
        && c["target_column"] == json!(["patron_id"])
}

#[test]
fn events_about_a_rejected_edge_are_withheld_and_the_summary_recounted() {
    let mut server = Server::start(&rejected_project(), &[]);
    let reply = diff(&mut server, json!({"connection": "library"}));
    let changes = reply["changes"].as_array().unwrap();
    // 11 entries on disk: two are about the rejected edge, one is not a mapping.
    assert_eq!(changes.len(), 8);
    assert_eq!(reply["total"], json!(8));
    assert!(!changes.iter().any(is_rejected_edge));
    // Same table, other edge; same edge spelled with a scalar column: not bound.
    assert!(changes.iter().any(
        |c| c["source_table"] == json!(ACTIVITY) && c["source_column"] == json!(["branch_id"])
    ));
    assert!(changes
        .iter()
        .any(|c| c["source_table"] == json!(ACTIVITY) && c["source_column"] == json!("patron_id")));
    assert_eq!(reply["summary"]["relationships_changed"], json!(5));
    // The header keys come first, in file order, then the list and its total.
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "format_version",
            "generated_at",
            "connection",
            "adapter",
            "baseline",
            "target",
            "summary",
            "changes",
            "total"
        ]
    );
}

#[test]
fn the_table_and_kind_filters_apply_after_the_withholding_and_combine() {
    let mut server = Server::start(&rejected_project(), &[]);
    let lib = |mut args: Value| {
        args["connection"] = json!("library");
        args
    };
    let by_source = diff(&mut server, lib(json!({"table": ACTIVITY})));
    assert_eq!(
        events(&by_source),
        pairs(&[
            ("statistic_changed", ACTIVITY),
            ("relationship_added", ACTIVITY),
            ("relationship_removed", ACTIVITY),
        ])
    );
    // A table named only as a target still finds its relationship events.
    let by_target = diff(&mut server, lib(json!({"table": PATRONS})));
    assert_eq!(
        events(&by_target),
        pairs(&[
            ("relationship_added", "stacks.lending.fines"),
            ("relationship_modified", "stacks.lending.loans"),
            ("relationship_removed", ACTIVITY),
        ])
    );
    let by_kind = diff(&mut server, lib(json!({"kind": "relationship_added"})));
    assert_eq!(
        events(&by_kind),
        pairs(&[
            ("relationship_added", "stacks.lending.fines"),
            ("relationship_added", ACTIVITY),
        ])
    );
    let both = diff(
        &mut server,
        lib(json!({"table": ACTIVITY, "kind": "relationship_added"})),
    );
    assert_eq!(events(&both), pairs(&[("relationship_added", ACTIVITY)]));
    assert_eq!(both["total"], json!(1));
    // The summary is the whole diff's whatever the filters keep.
    assert_eq!(both["summary"]["relationships_changed"], json!(5));
    let none = diff(&mut server, lib(json!({"kind": "index_added"})));
    assert_eq!(none["changes"], json!([]));
    assert_eq!(none["total"], json!(0));
    let (text, is_error) = server.call("get_diff", lib(json!({"kind": "table_exploded"})));
    assert!(is_error);
    assert!(text.starts_with("kind 'table_exploded' must be one of ['table_added', "));
}

#[test]
fn a_diff_that_is_not_a_mapping_is_an_empty_object_and_one_that_does_not_parse_an_error() {
    let project = rejected_project();
    let mut server = Server::start(&project, &[]);
    for args in [
        json!({"connection": "flat"}),
        json!({"connection": "flat", "table": "a.b.c", "kind": "table_added"}),
        json!({"connection": "flat", "cursor": "not-a-cursor"}),
    ] {
        assert_eq!(server.call("get_diff", args), ("{}".to_string(), false));
    }
    let (text, is_error) = server.call("get_diff", json!({"connection": "broken"}));
    assert!(is_error);
    let path = project.join("prints/broken/diff.yaml");
    assert!(
        text.starts_with(&format!(
            "{}: YAML parse error: while parsing a flow mapping",
            path.display()
        )),
        "{text}"
    );
    let (text, is_error) = server.call("get_diff", json!({}));
    assert!(is_error);
    assert_eq!(
        text,
        "no default connection; pass connection explicitly. Configured: ['broken', 'flat', 'library']"
    );
}

#[test]
fn a_missing_diff_names_its_path_and_the_commands_that_write_one() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&rejected_project(), dir.path());
    let root = dir.path().join("prints/library");
    std::fs::remove_file(root.join("diff.yaml")).unwrap();
    let mut server = Server::start(dir.path(), &[]);
    let (text, is_error) = server.call("get_diff", json!({"connection": "library"}));
    assert!(is_error);
    let shown = std::fs::canonicalize(dir.path())
        .unwrap()
        .join("prints/library/diff.yaml");
    assert_eq!(
        text,
        format!(
            "no diff available at {}. Run `dbprint diff` or `dbprint generate` first.",
            shown.display()
        )
    );
    // Written while the server runs: the next call reads it.
    std::fs::copy(
        rejected_project().join("prints/library/diff.yaml"),
        root.join("diff.yaml"),
    )
    .unwrap();
    assert_eq!(
        diff(&mut server, json!({"connection": "library"}))["total"],
        json!(8)
    );
}

/// The library print's diff.yaml events, as the reference loads them.
fn events_on_disk(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = compat::yaml::load(&text).unwrap();
    let changes = doc.get("changes").unwrap();
    serde_json::from_str(&compat::py::json_compact(changes)).unwrap()
}

#[test]
fn changes_page_in_file_order_with_total_on_every_page_and_the_header_first() {
    let library = fixtures().join("library");
    let mut server = Server::start(&library, &[]);
    let pages = all_pages(&mut server, "get_diff", json!({}));
    assert!(pages.len() >= 3, "{} pages", pages.len());
    let mut seen = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        assert!(serde_json::to_string_pretty(page).unwrap().chars().count() <= 20_000);
        let total = page["changes"].as_array().unwrap().len();
        assert!(total > 0);
        assert_eq!(
            page["total"],
            json!(pages
                .iter()
                .map(|p| p["changes"].as_array().unwrap().len())
                .sum::<usize>())
        );
        assert_eq!(
            page.get("summary").is_some(),
            i == 0,
            "header on page 1 only"
        );
        assert_eq!(page.get("next_cursor").is_some(), i + 1 < pages.len());
        seen.extend(page["changes"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(
        Value::Array(seen),
        events_on_disk(&library.join("prints/library/diff.yaml"))
    );
    // A filtered call pages the same way over fewer events.
    let stats = all_pages(
        &mut server,
        "get_diff",
        json!({"kind": "statistic_changed"}),
    );
    let kept: usize = stats
        .iter()
        .map(|p| p["changes"].as_array().unwrap().len())
        .sum();
    assert_eq!(kept, 83);
    assert!(stats.iter().all(|p| p["total"] == json!(83)));
}

#[test]
fn a_cursor_is_pinned_to_the_diff_and_the_annotations_that_decided_it() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&rejected_project(), dir.path());
    let root = dir.path().join("prints/library");
    // Enough drift events to need a second page.
    let mut text = std::fs::read_to_string(root.join("diff.yaml")).unwrap();
    for i in 0..300 {
        text.push_str(&format!(
            "- kind: statistic_changed\n  table: stacks.lending.loans\n  column: c{i:03}\n  stat: null_rate\n  before: 0.1\n  after: 0.25\n"
        ));
    }
    std::fs::write(root.join("diff.yaml"), text).unwrap();
    let mut server = Server::start(dir.path(), &[]);
    let first = diff(&mut server, json!({"connection": "library"}));
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let page_two = json!({"connection": "library", "cursor": cursor});
    assert_eq!(diff(&mut server, page_two.clone())["total"], json!(308));

    // fines has no annotation file, so its relationships.yaml decides nothing.
    let fines = root.join("stacks/lending/fines/relationships.yaml");
    let mut edited = std::fs::read_to_string(&fines).unwrap();
    edited.push_str("# touched\n");
    std::fs::write(&fines, edited).unwrap();
    assert_eq!(diff(&mut server, page_two.clone())["total"], json!(308));

    // activity_log's verdict decides two events: withdrawing it changes the answer.
    std::fs::write(
        root.join("stacks/lending/activity_log/relationships.annotations.yaml"),
        "format_version: 1\nrefers_to: []\n",
    )
    .unwrap();
    let (text, is_error) = server.call("get_diff", page_two);
    assert!(is_error);
    assert_eq!(
        text,
        "the print changed on disk since this cursor was issued, so get_diff cannot resume where it left off. Call again without `cursor` to start over."
    );
    let again = diff(&mut server, json!({"connection": "library"}));
    assert_eq!(again["total"], json!(310));
    assert_eq!(again["summary"]["relationships_changed"], json!(7));
}

#[test]
fn a_diff_rewritten_under_a_running_server_is_answered_from_its_new_events() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("library"), dir.path());
    let path = dir.path().join("prints/library/diff.yaml");
    let mut server = Server::start(dir.path(), &[]);
    let before = all_pages(&mut server, "get_diff", json!({}));
    assert_eq!(before[0]["total"], json!(89));
    // The next run's diff: its events are not the ones the server holds by position.
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, _) = text.split_once("\nchanges:\n").unwrap();
    std::fs::write(
        &path,
        format!(
            "{head}\nchanges:\n- kind: column_added\n  table: stacks.catalog.books\n  column: subtitle\n- kind: comment_changed\n  table: stacks.catalog.authors\n"
        ),
    )
    .unwrap();
    let after = all_pages(&mut server, "get_diff", json!({}));
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["total"], json!(2));
    assert_eq!(
        Value::Array(after[0]["changes"].as_array().unwrap().clone()),
        events_on_disk(&path)
    );
    let books = diff(&mut server, json!({"table": "stacks.catalog.books"}));
    assert_eq!(
        events(&books),
        pairs(&[("column_added", "stacks.catalog.books")])
    );
}
