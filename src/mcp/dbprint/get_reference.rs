//! get_reference: a section of the format spec, the assertion DSL spec or the reading
//! guide shipped with the installed dbprint, or a document's heading tree.

use super::schema::cursor;
use super::{arg_str, Reply, Tool};
use crate::error::QueryError;
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::reference::{self, Document};
use crate::render;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "get_reference",
            description: "Reads the reference documents of the installed dbprint: the format specification and the assertion DSL specification by section number, or the reading guide by heading text. Use it to learn what a print field means or what a finding's spec_ref (such as '§2.2.4') points at. Given a section it returns that heading's own text and names its direct subsections, each fetched by its own number (or, in the guide, its own heading); without one it returns the heading tree. The guide is this dbprint version's copy, not the reading.md stored with a print. Long sections are paged like get_table_context's Markdown: follow next_cursor. Needs no connection or print; for what a print's tables actually hold, use get_table_context and list_tables.",
            params: vec![
                Param::string("document", "The document: spec (the print format), assertions (the assertion DSL), or guide (how to read each json/yaml field).")
                    .choices(&["assertions", "guide", "spec"])
                    .required(),
                Param::string("section", "A section number as the document numbers it ('3', '2.2.4'), at any depth, or a spec_ref citation pasted as a finding gives it ('§2.2.4', 'ASSERTIONS.md §1.4'). For guide, a heading's text such as 'Vocabulary', compared ignoring case. Omit for the heading tree.").non_empty(),
                cursor(),
            ],
        },
        instruction: Some("- get_reference: what a field or spec_ref means (spec, assertions) and how to read a json/yaml field (guide)."),
        handler: |store, args| {
            // Validation already held `document` to the enum; this guards the glue only.
            let document = arg_str(args, "document")
                .and_then(Document::from_name)
                .ok_or_else(|| QueryError::Internal("get_reference: document missing after validation".into()))?;
            let text = reference::text(store.references(), store.cache(), document, arg_str(args, "section"))?;
            Ok(Reply::Text(render::document::reference_page(text, args, arg_str(args, "cursor"))?))
        },
    }
}
