//! pz's tool envelope, written as its `ToolEnvelope` writes it: compact JSON in a fixed key
//! order (`ok`, `applied`?, `errors`?, then the payload), error objects keyed `code`,
//! `message`, `file`?, `line`?, `next_step` (JSON null when there is no hint), and strings
//! escaped as .NET's `Utf8JsonWriter` escapes them by default (every non-ASCII UTF-16 unit
//! and the HTML-sensitive ASCII characters as `\uXXXX`, so the wire is pure ASCII).

use std::fmt::Write as _;

use crate::ingest::pz::text::dotnet_double;

/// A JSON value with the few shapes pz writes, in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    /// A string that may hold a lone surrogate (a cut excerpt), as UTF-16 units.
    Utf16(Vec<u16>),
    Arr(Vec<Json>),
    Obj(Vec<(&'static str, Json)>),
    /// An object whose keys are data (option names, status counts), in insertion order.
    Map(Vec<(String, Json)>),
    /// A double, written as `Utf8JsonWriter.WriteNumberValue(double)` writes it: the shortest
    /// round-trip digits, in exponent form (`1E+15`, `1E-05`) outside 1e-4 <= |x| < 1e15.
    Double(f64),
}

impl Json {
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    pub fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Str(s) => write_text(out, s),
            Json::Utf16(u) => write_str(out, u.iter().copied()),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Obj(fields) => write_obj(out, fields.iter().map(|(k, v)| (*k, v))),
            Json::Map(fields) => write_obj(out, fields.iter().map(|(k, v)| (k.as_str(), v))),
            Json::Double(d) => out.push_str(&dotnet_double(*d)),
        }
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

fn write_obj<'a>(out: &mut String, fields: impl Iterator<Item = (&'a str, &'a Json)>) {
    out.push('{');
    for (i, (k, v)) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_text(out, k);
        out.push(':');
        v.write(out);
    }
    out.push('}');
}

/// ASCII that the default writer passes through unescaped.
fn passes(u: u16) -> bool {
    (0x20..0x7f).contains(&u)
        && !matches!(
            u as u8,
            b'"' | b'&' | b'\'' | b'+' | b'<' | b'>' | b'\\' | b'`'
        )
}

/// A string, copied whole when nothing in it needs escaping (the common case).
fn write_text(out: &mut String, s: &str) {
    if s.bytes().all(|b| passes(u16::from(b))) {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        write_str(out, s.encode_utf16());
    }
}

fn write_str(out: &mut String, units: impl Iterator<Item = u16>) {
    out.push('"');
    for u in units {
        if passes(u) {
            out.push(u as u8 as char);
            continue;
        }
        match u {
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x5C => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{u:04X}");
            }
        }
    }
    out.push('"');
}

/// One entry of `errors[]`: the JSON projection of pz's `PzError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PzError {
    pub code: &'static str,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub next_step: Option<String>,
}

impl PzError {
    pub fn new(code: &'static str, message: impl Into<String>, next_step: &str) -> PzError {
        PzError {
            code,
            message: message.into(),
            file: None,
            line: None,
            next_step: Some(next_step.to_string()),
        }
    }

    /// This error as an `errors[]` entry.
    pub fn json(&self) -> Json {
        let mut fields = vec![
            ("code", Json::str(self.code)),
            ("message", Json::str(&self.message)),
        ];
        if let Some(f) = &self.file {
            fields.push(("file", Json::str(f)));
        }
        if let Some(l) = self.line {
            fields.push(("line", Json::Int(i64::from(l))));
        }
        fields.push((
            "next_step",
            self.next_step.as_ref().map(Json::str).unwrap_or(Json::Null),
        ));
        Json::Obj(fields)
    }
}

/// A success: `ok:true`, `applied` when given, then the payload's keys.
pub fn ok(applied: Option<bool>, payload: Vec<(&'static str, Json)>) -> String {
    let mut fields = vec![("ok", Json::Bool(true))];
    if let Some(a) = applied {
        fields.push(("applied", Json::Bool(a)));
    }
    fields.extend(payload);
    Json::Obj(fields).to_text()
}

/// A failure: `ok:false`, `applied` when given, `errors` (omitted when empty).
pub fn failure(applied: Option<bool>, errors: &[PzError]) -> String {
    let mut fields = vec![("ok", Json::Bool(false))];
    if let Some(a) = applied {
        fields.push(("applied", Json::Bool(a)));
    }
    if !errors.is_empty() {
        fields.push((
            "errors",
            Json::Arr(errors.iter().map(PzError::json).collect()),
        ));
    }
    Json::Obj(fields).to_text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_match_pz_tests() {
        // ToolEnvelopeTests: an error with file and line, and an applied success.
        let e = PzError {
            code: "PZ0101",
            message: "m".into(),
            file: Some("connections.yml".into()),
            line: Some(12),
            next_step: Some("n".into()),
        };
        assert_eq!(
            failure(None, &[e]),
            r#"{"ok":false,"errors":[{"code":"PZ0101","message":"m","file":"connections.yml","line":12,"next_step":"n"}]}"#
        );
        assert_eq!(
            ok(
                Some(true),
                vec![("result", Json::Obj(vec![("nodes", Json::Int(3))]))]
            ),
            r#"{"ok":true,"applied":true,"result":{"nodes":3}}"#
        );
        let bare = PzError {
            code: "PZ0201",
            message: "x".into(),
            file: None,
            line: None,
            next_step: None,
        };
        assert_eq!(
            failure(None, &[bare]),
            r#"{"ok":false,"errors":[{"code":"PZ0201","message":"x","next_step":null}]}"#
        );
    }

    #[test]
    fn strings_escape_as_dotnet() {
        let s = Json::str("a\"b\\c\n<&>'+`\u{7f}\u{e9}\u{2014}\u{10400}").to_text();
        assert_eq!(
            s,
            r#""a\u0022b\\c\n\u003C\u0026\u003E\u0027\u002B\u0060\u007F\u00E9\u2014\uD801\uDC00""#
        );
        assert_eq!(Json::Utf16(vec![0x61, 0xD801]).to_text(), r#""a\uD801""#);
    }

    #[test]
    fn doubles_format_as_dotnet() {
        for (d, text) in [
            (1.5, "1.5"),
            (1.0, "1"),
            (100.0, "100"),
            (0.0001, "0.0001"),
            (0.00001, "1E-05"),
            (123456789012345.0, "123456789012345"),
            (1e15, "1E+15"),
            (1.25e20, "1.25E+20"),
            (-2.5e-7, "-2.5E-07"),
            (0.1, "0.1"),
        ] {
            assert_eq!(dotnet_double(d), text, "{d}");
        }
        let map = Json::Map(vec![("k\u{e9}".into(), Json::Double(2.0))]);
        assert_eq!(map.to_text(), r#"{"k\u00E9":2}"#);
    }
}
