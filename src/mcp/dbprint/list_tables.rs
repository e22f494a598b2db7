//! list_tables: which tables exist, their row counts and freshness.

use super::schema::{connection, cursor};
use super::{arg_bool, arg_str, Reply, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::list_tables;
use crate::render;
use crate::store::{Connection, Reads};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "list_tables",
            description: "Names the tables of a connection's print, optionally filtered by an fnmatch glob over their dotted names. Call it to learn which tables exist, how many rows each had, and whether its statistics are still fresh: with `detail: true` every entry also carries its type, row_count, columns and profiled_at plus a freshness verdict (`live`, `stale`, or `dormant` when profiled_at cannot be read) with age_days and the max_age_days it was judged by; a table whose threshold cannot be settled carries `threshold_error` instead. For columns across tables use search_columns; for the manifest itself, get_manifest. Paged: `total` counts every match and `next_cursor` continues.",
            params: vec![
                connection(),
                Param::string("pattern", "fnmatch glob over dotted table names such as 'sales.*' (`*` crosses dots); default '*'.").non_empty(),
                Param::boolean("detail", "true: each entry becomes an object with its manifest fields and freshness verdict; false: bare table names.")
                    .default(serde_json::json!(false)),
                cursor(),
            ],
        },
        instruction: Some("- list_tables: which tables exist, their row counts and whether their statistics are fresh (detail: true)."),
        handler: |store, args| {
            let request = list_tables::Request { pattern: arg_str(args, "pattern"), detail: arg_bool(args, "detail", false) };
            let page = store.answer(Connection(arg_str(args, "connection")), Reads::Manifest, |state, _| {
                render::list_tables::page(&list_tables::answer(state, &request)?, args, arg_str(args, "cursor"))
            })?;
            Ok(Reply::Dict(page))
        },
    }
}
