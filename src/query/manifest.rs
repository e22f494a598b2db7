//! get_manifest: the parsed manifest, its `tables` map (walkable entries only) filtered
//! by a glob and paged in FQN order; every other key rides the first page whole.

use super::list_tables::failed_tables;
use crate::error::QueryError;
use crate::render::cursor::Call;
use crate::render::paging::{self, Unit, UnitKey};
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

pub struct Request<'a> {
    pub pattern: Option<&'a str>,
    pub cursor: Option<&'a str>,
    pub arguments: &'a Value,
}

pub fn answer(state: &Snapshot, req: &Request) -> Result<Value, QueryError> {
    let manifest_path = state.manifest_path();
    let Some(manifest) = state.manifest_or_error()? else {
        return Err(QueryError::MissingFile {
            artifact: "manifest.yaml".into(),
            path: manifest_path.display().to_string(),
        });
    };
    let glob = req.pattern.map(Glob::new);
    let selected = |fqn: &str| glob.as_ref().is_none_or(|g| g.matches(fqn));
    let mut matched: Vec<(String, Value)> = manifest
        .get("tables")
        .and_then(Value::as_map)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (compat::py::str_of(k), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    matched.retain(|(fqn, _)| selected(fqn));
    matched.sort_by(|a, b| a.0.cmp(&b.0));
    let failed: Vec<String> = failed_tables(Some(manifest))
        .into_iter()
        .filter(|f| selected(f))
        .collect();

    let mut items: Vec<(UnitKey, Value)> = Vec::new();
    if let Some(pairs) = manifest.as_map() {
        for (k, v) in pairs {
            let key = compat::py::str_of(k);
            if key != "tables" && key != "failed_tables" {
                items.push((UnitKey::Head(key), v.clone()));
            }
        }
    }
    if !failed.is_empty() {
        items.push((
            UnitKey::Head("failed_tables".into()),
            Value::Seq(failed.into_iter().map(Value::Str).collect()),
        ));
    }
    let total = matched.len();
    for (fqn, entry) in matched {
        items.push((UnitKey::Item(Value::Str(fqn)), entry));
    }
    let render = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
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
        reply.push((Value::Str("tables".into()), Value::Map(tables)));
        paging::with_total(reply, total, next)
    };
    let call = Call::new(
        "get_manifest",
        req.arguments,
        &[(
            manifest_path.display().to_string(),
            state.version_of(&manifest_path),
        )],
    );
    let units = paging::units(&call, items, &render);
    paging::page(&call, &units, &render, req.cursor)
}
