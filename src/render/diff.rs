//! get_diff's reply: every diff key but `changes` on the first page, then `changes` paged
//! in file order, with `total`; a diff that is not a mapping answers `{}`.

use super::cursor::Call;
use super::paging::{self, Unit, UnitKey};
use crate::error::QueryError;
use crate::query::diff::Diff;
use crate::query::value::put;
use compat::value::Value;

pub fn page(diff: Diff, arguments: &Value, cursor: Option<&str>) -> Result<Value, QueryError> {
    let Diff::Events {
        header,
        changes,
        pins,
    } = diff
    else {
        // The reference answers a non-mapping diff with an empty object, `total` and all.
        return Ok(Value::Map(Vec::new()));
    };
    let total = changes.len();
    let mut items: Vec<(UnitKey, Value)> = Vec::with_capacity(header.len() + total);
    // Head units are named by their index in `header`, so a key that is not a string
    // reaches the reply as the value it is.
    let mut keys = Vec::with_capacity(header.len());
    for (i, (key, value)) in header.into_iter().enumerate() {
        keys.push(key);
        items.push((UnitKey::Head(i.to_string()), value));
    }
    for (i, change) in changes.into_iter().enumerate() {
        items.push((UnitKey::Item(Value::Int(i as i64)), change));
    }
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let (head, rest) = paging::split_head(run);
        let mut reply: Vec<(Value, Value)> = head
            .into_iter()
            .map(|(i, v)| {
                let key = i
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| keys.get(i))
                    .cloned()
                    .unwrap_or(Value::Str(i));
                (key, v)
            })
            .collect();
        reply.push((
            Value::Str("changes".into()),
            Value::Seq(rest.iter().map(|u| u.value()).collect()),
        ));
        // Assigned as the reference assigns dict keys: a diff key of the same name keeps
        // its place and takes the value.
        put(&mut reply, "total", Value::Int(total as i64));
        if let Some(c) = next {
            put(&mut reply, "next_cursor", Value::Str(c.to_string()));
        }
        Value::Map(reply)
    };
    let call = Call::pinned("get_diff", arguments, &pins);
    let units = paging::units(&call, items, &shape);
    paging::page(&call, &units, &shape, cursor)
}
