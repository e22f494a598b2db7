//! get_manifest's reply: every manifest key but `tables` on the first page, then the
//! `tables` map paged by entry, with `total`.

use super::cursor::Call;
use super::paging::{self, Unit, UnitKey};
use crate::error::QueryError;
use crate::query::manifest::Manifest;
use compat::value::Value;

pub fn page(
    manifest: &Manifest,
    arguments: &Value,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let head: Vec<(UnitKey, Value)> = manifest
        .head
        .iter()
        .map(|(k, v)| (UnitKey::Head(k.clone()), v.clone()))
        .collect();
    let mut item = |i: usize| -> Result<(UnitKey, Value), QueryError> {
        let (fqn, entry) = manifest.table(i);
        Ok((UnitKey::Item(Value::Str(fqn.to_string())), entry))
    };
    let total = manifest.total();
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let (head, rest) = paging::split_head(run);
        let mut reply: Vec<(Value, Value)> =
            head.into_iter().map(|(k, v)| (Value::Str(k), v)).collect();
        let tables: Vec<(Value, Value)> = rest
            .iter()
            .map(|u| match u.key() {
                UnitKey::Item(k) => (k.clone(), u.value()),
                UnitKey::Head(k) => (Value::Str(k.clone()), u.value()),
            })
            .collect();
        reply.push((Value::Str("tables".into()), Value::map(tables)));
        paging::with_total(reply, total, next)
    };
    let call = Call::pinned("get_manifest", arguments, &manifest.pins);
    paging::lazy_page(&call, head, total, &mut item, &shape, cursor)
}
