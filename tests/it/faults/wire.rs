//! Faults on the wire: stdio framing and `/mcp` sessions (issue 16, items 7 and 8).
//! Every stdio request whose id can be read is answered with that id, exactly as the
//! client wrote it; what is not JSON gets -32700; the server keeps serving. `/mcp`
//! sessions end when idle and are capped; an unknown one is 404 to DELETE.

use std::cell::RefCell;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

use crate::util::{
    fixtures, initialize, initialized, is_answer_to, tools_list, HttpServer, Server,
};

/// `printdex serve` over stdio on the library fixture, initialized.
fn start() -> Server {
    Server::start(&fixtures().join("library"), &[])
}

/// A ping answered: the server still reads and answers.
fn still_serves(wire: &mut Server) {
    wire.send_line(r#"{"jsonrpc":"2.0","id":"still","method":"ping"}"#);
    assert_eq!(
        wire.answer_to(r#""still""#),
        r#"{"jsonrpc":"2.0","id":"still","result":{}}"#
    );
}

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:.300}"))
}

fn error_of(line: &str) -> (i64, String) {
    let v = json(line);
    let code = v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error in {line:.300}"));
    (
        code,
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[test]
fn invalid_utf8_inside_a_string_is_read_as_python_reads_it() {
    let mut wire = start();
    let mut line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_tables","arguments":{"pattern":"catalog"#.to_vec();
    line.extend_from_slice(b"\xff\xfe*");
    line.extend_from_slice(br#""}}}"#);
    wire.send_bytes(&line);
    let answer = json(&wire.answer_to("7"));
    // The bytes that are not UTF-8 read as U+FFFD, as the reference's stdio reader does:
    // a glob that matches nothing, not an error.
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    still_serves(&mut wire);
}

#[test]
fn a_number_beyond_f64_is_answered_with_its_id() {
    let mut wire = start();
    wire.send_line(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_tables","arguments":{"pattern":1e400}}}"#);
    let answer = wire.answer_to("8");
    assert_eq!(
        error_of(&answer),
        (-32700, "Parse error".into()),
        "{answer}"
    );
    still_serves(&mut wire);
}

#[test]
fn ids_beyond_i64_go_back_exactly_as_written() {
    let mut wire = start();
    let long = "1".repeat(400);
    for id in [
        long.as_str(),
        "18446744073709551616",
        "-9223372036854775809",
        "1.0",
        "7e2",
    ] {
        wire.send_line(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        assert_eq!(
            wire.answer_to(id),
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
    }
    // A tool call under such an id is answered in full.
    wire.send_line(r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"tools/call","params":{"name":"list_tables","arguments":{"pattern":"*catalog.*"}}}"#);
    let answer = wire.answer_to("18446744073709551616");
    assert!(answer.contains("catalog.books"), "{answer:.300}");
    still_serves(&mut wire);
}

#[test]
fn a_line_over_16_mib_is_answered_and_the_server_keeps_serving() {
    let mut wire = start();
    let pad = "a".repeat(17 * 1024 * 1024);
    // Its id comes before the limit: the answer carries it.
    wire.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":22,"method":"ping","params":{{"s":"{pad}"}}}}"#
    ));
    let answer = wire.answer_to("22");
    assert_eq!(error_of(&answer).0, -32600, "{answer}");
    // Its id comes after it: a parse error without one.
    wire.send_line(&format!(
        r#"{{"jsonrpc":"2.0","params":{{"s":"{pad}"}},"id":23,"method":"ping"}}"#
    ));
    let answer = wire.answer_to("null");
    assert_eq!(error_of(&answer).0, -32700, "{answer}");
    still_serves(&mut wire);
    assert!(wire.alive());
}

#[test]
fn what_is_not_json_gets_parse_error_with_the_id_when_it_can_be_read() {
    let mut wire = start();
    wire.send_line("hello");
    let answer = wire.answer_to("null");
    assert_eq!(error_of(&answer), (-32700, "Parse error".into()));
    wire.send_line(r#"{"jsonrpc":"2.0","id":9,"method":"pi"#);
    assert_eq!(error_of(&wire.answer_to("9")).0, -32700);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":16,"method":"ping","params":{{"a":{}{}}}}}"#,
        "[".repeat(5000),
        "]".repeat(5000)
    );
    wire.send_line(&deep);
    assert_eq!(error_of(&wire.answer_to("16")).0, -32700);
    still_serves(&mut wire);
}

#[test]
fn json_that_is_no_request_gets_invalid_request_with_its_id() {
    let mut wire = start();
    wire.send_line(r#"{"id":11,"method":"ping"}"#);
    assert_eq!(
        error_of(&wire.answer_to("11")),
        (-32600, "Invalid Request".into())
    );
    wire.send_line(r#"{"jsonrpc":"2.0","id":12,"method":5}"#);
    assert_eq!(error_of(&wire.answer_to("12")).0, -32600);
    wire.send_line(r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":"x"}"#);
    assert_eq!(error_of(&wire.answer_to(r#""s""#)).0, -32600);
    still_serves(&mut wire);
}

#[test]
fn methods_not_found_answer_in_dbprints_shape() {
    let mut wire = start();
    // A notification of one is not answered: the ping after it is the next line.
    wire.send_line(r#"{"jsonrpc":"2.0","method":"prompts/list"}"#);
    wire.send_line(r#"{"jsonrpc":"2.0","id":"first","method":"ping"}"#);
    assert!(is_answer_to(&wire.next_line(), r#""first""#));
    for (n, method) in [
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        "resources/subscribe",
        "tasks/get",
        "nosuch/method",
    ]
    .iter()
    .enumerate()
    {
        // Params each method would take, so only its being unserved is wrong.
        let params = json!({"name": "x", "uri": "dbprint:///x", "level": "info", "taskId": "t",
            "ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}});
        let request = json!({"jsonrpc": "2.0", "id": n, "method": method, "params": params});
        wire.send_line(&request.to_string());
        assert_eq!(
            json(&wire.answer_to(&n.to_string()))["error"],
            json!({"code": -32601, "message": "Method not found", "data": method})
        );
    }
}

/// An `/mcp` server whose sessions live `idle_secs` idle and at most `max` at once.
fn mcp_server(idle_secs: u64, max: usize) -> HttpServer {
    HttpServer::start_with(&fixtures().join("library"), |command| {
        command
            .env("PRINTDEX_SESSION_IDLE_SECS", idle_secs.to_string())
            .env("PRINTDEX_MAX_SESSIONS", max.to_string());
    })
}

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");

/// A new initialized `/mcp` session's id.
fn open_session(server: &HttpServer) -> String {
    let r = server.post("/mcp", &[ACCEPT], &initialize());
    assert_eq!(r.status, 200, "{}", r.text());
    let session = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let r = server.post("/mcp", &with(&session), &initialized());
    assert_eq!(r.status, 202, "{}", r.text());
    session
}

fn with(session: &str) -> [(&str, &str); 3] {
    [
        ACCEPT,
        ("Mcp-Session-Id", session),
        ("Mcp-Protocol-Version", "2025-11-25"),
    ]
}

/// The status of a tools/list in `session`.
fn list_status(server: &HttpServer, session: &str) -> u16 {
    server.post("/mcp", &with(session), &tools_list(2)).status
}

#[test]
fn mcp_sessions_end_when_idle() {
    let server = mcp_server(1, 1000);
    let session = open_session(&server);
    assert_eq!(list_status(&server, &session), 200);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(list_status(&server, &session), 404, "an idle session ends");
    // A new one is served.
    let fresh = open_session(&server);
    assert_eq!(list_status(&server, &fresh), 200);
}

#[test]
fn mcp_sessions_are_capped_the_longest_idle_ending() {
    let server = mcp_server(600, 2);
    let a = open_session(&server);
    let b = open_session(&server);
    assert_eq!(
        list_status(&server, &a),
        200,
        "a is now the more recently used"
    );
    let c = open_session(&server);
    assert_eq!(list_status(&server, &b), 404, "b was idle the longest");
    assert_eq!(list_status(&server, &a), 200);
    assert_eq!(list_status(&server, &c), 200);
}

#[test]
fn deleting_an_unknown_mcp_session_is_404() {
    let server = mcp_server(600, 1000);
    let host = server.host();
    let unknown = "0123456789abcdef0123456789abcdef";
    let r = server.send(
        "DELETE",
        "/mcp",
        &[("Host", &host), ("Mcp-Session-Id", unknown)],
        b"",
    );
    assert_eq!(r.status, 404);
    let session = open_session(&server);
    let delete = |s: &str| {
        server
            .send(
                "DELETE",
                "/mcp",
                &[("Host", &host), ("Mcp-Session-Id", s)],
                b"",
            )
            .status
    };
    assert_eq!(delete(&session), 200);
    assert_eq!(delete(&session), 404, "once ended, a session is unknown");
}

#[test]
fn mcp_methods_not_found_answer_in_dbprints_shape() {
    let server = mcp_server(600, 1000);
    let session = open_session(&server);
    let r = server.post(
        "/mcp",
        &with(&session),
        &json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/list"}),
    );
    assert_eq!(
        r.sse_messages().remove(0)["error"],
        json!({"code": -32601, "message": "Method not found", "data": "prompts/list"})
    );
}

/// A JSON value of any type, some of them hostile: huge numbers, deep nesting, odd text.
fn any_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        Just("1e400".to_string()),
        (20usize..500).prop_map(|n| "9".repeat(n)),
        ".{0,20}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        (1usize..300).prop_map(|n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
        Just(r#"{"a":[1,{"b":null}]}"#.to_string()),
        Just(r#""\ud800""#.to_string()),
    ]
}

/// A readable id of the kind `kind` picks, unique by `n`: small, beyond i64, fractional,
/// a string; as JSON text.
fn id_of(kind: u8, n: u64) -> String {
    match kind % 4 {
        0 => format!("{}", 1_000_000 + n),
        1 => format!("18446744073709551616{n}"),
        2 => format!("{n}.5"),
        _ => format!(r#""case-{n}""#),
    }
}

/// The rest of a request after its id: a tool call with arguments of any type (names
/// the tool declares, and some it does not), or another method with any params.
fn any_rest(tools: Vec<(String, Vec<String>)>) -> impl Strategy<Value = String> {
    let arguments = proptest::collection::vec((0usize..8, any_value()), 0..4);
    let call = (proptest::sample::select(tools), arguments).prop_map(|((tool, names), args)| {
        let members: Vec<String> = args
            .iter()
            .map(|(i, v)| {
                let name = names
                    .get(*i)
                    .cloned()
                    .unwrap_or_else(|| format!("extra{i}"));
                format!("{}:{v}", serde_json::to_string(&name).unwrap())
            })
            .collect();
        format!(
            r#""method":"tools/call","params":{{"name":"{tool}","arguments":{{{}}}}}}}"#,
            members.join(",")
        )
    });
    let methods = vec![
        "ping",
        "tools/list",
        "resources/read",
        "prompts/list",
        "nosuch",
    ];
    let other = (proptest::sample::select(methods), any_value())
        .prop_map(|(m, p)| format!(r#""method":"{m}","params":{p}}}"#));
    prop_oneof![3 => call, 1 => other]
}

/// What is done to the rest: nothing, cut short, bytes that are not UTF-8 put in, or
/// random bytes appended.
fn mutate(rest: String, how: u8, at: usize, junk: Vec<u8>) -> Vec<u8> {
    let mut bytes = rest.into_bytes();
    let at = at % (bytes.len() + 1);
    match how % 4 {
        0 => {}
        1 => bytes.truncate(at),
        2 => bytes.splice(at..at, [0xff, 0xc3]).for_each(drop),
        _ => bytes.extend(junk),
    }
    bytes
}

/// The five tools the fuzz calls, each with its argument names, from tools/list.
fn tool_arguments(wire: &mut Server) -> Vec<(String, Vec<String>)> {
    const FUZZED: [&str; 5] = [
        "list_tables",
        "get_table_context",
        "search_columns",
        "resolve_value",
        "validate_sql",
    ];
    wire.send_line(&tools_list(2).to_string());
    let list = json(&wire.answer_to("2"));
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let names = t["inputSchema"]["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            (t["name"].as_str().unwrap().to_string(), names)
        })
        .filter(|(name, _)| FUZZED.contains(&name.as_str()))
        .collect()
}

#[test]
fn every_generated_line_with_a_readable_id_gets_one_answer_and_the_server_lives() {
    let mut wire = start();
    let tools = tool_arguments(&mut wire);
    assert_eq!(tools.len(), 5, "{tools:?}");
    let wire = RefCell::new(wire);
    let junk = || proptest::collection::vec(any::<u8>(), 0..40);
    let cases = (
        any::<u8>(),
        any_rest(tools),
        any::<u8>(),
        any::<usize>(),
        junk(),
    )
        .prop_map(|(kind, rest, how, at, junk)| (kind, mutate(rest, how, at, junk)));
    // Random bytes with no id, sent before each case.
    let noise = proptest::collection::vec(any::<u8>(), 0..200);
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    let next = std::cell::Cell::new(0u64);
    runner
        .run(&(cases, noise), |((kind, rest), noise)| {
            let mut wire = wire.borrow_mut();
            next.set(next.get() + 1);
            let id = id_of(kind, next.get());
            let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"#).into_bytes();
            line.extend(rest);
            line.retain(|b| *b != b'\n');
            let noise: Vec<u8> = noise.into_iter().filter(|b| *b != b'\n').collect();
            wire.send_bytes(&noise);
            wire.send_bytes(&line);
            wire.send_line(r#"{"jsonrpc":"2.0","id":"sentinel","method":"ping"}"#);
            // Exactly one answer with the case's id, and the sentinel's; anything else is
            // the noise's error, which has no id.
            let (mut case_answers, mut sentinel) = (0, false);
            while case_answers == 0 || !sentinel {
                let answer = wire.next_line();
                if is_answer_to(&answer, &id) {
                    let reply = json(&answer);
                    prop_assert!(reply.get("result").is_some() || reply.get("error").is_some());
                    case_answers += 1;
                } else if is_answer_to(&answer, r#""sentinel""#) {
                    sentinel = true;
                } else {
                    prop_assert!(is_answer_to(&answer, "null"), "a stray line: {answer:.300}");
                }
            }
            prop_assert!(wire.alive());
            Ok::<(), TestCaseError>(())
        })
        .unwrap();
    let mut wire = wire.borrow_mut();
    wire.send_line(r#"{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"list_tables","arguments":{"pattern":"*catalog.*"}}}"#);
    let last = json(&wire.answer_to(r#""last""#));
    assert_eq!(last["result"]["isError"], false);
    let text = last["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("catalog.books"), "{text}");
    // Nothing answered twice: the lines left are null-id errors at most.
    std::thread::sleep(Duration::from_millis(200));
    for line in wire.lines_written() {
        assert!(is_answer_to(&line, "null"), "a stray line: {line:.300}");
    }
}
