//! A [`Value`] as JSON text that keeps its sharing: a collection standing in several places
//! is written once and then referred to, so the text grows with the value's allocations, not
//! with what its aliases expand to, and reads back as the same shared value.
//!
//! The form is serde's tagged one (`{"t":"Seq","v":[...]}`) with two additions: the first
//! occurrence of a shared collection carries its number (`{"t":"Seq","v":[...],"a":0}`), and
//! each later one is `{"t":"Ref","v":0}`. A value without sharing reads and writes exactly as
//! the derived `Serialize` / `Deserialize` do.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Date, DateTime, Value};

/// `v` as sharing-preserving JSON text.
pub fn to_json(v: &Value) -> serde_json::Result<String> {
    let state = std::cell::RefCell::new(Written::default());
    serde_json::to_string(&Shared { v, state: &state })
}

/// The value [`to_json`] wrote (or the derived `Serialize` did).
pub fn from_json(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut table = HashMap::new();
    let v = Seed { table: &mut table }.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A [`Value`] field kept as this module's JSON text inside another serde encoding
/// (`#[serde(with = "compat::value::stored::text")]`): the value's own derived encoding
/// is adjacently tagged, which a compact, non-self-describing encoding cannot read back.
pub mod text {
    use super::{from_json, to_json, Value};
    use serde::{Deserialize, Deserializer, Serializer};

    /// `v` as one string: its [`to_json`] text.
    pub fn serialize<S: Serializer>(v: &Value, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_json(v).map_err(serde::ser::Error::custom)?)
    }

    /// The value a string of [`to_json`] text holds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        from_json(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// The shared collections written so far, by address, with their numbers.
#[derive(Default)]
struct Written {
    numbers: HashMap<usize, u32>,
}

/// A collection's address when it may stand in more than one place.
fn shared_address(v: &Value) -> Option<usize> {
    match v {
        Value::Seq(a) if Arc::strong_count(a) > 1 => Some(Arc::as_ptr(a) as usize),
        Value::Map(a) if Arc::strong_count(a) > 1 => Some(Arc::as_ptr(a) as usize),
        _ => None,
    }
}

struct Shared<'a> {
    v: &'a Value,
    state: &'a std::cell::RefCell<Written>,
}

impl Shared<'_> {
    fn of<'b>(&'b self, v: &'b Value) -> Shared<'b> {
        Shared {
            v,
            state: self.state,
        }
    }
}

impl Serialize for Shared<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut number = None;
        if let Some(address) = shared_address(self.v) {
            let mut state = self.state.borrow_mut();
            if let Some(&n) = state.numbers.get(&address) {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("t", "Ref")?;
                m.serialize_entry("v", &n)?;
                return m.end();
            }
            let n = state.numbers.len() as u32;
            state.numbers.insert(address, n);
            number = Some(n);
        }
        let (tag, body) = match self.v {
            Value::Seq(items) => ("Seq", Body::Seq(self, items)),
            Value::Map(pairs) => ("Map", Body::Map(self, pairs)),
            scalar => return scalar.serialize(s),
        };
        let mut m = s.serialize_map(Some(2 + usize::from(number.is_some())))?;
        m.serialize_entry("t", tag)?;
        m.serialize_entry("v", &body)?;
        if let Some(n) = number {
            m.serialize_entry("a", &n)?;
        }
        m.end()
    }
}

enum Body<'a> {
    Seq(&'a Shared<'a>, &'a [Value]),
    Map(&'a Shared<'a>, &'a [(Value, Value)]),
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Body::Seq(parent, items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(&parent.of(item))?;
                }
                seq.end()
            }
            Body::Map(parent, pairs) => {
                let mut seq = s.serialize_seq(Some(pairs.len()))?;
                for (k, v) in pairs.iter() {
                    seq.serialize_element(&Pair(parent.of(k), parent.of(v)))?;
                }
                seq.end()
            }
        }
    }
}

struct Pair<'a>(Shared<'a>, Shared<'a>);

impl Serialize for Pair<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&self.0)?;
        t.serialize_element(&self.1)?;
        t.end()
    }
}

/// Reads one value, recording numbered collections in `table` for the references after them.
struct Seed<'t> {
    table: &'t mut HashMap<u32, Value>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_map(self)
    }
}

#[derive(Deserialize)]
struct FloatBits(#[serde(with = "super::float_repr")] f64);

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tagged value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Err(A::Error::missing_field("t"));
        };
        if key != "t" {
            return Err(A::Error::custom("the tag comes first"));
        }
        let tag: String = map.next_value()?;
        let mut value = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "v" => {
                    value = Some(match tag.as_str() {
                        "Bool" => Value::Bool(map.next_value()?),
                        "Int" => Value::Int(map.next_value()?),
                        "BigInt" => Value::BigInt(map.next_value()?),
                        "Float" => Value::Float(map.next_value::<FloatBits>()?.0),
                        "Str" => Value::Str(map.next_value()?),
                        "Bytes" => Value::Bytes(map.next_value()?),
                        "Date" => Value::Date(map.next_value::<Date>()?),
                        "DateTime" => Value::DateTime(map.next_value::<DateTime>()?),
                        "Seq" => Value::seq(map.next_value_seed(Items {
                            table: &mut *self.table,
                        })?),
                        "Map" => Value::map(map.next_value_seed(Pairs {
                            table: &mut *self.table,
                        })?),
                        "Ref" => {
                            let n: u32 = map.next_value()?;
                            self.table
                                .get(&n)
                                .cloned()
                                .ok_or_else(|| A::Error::custom("a reference before its value"))?
                        }
                        other => return Err(A::Error::unknown_variant(other, &["Seq"])),
                    })
                }
                "a" => {
                    let n: u32 = map.next_value()?;
                    let v = value
                        .clone()
                        .ok_or_else(|| A::Error::custom("a number before its value"))?;
                    self.table.insert(n, v);
                }
                _ => return Err(A::Error::custom("an unknown key")),
            }
        }
        match (tag.as_str(), value) {
            ("Null", None) => Ok(Value::Null),
            (_, Some(v)) => Ok(v),
            (_, None) => Err(A::Error::missing_field("v")),
        }
    }
}

struct Items<'t> {
    table: &'t mut HashMap<u32, Value>,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = Vec<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Value>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = Vec<Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Value>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(Seed {
            table: &mut *self.table,
        })? {
            out.push(v);
        }
        Ok(out)
    }
}

struct Pairs<'t> {
    table: &'t mut HashMap<u32, Value>,
}

impl<'de> DeserializeSeed<'de> for Pairs<'_> {
    type Value = Vec<(Value, Value)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Pairs<'_> {
    type Value = Vec<(Value, Value)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of pairs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(pair) = seq.next_element_seed(PairSeed {
            table: &mut *self.table,
        })? {
            out.push(pair);
        }
        Ok(out)
    }
}

struct PairSeed<'t> {
    table: &'t mut HashMap<u32, Value>,
}

impl<'de> DeserializeSeed<'de> for PairSeed<'_> {
    type Value = (Value, Value);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_tuple(2, self)
    }
}

impl<'de> Visitor<'de> for PairSeed<'_> {
    type Value = (Value, Value);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key and a value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let k = seq
            .next_element_seed(Seed {
                table: &mut *self.table,
            })?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let v = seq
            .next_element_seed(Seed {
                table: &mut *self.table,
            })?
            .ok_or_else(|| A::Error::invalid_length(1, &self))?;
        Ok((k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharing_survives_the_round_trip() {
        let leaf = Value::seq(vec![Value::Str("x".into()), Value::Null]);
        let level = Value::seq(vec![leaf.clone(), leaf.clone(), leaf]);
        let v = Value::map(vec![
            (Value::Str("a".into()), level.clone()),
            (Value::Str("b".into()), level),
            (Value::Float(f64::NAN), Value::Float(0.1)),
        ]);
        let text = to_json(&v).unwrap();
        assert_eq!(text.matches("\"Ref\"").count(), 3, "{text}");
        let back = from_json(&text).unwrap();
        let pairs = back.as_map().unwrap();
        let (Value::Seq(a), Value::Seq(b)) = (&pairs[0].1, &pairs[1].1) else {
            panic!("{back:?}")
        };
        assert!(Arc::ptr_eq(a, b));
        let (Value::Seq(x), Value::Seq(y)) = (&a[0], &a[2]) else {
            panic!("{back:?}")
        };
        assert!(Arc::ptr_eq(x, y));
        assert_eq!(to_json(&back).unwrap(), text);
    }

    #[test]
    fn an_unshared_value_reads_and_writes_as_the_derived_form() {
        let date = Date {
            year: 2024,
            month: 1,
            day: 2,
        };
        let v = Value::map(vec![
            (
                Value::Str("a".into()),
                Value::seq(vec![
                    Value::Int(1),
                    Value::Float(2.5),
                    Value::Float(f64::NAN),
                    Value::Float(f64::NEG_INFINITY),
                    Value::Null,
                    Value::Bool(true),
                    Value::Date(date),
                    Value::DateTime(DateTime {
                        date,
                        hour: 3,
                        minute: 4,
                        second: 5,
                        microsecond: 6,
                        offset_seconds: Some(3600),
                    }),
                ]),
            ),
            (
                Value::Str("b".into()),
                Value::map(vec![
                    (Value::Str("c".into()), Value::Bytes(b"hi".to_vec())),
                    (
                        Value::Str("d".into()),
                        Value::BigInt("123456789012345678901234567890".into()),
                    ),
                ]),
            ),
        ]);
        let derived = serde_json::to_string(&v).unwrap();
        assert_eq!(to_json(&v).unwrap(), derived);
        let back = from_json(&derived).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), derived);
    }
}
