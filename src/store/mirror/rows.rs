//! What the mirror holds for one connection, as a scan compares the disk with it: every
//! row's identity and content hash (a warm start), or one row at a time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::params;

use super::{identity_at, Mirror, MirrorError};
use crate::ingest::{FileIdentity, Parsed, Stored};

impl Mirror {
    /// Identities stored for one connection's files. The rows are taken under the lock and
    /// the maps built after it is let go, so a reader beside (a warm start's manifest)
    /// waits only for the query; [`Mirror::stored_in_place`] holds no copy of the rows.
    pub fn stored(&self, connection: &str) -> Result<StoredFiles<'_>, MirrorError> {
        let mut rows = Vec::new();
        self.each_stored(connection, |row| rows.push(row))?;
        let mut maps = Maps::with_capacity(rows.len());
        for row in rows {
            maps.insert(row);
        }
        Ok(maps.into_stored(self))
    }

    /// [`Mirror::stored`], each row put in the maps as it is read (under the lock): for a
    /// large connection just written, whose rows are not held twice.
    pub fn stored_in_place(&self, connection: &str) -> Result<StoredFiles<'_>, MirrorError> {
        let mut maps = Maps::with_capacity(0);
        self.each_stored(connection, |row| maps.insert(row))?;
        Ok(maps.into_stored(self))
    }

    /// Every stored (path, hash, identity) of `connection`.
    fn each_stored(
        &self,
        connection: &str,
        mut each: impl FnMut(StoredRow),
    ) -> Result<(), MirrorError> {
        let db = self.db();
        let mut stmt = db.prepare(
            "SELECT path, mtime_ns, size, inode, hash, settled FROM files WHERE connection = ?1",
        )?;
        let rows = stmt.query_map(params![connection], |r| {
            let identity = identity_at(r, 1, 5)?;
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(4)?,
                identity,
            ))
        })?;
        for row in rows {
            each(row?);
        }
        Ok(())
    }
}

/// One stored file: its path, content hash and identity.
type StoredRow = (String, Option<String>, Option<FileIdentity>);

/// [`StoredFiles`] while it is filled.
struct Maps {
    identities: HashMap<PathBuf, FileIdentity>,
    hashes: HashMap<PathBuf, String>,
    absent: std::collections::HashSet<PathBuf>,
}

impl Maps {
    fn with_capacity(n: usize) -> Maps {
        Maps {
            identities: HashMap::with_capacity(n),
            hashes: HashMap::with_capacity(n),
            absent: std::collections::HashSet::new(),
        }
    }

    fn insert(&mut self, (path, hash, identity): StoredRow) {
        let path = PathBuf::from(path);
        if let Some(h) = hash {
            self.hashes.insert(path.clone(), h);
        }
        match identity {
            Some(identity) => {
                self.identities.insert(path, identity);
            }
            None => {
                self.absent.insert(path);
            }
        }
    }

    fn into_stored(self, mirror: &Mirror) -> StoredFiles<'_> {
        StoredFiles {
            mirror,
            identities: self.identities,
            hashes: self.hashes,
            absent: self.absent,
            trusting: false,
        }
    }
}

/// A connection's stored identities, for a warm start.
pub struct StoredFiles<'a> {
    mirror: &'a Mirror,
    identities: HashMap<PathBuf, FileIdentity>,
    hashes: HashMap<PathBuf, String>,
    /// Paths stored as declared but absent.
    absent: std::collections::HashSet<PathBuf>,
    /// A start's scan: settled stored identities and stored absences stand unchecked.
    trusting: bool,
}

impl StoredFiles<'_> {
    /// Let a scan take every settled stored identity (and stored absence) as the disk's
    /// without a `stat`: a start, whose snapshot the catch-up checks (see
    /// `ingest::Stored::trusted`).
    pub fn trusting(mut self) -> Self {
        self.trusting = true;
        self
    }

    /// The stored identities and content hashes by path, and the paths stored absent.
    pub fn into_parts(self) -> StoredParts {
        (self.identities, self.hashes, self.absent)
    }
}

impl Stored for StoredFiles<'_> {
    fn identity(&self, path: &Path) -> Option<FileIdentity> {
        self.identities.get(path).copied()
    }

    fn parsed(&self, path: &Path) -> Option<Parsed> {
        self.mirror.parsed(path).ok().flatten()
    }

    fn hash(&self, path: &Path) -> Option<String> {
        self.hashes.get(path).cloned()
    }

    fn absent(&self, path: &Path) -> bool {
        self.absent.contains(path)
    }

    fn trusted(&self, path: &Path) -> Option<Option<FileIdentity>> {
        if !self.trusting {
            return None;
        }
        match self.identities.get(path) {
            Some(identity) => identity.settled.then_some(Some(*identity)),
            None => self.absent.contains(path).then_some(None),
        }
    }
}

/// What the mirror holds, looked up a row at a time: for the few files a scan reads
/// before the whole connection's stored identities are loaded.
pub struct RowLookup<'a>(pub &'a Mirror);

impl Stored for RowLookup<'_> {
    fn identity(&self, path: &Path) -> Option<FileIdentity> {
        self.0.status(path).ok().flatten()?.identity
    }

    fn parsed(&self, path: &Path) -> Option<Parsed> {
        self.0.parsed(path).ok().flatten()
    }

    fn hash(&self, path: &Path) -> Option<String> {
        self.0.status(path).ok().flatten()?.hash
    }

    /// As [`StoredFiles`]: a row without an identity.
    fn absent(&self, path: &Path) -> bool {
        self.0
            .status(path)
            .ok()
            .flatten()
            .is_some_and(|s| s.identity.is_none())
    }
}

/// Identities and hashes by path, and the paths stored absent.
pub type StoredParts = (
    HashMap<PathBuf, FileIdentity>,
    HashMap<PathBuf, String>,
    std::collections::HashSet<PathBuf>,
);
