//! YAML alias structures that expand far beyond their text (issue 16, item 6).
//!
//! `fixtures/hostile-aliases/statistics` holds a table whose statistics.yaml carries a
//! 6-level alias structure (about 270 bytes, 531,441 leaves expanded) and one with 7 levels
//! (4,782,969 leaves); `fixtures/hostile-aliases/manifest` carries the 6-level one in its
//! manifest.yaml. `expected.jsonl` holds dbprint 0.15.0's answers to the same calls
//! (cursors aside: they digest paths and content versions).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::util::{bin, fixtures, run, Server};

fn project(name: &str) -> PathBuf {
    fixtures().join("hostile-aliases").join(name)
}

struct Expected {
    tool: String,
    arguments: Value,
    pages: Vec<String>,
    complete: bool,
}

fn expected(project: &str) -> Vec<Expected> {
    let text = std::fs::read_to_string(fixtures().join("hostile-aliases/expected.jsonl"))
        .expect("expected.jsonl is committed");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|v| v["project"] == project)
        .map(|v| Expected {
            tool: v["tool"].as_str().unwrap_or_default().to_string(),
            arguments: v["arguments"].clone(),
            pages: v["pages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p.as_str().unwrap_or_default().to_string())
                .collect(),
            complete: v["complete"].as_bool().unwrap_or(true),
        })
        .collect()
}

/// `age_days` and `freshness` move with the clock (the fixture's tables turned stale a
/// week after they were profiled): they are left out of the comparison.
fn without_clock(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("age_days");
            o.remove("freshness");
            o.values_mut().for_each(without_clock);
        }
        Value::Array(a) => a.iter_mut().for_each(without_clock),
        _ => {}
    }
}

/// A page without its cursor (a JSON key, a Markdown marker or a YAML comment), and that
/// cursor.
fn split_cursor(page: &str) -> (String, Option<String>) {
    if let Ok(Value::Object(mut o)) = serde_json::from_str::<Value>(page) {
        let cursor = o
            .remove("next_cursor")
            .and_then(|c| c.as_str().map(str::to_string));
        let mut v = Value::Object(o);
        without_clock(&mut v);
        return (v.to_string(), cursor);
    }
    for open in ["\n<!-- next_cursor: ", "# next_cursor: "] {
        if let Some(at) = page.rfind(open) {
            let rest = &page[at + open.len()..];
            let cursor = rest.split([' ', '\n']).next().unwrap_or_default();
            return (page[..at].to_string(), Some(cursor.to_string()));
        }
    }
    (page.to_string(), None)
}

/// The pages of one call, as many as `limit`, each with its cursor cut out.
fn pages(server: &mut Server, tool: &str, arguments: &Value, limit: usize) -> Vec<String> {
    let mut arguments = arguments.clone();
    let mut out = Vec::new();
    while out.len() < limit {
        let (text, is_error) = server.call(tool, arguments.clone());
        let (page, cursor) = split_cursor(&text);
        out.push(if is_error { format!("E {page}") } else { page });
        match cursor {
            Some(c) => arguments["cursor"] = json!(c),
            None => break,
        }
    }
    out
}

/// Markdown's legend is printdex's own wording: those replies are compared between servers.
fn markdown(call: &Expected) -> bool {
    call.tool == "get_table_context" && call.arguments.get("format").is_none()
}

/// Every expected call answers as dbprint did (all pages, or the first ones recorded).
fn answers_as_the_reference(server: &mut Server, project: &str) {
    let calls = expected(project);
    assert!(!calls.is_empty());
    for call in calls.into_iter().filter(|c| !markdown(c)) {
        let want: Vec<String> = call.pages.iter().map(|p| split_cursor(p).0).collect();
        let limit = if call.complete {
            usize::MAX
        } else {
            want.len()
        };
        let got = pages(server, &call.tool, &call.arguments, limit);
        assert_eq!(got, want, "{} {}", call.tool, call.arguments);
    }
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("read the index dir")
        .flatten()
        .map(|e| {
            let m = e.metadata().expect("metadata");
            if m.is_dir() {
                dir_size(&e.path())
            } else {
                m.len()
            }
        })
        .sum()
}

fn rebuild(project: &Path, index: &Path) {
    let out = run(Command::new(bin())
        .args(["index", "rebuild", "--project"])
        .arg(project)
        .arg("--index-dir")
        .arg(index));
    assert!(out.ok(), "{}", out.stderr);
}

const MB: u64 = 1024 * 1024;

#[test]
fn an_alias_structure_in_statistics_costs_its_text_and_answers_as_the_reference() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = dir.path().join("index");
    rebuild(&project("statistics"), &index);
    // Both structures expanded are 5.3 million leaves; stored shared, they are a few rows.
    let size = dir_size(&index);
    assert!(size < 20 * MB, "index of {size} bytes");
    // A warm start over that index answers as a fresh one, and both as the reference.
    let mut warm = Server::start_in(&project("statistics"), &[], Some(&index));
    answers_as_the_reference(&mut warm, "statistics");
    let mut fresh = Server::start(&project("statistics"), &[]);
    answers_as_the_reference(&mut fresh, "statistics");
    for call in expected("statistics").iter().filter(|c| markdown(c)) {
        assert_eq!(
            pages(&mut warm, &call.tool, &call.arguments, usize::MAX),
            pages(&mut fresh, &call.tool, &call.arguments, usize::MAX),
            "{}",
            call.arguments
        );
    }
}

#[test]
fn seven_levels_are_served_not_refused() {
    let mut server = Server::start(&project("statistics"), &[]);
    let (text, is_error) = server.call(
        "get_table_context",
        json!({"table": "db.s.bomb7", "format": "yaml"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("    f: &id006\n    - *id005\n"), "{text}");
    assert!(text.len() < 2_000, "{text}");
}

#[test]
fn an_alias_structure_in_the_manifest_leaves_the_connection_served() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = dir.path().join("index");
    rebuild(&project("manifest"), &index);
    let size = dir_size(&index);
    assert!(size < 20 * MB, "index of {size} bytes");
    let mut server = Server::start_in(&project("manifest"), &[], Some(&index));
    answers_as_the_reference(&mut server, "manifest");
}
