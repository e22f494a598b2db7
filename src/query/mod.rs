//! The engine's read side: the served connections' current state, kept fresh
//! against the disk, and one module per question the tools ask. Knows nothing of MCP.

pub mod changes;
pub mod context;
pub mod diff;
pub mod edges;
pub mod files;
pub mod freshness;
pub mod list_tables;
pub mod manifest;
pub mod reference;
pub mod resolve_value;
pub mod resources;
pub mod search_columns;
pub mod value_resolution;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use crate::config::{ConnectionConfig, Served};
use crate::error::QueryError;
use crate::ingest::{self, FileIdentity, ManifestRead, MANIFEST_FILENAME};
use crate::mirror::{Mirror, MirrorError};
use compat::value::Value;

/// `Engine::refresh_files` re-reads at most this many files one by one; more reconcile.
const REFRESH_AT_MOST: usize = 256;

/// One served connection as the mirror last saw it.
#[derive(Debug, Clone)]
pub struct ConnectionState {
    pub config: ConnectionConfig,
    pub manifest: ManifestRead,
    /// The manifest's identity when it was read (`None`: absent).
    pub manifest_identity: Option<FileIdentity>,
    /// blake3 of every file the connection's mirror holds, by path.
    pub hashes: HashMap<PathBuf, String>,
    /// The search index as this state was built against it.
    pub search: crate::index::Snapshot,
    /// The identity each present file had when the mirror stored it, by path.
    pub identities: HashMap<PathBuf, FileIdentity>,
    /// Files the print declares (or the connection looks for) that are not there.
    pub absent: std::collections::HashSet<PathBuf>,
    /// get_table_context's per-state indexes, built on first use.
    pub context: std::sync::OnceLock<Arc<context::Index>>,
}

impl ConnectionState {
    pub fn manifest_path(&self) -> PathBuf {
        self.config.print_root.join(MANIFEST_FILENAME)
    }

    /// The manifest as readers use it, or the error every tool gives for it.
    /// `Ok(None)`: there is no manifest.
    pub fn manifest_or_error(&self) -> Result<Option<&Value>, QueryError> {
        let path = self.manifest_path().display().to_string();
        match &self.manifest {
            ManifestRead::Absent => Ok(None),
            ManifestRead::Unparseable(m) => Err(QueryError::YamlParse {
                path,
                message: m.clone(),
            }),
            ManifestRead::Malformed(r) => Err(QueryError::Malformed {
                path,
                reason: r.clone(),
            }),
            ManifestRead::Failed(m) => Err(QueryError::Other(m.clone())),
            ManifestRead::Ok { doc, .. } => Ok(Some(doc)),
        }
    }

    /// Whether the manifest is on disk as this state read it.
    pub fn manifest_unchanged(&self) -> bool {
        self.on_disk_as(&self.manifest_path(), self.manifest_identity.as_ref())
    }

    /// Whether `path` is on disk as this state stored it (present with that identity, or
    /// absent).
    pub fn unchanged_on_disk(&self, path: &Path) -> bool {
        self.on_disk_as(path, self.identities.get(path))
    }

    /// `path` against the identity this state recorded for it. A file whose stat matches
    /// but was recorded unsettled (a rewrite within a timestamp tick looks the same) is
    /// compared by content hash instead.
    fn on_disk_as(&self, path: &Path, recorded: Option<&FileIdentity>) -> bool {
        match (ingest::file_identity(path), recorded) {
            (None, None) => true,
            (Some(now), Some(recorded)) if now == *recorded => true,
            (Some(now), Some(recorded)) if now.same_stat(recorded) => {
                ingest::hash_file(path).is_some_and(|h| self.hashes.get(path) == Some(&h))
            }
            _ => false,
        }
    }

    /// The content version of `path` for cursors and resource versions: its blake3,
    /// or `absent`.
    pub fn version_of(&self, path: &Path) -> String {
        self.hashes
            .get(path)
            .cloned()
            .unwrap_or_else(|| "absent".into())
    }
}

/// The engine: served connections over the mirror. Requests read `state`; the single
/// writer (`ingest_lock`) re-ingests a connection whose files changed.
pub struct Engine {
    pub served: Served,
    mirror: Mirror,
    index: crate::index::SearchIndex,
    /// inotify over the served print roots, so a call reading every table's files can
    /// skip the stat sweep when nothing changed (`connection_for_search`).
    /// Set up off the startup path (walking and watching every directory of a large print
    /// takes longer than the rest of a warm start); until then every such call sweeps.
    changes: Arc<std::sync::OnceLock<Option<changes::ChangeFeed>>>,
    states: RwLock<HashMap<String, Arc<ConnectionState>>>,
    ingest_lock: Mutex<()>,
    /// Held across a scan and its commit, so that of several processes sharing one
    /// index only one writes at a time; the others find the work done (all unchanged).
    writer_lock_path: PathBuf,
    references: reference::References,
}

impl Engine {
    /// Open the mirror in `index_dir` and reconcile every served connection with the disk.
    pub fn open(served: Served, index_dir: &Path) -> Result<Engine, MirrorError> {
        Engine::open_with_progress(served, index_dir, &|_, _, _| {})
    }

    /// `open`, reporting `(connection, files done, files in all)` as the first scan reads.
    pub fn open_with_progress(
        served: Served,
        index_dir: &Path,
        progress: &(dyn Fn(&str, usize, usize) + Sync),
    ) -> Result<Engine, MirrorError> {
        let started = std::time::Instant::now();
        let mirror = Mirror::open(index_dir)?;
        let index = crate::index::SearchIndex::open(&index_dir.join("search"))
            .map_err(|e| MirrorError::Index(e.to_string()))?;
        let opened = started.elapsed();
        let roots: Vec<PathBuf> = served
            .connections
            .iter()
            .map(|c| c.print_root.clone())
            .collect();
        let changes: Arc<std::sync::OnceLock<Option<changes::ChangeFeed>>> = Arc::default();
        {
            let changes = changes.clone();
            std::thread::Builder::new()
                .name("printdex-changes".into())
                .spawn(move || {
                    let _ = changes.set(changes::ChangeFeed::watch(&roots));
                })
                .map_err(|source| MirrorError::Io {
                    path: index_dir.to_path_buf(),
                    source,
                })?;
        }
        tracing::debug!(?opened, "engine opening");
        let engine = Engine {
            served,
            mirror,
            index,
            changes,
            states: RwLock::new(HashMap::new()),
            ingest_lock: Mutex::new(()),
            writer_lock_path: index_dir.join("writer.lock"),
            references: Default::default(),
        };
        for conn in engine.served.connections.clone() {
            let name = conn.name.clone();
            engine.reconcile_with_progress(&conn, &|done, total| progress(&name, done, total))?;
        }
        Ok(engine)
    }

    /// Read the reference documents from this dbprint package directory first.
    pub fn with_reference_dir(mut self, dir: Option<PathBuf>) -> Engine {
        self.references = reference::References::new(dir);
        // Said once at startup; get_reference answers each call with the exact error.
        for document in reference::Document::ALL {
            if self.references.locate(document).is_none() {
                tracing::warn!(
                    "no {} reference document found; get_reference cannot answer for it",
                    document.name()
                );
            }
        }
        self
    }

    pub fn references(&self) -> &reference::References {
        &self.references
    }

    pub fn mirror(&self) -> &Mirror {
        &self.mirror
    }

    /// The inotify change feed, once set up (`None` before, or where inotify is missing).
    fn change_feed(&self) -> Option<&changes::ChangeFeed> {
        self.changes.get().and_then(Option::as_ref)
    }

    /// Merge the search index's small segments (left by single-table refreshes) when
    /// they have piled up; the watcher calls this on its periodic tick.
    pub fn compact_index(&self) -> Result<(), MirrorError> {
        let _lock = self.write_lock();
        let started = std::time::Instant::now();
        if self
            .index
            .compact()
            .map_err(|e| MirrorError::Index(e.to_string()))?
        {
            tracing::debug!(elapsed = ?started.elapsed(), "search index compacted");
        }
        Ok(())
    }

    /// Columns the search index holds, over every connection (the rebuild summary).
    pub fn indexed_columns(&self) -> Result<usize, MirrorError> {
        self.index
            .count("column")
            .map_err(|e| MirrorError::Index(e.to_string()))
    }

    /// Re-read what changed on disk for one connection and swap in its new state.
    pub fn reconcile(&self, conn: &ConnectionConfig) -> Result<Arc<ConnectionState>, MirrorError> {
        self.reconcile_with_progress(conn, &|_, _| {})
    }

    fn reconcile_with_progress(
        &self,
        conn: &ConnectionConfig,
        progress: crate::ingest::Progress,
    ) -> Result<Arc<ConnectionState>, MirrorError> {
        let lock = self.write_lock();
        self.reconcile_locked(conn, progress, &lock)
    }

    /// The single writer, in this process and across the processes sharing the index.
    pub(crate) fn write_lock(&self) -> WriteLock<'_> {
        WriteLock {
            _in_process: self.ingest_lock.lock().unwrap_or_else(|e| e.into_inner()),
            _across_processes: ProcessLock::acquire(&self.writer_lock_path),
        }
    }

    /// `reconcile`, for a caller already holding the write lock.
    fn reconcile_locked(
        &self,
        conn: &ConnectionConfig,
        progress: crate::ingest::Progress,
        _lock: &WriteLock,
    ) -> Result<Arc<ConnectionState>, MirrorError> {
        let started = std::time::Instant::now();
        // Before the scan: a change while it runs leaves the new state unverified.
        let epoch = self.change_feed().map(changes::ChangeFeed::poll);
        // What this process last saw is what the mirror holds, unless another process
        // sharing the index wrote since; either way a file read again is only re-parsed
        // when its bytes differ from what the state knows.
        let current = self
            .states
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&conn.name)
            .cloned();
        let from_mirror = match &current {
            Some(_) => None,
            None => Some(self.mirror.stored(&conn.name)?),
        };
        let known: ingest::Known = match (&current, &from_mirror) {
            (_, Some(stored)) => stored,
            (Some(state), None) => &StateKnown {
                state,
                mirror: &self.mirror,
            },
            (None, None) => &ingest::Cold,
        };
        let scan = ingest::scan_connection(conn, known, progress);
        let scanned = started.elapsed();
        let (identities, hashes): (HashMap<PathBuf, FileIdentity>, HashMap<PathBuf, String>) =
            if self.mirror.unchanged(&conn.name, &scan)? {
                // Same bytes throughout: at most some identities to note (a touch, a
                // rewrite of the same content, an identity that settled).
                let (mut identities, hashes) = match (from_mirror, &current) {
                    (Some(stored), _) => {
                        let (identities, hashes, _) = stored.into_parts();
                        (identities, hashes)
                    }
                    (None, Some(state)) => (state.identities.clone(), state.hashes.clone()),
                    (None, None) => Default::default(),
                };
                let touched: Vec<ingest::FileRecord> = scan
                    .files
                    .iter()
                    .filter(|f| matches!(f.parsed, ingest::Parsed::Touched))
                    .cloned()
                    .collect();
                if !touched.is_empty() {
                    let mismatched = self.mirror.upsert_files(&touched)?;
                    self.read_in_full(&mismatched, &touched)?;
                    for f in &touched {
                        if let Some(id) = f.identity {
                            identities.insert(f.path.clone(), id);
                        }
                    }
                }
                (identities, hashes)
            } else {
                drop(from_mirror);
                let mismatched = self.mirror.apply(&conn.name, &conn.print_root, &scan)?;
                self.read_in_full(&mismatched, &scan.files)?;
                self.mirror.checkpoint()?;
                let files = self.mirror.files(&conn.name)?;
                let identities = files
                    .iter()
                    .filter_map(|f| Some((f.path.clone(), f.identity?)))
                    .collect();
                let hashes = files
                    .into_iter()
                    .filter_map(|f| Some((f.path, f.hash?)))
                    .collect();
                (identities, hashes)
            };
        tracing::debug!(connection = %conn.name, ?scanned, total = ?started.elapsed(), "reconciled");
        let reread = scan
            .files
            .iter()
            .filter(|f| !matches!(f.parsed, ingest::Parsed::Unchanged))
            .count();
        self.mirror
            .record_reconcile(&conn.name, scan.files.len(), reread, started.elapsed())?;
        let search =
            crate::index::sync_connection(&self.index, &self.mirror, conn, &scan, &hashes, epoch)
                .map_err(|e| MirrorError::Index(e.to_string()))?;
        // The identity the manifest had before the scan read it: a write during the scan
        // then shows as a change to the next call.
        let manifest_path = conn.print_root.join(MANIFEST_FILENAME);
        let manifest_identity = scan
            .files
            .iter()
            .find(|f| f.path == manifest_path)
            .and_then(|f| f.identity);
        let absent = scan
            .files
            .iter()
            .filter(|f| f.identity.is_none())
            .map(|f| f.path.clone())
            .collect();
        let state = Arc::new(ConnectionState {
            config: conn.clone(),
            absent,
            manifest: scan.manifest,
            manifest_identity,
            hashes,
            search,
            identities,
            context: std::sync::OnceLock::new(),
        });
        self.states
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(conn.name.clone(), state.clone());
        Ok(state)
    }

    /// Re-read only `paths` of connection `name` (files the watcher or a call saw move),
    /// and swap in the state that results, re-indexing only the tables they belong to.
    /// Anything a per-file update cannot settle (no state yet, the manifest moved, a path
    /// the mirror does not track as a print file, a directory) reconciles the whole
    /// connection instead. Files found unchanged leave the state as it is.
    pub fn refresh_files(
        &self,
        name: &str,
        paths: &[PathBuf],
    ) -> Result<Arc<ConnectionState>, MirrorError> {
        let Some(conn) = self.served.connections.iter().find(|c| c.name == name) else {
            return Err(MirrorError::Index(format!("no served connection {name}")));
        };
        let lock = self.write_lock();
        let current = self
            .states
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned();
        // Many files at once (a generate under way) read faster as one parallel scan.
        let Some(state) =
            current.filter(|s| paths.len() <= REFRESH_AT_MOST && s.manifest_unchanged())
        else {
            return self.reconcile_locked(conn, &|_, _| {}, &lock);
        };
        let manifest = state.manifest_path();
        let mut wanted: Vec<(PathBuf, Option<String>, String)> = Vec::new();
        for path in paths {
            if wanted.iter().any(|(p, _, _)| p == path) {
                continue;
            }
            let tracked = match self.mirror.status(path)? {
                Some(row) if *path != manifest && !path.is_dir() => row,
                _ => return self.reconcile_locked(conn, &|_, _| {}, &lock),
            };
            wanted.push((path.clone(), tracked.fqn, tracked.kind));
        }
        let known = StateKnown {
            state: &state,
            mirror: &self.mirror,
        };
        let records: Vec<ingest::FileRecord> = wanted
            .iter()
            .map(|(path, fqn, kind)| ingest::refresh_file(path, name, fqn.as_deref(), kind, &known))
            .filter(|r| !matches!(r.parsed, ingest::Parsed::Unchanged))
            .collect();
        if records.is_empty() {
            return Ok(state);
        }
        let mismatched = self.mirror.upsert_files(&records)?;
        self.read_in_full(&mismatched, &records)?;
        let mut identities = state.identities.clone();
        let mut hashes = state.hashes.clone();
        let mut absent = state.absent.clone();
        for r in &records {
            match (&r.parsed, r.identity, &r.hash) {
                (ingest::Parsed::Absent, _, _) | (_, None, _) => {
                    identities.remove(&r.path);
                    hashes.remove(&r.path);
                    absent.insert(r.path.clone());
                }
                (_, Some(id), hash) => {
                    absent.remove(&r.path);
                    identities.insert(r.path.clone(), id);
                    match hash {
                        Some(h) => hashes.insert(r.path.clone(), h.clone()),
                        None => hashes.remove(&r.path),
                    };
                }
            }
        }
        let search = crate::index::sync_changed(
            &self.index,
            &self.mirror,
            name,
            &state.search,
            &records,
            &hashes,
        )
        .map_err(|e| MirrorError::Index(e.to_string()))?;
        let next = Arc::new(ConnectionState {
            config: state.config.clone(),
            absent,
            manifest: state.manifest.clone(),
            manifest_identity: state.manifest_identity,
            hashes,
            search,
            identities,
            context: std::sync::OnceLock::new(),
        });
        self.states
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), next.clone());
        Ok(next)
    }

    /// Read `paths` (records among `records` the mirror refused as touched: another
    /// process stored other bytes for them since this one looked) again in full and
    /// store what they hold now.
    fn read_in_full(
        &self,
        paths: &[PathBuf],
        records: &[ingest::FileRecord],
    ) -> Result<(), MirrorError> {
        if paths.is_empty() {
            return Ok(());
        }
        let again: Vec<ingest::FileRecord> = records
            .iter()
            .filter(|r| paths.contains(&r.path))
            .map(|r| ingest::read_file(&r.path, &r.connection, r.fqn.as_deref(), &r.kind))
            .collect();
        // Whole records (parsed, not touched) are always stored.
        self.mirror.upsert_files(&again)?;
        Ok(())
    }

    /// [`Engine::connection`] for a call that reads every walkable table's statistics
    /// files (search_columns): when the change feed saw nothing since the state was last
    /// known to match the disk, no file is checked; otherwise every searched file is
    /// `stat`ed, and the connection re-ingested first when one moved.
    pub fn connection_for_search(
        &self,
        requested: Option<&str>,
    ) -> Result<Arc<ConnectionState>, QueryError> {
        let state = self.connection(requested)?;
        let epoch = self
            .change_feed()
            .filter(|c| c.complete())
            .map(changes::ChangeFeed::poll);
        if epoch.is_some() && epoch == state.search.verified() {
            return Ok(state);
        }
        // One sweep finds what moved; a sweep that could not finish reconciles everything.
        let result = match state.search.moved_paths() {
            Some(moved) if moved.is_empty() => {
                if let Some(e) = epoch {
                    state.search.verify(e);
                }
                return Ok(state);
            }
            Some(moved) => self.refresh_files(&state.config.name, &moved),
            None => self.reconcile(&state.config),
        };
        result.map_err(|e| QueryError::Internal(e.to_string()))
    }

    /// [`Engine::connection`], also fresh against the files `moved` names as changed on
    /// disk since ingest read them: those are read again first.
    pub fn connection_where(
        &self,
        requested: Option<&str>,
        moved: impl Fn(&ConnectionState) -> Vec<PathBuf>,
    ) -> Result<Arc<ConnectionState>, QueryError> {
        let state = self.connection(requested)?;
        let moved = moved(&state);
        if moved.is_empty() {
            return Ok(state);
        }
        self.refresh_files(&state.config.name, &moved)
            .map_err(|e| QueryError::Internal(e.to_string()))
    }

    /// The connection a call names (or the default), fresh against the disk: when the
    /// manifest's identity moved since it was read, the connection is re-ingested first.
    pub fn connection(&self, requested: Option<&str>) -> Result<Arc<ConnectionState>, QueryError> {
        let conn = self.served.pick(requested)?.clone();
        let current = self
            .states
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&conn.name)
            .cloned();
        match current {
            Some(state) if state.manifest_unchanged() => Ok(state),
            _ => self
                .reconcile(&conn)
                .map_err(|e| QueryError::Internal(e.to_string())),
        }
    }
}

/// What a state holds, as ingest's `Stored`: a file whose identity the state recorded is
/// not read again; one whose bytes hash as recorded is not parsed again.
struct StateKnown<'a> {
    state: &'a ConnectionState,
    mirror: &'a Mirror,
}

impl ingest::Stored for StateKnown<'_> {
    fn identity(&self, path: &Path) -> Option<FileIdentity> {
        self.state.identities.get(path).copied()
    }
    fn parsed(&self, path: &Path) -> Option<ingest::Parsed> {
        self.mirror.parsed(path).ok().flatten()
    }
    fn hash(&self, path: &Path) -> Option<String> {
        self.state.hashes.get(path).cloned()
    }
    fn absent(&self, path: &Path) -> bool {
        self.state.absent.contains(path)
    }
}

/// Held while writing the mirror and the index (see `Engine::write_lock`).
pub(crate) struct WriteLock<'a> {
    _in_process: std::sync::MutexGuard<'a, ()>,
    _across_processes: ProcessLock,
}

/// An exclusive advisory lock on a file in the index directory, released on drop.
/// Failing to lock (a filesystem without locks) degrades to SQLite's own locking.
struct ProcessLock(Option<std::fs::File>);

impl ProcessLock {
    fn acquire(path: &Path) -> ProcessLock {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .ok();
        ProcessLock(file.filter(|f| f.lock().is_ok()))
    }
}

impl Drop for ProcessLock {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            let _ = f.unlock();
        }
    }
}
