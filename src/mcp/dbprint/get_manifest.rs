//! get_manifest: the print's table index, filtered and paged.

use super::schema::{connection, cursor};
use super::{arg_str, Reply, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::manifest;
use crate::render;
use crate::store::{Connection, Reads};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "get_manifest",
            description: "Returns the print's manifest.yaml, parsed, as JSON: the index of tables, their directories and artifact files, row counts and profiling times - a file index, not an explanation of what the data means. Its `tables` map is filtered by `pattern` (the same fnmatch spelling list_tables takes) and paged in name order, with `total` on every page; every other manifest key arrives whole on the first page. For names, row counts and freshness verdicts, list_tables with `detail: true` is shorter.",
            params: vec![
                connection(),
                Param::string("pattern", "fnmatch glob over the table names keying `tables`; narrows that map and `failed_tables`, nothing else.").non_empty(),
                cursor(),
            ],
        },
        instruction: Some("- get_manifest: the raw table index of the print."),
        handler: |store, args| {
            let request = manifest::Request { pattern: arg_str(args, "pattern") };
            let page = store.answer(Connection(arg_str(args, "connection")), Reads::Manifest, |state, _| {
                render::manifest::page(&manifest::answer(state, &request)?, args, arg_str(args, "cursor"))
            })?;
            Ok(Reply::Dict(page))
        },
    }
}
