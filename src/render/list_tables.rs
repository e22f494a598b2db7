//! list_tables' reply: `failed_tables` on the first page, then `tables`, and on each page
//! a warning naming the page's tables whose size-gated rules could not apply.

use std::cell::RefCell;
use std::collections::HashMap;

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
    let mut head = Vec::new();
    if !tables.failed.is_empty() {
        let list = Value::seq(tables.failed.iter().cloned().map(Value::Str).collect());
        head.push((UnitKey::Head("failed_tables".into()), list));
    }
    // The size-gated tables among those made, by index: a page's warning names its own.
    let gated: RefCell<HashMap<usize, String>> = RefCell::default();
    let mut item = |i: usize| -> Result<(UnitKey, Value), QueryError> {
        let t = tables.table(i);
        if t.size_gated {
            gated.borrow_mut().insert(i, t.fqn);
        }
        Ok((UnitKey::Item(Value::Int(i as i64)), t.entry))
    };
    let total = tables.total();
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let mut reply = paging::list_reply(run, "tables");
        let known = gated.borrow();
        let on_page: Vec<&str> = run
            .iter()
            .filter_map(|u| match u.key() {
                UnitKey::Item(Value::Int(i)) => known.get(&(*i as usize)),
                _ => None,
            })
            .map(String::as_str)
            .collect();
        if !on_page.is_empty() {
            let warning = size_gate_warning(&tables.connection, &on_page);
            reply.push((
                Value::Str("warnings".into()),
                Value::seq(vec![Value::Str(warning)]),
            ));
        }
        paging::with_total(reply, total, next)
    };
    let call = Call::pinned("list_tables", arguments, &tables.pins);
    paging::lazy_page(&call, head, total, &mut item, &shape, cursor)
}
