//! The HTTP transport: the legacy SSE endpoints the reference serves, streamable HTTP at
//! `/mcp`, the DNS-rebinding checks and shutdown. Every request goes to 127.0.0.1, over a
//! raw `TcpStream` so headers are exactly what each test says (`util::HttpServer`).

use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{
    bare_manifest, bare_project, bin, fixtures, initialize, initialized, legacy_session, run,
    tools_list, HttpReply, HttpServer,
};

/// How long a session may outlive its stream.
const TIMEOUT: Duration = Duration::from_secs(20);

fn list_tables(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "list_tables", "arguments": {}}})
}

/// The tool names and list_tables' reply, checked the same way for every transport.
fn check_answers(init: &Value, tools: &Value, call: &Value) {
    assert_eq!(init["id"], json!(1));
    assert_eq!(init["result"]["serverInfo"]["name"], json!("dbprint"));
    assert_eq!(init["result"]["protocolVersion"], json!("2025-11-25"));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"list_tables"), "{names:?}");
    assert_eq!(call["result"]["isError"], json!(false), "{call}");
    let text: Value =
        serde_json::from_str(call["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(text["total"].as_u64().unwrap() > 0, "{text}");
}

#[test]
fn legacy_sse_serves_a_session() {
    let server = HttpServer::start();
    let (mut sse, endpoint) = legacy_session(&server);

    // Before initialize, as the reference: a notification is dropped, a request refused,
    // and the session kept.
    let early = json!({"jsonrpc": "2.0", "method": "notifications/progress"});
    assert_eq!(server.post(&endpoint, &[], &early).status, 202);
    assert_eq!(server.post(&endpoint, &[], &tools_list(9)).status, 202);
    assert_eq!(
        sse.next_message(),
        json!({"jsonrpc": "2.0", "id": 9, "error":
            {"code": -32602, "message": "Invalid request parameters", "data": ""}})
    );

    let r = server.post(&endpoint, &[], &initialize());
    assert_eq!((r.status, r.text()), (202, "Accepted"));
    let init = sse.next_message();
    assert_eq!(server.post(&endpoint, &[], &initialized()).status, 202);
    assert_eq!(server.post(&endpoint, &[], &tools_list(2)).status, 202);
    let tools = sse.next_message();
    let origin = format!("http://localhost:{}", server.port);
    let r = server.post(&endpoint, &[("Origin", &origin)], &list_tables(3));
    assert_eq!(r.status, 202);
    let call = sse.next_message();
    check_answers(&init, &tools, &call);
}

/// A client entry a dbprint user has for its HTTP server, and the command line the user
/// starts that server with, as written for dbprint; `{ADDRESS}` (a git address) and
/// `{PORT}` (a free port) are what the test fills in.
const DBPRINT_SSE_MCP_JSON: &str =
    r#"{"mcpServers": {"dbprint": {"type": "sse", "url": "http://127.0.0.1:{PORT}/sse"}}}"#;
const DBPRINT_HTTP_COMMAND: &str =
    "dbprint serve --project {ADDRESS} --transport http --host 127.0.0.1 --port {PORT} --read-only";

#[test]
fn a_dbprint_http_set_up_runs_unchanged_and_its_sse_url_serves() {
    let remote = crate::git_project::Remote::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let fill = |text: &str| {
        text.replace("{ADDRESS}", &remote.address("main"))
            .replace("{PORT}", &port)
    };
    let line = fill(DBPRINT_HTTP_COMMAND);
    let mut words = line.split(' ');
    assert_eq!(words.next(), Some("dbprint"));
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(bin());
    command
        .args(words)
        .env("XDG_CACHE_HOME", remote.cache())
        .env("HOME", home.path())
        .current_dir(home.path());
    let server = HttpServer::spawn(command);
    assert_eq!(server.port.to_string(), port);
    let config: Value = serde_json::from_str(&fill(DBPRINT_SSE_MCP_JSON)).unwrap();
    assert_eq!(
        config["mcpServers"]["dbprint"]["url"],
        json!(format!("http://{}/sse", server.host()))
    );
    let (mut sse, endpoint) = legacy_session(&server);
    assert_eq!(server.post(&endpoint, &[], &initialize()).status, 202);
    let init = sse.next_message();
    assert_eq!(server.post(&endpoint, &[], &initialized()).status, 202);
    assert_eq!(server.post(&endpoint, &[], &tools_list(2)).status, 202);
    let tools = sse.next_message();
    assert_eq!(server.post(&endpoint, &[], &list_tables(3)).status, 202);
    let call = sse.next_message();
    check_answers(&init, &tools, &call);
}

#[test]
fn streamable_http_serves_a_session_at_mcp() {
    let server = HttpServer::start();
    let accept = ("Accept", "application/json, text/event-stream");
    let r = server.post("/mcp", &[accept], &initialize());
    assert_eq!(r.status, 200, "{}", r.text());
    let session = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let init = r.sse_messages().remove(0);
    let with_session = [
        accept,
        ("Mcp-Session-Id", session.as_str()),
        ("Mcp-Protocol-Version", "2025-11-25"),
    ];
    let r = server.post("/mcp", &with_session, &initialized());
    assert_eq!(r.status, 202, "{}", r.text());
    let tools = server
        .post("/mcp", &with_session, &tools_list(2))
        .sse_messages()
        .remove(0);
    let call = server
        .post("/mcp", &with_session, &list_tables(3))
        .sse_messages()
        .remove(0);
    check_answers(&init, &tools, &call);

    // 200, not rmcp's 202, which the Python SDK logs as a failed termination.
    let host = server.host();
    let r = server.send(
        "DELETE",
        "/mcp",
        &[("Host", &host), ("Mcp-Session-Id", &session)],
        b"",
    );
    assert_eq!(r.status, 200);
}

#[test]
fn a_foreign_host_gets_421_on_every_endpoint() {
    let server = HttpServer::start();
    let (_sse, endpoint) = legacy_session(&server);
    let other_port = format!("127.0.0.1:{}", server.port.wrapping_add(1).max(1));
    // A rebinding page: its own name resolved to 127.0.0.1, so its name is the Host.
    let rebound = format!("attacker.example:{}", server.port);
    for host in [rebound.as_str(), &other_port, "127.0.0.1", "localhost"] {
        let r = server.send("GET", "/sse", &[("Host", host)], b"");
        assert_eq!((r.status, r.text()), (421, "Invalid Host header"), "{host}");
        let r = server.send(
            "POST",
            &endpoint,
            &[("Host", host), ("Content-Type", "application/json")],
            tools_list(2).to_string().as_bytes(),
        );
        assert_eq!((r.status, r.text()), (421, "Invalid Host header"), "{host}");
        let r = server.send(
            "POST",
            "/mcp",
            &[
                ("Host", host),
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ],
            initialize().to_string().as_bytes(),
        );
        assert_eq!((r.status, r.text()), (421, "Invalid Host header"), "{host}");
    }
    // Every loopback name with the right port is answered.
    for host in [
        format!("localhost:{}", server.port),
        format!("[::1]:{}", server.port),
    ] {
        let r = server.send(
            "POST",
            &endpoint,
            &[("Host", &host), ("Content-Type", "application/json")],
            initialize().to_string().as_bytes(),
        );
        assert_eq!(r.status, 202, "{host}");
    }
}

#[test]
fn a_foreign_origin_gets_403_on_every_endpoint() {
    let server = HttpServer::start();
    let (_sse, endpoint) = legacy_session(&server);
    let host = server.host();
    let https = format!("https://{host}");
    let rebound = format!("http://attacker.example:{}", server.port);
    for origin in [rebound.as_str(), &https, "http://127.0.0.1", "null"] {
        let r = server.send("GET", "/sse", &[("Host", &host), ("Origin", origin)], b"");
        assert_eq!(
            (r.status, r.text()),
            (403, "Invalid Origin header"),
            "{origin}"
        );
        let r = server.post(&endpoint, &[("Origin", origin)], &tools_list(2));
        assert_eq!(
            (r.status, r.text()),
            (403, "Invalid Origin header"),
            "{origin}"
        );
        let r = server.post(
            "/mcp",
            &[
                ("Origin", origin),
                ("Accept", "application/json, text/event-stream"),
            ],
            &initialize(),
        );
        assert_eq!(
            (r.status, r.text()),
            (403, "Invalid Origin header"),
            "{origin}"
        );
    }
}

#[test]
fn a_body_over_4_mib_gets_413() {
    let server = HttpServer::start();
    let (_sse, endpoint) = legacy_session(&server);
    let five_mib = (5 * 1024 * 1024).to_string();
    for path in [endpoint.as_str(), "/mcp"] {
        // Refused on the declared length, before any of the body is read, so only the
        // head is sent (an unread body would make the server's close a reset).
        let mut stream = server.connect();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {five_mib}\r\n\r\n",
            server.host()
        );
        stream.write_all(head.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let r = HttpReply::parse(&raw);
        assert_eq!(
            (r.status, r.text()),
            (413, "Request body too large"),
            "{path}"
        );
    }
}

#[test]
fn messages_endpoint_refusals_match_the_reference() {
    let server = HttpServer::start();
    let (_sse, endpoint) = legacy_session(&server);
    let host = server.host();

    let r = server.send("GET", &endpoint, &[("Host", &host)], b"");
    assert_eq!((r.status, r.text()), (405, ""));
    assert_eq!(r.header("allow"), Some("POST"));

    let r = server.send(
        "POST",
        &endpoint,
        &[("Host", &host), ("Content-Type", "text/plain")],
        b"{}",
    );
    assert_eq!((r.status, r.text()), (400, "Invalid Content-Type header"));

    let r = server.post("/messages/", &[], &tools_list(2));
    assert_eq!((r.status, r.text()), (400, "session_id is required"));
    let r = server.post("/messages/?session_id=xyz", &[], &tools_list(2));
    assert_eq!((r.status, r.text()), (400, "Invalid session ID"));
    let unknown = format!("/messages/?session_id={}", "0".repeat(32));
    let r = server.post(&unknown, &[], &tools_list(2));
    assert_eq!((r.status, r.text()), (404, "Could not find session"));

    let r = server.send(
        "POST",
        &endpoint,
        &[("Host", &host), ("Content-Type", "application/json")],
        b"{not json",
    );
    assert_eq!((r.status, r.text()), (400, "Could not parse message"));
    let r = server.post(&endpoint, &[], &json!({"hello": "world"}));
    assert_eq!((r.status, r.text()), (400, "Could not parse message"));

    let r = server.send("GET", "/nowhere", &[("Host", &host)], b"");
    assert_eq!((r.status, r.text()), (404, "Not Found"));
}

#[test]
fn a_session_ends_with_its_stream() {
    let server = HttpServer::start();
    let (sse, endpoint) = legacy_session(&server);
    drop(sse);
    let started = Instant::now();
    loop {
        let r = server.post(&endpoint, &[], &initialize());
        if r.status == 404 {
            assert_eq!(r.text(), "Could not find session");
            return;
        }
        assert!(started.elapsed() < TIMEOUT, "session outlived its stream");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_non_loopback_host_is_refused_at_startup() {
    let out = run(Command::new(bin())
        .args(["serve", "--transport", "http", "--port", "8765"])
        .args(["--host", "0.0.0.0", "--project"])
        .arg(fixtures().join("library")));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        out.stderr,
        "--host must be loopback (['127.0.0.1', '::1', 'localhost']); got '0.0.0.0'.\n"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn the_startup_line_names_the_project_connections_tables_index_and_both_urls() {
    let index = tempfile::tempdir().unwrap();
    let project = fixtures().join("library").canonicalize().unwrap();
    let start = || {
        let mut command = Command::new(bin());
        command
            .args(["serve", "--transport", "http", "--port", "0", "--project"])
            .arg(&project)
            .arg("--index-dir")
            .arg(index.path());
        let server = HttpServer::spawn(command);
        (server.startup.clone(), server.port)
    };
    for state in ["built", "warm"] {
        let (line, port) = start();
        assert_eq!(
            line,
            format!(
                "printdex: serving {} at http://127.0.0.1:{port}/mcp (streamable HTTP) and \
                 http://127.0.0.1:{port}/sse (SSE, as dbprint serves): library (11 tables); \
                 index {state} at {}\n",
                project.display(),
                index.path().display()
            )
        );
    }
}

#[test]
fn a_port_in_use_says_so_and_suggests_another_with_exit_3_as_dbprint() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let index = tempfile::tempdir().unwrap();
    let out = run(Command::new(bin())
        .args(["serve", "--transport", "http", "--port", &port, "--project"])
        .arg(fixtures().join("library"))
        .arg("--index-dir")
        .arg(index.path()));
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        out.stderr,
        format!(
            "printdex: cannot listen on 127.0.0.1:{port}: port {port} is already in use \
             (another server holds it); choose another with --port\n"
        )
    );
}

#[test]
fn sigterm_and_sigint_close_the_streams_and_exit_zero() {
    for signal in ["-TERM", "-INT"] {
        let mut server = HttpServer::start();
        let (mut sse, endpoint) = legacy_session(&server);
        server.post(&endpoint, &[], &initialize());
        sse.next_message();
        server.post(&endpoint, &[], &initialized());
        server.post(&endpoint, &[], &list_tables(2));
        assert_eq!(sse.next_message()["id"], json!(2));
        server.signal(signal);
        assert_eq!(server.wait().code(), Some(0), "{signal}");
        assert!(
            sse.next_event().is_none(),
            "the SSE stream ends at shutdown"
        );
    }
}

#[test]
fn sigterm_lets_a_call_under_way_answer() {
    let dir = tempfile::tempdir().unwrap();
    bare_project(dir.path(), 1);
    let root = dir.path().join("prints/c");
    let mut server = HttpServer::start_on(dir.path());
    let (mut sse, endpoint) = legacy_session(&server);
    server.post(&endpoint, &[], &initialize());
    sse.next_message();
    server.post(&endpoint, &[], &initialized());

    // A changed manifest is re-read by the next call: a big one keeps that call busy
    // while the signal arrives.
    std::fs::write(root.join("manifest.yaml"), bare_manifest(10_000)).unwrap();
    let started = Instant::now();
    assert_eq!(server.post(&endpoint, &[], &list_tables(2)).status, 202);
    std::thread::sleep(Duration::from_millis(100));
    server.signal("-TERM");
    let reply = sse.next_message();
    eprintln!("call answered after {:?}", started.elapsed());
    assert_eq!(reply["id"], json!(2));
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    let text: Value =
        serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["total"], json!(10_000));
    assert_eq!(server.wait().code(), Some(0));
}

/// The calls a soak client cycles through: one of each kind of read.
fn soak_call(id: u64) -> Value {
    let (name, arguments) = match id % 4 {
        0 => ("list_tables", json!({"detail": true})),
        1 => (
            "get_table_context",
            json!({"table": "stacks.catalog.books", "purpose": "query"}),
        ),
        2 => ("search_columns", json!({"text": "name"})),
        _ => ("get_manifest", json!({})),
    };
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

/// 16 clients at once (half legacy SSE, half streamable HTTP), each looping over
/// the tools until a bound, get zero errors. The bound is a number of calls per client,
/// or `PRINTDEX_SOAK_SECONDS` of calling when set (the 60 s run in docs/benchmarks.md).
#[test]
fn sixteen_concurrent_clients_over_both_transports_get_zero_errors() {
    let server = std::sync::Arc::new(HttpServer::start());
    let seconds: Option<u64> = std::env::var("PRINTDEX_SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok());
    let keep_going = move |calls: u64, started: Instant| match seconds {
        Some(s) => started.elapsed() < Duration::from_secs(s),
        None => calls < 24,
    };
    let clients: Vec<_> = (0..16)
        .map(|client| {
            let server = server.clone();
            std::thread::spawn(move || -> (u64, Vec<String>) {
                let mut errors = Vec::new();
                let check = |reply: &Value, errors: &mut Vec<String>| {
                    if reply.get("error").is_some() || reply["result"]["isError"] != json!(false) {
                        errors.push(reply.to_string());
                    }
                };
                let started = Instant::now();
                let mut calls = 0u64;
                if client % 2 == 0 {
                    let (mut sse, endpoint) = legacy_session(&server);
                    server.post(&endpoint, &[], &initialize());
                    sse.next_message();
                    server.post(&endpoint, &[], &initialized());
                    while keep_going(calls, started) {
                        calls += 1;
                        let status = server.post(&endpoint, &[], &soak_call(calls)).status;
                        if status != 202 {
                            errors.push(format!("POST /messages/ answered {status}"));
                            continue;
                        }
                        let reply = sse.next_message();
                        check(&reply, &mut errors);
                    }
                } else {
                    let accept = ("Accept", "application/json, text/event-stream");
                    let r = server.post("/mcp", &[accept], &initialize());
                    let session = r.header("mcp-session-id").unwrap_or_default().to_string();
                    let with_session = [
                        accept,
                        ("Mcp-Session-Id", session.as_str()),
                        ("Mcp-Protocol-Version", "2025-11-25"),
                    ];
                    server.post("/mcp", &with_session, &initialized());
                    while keep_going(calls, started) {
                        calls += 1;
                        let r = server.post("/mcp", &with_session, &soak_call(calls));
                        match (r.status, r.sse_messages().pop()) {
                            (200, Some(reply)) => check(&reply, &mut errors),
                            (status, _) => errors.push(format!("POST /mcp answered {status}")),
                        }
                    }
                }
                (calls, errors)
            })
        })
        .collect();
    let mut total = 0;
    for client in clients {
        let (calls, errors) = client.join().expect("client thread");
        assert!(
            errors.is_empty(),
            "{} errors, first: {}",
            errors.len(),
            errors[0]
        );
        total += calls;
    }
    eprintln!("16 clients, {total} calls, zero errors");
    assert!(total >= 16 * 24 || seconds.is_some());
}
