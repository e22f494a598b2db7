//! The walkable tables in FQN order, and those a glob selects: what list_tables,
//! get_manifest and resources/list page through. Both are derived once per manifest content
//! (through the store's cache), so a call costs its page, not the print.

use std::sync::Arc;

use crate::error::QueryError;
use crate::ingest::Manifest;
use crate::store::cache::Key;
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

/// The manifest's `tables` entries sorted by FQN: each FQN (`str` of its key) with the
/// entry's position in the manifest's map.
#[derive(Debug, Default)]
pub struct Order {
    names: Vec<(String, usize)>,
}

impl Order {
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn fqn(&self, i: usize) -> &str {
        &self.names[i].0
    }

    /// The manifest entry of the `i`-th table in FQN order.
    pub fn entry(&self, manifest: &Manifest, i: usize) -> Value {
        manifest.tables().entry(self.names[i].1)
    }
}

/// What a derived table list depends on: the connection, its manifest's content and
/// state, and the entries walkability dropped.
fn manifest_key(state: &Snapshot, kind: &'static str, extra: &[u8]) -> Key {
    let version = state.version_of(&state.manifest_path());
    let dropped = match &state.manifest {
        crate::ingest::ManifestRead::Ok { dropped, .. } => dropped.join("\0"),
        _ => String::new(),
    };
    Key::new(
        kind,
        [
            state.config.name.as_bytes(),
            state.manifest.state().as_bytes(),
            version.as_bytes(),
            dropped.as_bytes(),
            extra,
        ],
    )
}

/// The state's walkable tables in FQN order (empty without a manifest), or the manifest's
/// own error.
pub fn order(state: &Snapshot) -> Result<Arc<Order>, QueryError> {
    let manifest = state.manifest_or_error()?;
    let build = || {
        let mut names: Vec<(String, usize)> = manifest
            .map(|m| m.tables().keys())
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, k)| (compat::py::str_of(k), i))
            .collect();
        names.sort();
        Ok::<_, QueryError>(Order { names })
    };
    state.cache().get_or_build(
        manifest_key(state, "table order", &[]),
        |o: &Order| 48 * o.len() + o.names.iter().map(|(n, _)| n.len()).sum::<usize>(),
        build,
    )
}

/// The positions in `order` of the tables `pattern` matches (every one without a
/// pattern), in order.
pub fn matching(
    state: &Snapshot,
    order: &Order,
    pattern: Option<&str>,
) -> Result<Arc<Vec<u32>>, QueryError> {
    let build = || {
        let glob = pattern.map(Glob::new);
        Ok::<_, QueryError>(
            (0..order.len())
                .filter(|&i| glob.as_ref().is_none_or(|g| g.matches(order.fqn(i))))
                .map(|i| i as u32)
                .collect(),
        )
    };
    let pattern_key = match pattern {
        Some(p) => format!("1{p}"),
        None => "0".to_string(),
    };
    state.cache().get_or_build(
        manifest_key(state, "tables matching", pattern_key.as_bytes()),
        |m: &Vec<u32>| 4 * m.len() + 16,
        build,
    )
}
