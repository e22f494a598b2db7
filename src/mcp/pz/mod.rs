//! pz's tool set, as `pz mcp` serves it: identity `pz`, one file per tool. Each call is
//! pre-validated against the tool's schema (-32602 in pz's words), then its handler returns
//! pz's envelope as one text block; a failure no handler classified (an unexpected error or
//! a panic) becomes a PZ0609 envelope naming its type and message (`isError: true`), never
//! the SDK's generic text.
//!
//! printdex answers the docs tools and the project's read side itself (the latter from
//! the store's snapshot of the project, `store::pz_project`). When a `pz` executable is
//! found, a `pz mcp` child (`delegate`) lists the tools and answers every other one, and
//! the read-side calls printdex can only approximate.

pub mod compile;
pub mod delegate;
pub mod docs_get;
pub mod docs_list;
pub mod docs_search;
pub mod entity_schema;
pub mod project_overview;
pub mod run_results;
pub mod schema;
pub mod state;
pub mod validate;

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::ErrorData;
use serde_json::{Map, Value};

use super::errors;
use super::protocol::{Dialect, CSHARP_SDK};
use super::tool_set::{self, CallResult, Refusal, ToolSet, ToolSpec, Unclassified};
use super::Server;
use crate::error::pz::{self as pz_error, DocsError};
use crate::error::QueryError;
use crate::ingest::pz_docs::parse::Page;
use crate::query::pz_project::{self as query_pz, Env, Fidelity, PreparedProject, PzAnswer};
use crate::render;
use crate::render::pz_envelope as envelope;
use crate::store::pz_docs::service::DocsService;
use crate::store::{Project, ProjectReads, Store};
use compat::dotnet::Json;

pub type Args = Map<String, Value>;
pub type Handler = fn(&PzTools, &Args) -> Result<CallResult, Unclassified>;
pub type Tool = tool_set::Tool<Handler>;

/// pz's tools and what they read. The docs tools need no project.
pub struct PzTools {
    pub docs: Arc<DocsService>,
    /// The store serving the project the read-side tools answer for (`None`: only the
    /// docs tools work).
    pub project: Option<Arc<Store>>,
    /// The environment pz would see (`${VAR}`, `env()`, `PZ_STATE_*`), read at startup.
    pub env: Env,
    /// `--allow-run`: the execute tools are listed.
    pub allow_run: bool,
    /// The `pz mcp` child, when a `pz` executable was found.
    pub delegate: Option<delegate::Delegate>,
}

/// The server `printdex pz serve` runs: pz_run_results only with `--allow-run`, as pz
/// lists it.
pub fn server(tools: PzTools) -> Server<PzTools> {
    let own = PzTools::tools()
        .into_iter()
        .filter(|t| tools.allow_run || !GATED.contains(&t.spec.name))
        .collect();
    Server::with_tools(tools, own)
}

/// Tools pz lists only under `--allow-run`.
pub const GATED: [&str; 3] = ["pz_run", "pz_retry", "pz_run_results"];

/// Warm each new snapshot's answers as the store publishes it, so no call compiles.
pub fn warm_on_publish(store: &Arc<Store>, env: &Env) {
    let weak = Arc::downgrade(store);
    let env = env.clone();
    store.on_project_publish(Box::new(move |snapshot| {
        if let Some(store) = weak.upgrade() {
            query_pz::prepared(store.cache(), snapshot, &env).warm();
        }
    }));
}

impl PzTools {
    /// A read-side tool's answer: from the project's current snapshot, or from pz when
    /// printdex's answer is not pz's own and a pz child is there to ask.
    pub fn project_answer(
        &self,
        tool: &str,
        args: &Args,
        ask: impl FnOnce(&PreparedProject) -> Cow<'_, PzAnswer>,
    ) -> Result<CallResult, Unclassified> {
        let Some(store) = &self.project else {
            return Err(Unclassified {
                type_name: "NoProject".into(),
                message: "printdex pz serve was started without a project".into(),
            });
        };
        // Each read-side tool loads the whole project, as pz does per call. A failure of
        // the index itself: once the store has checked (and repaired or replaced) the
        // location, asked once more, as a dbprint call is.
        let fresh = || store.fresh(Project, ProjectReads::EveryFile);
        let snapshot = match fresh() {
            Err(QueryError::Internal(_)) if store.recover_after_failure() => fresh(),
            other => other,
        }
        .map_err(|e| Unclassified {
            type_name: "MirrorError".into(),
            message: e.to_string(),
        })?;
        let prepared = query_pz::prepared(store.cache(), &snapshot, &self.env);
        let answer = ask(&prepared);
        if let (Some(pz), false) = (&self.delegate, answer.fidelity == Fidelity::Exact) {
            match pz.call(tool, args) {
                Ok(Ok(result)) => return Ok(result),
                Ok(Err(rpc)) => {
                    tracing::warn!("pz refused {tool}: {}", rpc.message);
                }
                // Only pz can answer: its failure is the answer.
                Err(e) if matches!(answer.fidelity, Fidelity::NeedsPz(_)) => {
                    return Ok(delegate::failure(tool, &e));
                }
                Err(e) => tracing::warn!("{e}; answering {tool} from printdex's reading"),
            }
        }
        Ok(CallResult::ok(render::pz_project::envelope(&answer)))
    }
}

impl ToolSet for PzTools {
    type Args = Args;
    type Handler = Handler;

    const NAME: &'static str = "pz";
    const DIALECT: Dialect = CSHARP_SDK;

    /// Every tool printdex answers itself, in the order pz lists them.
    fn tools() -> Vec<Tool> {
        vec![
            project_overview::tool(),
            state::tool(),
            entity_schema::tool(),
            compile::tool(),
            docs_list::tool(),
            docs_search::tool(),
            docs_get::tool(),
            run_results::tool(),
        ]
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
        Err(errors::invalid_params(message, None))
    }

    fn run(&self, tool: &Tool, args: &Args) -> CallResult {
        match (tool.handler)(self, args) {
            Ok(result) => result,
            Err(failure) => Self::crashed(tool.spec.name, &failure),
        }
    }

    /// pz's own list when a pz child answers it; printdex's when there is none (or it
    /// cannot be started).
    fn listed(&self) -> Option<Vec<Value>> {
        let pz = self.delegate.as_ref()?;
        match pz.tools() {
            Ok(tools) => Some(tools),
            Err(e) => {
                tracing::warn!("{e}; listing printdex's own pz tools");
                None
            }
        }
    }

    fn forward(&self, name: &str, arguments: &Args) -> Option<Result<CallResult, ErrorData>> {
        let pz = self.delegate.as_ref()?;
        if !pz.lists(name) {
            return None;
        }
        let answered = match pz.call(name, arguments) {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(rpc)) => Err(rpc),
            Err(e) => Ok(delegate::failure(name, &e)),
        };
        if !delegate::repeatable(name) {
            // pz wrote to the project: the next read sweeps even if inotify lagged.
            if let Some(store) = &self.project {
                store.invalidate_project();
            }
        }
        Some(answered)
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
pub fn answered(answer: Result<String, DocsError>) -> Result<CallResult, Unclassified> {
    answer.or_else(|e| docs_failure(&e)).map(CallResult::ok)
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
        &[pz_error::tool_failed(
            tool,
            &failure.type_name,
            &failure.message,
            pz_error::PZ0609_NEXT_STEP,
        )],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::pz_docs::service::DocsConfig;

    fn panics(_: &PzTools, _: &Args) -> Result<CallResult, Unclassified> {
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
            env: Env::new(),
            allow_run: false,
            delegate: None,
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
        let next = Json::str(pz_error::PZ0609_NEXT_STEP).to_text();
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
