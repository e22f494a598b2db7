//! resolve_value's reply: every field but the lists rides every page; the lists' entries
//! are the paged items, spellings or candidates before domain, and `total` counts them all.

use super::cursor::Call;
use super::paging::{self, Unit, UnitKey};
use crate::error::QueryError;
use crate::query::resolve_value::Resolution;
use compat::value::Value;

/// The fields whose lists are paged, in the order their entries are walked.
const LISTS: [&str; 3] = ["spellings", "candidates", "domain"];

pub fn page(
    resolution: &Resolution,
    arguments: &Value,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let fields = &resolution.fields;
    let is_list = |k: &str, v: &Value| LISTS.contains(&k) && matches!(v, Value::Seq(_));
    let scalars: Vec<(Value, Value)> = fields
        .iter()
        .filter(|(k, v)| !is_list(k, v))
        .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
        .collect();
    let mut lists: Vec<(&str, &[Value])> = Vec::new();
    for key in LISTS {
        if let Some((_, Value::Seq(items))) = fields.iter().find(|(k, _)| k == key) {
            lists.push((key, items));
        }
    }
    let mut items: Vec<(UnitKey, Value)> = Vec::new();
    for (key, entries) in &lists {
        for (i, e) in entries.iter().enumerate() {
            items.push((
                UnitKey::Item(Value::seq(vec![
                    Value::Str(key.to_string()),
                    Value::Int(i as i64),
                ])),
                e.clone(),
            ));
        }
    }
    let total = items.len();
    let shape = |run: &[Unit], first: bool, next: Option<&str>| -> Value {
        let mut page = scalars.clone();
        for (key, entries) in &lists {
            let here: Vec<Value> = run
                .iter()
                .filter(|u| match u.key() {
                    UnitKey::Item(Value::Seq(k)) => k.first().and_then(Value::as_str) == Some(key),
                    _ => false,
                })
                .map(Unit::value)
                .collect();
            if !here.is_empty() || (first && entries.is_empty()) {
                page.push((Value::Str(key.to_string()), Value::seq(here)));
            }
        }
        paging::with_total(page, total, next)
    };
    let call = Call::pinned("resolve_value", arguments, &resolution.pins);
    let units = paging::units(&call, items, &shape);
    paging::page(&call, &units, &shape, cursor)
}
