//! find end to end over stdio: ranked hits over the fixture prints, each with the call to
//! make next; the argument faults; freshness after an edit; and the relevance set
//! (`find/relevance.yaml`), measured as recall@3 and MRR.

use serde_json::{json, Value};

use crate::util::{fixtures, Server};

fn find(server: &mut Server, arguments: Value) -> Value {
    let mut arguments = arguments;
    arguments["format"] = json!("json");
    let (text, is_error) = server.call("find", arguments);
    assert!(!is_error, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// Each hit as `kind table[.column][=value]`.
fn hits(reply: &Value) -> Vec<String> {
    reply["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let mut s = format!(
                "{} {}",
                h["kind"].as_str().unwrap(),
                h["table"].as_str().unwrap()
            );
            if let Some(c) = h.get("column").and_then(Value::as_str) {
                s.push('.');
                s.push_str(c);
            }
            if let Some(v) = h.get("value").and_then(Value::as_str) {
                s.push('=');
                s.push_str(v);
            }
            s
        })
        .collect()
}

fn error(server: &mut Server, arguments: Value) -> String {
    let (text, is_error) = server.call("find", arguments);
    assert!(is_error, "{text}");
    text
}

#[test]
fn words_find_tables_columns_and_values_with_the_next_call() {
    let mut server = Server::start(&fixtures().join("business"), &[]);
    let reply = find(&mut server, json!({"query": "late fees", "limit": 3}));
    assert_eq!(hits(&reply)[0], "table saas.billing.late_fees");
    assert_eq!(
        reply["hits"][0]["why"],
        json!("name matches `late`, `fees`; description: 'A fee waived by the account manager keeps its row with `waived` true.'")
    );
    assert_eq!(
        reply["hits"][0]["next"],
        json!({"tool": "get_table_context", "arguments": {"table": "saas.billing.late_fees"}})
    );
    assert_eq!(reply["shown"], json!(3));
    assert!(reply["total"].as_i64().unwrap() > 3, "{reply}");
    // A value leads to resolve_value with the value as its text.
    let reply = find(
        &mut server,
        json!({"query": "chargeback", "kinds": ["value"], "limit": 1}),
    );
    assert_eq!(
        reply["hits"][0]["next"],
        json!({"tool": "resolve_value", "arguments": {"table": "saas.billing.payments", "column": "pymt_status", "text": "chargeback"}})
    );
    // Markdown: a head line, then one line per hit.
    let (md, is_error) = server.call("find", json!({"query": "refunds", "limit": 2}));
    assert!(!is_error);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), 3, "{md}");
    assert!(
        lines[0].starts_with("find 'refunds': the best 2 of "),
        "{md}"
    );
    assert!(
        lines[1].starts_with("1. table `saas.billing.refunds` - name matches `refunds`"),
        "{md}"
    );
    assert!(
        lines[1].ends_with(r#"-> get_table_context {"table": "saas.billing.refunds"}"#),
        "{md}"
    );
    // YAML carries the same dict.
    let (yaml, _) = server.call(
        "find",
        json!({"query": "refunds", "limit": 2, "format": "yaml"}),
    );
    let parsed = compat::yaml::load(&yaml).unwrap();
    assert!(
        matches!(parsed.get("shown"), Some(compat::value::Value::Int(2))),
        "{yaml}"
    );
}

#[test]
fn kinds_narrow_the_hits_and_identifier_spellings_are_one() {
    let mut server = Server::start(&fixtures().join("business"), &[]);
    let only_columns = find(
        &mut server,
        json!({"query": "invoice", "kinds": ["column"], "limit": 50}),
    );
    assert!(
        hits(&only_columns).iter().all(|h| h.starts_with("column ")),
        "{only_columns}"
    );
    for spelling in ["cust_id", "CustID", "customer id", "custId"] {
        let reply = find(
            &mut server,
            json!({"query": spelling, "kinds": ["column"], "limit": 1}),
        );
        assert_eq!(
            hits(&reply),
            ["column saas.subs.customers.cust_id"],
            "{spelling}"
        );
    }
}

#[test]
fn bad_arguments_get_exact_errors_and_the_server_keeps_serving() {
    let mut server = Server::start(&fixtures().join("business"), &[]);
    assert_eq!(
        error(&mut server, json!({"query": "the of and"})),
        "query 'the of and' has no word to search for: only common words, punctuation or words longer than 40 characters. Name a thing, a column or a value."
    );
    assert_eq!(
        error(&mut server, json!({"query": ""})),
        "query '' must be a non-empty string."
    );
    assert_eq!(error(&mut server, json!({})), "find requires 'query'.");
    assert_eq!(
        error(&mut server, json!({"query": "fees", "kinds": ["tables"]})),
        "kinds item 'tables' must be one of ['column', 'note', 'table', 'value']."
    );
    assert_eq!(
        error(&mut server, json!({"query": "fees", "limit": 0})),
        "limit 0 must be at least 1."
    );
    assert_eq!(
        error(&mut server, json!({"query": "fees", "limit": 51})),
        "limit 51 must be at most 50."
    );
    assert_eq!(
        error(&mut server, json!({"query": "fees", "format": "xml"})),
        "format 'xml' must be one of ['md', 'json', 'yaml']."
    );
    // A query of 10,000 characters is read up to its first words, and answered.
    let long = "late fee ".repeat(1_200);
    let reply = find(&mut server, json!({"query": long, "limit": 1}));
    assert_eq!(hits(&reply), ["table saas.billing.late_fees"]);
    assert!(reply["query"].as_str().unwrap().len() < 200);
    let stopwords = "the ".repeat(2_500);
    assert!(error(&mut server, json!({"query": stopwords})).starts_with("query 'the the "));
    assert_eq!(
        hits(&find(&mut server, json!({"query": "refunds", "limit": 1}))),
        ["table saas.billing.refunds"]
    );
}

/// A copy of the business print, safe to edit.
fn business() -> tempfile::TempDir {
    crate::util::fixture_copy("business")
}

fn saas(project: &std::path::Path, table: &str) -> std::path::PathBuf {
    project.join("prints/saas/saas").join(table)
}

#[test]
fn an_edited_description_note_or_value_list_is_found_by_the_next_call() {
    let project = business();
    let mut server = Server::start(project.path(), &[]);
    let ask =
        |server: &mut Server, query: &str| hits(&find(server, json!({"query": query, "limit": 3})));
    assert!(!ask(&mut server, "grace period")
        .iter()
        .any(|h| h.contains("late_fees")));
    // A description.
    let description = saas(project.path(), "billing/late_fees/description.md");
    let text = std::fs::read_to_string(&description).unwrap();
    std::fs::write(
        &description,
        text.replace(
            "Penalties charged",
            "Penalties charged after a grace period",
        ),
    )
    .unwrap();
    assert_eq!(ask(&mut server, "grace")[0], "table saas.billing.late_fees");
    // A column note.
    let notes = saas(
        project.path(),
        "billing/refunds/statistics.annotations.yaml",
    );
    let text = std::fs::read_to_string(&notes).unwrap();
    std::fs::write(
        &notes,
        text.replace("Amount returned to the customer", "Reimbursement sent back"),
    )
    .unwrap();
    assert_eq!(
        ask(&mut server, "reimbursement")[0],
        "column saas.billing.refunds.refund_amt"
    );
    // A relationship note.
    let relationship = saas(
        project.path(),
        "support/tickets/relationships.annotations.yaml",
    );
    let text = std::fs::read_to_string(&relationship).unwrap();
    std::fs::write(
        &relationship,
        text.replace("syncs it nightly", "syncs it hourly via zendesk"),
    )
    .unwrap();
    assert_eq!(
        ask(&mut server, "zendesk")[0],
        "note saas.support.tickets.cust_id"
    );
    // A value list: a new value in the statistics.
    let stats = saas(project.path(), "billing/dunning_attempts/statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    assert!(
        text.contains("value: recovered"),
        "the fixture lists outcome's values"
    );
    std::fs::write(
        &stats,
        text.replacen("value: recovered", "value: rescued_by_sms", 1),
    )
    .unwrap();
    assert_eq!(
        ask(&mut server, "rescued by sms")[0],
        "value saas.billing.dunning_attempts.outcome=rescued_by_sms"
    );
}

/// Every query of the relevance set, asked of its print over stdio: recall@3 and MRR.
#[test]
fn the_relevance_set_finds_what_each_query_means_in_the_top_three() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/find/relevance.yaml");
    let doc = compat::yaml::load(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut queries, mut recall, mut reciprocal) = (0usize, 0.0f64, 0.0f64);
    let mut misses = Vec::new();
    for (print, cases) in doc.as_map().unwrap().iter() {
        let print = print.as_str().unwrap();
        let mut server = Server::start(&fixtures().join(print), &[]);
        for case in cases.as_seq().unwrap() {
            let query = case
                .get("query")
                .and_then(|q| q.as_str())
                .unwrap()
                .to_string();
            let expect: Vec<String> = case
                .get("expect")
                .and_then(|e| e.as_seq())
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap().to_string())
                .collect();
            let found = hits(&find(&mut server, json!({"query": query, "limit": 10})));
            let top3 = &found[..found.len().min(3)];
            let in_top3 = expect.iter().filter(|e| top3.contains(e)).count();
            queries += 1;
            recall += in_top3 as f64 / expect.len() as f64;
            if let Some(rank) = found.iter().position(|h| expect.contains(h)) {
                reciprocal += 1.0 / (rank + 1) as f64;
            }
            if in_top3 < expect.len() {
                misses.push(format!(
                    "{print}: {query:?} wanted {expect:?}, got {top3:?}"
                ));
            }
        }
    }
    let (recall, mrr) = (recall / queries as f64, reciprocal / queries as f64);
    eprintln!("find relevance: {queries} queries, recall@3 {recall:.3}, MRR {mrr:.3}");
    for miss in &misses {
        eprintln!("  miss: {miss}");
    }
    assert!(queries >= 60, "the set holds {queries} queries");
    assert!(recall >= 0.9, "recall@3 {recall:.3} below 0.9");
}

#[test]
fn the_tool_is_listed_after_plan_joins_and_routed_in_the_instructions() {
    let mut server = Server::start(&fixtures().join("business"), &[]);
    let listed = server.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.last().unwrap()["name"], json!("find"));
    assert!(listed["result"].get("nextCursor").is_none(), "{listed}");
    let schema = &tools.last().unwrap()["inputSchema"];
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["properties"]["limit"]["maximum"], json!(50));
    let instructions = server.init["result"]["instructions"].as_str().unwrap();
    let line = instructions
        .lines()
        .find(|l| l.starts_with("- find: "))
        .unwrap();
    assert!(
        line.contains("words, not names") && line.contains("search_columns"),
        "{line}"
    );
    assert!(
        instructions.chars().count() < 2048,
        "{}",
        instructions.chars().count()
    );
}
