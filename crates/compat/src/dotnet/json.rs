//! JSON as .NET's `Utf8JsonWriter` writes it with the default encoder: compact, members in
//! insertion order, and strings escaped so the text is pure ASCII (every non-ASCII UTF-16 unit
//! and the HTML-sensitive ASCII characters `"` `&` `'` `+` `<` `>` `` ` `` as `\uXXXX`,
//! upper-case hex).

use std::fmt::Write as _;

use super::number::double_text;

/// A JSON value with the few shapes pz writes, in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number.
    Int(i64),
    /// A string.
    Str(String),
    /// A string that may hold a lone surrogate (a cut excerpt), as UTF-16 units.
    Utf16(Vec<u16>),
    /// An array.
    Arr(Vec<Json>),
    /// An object, members in the order written.
    Obj(Vec<(&'static str, Json)>),
    /// An object whose keys are data (option names, status counts), in insertion order.
    Map(Vec<(String, Json)>),
    /// A double, as `Utf8JsonWriter.WriteNumberValue(double)` writes it ([`double_text`]).
    Double(f64),
}

impl Json {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// Appends the JSON text to `out`.
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
            Json::Double(d) => out.push_str(&double_text(*d)),
        }
    }

    /// The JSON text.
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn maps_and_doubles() {
        let map = Json::Map(vec![("k\u{e9}".into(), Json::Double(2.0))]);
        assert_eq!(map.to_text(), r#"{"k\u00E9":2}"#);
        assert_eq!(Json::Double(1e-5).to_text(), "1E-05");
    }
}
