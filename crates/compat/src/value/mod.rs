//! The data model every parsed print file becomes: the Python object PyYAML's
//! `safe_load` would build, so that every later rendering (json.dumps, repr,
//! str) can reproduce Python's text exactly.

pub(crate) mod bigint;
pub mod packed;
pub(crate) mod pydict;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A Python-like value as built by PyYAML's SafeConstructor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "v")]
pub enum Value {
    /// `None`
    Null,
    /// `True` / `False`
    Bool(bool),
    /// An `int` that fits in 64 bits.
    Int(i64),
    /// An `int` beyond 64 bits, kept exact as its canonical decimal text
    /// (optional leading `-`, no leading zeros).
    BigInt(String),
    /// A `float`.
    Float(#[serde(with = "float_repr")] f64),
    /// A `str`.
    Str(String),
    /// `bytes`, from an explicit `!!binary` tag.
    Bytes(Vec<u8>),
    /// A `datetime.date`.
    Date(Date),
    /// A `datetime.datetime`, naive or aware.
    DateTime(DateTime),
    /// A `list`. Shared as Python shares it: a YAML alias, or a value put in two places,
    /// is one allocation, and the YAML writers spell a repeated one as an alias
    /// (`Arc::ptr_eq` is Python's `is`).
    #[serde(with = "arc_vec")]
    Seq(Arc<Vec<Value>>),
    /// A `dict`, in insertion order. Keys are unique under Python equality
    /// (a later duplicate replaced the earlier value in place, as dict assignment does).
    /// Shared as [`Value::Seq`] is.
    #[serde(with = "arc_vec")]
    Map(Arc<Vec<(Value, Value)>>),
}

/// A `datetime.date`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Date {
    /// 1..=9999.
    pub year: i32,
    /// 1..=12.
    pub month: u8,
    /// 1..=31, valid for the month.
    pub day: u8,
}

/// A `datetime.datetime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DateTime {
    /// The day.
    pub date: Date,
    /// 0..=23.
    pub hour: u8,
    /// 0..=59.
    pub minute: u8,
    /// 0..=59.
    pub second: u8,
    /// 0..=999_999.
    pub microsecond: u32,
    /// UTC offset in seconds for an aware datetime; `None` for a naive one.
    pub offset_seconds: Option<i32>,
}

impl Value {
    /// A new `list` (an object of its own).
    pub fn seq(items: Vec<Value>) -> Value {
        Value::Seq(Arc::new(items))
    }

    /// A new `dict` (an object of its own) of pairs with unique keys.
    pub fn map(pairs: Vec<(Value, Value)>) -> Value {
        Value::Map(Arc::new(pairs))
    }

    /// The text of a `str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The pairs of a `dict`.
    pub fn as_map(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items of a `list`.
    pub fn as_seq(&self) -> Option<&[Value]> {
        match self {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// `dict.get(key)` for a string key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// Python truthiness (`bool(x)`).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::BigInt(_) => true,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::Date(_) | Value::DateTime(_) => true,
            Value::Seq(s) => !s.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }

    /// The Python type name, as `type(x).__name__` spells it.
    pub fn py_type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Date(_) => "date",
            Value::DateTime(_) => "datetime",
            Value::Seq(_) => "list",
            Value::Map(_) => "dict",
        }
    }
}

/// A shared collection in serde's plain form: its items, written out wherever it stands
/// ([`packed`] keeps the sharing).
mod arc_vec {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(
        v: &Arc<Vec<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.as_slice().serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Arc<Vec<T>>, D::Error> {
        Vec::deserialize(d).map(Arc::new)
    }
}

/// How the mirror stores a float: finite ones as JSON numbers (read back exactly, with
/// serde_json's `float_roundtrip`), the others as their bit pattern, which JSON numbers
/// cannot carry (serde_json would write `null`).
mod float_repr {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(f: &f64, s: S) -> Result<S::Ok, S::Error> {
        if f.is_finite() {
            s.serialize_f64(*f)
        } else {
            s.serialize_str(&format!("{:016x}", f.to_bits()))
        }
    }

    struct Float;

    impl serde::de::Visitor<'_> for Float {
        type Value = f64;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a float or a float's bit pattern")
        }

        fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }

        // serde_json writes `3.0` for a whole float; a bare integer can only come from
        // another writer, and reads as the float it names.
        fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }

        fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<f64, E> {
            u64::from_str_radix(v, 16)
                .map(f64::from_bits)
                .map_err(E::custom)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        d.deserialize_any(Float)
    }
}
