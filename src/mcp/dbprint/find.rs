//! find: one ranked search over the print's words, from business vocabulary to the call
//! to make next (printdex's own tool, listed after plan_joins).

use super::schema::connection;
use super::{arg_str, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::find::{self, Request, DEFAULT_LIMIT, MAX_LIMIT};
use crate::render::find::{self as reply, Format};
use crate::store::search::find::FindKind;
use crate::store::{Connection, Reads};
use compat::value::Value;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "find",
            description: "Finds what the print knows about some words, ranked: tables by their name and description, columns by their name and notes, values of complete or sampled value lists, and the notes on relationships. Matching reads identifiers as words (customer_id, CustomerID and customer id are the same), folds plurals and tenses (fees finds fee_amount), reads common abbreviations both ways (cust, qty, amt, dt) and forgives one typo in a word of 5 letters or more; a thing's exact name comes first. Each hit gives its kind, its full name, why it matched and the exact call to make next. The reply holds at most `limit` hits and says how many matched in all.",
            params: vec![
                Param::string("query", "What to look for, in your own words, a name fragment or a value (`churned customers`, `late fee`, `cust_id`, `overdue`).").non_empty().required(),
                Param::string_list("kinds", "Only these kinds of hit: any of `table`, `column`, `value`, `note` (default: all).").between(None, Some(4)),
                Param::integer("limit", "How many hits at most (default 10, at most 50).").between(Some(1), Some(MAX_LIMIT as i64)).default(serde_json::json!(DEFAULT_LIMIT)),
                connection(),
                Param::string("format", "md (default; one line per hit), json or yaml.")
                    .choices(&["md", "json", "yaml"])
                    .default(serde_json::json!("md")),
            ],
        },
        instruction: Some("- find: when you have words, not names (a business term, a misspelling, a value someone mentioned): ranked tables, columns, values and notes, each with the call to make next. Use search_columns instead for exact filters (a name glob, a type, a classification)."),
        handler: |store, args| {
            let mut kinds = Vec::new();
            for kind in args.get("kinds").and_then(Value::as_seq).unwrap_or_default() {
                let name = kind.as_str().unwrap_or_default();
                let kind = FindKind::parse(name).ok_or_else(|| find::unknown_kind(name))?;
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            let request = Request {
                query: arg_str(args, "query").unwrap_or_default().to_string(),
                kinds,
                limit: match args.get("limit") {
                    Some(Value::Int(n)) => (*n).clamp(1, MAX_LIMIT as i64) as usize,
                    Some(Value::Float(f)) => f.clamp(1.0, MAX_LIMIT as f64) as usize,
                    _ => DEFAULT_LIMIT,
                },
            };
            // Refused before the store is asked: a query with nothing to look for costs nothing.
            find::query_words(&request.query)?;
            // find reads every table's statistics, annotations, description and relationship notes.
            let found = store.answer(Connection(arg_str(args, "connection")), Reads::EveryTableFile, |state, _| {
                find::answer(state, &request)
            })?;
            let format = Format::from_arg(arg_str(args, "format"));
            Ok(reply::reply(&found, format))
        },
    }
}
