//! get_table_context: everything needed to write SQL against one table, or to describe its
//! data, in one paged reply.

use super::schema::{connection, cursor};
use super::{arg_bool, arg_str, Tool};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::context;
use crate::render::context::{self as reply, Format, Options};
use crate::store::{Connection, Reads};

fn flag(name: &'static str, description: &'static str) -> Param {
    Param::boolean(name, description).default(serde_json::json!(true))
}

fn choice(
    name: &'static str,
    values: &'static [&'static str],
    default: &'static str,
    description: &'static str,
) -> Param {
    Param::string(name, description)
        .choices(values)
        .default(serde_json::json!(default))
}

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "get_table_context",
            description: "One table's context, ready to paste into a prompt. Call it with `purpose: query` before writing SQL against the table: its DDL, the Joins list (edges a person rejected left out, edges a person added included), the data dictionary and column notes, the value lists with counts and coverage (complete lists whole, otherwise the five commonest values), and each nullable column's null share. Call it with `purpose: profile` (the default) to describe the data: the statistics per column, null patterns, relationships with what was measured about them, and people's annotations. Markdown opens with `## Terms`, defining each label the page prints; `json` and `yaml` return the structured object instead, with `_missing`/`_corrupted` naming artifacts that are absent or unreadable. A reply longer than a page is paged section by section; pass `next_cursor` back as `cursor`.",
            params: vec![
                Param::string("table", "The table's dotted name, as list_tables or search_columns spell it.").non_empty().required(),
                connection(),
                choice("purpose", &["profile", "query"], "profile", "query: what writing SQL needs (DDL, joins, dictionary, value lists, null shares). profile (default): what the data looks like (statistics, relationships, notes)."),
                choice("format", &["md", "json", "yaml"], "md", "md: Markdown for the chosen purpose, with per-column Notes under profile instead of raw statistics fields. json or yaml: the structured object those fields come from, without any column's sketch (the statistics resource serves the raw file). get_reference with document: guide explains the fields."),
                flag("include_stats", "Include the Cardinality table (md) or the statistics object (json/yaml). No effect under query."),
                flag("include_relationships", "Include the Relationships section (md) or the relationships object (json/yaml); under query, the Joins list."),
                flag("include_description", "Include the table's written description, where one exists."),
                flag("include_annotations", "Include what people wrote: column and value notes, claims, and the connection-wide notes."),
                cursor(),
            ],
        },
        instruction: Some("- get_table_context: before writing SQL against a table (purpose: query) or describing its data (purpose: profile)."),
        handler: |store, args| {
            let format = Format::from_arg(arg_str(args, "format"));
            let options = Options {
                query: arg_str(args, "purpose") == Some("query"),
                include_description: arg_bool(args, "include_description", true),
                include_annotations: arg_bool(args, "include_annotations", true),
                include_stats: arg_bool(args, "include_stats", true),
                include_relationships: arg_bool(args, "include_relationships", true),
            };
            let table = arg_str(args, "table").unwrap_or_default();
            let context = store.answer(Connection(arg_str(args, "connection")), Reads::TableArtifacts, |state, strict| context::answer(state, table, strict))?;
            reply::page(&context, format, &options, args, arg_str(args, "cursor"))
        },
    }
}
