//! Freshness verdicts for list_tables detail: each table's threshold (its recorded
//! `max_age_days`, else the config's cascade) against its `profiled_at` age.

use super::value::dict;
use crate::config::ConnectionConfig;
use compat::value::{DateTime, Value};

/// Seconds since the Unix epoch, with microseconds, as Python's `datetime.now(UTC)`.
pub fn now_micros() -> i128 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    d.as_micros() as i128
}

/// Days from the civil date to 1970-01-01 (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// An aware instant in microseconds since the epoch; naive reads as UTC.
fn instant_micros(dt: &DateTime) -> i128 {
    let days = days_from_civil(
        dt.date.year as i64,
        dt.date.month as i64,
        dt.date.day as i64,
    ) as i128;
    let secs = days * 86_400 + dt.hour as i128 * 3600 + dt.minute as i128 * 60 + dt.second as i128
        - dt.offset_seconds.unwrap_or(0) as i128;
    secs * 1_000_000 + dt.microsecond as i128
}

fn digits(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn valid_date(y: u32, m: u32, d: u32) -> bool {
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let dim = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    (1..=9999).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= dim[(m - 1) as usize]
}

/// The subset of Python 3.13 `datetime.fromisoformat` a print's `profiled_at` uses:
/// `YYYY-MM-DD`, then `T` or a space and `HH[:MM[:SS[.f+]]]`, then `Z` or `±HH:MM[:SS]`.
pub fn parse_isoformat(text: &str) -> Option<DateTime> {
    let b = text.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (
        digits(&text[0..4])?,
        digits(&text[5..7])?,
        digits(&text[8..10])?,
    );
    if !valid_date(y, m, d) {
        return None;
    }
    let mut dt = DateTime {
        date: compat::value::Date {
            year: y as i32,
            month: m as u8,
            day: d as u8,
        },
        hour: 0,
        minute: 0,
        second: 0,
        microsecond: 0,
        offset_seconds: None,
    };
    let rest = &text[10..];
    if rest.is_empty() {
        return Some(dt);
    }
    if !text.is_char_boundary(11) {
        return None;
    }
    let sep = rest.as_bytes()[0];
    if sep != b'T' && sep != b' ' {
        return None;
    }
    let time = &rest[1..];
    let tz_at = time.find(['Z', '+', '-']).unwrap_or(time.len());
    let (clock, tz) = time.split_at(tz_at);
    let (hms, frac) = match clock.split_once(['.', ',']) {
        Some((a, f)) => (a, Some(f)),
        None => (clock, None),
    };
    let fields: Vec<&str> = hms.split(':').collect();
    if fields.is_empty() || fields.len() > 3 || fields.iter().any(|f| f.len() != 2) {
        return None;
    }
    dt.hour = digits(fields[0])? as u8;
    dt.minute = fields.get(1).map(|f| digits(f)).unwrap_or(Some(0))? as u8;
    dt.second = fields.get(2).map(|f| digits(f)).unwrap_or(Some(0))? as u8;
    if dt.hour > 23 || dt.minute > 59 || dt.second > 59 {
        return None;
    }
    if let Some(f) = frac {
        if fields.len() != 3 || f.is_empty() || !f.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let mut us = f.chars().take(6).collect::<String>();
        while us.len() < 6 {
            us.push('0');
        }
        dt.microsecond = us.parse().ok()?;
    }
    if tz == "Z" {
        dt.offset_seconds = Some(0);
    } else if !tz.is_empty() {
        let sign = if tz.starts_with('-') { -1 } else { 1 };
        let parts: Vec<&str> = tz[1..].split(':').collect();
        let h = digits(parts.first()?)? as i32;
        let mi = parts.get(1).map(|p| digits(p)).unwrap_or(Some(0))? as i32;
        let s = parts.get(2).map(|p| digits(p)).unwrap_or(Some(0))? as i32;
        if h > 23 || mi > 59 || s > 59 || parts.iter().any(|p| p.len() != 2) {
            return None;
        }
        dt.offset_seconds = Some(sign * (h * 3600 + mi * 60 + s));
    }
    Some(dt)
}

/// Days between `profiled_at` and `now`; `None` when absent or unreadable.
pub fn age_days(profiled_at: Option<&Value>, now: i128) -> Option<f64> {
    let prior = match profiled_at? {
        Value::DateTime(dt) => *dt,
        Value::Str(s) if !s.is_empty() => parse_isoformat(s)?,
        _ => return None,
    };
    // timedelta.total_seconds(): exact microseconds divided once.
    let micros = now - instant_micros(&prior);
    Some((micros as f64 / 1e6) / 86_400.0)
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::BigInt(s) => s.parse().ok(),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// `int(x) if x.is_integer() else x`.
fn threshold_value(x: f64) -> Value {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.2e18 {
        Value::Int(x as i64)
    } else {
        Value::Float(x)
    }
}

/// The verdict keys one entry carries, and whether its threshold ignored a `min_rows` rule.
pub fn verdict(
    conn: &ConnectionConfig,
    fqn: &str,
    entry: &Value,
    now: i128,
) -> (Vec<(Value, Value)>, bool) {
    let recorded = entry.get("max_age_days");
    let mut size_gated = false;
    let threshold = match recorded.and_then(number) {
        Some(days) => {
            let shown = compat::py::str_of(recorded.unwrap_or(&Value::Null));
            if days < 0.0 {
                let cause = format!(
                    "{fqn}: max_age_days is {shown}, which no print can ever satisfy: every table re-extracts on every run and check reports every one of them stale. Use 0 to ask for that deliberately, or a positive number of days."
                );
                return (
                    vec![(Value::Str("threshold_error".into()), Value::Str(cause))],
                    false,
                );
            }
            if days.fract() != 0.0 || !days.is_finite() {
                let cause =
                    format!("{fqn}: max_age_days is {shown}, which is not a whole number of days.");
                return (
                    vec![(Value::Str("threshold_error".into()), Value::Str(cause))],
                    false,
                );
            }
            days
        }
        None => {
            let entry_type = entry.get("type").and_then(Value::as_str);
            if entry_type != Some("view")
                && entry
                    .get("row_count")
                    .is_some_and(|v| !matches!(v, Value::Null))
                && conn.min_rows_conditions_name(fqn)
            {
                size_gated = true;
            }
            conn.max_age_days_for(fqn)
        }
    };
    let age = age_days(entry.get("profiled_at"), now);
    let (verdict, age_value) = match age {
        None => ("dormant", Value::Null),
        Some(a) if a >= threshold => ("stale", Value::Float(compat::py::py_round(a, 2))),
        Some(a) => ("live", Value::Float(compat::py::py_round(a, 2))),
    };
    let pairs = match dict([
        ("freshness", Value::Str(verdict.into())),
        ("age_days", age_value),
        ("max_age_days", threshold_value(threshold)),
    ]) {
        Value::Map(p) => std::sync::Arc::unwrap_or_clone(p),
        _ => Vec::new(),
    };
    (pairs, size_gated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isoformat_accepts_what_python_accepts() {
        let z = parse_isoformat("2026-11-29T18:27:31Z").unwrap();
        assert_eq!(
            (z.hour, z.minute, z.second, z.offset_seconds),
            (18, 27, 31, Some(0))
        );
        let naive = parse_isoformat("2026-11-29 18:27").unwrap();
        assert_eq!(
            (naive.hour, naive.minute, naive.offset_seconds),
            (18, 27, None)
        );
        let date_only = parse_isoformat("2026-11-29").unwrap();
        assert_eq!((date_only.hour, date_only.offset_seconds), (0, None));
        let offset = parse_isoformat("2026-11-29T10:00:00.5+05:30").unwrap();
        assert_eq!(
            (offset.microsecond, offset.offset_seconds),
            (500_000, Some(19_800))
        );
        for bad in [
            "",
            "garbage",
            "2026-02-30",
            "2026-11-29T25:00:00",
            "2026-11-29X10:00",
            "2026-11-29T10:00:00+5",
        ] {
            assert!(parse_isoformat(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn age_reads_naive_as_utc_and_unreadable_as_none() {
        let epoch_day = 86_400_000_000i128;
        let aware = Value::Str("1970-01-02T00:00:00Z".into());
        let naive = Value::Str("1970-01-02T00:00:00".into());
        assert_eq!(age_days(Some(&aware), 3 * epoch_day), Some(2.0));
        assert_eq!(age_days(Some(&naive), 3 * epoch_day), Some(2.0));
        assert_eq!(age_days(Some(&Value::Str("soon".into())), 0), None);
        assert_eq!(age_days(Some(&Value::Int(5)), 0), None);
        assert_eq!(age_days(None, 0), None);
    }

    #[test]
    fn civil_days_match_the_calendar() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
    }
}
