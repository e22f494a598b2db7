//! get_diff's reply: every diff key but `changes` on the first page, then `changes` paged
//! in file order, with `total`; a diff that is not a mapping answers `{}`.

use super::cursor::Call;
use super::paging::{self, Unit, UnitKey};
use crate::error::QueryError;
use crate::query::diff::Diff;
use crate::query::value::put;
use compat::value::Value;

pub fn page(diff: Diff, arguments: &Value, cursor: Option<&str>) -> Result<Value, QueryError> {
    let Diff::Events(events) = diff else {
        // The reference answers a non-mapping diff with an empty object, `total` and all.
        return Ok(Value::map(Vec::new()));
    };
    let total = events.total();
    // Head units are named by their index in `header`, so a key that is not a string
    // reaches the reply as the value it is.
    let keys: Vec<Value> = events.header().iter().map(|(k, _)| k.clone()).collect();
    let head: Vec<(UnitKey, Value)> = events
        .header()
        .iter()
        .enumerate()
        .map(|(i, (_, value))| (UnitKey::Head(i.to_string()), value.clone()))
        .collect();
    let mut item = |i: usize| -> Result<(UnitKey, Value), QueryError> {
        Ok((UnitKey::Item(Value::Int(i as i64)), events.change(i)?))
    };
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
            Value::seq(rest.iter().map(|u| u.value()).collect()),
        ));
        // Assigned as the reference assigns dict keys: a diff key of the same name keeps
        // its place and takes the value.
        put(&mut reply, "total", Value::Int(total as i64));
        if let Some(c) = next {
            put(&mut reply, "next_cursor", Value::Str(c.to_string()));
        }
        Value::map(reply)
    };
    let call = Call::pinned("get_diff", arguments, &events.pins());
    paging::lazy_page(&call, head, total, &mut item, &shape, cursor)
}
