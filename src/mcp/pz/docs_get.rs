//! `pz_docs_get`: one page's full markdown by slug.

use super::{answered, page_json, str_arg, Args, PzTools, Tool};
use crate::error::pz::DocsError;
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::pz_docs;
use crate::render::pz_envelope as envelope;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_docs_get",
            description: "Get one page of the pz documentation as full markdown, by the slug pz_docs_list or pz_docs_search gave (e.g. concepts/data-plane; surrounding slashes are fine). PZ0608 for a slug no page carries. Answers from the local docs index (printdex pz docs sync); PZ0607 if nothing was ever synced and the docs site is unreachable.",
            params: vec![
                Param::string("slug", "The page's slug, e.g. concepts/data-plane.").required()
            ],
        },
        instruction: None,
        handler: |ctx, args| answered(call(ctx, args)),
    }
}

fn call(ctx: &PzTools, args: &Args) -> Result<String, DocsError> {
    let catalog = ctx.docs.catalog()?;
    // A null slug names no page.
    let slug = str_arg(args, "slug").unwrap_or_default();
    let page = pz_docs::get(&catalog, slug)?;
    Ok(envelope::ok(
        None,
        vec![("doc", page_json(page, Some(catalog.body(page))))],
    ))
}
