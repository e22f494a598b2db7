//! get_manifest: the parsed manifest, its `tables` map (walkable entries only) filtered by
//! a glob in FQN order, and every other key as it stands.

use super::list_tables::{failed_tables, manifest_pins};
use super::pins::Pins;
use crate::error::QueryError;
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

pub struct Request<'a> {
    pub pattern: Option<&'a str>,
}

pub struct Manifest {
    /// Every key but `tables` in file order, then the `failed_tables` the glob matches.
    pub head: Vec<(String, Value)>,
    /// The matched `tables` entries, by FQN in order.
    pub tables: Vec<(String, Value)>,
    pub pins: Pins,
}

pub fn answer(state: &Snapshot, req: &Request) -> Result<Manifest, QueryError> {
    let Some(manifest) = state.manifest_or_error()? else {
        return Err(QueryError::MissingFile {
            artifact: "manifest.yaml".into(),
            path: state.manifest_path().display().to_string(),
        });
    };
    let glob = req.pattern.map(Glob::new);
    let selected = |fqn: &str| glob.as_ref().is_none_or(|g| g.matches(fqn));
    let mut tables: Vec<(String, Value)> = manifest
        .get("tables")
        .and_then(Value::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (compat::py::str_of(k), v))
        .filter(|(fqn, _)| selected(fqn))
        .map(|(fqn, v)| (fqn, v.clone()))
        .collect();
    tables.sort_by(|a, b| a.0.cmp(&b.0));
    let mut head: Vec<(String, Value)> = manifest
        .as_map()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (compat::py::str_of(k), v))
        .filter(|(k, _)| k != "tables" && k != "failed_tables")
        .map(|(k, v)| (k, v.clone()))
        .collect();
    let failed: Vec<String> = failed_tables(Some(manifest))
        .into_iter()
        .filter(|f| selected(f))
        .collect();
    if !failed.is_empty() {
        head.push((
            "failed_tables".into(),
            Value::Seq(failed.into_iter().map(Value::Str).collect()),
        ));
    }
    Ok(Manifest {
        head,
        tables,
        pins: manifest_pins(state),
    })
}
