//! The catalog after a change that moved none of the files every table's joins are read
//! from (a table's statistics or their annotations edited, the common edit while
//! serving): the catalog before it, with the columns of the tables whose records moved
//! read again. The full build checks every table's joins against what decides them,
//! which took a second at 100,000 tables even when none had moved.

use std::collections::HashMap;

use super::{columns_of, Catalog, TableColumns};
use crate::error::{internal, QueryError};
use crate::ingest::walk::Artifact;
use crate::query::context;
use crate::store::cache::Key;
use crate::store::Snapshot;

/// The files a table's joins are read from, by the names dbprint gives them.
const JOINS_FILES: [Artifact; 2] = [Artifact::Relationships, Artifact::RelationshipsAnnotations];

/// What every table's joins are read from, as one digest: the manifest (the tables and
/// their places, `context::joins_scope`) and the content of every relationships and
/// relationships annotation file, by their canonical names. It names the joins only
/// where every table's deciding files have those names ([`canonically_named`]).
pub(super) fn joins_version(state: &Snapshot) -> [u8; 32] {
    let named = JOINS_FILES.map(|a| state.versions.named(a.file_name()));
    let scope = context::joins_scope(state);
    Key::new(
        "validate_sql joins version",
        [scope.as_slice(), &named[0], &named[1]],
    )
    .digest()
}

/// Whether a table's deciding files all have the canonical names [`joins_version`]
/// digests (a manifest may declare others).
pub(super) fn canonically_named(deciders: &context::JoinsDeciders) -> bool {
    deciders.files.iter().all(|f| {
        let name = f.file_name().and_then(|n| n.to_str());
        JOINS_FILES.iter().any(|a| Some(a.file_name()) == name)
    })
}

/// The catalog for `state` from `before`, when every table's joins are as `before` read
/// them (its joins version is `state`'s) and the same tables are walkable: its tables in
/// their places with their joins, edges, rejections and lookups, and the columns of each
/// table whose record moved read again. `None`: the full build is needed.
pub(super) fn rebuilt(state: &Snapshot, before: &Catalog) -> Result<Option<Catalog>, QueryError> {
    let started = std::time::Instant::now();
    if before.joins_version != Some(joins_version(state)) {
        return Ok(None);
    }
    let search = &state.search;
    let walkable_before = before.read_from.iter().flatten().count();
    if walkable_before != search.tables.len() {
        return Ok(None);
    }
    // Each walkable table's place, and the ones whose record moved.
    let mut moved: HashMap<usize, usize> = HashMap::new();
    for (rank, entry) in search.tables.iter().enumerate() {
        // Nearly always at its rank: both lists are in FQN order.
        let Some(at) = before.position_near(&entry.fqn, Some(rank)) else {
            return Ok(None);
        };
        match before.read_from.get(at) {
            Some(Some(key)) if *key == entry.key => {}
            Some(Some(_)) => {
                moved.insert(rank, at);
            }
            _ => return Ok(None),
        }
    }
    let mut tables = before.tables.clone();
    let mut read_from = before.read_from.clone();
    // A moved table lists no columns unless its record is found, as in the full build.
    for (&rank, &at) in &moved {
        tables[at].columns = TableColumns::new(None);
        read_from[at] = Some(search.tables[rank].key);
    }
    let adapter = before.adapter;
    search
        .each_catalog_record(&|rank| moved.contains_key(&rank), &mut |rank, record| {
            if let Some(&at) = moved.get(&rank) {
                tables[at].columns = TableColumns::new(columns_of(adapter, record));
            }
        })
        .map_err(internal)?;
    for table in &mut tables {
        // Kept packed, as a catalog read back holds it.
        table.columns.release();
    }
    let rejected = before.rejected.values().flatten().cloned().collect();
    let order = Some(before.order.clone());
    let mut catalog = Catalog::assemble(adapter, tables, before.edges.clone(), rejected, order);
    catalog.read_from = read_from;
    catalog.joins_version = before.joins_version;
    tracing::debug!(moved = moved.len(), elapsed = ?started.elapsed(), "validate_sql catalog built from the one before, its joins unchanged");
    Ok(Some(catalog))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_deciding_files_of_the_canonical_names_let_the_joins_be_taken_whole() {
        let deciders = |files: &[&str]| context::JoinsDeciders {
            files: files.iter().map(std::path::PathBuf::from).collect(),
            ..Default::default()
        };
        assert!(canonically_named(&deciders(&[])));
        assert!(canonically_named(&deciders(&[
            "stacks/loans/relationships.yaml",
            "stacks/loans/relationships.annotations.yaml",
            "stacks/fines/relationships.annotations.yaml",
        ])));
        // A manifest that declares a table's relationships under another name: a change to
        // it would not move the digest of the canonical names.
        assert!(!canonically_named(&deciders(&[
            "stacks/loans/relationships.yaml",
            "stacks/fines/joins.yaml",
        ])));
        assert!(!canonically_named(&deciders(&[
            "stacks/loans/statistics.yaml"
        ])));
    }
}
