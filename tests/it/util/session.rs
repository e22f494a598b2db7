//! A whole stdio session run to its end, for what shows only once a server has exited
//! (its stderr, its exit status) or never started.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, ExitStatus, Stdio};

use serde_json::{json, Value};

/// `initialize`, the `requests` (ids 1, 2, ...), then EOF; every response by id, stderr,
/// and the exit status.
pub struct Session {
    pub responses: HashMap<u64, Value>,
    pub stderr: String,
    pub status: ExitStatus,
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

/// `text` with every `age_days` number replaced by `<AGE>` (`null` kept), whether it
/// stands in a tool's text as written or inside a JSON string (quotes escaped): two
/// servers a moment apart may round it either side of a hundredth of a day.
pub fn without_age_days(text: &str) -> String {
    let mut out = text.to_string();
    for needle in ["\"age_days\": ", "\\\"age_days\\\": "] {
        let mut masked = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(needle) {
            let start = at + needle.len();
            masked.push_str(&rest[..start]);
            let end = rest[start..]
                .find([',', '\n', '}', '\\'])
                .map_or(rest.len(), |e| start + e);
            masked.push_str(if &rest[start..end] == "null" {
                "null"
            } else {
                "<AGE>"
            });
            rest = &rest[end..];
        }
        masked.push_str(rest);
        out = masked;
    }
    out
}

#[test]
fn age_days_is_masked_as_written_and_inside_a_json_string() {
    let plain = "{\n  \"age_days\": 7.19,\n  \"x\": {\"age_days\": null}\n}";
    assert_eq!(
        without_age_days(plain),
        "{\n  \"age_days\": <AGE>,\n  \"x\": {\"age_days\": null}\n}"
    );
    let inside = serde_json::json!({"text": "{\n \"age_days\": 7.2\n}"}).to_string();
    assert_eq!(
        without_age_days(&inside),
        "{\"text\":\"{\\n \\\"age_days\\\": <AGE>\\n}\"}"
    );
}

/// Where `got` first differs from `expected`, answer by answer: the answer's index and
/// a description (its number and the text around the first differing character of each
/// side); `None` when they are the same.
pub fn first_difference(got: &[String], expected: &[String]) -> Option<(usize, String)> {
    assert_eq!(got.len(), expected.len(), "as many answers as expected");
    let (i, (g, e)) = got
        .iter()
        .zip(expected)
        .enumerate()
        .find(|(_, (g, e))| g != e)?;
    let at = g
        .chars()
        .zip(e.chars())
        .position(|(a, b)| a != b)
        .unwrap_or(g.chars().count().min(e.chars().count()));
    let around = |t: &str| {
        t.chars()
            .skip(at.saturating_sub(120))
            .take(240)
            .collect::<String>()
    };
    let description = format!(
        "answer {} differs at character {at}:\n got: {}\n expected: {}",
        i + 1,
        around(g),
        around(e)
    );
    Some((i, description))
}
