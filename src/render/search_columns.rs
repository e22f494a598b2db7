//! search_columns' reply: `unreadable_tables` and `switched_off_tables` on the first page,
//! then `matches`, with `total`. Only the matches a page reaches are read in full.

use super::cursor::Call;
use super::paging::{self, Unit, UnitKey};
use crate::error::QueryError;
use crate::query::search_columns::Matches;
use compat::value::Value;

pub fn page(
    matches: &mut Matches,
    arguments: &Value,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let total = matches.total();
    let head: Vec<(UnitKey, Value)> = matches
        .head
        .iter()
        .map(|(k, v)| (UnitKey::Head(k.clone()), v.clone()))
        .collect();
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        paging::with_total(paging::list_reply(run, "matches"), total, next)
    };
    let call = Call::pinned("search_columns", arguments, &matches.pins);
    let mut item = |i: usize| -> Result<(UnitKey, Value), QueryError> {
        Ok((UnitKey::Item(Value::Int(i as i64)), matches.get(i)?))
    };
    paging::lazy_page(&call, head, total, &mut item, &shape, cursor)
}
