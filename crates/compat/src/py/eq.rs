//! Python's `==` between loaded values.

use crate::value::pydict::norm;
use crate::value::Value;

/// Python's `a == b` between loaded values, exactly: numbers compare by value across `bool`,
/// `int` (big ones too) and `float` with no rounding through `f64` (`2**53 + 1 != 2.0**53`),
/// NaN equals nothing, aware datetimes are equal at the same instant, a naive datetime never
/// equals an aware one, and a `date` never equals a `datetime`. Lists and dicts compare by
/// their elements as [`seq_eq`] says.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Seq(x), Value::Seq(y)) => seq_eq(x, y),
        (Value::Map(x), Value::Map(y)) => {
            // dict ==: the same size, and every key of one found in the other (keys are
            // unique under this equality) with an equal value.
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .find(|(k2, _)| element_eq(k, k2))
                        .is_some_and(|(_, v2)| element_eq(v, v2))
                })
        }
        (Value::Seq(_) | Value::Map(_), _) | (_, Value::Seq(_) | Value::Map(_)) => false,
        (Value::Float(f), _) | (_, Value::Float(f)) if f.is_nan() => false,
        _ => norm(a, 0) == norm(b, 0),
    }
}

/// Python's `==` between two lists.
pub fn seq_eq(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(i, j)| element_eq(i, j))
}

/// How a list or dict compares its elements: `PyObject_RichCompareBool`, which takes an
/// object as equal to itself before asking `==`. A `Value` keeps no object identity; the NaNs
/// a loaded file holds are PyYAML's one shared `nan_value`, so here a NaN equals a NaN.
fn element_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) if x.is_nan() && y.is_nan() => true,
        _ => py_eq(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Date, DateTime};

    fn int(i: i64) -> Value {
        Value::Int(i)
    }

    fn float(f: f64) -> Value {
        Value::Float(f)
    }

    fn big(s: &str) -> Value {
        Value::BigInt(s.to_string())
    }

    fn date(day: u8) -> Date {
        Date {
            year: 2024,
            month: 1,
            day,
        }
    }

    fn datetime(day: u8, hour: u8, offset_seconds: Option<i32>) -> Value {
        Value::DateTime(DateTime {
            date: date(day),
            hour,
            minute: 0,
            second: 0,
            microsecond: 0,
            offset_seconds,
        })
    }

    #[test]
    fn numbers_compare_exactly() {
        let two_53 = 1i64 << 53;
        // 2**53 + 1 == 2.0**53 is False: the int is not rounded to the float.
        assert!(!py_eq(&int(two_53 + 1), &float(two_53 as f64)));
        assert!(py_eq(&int(two_53), &float(two_53 as f64)));
        assert!(!py_eq(&int(i64::MAX), &float(9_223_372_036_854_775_807.0)));
        // 1 == 1.0, True == 1, False == 0 == -0.0, True != 2.
        assert!(py_eq(&int(1), &float(1.0)));
        assert!(py_eq(&Value::Bool(true), &int(1)));
        assert!(py_eq(&Value::Bool(true), &float(1.0)));
        assert!(py_eq(&Value::Bool(false), &float(-0.0)));
        assert!(!py_eq(&Value::Bool(true), &int(2)));
        assert!(!py_eq(&float(0.5), &int(0)));
        // Big ints: equal to the float of the same exact value only.
        assert!(py_eq(&big("18446744073709551616"), &float(2f64.powi(64))));
        assert!(!py_eq(&big("18446744073709551617"), &float(2f64.powi(64))));
        assert!(py_eq(
            &big("-18446744073709551616"),
            &float(-(2f64.powi(64)))
        ));
        assert!(!py_eq(&big("18446744073709551616"), &int(i64::MAX)));
        assert!(py_eq(
            &big("18446744073709551616"),
            &big("18446744073709551616")
        ));
        assert!(py_eq(&float(f64::INFINITY), &float(f64::INFINITY)));
        assert!(!py_eq(&float(f64::INFINITY), &big("18446744073709551616")));
    }

    #[test]
    fn nan_equals_nothing() {
        let nan = float(f64::NAN);
        assert!(!py_eq(&nan, &nan));
        assert!(!py_eq(&nan, &int(0)));
        // Inside a list, PyYAML's one NaN object is equal to itself.
        assert!(seq_eq(&[float(f64::NAN)], &[float(f64::NAN)]));
        assert!(py_eq(
            &Value::map(vec![(nan.clone(), int(1))]),
            &Value::map(vec![(nan, float(1.0))])
        ));
    }

    #[test]
    fn dates_and_datetimes() {
        let d = Value::Date(date(1));
        assert!(py_eq(&d, &Value::Date(date(1))));
        // A date never equals a datetime, not even at midnight of that day.
        assert!(!py_eq(&d, &datetime(1, 0, None)));
        // Aware datetimes: the same instant in two offsets is equal.
        assert!(py_eq(
            &datetime(1, 10, Some(3600)),
            &datetime(1, 9, Some(0))
        ));
        assert!(py_eq(
            &datetime(2, 0, Some(0)),
            &datetime(1, 23, Some(-3600))
        ));
        assert!(!py_eq(
            &datetime(1, 10, Some(3600)),
            &datetime(1, 10, Some(0))
        ));
        // Naive and aware are never equal (no TypeError for ==).
        assert!(!py_eq(&datetime(1, 9, None), &datetime(1, 9, Some(0))));
        assert!(py_eq(&datetime(1, 9, None), &datetime(1, 9, None)));
    }

    #[test]
    fn containers_and_kinds() {
        let s = |x: &str| Value::Str(x.to_string());
        assert!(!py_eq(&s("1"), &int(1)));
        assert!(!py_eq(&s("a"), &Value::Bytes(b"a".to_vec())));
        assert!(py_eq(&Value::Null, &Value::Null));
        assert!(!py_eq(&Value::Null, &int(0)));
        assert!(py_eq(
            &Value::seq(vec![int(1), s("a")]),
            &Value::seq(vec![float(1.0), s("a")])
        ));
        assert!(!py_eq(&Value::seq(vec![int(1)]), &Value::seq(vec![])));
        assert!(!py_eq(&Value::seq(vec![]), &Value::map(vec![])));
        // Dicts compare as mappings, whatever their order.
        assert!(py_eq(
            &Value::map(vec![(s("a"), int(1)), (int(1), s("b"))]),
            &Value::map(vec![(Value::Bool(true), s("b")), (s("a"), float(1.0))])
        ));
        assert!(!py_eq(
            &Value::map(vec![(s("a"), int(1))]),
            &Value::map(vec![(s("a"), int(2))])
        ));
    }
}
