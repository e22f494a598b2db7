//! PyYAML's YAML 1.1 implicit resolvers and SafeConstructor's scalar
//! constructors, hand-written instead of regexes. Each matcher accepts what
//! the reference's anchored pattern accepts, including Python's `$` matching
//! just before one final newline.

use super::compose::Tag;
use crate::py::{escape_code_point, repr_str, repr_str_200, timedelta_repr};
use crate::value::bigint::BigUint;
use crate::value::{Date, DateTime, Value};

/// Python's `re` `$` without MULTILINE: at the end, or before a last `\n`.
fn anchored(s: &[u8], f: impl Fn(&[u8]) -> bool) -> bool {
    f(s) || (s.last() == Some(&b'\n') && f(&s[..s.len() - 1]))
}

/// The tag the implicit resolvers give a plain scalar, tried in PyYAML's
/// order for the scalar's first character.
pub(crate) fn resolve_plain(v: &str) -> Tag {
    let b = v.as_bytes();
    let Some(&first) = b.first() else {
        return Tag::Null;
    };
    let digitish = matches!(first, b'-' | b'+' | b'.' | b'0'..=b'9');
    match first {
        b'y' | b'Y' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'n' | b'N'
            if anchored(b, is_bool) =>
        {
            Tag::Bool
        }
        b'n' | b'N' | b'~' if anchored(b, is_null) => Tag::Null,
        _ if digitish && anchored(b, is_float) => Tag::Float,
        b'-' | b'+' | b'0'..=b'9' if anchored(b, is_int) => Tag::Int,
        b'0'..=b'9' if anchored(b, is_timestamp) => Tag::Timestamp,
        b'<' if anchored(b, |s| s == b"<<") => Tag::Merge,
        b'=' if anchored(b, |s| s == b"=") => Tag::Value,
        _ => Tag::Str,
    }
}

fn is_bool(s: &[u8]) -> bool {
    matches!(
        s,
        b"yes"
            | b"Yes"
            | b"YES"
            | b"no"
            | b"No"
            | b"NO"
            | b"true"
            | b"True"
            | b"TRUE"
            | b"false"
            | b"False"
            | b"FALSE"
            | b"on"
            | b"On"
            | b"ON"
            | b"off"
            | b"Off"
            | b"OFF"
    )
}

fn is_null(s: &[u8]) -> bool {
    matches!(s, b"~" | b"null" | b"Null" | b"NULL" | b"")
}

fn skip_while(s: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < s.len() && f(s[i]) {
        i += 1;
    }
    i
}

fn digit_or_us(c: u8) -> bool {
    c.is_ascii_digit() || c == b'_'
}

/// `(?:[eE][-+][0-9]+)?` then the end.
fn exponent_then_end(s: &[u8], i: usize) -> bool {
    if i == s.len() {
        return true;
    }
    if !matches!(s[i], b'e' | b'E') {
        return false;
    }
    if i + 1 >= s.len() || !matches!(s[i + 1], b'-' | b'+') {
        return false;
    }
    let j = skip_while(s, i + 2, |c| c.is_ascii_digit());
    j > i + 2 && j == s.len()
}

/// `(?::[0-5]?[0-9])+` from `i`; returns where it stopped, `None` if no
/// segment matched.
fn sexagesimal_segments(s: &[u8], mut i: usize) -> Option<usize> {
    let mut any = false;
    while i < s.len() && s[i] == b':' {
        let d = skip_while(s, i + 1, |c| c.is_ascii_digit());
        let ok = match d - (i + 1) {
            1 => true,
            2 => s[i + 1] <= b'5',
            _ => false,
        };
        if !ok {
            return None;
        }
        any = true;
        i = d;
    }
    any.then_some(i)
}

fn strip_sign(s: &[u8]) -> (bool, &[u8]) {
    match s.first() {
        Some(b'-') | Some(b'+') => (true, &s[1..]),
        _ => (false, s),
    }
}

fn is_float(s: &[u8]) -> bool {
    let (signed, r) = strip_sign(s);
    if matches!(r, b".inf" | b".Inf" | b".INF") {
        return true;
    }
    if !signed && matches!(r, b".nan" | b".NaN" | b".NAN") {
        return true;
    }
    match r.first() {
        Some(b'.') if !signed => {
            // \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
            if r.len() < 2 || !r[1].is_ascii_digit() {
                return false;
            }
            let i = skip_while(r, 2, digit_or_us);
            exponent_then_end(r, i)
        }
        Some(c) if c.is_ascii_digit() => {
            let i = skip_while(r, 1, digit_or_us);
            match r.get(i) {
                Some(b'.') => {
                    let j = skip_while(r, i + 1, digit_or_us);
                    exponent_then_end(r, j)
                }
                Some(b':') => match sexagesimal_segments(r, i) {
                    Some(j) if r.get(j) == Some(&b'.') => {
                        skip_while(r, j + 1, digit_or_us) == r.len()
                    }
                    _ => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
}

fn is_int(s: &[u8]) -> bool {
    let (_, r) = strip_sign(s);
    match r {
        [b'0', b'b', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(|&c| matches!(c, b'0' | b'1' | b'_'))
        }
        [b'0', b'x', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(|&c| c.is_ascii_hexdigit() || c == b'_')
        }
        [b'0'] => true,
        [b'0', rest @ ..] => rest.iter().all(|&c| matches!(c, b'0'..=b'7' | b'_')),
        [c, ..] if (b'1'..=b'9').contains(c) => {
            let i = skip_while(r, 1, digit_or_us);
            i == r.len() || sexagesimal_segments(r, i) == Some(r.len())
        }
        _ => false,
    }
}

/// The resolver's pattern: a strict `YYYY-MM-DD`, or a datetime.
fn is_timestamp(s: &[u8]) -> bool {
    if s.len() == 10
        && s[4] == b'-'
        && s[7] == b'-'
        && s.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
    {
        return true;
    }
    matches!(parse_timestamp(s), Some(t) if t.time.is_some())
}

/// The pieces SafeConstructor's `timestamp_regexp` captures.
struct TimestampParts<'a> {
    year: u32,
    month: u32,
    day: u32,
    time: Option<TimeParts<'a>>,
}

struct TimeParts<'a> {
    hour: u32,
    minute: u32,
    second: u32,
    fraction: &'a [u8],
    /// `None`: naive; `Some(None)`: `Z`; `Some(Some((neg, h, m)))`.
    tz: Option<Option<(bool, u32, u32)>>,
}

fn num(s: &[u8]) -> u32 {
    s.iter().fold(0, |a, &c| a * 10 + (c - b'0') as u32)
}

/// One or two digits from `i`: (value, next index).
fn one_or_two_digits(s: &[u8], i: usize) -> Option<(u32, usize)> {
    let j = skip_while(s, i, |c| c.is_ascii_digit());
    match j - i {
        1 | 2 => Some((num(&s[i..j]), j)),
        _ => None,
    }
}

fn two_digits(s: &[u8], i: usize) -> Option<(u32, usize)> {
    if i + 2 <= s.len() && s[i].is_ascii_digit() && s[i + 1].is_ascii_digit() {
        Some((num(&s[i..i + 2]), i + 2))
    } else {
        None
    }
}

/// The constructor's pattern, fully anchored (the caller handles `$`).
fn parse_timestamp(s: &[u8]) -> Option<TimestampParts<'_>> {
    if s.len() < 8 || !s[..4].iter().all(u8::is_ascii_digit) || s[4] != b'-' {
        return None;
    }
    let year = num(&s[..4]);
    let (month, i) = one_or_two_digits(s, 5)?;
    if s.get(i) != Some(&b'-') {
        return None;
    }
    let (day, i) = one_or_two_digits(s, i + 1)?;
    if i == s.len() {
        return Some(TimestampParts {
            year,
            month,
            day,
            time: None,
        });
    }
    let i = match s[i] {
        b'T' | b't' => i + 1,
        b' ' | b'\t' => skip_while(s, i, |c| c == b' ' || c == b'\t'),
        _ => return None,
    };
    let (hour, i) = one_or_two_digits(s, i)?;
    if s.get(i) != Some(&b':') {
        return None;
    }
    let (minute, i) = two_digits(s, i + 1)?;
    if s.get(i) != Some(&b':') {
        return None;
    }
    let (second, mut i) = two_digits(s, i + 1)?;
    let mut fraction: &[u8] = &[];
    if s.get(i) == Some(&b'.') {
        let j = skip_while(s, i + 1, |c| c.is_ascii_digit());
        fraction = &s[i + 1..j];
        i = j;
    }
    let i = skip_while(s, i, |c| c == b' ' || c == b'\t');
    let tz = if i == s.len() {
        None
    } else {
        match s[i] {
            b'Z' if i + 1 == s.len() => Some(None),
            b'-' | b'+' => {
                let neg = s[i] == b'-';
                let (h, j) = one_or_two_digits(s, i + 1)?;
                if j == s.len() {
                    Some(Some((neg, h, 0)))
                } else if s[j] == b':' {
                    let (m, k) = two_digits(s, j + 1)?;
                    if k != s.len() {
                        return None;
                    }
                    Some(Some((neg, h, m)))
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    };
    Some(TimestampParts {
        year,
        month,
        day,
        time: Some(TimeParts {
            hour,
            minute,
            second,
            fraction,
            tz,
        }),
    })
}

/// `SafeConstructor.construct_yaml_bool`: a miss is Python's KeyError.
pub(crate) fn construct_bool(v: &str) -> Result<bool, String> {
    let lower = v.to_lowercase();
    match lower.as_str() {
        "yes" | "true" | "on" => Ok(true),
        "no" | "false" | "off" => Ok(false),
        _ => Err(repr_str(&lower)),
    }
}

/// The first code point of each run of ten Unicode decimal digits (`Nd`),
/// as of the Unicode version Python 3.13 ships.
const DIGIT_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650,
    0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x11f50, 0x16a60, 0x16ac0,
    0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e4f0, 0x1e950,
    0x1fbf0,
];

/// What `int()` and `float()` parse: CPython first turns non-ASCII
/// whitespace into spaces and Unicode decimal digits into ASCII ones (any
/// other non-ASCII character into something invalid), then strips ASCII
/// whitespace.
fn ascii_number_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let n = c as u32;
        if c.is_ascii() {
            out.push(c);
        } else if matches!(
            n,
            0x85 | 0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000
        ) {
            out.push(' ');
        } else {
            let digit = DIGIT_ZEROS
                .iter()
                .rev()
                .find(|&&z| z <= n)
                .map(|&z| n - z)
                .filter(|&d| d < 10);
            match digit {
                Some(d) => out.push((b'0' + d as u8) as char),
                None => out.push('?'),
            }
        }
    }
    let trimmed =
        out.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r'));
    if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_string()
    }
}

const MAX_STR_DIGITS: usize = 4300;
/// Beyond this many bits an integer's decimal text is too slow to make;
/// Python could not print it either (its 4300-digit limit).
const MAX_INT_BITS: u64 = 1 << 18;

/// An integer as sign and magnitude.
struct PyInt {
    neg: bool,
    mag: BigUint,
}

/// `int(s, base)` for the bases SafeConstructor uses (2, 8, 10, 16).
fn py_int(s: &str, base: u32) -> Result<PyInt, String> {
    let invalid = || {
        format!(
            "invalid literal for int() with base {base}: {}",
            repr_str_200(s)
        )
    };
    let t = ascii_number_text(s);
    let b = t.as_bytes();
    let (neg, mut r) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let prefix = match base {
        16 => Some([b'x', b'X']),
        8 => Some([b'o', b'O']),
        2 => Some([b'b', b'B']),
        _ => None,
    };
    if let Some(p) = prefix {
        if r.len() >= 2 && r[0] == b'0' && p.contains(&r[1]) {
            r = &r[2..];
        }
    }
    let n = r
        .iter()
        .take_while(|&&c| (c as char).is_digit(base))
        .count();
    if base == 10 && n > MAX_STR_DIGITS {
        return Err(format!(
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: value has {n} digits; use sys.set_int_max_str_digits() to increase the limit"
        ));
    }
    if n == 0 || n != r.len() {
        return Err(invalid());
    }
    let bits_per_digit = match base {
        2 => 1,
        8 => 3,
        16 => 4,
        _ => 4,
    };
    if n as u64 * bits_per_digit > MAX_INT_BITS {
        return Err(format!(
            "integer of {n} digits is too large for this reader"
        ));
    }
    let mut mag = BigUint::default();
    for &c in r {
        mag.mul_add_small(base, (c as char).to_digit(base).unwrap_or(0));
    }
    Ok(PyInt { neg, mag })
}

fn int_value(neg: bool, mag: &BigUint) -> Value {
    if let Some(m) = mag.to_u64() {
        if !neg && m <= i64::MAX as u64 {
            return Value::Int(m as i64);
        }
        if neg && m <= 1u64 << 63 {
            return Value::Int((m as i64).wrapping_neg());
        }
    }
    let digits = mag.to_decimal();
    if neg {
        Value::BigInt(format!("-{digits}"))
    } else {
        Value::BigInt(digits)
    }
}

/// `SafeConstructor.construct_yaml_int`.
pub(crate) fn construct_int(text: &str) -> Result<Value, String> {
    let cleaned;
    let v: &str = if text.contains('_') {
        cleaned = text.replace('_', "");
        &cleaned
    } else {
        text
    };
    let b = v.as_bytes();
    if b.is_empty() {
        return Err("string index out of range".to_string());
    }
    let neg = b[0] == b'-';
    let v = if matches!(b[0], b'-' | b'+') {
        &v[1..]
    } else {
        v
    };
    // The common case: a short plain decimal.
    if !v.is_empty()
        && v.len() <= 18
        && v.bytes().all(|c| c.is_ascii_digit())
        && !v.starts_with('0')
    {
        let m: i64 = v.bytes().fold(0, |a, c| a * 10 + (c - b'0') as i64);
        return Ok(Value::Int(if neg { -m } else { m }));
    }
    if v == "0" {
        return Ok(Value::Int(0));
    }
    let signed = |r: PyInt| {
        int_value(
            neg != r.neg && r.mag.to_u64().is_none_or(|m| m != 0),
            &r.mag,
        )
    };
    if let Some(rest) = v.strip_prefix("0b") {
        return py_int(rest, 2).map(signed);
    }
    if let Some(rest) = v.strip_prefix("0x") {
        return py_int(rest, 16).map(signed);
    }
    match v.as_bytes().first() {
        None => return Err("string index out of range".to_string()),
        Some(b'0') => return py_int(v, 8).map(signed),
        _ => {}
    }
    if v.contains(':') {
        // Parts may carry their own signs through an explicit tag, so sum
        // the positive and negative terms apart.
        let parts = v
            .split(':')
            .map(|p| py_int(p, 10))
            .collect::<Result<Vec<_>, _>>()?;
        let mut pos = BigUint::default();
        let mut negs = BigUint::default();
        let mut base = BigUint::from_u64(1);
        let sixty = BigUint::from_u64(60);
        for p in parts.iter().rev() {
            let term = p.mag.mul(&base);
            if p.neg {
                negs.add(&term);
            } else {
                pos.add(&term);
            }
            base = base.mul(&sixty);
            if base.bits() > MAX_INT_BITS {
                return Err("integer is too large for this reader".to_string());
            }
        }
        let (total_neg, mag) = match pos.cmp_mag(&negs) {
            std::cmp::Ordering::Less => (true, negs.sub(&pos)),
            _ => (false, pos.sub(&negs)),
        };
        let zero = mag.to_u64() == Some(0);
        return Ok(int_value((neg != total_neg) && !zero, &mag));
    }
    py_int(v, 10).map(signed)
}

/// What `construct_yaml_float` returns: PyYAML's shared `nan_value` object
/// is told apart because it is one object (it collides with itself as a
/// dict key), unlike each `float('nan')`.
pub(crate) enum FloatOut {
    Num(f64),
    SharedNan,
}

/// `float(s)`.
fn py_float(s: &str) -> Result<f64, String> {
    let t = ascii_number_text(s);
    let ok = !t.contains('?') && {
        let b = t.as_bytes();
        let (_, r) = match b.first() {
            Some(b'-') | Some(b'+') => (true, &b[1..]),
            _ => (false, b),
        };
        let lower = r.to_ascii_lowercase();
        matches!(lower.as_slice(), b"inf" | b"infinity" | b"nan") || {
            let i = skip_while(r, 0, |c| c.is_ascii_digit());
            let (j, frac_digits) = if r.get(i) == Some(&b'.') {
                let j = skip_while(r, i + 1, |c| c.is_ascii_digit());
                (j, j - i - 1)
            } else {
                (i, 0)
            };
            let mantissa_ok = i + frac_digits > 0;
            let end = if j < r.len() && matches!(r[j], b'e' | b'E') {
                let k = match r.get(j + 1) {
                    Some(b'-') | Some(b'+') => j + 2,
                    _ => j + 1,
                };
                let e = skip_while(r, k, |c| c.is_ascii_digit());
                if e == k {
                    usize::MAX
                } else {
                    e
                }
            } else {
                j
            };
            mantissa_ok && end == r.len()
        }
    };
    match (ok, t.parse::<f64>()) {
        (true, Ok(f)) => Ok(f),
        _ => Err(format!(
            "could not convert string to float: {}",
            repr_str(s)
        )),
    }
}

/// `float(60**k)`, correctly rounded like Python's int-to-float.
fn pow60(k: u32) -> Result<f64, String> {
    if k <= 13 {
        return Ok(60f64.powi(k as i32));
    }
    let mut b = BigUint::from_u64(1);
    for _ in 0..k {
        b.mul_add_small(60, 0);
    }
    let f: f64 = b.to_decimal().parse().unwrap_or(f64::INFINITY);
    if f.is_infinite() {
        Err("int too large to convert to float".to_string())
    } else {
        Ok(f)
    }
}

/// `SafeConstructor.construct_yaml_float`.
pub(crate) fn construct_float(text: &str) -> Result<FloatOut, String> {
    // The common case: a plain decimal float, which Rust parses as Python does.
    let b = text.as_bytes();
    if !b.is_empty()
        && b.len() < 64
        && b.iter()
            .all(|&c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e'))
        && b[1..].iter().any(u8::is_ascii_digit)
    {
        if let Ok(f) = text.parse::<f64>() {
            if f.is_finite() {
                return Ok(FloatOut::Num(f));
            }
        }
    }
    let v = text.replace('_', "").to_lowercase();
    let b = v.as_bytes();
    if b.is_empty() {
        return Err("string index out of range".to_string());
    }
    let neg = b[0] == b'-';
    let v = if matches!(b[0], b'-' | b'+') {
        &v[1..]
    } else {
        &v[..]
    };
    let sign = |f: f64| if neg { -f } else { f };
    if v == ".inf" {
        return Ok(FloatOut::Num(sign(f64::INFINITY)));
    }
    if v == ".nan" {
        return Ok(FloatOut::SharedNan);
    }
    if v.contains(':') {
        let parts = v.split(':').map(py_float).collect::<Result<Vec<_>, _>>()?;
        let mut value = 0.0f64;
        for (k, d) in parts.iter().rev().enumerate() {
            value += d * pow60(k as u32)?;
        }
        return Ok(FloatOut::Num(sign(value)));
    }
    py_float(v).map(|f| FloatOut::Num(sign(f)))
}

/// Why `construct_yaml_timestamp` failed: a Python exception other than a
/// YAMLError, as `str(exc)`.
pub(crate) fn construct_timestamp(text: &str) -> Result<Value, String> {
    let b = text.as_bytes();
    let parts = parse_timestamp(b).or_else(|| {
        if b.last() == Some(&b'\n') {
            parse_timestamp(&b[..b.len() - 1])
        } else {
            None
        }
    });
    let Some(p) = parts else {
        return Err("'NoneType' object has no attribute 'groupdict'".to_string());
    };
    let Some(t) = p.time else {
        let date = check_date(p.year, p.month, p.day)?;
        return Ok(Value::Date(date));
    };
    let offset = match t.tz {
        None => None,
        Some(None) => Some(0),
        Some(Some((neg, h, m))) => {
            let secs = (h * 3600 + m * 60) as i64;
            let secs = if neg { -secs } else { secs };
            if secs <= -86_400 || secs >= 86_400 {
                return Err(format!(
                    "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not {}.",
                    timedelta_repr(secs)
                ));
            }
            Some(secs as i32)
        }
    };
    let date = check_date(p.year, p.month, p.day)?;
    if t.hour > 23 {
        return Err("hour must be in 0..23".to_string());
    }
    if t.minute > 59 {
        return Err("minute must be in 0..59".to_string());
    }
    if t.second > 59 {
        return Err("second must be in 0..59".to_string());
    }
    let mut micro = 0u32;
    for i in 0..6 {
        micro = micro * 10 + t.fraction.get(i).map_or(0, |&c| (c - b'0') as u32);
    }
    Ok(Value::DateTime(DateTime {
        date,
        hour: t.hour as u8,
        minute: t.minute as u8,
        second: t.second as u8,
        microsecond: micro,
        offset_seconds: offset,
    }))
}

fn check_date(year: u32, month: u32, day: u32) -> Result<Date, String> {
    if !(1..=9999).contains(&year) {
        return Err(format!("year {year} is out of range"));
    }
    if !(1..=12).contains(&month) {
        return Err("month must be in 1..12".to_string());
    }
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day < 1 || day > days {
        return Err("day is out of range for month".to_string());
    }
    Ok(Date {
        year: year as i32,
        month: month as u8,
        day: day as u8,
    })
}

/// `construct_yaml_binary`: `Err` is the ConstructorError's problem text.
pub(crate) fn construct_binary(text: &str) -> Result<Vec<u8>, String> {
    if let Some((start, c)) = text.chars().enumerate().find(|(_, c)| !c.is_ascii()) {
        let run = text
            .chars()
            .skip(start)
            .take_while(|c| !c.is_ascii())
            .count();
        let what = if run == 1 {
            format!("character '{}' in position {start}", escape_code_point(c))
        } else {
            format!("characters in position {start}-{}", start + run - 1)
        };
        return Err(format!(
            "failed to convert base64 data into ascii: 'ascii' codec can't encode {what}: ordinal not in range(128)"
        ));
    }
    a2b_base64(text.as_bytes()).map_err(|e| format!("failed to decode base64 data: {e}"))
}

/// `binascii.a2b_base64` in its default, non-strict mode: characters
/// outside the alphabet are skipped and a pad ends the data once a quad has
/// at least two characters.
fn a2b_base64(data: &[u8]) -> Result<Vec<u8>, String> {
    fn val(c: u8) -> Option<u8> {
        match c {
            b'A'..=b'Z' => Some(c - b'A'),
            b'a'..=b'z' => Some(c - b'a' + 26),
            b'0'..=b'9' => Some(c - b'0' + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let mut out = Vec::with_capacity(data.len() / 4 * 3);
    let mut quad_pos = 0u32;
    let mut left: u32 = 0;
    let mut pads = 0u32;
    for &c in data {
        if c == b'=' {
            if quad_pos >= 2 {
                pads += 1;
                if quad_pos + pads >= 4 {
                    return Ok(out);
                }
            }
            continue;
        }
        let Some(v) = val(c) else {
            continue;
        };
        let v = v as u32;
        pads = 0;
        match quad_pos {
            0 => {
                quad_pos = 1;
                left = v;
            }
            1 => {
                quad_pos = 2;
                out.push(((left << 2) | (v >> 4)) as u8);
                left = v & 0x0f;
            }
            2 => {
                quad_pos = 3;
                out.push(((left << 4) | (v >> 2)) as u8);
                left = v & 0x03;
            }
            _ => {
                quad_pos = 0;
                out.push(((left << 6) | v) as u8);
                left = 0;
            }
        }
    }
    match quad_pos {
        0 => Ok(out),
        1 => Err(format!(
            "Invalid base64-encoded string: number of data characters ({}) cannot be 1 more than a multiple of 4",
            out.len() / 3 * 4 + 1
        )),
        _ => Err("Incorrect padding".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolvers() {
        for (s, t) in [
            ("", Tag::Null),
            ("~", Tag::Null),
            ("NULL", Tag::Null),
            ("nULL", Tag::Str),
            ("yes", Tag::Bool),
            ("On", Tag::Bool),
            ("oN", Tag::Str),
            ("1.5", Tag::Float),
            ("1.5e5", Tag::Str),
            ("1.5e+5", Tag::Float),
            ("._5", Tag::Str),
            (".5", Tag::Float),
            ("-.inf", Tag::Float),
            ("-.nan", Tag::Str),
            ("1:30.5", Tag::Float),
            ("1:60.5", Tag::Str),
            ("1:30", Tag::Int),
            ("0:30", Tag::Str),
            ("017", Tag::Int),
            ("09", Tag::Str),
            ("0x_", Tag::Int),
            ("0b", Tag::Str),
            ("2024-01-01", Tag::Timestamp),
            ("2024-1-01", Tag::Str),
            ("2024-1-1 1:00:00", Tag::Timestamp),
            ("2024-01-01 10:00:00 +0530", Tag::Str),
            ("<<", Tag::Merge),
            ("=", Tag::Value),
            ("12\n", Tag::Int),
        ] {
            assert_eq!(resolve_plain(s), t, "{s:?}");
        }
    }

    #[test]
    fn ints() {
        assert_eq!(construct_int("0b101").unwrap(), Value::Int(5));
        assert_eq!(construct_int("-0x_1F").unwrap(), Value::Int(-31));
        assert_eq!(construct_int("017").unwrap(), Value::Int(15));
        assert_eq!(construct_int("190:20:30").unwrap(), Value::Int(685230));
        assert_eq!(
            construct_int("-9223372036854775808").unwrap(),
            Value::Int(i64::MIN)
        );
        assert_eq!(
            construct_int("9223372036854775808").unwrap(),
            Value::BigInt("9223372036854775808".into())
        );
        assert_eq!(construct_int("1:-30").unwrap(), Value::Int(30));
        assert_eq!(
            construct_int("0b_").unwrap_err(),
            "invalid literal for int() with base 2: ''"
        );
    }

    #[test]
    fn base64() {
        assert_eq!(a2b_base64(b"aGVsbG8=").unwrap(), b"hello");
        assert_eq!(a2b_base64(b"ab==c").unwrap(), b"i");
        assert_eq!(a2b_base64(b"abc").unwrap_err(), "Incorrect padding");
    }
}
