//! The store: everything that writes, and what keeps the written state fresh. It opens
//! the mirror (`mirror/`, SQLite) and the search index (`search/`, tantivy), reconciles
//! a connection with the disk and re-reads single files (the one writer, `lock`), follows
//! the disk through the inotify change feed (`changes`) and the watcher's daemon loop
//! (`watch`), and hands readers an immutable [`Snapshot`] of each served connection. It
//! owns the one cache of derived values (`cache`), and pz's docs corpus on disk with its
//! index (`pz_docs`). Knows nothing of the questions asked.

pub mod cache;
pub mod changes;
pub mod files;
mod lock;
pub mod mirror;
pub mod owner;
pub mod pz_docs;
pub mod pz_project;
pub mod references;
pub mod search;
pub mod snapshot;
pub mod watch;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::config::{ConnectionConfig, Served};
use crate::error::QueryError;
use crate::ingest::{self, FileIdentity, MANIFEST_FILENAME};
use cache::Cache;
use lock::{WriteLock, Writer};
use mirror::{Mirror, MirrorError};
use references::ReferenceDocs;
pub use snapshot::Snapshot;

/// What opening found of one part of the index (the mirror, the search index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Opened {
    /// Nothing was there: made empty.
    #[default]
    Created,
    /// This build's, kept.
    Reused,
    /// Another version's, or unreadable: discarded and made empty.
    Replaced,
}

/// The index as a start found it, for the startup line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexState {
    /// There was none: built from the print.
    Built,
    /// This build's index, kept: only files that changed were read again.
    Warm,
    /// One of another version (or unreadable) was discarded and built again.
    Rebuilt,
}

impl IndexState {
    pub fn name(self) -> &'static str {
        match self {
            IndexState::Built => "built",
            IndexState::Warm => "warm",
            IndexState::Rebuilt => "rebuilt",
        }
    }
}

/// `Store::refresh_files` re-reads at most this many files one by one; more reconcile.
const REFRESH_AT_MOST: usize = 256;

/// The store: served connections over the mirror. Requests read snapshots; the single
/// writer (`writer`) re-ingests a connection whose files changed.
pub struct Store {
    pub served: Served,
    /// The mirror, the writer and the cache, which every snapshot shares.
    shared: Arc<Shared>,
    index: search::SearchIndex,
    /// inotify over the served print roots, so a call reading every table's files can
    /// skip the stat sweep when nothing changed (`connection_for_search`).
    /// Set up off the startup path (walking and watching every directory of a large print
    /// takes longer than the rest of a warm start); until then every such call sweeps.
    changes: Arc<std::sync::OnceLock<Option<changes::ChangeFeed>>>,
    states: RwLock<HashMap<String, Arc<Snapshot>>>,
    references: ReferenceDocs,
}

/// What the store shares with every snapshot it hands out.
pub(crate) struct Shared {
    mirror: Mirror,
    /// The one writer (see `lock`).
    writer: Writer,
    cache: Cache,
}

impl Store {
    /// Open the mirror in `index_dir` and reconcile every served connection with the disk.
    pub fn open(served: Served, index_dir: &Path) -> Result<Store, MirrorError> {
        Store::open_with_progress(served, index_dir, &|_, _, _| {})
    }

    /// `open`, reporting `(connection, files done, files in all)` as the first scan reads.
    pub fn open_with_progress(
        served: Served,
        index_dir: &Path,
        progress: &(dyn Fn(&str, usize, usize) + Sync),
    ) -> Result<Store, MirrorError> {
        let started = std::time::Instant::now();
        let mirror = Mirror::open(index_dir)?;
        let index = search::SearchIndex::open(&index_dir.join("search"))
            .map_err(|e| MirrorError::Index(e.to_string()))?;
        let opened = started.elapsed();
        let roots: Vec<PathBuf> = served
            .connections
            .iter()
            .map(|c| c.print_root.clone())
            .collect();
        let changes: Arc<std::sync::OnceLock<Option<changes::ChangeFeed>>> = Arc::default();
        tracing::debug!(?opened, "store opening");
        let store = Store {
            served,
            shared: Arc::new(Shared {
                mirror,
                writer: Writer::new(index_dir),
                cache: Cache::default(),
            }),
            index,
            changes,
            states: RwLock::new(HashMap::new()),
            references: ReferenceDocs::default(),
        };
        for conn in store.served.connections.clone() {
            let name = conn.name.clone();
            store.reconcile_with_progress(&conn, &|done, total| progress(&name, done, total))?;
        }
        // After the first scan, not beside it: on a small machine the feed's walk would
        // take cores from the scan. Until the feed is up no state is verified by it, so a
        // search in between sweeps.
        {
            let changes = store.changes.clone();
            let private = index_dir.to_path_buf();
            std::thread::Builder::new()
                .name("printdex-changes".into())
                .spawn(move || {
                    let _ = changes.set(changes::ChangeFeed::watch(&roots, &private));
                })
                .map_err(|source| MirrorError::Io {
                    path: index_dir.to_path_buf(),
                    source,
                })?;
        }
        Ok(store)
    }

    /// Read the reference documents from this dbprint package directory first.
    pub fn with_reference_dir(mut self, dir: Option<PathBuf>) -> Store {
        self.references = ReferenceDocs::new(dir);
        self
    }

    /// Whether this start built, kept or rebuilt the index.
    pub fn index_state(&self) -> IndexState {
        let parts = [self.shared.mirror.opened(), self.index.opened()];
        if parts.contains(&Opened::Replaced) {
            IndexState::Rebuilt
        } else if self.shared.mirror.opened() == Opened::Created {
            IndexState::Built
        } else {
            IndexState::Warm
        }
    }

    pub fn references(&self) -> &ReferenceDocs {
        &self.references
    }

    /// The one cache of derived values (see `cache`).
    pub fn cache(&self) -> &Cache {
        &self.shared.cache
    }

    pub fn mirror(&self) -> &Mirror {
        &self.shared.mirror
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
    pub fn reconcile(&self, conn: &ConnectionConfig) -> Result<Arc<Snapshot>, MirrorError> {
        self.reconcile_with_progress(conn, &|_, _| {})
    }

    fn reconcile_with_progress(
        &self,
        conn: &ConnectionConfig,
        progress: crate::ingest::Progress,
    ) -> Result<Arc<Snapshot>, MirrorError> {
        let lock = self.write_lock();
        self.reconcile_locked(conn, progress, &lock)
    }

    /// The single writer, in this process and across the processes sharing the index.
    fn write_lock(&self) -> WriteLock<'_> {
        self.shared.writer.lock()
    }

    /// `reconcile`, for a caller already holding the write lock.
    fn reconcile_locked(
        &self,
        conn: &ConnectionConfig,
        progress: crate::ingest::Progress,
        _lock: &WriteLock,
    ) -> Result<Arc<Snapshot>, MirrorError> {
        let started = std::time::Instant::now();
        // Before the scan: a change while it runs leaves the new state unverified.
        let epoch = self.change_feed().map(changes::ChangeFeed::poll);
        // What this process last saw is what the mirror holds, unless another process
        // sharing the index wrote since; either way a file read again is only re-parsed
        // when its bytes differ from what the state knows.
        let current = self.current(&conn.name);
        let from_mirror = match &current {
            Some(_) => None,
            None => Some(self.shared.mirror.stored(&conn.name)?),
        };
        let known: ingest::Known = match (&current, &from_mirror) {
            (_, Some(stored)) => stored,
            (Some(state), None) => &StateKnown {
                state,
                mirror: &self.shared.mirror,
            },
            (None, None) => &ingest::Cold,
        };
        let scan = ingest::scan_connection(conn, known, progress, Some(&self.shared.mirror));
        let scanned = started.elapsed();
        let (identities, hashes): (HashMap<PathBuf, FileIdentity>, HashMap<PathBuf, String>) =
            if self.shared.mirror.unchanged(&conn.name, &scan)? {
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
                    let mismatched = self.shared.mirror.upsert_files(&touched)?;
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
                let mismatched = self
                    .shared
                    .mirror
                    .apply(&conn.name, &conn.print_root, &scan)?;
                self.read_in_full(&mismatched, &scan.files)?;
                self.shared.mirror.checkpoint()?;
                let files = self.shared.mirror.files(&conn.name)?;
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
        self.shared.mirror.record_reconcile(
            &conn.name,
            scan.files.len(),
            reread,
            started.elapsed(),
        )?;
        let search = search::sync_connection(
            &self.index,
            &self.shared.mirror,
            conn,
            &scan,
            &hashes,
            epoch,
        )
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
        Ok(self.publish(Snapshot {
            config: conn.clone(),
            absent,
            manifest: scan.manifest,
            manifest_identity,
            versions: snapshot::ContentVersions::of(&hashes),
            hashes,
            search,
            identities,
            shared: self.shared.clone(),
        }))
    }

    /// The snapshot requests of connection `name` read now, if one was built.
    fn current(&self, name: &str) -> Option<Arc<Snapshot>> {
        self.states
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// Make `snapshot` the one requests of its connection read from now on.
    fn publish(&self, snapshot: Snapshot) -> Arc<Snapshot> {
        let snapshot = Arc::new(snapshot);
        self.states
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(snapshot.config.name.clone(), snapshot.clone());
        snapshot
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
    ) -> Result<Arc<Snapshot>, MirrorError> {
        let Some(conn) = self.served.connections.iter().find(|c| c.name == name) else {
            return Err(MirrorError::Index(format!("no served connection {name}")));
        };
        let lock = self.write_lock();
        let current = self.current(name);
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
            let tracked = match self.shared.mirror.status(path)? {
                Some(row) if *path != manifest && !path.is_dir() => row,
                _ => return self.reconcile_locked(conn, &|_, _| {}, &lock),
            };
            wanted.push((path.clone(), tracked.fqn, tracked.kind));
        }
        let known = StateKnown {
            state: &state,
            mirror: &self.shared.mirror,
        };
        let records: Vec<ingest::FileRecord> = wanted
            .iter()
            .map(|(path, fqn, kind)| {
                let spill: ingest::Spill = &self.shared.mirror;
                ingest::refresh_file(path, name, fqn.as_deref(), kind, &known, Some(spill))
            })
            .filter(|r| !matches!(r.parsed, ingest::Parsed::Unchanged))
            .collect();
        if records.is_empty() {
            return Ok(state);
        }
        let mismatched = self.shared.mirror.upsert_files(&records)?;
        self.read_in_full(&mismatched, &records)?;
        let mut identities = state.identities.clone();
        let mut hashes = state.hashes.clone();
        let mut absent = state.absent.clone();
        let mut versions = state.versions.clone();
        for r in &records {
            let old = match (&r.parsed, r.identity, &r.hash) {
                (ingest::Parsed::Absent, _, _) | (_, None, _) => {
                    identities.remove(&r.path);
                    absent.insert(r.path.clone());
                    hashes.remove(&r.path)
                }
                (_, Some(id), hash) => {
                    absent.remove(&r.path);
                    identities.insert(r.path.clone(), id);
                    match hash {
                        Some(h) => hashes.insert(r.path.clone(), h.clone()),
                        None => hashes.remove(&r.path),
                    }
                }
            };
            versions.update(
                &r.path,
                old.as_deref(),
                hashes.get(&r.path).map(String::as_str),
            );
        }
        let search = search::sync_changed(
            &self.index,
            &self.shared.mirror,
            name,
            &state.search,
            &records,
            &hashes,
        )
        .map_err(|e| MirrorError::Index(e.to_string()))?;
        Ok(self.publish(Snapshot {
            config: state.config.clone(),
            absent,
            manifest: state.manifest.clone(),
            manifest_identity: state.manifest_identity,
            versions,
            hashes,
            search,
            identities,
            shared: self.shared.clone(),
        }))
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
        self.shared.mirror.upsert_files(&again)?;
        Ok(())
    }

    /// [`Store::connection`] for a call that reads every walkable table's statistics
    /// files (search_columns). When the change feed vouches for the state (it was last
    /// verified at an epoch the feed remembers), only the files the feed names since are
    /// read again, and only those the connection tracks; otherwise every searched file is
    /// `stat`ed, and the connection re-ingested first when one moved.
    pub fn connection_for_search(
        &self,
        requested: Option<&str>,
    ) -> Result<Arc<Snapshot>, QueryError> {
        let state = self.connection(requested)?;
        let feed = self.change_feed().filter(|c| c.complete());
        let epoch = feed.map(changes::ChangeFeed::poll);
        let named = match (feed, state.search.verified()) {
            (Some(feed), Some(verified)) => feed.since(verified),
            _ => changes::Since::Unknown,
        };
        let moved = match named {
            changes::Since::Nothing => Some(Vec::new()),
            changes::Since::Files(paths) => Some(
                paths
                    .into_iter()
                    .filter(|p| state.tracks(p))
                    .collect::<Vec<_>>(),
            ),
            // One sweep finds what moved; a sweep that could not finish reconciles.
            changes::Since::Unknown => state.search.moved_paths(),
        };
        let fresh = match moved {
            Some(moved) if moved.is_empty() => state,
            Some(moved) => self
                .refresh_files(&state.config.name, &moved)
                .map_err(|e| QueryError::Internal(e.to_string()))?,
            None => self
                .reconcile(&state.config)
                .map_err(|e| QueryError::Internal(e.to_string()))?,
        };
        if let Some(e) = epoch {
            fresh.search.verify(e);
        }
        Ok(fresh)
    }

    /// [`Store::connection`], also fresh against the files `moved` names as changed on
    /// disk since ingest read them: those are read again first.
    pub fn connection_where(
        &self,
        requested: Option<&str>,
        moved: impl Fn(&Snapshot) -> Vec<PathBuf>,
    ) -> Result<Arc<Snapshot>, QueryError> {
        let state = self.connection(requested)?;
        let moved = moved(&state);
        if moved.is_empty() {
            return Ok(state);
        }
        self.refresh_files(&state.config.name, &moved)
            .map_err(|e| QueryError::Internal(e.to_string()))
    }

    /// An answer from the named connection's snapshot that is fresh for every file it
    /// reads: `ask` answers from a snapshot, strictly (a file found moved since the
    /// snapshot was built fails with `QueryError::Stale`) or not. A stale file is re-read
    /// alone (or the connection, when need be) and `ask` asked again; a print changing on
    /// every attempt is answered from the last snapshot read, without the check.
    pub fn answer_fresh<T>(
        &self,
        requested: Option<&str>,
        ask: impl Fn(&Snapshot, bool) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        let mut state = self.connection(requested)?;
        for _ in 0..2 {
            match ask(&state, true) {
                Err(QueryError::Stale(path)) => {
                    state = self
                        .refresh_files(&state.config.name, &[path])
                        .map_err(|e| QueryError::Internal(e.to_string()))?;
                }
                other => return other,
            }
        }
        ask(&state, false)
    }

    /// Every served connection's snapshot, fresh against the disk as `connection` makes
    /// it, in the order served.
    pub fn snapshots(&self) -> Result<Vec<Arc<Snapshot>>, QueryError> {
        self.served
            .connections
            .iter()
            .map(|c| self.connection(Some(&c.name)))
            .collect()
    }

    /// The connection a call names (or the default), fresh against the disk: when the
    /// manifest's identity moved since it was read, the connection is re-ingested first.
    pub fn connection(&self, requested: Option<&str>) -> Result<Arc<Snapshot>, QueryError> {
        let conn = self.served.pick(requested)?.clone();
        let current = self.current(&conn.name);
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
    state: &'a Snapshot,
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
