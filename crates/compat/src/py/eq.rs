//! Python's `==` between loaded values.

use crate::value::Value;

/// Python `==` between loaded values: numbers compare across int, float and bool.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Seq(x), Value::Seq(y)) => seq_eq(x, y),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| py_eq(k, k2) && py_eq(v, v2)))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

/// Python `==` between two lists.
pub fn seq_eq(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(i, j)| py_eq(i, j))
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}
