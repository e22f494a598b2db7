//! get_manifest: the parsed manifest, its `tables` map (walkable entries only) filtered by
//! a glob in FQN order, and every other key as it stands.

use super::list_tables::{failed_tables, manifest_pins};
use super::pins::Pins;
use super::tables::{self, Order};
use std::sync::Arc;

use crate::error::QueryError;
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

pub struct Request<'a> {
    pub pattern: Option<&'a str>,
}

pub struct Manifest<'a> {
    /// Every key but `tables` in file order, then the `failed_tables` the glob matches.
    pub head: Vec<(String, Value)>,
    pub pins: Pins,
    manifest: &'a crate::ingest::Manifest,
    order: Arc<Order>,
    matched: Arc<Vec<u32>>,
}

impl Manifest<'_> {
    /// How many `tables` entries the glob matched.
    pub fn total(&self) -> usize {
        self.matched.len()
    }

    /// The `i`-th matched `tables` entry in FQN order, with its FQN.
    pub fn table(&self, i: usize) -> (&str, Value) {
        let at = self.matched[i] as usize;
        (self.order.fqn(at), self.order.entry(self.manifest, at))
    }
}

pub fn answer<'a>(state: &'a Snapshot, req: &Request) -> Result<Manifest<'a>, QueryError> {
    let Some(manifest) = state.manifest_or_error()? else {
        return Err(QueryError::MissingFile {
            artifact: "manifest.yaml".into(),
            path: state.manifest_path().display().to_string(),
        });
    };
    let glob = req.pattern.map(Glob::new);
    let selected = |fqn: &str| glob.as_ref().is_none_or(|g| g.matches(fqn));
    let order = tables::order(state)?;
    let matched = tables::matching(state, &order, req.pattern)?;
    let mut head: Vec<(String, Value)> = manifest
        .fields()
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
            Value::seq(failed.into_iter().map(Value::Str).collect()),
        ));
    }
    Ok(Manifest {
        head,
        pins: manifest_pins(state),
        manifest,
        order,
        matched,
    })
}
