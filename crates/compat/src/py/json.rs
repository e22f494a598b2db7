//! `json.dumps(..., default=str)` with ensure_ascii, as CPython's encoder
//! (C for the compact form, pure Python for `indent`) writes it; both give
//! the same text for the values a print can hold.

use super::float::json_float;
use super::repr::str_of;
use super::PyException;
use crate::value::Value;
use std::fmt::Write;

/// `json.dumps(v, indent=2, default=str)`; `Err` is Python's TypeError for a
/// dict key of a type JSON cannot key on (date, datetime, bytes).
pub fn try_json_indent2(v: &Value) -> Result<String, PyException> {
    dumps(v, Some(2), false)
}

/// `json.dumps(v, default=str)`; `Err` as for [`try_json_indent2`].
pub fn try_json_compact(v: &Value) -> Result<String, PyException> {
    dumps(v, None, false)
}

/// `lenient_keys`: write a rejected key as `str(key)` instead of failing.
pub(super) fn dumps(
    v: &Value,
    indent: Option<usize>,
    lenient_keys: bool,
) -> Result<String, PyException> {
    let mut enc = Encoder {
        out: String::new(),
        indent,
        lenient_keys,
    };
    enc.value(v, 0)?;
    Ok(enc.out)
}

struct Encoder {
    out: String,
    indent: Option<usize>,
    lenient_keys: bool,
}

impl Encoder {
    fn value(&mut self, v: &Value, level: usize) -> Result<(), PyException> {
        match v {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::BigInt(s) => self.out.push_str(s),
            Value::Float(f) => self.out.push_str(&json_float(*f)),
            Value::Str(s) => write_json_str(&mut self.out, s),
            // default=str: the str() of the object, encoded as a string.
            Value::Bytes(_) | Value::Date(_) | Value::DateTime(_) => {
                write_json_str(&mut self.out, &str_of(v))
            }
            Value::Seq(items) => {
                if items.is_empty() {
                    self.out.push_str("[]");
                    return Ok(());
                }
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    self.separator(i, level + 1);
                    self.value(item, level + 1)?;
                }
                self.close(level);
                self.out.push(']');
            }
            Value::Map(pairs) => {
                if pairs.is_empty() {
                    self.out.push_str("{}");
                    return Ok(());
                }
                self.out.push('{');
                for (i, (k, val)) in pairs.iter().enumerate() {
                    self.separator(i, level + 1);
                    self.key(k)?;
                    self.out.push_str(": ");
                    self.value(val, level + 1)?;
                }
                self.close(level);
                self.out.push('}');
            }
        }
        Ok(())
    }

    /// Before item `i`: `", "` compactly; with indent, `","` (after the
    /// first) then a newline and the inner indentation.
    fn separator(&mut self, i: usize, inner_level: usize) {
        match self.indent {
            None => {
                if i > 0 {
                    self.out.push_str(", ");
                }
            }
            Some(n) => {
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push('\n');
                self.push_spaces(n * inner_level);
            }
        }
    }

    fn close(&mut self, level: usize) {
        if let Some(n) = self.indent {
            self.out.push('\n');
            self.push_spaces(n * level);
        }
    }

    fn push_spaces(&mut self, n: usize) {
        self.out.extend(std::iter::repeat_n(' ', n));
    }

    fn key(&mut self, k: &Value) -> Result<(), PyException> {
        let text = match k {
            Value::Str(s) => {
                write_json_str(&mut self.out, s);
                return Ok(());
            }
            Value::Float(f) => json_float(*f),
            Value::Bool(b) => (if *b { "true" } else { "false" }).to_string(),
            Value::Null => "null".to_string(),
            Value::Int(i) => i.to_string(),
            Value::BigInt(s) => s.clone(),
            _ if self.lenient_keys => str_of(k),
            _ => {
                return Err(PyException::new(
                    "TypeError",
                    format!(
                        "keys must be str, int, float, bool or None, not {}",
                        type_tp_name(k)
                    ),
                ))
            }
        };
        write_json_str(&mut self.out, &text);
        Ok(())
    }
}

/// `tp_name` of the type, as the encoder's TypeError spells it.
fn type_tp_name(v: &Value) -> &'static str {
    match v {
        Value::Date(_) => "datetime.date",
        Value::DateTime(_) => "datetime.datetime",
        other => other.py_type_name(),
    }
}

/// A JSON string literal with ensure_ascii: everything outside 0x20..=0x7e
/// escaped, astral chars as UTF-16 surrogate pairs.
pub(super) fn write_json_str(out: &mut String, s: &str) {
    write_str(out, s, true);
}

/// `json.dumps(s)` for a `str`, with `ensure_ascii` as given: without it only `"`, `\\` and
/// the controls below U+0020 are escaped.
pub fn json_str(s: &str, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_str(&mut out, s, ensure_ascii);
    out
}

fn write_str(out: &mut String, s: &str, ensure_ascii: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c if !ensure_ascii && c >= ' ' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}
