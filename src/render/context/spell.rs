//! How the Markdown spells numbers and values: positional numbers as statistics.yaml writes
//! them, percentages that never round a partial share onto 0% or 100%, SQL literals, and
//! table cells that cannot break a row. The reference raises on a value no artifact holds
//! (a list where a scalar belongs); those surface as the call's error text, as there.

use crate::error::QueryError;
use crate::query::context::read::ScanScope;
pub use crate::query::context::read::{collapse, is_number};
pub use crate::query::context::R;
use compat::py::float_repr;
use compat::value::Value;
use compat::yaml::emit::{self, double_quoted, escaped};

use crate::ingest::reading::scope::{
    SAMPLED_STATEMENT, SCANNED_CLAUSE, SCANNED_DOMAIN_STATEMENT as SCANNED_DOMAIN,
    WHOLE_DOMAIN_STATEMENT as WHOLE_DOMAIN,
};

fn type_error(message: String) -> QueryError {
    QueryError::Other(message)
}

/// `scalar_text`: the artifact's own spelling of a scalar.
pub fn scalar_text(v: &Value) -> R<String> {
    emit::scalar_text(v).ok_or_else(|| {
        type_error(format!(
            "no artifact spelling for a {} value",
            v.py_type_name()
        ))
    })
}

/// `spell_number`: a statistic or count, positional, never an exponent.
pub fn spell_number(v: &Value) -> R<String> {
    if !is_number(v) {
        return Err(type_error(format!("not a number: {}", v.py_type_name())));
    }
    scalar_text(v)
}

/// A decimal number as `Decimal` holds it: sign, coefficient digits, exponent.
struct Dec {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Dec {
    /// `Decimal(repr(f))`.
    fn of_float(f: f64) -> Dec {
        let r = float_repr(f);
        let (negative, body) = match r.strip_prefix('-') {
            Some(rest) => (true, rest.to_string()),
            None => (false, r.clone()),
        };
        let (mantissa, exp) = match body.split_once('e') {
            Some((m, e)) => (m.to_string(), e.parse::<i64>().unwrap_or(0)),
            None => (body.clone(), 0),
        };
        let (int_part, frac) = mantissa.split_once('.').unwrap_or((&mantissa, ""));
        Dec {
            negative,
            digits: format!("{int_part}{frac}"),
            exponent: exp - frac.len() as i64,
        }
    }

    fn of_int_text(text: &str) -> Dec {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest.to_string()),
            None => (false, text.to_string()),
        };
        Dec {
            negative,
            digits,
            exponent: 0,
        }
    }
}

fn trim_zeros(s: &str) -> &str {
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0"
    } else {
        t
    }
}

/// `digits * 10^shift` rounded half-even to an integer: (digits, exact).
fn scaled_round(digits: &str, shift: i64) -> (String, bool) {
    if shift >= 0 {
        let mut s = digits.to_string();
        s.push_str(&"0".repeat(shift as usize));
        return (trim_zeros(&s).to_string(), true);
    }
    let k = (-shift) as usize;
    let (quotient, remainder) = if k >= digits.len() {
        (
            "0".to_string(),
            format!("{}{}", "0".repeat(k - digits.len()), digits),
        )
    } else {
        let (q, r) = digits.split_at(digits.len() - k);
        (q.to_string(), r.to_string())
    };
    let exact = remainder.bytes().all(|b| b == b'0');
    let first = remainder.as_bytes()[0];
    let rest_zero = remainder.bytes().skip(1).all(|b| b == b'0');
    let last_odd = quotient.bytes().last().is_some_and(|b| (b - b'0') % 2 == 1);
    let up = first > b'5' || (first == b'5' && (!rest_zero || last_odd));
    let quotient = trim_zeros(&quotient).to_string();
    (if up { increment(&quotient) } else { quotient }, exact)
}

fn increment(digits: &str) -> String {
    let mut bytes: Vec<u8> = digits.bytes().collect();
    let mut i = bytes.len();
    loop {
        if i == 0 {
            bytes.insert(0, b'1');
            break;
        }
        i -= 1;
        if bytes[i] == b'9' {
            bytes[i] = b'0';
        } else {
            bytes[i] += 1;
            break;
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// `spell_percent`: one decimal, half-even, with more places while a share strictly between
/// 0 and 1 would read 0% or 100%; trailing zeros stripped.
pub fn spell_percent(v: &Value) -> R<String> {
    let dec = match v {
        Value::Float(f) if !f.is_finite() => return Ok(format!("{}%", scalar_text(v)?)),
        Value::Float(f) => Dec::of_float(*f),
        Value::Int(i) => Dec::of_int_text(&i.to_string()),
        Value::BigInt(s) => Dec::of_int_text(s),
        other => {
            return Err(type_error(format!(
                "not a number: {}",
                other.py_type_name()
            )))
        }
    };
    // `percent = exact * 100` keeps the exponent; its own digits are the places it carries.
    let own_digits = (-dec.exponent).max(1);
    let hundred_at = |places: i64| format!("1{}", "0".repeat((2 + places) as usize));
    let mut places = 1i64;
    let (mut n, mut exact) = scaled_round(&dec.digits, dec.exponent + 2 + places);
    while (n == "0" || n == hundred_at(places)) && !exact && places < own_digits {
        places += 1;
        (n, exact) = scaled_round(&dec.digits, dec.exponent + 2 + places);
    }
    let p = places as usize;
    let padded = if n.len() <= p {
        format!("{}{}", "0".repeat(p + 1 - n.len()), n)
    } else {
        n.clone()
    };
    let (int_part, frac) = padded.split_at(padded.len() - p);
    let text = format!("{int_part}.{frac}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    let negative = dec.negative && n != "0";
    Ok(if negative {
        format!("-{text}%")
    } else {
        format!("{text}%")
    })
}

/// `spell_percent` of a float ratio.
pub fn percent(ratio: f64) -> String {
    spell_percent(&Value::Float(ratio)).unwrap_or_default()
}

/// `spell_literal`: an SQL literal; numbers, booleans and NULL bare, a string holding an
/// invisible character double-quoted with escapes.
pub fn spell_literal(v: &Value) -> R<String> {
    Ok(match v {
        Value::Null => "NULL".into(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Int(_) | Value::BigInt(_) | Value::Float(_) => scalar_text(v)?,
        Value::Str(s) => str_literal(s),
        other => format!("'{}'", scalar_text(other)?.replace('\'', "''")),
    })
}

pub fn str_literal(s: &str) -> String {
    if s.chars().any(escaped) {
        double_quoted(s)
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// `spell_value`: `NULL` for a genuine null, else `spell_inline`.
pub fn spell_value(v: &Value) -> R<String> {
    if *v == Value::Null {
        return Ok("NULL".into());
    }
    spell_inline(v)
}

/// `spell_inline`: one line `yaml.safe_load` reads back as the value.
pub fn spell_inline(v: &Value) -> R<String> {
    compat::yaml::emit::try_flow_inline(v).map_err(|e| type_error(e.to_string()))
}

/// `_statistic`: a number positional, anything else as a literal.
pub fn statistic(v: &Value) -> R<String> {
    if is_number(v) {
        spell_number(v)
    } else {
        spell_literal(v)
    }
}

/// `_escape_cell`: safe inside one Markdown table cell; the backslash first, or an escaped
/// pipe would leave a live delimiter behind it.
pub fn escape_cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
}

/// `enum_word`: `long_tail` reads `long tail`.
pub fn enum_word(value: &str) -> String {
    value.replace('_', " ")
}

// The scan scope, spelled.

/// `qualify`: a claim one unread row could falsify carries the scanned clause.
pub fn qualify(text: &str, scope: Option<&ScanScope>) -> String {
    match scope {
        None => text.to_string(),
        Some(_) => format!("{text} {SCANNED_CLAUSE}"),
    }
}

pub fn coverage_statement(coverage: f64, scope: Option<&ScanScope>) -> &'static str {
    if coverage != 1.0 {
        SAMPLED_STATEMENT
    } else if scope.is_some() {
        SCANNED_DOMAIN
    } else {
        WHOLE_DOMAIN
    }
}

/// The `Scanned:` header line.
pub fn scope_line(scope: &ScanScope) -> String {
    let scanned = match (scope.rows_scanned, scope.share, scope.row_count) {
        (None, _, _) => "part of the table".to_string(),
        (Some(rows), Some(share), Some(total)) => {
            format!("{rows} of {total} rows ({})", percent(share))
        }
        (Some(rows), _, _) => format!("{rows} rows"),
    };
    let narrowing = if scope.sample.is_some() {
        "; sampled".to_string()
    } else {
        match &scope.filter {
            Some(f) if !compat::py::strip(f).is_empty() => format!("; filtered by `{f}`"),
            _ => String::new(),
        }
    };
    format!("Scanned: {scanned}{narrowing}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(f: f64) -> String {
        percent(f)
    }

    #[test]
    fn percentages_never_round_onto_the_ends() {
        assert_eq!(p(0.4), "40%");
        assert_eq!(p(0.0667), "6.7%");
        assert_eq!(p(0.0004), "0.04%");
        assert_eq!(p(0.999), "99.9%");
        assert_eq!(p(0.9999), "99.99%");
        assert_eq!(p(1.0), "100%");
        assert_eq!(p(0.0), "0%");
        assert_eq!(p(-0.0), "0%");
        assert_eq!(p(1e-05), "0.001%");
        assert_eq!(p(0.00025), "0.02%");
        assert_eq!(p(0.00015), "0.02%");
        assert_eq!(p(0.125), "12.5%");
        assert_eq!(p(0.0125), "1.2%");
        assert_eq!(p(0.0135), "1.4%");
        assert_eq!(spell_percent(&Value::Int(1)).unwrap(), "100%");
        assert_eq!(p(f64::NAN), ".nan%");
    }

    /// Vectors recorded from the reference's own `spell_percent` / `spell_number`.
    #[test]
    fn matches_the_reference_on_recorded_vectors() {
        for line in include_str!("spell_vectors.txt").lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let x: f64 = cols[0].parse().unwrap();
            assert_eq!(p(x), cols[1], "spell_percent({})", cols[0]);
            assert_eq!(
                spell_number(&Value::Float(x)).unwrap(),
                cols[2],
                "spell_number({})",
                cols[0]
            );
        }
    }

    #[test]
    fn numbers_and_literals() {
        assert_eq!(spell_number(&Value::Float(1e-05)).unwrap(), "0.00001");
        assert_eq!(
            spell_number(&Value::Float(1e16)).unwrap(),
            "10000000000000000.0"
        );
        assert_eq!(spell_number(&Value::Float(2.0)).unwrap(), "2.0");
        assert_eq!(spell_number(&Value::Int(-1)).unwrap(), "-1");
        assert!(spell_number(&Value::Bool(true)).is_err());
        assert_eq!(
            spell_literal(&Value::Str("it's".into())).unwrap(),
            "'it''s'"
        );
        assert_eq!(
            spell_literal(&Value::Str("Tab\there".into())).unwrap(),
            "\"Tab\\there\""
        );
        assert_eq!(spell_literal(&Value::Null).unwrap(), "NULL");
        assert_eq!(escape_cell("\"Tab\\there\""), "\"Tab\\\\there\"");
        assert_eq!(escape_cell("a|b\r\nc"), "a\\|b c");
    }
}
