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
            c if is_printable(c) => out.push(c),
            c => out.push_str(&escape_code_point(c)),
        }
    }
    out.push(quote);
    out
}

/// `%.200R` in a C-level format (as `int()`'s error uses it): the repr cut to 200 characters.
pub(crate) fn repr_str_200(s: &str) -> String {
    let r = repr_str(s);
    match r.char_indices().nth(200) {
        Some((i, _)) => r[..i].to_string(),
        None => r,
    }
}

/// How `repr` and a codec error name one character: `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub(crate) fn escape_code_point(c: char) -> String {
    let n = c as u32;
    if n <= 0xff {
        format!("\\x{n:02x}")
    } else if n <= 0xffff {
        format!("\\u{n:04x}")
    } else {
        format!("\\U{n:08x}")
    }
}

/// `'%04x' % n`, negative numbers included (`-001` for -1).
pub(crate) fn hex04(n: i32) -> String {
    if n < 0 {
        format!("-{:03x}", -i64::from(n))
    } else {
        format!("{n:04x}")
    }
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

/// `str(date)` (also `date.isoformat()`): `YYYY-MM-DD`.
pub fn date_str(d: &Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)
}

fn date_repr(d: &Date) -> String {
    format!("datetime.date({}, {}, {})", d.year, d.month, d.day)
}

/// `str(datetime)`: `isoformat(sep=' ')`.
pub fn datetime_str(dt: &DateTime) -> String {
    datetime_isoformat(dt, ' ')
}

/// `datetime.isoformat(sep)`.
pub fn datetime_isoformat(dt: &DateTime, sep: char) -> String {
    let mut out = date_str(&dt.date);
    let _ = write!(out, "{sep}{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second);
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
            let _ = write!(out, "datetime.timezone({})", timedelta_repr(i64::from(off)));
        }
    }
    out.push(')');
    out
}

/// `repr(timedelta(seconds=s))` as 3.13 prints it, normalised as timedelta does (seconds in
/// [0, 86400), days carrying the sign).
pub(crate) fn timedelta_repr(s: i64) -> String {
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
