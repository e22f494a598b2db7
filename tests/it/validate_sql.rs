//! validate_sql over stdio: the corpus of queries over the fixture prints against the
//! findings committed beside it, and the tool as a client meets it (listed after dbprint's
//! seven, answering in each format, refusing bad arguments as the other tools do).

use std::collections::BTreeMap;

use compat::value::Value as Yaml;
use serde_json::{json, Value};

use crate::util::{fixtures, Server};

const KINDS: [&str; 7] = [
    "parse_error",
    "unknown_table",
    "unknown_column",
    "ambiguous_column",
    "unknown_join",
    "unknown_value",
    "type_mismatch",
];

/// One corpus case: where, what, and the findings it must give (`message` left out).
struct Case {
    name: String,
    project: String,
    sql: String,
    findings: Vec<Value>,
}

fn text(v: &Yaml, key: &str) -> String {
    v.get(key)
        .and_then(Yaml::as_str)
        .unwrap_or_else(|| panic!("corpus entry lacks {key}: {v:?}"))
        .to_string()
}

fn corpus() -> Vec<Case> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/validate_sql/corpus.yaml");
    let doc = compat::yaml::load(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc.as_seq()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: text(c, "name"),
            project: text(c, "project"),
            sql: text(c, "sql"),
            findings: c
                .get("findings")
                .and_then(Yaml::as_seq)
                .unwrap_or_default()
                .iter()
                .map(|f| serde_json::from_str(&compat::py::json_compact(f)).unwrap())
                .collect(),
        })
        .collect()
}

/// A reply's finding without its prose.
fn comparable(f: &Value) -> Value {
    json!({
        "kind": f["kind"],
        "line": f["line"],
        "column": f["column"],
        "text": f["text"],
        "suggestions": f["suggestions"],
    })
}

#[test]
fn the_corpus_gives_exactly_its_findings() {
    let cases = corpus();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let valid = cases.iter().filter(|c| c.findings.is_empty()).count();
    assert!(valid >= 20, "{valid} valid cases");
    for kind in KINDS {
        let n = cases
            .iter()
            .flat_map(|c| &c.findings)
            .filter(|f| f["kind"] == kind)
            .count();
        assert!(n >= 5, "{kind}: {n} findings in the corpus");
    }
    let mut by_project: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for c in &cases {
        by_project.entry(&c.project).or_default().push(c);
    }
    let mut failures = Vec::new();
    for (project, cases) in by_project {
        let mut server = Server::start(&fixtures().join(project), &[]);
        for case in cases {
            let (reply, is_error) =
                server.call("validate_sql", json!({"sql": case.sql, "format": "json"}));
            assert!(!is_error, "{}: {reply}", case.name);
            let reply: Value = serde_json::from_str(&reply).unwrap();
            let got = reply["findings"].as_array().unwrap();
            assert_eq!(reply["ok"], json!(got.is_empty()), "{}", case.name);
            for f in got {
                assert!(
                    f["message"].as_str().is_some_and(|m| !m.is_empty()),
                    "{}: {f}",
                    case.name
                );
            }
            let got: Vec<Value> = got.iter().map(comparable).collect();
            let want: Vec<Value> = case.findings.iter().map(comparable).collect();
            if got != want {
                failures.push(format!(
                    "{}:\n  want {}\n  got  {}",
                    case.name,
                    serde_json::to_string(&want).unwrap(),
                    serde_json::to_string(&got).unwrap()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const MISTAKES: &str = "SELECT l.loan_id, l.patron_idd\nFROM lending.loans l\nJOIN lending.holds h ON h.patron_id = l.patron_id";

#[test]
fn the_tool_is_listed_after_the_seven_and_answers_in_every_format() {
    let mut s = Server::start(&fixtures().join("library"), &[]);
    let listed = s.request("tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "get_table_context",
            "list_tables",
            "search_columns",
            "resolve_value",
            "get_manifest",
            "get_diff",
            "get_reference",
            "validate_sql",
            "plan_joins",
            "find"
        ]
    );
    let tool = &listed["result"]["tools"][7];
    assert_eq!(tool["inputSchema"]["required"], json!(["sql"]));
    assert_eq!(
        tool["inputSchema"]["properties"]["format"]["enum"],
        json!(["md", "json", "yaml"])
    );
    let instructions = s.init["result"]["instructions"].as_str().unwrap();
    let lines: Vec<&str> = instructions
        .lines()
        .filter(|l| l.starts_with("- validate_sql: "))
        .collect();
    assert_eq!(lines.len(), 1, "{instructions}");

    let (md, err) = s.call("validate_sql", json!({"sql": MISTAKES}));
    assert!(!err, "{md}");
    assert!(md.starts_with("# validate_sql: 2 findings\n"), "{md}");
    assert!(
        md.contains("1. **unknown_column** at line 1, column 19: `l.patron_idd`"),
        "{md}"
    );
    assert!(md.contains("Suggestions: `l.patron_id`"), "{md}");
    assert!(
        md.contains("2. **unknown_join** at line 3, column 25: `h.patron_id = l.patron_id`"),
        "{md}"
    );

    let (json_text, err) = s.call("validate_sql", json!({"sql": MISTAKES, "format": "json"}));
    assert!(!err);
    let reply: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(reply["ok"], json!(false));
    assert_eq!(reply["dialect"], json!("duckdb"));
    assert_eq!(reply["connection"], json!("library"));
    assert_eq!(reply["findings"][0]["suggestions"], json!(["l.patron_id"]));

    // `format` folds case, as the other tools' does.
    let (yaml, err) = s.call("validate_sql", json!({"sql": MISTAKES, "format": "YAML"}));
    assert!(!err);
    let parsed = compat::yaml::load(&yaml).unwrap();
    let as_json: Value = serde_json::from_str(&compat::py::json_compact(&parsed)).unwrap();
    assert_eq!(as_json, reply);

    let (ok, err) = s.call(
        "validate_sql",
        json!({"sql": "SELECT loan_id FROM lending.loans", "connection": "library"}),
    );
    assert!(!err);
    assert!(ok.starts_with("# validate_sql: ok\n"), "{ok}");
}

#[test]
fn bad_arguments_are_refused_as_the_other_tools_refuse_them() {
    let mut s = Server::start(&fixtures().join("library"), &[]);
    let cases = [
        (json!({}), "validate_sql requires 'sql'."),
        (json!({"sql": ""}), "sql '' must be a non-empty string."),
        (json!({"sql": 1}), "sql 1 must be of type string."),
        (
            json!({"sql": "SELECT 1", "format": "xml"}),
            "format 'xml' must be one of ['md', 'json', 'yaml'].",
        ),
        (
            json!({"sql": "SELECT 1", "table": "x"}),
            "validate_sql takes no argument 'table'. Accepted: ['connection', 'format', 'sql'].",
        ),
        (
            json!({"sql": "SELECT 1", "connection": "nope"}),
            "connection 'nope' not in .dbprint.yaml. Configured: ['library']",
        ),
    ];
    for (arguments, want) in cases {
        let (text, err) = s.call("validate_sql", arguments.clone());
        assert!(err, "{arguments}: {text}");
        assert_eq!(text, want, "{arguments}");
    }
    // The same table words the other tools' refusals.
    let (other, err) = s.call("list_tables", json!({"connection": "nope"}));
    assert!(err);
    assert_eq!(
        other,
        "connection 'nope' not in .dbprint.yaml. Configured: ['library']"
    );
}

/// The kinds of a query's findings, in order.
fn finding_kinds(server: &mut Server, sql: &str) -> Vec<String> {
    let (reply, is_error) = server.call("validate_sql", json!({"sql": sql, "format": "json"}));
    assert!(!is_error, "{reply}");
    let reply: Value = serde_json::from_str(&reply).unwrap();
    reply["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_column_renamed_in_one_tables_statistics_is_seen_and_the_other_tables_stay_known() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::copy_dir(&fixtures().join("library"), dir.path());
    let stats = dir
        .path()
        .join("prints/library/stacks/catalog/authors/statistics.yaml");
    let mut server = Server::start(dir.path(), &[]);
    let old = "SELECT author_id FROM stacks.catalog.authors";
    let new = "SELECT author_key FROM stacks.catalog.authors";
    let other = "SELECT l.loan_id, l.patron_id FROM lending.loans l";
    assert_eq!(finding_kinds(&mut server, old), Vec::<String>::new());
    assert_eq!(finding_kinds(&mut server, new), ["unknown_column"]);
    assert_eq!(finding_kinds(&mut server, other), Vec::<String>::new());

    rename_first_column(&stats, "author_id", "author_key");
    // The watcher hears of the edit within moments; the catalog is built again from it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while finding_kinds(&mut server, new) != Vec::<String>::new() {
        assert!(
            std::time::Instant::now() < deadline,
            "the rename was never seen"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(finding_kinds(&mut server, old), ["unknown_column"]);
    // The tables the edit did not touch keep their columns (taken from the catalog before).
    assert_eq!(finding_kinds(&mut server, other), Vec::<String>::new());
    assert_eq!(
        finding_kinds(&mut server, "SELECT l.loan_idd FROM lending.loans l"),
        ["unknown_column"]
    );
}

#[test]
fn a_join_added_to_one_tables_relationships_is_seen_after_other_edits() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::copy_dir(&fixtures().join("library"), dir.path());
    let table = |t: &str| dir.path().join("prints/library/stacks").join(t);
    let mut server = Server::start(dir.path(), &[]);
    let join = "SELECT * FROM lending.loans l JOIN lending.copies c ON c.book_id = l.book_id";
    assert!(finding_kinds(&mut server, join).contains(&"unknown_join".to_string()));
    let wait_for = |server: &mut Server, sql: &str, want: bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while finding_kinds(server, sql).contains(&"unknown_column".to_string()) != want {
            assert!(std::time::Instant::now() < deadline, "{sql}: never {want}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    // An edit elsewhere: the catalog is built again, every table's joins taken as held.
    rename_first_column(
        &table("catalog/authors/statistics.yaml"),
        "author_id",
        "author_key",
    );
    wait_for(
        &mut server,
        "SELECT author_id FROM stacks.catalog.authors",
        true,
    );
    assert!(finding_kinds(&mut server, join).contains(&"unknown_join".to_string()));
    // The join written into loans' own relationships file: that table's joins are read again.
    let rels = table("lending/loans/relationships.yaml");
    let text = std::fs::read_to_string(&rels).unwrap();
    let edge = "refers_to:\n- column:\n  - book_id\n  target_table: stacks.lending.copies\n  target_column:\n  - book_id\n  detection: inferred\n";
    std::fs::write(&rels, text.replacen("refers_to:\n", edge, 1)).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while finding_kinds(&mut server, join).contains(&"unknown_join".to_string()) {
        assert!(
            std::time::Instant::now() < deadline,
            "the added join was never seen"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `stats` with its first column (`from`) renamed `to`, in place: a rename would move the
/// directory, which a start from its head also notices.
fn rename_first_column(stats: &std::path::Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(stats).unwrap();
    let (was, now) = (
        format!("\ncolumns:\n  {from}:\n"),
        format!("\ncolumns:\n  {to}:\n"),
    );
    assert!(text.contains(&was), "{from}");
    std::fs::write(stats, text.replace(&was, &now)).unwrap();
}

#[test]
fn an_edit_to_a_named_table_is_seen_by_the_next_check_made_while_serving_or_after_a_restart() {
    let project = crate::util::library();
    let index = tempfile::tempdir().unwrap();
    let stats = project
        .path()
        .join("prints/library/stacks/catalog/authors/statistics.yaml");
    let start = || Server::start_in(project.path(), &[], Some(index.path()));
    // The authors' first column is `now`, no longer `was`.
    let named = |server: &mut Server, now: &str, was: &str| {
        let select = |column: &str| format!("SELECT {column} FROM stacks.catalog.authors");
        assert_eq!(finding_kinds(server, &select(now)), Vec::<String>::new());
        assert_eq!(finding_kinds(server, &select(was)), ["unknown_column"]);
    };
    let mut server = start();
    let first = finding_kinds(&mut server, "SELECT author_id FROM stacks.catalog.authors");
    assert_eq!(first, Vec::<String>::new());
    // While serving: the very next check, however soon, reads the table as it is now.
    rename_first_column(&stats, "author_id", "author_key");
    named(&mut server, "author_key", "author_id");
    assert!(server.close().success());
    // While no server ran: the first check of the next start on the same index sees it.
    std::thread::sleep(std::time::Duration::from_millis(200));
    rename_first_column(&stats, "author_key", "author_ref");
    named(&mut start(), "author_ref", "author_key");
}
