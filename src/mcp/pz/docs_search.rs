//! `pz_docs_search`: pz's lexical ranking, answered from the n-gram index.

use serde_json::json;

use super::{answered, int_arg, str_arg, Args, PzTools, Tool};
use crate::error::pz::DocsError;
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::pz_docs::{self, rank::DEFAULT_LIMIT};
use crate::render::pz_envelope as envelope;
use compat::dotnet;
use compat::dotnet::Json;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "pz_docs_search",
            description: "Search the pz documentation by keyword. Lexical, not semantic: good for error codes (PZ0214), option names (force_universal), and concepts. Hits come best first with a score (weighted match count: title > description > headings > code > prose; comparable only within one response) and up to three matching lines each. Answers from the local docs index (printdex pz docs sync); PZ0607 if nothing was ever synced and the docs site is unreachable.",
            params: vec![
                Param::string(
                    "query",
                    "Words, an error code like PZ0214, or an option name like force_universal.",
                )
                .required(),
                Param::integer("limit", "Most hits to return, 1 to 50.").default(json!(DEFAULT_LIMIT)),
            ],
        },
        instruction: None,
        handler: |ctx, args| answered(call(ctx, args)),
    }
}

fn call(ctx: &PzTools, args: &Args) -> Result<String, DocsError> {
    let query = str_arg(args, "query");
    // pz refuses an empty query before it touches the network.
    if dotnet::is_null_or_white_space(query) {
        return Err(DocsError::EmptyQuery);
    }
    let limit = int_arg(args, "limit").unwrap_or(DEFAULT_LIMIT);
    let catalog = ctx.docs.catalog()?;
    let hits = pz_docs::search(&catalog, query, limit)?;
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
