//! list_tables' reply: `failed_tables` on the first page, then `tables`, and on each page
//! a warning naming the page's tables whose size-gated rules could not apply.

use super::cursor::Call;
use super::paging::{self, Unit, UnitKey};
use crate::error::QueryError;
use crate::query::list_tables::Tables;
use compat::value::Value;

fn size_gate_warning(connection: &str, tables: &[&str]) -> String {
    format!(
        "{connection}: no row count is available without a database, so rules carrying `match.min_rows` did not apply to {}. Their thresholds come from the rules matching by name alone, or from the connection.",
        tables.join(", ")
    )
}

pub fn page(tables: &Tables, arguments: &Value, cursor: Option<&str>) -> Result<Value, QueryError> {
    let mut items: Vec<(UnitKey, Value)> = Vec::with_capacity(tables.tables.len() + 1);
    if !tables.failed.is_empty() {
        let list = Value::Seq(tables.failed.iter().cloned().map(Value::Str).collect());
        items.push((UnitKey::Head("failed_tables".into()), list));
    }
    // Items are keyed by their index, so a page finds its size-gated tables directly.
    for (i, t) in tables.tables.iter().enumerate() {
        items.push((UnitKey::Item(Value::Int(i as i64)), t.entry.clone()));
    }
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let mut reply = paging::list_reply(run, "tables");
        let gated: Vec<&str> = run
            .iter()
            .filter_map(|u| match u.key() {
                UnitKey::Item(Value::Int(i)) => tables.tables.get(*i as usize),
                _ => None,
            })
            .filter(|t| t.size_gated)
            .map(|t| t.fqn.as_str())
            .collect();
        if !gated.is_empty() {
            let warning = size_gate_warning(&tables.connection, &gated);
            reply.push((
                Value::Str("warnings".into()),
                Value::Seq(vec![Value::Str(warning)]),
            ));
        }
        paging::with_total(reply, tables.tables.len(), next)
    };
    let call = Call::pinned("list_tables", arguments, &tables.pins);
    let units = paging::units(&call, items, &shape);
    paging::page(&call, &units, &shape, cursor)
}
