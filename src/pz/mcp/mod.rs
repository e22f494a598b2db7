//! The pz MCP surface: a hand-written rmcp `ServerHandler` with pz's identity (serverInfo
//! `pz`), one file per tool. Each call is pre-validated against the tool's schema (-32602 in
//! pz's words), then its handler returns pz's envelope as one text block; a failure no
//! handler classified — an unexpected error or a panic — becomes a PZ0609 envelope naming
//! its type and message (`isError: true`), never the SDK's generic text.

pub mod docs_get;
pub mod docs_list;
pub mod docs_search;
pub mod tool;
pub mod validate;

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, ErrorData, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Map, Value};

use super::docs::parse::Page;
use super::docs::DocsError;
use super::envelope::{self, PzError};
use compat::dotnet::Json;
use tool::{Args, Context, Tool, Unclassified};

const KNOWN_METHODS: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];
/// pz's backstop asks for a report; this server is printdex's, so it says whose defect it is.
pub const PZ0609_NEXT_STEP: &str = "This is a defect in the server (printdex's pz surface), not a bad argument: report it with this message. Retrying the same call will fail the same way.";

/// Every tool, in the order tools/list shows them.
pub fn tools() -> Vec<Tool> {
    vec![docs_list::tool(), docs_search::tool(), docs_get::tool()]
}

/// A page as pz writes it: description and group only when non-empty, markdown for get.
pub fn page_json(p: &Page, markdown: Option<&str>) -> Json {
    let mut fields = vec![("slug", Json::str(&p.slug)), ("title", Json::str(&p.title))];
    if !p.description.is_empty() {
        fields.push(("description", Json::str(&p.description)));
    }
    if !p.group.is_empty() {
        fields.push(("group", Json::str(&p.group)));
    }
    fields.push(("url", Json::str(&p.url)));
    if let Some(m) = markdown {
        fields.push(("markdown", Json::str(m)));
    }
    Json::Obj(fields)
}

/// A docs error as its envelope; a local store fault goes to the backstop.
pub fn docs_failure(e: &DocsError) -> Result<String, Unclassified> {
    match (e.to_pz(), e) {
        (Some(pz), _) => Ok(envelope::failure(None, &[pz])),
        (None, DocsError::Store { type_name, message }) => Err(Unclassified {
            type_name: type_name.to_string(),
            message: message.clone(),
        }),
        (None, other) => Err(Unclassified {
            type_name: "DocsError".into(),
            message: other.to_string(),
        }),
    }
}

/// The PZ0609 envelope for a failure no handler classified.
pub fn backstop(tool: &str, failure: &Unclassified) -> String {
    envelope::failure(
        Some(false),
        &[PzError::new(
            "PZ0609",
            format!(
                "'{tool}' failed: {}: {}",
                failure.type_name, failure.message
            ),
            PZ0609_NEXT_STEP,
        )],
    )
}

#[derive(Clone)]
pub struct PzServer {
    ctx: Arc<Context>,
    tools: Arc<Vec<Tool>>,
}

impl PzServer {
    pub fn new(ctx: Context) -> PzServer {
        Self::with_tools(ctx, tools())
    }

    pub fn with_tools(ctx: Context, tools: Vec<Tool>) -> PzServer {
        PzServer {
            ctx: Arc::new(ctx),
            tools: Arc::new(tools),
        }
    }

    /// One tool call: `Err` is a JSON-RPC error (unknown tool, invalid params), `Ok` the
    /// envelope text and whether it is the backstop's (`isError`).
    pub fn call(&self, name: &str, args: &Args) -> Result<(String, bool), ErrorData> {
        let Some(tool) = self.tools.iter().find(|t| t.def.name == name) else {
            return Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Unknown tool: '{name}'"),
                None,
            ));
        };
        if let Some(message) = validate::violation(&tool.def, args) {
            return Err(ErrorData::new(ErrorCode::INVALID_PARAMS, message, None));
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| (tool.handler)(&self.ctx, args)));
        let failure = match outcome {
            Ok(Ok(text)) => return Ok((text, false)),
            Ok(Err(f)) => f,
            Err(panic) => Unclassified {
                type_name: "panic".into(),
                message: panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic payload".into()),
            },
        };
        tracing::error!("{name} failed: {}: {}", failure.type_name, failure.message);
        Ok((backstop(name, &failure), true))
    }

    pub fn tool_list(&self) -> Vec<Value> {
        self.tools.iter().map(|t| t.def.wire()).collect()
    }
}

impl ServerHandler for PzServer {
    fn get_info(&self) -> ServerConfig {
        let info = serde_json::json!({
            "protocolVersion": crate::mcp::protocol::LATEST_PROTOCOL,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "pz", "version": env!("CARGO_PKG_VERSION")},
        });
        serde_json::from_value(info).expect("static server info deserializes")
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        crate::mcp::protocol::supported()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        Ok(crate::mcp::protocol::negotiate(self.get_info(), &request))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        serde_json::from_value(serde_json::json!({ "tools": self.tool_list() }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args: Map<String, Value> = request.arguments.unwrap_or_default();
        let server = self.clone();
        let name = request.name.to_string();
        // Handlers may read files and, on a first sync, the network: off the async workers.
        let joined = tokio::task::spawn_blocking(move || server.call(&name, &args)).await;
        let (text, is_error) = match joined {
            Ok(r) => r?,
            Err(e) => (
                backstop(
                    &request.name,
                    &Unclassified {
                        type_name: "JoinError".into(),
                        message: e.to_string(),
                    },
                ),
                true,
            ),
        };
        let result = if is_error {
            CallToolResult::error(vec![ContentBlock::text(text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(text)])
        };
        Ok(result.into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if KNOWN_METHODS.contains(&request.method.as_str()) {
            return Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                "Invalid request parameters",
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "Method not found",
            Some(serde_json::json!(request.method)),
        ))
    }
}

/// Serve pz's MCP surface over stdio until the client closes stdin.
pub async fn serve_stdio(ctx: Context) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let docs = ctx.docs.clone();
    // Load the installed corpus (and start a refresh if it is stale) before the first call.
    std::thread::spawn(move || docs.warm());
    let server = PzServer::new(ctx);
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::tool::{Context, Tool, ToolDef};
    use super::*;
    use crate::pz::docs::service::{DocsConfig, DocsService};

    fn panics(_: &Context, _: &Args) -> Result<String, Unclassified> {
        panic!("index out of range");
    }

    #[test]
    fn a_panicking_handler_is_a_pz0609_envelope() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Context {
            docs: DocsService::new(DocsConfig {
                root: dir.path().to_path_buf(),
                source: Some("http://127.0.0.1:9".into()),
                timeout: std::time::Duration::from_millis(100),
                max_age: None,
            }),
            project: None,
        };
        let tool = Tool {
            def: ToolDef {
                name: "pz_boom",
                description: "",
                params: Vec::new(),
            },
            handler: panics,
        };
        let server = PzServer::with_tools(ctx, vec![tool]);
        let (text, is_error) = server.call("pz_boom", &Args::new()).unwrap();
        assert!(is_error);
        let next = Json::str(PZ0609_NEXT_STEP).to_text();
        assert_eq!(
            text,
            format!(
                r#"{{"ok":false,"applied":false,"errors":[{{"code":"PZ0609","message":"\u0027pz_boom\u0027 failed: panic: index out of range","next_step":{next}}}]}}"#
            )
        );
    }
}
