//! `pz_docs_list`: every page of the index, in the site's own order.

use super::tool::{Args, Context, Tool, ToolDef, Unclassified};
use super::{docs_failure, page_json};
use crate::pz::envelope;
use compat::dotnet::Json;

pub fn tool() -> Tool {
    Tool {
        def: ToolDef {
            name: "pz_docs_list",
            description: "List every page of the pz documentation: slug, title, one-line summary, group and URL, in the site's own order. Pass a slug to pz_docs_get for the page itself. Answers from the local docs index (printdex pz docs sync); PZ0607 if nothing was ever synced and the docs site is unreachable.",
            params: Vec::new(),
        },
        handler: call,
    }
}

fn call(ctx: &Context, _args: &Args) -> Result<String, Unclassified> {
    let catalog = match ctx.docs.catalog() {
        Ok(c) => c,
        Err(e) => return docs_failure(&e),
    };
    let docs = catalog.pages.iter().map(|p| page_json(p, None)).collect();
    Ok(envelope::ok(None, vec![("docs", Json::Arr(docs))]))
}
