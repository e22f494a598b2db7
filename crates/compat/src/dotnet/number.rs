//! .NET's invariant-culture numbers: `long.TryParse` / `double.TryParse` as YamlDotNet's
//! scalar typing calls them, and `double.ToString()` (which `Utf8JsonWriter` also writes).

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
pub fn double_text(d: f64) -> String {
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
            (-0.0, "-0"),
        ] {
            assert_eq!(double_text(d), text, "{d}");
        }
    }
}
