//! A writer's view of one connection while it applies a change under the writer lock:
//! a published snapshot's maps, brought up to the mirror's generation with the rows other
//! processes sharing the index wrote since the snapshot was built, then with the records
//! this writer read. What the writer stores is compared with this view, never with the
//! snapshot alone: a snapshot older than the mirror's rows would undo a newer state.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::file_map::{ContentHash, FileMap};
use super::mirror::{Mirror, WrittenRow};
use super::snapshot::ContentVersions;
use super::Snapshot;
use crate::ingest::{self, FileIdentity, FileRecord, Parsed, Scanned};

/// A snapshot and what moved since it: each moved path with its identity now (`None`:
/// absent) and content hash.
pub(super) struct Delta<'a> {
    base: &'a Snapshot,
    moved: HashMap<PathBuf, (Option<FileIdentity>, Option<ContentHash>)>,
}

/// The maps of a snapshot after a delta.
pub(super) struct Applied {
    pub files: FileMap,
    pub versions: ContentVersions,
    /// Every path the delta moved, with its identity now (`None`: absent).
    pub moved: HashMap<PathBuf, Option<FileIdentity>>,
}

impl<'a> Delta<'a> {
    pub(super) fn new(base: &'a Snapshot) -> Delta<'a> {
        Delta {
            base,
            moved: HashMap::new(),
        }
    }

    /// Whether nothing moved.
    pub(super) fn is_empty(&self) -> bool {
        self.moved.is_empty()
    }

    /// The paths moved so far.
    pub(super) fn paths(&self) -> impl Iterator<Item = &Path> {
        self.moved.keys().map(PathBuf::as_path)
    }

    /// A row another writer stored since the snapshot was built.
    pub(super) fn written(&mut self, row: WrittenRow) {
        let hash = row.hash.as_deref().and_then(ContentHash::from_hex);
        self.moved.insert(row.path, (row.identity, hash));
    }

    /// A record this writer read (not one found unchanged).
    pub(super) fn read(&mut self, record: &FileRecord) {
        let now = match (&record.scanned, record.identity) {
            (Scanned::Read(Parsed::Absent), _) | (_, None) => (None, None),
            (_, Some(identity)) => (
                Some(identity),
                record.hash.as_deref().and_then(ContentHash::from_hex),
            ),
        };
        self.moved.insert(record.path.clone(), now);
    }

    /// The snapshot's maps with every move applied.
    pub(super) fn apply(self) -> Applied {
        let mut files = self.base.files.clone();
        let mut versions = self.base.versions.clone();
        let mut moved = HashMap::with_capacity(self.moved.len());
        for (path, (identity, hash)) in self.moved {
            let old = files.set(&path, identity, hash).and_then(|t| t.hash);
            versions.update(&path, old, files.hash(&path));
            moved.insert(path, identity);
        }
        Applied {
            files,
            versions,
            moved,
        }
    }
}

/// What a view holds, as ingest's `Stored`: a file whose identity the view recorded is
/// not read again; one whose bytes hash as recorded is not parsed again.
pub(super) struct ViewKnown<'a> {
    pub delta: Option<&'a Delta<'a>>,
    pub state: &'a Snapshot,
    pub mirror: &'a Mirror,
}

impl ViewKnown<'_> {
    fn moved(&self, path: &Path) -> Option<&(Option<FileIdentity>, Option<ContentHash>)> {
        self.delta.and_then(|d| d.moved.get(path))
    }
}

impl ingest::Stored for ViewKnown<'_> {
    fn identity(&self, path: &Path) -> Option<FileIdentity> {
        match self.moved(path) {
            Some((identity, _)) => *identity,
            None => self.state.files.identity(path),
        }
    }
    fn parsed(&self, path: &Path) -> Option<Parsed> {
        self.mirror.parsed(path).ok().flatten()
    }
    fn hash(&self, path: &Path) -> Option<String> {
        match self.moved(path) {
            Some((_, hash)) => hash.map(|h| h.to_string()),
            None => self.state.files.hash(path).map(|h| h.to_string()),
        }
    }
    fn absent(&self, path: &Path) -> bool {
        match self.moved(path) {
            Some((identity, _)) => identity.is_none(),
            None => self.state.files.is_absent(path),
        }
    }
}
