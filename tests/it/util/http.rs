//! The HTTP client of a child server: `printdex serve --transport http` started on a
//! port the system picks (learnt from its startup line), requests over raw `TcpStream`s
//! to 127.0.0.1 so headers are exactly what each test says, SSE streams read event by
//! event.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use super::files::fixtures;
use super::process::{bin, Process};

/// How long one read or write on a connection may block before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A running `printdex serve --transport http` on a port the system picked.
pub struct HttpServer {
    process: Process,
    pub port: u16,
    /// The first line the server wrote to stderr: the startup line naming its URLs.
    pub startup: String,
    _index: Option<tempfile::TempDir>,
}

impl HttpServer {
    /// A server over the library fixture.
    pub fn start() -> HttpServer {
        Self::start_on(&fixtures().join("library"))
    }

    /// A server over `project`, with a throwaway index.
    pub fn start_on(project: &Path) -> HttpServer {
        Self::start_with(project, |_| {})
    }

    /// `start_on` with `configure` setting the environment.
    pub fn start_with(project: &Path, configure: impl FnOnce(&mut Command)) -> HttpServer {
        let index = tempfile::tempdir().unwrap();
        let mut command = Command::new(bin());
        configure(&mut command);
        command
            .args(["serve", "--transport", "http", "--port", "0", "--project"])
            .arg(project)
            .arg("--index-dir")
            .arg(index.path());
        let mut server = Self::spawn(command);
        server._index = Some(index);
        server
    }

    /// Start `command` (a `serve --transport http`) and learn its port from the startup line.
    pub fn spawn(mut command: Command) -> HttpServer {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut process = Process::spawn(&mut command);
        let mut stderr = BufReader::new(process.child_mut().stderr.take().unwrap());
        let mut startup = String::new();
        stderr.read_line(&mut startup).unwrap();
        let port = startup_port(&startup);
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        HttpServer {
            process,
            port,
            startup,
            _index: None,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// One request on its own connection (closed after the reply).
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = self.connect();
        stream
            .write_all(&request_bytes(method, path, headers, body))
            .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        Reply::parse(&raw)
    }

    /// A POST with the usual headers for this server's own Host.
    pub fn post(&self, path: &str, extra: &[(&str, &str)], body: &Value) -> Reply {
        let host = self.host();
        let mut headers = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
        ];
        headers.extend_from_slice(extra);
        self.send("POST", path, &headers, body.to_string().as_bytes())
    }

    /// A connection to the server, bounded in time both ways.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(TIMEOUT)).unwrap();
        stream
    }

    /// Send `signal` (`-TERM`, `-INT`, `-KILL`) with kill(1).
    pub fn signal(&self, signal: &str) {
        self.process.signal(signal);
    }

    /// The exit status, waited for within the harness's bound.
    pub fn wait(&mut self) -> std::process::ExitStatus {
        self.process.wait()
    }
}

/// A request with `Connection: close`; a header given as `("Host", ...)` replaces the default.
pub fn request_bytes(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        && (method == "POST" || !body.is_empty())
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

pub struct Reply {
    pub status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    pub fn parse(raw: &[u8]) -> Reply {
        let split = find(raw, b"\r\n\r\n").expect("a complete response head");
        let head = std::str::from_utf8(&raw[..split]).unwrap();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|l| {
                let (n, v) = l.split_once(':').unwrap();
                (n.to_ascii_lowercase(), v.trim().to_string())
            })
            .collect();
        let mut reply = Reply {
            status: status.parse().unwrap(),
            headers,
            body: Vec::new(),
        };
        let rest = &raw[split + 4..];
        reply.body = if reply.header("transfer-encoding") == Some("chunked") {
            dechunk(rest)
        } else {
            rest.to_vec()
        };
        reply
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    /// The JSON-RPC messages of an SSE body (events without data, such as priming, skipped).
    pub fn sse_messages(&self) -> Vec<Value> {
        self.text()
            .replace("\r\n", "\n")
            .split("\n\n")
            .filter_map(|event| {
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                let data = data.join("\n");
                (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
            })
            .collect()
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = find(raw, b"\r\n") {
        let size = std::str::from_utf8(&raw[..eol]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 2 + size + 2..];
    }
    out
}

/// An open legacy `GET /sse` stream, read event by event.
pub struct Sse {
    reader: BufReader<TcpStream>,
    buffer: String,
    chunked: bool,
}

impl Sse {
    pub fn open(server: &HttpServer) -> Sse {
        let mut stream = server.connect();
        let host = server.host();
        stream
            .write_all(&request_bytes(
                "GET",
                "/sse",
                &[("Host", &host), ("Accept", "text/event-stream")],
                b"",
            ))
            .unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let lower = head.to_ascii_lowercase();
        assert!(
            lower.contains("content-type: text/event-stream; charset=utf-8"),
            "{head}"
        );
        Sse {
            reader,
            buffer: String::new(),
            chunked: lower.contains("transfer-encoding: chunked"),
        }
    }

    /// The next event as (name, data), comments skipped; `None` when the stream ended.
    pub fn next_event(&mut self) -> Option<(String, String)> {
        loop {
            if let Some(end) = self.buffer.find("\r\n\r\n") {
                let event: String = self.buffer.drain(..end + 4).collect();
                let mut name = String::new();
                let mut data = Vec::new();
                for line in event.split("\r\n") {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = n.to_string();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push(d);
                    }
                }
                if name.is_empty() && data.is_empty() {
                    continue; // a ping comment
                }
                return Some((name, data.join("\n")));
            }
            let more = self.read_some()?;
            self.buffer.push_str(&more);
        }
    }

    fn read_some(&mut self) -> Option<String> {
        if !self.chunked {
            let mut buf = [0u8; 8192];
            let n = self.reader.read(&mut buf).ok()?;
            return (n > 0).then(|| String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        let mut size = String::new();
        if self.reader.read_line(&mut size).ok()? == 0 {
            return None;
        }
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        if size == 0 {
            return None;
        }
        let mut chunk = vec![0u8; size + 2];
        self.reader.read_exact(&mut chunk).ok()?;
        chunk.truncate(size);
        Some(String::from_utf8(chunk).unwrap())
    }

    /// The next `message` event's JSON.
    pub fn next_message(&mut self) -> Value {
        let (name, data) = self.next_event().expect("stream open");
        assert_eq!(name, "message");
        serde_json::from_str(&data).unwrap()
    }
}

pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "it", "version": "1"}}})
}

pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

pub fn tools_list(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
}

/// Connect a legacy SSE session: (stream, the URL path to POST to).
pub fn legacy_session(server: &HttpServer) -> (Sse, String) {
    let mut sse = Sse::open(server);
    let (name, endpoint) = sse.next_event().unwrap();
    assert_eq!(name, "endpoint");
    let id = endpoint
        .strip_prefix("/messages/?session_id=")
        .unwrap_or_else(|| panic!("{endpoint}"));
    assert!(
        id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    (sse, endpoint)
}

/// The port the startup line names: `printdex: serving P at http://127.0.0.1:PORT/mcp ...`.
pub fn startup_port(line: &str) -> u16 {
    let at = line
        .find(" at http://127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first stderr line: {line:?}"));
    let rest = &line[at + " at http://127.0.0.1:".len()..];
    let port = rest.split('/').next().unwrap().parse().unwrap();
    assert!(
        line.starts_with("printdex: serving ")
            && rest.starts_with(&format!(
                "{port}/mcp (streamable HTTP) and http://127.0.0.1:{port}/sse "
            )),
        "{line:?}"
    );
    port
}
