//! A walkable table as the index keys it: the four files its documents are derived from
//! (statistics, their annotations, description.md, relationships.annotations.yaml), their
//! identities when ingest read them, and the key naming their contents.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{file_identity, INDEX_VERSION};
use crate::ingest::walk::Artifact;
use crate::ingest::FileIdentity;
use crate::store::file_map::FileMap;

/// A table's identity for the index: which files it was derived from, by content (its
/// statistics, their annotations, its description and its relationships' annotations, in
/// that order: [`TableEntry::indexed`]). A table whose key is unchanged keeps its documents.
pub fn table_key(connection: &str, fqn: &str, files: [Option<(&Path, &str)>; 4]) -> u64 {
    let mut h = blake3::Hasher::new();
    for part in [INDEX_VERSION, connection, fqn] {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    for file in files {
        match file {
            Some((path, version)) => {
                h.update(path.to_string_lossy().as_bytes());
                h.update(b"\0");
                h.update(version.as_bytes());
            }
            None => {
                h.update(b"-");
            }
        }
        h.update(b"\0");
    }
    let bytes = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&bytes.as_bytes()[..8]);
    u64::from_le_bytes(first)
}

/// A table key is a blake3 digest cut to 64 bits, as evenly spread as a hash can make it,
/// so a map keyed by it takes it as its own hash: a broad search looks up one per match.
#[derive(Default)]
pub struct TableKeyHasher(u64);

impl std::hash::Hasher for TableKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not reached for `u64` keys; any bytes still spread.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// A map from table keys (see [`TableKeyHasher`]).
pub type ByTableKey<V> =
    std::collections::HashMap<u64, V, std::hash::BuildHasherDefault<TableKeyHasher>>;

/// The manifest's artifact kinds a table's documents are derived from, in key order:
/// search_columns and resolve_value read the first two, find all four.
pub const INDEXED_KINDS: [Artifact; 4] = [
    Artifact::Statistics,
    Artifact::StatisticsAnnotations,
    Artifact::Description,
    Artifact::RelationshipsAnnotations,
];

/// One walkable table as a connection state sees it.
#[derive(Debug, Clone)]
pub struct TableEntry {
    pub fqn: String,
    pub key: u64,
    /// The declared statistics.yaml / statistics.annotations.yaml paths (shared with the
    /// snapshot's file map where it tracks them).
    pub stats: Option<Arc<Path>>,
    pub annotations: Option<Arc<Path>>,
    /// The declared description.md / relationships.annotations.yaml paths (find reads them).
    pub description: Option<Arc<Path>>,
    pub relationship_notes: Option<Arc<Path>>,
    /// Each indexed file's identity when ingest read it, in [`INDEXED_KINDS`] order
    /// (`None`: absent, not a file, or not declared).
    pub identities: [Option<FileIdentity>; 4],
    /// The manifest entry's `row_count`, when present and not null.
    pub row_count: Option<compat::value::Value>,
}

/// Every walkable table's indexed files of one kind, by the address of the path they
/// share with the snapshot's file map: what a sweep of every tracked file may skip when a
/// sweep of these vouched for them (a path not shared is never skipped, only `stat`ed).
pub struct SweptPaths(hashbrown::HashSet<usize>);

impl SweptPaths {
    /// `tables`' files of `which`.
    pub fn of(tables: &[TableEntry], which: Indexed) -> SweptPaths {
        let each = tables
            .iter()
            .flat_map(|t| t.indexed_shared().into_iter().take(which.count()).flatten());
        SweptPaths(each.map(address).collect())
    }

    /// Whether `path` (as the file map holds it) is one of them.
    pub fn holds(&self, path: &Arc<Path>) -> bool {
        self.0.contains(&address(path))
    }
}

/// A shared path's address: unique while the tables holding it live.
fn address(path: &Arc<Path>) -> usize {
    Arc::as_ptr(path).cast::<u8>() as usize
}

/// Which of a table's indexed files a freshness check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Indexed {
    /// Its statistics and their annotations (search_columns, resolve_value, validate_sql).
    Statistics,
    /// All four (find).
    Every,
}

impl Indexed {
    /// How many of a table's indexed files (in [`INDEXED_KINDS`] order) are of this kind.
    fn count(self) -> usize {
        match self {
            Indexed::Statistics => 2,
            Indexed::Every => 4,
        }
    }
}

impl TableEntry {
    /// [`TableEntry::indexed`], as held (shared with the snapshot's file map where it
    /// tracks them).
    pub fn indexed_shared(&self) -> [Option<&Arc<Path>>; 4] {
        [
            self.stats.as_ref(),
            self.annotations.as_ref(),
            self.description.as_ref(),
            self.relationship_notes.as_ref(),
        ]
    }

    /// The declared paths of the files its documents are derived from, in
    /// [`INDEXED_KINDS`] order.
    pub fn indexed(&self) -> [Option<&Path>; 4] {
        [
            self.stats.as_deref(),
            self.annotations.as_deref(),
            self.description.as_deref(),
            self.relationship_notes.as_deref(),
        ]
    }

    /// The files of `which` that moved on disk since ingest read them.
    fn moved_files(&self, which: Indexed) -> impl Iterator<Item = &Path> {
        self.indexed()
            .into_iter()
            .zip(self.identities)
            .take(which.count())
            .filter_map(|(path, stored)| path.filter(|p| file_identity(p) != stored))
    }

    /// The statistics files that moved, owned (`moved_files`).
    pub fn moved_paths(&self) -> Vec<PathBuf> {
        self.moved_of(Indexed::Statistics)
    }

    /// The files of `which` that moved, owned.
    pub fn moved_of(&self, which: Indexed) -> Vec<PathBuf> {
        self.moved_files(which).map(Path::to_path_buf).collect()
    }

    /// Whether either statistics file moved on disk since ingest read it: the state
    /// answering for this table is then out of date.
    pub fn moved(&self) -> bool {
        self.moved_files(Indexed::Statistics).next().is_some()
    }
}

/// A content version as the tables' keys name it: the blake3, or `absent`.
pub(super) fn version_of(hash: Option<&str>) -> String {
    hash.unwrap_or("absent").to_string()
}

/// A table's key from its indexed files' content versions in `tracked`.
pub(super) fn entry_key(
    conn: &str,
    fqn: &str,
    files: [Option<&Path>; 4],
    tracked: &FileMap,
) -> u64 {
    let versions = files.map(|p| p.map(|p| version_in(tracked, p)));
    let mut pairs = [None; 4];
    for (slot, (p, v)) in pairs.iter_mut().zip(files.iter().zip(&versions)) {
        *slot = p.zip(v.as_deref());
    }
    table_key(conn, fqn, pairs)
}

/// A file's content version as the tables' keys name it.
pub(super) fn version_in(tracked: &FileMap, path: &Path) -> String {
    version_of(tracked.hash(path).as_ref().map(|h| h.hex()).as_deref())
}

/// Every walkable table of a connection scan as the index keys it: by the content of its
/// searched files, with their identities (both from `tracked`). Made on every core:
/// each entry is a few lookups and a digest.
pub fn table_entries(
    conn: &str,
    tables: &[(String, PathBuf, compat::value::Value)],
    tracked: &FileMap,
) -> Vec<TableEntry> {
    // A file stored absent has no identity: it is not a file.
    let identity = |p: Option<&Path>| -> Option<FileIdentity> { tracked.identity(p?) };
    let entry_of = |(fqn, dir, entry): &(String, PathBuf, compat::value::Value)| {
        let declared = crate::ingest::walk::declared_artifacts(entry);
        let path_of = |kind: Artifact| {
            declared
                .iter()
                .find(|(k, _)| k == kind.name())
                .map(|(_, file)| {
                    let path = dir.join(file);
                    tracked
                        .shared_path(&path)
                        .unwrap_or_else(|| Arc::from(path))
                })
        };
        let [stats, annotations, description, relationship_notes] = INDEXED_KINDS.map(path_of);
        let mut entry = TableEntry {
            fqn: fqn.clone(),
            key: 0,
            row_count: entry
                .get("row_count")
                .filter(|v| !matches!(v, compat::value::Value::Null))
                .cloned(),
            identities: [None; 4],
            stats,
            annotations,
            description,
            relationship_notes,
        };
        entry.identities = entry.indexed().map(identity);
        entry.key = entry_key(conn, fqn, entry.indexed(), tracked);
        entry
    };
    crate::ingest::parts::in_parts(tables, 2048, usize::MAX, |part| {
        part.iter().map(entry_of).collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}
