//! plan_joins: how to join a set of tables, planned from the print's own evidence
//! (printdex's own tool, listed after validate_sql).

use super::schema::{connection, cursor};
use super::{arg_str, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::plan_joins::{self, Request, DEFAULT_MAX_HOPS};
use crate::render::plan_joins::{self as reply, Format};
use crate::store::{Connection, Reads};
use compat::value::Value;

/// The strings of a list argument (pre-validation has checked each is one).
fn strings(args: &Value, key: &str) -> Vec<String> {
    args.get(key)
        .and_then(Value::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "plan_joins",
            description: "Plans how to join 2 to 12 tables from the print's own join evidence: the cheapest tree of joins connecting them (declared edges and edges people added or confirmed are cheap, inferred ones dearer by their evidence, rejected ones never used, joins that multiply rows dearer than many-to-one ones). Each hop gives both tables, the key column pairs in order, the cardinality, how the edge is known, what was measured about it and what it does to the rows in words; then a SQL skeleton in the connection's dialect (LEFT JOIN where an inner join would drop rows), up to 3 alternatives within 10% of the cost, and in md a Mermaid diagram. Tables that no path connects are named by group, with what each group reaches.",
            params: vec![
                Param::string_list("tables", "The tables to join, up to 12 (at least 2 with the tables of `columns`): a full name or any unambiguous dotted suffix of one (`loans`, `lending.loans`). The first is the root: the plan joins outwards from it.").between(Some(1), Some(12)).required(),
                Param::string_list("columns", "Columns the query must reach, as `<table>.<column>`; their tables are added to `tables`, and the SQL selects them.").between(None, Some(24)),
                Param::string_list("avoid", "Tables the plan must not pass through.").between(None, Some(100)),
                Param::integer("max_hops", "Joins allowed per requested table beyond the first (default 4): the plan holds at most max_hops x (tables - 1) joins.").between(Some(1), Some(20)).default(serde_json::json!(DEFAULT_MAX_HOPS)),
                connection(),
                Param::string("format", "md (default; ends with a Mermaid diagram), json or yaml.")
                    .choices(&["md", "json", "yaml"])
                    .default(serde_json::json!("md")),
                cursor(),
            ],
        },
        instruction: Some("- plan_joins: before writing a query over several tables, to learn which joins connect them, on which keys, and which hops multiply or drop rows."),
        handler: |store, args| {
            let request = Request {
                tables: strings(args, "tables"),
                columns: strings(args, "columns"),
                avoid: strings(args, "avoid"),
                max_hops: match args.get("max_hops") {
                    Some(Value::Int(n)) => (*n).clamp(1, 20) as usize,
                    Some(Value::Float(f)) => f.clamp(1.0, 20.0) as usize,
                    _ => DEFAULT_MAX_HOPS,
                },
            };
            // The graph and the column checks read every table's edges and columns.
            let plan = store.answer(Connection(arg_str(args, "connection")), Reads::EveryFile, |state, _| {
                plan_joins::answer(state, &request)
            })?;
            let format = Format::from_arg(arg_str(args, "format"));
            reply::page(&plan, format, args, arg_str(args, "cursor"))
        },
    }
}
