//! The stdio client of a child server: `printdex serve` and `printdex pz serve` alike,
//! newline-delimited JSON-RPC. Stdout is read on a thread, so a server that stays silent
//! fails the test after [`ANSWER_WITHIN`] instead of hanging it.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::process::{bin, send_signal, Process};

/// How long one answer may take before the test fails (generous: debug builds on a
/// loaded machine; a test about speed belongs in `benches/`).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(120);

/// The protocol version `Server::start` initializes with.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Not a `serve` argument: `Server::start` leaves the session uninitialized.
pub const NO_HANDSHAKE: &str = "--index-dir-only-no-handshake";

/// A running server on stdio.
pub struct Server {
    process: Process,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
    /// The initialize response (`Null` when no handshake was made).
    pub init: Value,
    _index: Option<tempfile::TempDir>,
}

impl Server {
    /// `printdex serve --project PROJECT EXTRA...`, initialized, with a throwaway index.
    pub fn start(project: &Path, extra: &[&str]) -> Server {
        Self::start_in(project, extra, None)
    }

    /// `index` reuses an index directory (warm start); `None` makes a fresh one.
    pub fn start_in(project: &Path, extra: &[&str], index: Option<&Path>) -> Server {
        Self::start_with(project.as_os_str(), extra, index, |_| {})
    }

    /// `start_in` for any `--project` value (a git address too), with `configure` setting
    /// the environment (or replacing the command, which then runs what it is given).
    pub fn start_with(
        project: &OsStr,
        extra: &[&str],
        index: Option<&Path>,
        configure: impl FnOnce(&mut Command),
    ) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let index_dir = index.unwrap_or(dir.path()).to_path_buf();
        let mut command = Command::new(bin());
        configure(&mut command);
        command
            .arg("serve")
            .args(extra.iter().filter(|a| **a != NO_HANDSHAKE))
            .arg("--project")
            .arg(project)
            .arg("--index-dir")
            .arg(&index_dir);
        let mut server = Self::spawn(command);
        server._index = Some(dir);
        if !extra.contains(&NO_HANDSHAKE) {
            server.initialize(PROTOCOL_VERSION);
        }
        server
    }

    /// Start `command` (any server on stdio) with its stdin and stdout piped and its
    /// stderr discarded; nothing is sent yet. With `PRINTDEX_TEST_LOG_DIR` set, the
    /// server logs at debug level to a file of its own there instead (to look into a
    /// test that fails once in many runs).
    pub fn spawn(mut command: Command) -> Server {
        let Some(dir) = std::env::var_os("PRINTDEX_TEST_LOG_DIR") else {
            return Self::spawn_to(command, Stdio::null());
        };
        static SPAWNED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SPAWNED.fetch_add(1, Ordering::Relaxed);
        let name = format!("server-{}-{n:03}.log", std::process::id());
        let log = std::fs::File::create(Path::new(&dir).join(name)).expect("log file");
        command.env("PRINTDEX_LOG", "debug");
        Self::spawn_to(command, Stdio::from(log))
    }

    /// [`Server::spawn`], its stderr sent to `stderr` (a log file).
    pub fn spawn_to(mut command: Command, stderr: Stdio) -> Server {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut process = Process::spawn(&mut command);
        let child = process.child_mut();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Server {
            process,
            stdin,
            lines: read_lines(stdout),
            next_id: 0,
            init: Value::Null,
            _index: None,
        }
    }

    /// The handshake: initialize (which must succeed), then the initialized notification.
    pub fn initialize(&mut self, protocol_version: &str) {
        self.init = self.request(
            "initialize",
            json!({"protocolVersion": protocol_version, "capabilities": {},
                   "clientInfo": {"name": "it", "version": "1"}}),
        );
        assert!(self.init.get("result").is_some(), "{}", self.init);
        self.notify("notifications/initialized", json!({}));
    }

    pub fn send_line(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// One line of any bytes (a newline is added).
    pub fn send_bytes(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).expect("the server reads stdin");
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

    /// The next line the server writes, as written.
    pub fn next_line(&self) -> String {
        match self.lines.recv_timeout(ANSWER_WITHIN) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                "no answer within {ANSWER_WITHIN:?}: the server is silent; its threads:\n{}",
                stacks_of(self.process.pid())
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("server closed stdout while a response was pending")
            }
        }
    }

    /// The lines the server has written and no read has taken yet, without waiting.
    pub fn lines_written(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }

    /// The response with this numeric id, lines for other ids skipped.
    pub fn read_response(&mut self, id: u64) -> Value {
        loop {
            let line = self.next_line();
            let v: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                return v;
            }
        }
    }

    /// The next answer whose id is `raw_id` as JSON text, exactly as the server wrote it
    /// (the id first), lines for other ids skipped.
    pub fn answer_to(&self, raw_id: &str) -> String {
        loop {
            let line = self.next_line();
            if is_answer_to(&line, raw_id) {
                return line;
            }
        }
    }

    /// The raw tools/call response.
    pub fn call_raw(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A tool call: (text, isError).
    pub fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let r = self.call_raw(tool, arguments);
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

    /// A pz tool call's envelope, parsed; asserts it is not the backstop.
    pub fn envelope(&mut self, tool: &str, arguments: Value) -> Value {
        let (text, is_error) = self.call(tool, arguments);
        assert!(!is_error, "{tool}: {text}");
        assert!(text.is_ascii(), "pz's writer escapes to ASCII: {text}");
        serde_json::from_str(&text).expect("envelope is JSON")
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Send `signal` (`-TERM`, `-INT`, `-KILL`) with kill(1).
    pub fn signal(&self, signal: &str) {
        self.process.signal(signal);
    }

    pub fn alive(&mut self) -> bool {
        self.process.alive()
    }

    /// Wait for the exit status, stdin left open.
    pub fn wait(mut self) -> ExitStatus {
        self.process.wait()
    }

    /// Close stdin, leaving the process to finish.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Close stdin and wait for the exit status.
    pub fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.process.wait()
    }

    /// Run `f`, killing the server (so its pending read fails the test) unless `f` is
    /// done within `limit`: for the bounds a specification sets.
    pub fn within<T>(&mut self, limit: Duration, f: impl FnOnce(&mut Server) -> T) -> T {
        let done = Arc::new(AtomicBool::new(false));
        let pid = self.pid();
        let watch = {
            let done = done.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                while started.elapsed() < limit {
                    if done.load(Ordering::SeqCst) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                if !done.load(Ordering::SeqCst) {
                    send_signal(pid, "-KILL");
                }
            })
        };
        let out = f(self);
        done.store(true, Ordering::SeqCst);
        let _ = watch.join();
        out
    }
}

/// Whether `line` is the answer to the request whose id is `raw_id` (JSON text): the
/// server writes the id first, as the client wrote it.
pub fn is_answer_to(line: &str, raw_id: &str) -> bool {
    line.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{raw_id},"#))
}

/// The lines of `stdout`, sent as they come until it closes.
fn read_lines(mut stdout: BufReader<std::process::ChildStdout>) -> mpsc::Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || loop {
        let mut line = Vec::new();
        match stdout.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = String::from_utf8(line).expect("stdout is UTF-8");
                if tx.send(text.trim_end().to_string()).is_err() {
                    break;
                }
            }
        }
    });
    lines
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

/// Every thread's stack in process `pid`, as gdb prints them, for the message of a test
/// that found its server silent (was it stuck, or only slow on a loaded machine?); why
/// not, where gdb is missing or may not attach.
fn stacks_of(pid: u32) -> String {
    let dumped = Command::new("gdb")
        .args([
            "-p",
            &pid.to_string(),
            "-batch",
            "-ex",
            "thread apply all bt 30",
        ])
        .stdin(Stdio::null())
        .output();
    match dumped {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => format!("gdb failed: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => format!("no gdb: {e}"),
    }
}
