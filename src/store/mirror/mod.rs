//! The SQLite mirror: what ingest read, persisted so a restart re-reads only what
//! changed, and so requests never parse YAML. One writer; reads share the same
//! connection behind a lock (SQLite in WAL mode lets a second process read).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Recover;
use crate::ingest::{
    self, ConnectionScan, FileIdentity, FileRecord, ManifestRead, Parsed, Scanned,
};
use compat::value::{packed, Value};

mod generation;
mod inspect;
mod parse_row;
mod pz;
mod rows;
mod status;
mod walk;

use generation::Stamps;
pub use generation::{Written, WrittenRow};
pub use inspect::{ConnectionInspection, Inspection};
use parse_row::StoredParse;
pub use rows::{RowLookup, StoredFiles};
pub use status::ParseStatus;
#[cfg(test)]
mod tests;

const SCHEMA: &str = include_str!("../../../schema.sql");
/// Bump when `schema.sql` or the stored value encoding changes.
pub const SCHEMA_VERSION: &str = "12";

#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    #[error("mirror database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("mirror value encoding: {0}")]
    Encoding(#[from] serde_json::Error),
    /// A stored parse that does not decode (`compat::value::packed`).
    #[error("mirror value: {0}")]
    Packed(#[from] packed::PackedError),
    /// The search index beside the mirror failed.
    #[error(transparent)]
    Index(#[from] crate::store::search::IndexError),
    /// A call named a source this store does not serve: a connection, or a pz project.
    #[error("{0}")]
    NotServed(String),
    /// Every index location a write tried failed, and none said why.
    #[error("no index location could be written")]
    NoLocation,
    #[error("mirror directory {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The mirror's file is not a sound database of ours (`PRAGMA quick_check` failed, or
    /// it is not a file): set aside and made again.
    #[error("mirror damaged: {0}")]
    Damaged(String),
    /// The index location as a whole failed (see `store::location`).
    #[error(transparent)]
    Location(#[from] crate::store::location::LocationError),
}

impl MirrorError {
    /// Whether the failure says the location itself cannot be written (full, read-only,
    /// not openable), rather than that what it holds is damaged.
    pub fn unusable_location(&self) -> bool {
        use rusqlite::ErrorCode as C;
        match self {
            MirrorError::Sql(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.code,
                C::DiskFull
                    | C::ReadOnly
                    | C::CannotOpen
                    | C::PermissionDenied
                    | C::SystemIoFailure
            ),
            MirrorError::Io { .. } | MirrorError::Location(_) => true,
            MirrorError::Index(e) => e.unusable_location(),
            MirrorError::Sql(_) | MirrorError::Encoding(_) | MirrorError::Packed(_) => false,
            MirrorError::Damaged(_) | MirrorError::NotServed(_) | MirrorError::NoLocation => false,
        }
    }
}

/// The mirror's file in an index directory.
pub const MIRROR_FILE: &str = "mirror.sqlite";

/// How long a write waits for another process's write to finish.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

pub struct Mirror {
    /// The connection every write (and a scan's reads) goes through.
    db: Mutex<Connection>,
    /// Read-only connections for the point reads a call makes (a file's row, its parse, a
    /// diff's items): in WAL mode they read beside the writer, so a call never queues
    /// behind its long statements (a start reading every row of a large print).
    readers: Mutex<Vec<Connection>>,
    path: PathBuf,
    /// The file's inode when opened: another there (or none) means the location was
    /// removed or replaced under this process.
    inode: Option<u64>,
    /// What opening found at `path`.
    opened: super::Opened,
}

/// Read-only connections kept for later reads: as many as calls read at once, at most.
const READERS_KEPT: usize = 4;

/// A stored file's identity, content hash and parse outcome.
#[derive(Debug, Clone)]
pub struct FileStatus {
    pub identity: Option<FileIdentity>,
    pub hash: Option<String>,
    pub parse_status: ParseStatus,
    pub parse_error: Option<String>,
    pub fqn: Option<String>,
    pub kind: String,
}

/// One stored file row, without its parsed value.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub path: PathBuf,
    pub kind: String,
    pub fqn: Option<String>,
    pub identity: Option<FileIdentity>,
    pub hash: Option<String>,
    pub parse_status: ParseStatus,
}

impl Mirror {
    /// Open (or create) the mirror at `dir/mirror.sqlite`; a mirror of another schema
    /// version is discarded, since it is only a cache.
    pub fn open(dir: &Path) -> Result<Mirror, MirrorError> {
        Mirror::open_checked(dir, false)
    }

    /// `open`, running `PRAGMA quick_check` over a mirror kept when `verify` (the last
    /// shutdown was not clean, or the files moved since): a damaged one is
    /// `MirrorError::Damaged`, for the caller to set aside.
    pub fn open_checked(dir: &Path, verify: bool) -> Result<Mirror, MirrorError> {
        std::fs::create_dir_all(dir).map_err(|source| MirrorError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(MIRROR_FILE);
        if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
            return Err(MirrorError::Damaged(format!(
                "{} is not a file",
                path.display()
            )));
        }
        let mut db = Connection::open(&path)?;
        let mut opened = if has_tables(&db) {
            super::Opened::Reused
        } else {
            super::Opened::Created
        };
        if !version_matches(&db) {
            opened = super::Opened::Replaced;
            drop(db);
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            db = Connection::open(&path)?;
        }
        if verify && opened == super::Opened::Reused {
            quick_check(&db)?;
        }
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "NORMAL")?;
        // A cold ingest writes the whole mirror through the WAL; left at that size, every
        // later open pays to index it again. Checkpoints cut it back to this.
        db.pragma_update(None, "journal_size_limit", 8 * 1024 * 1024)?;
        db.busy_timeout(BUSY_TIMEOUT)?;
        db.execute_batch(SCHEMA)?;
        db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?1)",
            params![SCHEMA_VERSION],
        )?;
        db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('instance', ?1)",
            params![new_instance(&path)],
        )?;
        let inode = crate::ingest::file_identity(&path).map(|id| id.inode);
        Ok(Mirror {
            db: Mutex::new(db),
            readers: Mutex::default(),
            path,
            inode,
            opened,
        })
    }

    /// Open the mirror at `dir/mirror.sqlite` while another process holds the writer lock
    /// and works on it: nothing is created, replaced or written, and nothing is checked
    /// (the holder checked what it opened). `None` unless there is a mirror of this
    /// version, in WAL mode, to read beside it.
    pub fn open_beside_writer(dir: &Path) -> Result<Option<Mirror>, MirrorError> {
        use rusqlite::OpenFlags;
        let path = dir.join(MIRROR_FILE);
        if !path.symlink_metadata().is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let db = Connection::open_with_flags(&path, flags)?;
        db.busy_timeout(BUSY_TIMEOUT)?;
        let wal: String = db.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
        if !wal.eq_ignore_ascii_case("wal") || !has_tables(&db) || !version_matches(&db) {
            return Ok(None);
        }
        // This connection's own settings, as `open_checked` makes them.
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.pragma_update(None, "journal_size_limit", 8 * 1024 * 1024)?;
        let inode = crate::ingest::file_identity(&path).map(|id| id.inode);
        Ok(Some(Mirror {
            db: Mutex::new(db),
            readers: Mutex::default(),
            path,
            inode,
            opened: super::Opened::Reused,
        }))
    }

    /// This mirror's instance: made when the file was, so a generation of one mirror is
    /// never taken for the same number of another made at the same path since
    /// (`store::image` names what it keeps by both).
    pub fn instance(&self) -> Option<String> {
        self.db()
            .query_row("SELECT value FROM meta WHERE key = 'instance'", [], |r| {
                r.get(0)
            })
            .optional()
            .ok()
            .flatten()
    }

    /// Whether the file this mirror writes is still the one at its path (the index
    /// directory was not removed or replaced under this process).
    pub fn intact(&self) -> bool {
        crate::ingest::file_identity(&self.path).map(|id| id.inode) == self.inode
    }

    /// `PRAGMA quick_check` over the open mirror.
    pub fn verify(&self) -> Result<(), MirrorError> {
        quick_check(&self.db())
    }

    /// Whether opening created, reused or replaced the mirror.
    pub fn opened(&self) -> super::Opened {
        self.opened
    }

    /// Move what the WAL holds into the database and truncate it, after a large write
    /// (a whole-connection apply). Readers in other processes may keep part of it; that
    /// is not an error.
    pub fn checkpoint(&self) -> Result<(), MirrorError> {
        let db = self.db();
        // Never wait for another process's readers: a checkpoint left for later is fine.
        db.busy_timeout(std::time::Duration::ZERO)?;
        let done = db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        db.busy_timeout(BUSY_TIMEOUT)?;
        match done {
            Ok(()) | Err(rusqlite::Error::SqliteFailure(_, _)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (transactions roll back).
        self.db.lock().recover()
    }

    /// `read` over a connection for a point read: a pooled read-only one, opened when none
    /// is free; the writer's when one cannot be opened (the file went: the writer's still
    /// reads it).
    fn reading<T>(&self, read: impl FnOnce(&Connection) -> T) -> T {
        let pooled = self.readers.lock().recover().pop();
        match pooled.map_or_else(|| self.open_reader(), Ok) {
            Ok(conn) => {
                let read = read(&conn);
                let mut pool = self.readers.lock().recover();
                if pool.len() < READERS_KEPT {
                    pool.push(conn);
                }
                read
            }
            Err(e) => {
                tracing::debug!("a read-only connection to the mirror did not open: {e}");
                read(&self.db())
            }
        }
    }

    fn open_reader(&self) -> Result<Connection, rusqlite::Error> {
        use rusqlite::OpenFlags;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(&self.path, flags)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        Ok(conn)
    }

    /// The parse stored for `path`.
    pub fn parsed(&self, path: &Path) -> Result<Option<Parsed>, MirrorError> {
        Ok(self.parsed_where(path, None)?.map(|(parsed, _)| parsed))
    }

    /// The parse stored for `path` with the content hash of the bytes it was parsed from
    /// (`None`: stored absent, or no row).
    pub fn parsed_with_hash(&self, path: &Path) -> Result<(Parsed, Option<String>), MirrorError> {
        Ok(self
            .parsed_where(path, None)?
            .unwrap_or((Parsed::Absent, None)))
    }

    /// The parse stored for `path` when its row holds the content `hash` names; `None`
    /// when the row holds other bytes (rewritten since the caller learned the hash) or
    /// there is none.
    pub fn parsed_as(&self, path: &Path, hash: &str) -> Result<Option<Parsed>, MirrorError> {
        Ok(self
            .parsed_where(path, Some(hash))?
            .map(|(parsed, _)| parsed))
    }

    fn parsed_where(
        &self,
        path: &Path,
        hash: Option<&str>,
    ) -> Result<Option<(Parsed, Option<String>)>, MirrorError> {
        type Row = (ParseStatus, Option<String>, Option<Vec<u8>>, Option<String>);
        /// The row, and a split file's items, read in the same read as its row.
        type Read = Option<(Row, Option<Vec<Value>>)>;
        let read = self.reading(|db| -> Result<Read, MirrorError> {
            // Cached on the pooled connection: a whole print's reads (validate_sql's joins)
            // would otherwise parse the statement once per file.
            let row: Option<Row> = db
                .prepare_cached(
                    "SELECT parse_status, parse_error, parsed, hash FROM files WHERE path = ?1 AND (?2 IS NULL OR hash = ?2)",
                )?
                .query_row(params![path.to_string_lossy(), hash], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let items = match row.0 {
                ParseStatus::Split => Some(Self::items_on(db, row.3.as_deref().unwrap_or_default())?),
                _ => None,
            };
            Ok(Some((row, items)))
        })?;
        let Some(((status, error, parsed, hash), items)) = read else {
            return Ok(None);
        };
        if let Some(items) = items {
            let mut whole = packed_or_null(parsed.as_deref())?;
            if let Value::Map(pairs) = &mut whole {
                if let Some((_, list)) = std::sync::Arc::make_mut(pairs)
                    .iter_mut()
                    .find(|(k, _)| k.as_str() == Some(ingest::SPLIT_KEY))
                {
                    *list = Value::seq(items);
                }
            }
            return Ok(Some((Parsed::Yaml(whole), hash)));
        }
        // Decoded with no connection held: a manifest runs to megabytes.
        let parsed = match status {
            ParseStatus::Ok => Parsed::Yaml(packed_or_null(parsed.as_deref())?),
            ParseStatus::YamlError => Parsed::YamlError(error.unwrap_or_default()),
            ParseStatus::OtherError => Parsed::OtherError(error.unwrap_or_default()),
            ParseStatus::Text => Parsed::Text,
            // Stored as its UTF-8 bytes; only a damaged row would need the lossy copy.
            ParseStatus::Prose => Parsed::Prose(
                String::from_utf8(parsed.unwrap_or_default())
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
            ParseStatus::Split | ParseStatus::Absent => Parsed::Absent,
        };
        Ok(Some((parsed, hash)))
    }

    /// A split file's row (its document with the list emptied) while the row holds the
    /// content `hash` names; `None` when it holds other bytes or was not read in pieces.
    pub fn split_header(&self, path: &Path, hash: &str) -> Result<Option<Value>, MirrorError> {
        let parsed: Option<Option<Vec<u8>>> = self.reading(|db| {
            db.query_row(
                "SELECT parsed FROM files WHERE path = ?1 AND hash = ?2 AND parse_status = 'split'",
                params![path.to_string_lossy(), hash],
                |r| r.get(0),
            )
            .optional()
        })?;
        match parsed {
            Some(bytes) => Ok(Some(packed_or_null(bytes.as_deref())?)),
            None => Ok(None),
        }
    }

    /// Each item of the split list stored under `hash`, in order, with its position, until
    /// `each` fails (the inner result is its). Read a chunk at a time and decoded with the
    /// lock let go: a diff runs to hundreds of thousands of items, and other readers share
    /// the connection.
    pub fn each_item<E>(
        &self,
        hash: &str,
        mut each: impl FnMut(u32, Value) -> Result<(), E>,
    ) -> Result<Result<(), E>, MirrorError> {
        const CHUNK: i64 = 2048;
        let mut from = 0i64;
        loop {
            let rows: Vec<(i64, Vec<u8>)> = self.reading(|db| {
                let mut stmt = db.prepare_cached(
                    "SELECT ord, parsed FROM file_items WHERE hash = ?1 AND ord >= ?2 ORDER BY ord LIMIT ?3",
                )?;
                let rows =
                    stmt.query_map(params![hash, from, CHUNK], |r| Ok((r.get(0)?, r.get(1)?)))?;
                rows.collect::<Result<_, rusqlite::Error>>()
            })?;
            let Some(&(last, _)) = rows.last() else {
                return Ok(Ok(()));
            };
            let full = rows.len() as i64 == CHUNK;
            for (ord, bytes) in rows {
                if let Err(e) = each(ord as u32, packed::from_bytes(&bytes)?) {
                    return Ok(Err(e));
                }
            }
            if !full {
                return Ok(Ok(()));
            }
            from = last + 1;
        }
    }

    /// The items at `ords` of the split list stored under `hash`, in the order asked;
    /// `None` for one the mirror no longer holds (its file was rewritten since).
    pub fn items_at(&self, hash: &str, ords: &[u32]) -> Result<Vec<Option<Value>>, MirrorError> {
        let found: Vec<Option<Vec<u8>>> = self.reading(|db| {
            // One read transaction for them all: each query on its own would take and
            // let go of the database's shared lock.
            let tx = db.unchecked_transaction()?;
            let mut stmt =
                tx.prepare_cached("SELECT parsed FROM file_items WHERE hash = ?1 AND ord = ?2")?;
            let found = ords
                .iter()
                .map(|&ord| {
                    stmt.query_row(params![hash, ord as i64], |r| r.get(0))
                        .optional()
                })
                .collect::<Result<_, _>>()?;
            drop(stmt);
            tx.commit()?;
            Ok::<_, rusqlite::Error>(found)
        })?;
        found
            .into_iter()
            .map(|bytes| {
                bytes
                    .map(|b| packed::from_bytes(&b))
                    .transpose()
                    .map_err(Into::into)
            })
            .collect()
    }

    /// The items of a split file's list, in order, by its content hash.
    fn items_on(db: &Connection, hash: &str) -> Result<Vec<Value>, MirrorError> {
        let mut stmt =
            db.prepare_cached("SELECT parsed FROM file_items WHERE hash = ?1 ORDER BY ord")?;
        let rows = stmt.query_map(params![hash], |r| r.get::<_, Vec<u8>>(0))?;
        let mut items = Vec::new();
        for row in rows {
            items.push(packed::from_bytes(&row?)?);
        }
        Ok(items)
    }

    /// Store items `first..` of a split file's list under its content hash: a split read
    /// hands them over before the file's row is written, and a row's write sweeps the
    /// items no split row names (`sweep_items_on`).
    pub fn store_items(&self, hash: &str, first: u64, items: &[Value]) -> Result<(), MirrorError> {
        let mut db = self.db();
        let tx = db.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO file_items (hash, ord, parsed) VALUES (?1, ?2, ?3)",
            )?;
            for (i, item) in items.iter().enumerate() {
                let ord = (first + i as u64) as i64;
                insert.execute(params![hash, ord, packed::to_bytes(item)])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Drop the items no split row names: those of a file since rewritten or gone, and
    /// those of a split read that gave up (the file was then parsed whole).
    fn sweep_items_on(db: &Connection) -> Result<(), MirrorError> {
        db.prepare_cached(
            "DELETE FROM file_items WHERE hash NOT IN (SELECT hash FROM files WHERE parse_status = 'split' AND hash IS NOT NULL)",
        )?
        .execute([])?;
        Ok(())
    }

    /// Every stored file row of one connection.
    pub fn files(&self, connection: &str) -> Result<Vec<FileRow>, MirrorError> {
        let db = self.db();
        let mut stmt = db.prepare(
            "SELECT path, kind, fqn, mtime_ns, size, inode, hash, parse_status, settled FROM files WHERE connection = ?1 ORDER BY path",
        )?;
        let rows = stmt.query_map(params![connection], |r| {
            Ok(FileRow {
                path: PathBuf::from(r.get::<_, String>(0)?),
                kind: r.get(1)?,
                fqn: r.get(2)?,
                identity: identity_at(r, 3, 8)?,
                hash: r.get(6)?,
                parse_status: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Store one connection's scan in a single transaction: a reader never sees half of it.
    /// Every row it writes is stamped with the connection's next generation; rows that go,
    /// or tables that change, mark the connection reshaped (see `generation`).
    pub fn apply(
        &self,
        connection: &str,
        print_root: &Path,
        scan: &ConnectionScan,
    ) -> Result<Vec<PathBuf>, MirrorError> {
        let mut db = self.db();
        let tx = db.transaction()?;
        let mut stamps = Stamps::new(&tx);
        let generation = stamps.of(connection)?;
        let mismatched = Self::apply_files(&tx, scan, generation)?;
        let gone = Self::forget_gone(&tx, connection, scan)?;
        let fingerprint = fingerprint(scan);
        let before: Option<String> = tx
            .query_row(
                "SELECT fingerprint FROM connections WHERE name = ?1",
                params![connection],
                |r| r.get(0),
            )
            .optional()?;
        if gone > 0 || before.as_deref() != Some(fingerprint.as_str()) {
            stamps.reshaped(connection)?;
        }
        tx.execute(
            "DELETE FROM tables WHERE connection = ?1",
            params![connection],
        )?;
        {
            let mut table = tx.prepare_cached(
                "INSERT OR REPLACE INTO tables (connection, fqn, table_dir) VALUES (?1, ?2, ?3)",
            )?;
            for (fqn, dir, _) in &scan.tables {
                table.execute(params![connection, fqn, dir.to_string_lossy()])?;
            }
        }
        let (state, reason, dropped) = match &scan.manifest {
            ManifestRead::Absent => ("absent", None, &[][..]),
            ManifestRead::Unparseable(r) => ("unparseable", Some(r), &[][..]),
            ManifestRead::Malformed(r) => ("malformed", Some(r), &[][..]),
            ManifestRead::Failed(r) => ("failed", Some(r), &[][..]),
            ManifestRead::Ok { dropped, .. } => ("ok", None, dropped.as_slice()),
        };
        tx.execute(
            "INSERT OR REPLACE INTO connections (name, print_root, manifest_state, manifest_reason, dropped, fingerprint)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![connection, print_root.to_string_lossy(), state, reason, serde_json::to_string(dropped)?, fingerprint],
        )?;
        drop(stamps);
        tx.commit()?;
        // Same bytes as this process knew them, but the row holds another version (another
        // process wrote it since): the caller reads these files again in full.
        Ok(mismatched)
    }

    /// `apply`'s file rows: each record stored, or its identity noted, under `generation`;
    /// the touched records whose rows hold other bytes are returned.
    fn apply_files(
        tx: &Connection,
        scan: &ConnectionScan,
        generation: u64,
    ) -> Result<Vec<PathBuf>, MirrorError> {
        let mut mismatched = Vec::new();
        // An unchanged file's row keeps its generation: only its naming is set again.
        let mut touch = tx.prepare_cached(
            "UPDATE files SET fqn = ?2, kind = ?3, mtime_ns = COALESCE(?4, mtime_ns), size = COALESCE(?5, size), inode = COALESCE(?6, inode), settled = COALESCE(?7, settled), generation = COALESCE(?9, generation) WHERE path = ?1 AND (?8 IS NULL OR hash = ?8)",
        )?;
        for f in &scan.files {
            if f.scanned == Scanned::Stored {
                // Stored by the scan's spill already: its row is this record.
                continue;
            }
            if matches!(f.scanned, Scanned::Unchanged | Scanned::Touched) {
                let touched = f.scanned == Scanned::Touched;
                let id = f.identity.filter(|_| touched);
                let changed = touch.execute(params![
                    f.path.to_string_lossy(),
                    f.fqn,
                    f.kind,
                    id.map(|i| i.mtime_ns),
                    id.map(|i| i.size as i64),
                    id.map(|i| i.inode as i64),
                    id.map(|i| i.settled),
                    f.hash.as_deref().filter(|_| touched),
                    touched.then_some(generation as i64),
                ])?;
                if touched && changed == 0 {
                    mismatched.push(f.path.clone());
                }
                continue;
            }
            Self::upsert_on(tx, f, generation)?;
        }
        Ok(mismatched)
    }

    /// Remove the rows of `connection` for files `scan` no longer implies; how many went.
    /// The stored paths are read and each compared with the scan's (a set of borrowed
    /// paths, not a copy of them).
    fn forget_gone(
        tx: &Connection,
        connection: &str,
        scan: &ConnectionScan,
    ) -> Result<usize, MirrorError> {
        let keep: std::collections::HashSet<std::borrow::Cow<str>> = scan
            .files
            .iter()
            .map(|f| f.path.to_string_lossy())
            .collect();
        let gone: Vec<String> = {
            let mut stmt = tx.prepare("SELECT path FROM files WHERE connection = ?1")?;
            let rows = stmt.query_map(params![connection], |r| r.get::<_, String>(0))?;
            let mut gone = Vec::new();
            for path in rows {
                let path = path?;
                if !keep.contains(path.as_str()) {
                    gone.push(path);
                }
            }
            gone
        };
        drop(keep);
        let mut forget = tx.prepare_cached("DELETE FROM files WHERE path = ?1")?;
        for path in &gone {
            forget.execute(params![path])?;
        }
        Ok(gone.len())
    }

    /// Store the records a scan just read (its spill): every record that is not an identity
    /// note, in one transaction.
    pub fn store_read(&self, records: &[FileRecord]) -> Result<(), MirrorError> {
        // Packed before the lock: a scan's workers store their batches in turn, and
        // packing is most of a batch's store.
        let rows: Vec<Option<StoredParse>> = records
            .iter()
            .map(|f| f.scanned.read().map(StoredParse::of))
            .collect();
        let mut db = self.db();
        let tx = db.transaction()?;
        let mut stamps = Stamps::new(&tx);
        for (f, row) in records.iter().zip(rows) {
            if let Some(row) = row {
                Self::insert_on(&tx, f, row, stamps.of(&f.connection)?)?;
            }
        }
        drop(stamps);
        tx.commit()?;
        Ok(())
    }

    /// One stored file's identity, hash and parse outcome, without its (possibly large)
    /// parsed value.
    pub fn status(&self, path: &Path) -> Result<Option<FileStatus>, MirrorError> {
        let row = self.reading(|db| {
            db.query_row(
                "SELECT mtime_ns, size, inode, hash, parse_status, parse_error, fqn, kind, settled FROM files WHERE path = ?1",
                params![path.to_string_lossy()],
                |r| {
                    let identity = identity_at(r, 0, 8)?;
                    Ok(FileStatus {
                        identity,
                        hash: r.get(3)?,
                        parse_status: r.get(4)?,
                        parse_error: r.get(5)?,
                        fqn: r.get(6)?,
                        kind: r.get(7)?,
                    })
                },
            )
            .optional()
        })?;
        Ok(row)
    }

    /// Store files read outside a connection scan, in one transaction.
    /// The paths returned are touched records whose rows hold other bytes (see
    /// `upsert_on`): nothing was stored for them.
    pub fn upsert_files(&self, records: &[FileRecord]) -> Result<Vec<PathBuf>, MirrorError> {
        let mut db = self.db();
        let tx = db.transaction()?;
        let mut stamps = Stamps::new(&tx);
        let mut mismatched = Vec::new();
        for f in records {
            if matches!(f.scanned, Scanned::Unchanged | Scanned::Stored) {
                continue;
            }
            if !Self::upsert_on(&tx, f, stamps.of(&f.connection)?)? {
                mismatched.push(f.path.clone());
            }
        }
        drop(stamps);
        tx.commit()?;
        Ok(mismatched)
    }

    /// Store one file read outside a connection scan (a request found it changed);
    /// `false` as `upsert_files` reports a mismatch.
    pub fn upsert_file(&self, f: &FileRecord) -> Result<bool, MirrorError> {
        Ok(self.upsert_files(std::slice::from_ref(f))?.is_empty())
    }

    /// `false`: a touched record (same bytes under a new identity) whose row holds other
    /// bytes; nothing was written and the file must be read again in full.
    /// The row written is stamped with `generation`.
    fn upsert_on(db: &Connection, f: &FileRecord, generation: u64) -> Result<bool, MirrorError> {
        let parsed = match &f.scanned {
            Scanned::Read(parsed) => parsed,
            // An unchanged record carries nothing new to store.
            Scanned::Unchanged | Scanned::Stored => return Ok(true),
            // Same content under a new identity: the stored parse stands.
            Scanned::Touched => {
                let id = f.identity;
                let changed = db.execute(
                    "UPDATE files SET mtime_ns = ?2, size = ?3, inode = ?4, settled = ?5, generation = ?7 WHERE path = ?1 AND hash = ?6",
                    params![
                        f.path.to_string_lossy(),
                        id.map(|i| i.mtime_ns),
                        id.map(|i| i.size as i64),
                        id.map(|i| i.inode as i64),
                        id.map(|i| i.settled),
                        f.hash,
                        generation as i64
                    ],
                )?;
                return Ok(changed > 0);
            }
        };
        Self::insert_on(db, f, StoredParse::of(parsed), generation)?;
        Ok(true)
    }

    /// Whether storing `scan` would change nothing but identities: every file's bytes as
    /// stored (unchanged, or touched) and the same outcome.
    pub fn unchanged(&self, connection: &str, scan: &ConnectionScan) -> Result<bool, MirrorError> {
        if scan
            .files
            .iter()
            .any(|f| !matches!(f.scanned, Scanned::Unchanged | Scanned::Touched))
        {
            return Ok(false);
        }
        let stored: Option<String> = self
            .db()
            .query_row(
                "SELECT fingerprint FROM connections WHERE name = ?1",
                params![connection],
                |r| r.get(0),
            )
            .optional()?;
        let count: i64 = self.db().query_row(
            "SELECT count(*) FROM files WHERE connection = ?1",
            params![connection],
            |r| r.get(0),
        )?;
        Ok(stored.as_deref() == Some(fingerprint(scan).as_str())
            && count as usize == scan.files.len())
    }

    /// Note a whole-connection reconcile for `index status`: when, how many files it
    /// looked at, how many it read again, how long it took.
    pub fn record_reconcile(
        &self,
        connection: &str,
        files: usize,
        reread: usize,
        elapsed: std::time::Duration,
    ) -> Result<(), MirrorError> {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let value = serde_json::json!({
            "at": at, "files": files, "reread": reread, "ms": elapsed.as_millis() as u64,
        });
        self.db().execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            params![format!("last_reconcile:{connection}"), value.to_string()],
        )?;
        Ok(())
    }

    /// Sizes for `index status`: (files, tables, bytes on disk).
    pub fn counts(&self) -> Result<(i64, i64, u64), MirrorError> {
        let db = self.db();
        let files: i64 = db.query_row("SELECT count(*) FROM files", [], |r| r.get(0))?;
        let tables: i64 = db.query_row("SELECT count(*) FROM tables", [], |r| r.get(0))?;
        let bytes = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        Ok((files, tables, bytes))
    }
}

/// The outcome of a scan apart from file contents: manifest state, dropped entries, tables.
fn fingerprint(scan: &ConnectionScan) -> String {
    // Written out whole, then hashed once: many small updates cost more than the bytes.
    let mut h: Vec<u8> = Vec::with_capacity(64 * (scan.files.len() + scan.tables.len()));
    match &scan.manifest {
        ManifestRead::Ok { dropped, .. } => {
            h.extend_from_slice(b"ok\0");
            for d in dropped {
                h.extend_from_slice(d.as_bytes());
                h.extend_from_slice(b"\0");
            }
        }
        other => {
            h.extend_from_slice(format!("{other:?}").as_bytes());
        }
    }
    for (fqn, dir, _) in &scan.tables {
        h.extend_from_slice(fqn.as_bytes());
        h.extend_from_slice(b"\0");
        h.extend_from_slice(dir.as_os_str().as_encoded_bytes());
        h.extend_from_slice(b"\0");
    }
    for f in &scan.files {
        h.extend_from_slice(f.path.as_os_str().as_encoded_bytes());
        h.extend_from_slice(b"\0");
    }
    blake3::hash(&h).to_hex().to_string()
}

/// A row's file identity: `mtime_ns`, `size` and `inode` in the columns from `at` on,
/// `settled` in column `settled`; `None` for a row stored absent (no mtime).
fn identity_at(
    r: &rusqlite::Row<'_>,
    at: usize,
    settled: usize,
) -> rusqlite::Result<Option<FileIdentity>> {
    let Some(mtime_ns) = r.get::<_, Option<i64>>(at)? else {
        return Ok(None);
    };
    Ok(Some(FileIdentity {
        mtime_ns,
        size: r.get::<_, i64>(at + 1)? as u64,
        inode: r.get::<_, i64>(at + 2)? as u64,
        settled: r.get::<_, Option<bool>>(settled)?.unwrap_or(false),
    }))
}

/// `PRAGMA quick_check`: `Damaged` with its first findings unless it answers `ok`.
fn quick_check(db: &Connection) -> Result<(), MirrorError> {
    let mut stmt = db.prepare("PRAGMA quick_check(5)")?;
    let found: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    if found.len() == 1 && found[0] == "ok" {
        return Ok(());
    }
    Err(MirrorError::Damaged(format!(
        "quick_check: {}",
        found.join("; ")
    )))
}

/// Whether the database holds anything at all (a file just created holds nothing).
fn has_tables(db: &Connection) -> bool {
    db.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .is_ok_and(|n| n > 0)
}

/// A stored parse (a row without one stands for `None`, Python's null).
fn packed_or_null(bytes: Option<&[u8]>) -> Result<Value, MirrorError> {
    match bytes {
        Some(bytes) => Ok(packed::from_bytes(bytes)?),
        None => Ok(Value::Null),
    }
}

fn version_matches(db: &Connection) -> bool {
    let has_meta: bool = db
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .unwrap_or(false);
    if !has_meta {
        // A fresh file is fine; anything else without `meta` is not ours.
        return db
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n == 0)
            .unwrap_or(false);
    }
    db.query_row(
        "SELECT value FROM meta WHERE key='schema_version'",
        [],
        |r| r.get::<_, String>(0),
    )
    .map(|v| v == SCHEMA_VERSION)
    .unwrap_or(false)
}

/// A scan's spill goes straight into the mirror.
impl ingest::Stash for Mirror {
    fn records(&self, records: &[FileRecord]) -> bool {
        self.store_read(records).is_ok()
    }

    fn items(&self, hash: &str, first: u64, items: &[Value]) -> bool {
        self.store_items(hash, first, items).is_ok()
    }
}

/// A name for a mirror made now at `path`, unlike any other's.
fn new_instance(path: &Path) -> String {
    let mut h = blake3::Hasher::new();
    h.update(path.as_os_str().as_encoded_bytes());
    h.update(&std::process::id().to_le_bytes());
    h.update(&crate::ingest::clock_ns().to_le_bytes());
    h.finalize().to_hex()[..32].to_string()
}
