//! validate_sql: an agent's SQL checked against the print before it runs (printdex's own
//! tool, beyond dbprint's seven).
//!
//! tools/list is one page however long the listings grow (`Server::tools_page`), so this
//! description need not be cut to fit the reference's 20,000-character page.

use super::schema::connection;
use super::{arg_str, Reply, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::validate_sql;
use crate::render::validate_sql as render;
use crate::store::{Connection, Reads};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "validate_sql",
            description: "Checks SQL against the print before you run it, offline, in the dialect and naming rules of the connection's adapter. Each finding has `kind` (`unknown_table`, `unknown_column`, `ambiguous_column`, `unknown_join`: no known edge, `unknown_value`: not in a complete value list, `type_mismatch`, `parse_error`), `line`, `column`, `text`, `message` and `suggestions` (replacements for `text`). `ok: true`: nothing found.",
            params: vec![
                Param::string("sql", "The SQL: one statement, or several separated by `;`.").non_empty().required(),
                connection(),
                Param::string("format", "md (default), json or yaml.")
                    .choices(&["md", "json", "yaml"])
                    .default(serde_json::json!("md")),
            ],
        },
        instruction: Some("- validate_sql: before running SQL you wrote, to catch tables, columns, joins and filter values the print does not support."),
        handler: |store, args| {
            // Every table's statistics may be read, so every one must be current.
            let sql = arg_str(args, "sql").unwrap_or_default();
            let report = store.answer(Connection(arg_str(args, "connection")), Reads::EveryFile, |state, _| {
                validate_sql::answer(state, sql)
            })?;
            Ok(match arg_str(args, "format") {
                Some("json") => Reply::Dict(render::dict(&report)),
                Some("yaml") => Reply::Text(render::yaml(&report)),
                _ => Reply::Text(render::markdown(&report)),
            })
        },
    }
}
