//! `json.dumps(..., default=str)` with ensure_ascii, as CPython's encoder
//! (C for the compact form, pure Python for `indent`) writes it; both give
//! the same text for the values a print can hold. One encoder writes into a
//! [`Sink`]: a `String`, or a counter when only the length is wanted (the
//! paging engine measures far more pages than it sends).

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

/// `len(json.dumps(v, indent=2, default=str))`, keys as [`super::json_indent2`]
/// writes them, counted without writing the text. With ensure_ascii every
/// character written is ASCII, so Python's length is the byte count.
pub(super) fn indent2_len(v: &Value) -> usize {
    let mut enc = Encoder {
        out: Counter(0),
        indent: Some(2),
        lenient_keys: true,
    };
    // Lenient keys never fail.
    let _ = enc.value(v, 0);
    enc.out.0
}

/// Where the encoder's ASCII text goes.
trait Sink {
    fn text(&mut self, s: &str);
    fn byte(&mut self, b: u8);
    fn spaces(&mut self, n: usize);
    /// `s` as a JSON string literal (see [`write_str`]).
    fn string(&mut self, s: &str, ensure_ascii: bool);
}

impl Sink for String {
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
    fn byte(&mut self, b: u8) {
        self.push(char::from(b));
    }
    fn spaces(&mut self, n: usize) {
        const SPACES: &str = "                                ";
        let mut left = n;
        while left > 0 {
            let take = left.min(SPACES.len());
            self.push_str(&SPACES[..take]);
            left -= take;
        }
    }
    fn string(&mut self, s: &str, ensure_ascii: bool) {
        write_str(self, s, ensure_ascii);
    }
}

/// A sink that only counts what it is given.
struct Counter(usize);

impl Sink for Counter {
    fn text(&mut self, s: &str) {
        self.0 += s.len();
    }
    fn byte(&mut self, _: u8) {
        self.0 += 1;
    }
    fn spaces(&mut self, n: usize) {
        self.0 += n;
    }
    fn string(&mut self, s: &str, ensure_ascii: bool) {
        self.0 += str_width(s, ensure_ascii) + 2;
    }
}

struct Encoder<S> {
    out: S,
    indent: Option<usize>,
    lenient_keys: bool,
}

impl<S: Sink> Encoder<S> {
    fn value(&mut self, v: &Value, level: usize) -> Result<(), PyException> {
        match v {
            Value::Null => self.out.text("null"),
            Value::Bool(b) => self.out.text(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let mut digits = itoa_buffer();
                self.out.text(int_text(*i, &mut digits));
            }
            Value::BigInt(s) => self.out.text(s),
            Value::Float(f) => self.out.text(&json_float(*f)),
            Value::Str(s) => self.out.string(s, true),
            // default=str: the str() of the object, encoded as a string.
            Value::Bytes(_) | Value::Date(_) | Value::DateTime(_) => {
                self.out.string(&str_of(v), true)
            }
            Value::Seq(items) => {
                if items.is_empty() {
                    self.out.text("[]");
                    return Ok(());
                }
                self.out.byte(b'[');
                for (i, item) in items.iter().enumerate() {
                    self.separator(i, level + 1);
                    self.value(item, level + 1)?;
                }
                self.close(level);
                self.out.byte(b']');
            }
            Value::Map(pairs) => {
                if pairs.is_empty() {
                    self.out.text("{}");
                    return Ok(());
                }
                self.out.byte(b'{');
                for (i, (k, val)) in pairs.iter().enumerate() {
                    self.separator(i, level + 1);
                    self.key(k)?;
                    self.out.text(": ");
                    self.value(val, level + 1)?;
                }
                self.close(level);
                self.out.byte(b'}');
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
                    self.out.text(", ");
                }
            }
            Some(n) => {
                if i > 0 {
                    self.out.byte(b',');
                }
                self.out.byte(b'\n');
                self.out.spaces(n * inner_level);
            }
        }
    }

    fn close(&mut self, level: usize) {
        if let Some(n) = self.indent {
            self.out.byte(b'\n');
            self.out.spaces(n * level);
        }
    }

    fn key(&mut self, k: &Value) -> Result<(), PyException> {
        let text = match k {
            Value::Str(s) => {
                self.out.string(s, true);
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
        self.out.string(&text, true);
        Ok(())
    }
}

/// Room for any `i64` in decimal.
fn itoa_buffer() -> [u8; 20] {
    [0; 20]
}

/// `i` in decimal, written into the end of `buf`.
fn int_text(i: i64, buf: &mut [u8; 20]) -> &str {
    let negative = i < 0;
    let mut n = i.unsigned_abs();
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        buf[at] = b'-';
    }
    // Only ASCII digits and '-' were written.
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// `tp_name` of the type, as the encoder's TypeError spells it.
fn type_tp_name(v: &Value) -> &'static str {
    match v {
        Value::Date(_) => "datetime.date",
        Value::DateTime(_) => "datetime.datetime",
        other => other.py_type_name(),
    }
}

/// `json.dumps(s)` for a `str`, with `ensure_ascii` as given: without it only `"`, `\\` and
/// the controls below U+0020 are escaped.
pub fn json_str(s: &str, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_str(&mut out, s, ensure_ascii);
    out
}

/// Whether byte `b` is written as itself (printable ASCII but the quote and backslash).
fn plain(b: u8) -> bool {
    (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\'
}

/// A JSON string literal: with ensure_ascii everything outside 0x20..=0x7e escaped, astral
/// chars as UTF-16 surrogate pairs.
fn write_str(out: &mut String, s: &str, ensure_ascii: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut rest = s;
    while !rest.is_empty() {
        // Runs of characters written as themselves are copied whole.
        let run = rest.bytes().take_while(|&b| plain(b)).count();
        out.push_str(&rest[..run]);
        rest = &rest[run..];
        let Some(c) = rest.chars().next() else { break };
        rest = &rest[c.len_utf8()..];
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
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

/// The length of `s` as [`write_str`] writes it, without the quotes, in characters.
fn str_width(s: &str, ensure_ascii: bool) -> usize {
    let mut width = 0;
    for c in s.chars() {
        width += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            ' '..='~' => 1,
            c if !ensure_ascii && c >= ' ' => 1,
            c => 6 * c.len_utf16(),
        };
    }
    width
}
