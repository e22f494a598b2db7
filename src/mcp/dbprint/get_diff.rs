//! get_diff: what changed between the last two prints, filtered and paged.

use super::schema::{connection, cursor};
use super::{arg_str, Reply, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::diff;
use crate::render;
use crate::store::{Connection, Reads};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "get_diff",
            description: "Returns the print's diff.yaml, parsed, as JSON: what changed between the two most recent runs of the connection. `summary` counts the changes by kind and `changes` lists them one event each - tables and columns that appeared, disappeared or changed type, joins added, removed or modified, statistics that drifted past their threshold. Events about a join a person rejected in relationships.annotations.yaml are left out, and `summary.relationships_changed` counts only the ones kept. `table` and `kind` narrow `changes` (both together when both are given); the list is paged in the file's order with `total` on every page and `next_cursor` to continue, while every other key arrives whole on the first page. For how a table looks now rather than what changed, use get_table_context.",
            params: vec![
                connection(),
                Param::string("table", "A fully-qualified table name: keeps the events about that table, the join events naming it at either end included.").non_empty(),
                Param::string("kind", "One event kind: keeps only events of that kind.").choices(&diff::KINDS),
                cursor(),
            ],
        },
        instruction: Some("- get_diff: what changed between the last two runs."),
        handler: |store, args| {
            let request = diff::Request { table: arg_str(args, "table"), kind: arg_str(args, "kind") };
            // A page reads its events from the mirror: diff.yaml rewritten meanwhile is read
            // again and the page asked over the new content. diff.yaml and the files its
            // verdicts read are taken as they are now, so a start's head answers too.
            let page = store.answer(Connection(arg_str(args, "connection")), Reads::CurrentFiles, |state, _| {
                render::diff::page(diff::answer(state, &request)?, args, arg_str(args, "cursor"))
            })?;
            Ok(Reply::Dict(page))
        },
    }
}
