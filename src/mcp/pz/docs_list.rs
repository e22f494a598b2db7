//! `pz_docs_list`: every page of the index, in the site's own order.

use super::{answered, page_json, Args, PzTools, Tool};
use crate::error::pz::DocsError;
use crate::mcp::tool_set::ToolSpec;
use crate::render::pz_envelope as envelope;
use compat::dotnet::Json;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_docs_list",
            description: "List every page of the pz documentation: slug, title, one-line summary, group and URL, in the site's own order. Pass a slug to pz_docs_get for the page itself. Answers from the local docs index (printdex pz docs sync); PZ0607 if nothing was ever synced and the docs site is unreachable.",
            params: Vec::new(),
        },
        instruction: None,
        handler: |ctx, args| answered(call(ctx, args)),
    }
}

fn call(ctx: &PzTools, _args: &Args) -> Result<String, DocsError> {
    let catalog = ctx.docs.catalog()?;
    let docs = catalog.pages.iter().map(|p| page_json(p, None)).collect();
    Ok(envelope::ok(None, vec![("docs", Json::Arr(docs))]))
}
