//! list_tables: the walkable tables matching a glob, bare or with their manifest
//! projection and freshness verdict, and the `failed_tables` the glob matches.

use std::sync::Arc;

use super::freshness;
use super::pins::Pins;
use super::tables::{self, Order};
use crate::error::QueryError;
use crate::ingest::Manifest;
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

pub struct Request<'a> {
    pub pattern: Option<&'a str>,
    pub detail: bool,
}

/// The matched tables, in FQN order.
/// The tables a call matched, made on demand: a page builds only its own entries (and
/// their freshness verdicts), whatever the print's size.
pub struct Tables<'a> {
    pub connection: String,
    /// `failed_tables` the pattern matches, in file order.
    pub failed: Vec<String>,
    pub pins: Pins,
    state: &'a Snapshot,
    order: Arc<Order>,
    matched: Arc<Vec<u32>>,
    detail: bool,
    now: i128,
}

pub struct Table {
    pub fqn: String,
    pub entry: Value,
    /// Its threshold resolved without a `min_rows` rule that would have selected it.
    pub size_gated: bool,
}

impl Tables<'_> {
    /// How many tables the pattern matched.
    pub fn total(&self) -> usize {
        self.matched.len()
    }

    /// The `i`-th matched table in FQN order: its name, or with `detail` its manifest
    /// projection and freshness verdict.
    pub fn table(&self, i: usize) -> Table {
        let at = self.matched[i] as usize;
        let fqn = self.order.fqn(at).to_string();
        if !self.detail {
            return Table {
                entry: Value::Str(fqn.clone()),
                fqn,
                size_gated: false,
            };
        }
        let entry = self
            .state
            .manifest_or_error()
            .ok()
            .flatten()
            .map_or(Value::Null, |m| self.order.entry(m, at));
        let mut pairs = vec![(Value::Str("table".into()), Value::Str(fqn.clone()))];
        for key in ["type", "row_count", "columns", "profiled_at"] {
            pairs.push((
                Value::Str(key.into()),
                entry.get(key).cloned().unwrap_or(Value::Null),
            ));
        }
        let (verdict, size_gated) = freshness::verdict(&self.state.config, &fqn, &entry, self.now);
        pairs.extend(verdict);
        Table {
            fqn,
            entry: Value::map(pairs),
            size_gated,
        }
    }
}

pub fn failed_tables(manifest: Option<&Manifest>) -> Vec<String> {
    manifest
        .and_then(|m| m.field("failed_tables"))
        .and_then(Value::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The error for a table a call names that the manifest does not hold: unprofiled when the
/// last run listed it as failed, else unknown to `connection`.
pub fn absent_table(table: &str, connection: &str, manifest: Option<&Manifest>) -> QueryError {
    if failed_tables(manifest).iter().any(|f| f == table) {
        QueryError::UnprofiledTable {
            table: table.to_string(),
        }
    } else {
        QueryError::UnknownTable {
            table: table.to_string(),
            connection: connection.to_string(),
        }
    }
}

pub fn answer<'a>(state: &'a Snapshot, req: &Request) -> Result<Tables<'a>, QueryError> {
    let manifest = state.manifest_or_error()?;
    let order = tables::order(state)?;
    let pattern = req.pattern.filter(|p| *p != "*");
    let matched = tables::matching(state, &order, pattern)?;
    let glob = Glob::new(req.pattern.unwrap_or("*"));
    let failed: Vec<String> = failed_tables(manifest)
        .into_iter()
        .filter(|f| glob.matches(f))
        .collect();
    Ok(Tables {
        connection: state.config.name.clone(),
        failed,
        pins: manifest_pins(state),
        state,
        order,
        matched,
        detail: req.detail,
        now: freshness::now_micros(),
    })
}

pub fn manifest_pins(state: &Snapshot) -> Pins {
    let path = state.manifest_path();
    Pins::of(&[(path.display().to_string(), state.version_of(&path))])
}
