//! Render: answers become reply text, cut into pages of at most 20,000 characters
//! measured as the reference measures them, with cursors pinned to what the reply read.

pub mod cursor;
pub mod document;
pub mod paging;
pub mod resource;
pub mod validate_sql;

use compat::value::Value;

/// Build a `dict` reply from string keys, in order.
pub fn dict<I: IntoIterator<Item = (&'static str, Value)>>(pairs: I) -> Value {
    Value::Map(
        pairs
            .into_iter()
            .map(|(k, v)| (Value::Str(k.to_string()), v))
            .collect(),
    )
}

/// Insert or replace `key` in a dict value, keeping the first position (Python dict assignment).
pub fn set(map: &mut Value, key: &str, value: Value) {
    if let Value::Map(pairs) = map {
        if let Some((_, v)) = pairs.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
            *v = value;
        } else {
            pairs.push((Value::Str(key.to_string()), value));
        }
    }
}
