//! `pz_docs_search`: pz's lexical ranking, answered from the n-gram index.

use serde_json::json;

use super::docs_failure;
use super::tool::{int_arg, str_arg, Args, Context, Param, Tool, ToolDef, Ty, Unclassified};
use crate::pz::docs::rank::DEFAULT_LIMIT;
use crate::pz::docs::DocsError;
use crate::pz::envelope;
use compat::dotnet;
use compat::dotnet::Json;

pub fn tool() -> Tool {
    Tool {
        def: ToolDef {
            name: "pz_docs_search",
            description: "Search the pz documentation by keyword. Lexical, not semantic: good for error codes (PZ0214), option names (force_universal), and concepts. Hits come best first with a score (weighted match count: title > description > headings > code > prose; comparable only within one response) and up to three matching lines each. Answers from the local docs index (printdex pz docs sync); PZ0607 if nothing was ever synced and the docs site is unreachable.",
            params: vec![
                Param {
                    name: "query",
                    ty: Ty::String,
                    required: true,
                    default: None,
                    description: "Words, an error code like PZ0214, or an option name like force_universal.",
                },
                Param {
                    name: "limit",
                    ty: Ty::Integer,
                    required: false,
                    default: Some(json!(DEFAULT_LIMIT)),
                    description: "Most hits to return, 1 to 50.",
                },
            ],
        },
        handler: call,
    }
}

fn call(ctx: &Context, args: &Args) -> Result<String, Unclassified> {
    let query = str_arg(args, "query");
    // pz refuses an empty query before it touches the network.
    if dotnet::is_null_or_white_space(query) {
        return docs_failure(&DocsError::EmptyQuery);
    }
    let limit = int_arg(args, "limit").unwrap_or(DEFAULT_LIMIT);
    let catalog = match ctx.docs.catalog() {
        Ok(c) => c,
        Err(e) => return docs_failure(&e),
    };
    let hits = match catalog.search(query, limit) {
        Ok(h) => h,
        Err(e) => return docs_failure(&e),
    };
    let hits = hits
        .iter()
        .map(|h| {
            let page = &catalog.pages[h.page];
            Json::Obj(vec![
                ("slug", Json::str(&page.slug)),
                ("title", Json::str(&page.title)),
                ("url", Json::str(&page.url)),
                ("score", Json::Int(h.score as i64)),
                (
                    "excerpts",
                    Json::Arr(h.excerpts.iter().map(|e| Json::Utf16(e.utf16())).collect()),
                ),
            ])
        })
        .collect();
    Ok(envelope::ok(
        None,
        vec![
            ("query", Json::str(query.unwrap_or_default())),
            ("hits", Json::Arr(hits)),
        ],
    ))
}
