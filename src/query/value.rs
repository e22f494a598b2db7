//! Building the dicts an answer is made of, as Python builds them.

use compat::value::Value;

/// A dict from string keys, in order.
pub fn dict<I: IntoIterator<Item = (&'static str, Value)>>(pairs: I) -> Value {
    Value::map(
        pairs
            .into_iter()
            .map(|(k, v)| (Value::Str(k.to_string()), v))
            .collect(),
    )
}

/// Insert or replace `key` in a dict value, keeping the first position (Python dict
/// assignment).
pub fn set(map: &mut Value, key: &str, value: Value) {
    if let Value::Map(pairs) = map {
        put(std::sync::Arc::make_mut(pairs), key, value);
    }
}

/// [`set`] on a dict's pairs.
pub fn put(pairs: &mut Vec<(Value, Value)>, key: &str, value: Value) {
    match pairs.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
        Some(slot) => slot.1 = value,
        None => pairs.push((Value::Str(key.to_string()), value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Str(text.to_string())
    }

    #[test]
    fn keys_are_assigned_in_place_as_dict_keys_are() {
        let mut reply = vec![
            (s("total"), s("from the file")),
            (s("summary"), Value::Null),
        ];
        put(&mut reply, "total", Value::Int(3));
        put(&mut reply, "next_cursor", s("c"));
        assert_eq!(
            reply,
            vec![
                (s("total"), Value::Int(3)),
                (s("summary"), Value::Null),
                (s("next_cursor"), s("c")),
            ]
        );
    }
}
