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
            let mut s = format!("{} {}", h["kind"].as_str().unwrap(), h["table"].as_str().unwrap());
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

#[test]
fn words_find_tables_columns_and_values_with_the_next_call() {
    let mut server = Server::start(&fixtures().join("library"), &[]);
    let reply = find(&mut server, json!({"query": "overdue loans", "limit": 5}));
    eprintln!("{reply:#}");
    let found = hits(&reply);
    assert!(found.iter().any(|h| h == "value stacks.lending.loans.status=overdue"), "{found:?}");
    let (md, is_error) = server.call("find", json!({"query": "patrons"}));
    assert!(!is_error);
    eprintln!("{md}");
}

/// Every query of the relevance set, asked of its print over stdio: recall@3 and MRR.
#[test]
fn the_relevance_set_finds_what_each_query_means_in_the_top_three() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/find/relevance.yaml");
    let doc = compat::yaml::load(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut queries, mut recall, mut reciprocal) = (0usize, 0.0f64, 0.0f64);
    let mut misses = Vec::new();
    for (print, cases) in doc.as_map().unwrap().iter() {
        let print = print.as_str().unwrap();
        let mut server = Server::start(&fixtures().join(print), &[]);
        for case in cases.as_seq().unwrap() {
            let query = case.get("query").and_then(|q| q.as_str()).unwrap().to_string();
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
                misses.push(format!("{print}: {query:?} wanted {expect:?}, got {top3:?}"));
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
