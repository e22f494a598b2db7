//! resolve_value: how one phrase is spelled among one column's published values.

use super::schema::{connection, cursor};
use super::{arg_str, Reply, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::resolve_value;
use crate::render;
use crate::store::{Connection, Reads};

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "resolve_value",
            description: "Checks a phrase, code or spelling against the values one column (or one part of it) publishes, before you write it into a filter. `match` is `stored` when the text is a listed value or equals one after trimming spaces and lower-casing (`spellings` lists every stored spelling, all of which a predicate must cover), `definition` when a value's note names it, `nearest` for up to five similar values with a trigram `score`, `none`, or `unavailable` with a `reason` (no list for this kind of column, not measured, redacted, or no rows read). Every reply states `coverage`, `exhaustive` (whether the list is every value the column has) and `listed`; a partial list adds `sample_caveat`, and a complete list of at most fifty entries comes whole as `domain`. A table read in part adds its `scope` and `row_count`. Reads the print only, never the database. Paged: `total` counts list entries, `next_cursor` continues.",
            params: vec![
                Param::string("table", "The table's dotted fully-qualified name.").non_empty().required(),
                Param::string("column", "The column, spelled as the print spells it.").non_empty().required(),
                Param::string("part", "A path inside the column as the print keys its parts (`.status`, `[*]`); omit to resolve against the column itself.").non_empty(),
                Param::string("text", "The phrase, code or spelling to check, exactly as the question has it.").non_empty().required(),
                connection(),
                cursor(),
            ],
        },
        instruction: Some("- resolve_value: the exact stored spelling of a filter value before writing it into a predicate."),
        handler: |store, args| {
            let table = arg_str(args, "table").unwrap_or_default();
            let request = resolve_value::Request {
                table,
                column: arg_str(args, "column").unwrap_or_default(),
                part: arg_str(args, "part"),
                text: arg_str(args, "text").unwrap_or_default(),
            };
            // The table's two searched files are read, so both must be current.
            let resolution = store.answer(Connection(arg_str(args, "connection")), Reads::TableStatistics(table), |state, _| {
                resolve_value::answer(state, &request)
            })?;
            Ok(Reply::Dict(render::resolve_value::page(&resolution, args, arg_str(args, "cursor"))?))
        },
    }
}
