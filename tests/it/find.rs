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
