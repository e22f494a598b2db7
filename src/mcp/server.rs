//! The one rmcp `ServerHandler`, over any tool set: the handshake, tools/list (always one
//! page; a cursor read as the set's SDK reads one), tools/call (looked up, pre-validated, run off the async workers,
//! counted for shutdown, a panic caught), resources/* when the set has them, and the SDK's
//! answers to malformed and unknown requests.

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorData, InitializeRequestParams, InitializeResult,
    ListResourceTemplatesRequestMethod, ListResourceTemplatesResult, ListResourcesRequestMethod,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestMethod, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Map, Value as Json};

use super::errors::{self, internal, rpc_error};
use super::in_flight::InFlight;
use super::protocol;
use super::tool_set::{CallResult, Refusal, Resources, Tool, ToolSet, Unclassified};
use crate::error::QueryError;
use crate::render::cursor::Call;
use compat::value::Value;

pub struct Server<S: ToolSet> {
    set: Arc<S>,
    tools: Arc<Vec<Tool<S::Handler>>>,
    in_flight: Arc<InFlight>,
}

// Not derived: a derive would ask `S: Clone`.
impl<S: ToolSet> Clone for Server<S> {
    fn clone(&self) -> Self {
        Server {
            set: self.set.clone(),
            tools: self.tools.clone(),
            in_flight: self.in_flight.clone(),
        }
    }
}

/// A panic's message, as far as its payload carries one.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".into())
}

impl<S: ToolSet> Server<S> {
    pub fn new(set: S) -> Server<S> {
        Self::with_tools(set, S::tools())
    }

    /// A server with other tools than the set's own (tests).
    pub fn with_tools(set: S, tools: Vec<Tool<S::Handler>>) -> Server<S> {
        Server {
            set: Arc::new(set),
            tools: Arc::new(tools),
            in_flight: Arc::default(),
        }
    }

    /// The same tools and sources for another session, counting its own calls under way
    /// (a session's end waits for its calls, not another's).
    pub fn session(&self) -> Server<S> {
        Server {
            set: self.set.clone(),
            tools: self.tools.clone(),
            in_flight: Arc::default(),
        }
    }

    /// Tool calls under way.
    pub fn in_flight(&self) -> &Arc<InFlight> {
        &self.in_flight
    }

    /// One tool call, start to finish, on the calling thread: `Err` is a JSON-RPC error.
    pub fn call(&self, name: &str, arguments: Map<String, Json>) -> Result<CallResult, ErrorData> {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Some(tool) = self.tools.iter().find(|t| t.spec.name == name) else {
                if let Some(forwarded) = self.set.forward(name, &arguments) {
                    return forwarded;
                }
                return S::refused(Refusal::UnknownTool {
                    name,
                    available: self.tools.iter().map(|t| t.spec.name).collect(),
                });
            };
            match S::validate(&tool.spec, arguments) {
                Ok(args) => Ok(self.set.run(tool, &args)),
                Err(fault) => S::refused(Refusal::InvalidArguments(fault)),
            }
        }));
        outcome.unwrap_or_else(|panic| {
            let failure = Unclassified {
                type_name: "panic".into(),
                message: panic_message(panic.as_ref()),
            };
            Ok(S::crashed(name, &failure))
        })
    }

    /// Every tools/list entry, in order (the fronted server's, when the set fronts one).
    pub fn listing(&self) -> Vec<Json> {
        if let Some(listed) = self.set.listed() {
            return listed;
        }
        self.tools.iter().map(|t| S::listing(&t.spec)).collect()
    }

    /// tools/list: every tool on one page, however many a set adds (the reference's own
    /// seven fit its 20,000-character page, so its answer is unchanged). A cursor is still
    /// read as every list's is: a malformed one gets the same error; since no page carries
    /// one, none resumes.
    pub fn tools_page(
        &self,
        cursor: Option<&str>,
    ) -> Result<(Vec<Json>, Option<String>), QueryError> {
        if let Some(c) = cursor {
            let call = Call::new("tools/list", &Value::map(Vec::new()), &[]);
            call.position(Some(c))?;
            return Err(QueryError::ForeignCursor(call.tool));
        }
        Ok((self.listing(), None))
    }

    /// The instructions: the set's opening, each tool's line, the set's closing.
    pub fn instructions(&self) -> Option<String> {
        let frame = S::INSTRUCTIONS?;
        let mut text = String::from(frame.opening);
        for line in self.tools.iter().filter_map(|t| t.instruction) {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(frame.closing);
        Some(text)
    }

    /// Run `read` over the set's resources off the async workers; a set without
    /// resources answers `missing` (method not found), as rmcp does by default.
    async fn with_resources<T: Send + 'static>(
        &self,
        missing: ErrorData,
        read: impl FnOnce(&dyn Resources) -> Result<T, ErrorData> + Send + 'static,
    ) -> Result<T, ErrorData> {
        if self.set.resources().is_none() {
            return Err(missing);
        }
        let set = self.set.clone();
        // The store is synchronous (SQLite, file stats).
        tokio::task::spawn_blocking(move || match set.resources() {
            Some(resources) => read(resources),
            None => Err(missing),
        })
        .await
        .map_err(internal)?
    }
}

impl<S: ToolSet> ServerHandler for Server<S> {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = Map::new();
        if S::DIALECT.experimental {
            capabilities.insert("experimental".into(), serde_json::json!({}));
        }
        if self.set.resources().is_some() {
            capabilities.insert(
                "resources".into(),
                serde_json::json!({"subscribe": false, "listChanged": false}),
            );
        }
        capabilities.insert("tools".into(), serde_json::json!({"listChanged": false}));
        let mut info = serde_json::json!({
            "protocolVersion": protocol::LATEST_PROTOCOL,
            "capabilities": capabilities,
            "serverInfo": {"name": S::NAME, "version": env!("CARGO_PKG_VERSION")},
        });
        if let Some(text) = self.instructions() {
            info["instructions"] = Json::String(text);
        }
        serde_json::from_value(info).expect("static server info deserializes")
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        protocol::supported()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        Ok(protocol::negotiate(self.get_info(), &request))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let server = self.clone();
        let cursor = request.and_then(|r| r.cursor);
        // A fronted server's list may need its process started first.
        let listed = tokio::task::spawn_blocking(move || {
            if S::DIALECT.paged_tool_list {
                server
                    .tools_page(cursor.as_deref())
                    .map_err(|e| rpc_error(&e))
            } else {
                Ok((server.listing(), None))
            }
        })
        .await
        .map_err(internal)?;
        let (tools, next) = listed?;
        let mut result = serde_json::json!({ "tools": tools });
        if let Some(n) = next {
            result["nextCursor"] = serde_json::json!(n);
        }
        serde_json::from_value(result).map_err(internal)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let _guard = self.in_flight.enter();
        let server = self.clone();
        let name = request.name.to_string();
        // Handlers read SQLite, files and, for pz's first sync, the network.
        let joined = tokio::task::spawn_blocking(move || server.call(&name, arguments)).await;
        let result = match joined {
            Ok(result) => result?,
            Err(e) => S::crashed(
                &request.name,
                &Unclassified {
                    type_name: "JoinError".into(),
                    message: e.to_string(),
                },
            ),
        };
        let content = vec![ContentBlock::text(result.text)];
        let result = if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        self.with_resources(
            ErrorData::method_not_found::<ListResourcesRequestMethod>(),
            move |r| r.list(cursor.as_deref()),
        )
        .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.with_resources(
            ErrorData::method_not_found::<ListResourceTemplatesRequestMethod>(),
            |r| r.templates(),
        )
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        self.with_resources(
            ErrorData::method_not_found::<ReadResourceRequestMethod>(),
            move |r| r.read(&uri),
        )
        .await
        .map(Into::into)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // A known method whose params did not parse reaches here as a custom request.
        if S::DIALECT.known_methods.contains(&request.method.as_str()) {
            return Err(S::DIALECT.invalid_params());
        }
        Err(errors::method_not_found(&request.method))
    }
}
