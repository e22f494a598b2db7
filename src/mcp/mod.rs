//! The MCP surface: a hand-written rmcp `ServerHandler` over the engine. This layer
//! validates arguments, routes calls and maps errors; it does no I/O of its own.

pub mod errors;
pub mod http;
pub mod protocol;
pub mod schema;
pub mod tools;
pub mod validate;

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, ErrorData, InitializeRequestParams, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};

use crate::error::QueryError;
use crate::pyfmt::json_indent2;
use crate::render::cursor::Call;
use crate::render::paging::{self, Unit, UnitKey};
use crate::store::Store;
use crate::yaml::Value;
use tools::{Reply, Tool};

/// Methods the protocol defines: one that arrives as a custom request had params that did not parse.
const KNOWN_METHODS: [&str; 12] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

#[derive(Clone)]
pub struct PrintServer {
    engine: Arc<Store>,
    tools: Arc<Vec<Tool>>,
    in_flight: Arc<InFlight>,
}

/// Tool calls under way, so shutdown can let them finish (spec §7.3).
#[derive(Default)]
pub struct InFlight {
    count: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

impl InFlight {
    fn enter(self: &Arc<Self>) -> InFlightGuard {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        InFlightGuard(self.clone())
    }

    /// Wait until no call is under way.
    pub async fn drained(&self) {
        loop {
            let notified = self.idle.notified();
            if self.count.load(std::sync::atomic::Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

struct InFlightGuard(Arc<InFlight>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self
            .0
            .count
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            == 1
        {
            self.0.idle.notify_waiters();
        }
    }
}

impl PrintServer {
    pub fn new(engine: Arc<Store>) -> PrintServer {
        PrintServer {
            engine,
            tools: Arc::new(tools::all()),
            in_flight: Arc::default(),
        }
    }

    fn tool_names_sorted(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.iter().map(|t| t.spec.name.to_string()).collect();
        names.sort();
        names
    }

    /// A tool call, start to finish; every failure becomes the `isError` text.
    pub fn call(&self, name: &str, arguments: &Value) -> (String, bool) {
        let result = (|| {
            let tool = self
                .tools
                .iter()
                .find(|t| t.spec.name == name)
                .ok_or_else(|| QueryError::UnknownTool {
                    name: name.to_string(),
                    available: self.tool_names_sorted(),
                })?;
            let args = validate::validate(&tool.spec, arguments)?;
            (tool.handler)(&self.engine, &args)
        })();
        match result {
            Ok(Reply::Dict(v)) => (json_indent2(&v), false),
            Ok(Reply::Text(t)) => (t, false),
            Err(e) => (e.to_string(), true),
        }
    }

    /// tools/list, paged by the same rule as every list (its tools fit one page).
    pub fn tools_page(
        &self,
        cursor: Option<&str>,
    ) -> Result<(Vec<serde_json::Value>, Option<String>), QueryError> {
        let wire: Vec<serde_json::Value> = self.tools.iter().map(|t| t.spec.wire()).collect();
        let items: Vec<(UnitKey, Value)> = wire
            .iter()
            .enumerate()
            .map(|(i, w)| (UnitKey::Item(Value::Int(i as i64)), validate::from_json(w)))
            .collect();
        let render = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
            let mut reply = vec![(
                Value::Str("tools".into()),
                Value::Seq(run.iter().map(Unit::value).collect()),
            )];
            if let Some(c) = next {
                reply.push((Value::Str("nextCursor".into()), Value::Str(c.to_string())));
            }
            Value::Map(reply)
        };
        let call = Call::new("tools/list", &Value::Map(Vec::new()), &[]);
        let units = paging::units(&call, items, &render);
        let page = paging::page(&call, &units, &render, cursor)?;
        let next = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string);
        let shown: Vec<serde_json::Value> = page
            .get("tools")
            .and_then(Value::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .filter_map(|n| wire.iter().find(|w| w["name"] == n).cloned())
            .collect();
        Ok((shown, next))
    }

    fn instructions(&self) -> String {
        instructions(&self.tools)
    }
}

/// The server's instructions: routing for every implemented tool, then how to read answers.
fn instructions(tools: &[Tool]) -> String {
    let mut text = String::from(
        "Answers questions about a database from its print: the schema, statistics, value lists and joins dbprint recorded and committed, read without touching the database. Use the tools, not the print's files: a file read directly lacks the interpretation each tool applies.\n\nWhich tool:\n",
    );
    for t in tools {
        let line = match t.spec.name {
            "get_table_context" => "- get_table_context: before writing SQL against a table (purpose: query) or describing its data (purpose: profile).",
            "list_tables" => "- list_tables: which tables exist, their row counts and whether their statistics are fresh (detail: true).",
            "search_columns" => "- search_columns: find a column when its table is unknown, by name glob, note text or detected kind.",
            "resolve_value" => "- resolve_value: the exact stored spelling of a filter value before writing it into a predicate.",
            "get_manifest" => "- get_manifest: the raw table index of the print.",
            "get_diff" => "- get_diff: what changed between the last two runs.",
            "get_reference" => "- get_reference: what a field or spec_ref means (spec, assertions) and how to read a json/yaml field (guide).",
            _ => continue,
        };
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(
        "\nReading answers: every number describes a population - the whole table, or only the rows scanned when a scope block is present. Inferred fields and inferred or measured joins are guesses, not declarations. A field that is absent means not recorded, never zero or none. The print says which values the data holds, not what its codes, units or defaults mean. Long replies are paged: pass next_cursor back unchanged.",
    );
    text
}

impl ServerHandler for PrintServer {
    fn get_info(&self) -> ServerConfig {
        let info = serde_json::json!({
            "protocolVersion": crate::mcp::protocol::LATEST_PROTOCOL,
            "capabilities": {
                "experimental": {},
                "resources": {"subscribe": false, "listChanged": false},
                "tools": {"listChanged": false}
            },
            "serverInfo": {"name": "dbprint", "version": env!("CARGO_PKG_VERSION")},
            "instructions": self.instructions(),
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
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let (tools, next) = self
            .tools_page(cursor.as_deref())
            .map_err(|e| errors::rpc_error(&e))?;
        let mut result = serde_json::json!({ "tools": tools });
        if let Some(n) = next {
            result["nextCursor"] = serde_json::json!(n);
        }
        serde_json::from_value(result).map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request
            .arguments
            .map(|a| validate::from_json(&serde_json::Value::Object(a)))
            .unwrap_or(Value::Map(Vec::new()));
        let _guard = self.in_flight.enter();
        let server = self.clone();
        let name = request.name.to_string();
        // The engine is synchronous (SQLite, file stats): keep it off the async workers.
        let (text, is_error) = tokio::task::spawn_blocking(move || server.call(&name, &arguments))
            .await
            .unwrap_or_else(|e| (format!("internal error: {e}"), true));
        let result = if is_error {
            CallToolResult::error(vec![ContentBlock::text(text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(text)])
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let engine = self.engine.clone();
        let page = tokio::task::spawn_blocking(move || {
            let listing = crate::query::resources::list(&engine.snapshots()?)?;
            crate::render::resource::list_page(&listing, cursor.as_deref())
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .map_err(|e| errors::rpc_error(&e))?;
        let entries: Vec<serde_json::Value> = page
            .entries
            .iter()
            .map(|e| {
                serde_json::json!({
                    "uri": e.uri,
                    "name": e.name,
                    "description": e.description,
                    "mimeType": e.mime_type,
                })
            })
            .collect();
        let mut result = serde_json::json!({ "resources": entries });
        if let Some(n) = page.next_cursor {
            result["nextCursor"] = serde_json::json!(n);
        }
        serde_json::from_value(result).map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        // A fixed list: never paged, and any cursor is ignored, as the reference does.
        let templates: Vec<serde_json::Value> = crate::query::resources::templates()
            .into_iter()
            .map(|t| {
                serde_json::json!({
                    "uriTemplate": t.uri_template,
                    "name": t.name,
                    "mimeType": t.mime_type,
                })
            })
            .collect();
        serde_json::from_value(serde_json::json!({ "resourceTemplates": templates }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let engine = self.engine.clone();
        let asked = uri.clone();
        let page = tokio::task::spawn_blocking(move || {
            let connection = |name: &str| engine.connection(Some(name));
            let sources = crate::query::resources::Sources {
                references: engine.references(),
                cache: engine.cache(),
                connection: &connection,
            };
            let resource = crate::query::resources::read(&asked, &sources)?;
            crate::render::resource::page(&asked, &resource, engine.cache())
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .map_err(|e| errors::rpc_error(&e))?;
        let result = serde_json::json!({
            "contents": [{
                "uri": uri,
                "mimeType": page.mime_type,
                "text": page.text,
                "_meta": {"page": page.page, "pages": page.pages, "version": page.version},
            }]
        });
        let result: ReadResourceResult = serde_json::from_value(result)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(result.into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // A known method whose params did not parse reaches here as a custom request;
        // the reference's SDK calls that invalid params, with empty data.
        if KNOWN_METHODS.contains(&request.method.as_str()) {
            return Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                "Invalid request parameters",
                Some(serde_json::json!("")),
            ));
        }
        // The reference's SDK: "Method not found" with the method name as data.
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "Method not found",
            Some(serde_json::json!(request.method)),
        ))
    }
}

/// What a session does with a client message that arrives before `initialize`.
// Built once per early message and matched at once; boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum BeforeInitialize {
    /// Hand it to rmcp: the initialize request itself, or a ping.
    Forward,
    /// Answer it without rmcp: the reference's SDK refuses any other request with
    /// -32602 `Invalid request parameters` and keeps the session.
    Answer(Box<rmcp::model::ServerJsonRpcMessage>),
    /// Drop it, as the reference does a notification or response, rather than let
    /// rmcp's handshake end the session over it.
    Ignore,
}

impl BeforeInitialize {
    pub fn judge(message: &rmcp::model::ClientJsonRpcMessage) -> BeforeInitialize {
        use rmcp::model::{ClientJsonRpcMessage as M, ClientRequest as R};
        match message {
            M::Request(r) if matches!(r.request, R::InitializeRequest(_) | R::PingRequest(_)) => {
                BeforeInitialize::Forward
            }
            M::Request(r) => {
                BeforeInitialize::Answer(Box::new(rmcp::model::ServerJsonRpcMessage::error(
                    ErrorData::new(
                        ErrorCode::INVALID_PARAMS,
                        "Invalid request parameters",
                        Some(serde_json::json!("")),
                    ),
                    Some(r.id.clone()),
                )))
            }
            _ => BeforeInitialize::Ignore,
        }
    }
}

/// Serve MCP over stdio until the client closes stdin (EOF) or a SIGTERM/SIGINT arrives;
/// either way calls under way finish first and the process exits 0 (spec §7.3).
pub async fn serve_stdio(engine: Arc<Store>) -> anyhow::Result<()> {
    let server = PrintServer::new(engine);
    let in_flight = server.in_flight.clone();
    // No handshake gate: like the reference's stdio session, a request that comes before
    // `initialize` is answered and a notification ignored, where rmcp's handshake would
    // end the session. `initialize` itself is answered by the handler, which negotiates.
    let service = rmcp::service::serve_directly(server, rmcp::transport::stdio(), None);
    let cancel = service.cancellation_token();
    let waiting = service.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        _ = shutdown_signal() => {
            // Let in-flight calls answer, bounded, then stop reading.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), in_flight.drained()).await;
            cancel.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), &mut waiting).await;
        }
        _ = &mut waiting => {}
    }
    Ok(())
}

/// SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}
