//! The stdio framing: one line of input becomes the message rmcp handles, or the answer
//! that goes back without it. Every request whose id can be read gets an answer: the id is
//! read by a lenient pass over the raw line (`read_id`), so a line that does not parse, or
//! does not parse as a request, is still answered with its id. Ids rmcp cannot hold (a
//! number outside i64, or not written as an integer) stand in for a string while rmcp
//! handles the request and go back exactly as the client wrote them (`RawIds`).

use std::collections::BTreeMap;
use std::ops::Range;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use serde_json::Value as Json;

use super::errors::{self, INVALID_REQUEST, PARSE_ERROR};

/// The longest line read whole; a longer one is answered from its first 16 MiB.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// A request id as the client wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawId {
    /// A JSON string, decoded.
    Str(String),
    /// A JSON number, its exact text (`18446744073709551616`, `1.0`).
    Num(String),
}

impl RawId {
    /// The id as JSON text, as it is echoed.
    pub fn to_json(&self) -> String {
        match self {
            RawId::Str(s) => serde_json::to_string(s).unwrap_or_else(|_| "null".into()),
            RawId::Num(n) => n.clone(),
        }
    }

    /// Whether rmcp holds this id as it is (an i64 written as an integer, or a string
    /// that cannot be taken for a stand-in).
    fn fits_rmcp(&self) -> bool {
        match self {
            RawId::Str(s) => !s.starts_with(STAND_IN),
            RawId::Num(n) => n.parse::<i64>().is_ok_and(|i| i.to_string() == *n),
        }
    }
}

/// The top-level `"id"` member of a JSON object line, read without parsing the rest:
/// where its value is and what it is. The last `"id"` wins, as in a parsed object; an id
/// that is neither a string nor a number, or is cut off by the line's end, is no id.
/// Never recurses, so any nesting depth is scanned.
pub fn read_id(line: &str) -> Option<(Range<usize>, RawId)> {
    let b = line.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b',') => {
                i += 1;
                continue;
            }
            Some(b'"') => {}
            _ => return found,
        }
        let Some(key_end) = string_end(b, i) else {
            return found;
        };
        let is_id = serde_json::from_str::<String>(&line[i..key_end]).is_ok_and(|k| k == "id");
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return found;
        }
        i = skip_ws(b, i + 1);
        let start = i;
        let Some(end) = value_end(b, i) else {
            // Cut off inside this value: an id here is unreadable, an earlier one stands.
            return if is_id { None } else { found };
        };
        if is_id {
            let text = &line[start..end];
            found = match b[start] {
                b'"' => serde_json::from_str::<String>(text).ok().map(RawId::Str),
                b'-' | b'0'..=b'9' if is_number(text) => Some(RawId::Num(text.to_string())),
                _ => None,
            }
            .map(|id| (start..end, id));
        }
        i = end;
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// The index just past the string token opening at `i`, if it closes.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The index just past the value starting at `i` (any depth, strings skipped), if it
/// ends before the line does; a scalar ends at a delimiter.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let end = i + b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))?;
            (end > i).then_some(end)
        }
    }
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// What becomes of one line.
#[derive(Debug)]
pub enum Frame {
    /// A message for rmcp (its id, if rmcp cannot hold it, a stand-in).
    Message(Box<ClientJsonRpcMessage>),
    /// The whole answer, one JSON-RPC line; the line goes no further.
    Answer(String),
    /// Nothing to do: a blank line, or a notification or response that cannot be read
    /// (never answered, as JSON-RPC says).
    Skip,
}

/// What `line` (without its newline) becomes; `ids` keeps the ids rmcp cannot hold.
pub fn frame(line: &[u8], ids: &mut RawIds) -> Frame {
    // Python's stdio reader replaces what is not UTF-8, and so do we.
    let text = String::from_utf8_lossy(line);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Frame::Skip;
    }
    let id = read_id(text);
    let text = match &id {
        Some((span, raw)) if !raw.fits_rmcp() => {
            let stand_in = serde_json::to_string(&ids.stand_in(raw)).unwrap_or_default();
            format!("{}{stand_in}{}", &text[..span.start], &text[span.end..])
        }
        _ => text.to_string(),
    };
    let id = id.map(|(_, raw)| raw);
    if let Ok(message) = serde_json::from_str::<ClientJsonRpcMessage>(&text) {
        return Frame::Message(Box::new(message));
    }
    let value = match serde_json::from_str::<Json>(&text) {
        Ok(value) => value,
        Err(e) => {
            ids.forget_last(id.as_ref());
            return Frame::Answer(error_line(id.as_ref(), PARSE_ERROR, &e.to_string()));
        }
    };
    // A member given twice counts once, the last, as Python reads an object.
    if let Ok(message) = serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        return Frame::Message(Box::new(message));
    }
    ids.forget_last(id.as_ref());
    let object = value.as_object();
    let member = |name: &str| object.and_then(|o| o.get(name));
    let is_notification = member("method").is_some_and(Json::is_string) && member("id").is_none();
    let is_response =
        member("method").is_none() && (member("result").is_some() || member("error").is_some());
    if is_notification || is_response {
        tracing::debug!("ignoring an unreadable notification or response: {text:.200}");
        return Frame::Skip;
    }
    // An id that is there but null, true, an object...: no id to answer with.
    let id = id.filter(|_| member("id").is_some_and(|v| v.is_string() || v.is_number()));
    Frame::Answer(error_line(
        id.as_ref(),
        INVALID_REQUEST,
        "not a JSON-RPC 2.0 request this server reads",
    ))
}

/// The answer to a line over `MAX_LINE` bytes, from its first `MAX_LINE` bytes: the error
/// carries the id when one is found there.
pub fn overlong(prefix: &[u8]) -> String {
    let text = String::from_utf8_lossy(prefix);
    let id = read_id(&text).map(|(_, id)| id);
    let (code, data) = match &id {
        Some(_) => (INVALID_REQUEST, "line longer than 16 MiB (16777216 bytes)"),
        None => (
            PARSE_ERROR,
            "line longer than 16 MiB (16777216 bytes), no id in its first 16 MiB",
        ),
    };
    error_line(id.as_ref(), code, data)
}

/// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}`, the id as written.
fn error_line(id: Option<&RawId>, code: (i32, &str), data: &str) -> String {
    let id = id.map_or_else(|| "null".to_string(), RawId::to_json);
    errors::error_line(&id, code, data)
}

/// The prefix of a stand-in id. A client's own string id that starts so is given a
/// stand-in too, so a stand-in is never mistaken for a client's id.
const STAND_IN: &str = "printdex:raw-id:";
/// Stand-ins kept at most (a request rmcp never answers must not hold one forever).
const MAX_STAND_INS: usize = 4096;

/// The ids rmcp cannot hold, by the stand-in it holds instead, until their answer goes.
#[derive(Debug, Default)]
pub struct RawIds {
    next: u64,
    by_stand_in: BTreeMap<u64, RawId>,
}

impl RawIds {
    /// A fresh stand-in for `raw`.
    fn stand_in(&mut self, raw: &RawId) -> String {
        self.next += 1;
        self.by_stand_in.insert(self.next, raw.clone());
        while self.by_stand_in.len() > MAX_STAND_INS {
            self.by_stand_in.pop_first();
        }
        format!("{STAND_IN}{}", self.next)
    }

    /// Drop the stand-in just made for `raw`, when its line went no further.
    fn forget_last(&mut self, raw: Option<&RawId>) {
        if let Some(raw) = raw.filter(|r| !r.fits_rmcp()) {
            if self.by_stand_in.get(&self.next) == Some(raw) {
                self.by_stand_in.remove(&self.next);
            }
        }
    }

    /// `message` as one JSON line, a stand-in id put back as the client wrote it.
    pub fn line(&mut self, message: &ServerJsonRpcMessage) -> serde_json::Result<String> {
        let text = serde_json::to_string(message)?;
        let id = match message {
            ServerJsonRpcMessage::Response(r) => Some(&r.id),
            ServerJsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        let Some(rmcp::model::NumberOrString::String(held)) = id else {
            return Ok(text);
        };
        let Some(raw) = held
            .strip_prefix(STAND_IN)
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| self.by_stand_in.remove(&n))
        else {
            return Ok(text);
        };
        // The id is the first member after "jsonrpc", so its first occurrence is it.
        let held = format!(r#""id":{}"#, serde_json::to_string(&**held)?);
        Ok(text.replacen(&held, &format!(r#""id":{}"#, raw.to_json()), 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(line: &str) -> Option<RawId> {
        read_id(line).map(|(_, id)| id)
    }

    fn num(s: &str) -> Option<RawId> {
        Some(RawId::Num(s.into()))
    }

    #[test]
    fn the_id_is_read_from_lines_that_do_not_parse() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":9,"method":"pi"#), num("9"));
        assert_eq!(id(r#"{"id":7,"params":{"x":1e400}}"#), num("7"));
        assert_eq!(
            id(r#"{"params":{"id":3,"s":"}\"{"},"id":"a\u00e9"}"#),
            Some(RawId::Str("aé".into()))
        );
        let deep = format!(
            r#"{{"a":{}{},"id":4}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(id(&deep), num("4"));
        assert_eq!(
            id(r#"{"id":1,"id":2}"#),
            num("2"),
            "the last id wins, as when parsed"
        );
    }

    #[test]
    fn numbers_keep_their_text() {
        let big = "1".repeat(400);
        assert_eq!(id(&format!(r#"{{"id":{big},"method":"ping"}}"#)), num(&big));
        assert_eq!(
            id(r#"{"id":18446744073709551616}"#),
            num("18446744073709551616")
        );
        assert_eq!(id(r#"{"id": -1.5e3 }"#), num("-1.5e3"));
        let (span, _) = read_id(r#"{"id": 12 ,"x":1}"#).unwrap();
        assert_eq!(span, 7..9);
    }

    #[test]
    fn what_is_no_id() {
        assert_eq!(id("hello"), None);
        assert_eq!(id("[1,2]"), None);
        assert_eq!(id(r#"{"id":null}"#), None);
        assert_eq!(id(r#"{"id":true}"#), None);
        assert_eq!(id(r#"{"id":{"a":1}}"#), None);
        assert_eq!(id(r#"{"id":01}"#), None);
        assert_eq!(
            id(r#"{"id":12"#),
            None,
            "a number cut off by the line's end"
        );
        assert_eq!(id(r#"{"id":"abc"#), None);
        assert_eq!(
            id(r#"{"id":"\ud800"}"#),
            None,
            "a lone surrogate does not decode"
        );
        assert_eq!(id(r#"{"x":{"id":5}}"#), None, "only the top level counts");
        assert_eq!(id(r#"{"id":5,"id":null}"#), None);
    }

    #[test]
    fn json_numbers() {
        for good in ["0", "-0", "12", "1.5", "1e400", "-2E+3", "0.0e-1"] {
            assert!(is_number(good), "{good}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x1", "1_0"] {
            assert!(!is_number(bad), "{bad}");
        }
    }

    fn answer(line: &[u8]) -> Json {
        match frame(line, &mut RawIds::default()) {
            Frame::Answer(text) => serde_json::from_str(&text).expect("an answer is JSON"),
            other => panic!("{:?} got {other:?}", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn lines_that_are_not_json_get_parse_error() {
        let a = answer(b"hello");
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Json::Null, (-32700).into())
        );
        let a = answer(br#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":1e400}}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (8.into(), (-32700).into())
        );
        assert_eq!(a["error"]["message"], "Parse error");
    }

    #[test]
    fn json_that_is_no_request_gets_invalid_request_with_its_id() {
        let a = answer(br#"{"id":11,"method":"ping"}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (11.into(), (-32600).into())
        );
        let a = answer(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!(a["id"], Json::Null);
        let a = answer(b"[]");
        assert_eq!(a["error"]["message"], "Invalid Request");
    }

    #[test]
    fn a_member_given_twice_counts_once_the_last() {
        let line = br#"{"jsonrpc":"2.0","id":18,"id":19,"method":"ping"}"#;
        let Frame::Message(message) = frame(line, &mut RawIds::default()) else {
            panic!("a ping");
        };
        let ClientJsonRpcMessage::Request(request) = *message else {
            panic!("a request");
        };
        assert_eq!(request.id, rmcp::model::NumberOrString::Number(19));
    }

    #[test]
    fn notifications_and_responses_that_cannot_be_read_are_not_answered() {
        let mut ids = RawIds::default();
        for line in [
            &br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#[..],
            br#"{"jsonrpc":"2.0","id":3,"result":5,"error":1}"#,
            b"   ",
        ] {
            assert!(matches!(frame(line, &mut ids), Frame::Skip), "{line:?}");
        }
    }

    #[test]
    fn ids_rmcp_cannot_hold_go_back_as_written() {
        let mut ids = RawIds::default();
        let big = "9".repeat(400);
        let line = format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#);
        let Frame::Message(message) = frame(line.as_bytes(), &mut ids) else {
            panic!("a ping with a big id is a message");
        };
        let ClientJsonRpcMessage::Request(request) = *message else {
            panic!("a request");
        };
        let reply = ServerJsonRpcMessage::response(
            rmcp::model::ServerResult::empty(()),
            request.id.clone(),
        );
        assert_eq!(
            ids.line(&reply).unwrap(),
            format!(r#"{{"jsonrpc":"2.0","id":{big},"result":{{}}}}"#)
        );
        assert!(
            ids.by_stand_in.is_empty(),
            "the stand-in goes with its answer"
        );
        // A client's id that looks like a stand-in is never taken for one.
        let line = format!(r#"{{"jsonrpc":"2.0","id":"{STAND_IN}1","method":"ping"}}"#);
        assert!(matches!(
            frame(line.as_bytes(), &mut ids),
            Frame::Message(_)
        ));
        assert!(!RawId::Num("1.0".into()).fits_rmcp());
        assert!(RawId::Num("-5".into()).fits_rmcp());
    }

    #[test]
    fn overlong_lines_are_answered_from_their_prefix() {
        let a: Json = serde_json::from_str(&overlong(
            br#"{"jsonrpc":"2.0","id":22,"method":"ping","params":{"s":"aaa"#,
        ))
        .unwrap();
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (22.into(), (-32600).into())
        );
        let a: Json = serde_json::from_str(&overlong(br#"{"params":{"s":"aaa"#)).unwrap();
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Json::Null, (-32700).into())
        );
    }
}
