//! pz's tool set, as `pz mcp` serves it: identity `pz`, one file per tool. Each call is
//! pre-validated against the tool's schema (-32602 in pz's words), then its handler returns
//! pz's envelope as one text block; a failure no handler classified (an unexpected error or
//! a panic) becomes a PZ0609 envelope naming its type and message (`isError: true`), never
//! the SDK's generic text.

pub mod docs_get;
pub mod docs_list;
pub mod docs_search;
pub mod schema;
pub mod validate;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::{Map, Value};

use super::protocol::{Dialect, CSHARP_SDK};
use super::tool_set::{self, CallResult, Refusal, ToolSet, ToolSpec, Unclassified};
use super::Server;
use crate::error::pz::DocsError;
use crate::error::pz::PzError;
use crate::ingest::pz_docs::parse::Page;
use crate::render::pz_envelope as envelope;
use crate::store::pz_docs::service::DocsService;
use compat::dotnet::Json;

/// pz's backstop asks for a report; this server is printdex's, so it says whose defect it is.
pub const PZ0609_NEXT_STEP: &str = "This is a defect in the server (printdex's pz surface), not a bad argument: report it with this message. Retrying the same call will fail the same way.";

pub type Args = Map<String, Value>;
pub type Handler = fn(&PzTools, &Args) -> Result<String, Unclassified>;
pub type Tool = tool_set::Tool<Handler>;

/// pz's tools and what they read. The docs tools need no project.
pub struct PzTools {
    pub docs: Arc<DocsService>,
    pub project: Option<PathBuf>,
}

/// The server `printdex pz serve` runs.
pub fn server(tools: PzTools) -> Server<PzTools> {
    Server::new(tools)
}

impl ToolSet for PzTools {
    type Args = Args;
    type Handler = Handler;

    const NAME: &'static str = "pz";
    const DIALECT: Dialect = CSHARP_SDK;

    /// Every tool, in the order tools/list shows them.
    fn tools() -> Vec<Tool> {
        vec![docs_list::tool(), docs_search::tool(), docs_get::tool()]
    }

    fn listing(spec: &ToolSpec) -> Value {
        schema::listing(spec)
    }

    fn validate(spec: &ToolSpec, arguments: Args) -> Result<Args, String> {
        match validate::violation(spec, &arguments) {
            Some(fault) => Err(fault),
            None => Ok(arguments),
        }
    }

    /// Both are JSON-RPC -32602, as pz's SDK and its `ArgumentValidatingTool` answer.
    fn refused(refusal: Refusal<'_>) -> Result<CallResult, ErrorData> {
        let message = match refusal {
            Refusal::UnknownTool { name, .. } => format!("Unknown tool: '{name}'"),
            Refusal::InvalidArguments(message) => message,
        };
        Err(ErrorData::new(ErrorCode::INVALID_PARAMS, message, None))
    }

    fn run(&self, tool: &Tool, args: &Args) -> CallResult {
        match (tool.handler)(self, args) {
            Ok(text) => CallResult::ok(text),
            Err(failure) => Self::crashed(tool.spec.name, &failure),
        }
    }

    fn crashed(tool: &str, failure: &Unclassified) -> CallResult {
        tracing::error!("{tool} failed: {}: {}", failure.type_name, failure.message);
        CallResult::error(backstop(tool, failure))
    }
}

/// An argument as a string; absent or null is `None`.
pub fn str_arg<'a>(args: &'a Args, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// An integer argument (validated already); absent or null is `None`.
pub fn int_arg(args: &Args, name: &str) -> Option<i64> {
    let v = args.get(name)?;
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
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

/// A docs handler's answer: its envelope, or its error's (`docs_failure`).
pub fn answered(answer: Result<String, DocsError>) -> Result<String, Unclassified> {
    answer.or_else(|e| docs_failure(&e))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::pz_docs::service::DocsConfig;

    fn panics(_: &PzTools, _: &Args) -> Result<String, Unclassified> {
        panic!("index out of range");
    }

    #[test]
    fn a_panicking_handler_is_a_pz0609_envelope() {
        let dir = tempfile::tempdir().unwrap();
        let tools = PzTools {
            docs: DocsService::new(DocsConfig {
                root: dir.path().to_path_buf(),
                source: Some("http://127.0.0.1:9".into()),
                timeout: std::time::Duration::from_millis(100),
                max_age: None,
            }),
            project: None,
        };
        let tool = Tool {
            spec: ToolSpec {
                name: "pz_boom",
                description: "",
                params: Vec::new(),
            },
            instruction: None,
            handler: panics,
        };
        let server = Server::with_tools(tools, vec![tool]);
        let result = server.call("pz_boom", Args::new()).unwrap();
        assert!(result.is_error);
        let next = Json::str(PZ0609_NEXT_STEP).to_text();
        assert_eq!(
            result.text,
            format!(
                r#"{{"ok":false,"applied":false,"errors":[{{"code":"PZ0609","message":"\u0027pz_boom\u0027 failed: panic: index out of range","next_step":{next}}}]}}"#
            )
        );
    }

    /// pz's schemas have neither `enum` nor `minLength`, nor instructions: a tool that
    /// declared them would list and validate as if it had not.
    #[test]
    fn pz_tools_declare_only_what_pzs_schemas_carry() {
        for tool in PzTools::tools() {
            assert!(tool.instruction.is_none(), "{}", tool.spec.name);
            for p in &tool.spec.params {
                assert!(
                    !p.non_empty && p.choices.is_none(),
                    "{}.{}",
                    tool.spec.name,
                    p.name
                );
            }
        }
    }
}
