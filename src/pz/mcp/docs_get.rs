//! `pz_docs_get`: one page's full markdown by slug.

use super::tool::{str_arg, Args, Context, Param, Tool, ToolDef, Ty, Unclassified};
use super::{docs_failure, page_json};
use crate::pz::envelope::{self};

pub fn tool() -> Tool {
    Tool {
        def: ToolDef {
            name: "pz_docs_get",
            description: "Get one page of the pz documentation as full markdown, by the slug pz_docs_list or pz_docs_search gave (e.g. concepts/data-plane; surrounding slashes are fine). PZ0608 for a slug no page carries. Answers from the local docs index (printdex pz docs sync); PZ0607 if nothing was ever synced and the docs site is unreachable.",
            params: vec![Param {
                name: "slug",
                ty: Ty::String,
                required: true,
                default: None,
                description: "The page's slug, e.g. concepts/data-plane.",
            }],
        },
        handler: call,
    }
}

fn call(ctx: &Context, args: &Args) -> Result<String, Unclassified> {
    let catalog = match ctx.docs.catalog() {
        Ok(c) => c,
        Err(e) => return docs_failure(&e),
    };
    // A null slug names no page.
    let slug = str_arg(args, "slug").unwrap_or_default();
    match catalog.get(slug) {
        Ok(page) => Ok(envelope::ok(
            None,
            vec![("doc", page_json(page, Some(catalog.body(page))))],
        )),
        Err(e) => docs_failure(&e),
    }
}
