//! A `dict` keyed the way Python compares keys: `1 == 1.0 == True`, aware
//! datetimes equal at the same instant, NaN equal only to the same object.

use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::bigint::float_integer_decimal;
use super::Value;

/// A key with the identity Python would compare NaNs by: 0 for anything
/// that is not a NaN, otherwise a token equal only for the same object.
#[derive(Debug, Clone)]
pub(crate) struct Key {
    pub value: Value,
    pub nan_id: u64,
}

/// What a hashable value equals under Python's `==`, normalised so that equal values compare
/// and hash alike (`crate::py::py_eq` compares scalars by it too).
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) enum Norm<'a> {
    Null,
    Int(i64),
    BigInt(Cow<'a, str>),
    Float(u64),
    Nan(u64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Date(i32, u8, u8),
    Naive(i32, u8, u8, u8, u8, u8, u32),
    Aware(i64, u32),
    /// Containers are never keys (unhashable); kept total for safety.
    Unhashable,
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The normal form of a scalar; `nan_id` tells NaN objects apart (see [`Key`]).
pub(crate) fn norm(value: &Value, nan_id: u64) -> Norm<'_> {
    match value {
        Value::Null => Norm::Null,
        Value::Bool(b) => Norm::Int(*b as i64),
        Value::Int(i) => Norm::Int(*i),
        Value::BigInt(s) => Norm::BigInt(Cow::Borrowed(s)),
        Value::Float(f) => {
            let f = *f;
            if f.is_nan() {
                Norm::Nan(nan_id)
            } else if f.is_finite() && f.fract() == 0.0 {
                if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
                    Norm::Int(f as i64)
                } else {
                    Norm::BigInt(Cow::Owned(float_integer_decimal(f)))
                }
            } else {
                Norm::Float(f.to_bits())
            }
        }
        Value::Str(s) => Norm::Str(s),
        Value::Bytes(b) => Norm::Bytes(b),
        Value::Date(d) => Norm::Date(d.year, d.month, d.day),
        Value::DateTime(dt) => match dt.offset_seconds {
            None => Norm::Naive(
                dt.date.year,
                dt.date.month,
                dt.date.day,
                dt.hour,
                dt.minute,
                dt.second,
                dt.microsecond,
            ),
            Some(off) => {
                let days = days_from_civil(
                    dt.date.year as i64,
                    dt.date.month as i64,
                    dt.date.day as i64,
                );
                let secs = days * 86_400
                    + dt.hour as i64 * 3600
                    + dt.minute as i64 * 60
                    + dt.second as i64
                    - off as i64;
                Norm::Aware(secs, dt.microsecond)
            }
        },
        Value::Seq(_) | Value::Map(_) => Norm::Unhashable,
    }
}

fn hash_of(k: &Key) -> u64 {
    let mut h = DefaultHasher::new();
    norm(&k.value, k.nan_id).hash(&mut h);
    h.finish()
}

/// Below this size a linear scan beats hashing.
const INDEX_FROM: usize = 12;

/// Insertion-ordered entries with Python's `d[k] = v` semantics: an equal
/// key keeps its first object and position and takes the new value.
#[derive(Debug, Default)]
pub(crate) struct PyDict<V> {
    pub entries: Vec<(Key, V)>,
    index: Option<HashMap<u64, Vec<u32>>>,
}

impl<V> PyDict<V> {
    pub(crate) fn new() -> Self {
        PyDict {
            entries: Vec::new(),
            index: None,
        }
    }

    pub(crate) fn insert(&mut self, key: Key, value: V) {
        if let Some(i) = self.find(&key) {
            self.entries[i].1 = value;
            return;
        }
        if let Some(index) = &mut self.index {
            index
                .entry(hash_of(&key))
                .or_default()
                .push(self.entries.len() as u32);
        }
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() >= INDEX_FROM {
            let mut index: HashMap<u64, Vec<u32>> = HashMap::new();
            for (i, (k, _)) in self.entries.iter().enumerate() {
                index.entry(hash_of(k)).or_default().push(i as u32);
            }
            self.index = Some(index);
        }
    }

    fn find(&self, key: &Key) -> Option<usize> {
        let n = norm(&key.value, key.nan_id);
        let same = |k: &Key| norm(&k.value, k.nan_id) == n;
        match &self.index {
            None => self.entries.iter().position(|(k, _)| same(k)),
            Some(index) => {
                let mut h = DefaultHasher::new();
                n.hash(&mut h);
                index
                    .get(&h.finish())?
                    .iter()
                    .find_map(|&i| same(&self.entries[i as usize].0).then_some(i as usize))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Date, DateTime};

    fn k(value: Value) -> Key {
        Key { value, nan_id: 0 }
    }

    #[test]
    fn python_equality() {
        let mut d: PyDict<i32> = PyDict::new();
        d.insert(k(Value::Int(1)), 1);
        d.insert(k(Value::Float(1.0)), 2);
        d.insert(k(Value::Bool(true)), 3);
        d.insert(k(Value::Float(0.0)), 4);
        d.insert(k(Value::Float(-0.0)), 5);
        d.insert(k(Value::Bool(false)), 6);
        assert_eq!(d.entries.len(), 2);
        assert_eq!(d.entries[0].0.value, Value::Int(1));
        assert_eq!(d.entries[0].1, 3);
        assert_eq!(d.entries[1].1, 6);
        let at = |h: u8, off: i32| {
            k(Value::DateTime(DateTime {
                date: Date {
                    year: 2024,
                    month: 1,
                    day: 1,
                },
                hour: h,
                minute: 0,
                second: 0,
                microsecond: 0,
                offset_seconds: Some(off),
            }))
        };
        d.insert(at(10, 3600), 7);
        d.insert(at(9, 0), 8);
        assert_eq!(d.entries.len(), 3);
        assert_eq!(d.entries[2].1, 8);
        // Enough keys to switch to the index; equality must still hold.
        for i in 0..40 {
            d.insert(k(Value::Int(i)), 100 + i as i32);
        }
        d.insert(k(Value::Float(39.0)), 1);
        d.insert(k(Value::BigInt("18446744073709551616".into())), 2);
        d.insert(k(Value::Float(18446744073709551616.0)), 3);
        assert_eq!(d.entries.len(), 3 + 38 + 1);
        assert_eq!(d.entries.last().map(|e| e.1), Some(3));
    }
}
