//! What the mirror holds for one connection, as a scan compares the disk with it: every
//! row's identity and content hash (a warm start), or one row at a time.

use std::path::Path;

use rusqlite::params;

use super::{identity_at, Mirror, MirrorError};
use crate::ingest::{FileIdentity, Parsed, Stored};
use crate::store::file_map::{ContentHash, FileMap};

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
    files: FileMap,
}

impl Maps {
    fn with_capacity(n: usize) -> Maps {
        Maps {
            files: FileMap::with_capacity(n),
        }
    }

    fn insert(&mut self, (path, hash, identity): StoredRow) {
        // A hash that does not read back is a damaged row: without it the file's bytes
        // are compared again when it is next read.
        let hash = hash.as_deref().and_then(ContentHash::from_hex);
        self.files.set(Path::new(&path), identity, hash);
    }

    fn into_stored(self, mirror: &Mirror) -> StoredFiles<'_> {
        StoredFiles {
            mirror,
            files: self.files,
            trusting: false,
        }
    }
}

/// A connection's stored identities, for a warm start.
pub struct StoredFiles<'a> {
    mirror: &'a Mirror,
    /// Every stored file: present with its identity and hash, or stored absent.
    files: FileMap,
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

    /// Every stored file, present or absent.
    pub fn into_files(self) -> FileMap {
        self.files
    }
}

impl Stored for StoredFiles<'_> {
    fn identity(&self, path: &Path) -> Option<FileIdentity> {
        self.files.identity(path)
    }

    fn parsed(&self, path: &Path) -> Option<Parsed> {
        self.mirror.parsed(path).ok().flatten()
    }

    fn hash(&self, path: &Path) -> Option<String> {
        self.files.hash(path).map(|h| h.to_string())
    }

    fn absent(&self, path: &Path) -> bool {
        self.files.is_absent(path)
    }

    /// An empty mirror (a rebuild, a first start): every file is read.
    fn holds_nothing(&self) -> bool {
        self.files.is_empty()
    }

    fn trusted(&self, path: &Path) -> Option<Option<FileIdentity>> {
        if !self.trusting {
            return None;
        }
        let tracked = self.files.get(path)?;
        match tracked.identity {
            Some(identity) => identity.settled.then_some(Some(identity)),
            None => Some(None),
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
