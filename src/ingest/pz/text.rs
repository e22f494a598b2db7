//! .NET's text conventions that pz's answers depend on: ordinal (UTF-16 code unit)
//! comparison, `File.ReadAllText`'s decoding, `long.TryParse`/`double.TryParse` under the
//! invariant culture, and `double.ToString()` (which `Utf8JsonWriter` also writes).

use std::cmp::Ordering;

/// `StringComparer.Ordinal`: UTF-16 code units, which differs from Rust's `str` order only
/// when a character above U+FFFF meets one in U+E000..=U+FFFF.
pub fn ordinal_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// `File.ReadAllText`/`StreamReader`: a UTF-8 byte-order mark is dropped and invalid bytes
/// become U+FFFD. (A UTF-16/32 byte-order mark would switch .NET's decoder; such files are
/// read here as UTF-8, a difference far from real pz projects.)
pub fn decode_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// `char.IsWhiteSpace`.
pub fn is_dotnet_space(c: char) -> bool {
    c.is_whitespace()
}

/// The white space `NumberStyles.AllowLeadingWhite`/`AllowTrailingWhite` accept.
fn is_number_space(c: char) -> bool {
    matches!(c, ' ' | '\t'..='\r')
}

/// `long.TryParse(s, NumberStyles.Integer, InvariantCulture)`.
pub fn parse_long(s: &str) -> Option<i64> {
    let t = s.trim_matches(is_number_space);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude: i128 = digits.parse().ok()?;
    let v = if neg { -magnitude } else { magnitude };
    i64::try_from(v).ok()
}

/// `double.TryParse(s, NumberStyles.Float, InvariantCulture)`: sign, digits with one
/// optional point, optional exponent, or the invariant `NaN`/`Infinity` symbols.
pub fn parse_double(s: &str) -> Option<f64> {
    let t = s.trim_matches(is_number_space);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    if body.eq_ignore_ascii_case("infinity") || body == "\u{221e}" {
        return Some(sign * f64::INFINITY);
    }
    if body.eq_ignore_ascii_case("nan") {
        return Some(f64::NAN);
    }
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        let start = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j == start {
            return None;
        }
        i = j;
    }
    if i != bytes.len() {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}

/// A finite double as .NET Core 3.0+ formats it by default (`double.ToString()`, and
/// `Utf8JsonWriter`): the shortest digits that round-trip, fixed notation for decimal
/// exponents -4..=14, otherwise `d.dddE+XX` with at least two exponent digits.
pub fn dotnet_double(d: f64) -> String {
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{:e}", d.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if d < 0.0 { "-" } else { "" };
    if (-4..15).contains(&exp) {
        let point = exp + 1;
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        return format!("{sign}{text}");
    }
    let (head, tail) = digits.split_at(1);
    let frac = if tail.is_empty() {
        String::new()
    } else {
        format!(".{tail}")
    };
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{head}{frac}E{esign}{:02}", exp.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_as_dotnet() {
        assert_eq!(parse_long(" +12 "), Some(12));
        assert_eq!(parse_long("017"), Some(17));
        assert_eq!(parse_long("0x1F"), None);
        assert_eq!(parse_long("1_000"), None);
        assert_eq!(parse_long("9223372036854775808"), None);
        assert_eq!(parse_double("1e5"), Some(100000.0));
        assert_eq!(parse_double(".5"), Some(0.5));
        assert_eq!(parse_double("5."), Some(5.0));
        assert_eq!(parse_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_double(".inf"), None);
        assert_eq!(parse_double("1e"), None);
        assert_eq!(parse_double("abc"), None);
    }

    #[test]
    fn ordinal_is_utf16() {
        assert_eq!(ordinal_cmp("a", "b"), Ordering::Less);
        // U+10000 encodes as a surrogate (0xD800) and sorts before U+E000 in UTF-16.
        assert_eq!(ordinal_cmp("\u{10000}", "\u{E000}"), Ordering::Less);
        assert_eq!(decode_text(b"\xEF\xBB\xBFx\xFF"), "x\u{FFFD}");
    }
}
