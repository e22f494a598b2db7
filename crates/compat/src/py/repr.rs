//! `repr()` and `str()` of the Python values a print file can hold.

use super::float::float_repr;
use super::text::is_printable;
use crate::value::{Date, DateTime, Value};
use std::fmt::Write;

pub(super) fn repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(v, &mut out);
    out
}

fn write_repr(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::BigInt(s) => out.push_str(s),
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => out.push_str(&repr_str(s)),
        Value::Bytes(b) => out.push_str(&bytes_repr(b)),
        Value::Date(d) => out.push_str(&date_repr(d)),
        Value::DateTime(dt) => out.push_str(&datetime_repr(dt)),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Map(pairs) => {
            out.push('{');
            for (i, (k, val)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, out);
                out.push_str(": ");
                write_repr(val, out);
            }
            out.push('}');
        }
    }
}

/// `str(v)`: the text itself for str, isoformat-like for dates, else repr.
pub(super) fn str_of(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Date(d) => date_str(d),
        Value::DateTime(dt) => datetime_str(dt),
        _ => repr(v),
    }
}

/// `repr(str)` as CPython's unicode_repr writes it.
pub(super) fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() => out.push(c),
            c if is_printable(c) => out.push(c),
            c => {
                let cp = c as u32;
                let _ = if cp <= 0xff {
                    write!(out, "\\x{cp:02x}")
                } else if cp <= 0xffff {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push(quote);
    out
}

/// `repr(bytes)` (also `str(bytes)`), e.g. `b'\x00abc'`.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(b.len() + 3);
    out.push('b');
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            c if !(0x20..0x7f).contains(&c) => {
                let _ = write!(out, "\\x{c:02x}");
            }
            c => out.push(c as char),
        }
    }
    out.push(quote as char);
    out
}

/// `str(date)`: `YYYY-MM-DD`.
pub fn date_str(d: &Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)
}

fn date_repr(d: &Date) -> String {
    format!("datetime.date({}, {}, {})", d.year, d.month, d.day)
}

/// `str(datetime)`: `isoformat(sep=' ')`.
pub fn datetime_str(dt: &DateTime) -> String {
    let mut out = date_str(&dt.date);
    let _ = write!(out, " {:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second);
    if dt.microsecond != 0 {
        let _ = write!(out, ".{:06}", dt.microsecond);
    }
    if let Some(off) = dt.offset_seconds {
        // datetime._format_offset: sign, then HH:MM and :SS only if nonzero.
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.unsigned_abs();
        let _ = write!(out, "{sign}{:02}:{:02}", a / 3600, a % 3600 / 60);
        if a % 60 != 0 {
            let _ = write!(out, ":{:02}", a % 60);
        }
    }
    out
}

/// `repr(datetime)`: trailing zero second/microsecond fields are dropped,
/// and an aware value names its `datetime.timezone`.
pub fn datetime_repr(dt: &DateTime) -> String {
    let d = &dt.date;
    let mut out = format!(
        "datetime.datetime({}, {}, {}, {}, {}",
        d.year, d.month, d.day, dt.hour, dt.minute
    );
    if dt.second != 0 || dt.microsecond != 0 {
        let _ = write!(out, ", {}", dt.second);
    }
    if dt.microsecond != 0 {
        let _ = write!(out, ", {}", dt.microsecond);
    }
    if let Some(off) = dt.offset_seconds {
        out.push_str(", tzinfo=");
        if off == 0 {
            // timezone(timedelta(0)) is the timezone.utc singleton.
            out.push_str("datetime.timezone.utc");
        } else {
            let _ = write!(out, "datetime.timezone({})", timedelta_repr(off));
        }
    }
    out.push(')');
    out
}

/// `repr(timedelta(seconds=s))`, normalised as timedelta does (seconds in
/// [0, 86400), days carrying the sign).
fn timedelta_repr(s: i32) -> String {
    let s = i64::from(s);
    let days = s.div_euclid(86400);
    let secs = s.rem_euclid(86400);
    let mut fields = Vec::new();
    if days != 0 {
        fields.push(format!("days={days}"));
    }
    if secs != 0 {
        fields.push(format!("seconds={secs}"));
    }
    if fields.is_empty() {
        fields.push("0".to_string());
    }
    format!("datetime.timedelta({})", fields.join(", "))
}
