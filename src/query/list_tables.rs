//! list_tables: the walkable tables matching a glob, bare or with their manifest
//! projection and freshness verdict; `failed_tables` beside them on the first page.

use super::freshness;
use crate::error::QueryError;
use crate::render::cursor::Call;
use crate::render::paging::{self, Unit, UnitKey};
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

pub struct Request<'a> {
    pub pattern: Option<&'a str>,
    pub detail: bool,
    pub cursor: Option<&'a str>,
    /// The validated arguments, which the cursor pins.
    pub arguments: &'a Value,
}

/// The names `failed_tables` lists that are strings, in file order.
pub fn failed_tables(manifest: Option<&Value>) -> Vec<String> {
    manifest
        .and_then(|m| m.get("failed_tables"))
        .and_then(Value::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn size_gate_warning(connection: &str, tables: &[String]) -> String {
    format!(
        "{connection}: no row count is available without a database, so rules carrying `match.min_rows` did not apply to {}. Their thresholds come from the rules matching by name alone, or from the connection.",
        tables.join(", ")
    )
}

pub fn answer(state: &Snapshot, req: &Request) -> Result<Value, QueryError> {
    let manifest = state.manifest_or_error()?;
    let glob = Glob::new(req.pattern.unwrap_or("*"));
    let entries: Vec<(&Value, &Value)> = manifest
        .and_then(|m| m.get("tables"))
        .and_then(Value::as_map)
        .map(|m| m.iter().map(|(k, v)| (k, v)).collect())
        .unwrap_or_default();
    let mut matched: Vec<(String, &Value)> = entries
        .iter()
        .map(|(k, v)| (compat::py::str_of(k), *v))
        .filter(|(fqn, _)| glob.matches(fqn))
        .collect();
    matched.sort_by(|a, b| a.0.cmp(&b.0));
    let failed: Vec<String> = failed_tables(manifest)
        .into_iter()
        .filter(|f| glob.matches(f))
        .collect();

    let now = freshness::now_micros();
    let mut size_gated: Vec<String> = Vec::new();
    let mut items: Vec<(UnitKey, Value)> = Vec::new();
    if !failed.is_empty() {
        let list = Value::Seq(failed.iter().cloned().map(Value::Str).collect());
        items.push((UnitKey::Head("failed_tables".into()), list));
    }
    for (fqn, entry) in &matched {
        let value = if req.detail {
            let mut pairs = vec![(Value::Str("table".into()), Value::Str(fqn.clone()))];
            for key in ["type", "row_count", "columns", "profiled_at"] {
                pairs.push((
                    Value::Str(key.into()),
                    entry.get(key).cloned().unwrap_or(Value::Null),
                ));
            }
            let (verdict, gated) = freshness::verdict(&state.config, fqn, entry, now);
            if gated {
                size_gated.push(fqn.clone());
            }
            pairs.extend(verdict);
            Value::Map(pairs)
        } else {
            Value::Str(fqn.clone())
        };
        items.push((UnitKey::Item(Value::Str(fqn.clone())), value));
    }

    let total = matched.len();
    let connection = state.config.name.clone();
    let render = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let (head, rest) = paging::split_head(run);
        let mut reply: Vec<(Value, Value)> =
            head.into_iter().map(|(k, v)| (Value::Str(k), v)).collect();
        reply.push((
            Value::Str("tables".into()),
            Value::Seq(rest.iter().map(|u| u.value()).collect()),
        ));
        let gated_here: Vec<String> = rest
            .iter()
            .filter_map(|u| match u.key() {
                UnitKey::Item(Value::Str(fqn)) if size_gated.contains(fqn) => Some(fqn.clone()),
                _ => None,
            })
            .collect();
        if !gated_here.is_empty() {
            let warning = size_gate_warning(&connection, &gated_here);
            reply.push((
                Value::Str("warnings".into()),
                Value::Seq(vec![Value::Str(warning)]),
            ));
        }
        paging::with_total(reply, total, next)
    };
    let manifest_path = state.manifest_path();
    let call = Call::new(
        "list_tables",
        req.arguments,
        &[(
            manifest_path.display().to_string(),
            state.version_of(&manifest_path),
        )],
    );
    let units = paging::units(&call, items, &render);
    paging::page(&call, &units, &render, req.cursor)
}
