//! The store: everything that writes, and what keeps the written state fresh. It serves a
//! set of sources, dbprint connections and/or one pz project (`pz_project`), all on one
//! index location (`location`): it opens the mirror (`mirror/`, SQLite) and the search
//! index (`search/`, tantivy), reconciles a connection with the disk, re-reads single files
//! and scans the project (the one writer, `lock`), follows the disk through the change feed
//! (`changes`) and the watcher's daemon loop (`watch`), and hands readers an immutable
//! [`Snapshot`] of each served connection and a `ProjectSnapshot` of the project, each
//! verified for what a call's answer reads (`fresh`: [`Store::fresh`], [`Store::answer`]).
//! It owns the one cache of derived values (`cache`), the files keeping costly ones between
//! processes (`derived`), pz's docs with their index (`pz_docs`); knows no question asked.

pub mod background;
mod beside;
pub mod cache;
pub mod changes;
mod delta;
pub mod derived;
pub mod file_map;
pub mod files;
mod fresh;
mod head;
mod image;
pub mod location;
mod lock;
pub mod memory;
pub mod mirror;
pub mod owner;
mod published;
pub mod pz_docs;
pub mod pz_project;
pub mod references;
pub mod search;
mod searched_files;
mod shared_sweep;
pub mod snapshot;
mod touched;
mod versions;
pub mod watch;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use crate::config::{ConnectionConfig, Served};
use crate::error::Recover;
use crate::ingest::{self, FileIdentity};
use cache::Cache;
use delta::{Applied, Delta, ViewKnown};
use file_map::FileMap;
pub use fresh::{Connection, Project, ProjectReads, Reads, Source};
use location::Locations;
use lock::{WriteLock, Writer, LOCK_WAIT};
use mirror::{Mirror, MirrorError, Written};
use published::Published;
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
    /// The index location written now (the mirror, the search index, the writer), which
    /// every snapshot built on it shares; see `location`.
    locations: Locations,
    /// inotify over the served print roots, so a call reading every table's files can
    /// skip the stat sweep when nothing changed (`Reads::EveryTableStatistics`).
    /// It watches the served pz project too.
    /// Set up off the startup path (walking and watching every directory of a large print
    /// takes longer than the rest of a warm start); until then every such call sweeps.
    changes: Arc<std::sync::OnceLock<Option<changes::ChangeFeed>>>,
    /// The change feed is being set up (`changes` will be set): a sweep of every file
    /// waits for it, so the feed vouches for what the sweep finds.
    feed_coming: std::sync::atomic::AtomicBool,
    /// Each connection's published snapshot, with how far the change feed vouches for it.
    states: RwLock<HashMap<String, Arc<Published<Snapshot>>>>,
    /// The pz project served (`printdex pz serve`), stored beside the connections.
    project: Option<pz_project::ProjectSource>,
    references: ReferenceDocs,
    /// The connections whose start's reconcile is under way (`open_serving`), and heads.
    starting: head::Starting,
    /// Sweeps of every tracked file made; held through each, one at a time (`every_table`).
    whole_sweeps: Mutex<u64>,
}

/// One index location as the store and every snapshot built on it share it.
pub(crate) struct Shared {
    mirror: Mirror,
    index: search::SearchIndex,
    /// The one writer (see `lock`).
    writer: Arc<Writer>,
    cache: Arc<Cache>,
    dir: PathBuf,
    /// The searches' sweeps under way over this location's connections.
    sweeps: shared_sweep::SharedSweeps,
    /// Opening set a damaged part aside and made it again.
    repaired: bool,
    /// This process's share of the location's `in-use.lock` (see `location::InUse`).
    _in_use: Option<location::InUse>,
    /// A private temporary location standing in for the shared one; declared last, so
    /// the directory goes after the files in it are closed.
    private: Option<location::PrivateDir>,
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
        Store::open_sources(served, None, index_dir, progress, false, true).map(|(store, _)| store)
    }

    /// `open`, without a change feed: for a command that answers once and exits
    /// (`printdex erd`), which would walk and watch every directory of the print for
    /// nothing, and whose reads of every file would wait for that walk.
    pub fn open_unwatched(served: Served, index_dir: &Path) -> Result<Store, MirrorError> {
        let no_progress = &|_: &str, _, _| {};
        Store::open_sources(served, None, index_dir, no_progress, false, false)
            .map(|(store, _)| store)
    }

    /// `open`, for a server: a connection whose head can be had (`head`: the manifest and
    /// the walk for symlinks as the last reconcile kept them) answers reads of the manifest
    /// alone from it at once, and is reconciled on a thread of its own; any other call on
    /// it waits for that reconcile. The change feed starts once every start has ended.
    pub fn open_serving(
        served: Served,
        index_dir: &Path,
        reference_dir: Option<PathBuf>,
    ) -> Result<Arc<Store>, MirrorError> {
        let (store, deferred) =
            Store::open_sources(served, None, index_dir, &|_, _, _| {}, true, true)?;
        let store = Arc::new(store.with_reference_dir(reference_dir));
        if deferred.is_empty() {
            return Ok(store);
        }
        let names: Vec<String> = deferred.iter().map(|c| c.name.clone()).collect();
        let starting = store.clone();
        let spawned = std::thread::Builder::new()
            .name("printdex-start".into())
            .spawn(move || starting.finish_starts(deferred, true));
        if let Err(e) = spawned {
            // No thread, no head: each call reconciles what it asks of.
            tracing::warn!("cannot start the reconcile of a start: {e}");
            names.iter().for_each(|name| store.starting.end(name));
            store.watch_changes();
        }
        Ok(store)
    }

    /// `open_serving`'s start without a change feed, each reconcile made before this
    /// returns: a start as the next server's will be (from its head and image), for a
    /// command that makes what a server's first calls read (`index rebuild`).
    pub fn open_started(served: Served, index_dir: &Path) -> Result<Store, MirrorError> {
        let (store, deferred) =
            Store::open_sources(served, None, index_dir, &|_, _, _| {}, true, false)?;
        store.finish_starts(deferred, false);
        Ok(store)
    }

    /// Open the mirror in `index_dir` and ingest the pz project at `root` (`printdex pz
    /// serve`): files whose identity the mirror holds are not read again.
    pub fn open_project(root: &Path, index_dir: &Path) -> Result<Store, MirrorError> {
        let none = Served {
            connections: Vec::new(),
            default: None,
            configured: Vec::new(),
        };
        Store::open_sources(none, Some(root), index_dir, &|_, _, _| {}, false, true)
            .map(|(store, _)| store)
    }

    /// A store serving `served`'s connections and the pz project at `project`, if any,
    /// from the index location `index_dir`: each source read against the disk, then the
    /// change feed started over all of them. With `defer`, a connection with a head
    /// (`head`) is not read: it is returned, its head under way in `starting`, for the
    /// caller to reconcile, and the caller starts the change feed after. Without `watch`,
    /// no change feed is started at all.
    fn open_sources(
        served: Served,
        project: Option<&Path>,
        index_dir: &Path,
        progress: &(dyn Fn(&str, usize, usize) + Sync),
        defer: bool,
        watch: bool,
    ) -> Result<(Store, Vec<ConnectionConfig>), MirrorError> {
        let started = std::time::Instant::now();
        let locations = Locations::open(index_dir)?;
        let opened = started.elapsed();
        let project = project.map(pz_project::ProjectSource::new);
        tracing::debug!(?opened, "store opening");
        let store = Store {
            served,
            locations,
            changes: Arc::default(),
            states: RwLock::new(HashMap::new()),
            project,
            references: ReferenceDocs::default(),
            starting: head::Starting::default(),
            whole_sweeps: Mutex::default(),
            feed_coming: Default::default(),
        };
        let mut deferred = Vec::new();
        for conn in store.served.connections.clone() {
            // Another process writing the index (a start's reconcile, a rebuild) is read
            // around when what it holds matches the disk; otherwise waited for.
            if store.read_beside_writer(&conn).is_some() {
                continue;
            }
            let shared = store.shared();
            if let Some((head, walk)) = defer.then(|| Self::head_of(&shared, &conn)).flatten() {
                store.starting.begin(&conn.name, Some(head));
                store.starting.walked(&conn.name, walk);
                deferred.push(conn);
                continue;
            }
            let name = conn.name.clone();
            let progress = |done, total| progress(&name, done, total);
            store.write(|shared, lock| {
                store.reconcile_locked(shared, &conn, &progress, Look::Trusting, lock)
            })?;
        }
        if store.project.is_some() {
            store.refresh_project()?;
        }
        match (deferred.is_empty(), watch) {
            (true, true) => store.watch_changes(),
            // No feed will come: a call that reads every file sweeps at once.
            (_, false) => drop(store.changes.set(None)),
            (false, true) => {}
        }
        Ok((store, deferred))
    }

    /// Start the change feed over every served root, on a thread of its own. After the
    /// first scan, not beside it: on a small machine the feed's walk would take cores from
    /// the scan (a start from its head, whose reconcile is a fraction of a second, measured
    /// slower first calls with the feed beside it). Until the feed is up no state is
    /// verified by it, so a search in between sweeps (without a thread, every search does).
    fn watch_changes(&self) {
        self.feed_coming
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let roots: Vec<PathBuf> = self
            .served
            .connections
            .iter()
            .map(|c| c.print_root.clone())
            .chain(self.project.as_ref().map(|p| p.root.clone()))
            .collect();
        let shared = self.shared();
        let connections: Vec<(String, PathBuf)> = (self.served.connections.iter())
            .map(|c| (c.name.clone(), c.print_root.clone()))
            .collect();
        let changes = self.changes.clone();
        let mut walked = self.starting.take_walks();
        let spawned = std::thread::Builder::new()
            .name("printdex-changes".into())
            .spawn(move || {
                // Below the calls: a search before the feed is up sweeps what it reads
                // rather than wait, so the set-up takes the cores the calls leave. A
                // sweep of every file (validate_sql, the catch-up) waits for it, a
                // bounded while, and leaves it the cores as it waits.
                background::below_calls();
                let started = std::time::Instant::now();
                let mut known = changes::KnownDirs::default();
                for (name, root) in &connections {
                    let memo = walked.remove(name);
                    if let Some(memo) = memo.or_else(|| shared.mirror.walk_memo(name)) {
                        known.add(root, memo);
                    }
                }
                let memo = started.elapsed();
                let _ = changes.set(changes::ChangeFeed::watch(&roots, &shared.dir, known));
                tracing::debug!(?memo, total = ?started.elapsed(), "change feed set up");
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the change feed: {e}");
            let _ = self.changes.set(None);
        }
    }

    /// Read every served connection into the index at `index_dir`, as [`Store::open`]
    /// does, but keep no snapshot: a rebuild answers no call, so each connection's manifest
    /// and maps are let go before its tables are indexed, and indexing a large print holds
    /// only its table entries beside the index writer.
    pub fn rebuild(
        served: Served,
        index_dir: &Path,
        progress: &(dyn Fn(&str, usize, usize) + Sync),
    ) -> Result<Store, MirrorError> {
        let store = Store {
            served,
            locations: Locations::open(index_dir)?,
            changes: Arc::default(),
            states: RwLock::new(HashMap::new()),
            project: None,
            references: ReferenceDocs::default(),
            starting: head::Starting::default(),
            whole_sweeps: Mutex::default(),
            feed_coming: Default::default(),
        };
        for conn in store.served.connections.clone() {
            let name = conn.name.clone();
            let progress = |done, total| progress(&name, done, total);
            store.write(|shared, lock| {
                let Ingested {
                    manifest,
                    files,
                    tables,
                    generation,
                    walk_outcome,
                    ..
                } = store.ingest_locked(shared, &conn, &progress, Look::Everything, lock)?;
                // So that the first start after the rebuild answers from its head, and
                // takes its image rather than reading every row.
                store.keep_head(shared, &conn, (&manifest, &files), walk_outcome);
                Self::keep_image_now(shared, &conn, (&files, &tables), generation, walk_outcome);
                drop((manifest, files));
                memory::release_freed();
                search::sync_connection(&shared.index, &shared.mirror, &conn.name, tables)
                    .map_err(MirrorError::Index)?;
                Ok(())
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
        let shared = self.shared();
        let parts = [shared.mirror.opened(), shared.index.opened()];
        if parts.contains(&Opened::Replaced) || shared.repaired {
            IndexState::Rebuilt
        } else if shared.mirror.opened() == Opened::Created {
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
        self.locations.cache()
    }

    /// The mirror of the location written now.
    pub fn mirror(&self) -> impl std::ops::Deref<Target = Mirror> {
        MirrorOf(self.shared())
    }

    /// The index location written now.
    fn shared(&self) -> Arc<Shared> {
        self.locations.current()
    }

    /// The directory the index is in now: the one configured, or a private temporary one
    /// standing in while that cannot be used.
    pub fn index_dir(&self) -> PathBuf {
        self.shared().dir.clone()
    }

    /// Whether a private temporary index stands in for the configured one.
    pub fn index_is_private(&self) -> bool {
        self.shared().private.is_some()
    }

    /// While a private index stands in: try the configured location again (at most every
    /// few seconds, never waiting for its lock). `true` when it is used again; it may hold
    /// less than the private one did, so the caller reconciles what is served.
    pub fn return_to_shared_index(&self) -> bool {
        self.locations.retry_shared()
    }

    /// Sizes for the rebuild summary: (files, tables, bytes on disk).
    pub fn counts(&self) -> Result<(i64, i64, u64), MirrorError> {
        self.shared().mirror.counts()
    }

    /// Leave the index for the next start: the mirror's WAL folded in, and the clean-
    /// shutdown marker that lets the next open skip verifying it. A private index is
    /// removed instead.
    pub fn close(&self) {
        // A start's reconcile leaves the mirror as whole as any other write; the marker
        // is worth the wait (without it the next start verifies the mirror).
        self.starting.wait_all(std::time::Duration::from_secs(60));
        let shared = self.shared();
        if let Some(private) = &shared.private {
            private.remove();
            return;
        }
        // Not worth a wait for a live writer: it leaves the location written, and the
        // next start verifies it.
        let Some(lock) = shared.writer.lock_bounded(LOCK_WAIT) else {
            return;
        };
        self.keep_images_at_close(&shared, &lock);
        if shared.mirror.checkpoint().is_ok() && shared.mirror.intact() {
            location::mark_clean(&shared.dir);
        }
    }

    /// A call failed inside the store (`QueryError::Internal`): check the location it
    /// read, repairing or replacing it when it is damaged or gone. `true` when something
    /// changed, so the call is worth asking again.
    pub fn recover_after_failure(&self) -> bool {
        self.locations.check_after_read_failure(&self.shared())
    }

    /// Run `op` as the one writer of the location written now. A location whose lock
    /// stays held, that was removed, or that fails under `op` is repaired or replaced
    /// (see `location`) and `op` run again on what stands in: a write fails only when
    /// even a fresh private location fails it.
    fn write<T>(
        &self,
        op: impl Fn(&Arc<Shared>, &WriteLock) -> Result<T, MirrorError>,
    ) -> Result<T, MirrorError> {
        self.locations.retry_shared();
        let mut failed = None;
        for attempt in 0..3 {
            let shared = self.shared();
            if shared.private.is_none() && !shared.mirror.intact() {
                self.locations.remake(&shared);
                continue;
            }
            let Some(lock) = shared.writer.lock_within(LOCK_WAIT) else {
                let busy = location::LocationError::Busy {
                    path: shared.dir.clone(),
                };
                self.locations
                    .after_failure(&shared, &MirrorError::Location(busy), false);
                continue;
            };
            match op(&shared, &lock) {
                Ok(done) => return Ok(done),
                Err(e) => {
                    drop(lock);
                    tracing::debug!(
                        "a write to the index at {} failed: {e}",
                        shared.dir.display()
                    );
                    self.locations.after_failure(&shared, &e, attempt == 0);
                    failed = Some(e);
                }
            }
        }
        Err(failed.unwrap_or(MirrorError::NoLocation))
    }

    /// The inotify change feed, once set up (`None` before, or where inotify is missing).
    fn change_feed(&self) -> Option<&changes::ChangeFeed> {
        self.changes.get().and_then(Option::as_ref)
    }

    /// Merge the search index's small segments (left by single-table refreshes) when
    /// they have piled up; the watcher calls this on its periodic tick.
    pub fn compact_index(&self) -> Result<(), MirrorError> {
        self.write(|shared, _lock| {
            let started = std::time::Instant::now();
            if shared.index.compact().map_err(MirrorError::Index)? {
                tracing::debug!(elapsed = ?started.elapsed(), "search index compacted");
            }
            Ok(())
        })
    }

    /// Columns the search index holds, over every connection (the rebuild summary).
    pub fn indexed_columns(&self) -> Result<usize, MirrorError> {
        self.shared()
            .index
            .count("column")
            .map_err(MirrorError::Index)
    }

    /// Re-read what changed on disk for one connection and swap in its new state.
    pub fn reconcile(&self, conn: &ConnectionConfig) -> Result<Arc<Snapshot>, MirrorError> {
        self.write(|shared, lock| {
            self.reconcile_locked(shared, conn, &|_, _| {}, Look::Everything, lock)
        })
    }

    /// `reconcile` on `shared`, for a caller holding its write lock.
    fn reconcile_locked(
        &self,
        shared: &Arc<Shared>,
        conn: &ConnectionConfig,
        progress: crate::ingest::Progress,
        look: Look,
        lock: &WriteLock,
    ) -> Result<Arc<Snapshot>, MirrorError> {
        let started = std::time::Instant::now();
        let ingested = self.ingest_locked(shared, conn, progress, look, lock)?;
        let Ingested {
            manifest,
            manifest_identity,
            files,
            versions,
            tables,
            view,
            epoch,
            generation,
            walk_outcome,
        } = ingested;
        let recorded = started.elapsed();
        // Made from the image the last reconcile kept: there is nothing to keep again.
        let from_image = versions.is_some();
        let view_taken = view;
        // The content digests need only the hashes: taken beside the search sync.
        let (search, versions) = std::thread::scope(|scope| {
            let versions =
                scope.spawn(|| versions.unwrap_or_else(|| snapshot::ContentVersions::of(&files)));
            let search = Self::search_view(shared, &conn.name, tables, view);
            let versions = versions
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (search, versions)
        });
        let search = search.map_err(MirrorError::Index)?;
        tracing::debug!(connection = %conn.name, ?recorded, synced = ?started.elapsed(), "search view taken");
        let snapshot = Snapshot {
            config: conn.clone(),
            manifest,
            manifest_identity,
            versions,
            files,
            search,
            generation,
            rows_beyond_map: false,
            walk_outcome,
            shared: shared.clone(),
        };
        // Verified as of the epoch polled before the scan.
        let published = self.publish(snapshot, epoch);
        let kept = (&published.manifest, &published.files);
        self.keep_head(shared, conn, kept, walk_outcome);
        if from_image {
            // Its digests and searched files, for the next start, unless kept (an image
            // an earlier version kept has neither).
            self.keep_digests(shared, &published, walk_outcome, view_taken);
        } else {
            self.keep_image(shared, &published, walk_outcome);
        }
        tracing::debug!(connection = %conn.name, total = ?started.elapsed(), "published");
        Ok(published)
    }

    /// A whole connection read against the disk and stored in the mirror (files that moved
    /// read again), as far as a snapshot's parts: the search index is not touched yet. For
    /// a caller holding the write lock.
    fn ingest_locked(
        &self,
        shared: &Arc<Shared>,
        conn: &ConnectionConfig,
        progress: crate::ingest::Progress,
        look: Look,
        _lock: &WriteLock,
    ) -> Result<Ingested, MirrorError> {
        let started = std::time::Instant::now();
        // Before the scan: a change while it runs leaves the new state unverified. A
        // trusting scan verifies nothing.
        let epoch = match look {
            Look::Everything => self.change_feed().map(changes::ChangeFeed::poll),
            Look::Trusting => None,
        };
        // This process's last state is a base for the scan only while it is of the
        // mirror's generation: rows another process sharing the index wrote since (or
        // that a call of this one stored) are what the disk is compared with, never a
        // view older than them. Either way a file read again is only re-parsed when its
        // bytes differ from what the base knows.
        let generation = shared.mirror.generation(&conn.name)?;
        let current = Self::built_on(self.current(&conn.name), shared)
            .filter(|state| state.generation == generation);
        // A start's reconcile takes its head's manifest and walk as read.
        let head = match look {
            Look::Trusting => self
                .starting
                .head(&conn.name)
                .filter(|h| Arc::ptr_eq(&h.snapshot.shared, shared)),
            Look::Everything => None,
        };
        if let (Some(head), None) = (&head, &current) {
            if let Some(ingested) = Self::ingest_from_image(shared, conn, head, generation)? {
                return Ok(ingested);
            }
        }
        let (scan, from_mirror) = Self::scan_locked(
            shared,
            conn,
            current.as_deref(),
            head.as_ref(),
            progress,
            true,
            look,
        )?;
        let scanned = started.elapsed();
        // `None`: the maps are the mirror's, read once the records are gone.
        let maps: Option<FileMap> = if shared.mirror.unchanged(&conn.name, &scan)? {
            // Same bytes throughout: at most some identities to note (a touch, a
            // rewrite of the same content, an identity that settled).
            let files = match (from_mirror, &current) {
                (Some(stored), _) => stored.into_files(),
                (None, Some(state)) => state.files.clone(),
                (None, None) => FileMap::default(),
            };
            Some(Self::note_touched(shared, &scan, files)?)
        } else {
            drop(from_mirror);
            let mismatched = shared.mirror.apply(&conn.name, &conn.print_root, &scan)?;
            Self::read_in_full(shared, &mismatched, &scan.files)?;
            shared.mirror.checkpoint()?;
            None
        };
        if let Some(memo) = &scan.walk {
            shared.mirror.store_walk(&conn.name, memo)?;
        }
        tracing::debug!(connection = %conn.name, ?scanned, total = ?started.elapsed(), "reconciled");
        let reread = scan
            .files
            .iter()
            .filter(|f| f.scanned != ingest::Scanned::Unchanged)
            .count();
        let scanned_files = scan.files.len();
        let manifest_identity = scan.manifest_identity(&conn.print_root);
        let ingest::ConnectionScan {
            manifest,
            files: records,
            tables,
            walk_outcome,
            ..
        } = scan;
        // Every record is in the mirror now: a large print's records go before the maps
        // are read back and the search sync reads parses from the mirror.
        if reread >= memory::TRIM_AFTER_FILES {
            drop(records);
            memory::release_freed();
        } else {
            // Many small allocations: freed off the caller's path.
            std::thread::spawn(move || drop(records));
        }
        let files = match maps {
            Some(files) => files,
            None => shared.mirror.stored_in_place(&conn.name)?.into_files(),
        };
        shared
            .mirror
            .record_reconcile(&conn.name, scanned_files, reread, started.elapsed())?;
        let entries = search::table_entries(&conn.name, &tables, &files);
        // The manifest's entries as values (the snapshot keeps them packed): many small
        // allocations, freed off the caller's path.
        std::thread::spawn(move || drop(tables));
        let tables = entries;
        Ok(Ingested {
            manifest,
            manifest_identity,
            files,
            versions: None,
            tables,
            view: None,
            epoch,
            // Every write of this ingest was this writer's, under the lock.
            generation: shared.mirror.generation(&conn.name)?,
            walk_outcome,
        })
    }

    /// Scan a connection against `base` (a state of the mirror's generation), or, without
    /// one, against the mirror's stored rows, which are returned too. `spill`: large files
    /// read are stored in pieces as they are parsed (for a caller holding the write lock;
    /// one reading beside another writer stores nothing).
    fn scan_locked<'m>(
        shared: &'m Shared,
        conn: &ConnectionConfig,
        base: Option<&Snapshot>,
        head: Option<&head::Head>,
        progress: crate::ingest::Progress,
        spill: bool,
        look: Look,
    ) -> Result<(ingest::ConnectionScan, Option<mirror::StoredFiles<'m>>), MirrorError> {
        let stash: ingest::Spill = &shared.mirror;
        let spill = spill.then_some(stash);
        let memo = || shared.mirror.walk_memo(&conn.name);
        if let Some(state) = base {
            let known = ViewKnown {
                delta: None,
                state,
                mirror: &shared.mirror,
            };
            let scan = ingest::scan_connection(conn, &known, &memo, progress, spill);
            return Ok((scan, None));
        }
        // A scan against the mirror: the manifest and the other connection files are read
        // (a few stored rows) while every other file's stored identity is loaded beside.
        let rows = mirror::RowLookup(&shared.mirror);
        let (head, stored) = std::thread::scope(|scope| {
            let head = scope.spawn(|| {
                head.and_then(|h| {
                    let manifest = &h.snapshot.manifest;
                    ingest::scan_head_known(conn, manifest, h.walk_outcome, &rows, spill)
                })
                .unwrap_or_else(|| ingest::scan_head(conn, &rows, &memo, spill))
            });
            let stored = shared.mirror.stored(&conn.name);
            let head = head.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            (head, stored)
        });
        let stored = match look {
            Look::Everything => stored?,
            Look::Trusting => stored?.trusting(),
        };
        if head.read_any() {
            // The manifest's and the diff's parses leave much freed behind.
            memory::release_freed();
        }
        let scan = ingest::scan_tables(conn, head, &stored, progress, spill);
        Ok((scan, Some(stored)))
    }

    /// The snapshot requests of connection `name` read now, if one was built on the
    /// location written now (one built on a location since replaced is not).
    fn current(&self, name: &str) -> Option<Arc<Snapshot>> {
        Self::built_on(
            self.published(name).map(|p| p.snapshot.clone()),
            &self.shared(),
        )
    }

    /// The store's record of the snapshot connection `name` published last.
    fn published(&self, name: &str) -> Option<Arc<Published<Snapshot>>> {
        self.states.read().recover().get(name).cloned()
    }

    /// The store's record of `snapshot`, while it is the one its connection reads.
    fn record_of(&self, snapshot: &Arc<Snapshot>) -> Option<Arc<Published<Snapshot>>> {
        self.published(&snapshot.config.name)
            .filter(|p| Arc::ptr_eq(&p.snapshot, snapshot))
    }

    /// `state`, if it was built on `shared`.
    fn built_on(state: Option<Arc<Snapshot>>, shared: &Arc<Shared>) -> Option<Arc<Snapshot>> {
        state.filter(|s| Arc::ptr_eq(&s.shared, shared))
    }

    /// Make `snapshot` the one requests of its connection read from now on, known to
    /// match the disk as of change-feed epoch `verified`.
    fn publish(&self, snapshot: Snapshot, verified: Option<u64>) -> Arc<Snapshot> {
        self.publish_record(Published::new(Arc::new(snapshot), verified))
    }

    /// Make `published`'s snapshot the one requests of its connection read from now on.
    fn publish_record(&self, published: Published<Snapshot>) -> Arc<Snapshot> {
        let snapshot = published.snapshot.clone();
        self.states
            .write()
            .recover()
            .insert(snapshot.config.name.clone(), Arc::new(published));
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
            return Err(MirrorError::NotServed(format!(
                "no served connection {name}"
            )));
        };
        self.write(|shared, lock| self.refresh_locked(shared, conn, paths, lock))
    }

    /// `refresh_files` on `shared`, for a caller holding its write lock.
    fn refresh_locked(
        &self,
        shared: &Arc<Shared>,
        conn: &ConnectionConfig,
        paths: &[PathBuf],
        lock: &WriteLock,
    ) -> Result<Arc<Snapshot>, MirrorError> {
        let name = conn.name.as_str();
        let current = Self::built_on(self.current(name), shared);
        // Many files at once (a generate under way) read faster as one parallel scan.
        let Some(state) =
            current.filter(|s| paths.len() <= REFRESH_AT_MOST && s.manifest_unchanged())
        else {
            return self.reconcile_locked(shared, conn, &|_, _| {}, Look::Everything, lock);
        };
        let manifest = state.manifest_path();
        // What another process sharing the index (or a call of this one) stored since
        // this state was built is the view's first; each such file is checked against the
        // disk below with the files named. Rows that went, tables that changed or a
        // manifest read again: the whole connection is read against the mirror instead.
        let mut delta = Delta::new(&state);
        match shared.mirror.written_since(name, state.generation)? {
            Written::Nothing => {}
            Written::Rows(rows)
                if rows.len() + paths.len() <= REFRESH_AT_MOST
                    && rows.iter().all(|r| r.path != manifest) =>
            {
                rows.into_iter().for_each(|row| delta.written(row));
            }
            Written::Rows(_) | Written::Reshaped => {
                return self.reconcile_locked(shared, conn, &|_, _| {}, Look::Everything, lock)
            }
        }
        let mut wanted: Vec<(PathBuf, Option<String>, String)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for path in paths.iter().map(PathBuf::as_path).chain(delta.paths()) {
            if !seen.insert(path) {
                continue;
            }
            let tracked = match shared.mirror.status(path)? {
                Some(row) if *path != manifest && !path.is_dir() => row,
                _ => {
                    return self.reconcile_locked(shared, conn, &|_, _| {}, Look::Everything, lock)
                }
            };
            wanted.push((path.to_path_buf(), tracked.fqn, tracked.kind));
        }
        drop(seen);
        let records: Vec<ingest::FileRecord> = {
            let known = ViewKnown {
                delta: Some(&delta),
                state: &state,
                mirror: &shared.mirror,
            };
            let spill: ingest::Spill = &shared.mirror;
            wanted
                .iter()
                .map(|(path, fqn, kind)| {
                    ingest::refresh_file(path, name, fqn.as_deref(), kind, &known, Some(spill))
                })
                .filter(|r| r.scanned != ingest::Scanned::Unchanged)
                .collect()
        };
        if records.is_empty() && delta.is_empty() {
            return Ok(state);
        }
        let mismatched = shared.mirror.upsert_files(&records)?;
        let again = Self::read_in_full(shared, &mismatched, &records)?;
        let records: Vec<ingest::FileRecord> = records
            .into_iter()
            .filter(|r| !mismatched.contains(&r.path))
            .chain(again)
            .collect();
        records.iter().for_each(|r| delta.read(r));
        let generation = shared.mirror.generation(name)?;
        let Applied {
            files,
            versions,
            moved,
        } = delta.apply();
        let search = search::sync_changed(
            &shared.index,
            &shared.mirror,
            name,
            &state.search,
            &moved,
            &records,
            &files,
        )
        .map_err(MirrorError::Index)?;
        // The feed vouches for the new snapshot as it did for the old one (`Published::after`).
        let earlier = self.record_of(&state);
        let snapshot = Snapshot {
            config: state.config.clone(),
            manifest: state.manifest.clone(),
            manifest_identity: state.manifest_identity,
            versions,
            files,
            search,
            generation,
            rows_beyond_map: false,
            // A refresh reads files, never the walk: a moved directory or link reconciles.
            walk_outcome: state.walk_outcome,
            shared: shared.clone(),
        };
        Ok(self.publish_record(Published::after(Arc::new(snapshot), earlier.as_deref())))
    }
}

/// How a whole reconcile looks at the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// Every file `stat`ed against what the mirror stores.
    Everything,
    /// A start: the manifest and the connection files are `stat`ed, but a table's
    /// artifacts with a settled stored identity (or a stored absence) stand unchecked.
    /// Sound because a start's snapshot is verified at no feed epoch: until the catch-up
    /// `stat`s every file once the feed watches (`Store::catch_up`), a call checks each
    /// file it reads and a call over every table sweeps them. The start saves a `stat` of
    /// every file, which the catch-up makes anyway.
    Trusting,
}

/// A connection as a whole scan left it, before the search index is brought in line.
struct Ingested {
    manifest: ingest::ManifestRead,
    manifest_identity: Option<FileIdentity>,
    /// Every file the connection tracks, present or absent.
    files: FileMap,
    /// Their content digests, when kept (a start's image); otherwise made from `files`.
    versions: Option<snapshot::ContentVersions>,
    /// The walkable tables as the index keys them.
    tables: Vec<search::TableEntry>,
    /// What the index held when a view over `tables` was synced, when kept (a start's
    /// image): while it holds the same, the view is taken without syncing.
    view: Option<[u8; 32]>,
    epoch: Option<u64>,
    /// The mirror's generation of the connection's rows after the ingest.
    generation: u64,
    /// The outcome of the walk the manifest was cut by (see `head`).
    walk_outcome: Option<[u8; 32]>,
}

/// A location's mirror, held for as long as a caller reads it.
struct MirrorOf(Arc<Shared>);

impl std::ops::Deref for MirrorOf {
    type Target = Mirror;
    fn deref(&self) -> &Mirror {
        &self.0.mirror
    }
}
