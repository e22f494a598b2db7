//! The `pz mcp` child: printdex passes it what only pz can answer (validation and plans
//! against live connectors, the author and execute tools, a live schema probe) and lists
//! pz's own tools when it is there. Started on first need as
//! `pz mcp --project DIR [--allow-run]`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rmcp::model::ErrorData;
use serde_json::{json, Value};

use super::Args;
use crate::error::pz as pz_error;
use crate::error::Recover;
use crate::mcp::child::{ChildError, ChildServer};
use crate::mcp::errors;
use crate::mcp::tool_set::CallResult;
use crate::render::pz_envelope as envelope;

/// The tools that write (the author group) or run (the execute group): a call of one is
/// never sent twice, even when pz dies while answering it.
const WRITES: [&str; 11] = [
    "pz_init_project",
    "pz_add_connection",
    "pz_update_connection",
    "pz_remove_connection",
    "pz_add_entity",
    "pz_set_entity_options",
    "pz_remove_entity",
    "pz_write_pipeline",
    "pz_remove_pipeline",
    "pz_run",
    "pz_retry",
];

/// Whether a call of `tool` may be asked again of a restarted pz.
pub fn repeatable(tool: &str) -> bool {
    !WRITES.contains(&tool)
}

/// A `pz mcp` child for one project.
pub struct Delegate {
    child: ChildServer,
    /// pz's tools/list, once it answered it.
    listed: Mutex<Option<Vec<Value>>>,
}

impl Delegate {
    pub fn new(pz: PathBuf, project: &Path, allow_run: bool) -> Delegate {
        let mut args: Vec<OsString> = vec!["mcp".into(), "--project".into(), project.into()];
        if allow_run {
            args.push("--allow-run".into());
        }
        Delegate {
            child: ChildServer::new(pz, args),
            listed: Mutex::new(None),
        }
    }

    /// The pz executable.
    pub fn program(&self) -> &Path {
        self.child.program()
    }

    /// pz's tools, as its tools/list shows them (asked once).
    pub fn tools(&self) -> Result<Vec<Value>, ChildError> {
        let mut listed = self.listed.lock().recover();
        if let Some(tools) = listed.as_ref() {
            return Ok(tools.clone());
        }
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = self
                .child
                .request("tools/list", params, true)?
                .map_err(|error| protocol_error("tools/list", &error, self.program()))?;
            tools.extend(page["tools"].as_array().cloned().unwrap_or_default());
            match page.get("nextCursor").filter(|c| !c.is_null()) {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        *listed = Some(tools.clone());
        Ok(tools)
    }

    /// Whether pz lists `tool` (false when pz cannot be asked).
    pub fn lists(&self, tool: &str) -> bool {
        self.tools()
            .is_ok_and(|tools| tools.iter().any(|t| t["name"] == tool))
    }

    /// pz's answer to one call: its result, or its JSON-RPC error (invalid params).
    pub fn call(
        &self,
        tool: &str,
        args: &Args,
    ) -> Result<Result<CallResult, ErrorData>, ChildError> {
        let params = json!({ "name": tool, "arguments": args });
        let response = self.child.request("tools/call", params, repeatable(tool))?;
        Ok(match response {
            Ok(result) => Ok(call_result(&result)),
            Err(error) => Err(errors::from_child(&error)),
        })
    }
}

/// A tools/call result as the core sends it on: its text blocks, and `isError`.
fn call_result(result: &Value) -> CallResult {
    let text: String = result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default();
    CallResult {
        text,
        is_error: result["isError"].as_bool().unwrap_or(false),
    }
}

fn protocol_error(method: &str, error: &Value, program: &Path) -> ChildError {
    ChildError::Protocol {
        program: program.display().to_string(),
        method: method.into(),
        detail: error.to_string(),
    }
}

/// The envelope of a call pz could not answer (it would not start, died, or hung).
pub fn failure(tool: &str, e: &ChildError) -> CallResult {
    tracing::error!("{tool}: {e}");
    CallResult::error(envelope::failure(
        Some(false),
        &[pz_error::tool_failed(
            tool,
            "PzChildError",
            &e.to_string(),
            pz_error::PZ0609_CHILD_NEXT_STEP,
        )],
    ))
}
