//! Drives the real `printdex` binary over stdio with newline-delimited JSON-RPC.
// Not every test module uses every helper.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// The binary under test; `PRINTDEX_BIN` overrides it (a copy taken right after the build,
/// when a shared target directory may be rebuilt from another tree meanwhile).
pub fn bin() -> PathBuf {
    std::env::var_os("PRINTDEX_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_printdex")))
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Not a `serve` argument: `Server::start` leaves the session uninitialized.
pub const NO_HANDSHAKE: &str = "--index-dir-only-no-handshake";

/// A running `printdex serve`, initialized, with its own throwaway index.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    pub init: Value,
    _index: tempfile::TempDir,
}

impl Server {
    pub fn start(project: &Path, extra: &[&str]) -> Server {
        Self::start_in(project, extra, None)
    }

    /// `index` reuses an index directory (warm start); `None` makes a fresh one.
    pub fn start_in(project: &Path, extra: &[&str], index: Option<&Path>) -> Server {
        Self::start_with(project.as_os_str(), extra, index, |_| {})
    }

    /// `start_in` for any `--project` value (a git address too), with `configure` setting
    /// the environment.
    pub fn start_with(
        project: &std::ffi::OsStr,
        extra: &[&str],
        index: Option<&Path>,
        configure: impl FnOnce(&mut Command),
    ) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let index_dir = index
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.path().to_path_buf());
        let mut command = Command::new(bin());
        configure(&mut command);
        let mut child = command
            .arg("serve")
            .args(extra.iter().filter(|a| **a != NO_HANDSHAKE))
            .arg("--project")
            .arg(project)
            .arg("--index-dir")
            .arg(&index_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn printdex");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 0,
            init: Value::Null,
            _index: dir,
        };
        if extra.contains(&NO_HANDSHAKE) {
            return server;
        }
        server.init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}),
        );
        server.notify("notifications/initialized", json!({}));
        server
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send_line(&json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string());
    }

    /// Send a request and return the whole response object.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.read_response(id)
    }

    pub fn read_response(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "server closed stdout while a response was pending");
            let v: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                return v;
            }
        }
    }

    /// A tool call: (text, isError).
    pub fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &r["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {r}"))
            .to_string();
        (
            text,
            result["isError"].as_bool().expect("isError is always sent"),
        )
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `signal` (`-TERM`, `-INT`, `-KILL`) with kill(1).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(signal)
            .arg(self.pid().to_string())
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Wait for the exit status, stdin left open.
    pub fn wait(mut self) -> std::process::ExitStatus {
        self.child.wait().expect("wait")
    }

    /// Close stdin, leaving the process to finish.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Close stdin and wait for the exit status.
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Follow `next_cursor` through every page of a dict-replying tool.
pub fn all_pages(server: &mut Server, tool: &str, mut arguments: Value) -> Vec<Value> {
    let mut pages = Vec::new();
    loop {
        let (text, is_error) = server.call(tool, arguments.clone());
        assert!(!is_error, "{tool} failed: {text}");
        let page: Value = serde_json::from_str(&text).expect("dict reply");
        let next = page
            .get("next_cursor")
            .and_then(Value::as_str)
            .map(str::to_string);
        pages.push(page);
        match next {
            Some(c) => arguments["cursor"] = json!(c),
            None => return pages,
        }
    }
}

/// Follow the `<!-- next_cursor: X -->` marker through every page of a Markdown reply;
/// each page is returned as sent, marker included.
pub fn all_markdown_pages(server: &mut Server, tool: &str, mut arguments: Value) -> Vec<String> {
    const OPEN: &str = "\n<!-- next_cursor: ";
    let mut pages = Vec::new();
    loop {
        let (text, is_error) = server.call(tool, arguments.clone());
        assert!(!is_error, "{tool} failed: {text}");
        let next = text
            .rfind(OPEN)
            .filter(|_| text.ends_with(" -->"))
            .map(|at| text[at + OPEN.len()..text.len() - " -->".len()].to_string());
        pages.push(text);
        match next {
            Some(c) => arguments["cursor"] = json!(c),
            None => return pages,
        }
    }
}

/// Copy a directory tree (files and directories; symlinks are not followed).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_dir(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A whole stdio session run to its end: `initialize`, the `requests` (ids 1, 2, ...),
/// then EOF; every response by id, stderr, and the exit status.
pub struct Session {
    pub responses: std::collections::HashMap<u64, Value>,
    pub stderr: String,
    pub status: std::process::ExitStatus,
}

impl Session {
    /// The text and isError of the tool call with this id.
    pub fn call(&self, id: u64) -> (String, bool) {
        let r = self
            .responses
            .get(&id)
            .unwrap_or_else(|| panic!("no response {id}; stderr: {}", self.stderr));
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {r}"))
            .to_string();
        (text, r["result"]["isError"].as_bool().expect("isError"))
    }
}

/// Run `command` (a `printdex serve ...`) through one session of `requests`.
pub fn session(mut command: Command, requests: &[(&str, Value)]) -> Session {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn printdex");
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}}),
    ];
    for (i, (method, params)) in requests.iter().enumerate() {
        lines.push(json!({"jsonrpc": "2.0", "id": i + 1, "method": method, "params": params}));
    }
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        // A server that refused to start has closed its stdin: nothing more to send.
        if writeln!(stdin, "{line}").is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let responses = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("stdout carries only JSON-RPC"))
        .filter_map(|v| Some((v.get("id")?.as_u64()?, v)))
        .collect();
    Session {
        responses,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status,
    }
}

/// A tool call as a `session` request.
pub fn tool_call(name: &str, arguments: Value) -> (&'static str, Value) {
    ("tools/call", json!({"name": name, "arguments": arguments}))
}
