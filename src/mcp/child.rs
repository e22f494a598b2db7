//! A client of a child MCP server over its stdio: the transport a tool set uses to pass
//! on what it cannot answer itself (pz's set, to a `pz mcp` child). Started on first need,
//! one request at a time, newline-delimited JSON-RPC. A child found dead when a request
//! comes is started again; one that dies while answering is started again and asked again
//! only when the request may be repeated (a read); either way at most once per request,
//! and a second failure is the request's error.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Map, Value as Json};

use super::errors;
use super::protocol::LATEST_PROTOCOL;
use crate::error::Recover;

/// How long a child may take to answer one request (a `pz_run` is one request).
const ANSWER_WITHIN: Duration = Duration::from_secs(3600);
/// How long a starting child may take to answer `initialize`.
const START_WITHIN: Duration = Duration::from_secs(60);

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} exited or closed its output before answering {method}")]
    Died { program: String, method: String },
    #[error("{program} did not answer {method} within {within:?}")]
    Timeout {
        program: String,
        method: String,
        within: Duration,
    },
    #[error("{program} answered {method} with something that is not JSON-RPC: {detail}")]
    Protocol {
        program: String,
        method: String,
        detail: String,
    },
}

impl ChildError {
    /// Whether starting the child again may help.
    fn restartable(&self) -> bool {
        matches!(self, ChildError::Died { .. } | ChildError::Protocol { .. })
    }
}

/// A JSON-RPC response: its `result`, or its `error` object.
pub type Response = Result<Json, Json>;

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A child MCP server, started on first need.
pub struct ChildServer {
    program: PathBuf,
    args: Vec<OsString>,
    running: Mutex<Option<Running>>,
}

impl ChildServer {
    pub fn new(program: PathBuf, args: Vec<OsString>) -> ChildServer {
        ChildServer {
            program,
            args,
            running: Mutex::new(None),
        }
    }

    /// The program run.
    pub fn program(&self) -> &std::path::Path {
        &self.program
    }

    fn name(&self) -> String {
        self.program.display().to_string()
    }

    /// One request, answered. The child is started when it is not running (or found
    /// exited); when it dies while answering, it is started again and, if `repeatable`,
    /// asked again. At most one restart per request.
    pub fn request(
        &self,
        method: &str,
        params: Json,
        repeatable: bool,
    ) -> Result<Response, ChildError> {
        let mut running = self.running.lock().recover();
        let mut restarted = false;
        if let Some(r) = running.as_mut() {
            if !matches!(r.child.try_wait(), Ok(None)) {
                tracing::warn!("{} had exited; starting it again", self.name());
                *running = None;
                restarted = true;
            }
        }
        loop {
            if running.is_none() {
                *running = Some(self.start()?);
            }
            let child = running.as_mut().expect("started above");
            match self.exchange(child, method, params.clone(), ANSWER_WITHIN) {
                Ok(response) => return Ok(response),
                Err(e) => {
                    *running = None;
                    if restarted || !e.restartable() || !repeatable {
                        return Err(e);
                    }
                    tracing::warn!("{e}; starting it again");
                    restarted = true;
                }
            }
        }
    }

    fn start(&self) -> Result<Running, ChildError> {
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| ChildError::Spawn {
                program: self.name(),
                source,
            })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("printdex-child-reader".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|source| ChildError::Spawn {
                program: self.name(),
                source,
            })?;
        let mut running = Running {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = json!({
            "protocolVersion": LATEST_PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "printdex", "version": env!("CARGO_PKG_VERSION")},
        });
        match self.exchange(&mut running, "initialize", init, START_WITHIN)? {
            Ok(_) => {}
            Err(error) => {
                return Err(ChildError::Protocol {
                    program: self.name(),
                    method: "initialize".into(),
                    detail: error.to_string(),
                })
            }
        }
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.send(&mut running, &note, "initialize")?;
        Ok(running)
    }

    fn send(&self, running: &mut Running, message: &Json, method: &str) -> Result<(), ChildError> {
        let mut line = message.to_string();
        line.push('\n');
        running
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| running.stdin.flush())
            .map_err(|_| ChildError::Died {
                program: self.name(),
                method: method.into(),
            })
    }

    /// Send one request and wait for its response, answering the child's own requests
    /// (a ping) and skipping its notifications meanwhile.
    fn exchange(
        &self,
        running: &mut Running,
        method: &str,
        params: Json,
        within: Duration,
    ) -> Result<Response, ChildError> {
        let id = running.next_id;
        running.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(running, &request, method)?;
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = match running.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ChildError::Timeout {
                        program: self.name(),
                        method: method.into(),
                        within,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ChildError::Died {
                        program: self.name(),
                        method: method.into(),
                    })
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let message: Map<String, Json> =
                serde_json::from_str(&line).map_err(|e| ChildError::Protocol {
                    program: self.name(),
                    method: method.into(),
                    detail: e.to_string(),
                })?;
            let is_response = message.contains_key("result") || message.contains_key("error");
            if !is_response {
                // The child's own request: a ping is answered, anything else refused.
                if let Some(their_id) = message.get("id") {
                    let reply = if message.get("method").and_then(Json::as_str) == Some("ping") {
                        json!({"jsonrpc": "2.0", "id": their_id, "result": {}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": their_id,
                               "error": errors::method_not_found_object()})
                    };
                    self.send(running, &reply, method)?;
                }
                continue;
            }
            if message.get("id").and_then(Json::as_u64) != Some(id) {
                continue;
            }
            return Ok(match message.get("error") {
                Some(error) => Err(error.clone()),
                None => Ok(message.get("result").cloned().unwrap_or(Json::Null)),
            });
        }
    }
}
