//! The one way a call gets a snapshot to answer from: it names its source (a served
//! connection, the served pz project) and what its answer reads, and gets a snapshot
//! verified for exactly that, or its answer asked of one ([`Store::answer`]), with a file
//! found moved while answering read again and the answer asked again.
//!
//! What each kind of read costs a call when nothing moved:
//!
//! | reads | check |
//! |---|---|
//! | [`Reads::Manifest`] | one `stat` of the manifest |
//! | [`Reads::TableStatistics`] | that, and the table's two searched files `stat`ed |
//! | [`Reads::EveryTableStatistics`] | that, and one read of the change feed (a `stat` of every searched file only when the feed cannot vouch) |
//! | [`Reads::EveryTableFile`] | the same, over a table's description and relationship notes too |
//! | [`Reads::EveryFile`] | the same, over every file the connection tracks |
//! | [`Reads::CurrentFiles`] | the manifest, then each file as the answer reads it, through the mirror |
//! | [`Reads::CheckedAsRead`], [`Reads::TableArtifacts`], [`Reads::NamedTables`] | the manifest, then each file as the answer reads it (`strict`) |
//! | [`ProjectReads::EveryFile`] | one read of the change feed (a scan of the project only when a file pz reads moved) |

use std::path::PathBuf;
use std::sync::Arc;

use super::background;
use super::changes::{self, ChangeFeed};
use super::published::Published;
use super::pz_project::ProjectSnapshot;
use super::search::{Indexed, SweptPaths};
use super::shared_sweep::{self, List, SweepOf};
use super::{Snapshot, Store};
use crate::error::Recover;
use crate::error::{internal, QueryError};

/// How long a sweep of every file waits for a change feed being set up (its walk takes
/// about a second at 100,000 tables): past this it sweeps without one.
const FEED_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What a dbprint answer reads of its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads<'a> {
    /// The manifest alone (list_tables, get_manifest): while a server's start is under
    /// way this is answered from its head (`head`), whose other files are not read yet.
    Manifest,
    /// One table's two searched files, its statistics and their annotations, by FQN
    /// (resolve_value).
    TableStatistics(&'a str),
    /// Every walkable table's searched files (search_columns).
    EveryTableStatistics,
    /// Every walkable table's indexed files: its statistics and their annotations, its
    /// description.md and its relationships.annotations.yaml (find).
    EveryTableFile,
    /// Every file the connection tracks: validate_sql's catalog and plan_joins' graph read
    /// every table's statistics, relationships and their annotations.
    EveryFile,
    /// The manifest, then files each taken as it is on disk now through the mirror
    /// (`Snapshot::current_file`), never through the snapshot's map of files or its
    /// content versions (get_diff, resources/read and the diff's warm-up). While a
    /// server's start is under way a head answers these too: beyond the manifest, what
    /// they read does not depend on how far the start's reconcile has got.
    CurrentFiles,
    /// Files the answer finds as it goes, through the snapshot's map of files and its
    /// content versions (a table's artifacts and the annotation files of the tables around
    /// it): each is checked as it is read, strictly, and one found moved since the
    /// snapshot is read again and the answer asked again (resources/list, and the
    /// warm-ups that read ahead of it and of get_table_context).
    CheckedAsRead,
    /// One table's files and those of the tables around it, each checked as it is read,
    /// as `CheckedAsRead` (get_table_context): while a server's start is under way, a
    /// head holding its image's digests answers these too, its files taken as the
    /// mirror's rows hold them, as the start's reconcile takes them.
    TableArtifacts,
    /// The files of the tables the answer names, checked once it is made, over what the
    /// snapshot derived from every table (validate_sql: the tables its SQL reads, against
    /// the catalog). An answer that reads beyond them (a join path planned over the whole
    /// print) is asked again with `EveryFile`.
    NamedTables,
}

impl Reads<'_> {
    /// Whether a start's `head` (see `head`) answers what a call reads: the manifest, and
    /// files read as they are on disk now, never through the snapshot; and a table's
    /// files checked as read, when the head holds its image's digests.
    pub(super) fn head_answers(self, head: &Snapshot) -> bool {
        match self {
            Reads::Manifest | Reads::CurrentFiles => true,
            Reads::TableArtifacts => head.rows_beyond_map,
            _ => false,
        }
    }
}

/// What a pz answer reads of the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectReads {
    /// Every file pz reads (each of pz's read-side tools loads the whole project).
    EveryFile,
}

/// A source of snapshots a store serves: [`Connection`] or [`Project`]; see
/// [`Store::fresh`]. What an answer from it reads from and what it may say it reads are
/// its `Snapshot` and `Reads`.
pub trait Source: sealed::Sealed {}

/// A served dbprint connection, by name (`None`: the default one).
#[derive(Debug, Clone, Copy)]
pub struct Connection<'a>(pub Option<&'a str>);

/// The served pz project.
#[derive(Debug, Clone, Copy)]
pub struct Project;

impl Source for Connection<'_> {}
impl Source for Project {}

/// How the store verifies a source's snapshot: sealed, so a handler can only go through
/// [`Store::fresh`] and [`Store::answer`].
mod sealed {
    use std::path::PathBuf;
    use std::sync::Arc;

    use crate::error::QueryError;
    use crate::store::Store;

    pub trait Sealed {
        type Snapshot;
        type Reads;
        /// The snapshot of this source, verified for `reads`.
        fn verified(
            &self,
            store: &Store,
            reads: Self::Reads,
        ) -> Result<Arc<Self::Snapshot>, QueryError>;
        /// `snapshot` after `path`, found moved while an answer read it, is read again.
        fn reread(
            &self,
            store: &Store,
            snapshot: &Self::Snapshot,
            path: PathBuf,
        ) -> Result<Arc<Self::Snapshot>, QueryError>;
    }
}

impl Store {
    /// How many sweeps of every file a connection tracks this store has made.
    #[cfg(test)]
    pub fn whole_sweeps_made(&self) -> u64 {
        *self.whole_sweeps.lock().recover()
    }

    /// The change feed, waiting (a bounded while) for one being set up.
    fn change_feed_once_up(&self) -> Option<&ChangeFeed> {
        let coming = self.feed_coming.load(std::sync::atomic::Ordering::SeqCst);
        let waited = std::time::Instant::now();
        while coming && self.changes.get().is_none() && waited.elapsed() < FEED_WAIT {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        self.change_feed()
    }

    /// The snapshot of `source` a call answers from, fresh for what its answer `reads`.
    pub fn fresh<S: Source>(
        &self,
        source: S,
        reads: S::Reads,
    ) -> Result<Arc<S::Snapshot>, QueryError> {
        source.verified(self, reads)
    }

    /// An answer from `source`'s snapshot, fresh for what it `reads`: `ask` answers from
    /// a snapshot, strictly (a file found moved since the snapshot was built fails with
    /// `QueryError::Stale`) or not. A stale file is read again (or the source, when need
    /// be) and `ask` asked again; a source changing on every attempt is answered from the
    /// last snapshot read, without the check.
    pub fn answer<S: Source, T>(
        &self,
        source: S,
        reads: S::Reads,
        ask: impl Fn(&S::Snapshot, bool) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        let mut snapshot = source.verified(self, reads)?;
        for _ in 0..2 {
            match ask(&snapshot, true) {
                Err(QueryError::Stale(path)) => snapshot = source.reread(self, &snapshot, path)?,
                other => return other,
            }
        }
        ask(&snapshot, false)
    }

    /// The connection a call names (or the default), fresh against its manifest: when the
    /// manifest's identity moved since it was read, the connection is re-ingested first.
    /// While the connection's start is under way, a call a head can answer (`reads`; see
    /// [`Reads::head_answers`]) answers from its head, and any other waits for it (`head`).
    fn connection_manifest(
        &self,
        requested: Option<&str>,
        reads: Reads,
    ) -> Result<Arc<Snapshot>, QueryError> {
        let conn = self.served.pick(requested)?.clone();
        if let Some(head) = (self.starting).head_or_wait(&conn.name, |h| reads.head_answers(h)) {
            return Ok(head);
        }
        match self.current(&conn.name) {
            Some(state) if state.manifest_unchanged() => Ok(state),
            _ => self.reconcile(&conn).map_err(internal),
        }
    }

    /// `state`, with `moved` (files found changed on disk since ingest read them) read
    /// again first.
    fn with_reread(
        &self,
        state: Arc<Snapshot>,
        moved: Vec<PathBuf>,
    ) -> Result<Arc<Snapshot>, QueryError> {
        if moved.is_empty() {
            return Ok(state);
        }
        self.refresh_files(&state.config.name, &moved)
            .map_err(internal)
    }

    /// Bring connection `name` up to date once the change feed is complete (see `watch`):
    /// every file its published snapshot tracks (and every declared file it found absent)
    /// is `stat`ed, and only what moved (or was recorded unsettled) is read again (a moved
    /// manifest reconciles); from then on calls trust the feed. A whole reconcile would
    /// also list every directory and read the manifest back, which costs seconds on a
    /// large print for a window of a few hundred milliseconds. It is the sweep a call
    /// reading every file makes (`Reads::EveryFile`), so when such a call swept since the
    /// feed was complete, only what the feed named since is read again.
    pub fn catch_up(&self, name: &str) -> Result<(), QueryError> {
        let Some(state) = self.current(name) else {
            let conn = self.served.connections.iter().find(|c| c.name == name);
            return match conn {
                Some(conn) => self.reconcile(conn).map(drop).map_err(internal),
                None => Ok(()),
            };
        };
        self.every_table(state, Swept::Tracked).map(drop)
    }

    /// A connection's snapshot fresh for every walkable table's `swept` files. When the
    /// change feed vouches for the snapshot (it was last verified at an epoch the feed
    /// remembers), only the files the feed names since are read again, and only those
    /// the connection tracks; otherwise every `swept` file is `stat`ed, and the
    /// connection re-ingested first when one moved. A sweep of every table's searched
    /// files made while the feed is up vouches for those from then on: a later search
    /// asks the feed what moved since, and the sweep of every file skips them.
    ///
    /// One sweep of every tracked file at a time (and, once the feed is up, a search's
    /// takes the turn when it is free): a second waits for the first, then starts from
    /// the snapshot it left, which the feed vouches for when it was complete (the start's
    /// catch-up and an early whole-print call no longer both sweep).
    fn every_table(&self, state: Arc<Snapshot>, swept: Swept) -> Result<Arc<Snapshot>, QueryError> {
        // Once the feed is up, a search's sweep vouches for what it swept, so when no sweep
        // of every file is under way it takes the turn, and one after it skips what it
        // swept. One under way (the catch-up) is not waited for: the search sweeps beside
        // it, as it answers sooner so.
        let feed_up = self.change_feed().is_some_and(ChangeFeed::complete);
        let mut one_at_a_time = match swept {
            Swept::Tracked => Some(self.whole_sweeps.lock().recover()),
            Swept::Indexed(_) if feed_up => self.whole_sweeps.try_lock().ok(),
            Swept::Indexed(_) => None,
        };
        // A sweep in turn starts from the snapshot the one before it left, and a sweep of
        // every file, since one made before the feed is up vouches for nothing (the
        // start's catch-up would sweep again), waits for the feed.
        let state = match one_at_a_time {
            Some(_) => self.current(&state.config.name).unwrap_or(state),
            None => state,
        };
        let feed = match swept {
            Swept::Tracked => self.change_feed_once_up(),
            Swept::Indexed(_) => self.change_feed(),
        };
        let feed = feed.filter(|c| c.complete());
        let epoch = feed.map(ChangeFeed::poll);
        let vouched = (self.record_of(&state)).and_then(|r| Vouched::of(&r, swept));
        // What moved among the files the feed vouches for (`None`: it cannot say).
        let named = match (feed, vouched) {
            (Some(feed), Some(vouched)) => match feed.since(vouched.epoch()) {
                changes::Since::Nothing => Some(Vec::new()),
                // What the feed names and this snapshot does not already hold as it is on
                // disk (the watcher has usually re-read it by the time a call comes).
                changes::Since::Files(paths) => Some(
                    paths
                        .into_iter()
                        .filter(|p| state.tracks(p) && !state.unchanged_on_disk(p))
                        .collect::<Vec<_>>(),
                ),
                changes::Since::Unknown => None,
            },
            _ => None,
        };
        // A file recorded unsettled (stat'ed within a timestamp tick of its write) is read
        // again by a sweep of every file, so its settled identity is stored: other
        // processes trust only a settled one (a start beside a live writer needs every
        // file as stored).
        let unsettled = |p: &std::path::Path| state.files.identity(p).is_some_and(|id| !id.settled);
        let mut sweep_every_file = |vouched: Option<&SweptPaths>| {
            if let Some(made) = one_at_a_time.as_deref_mut() {
                *made += 1;
            }
            state.moved_files(vouched, unsettled)
        };
        let known = named.is_some();
        let moved = match (named, swept, vouched) {
            // The feed vouches for some files only: the others are swept.
            (Some(mut moved), Swept::Tracked, Some(Vouched::Indexed(kind, _))) => {
                moved.extend(sweep_every_file(Some(&SweptPaths::of(
                    &state.search.tables,
                    kind,
                ))));
                moved.sort();
                moved.dedup();
                Some(moved)
            }
            (Some(moved), _, _) => Some(moved),
            // One sweep finds what moved; a sweep that could not finish reconciles.
            (None, Swept::Indexed(which), _) => {
                let _sweeping = background::Sweeping::begin();
                let tables = state.search.tables.clone();
                let of = SweepOf {
                    connection: state.config.name.clone(),
                    list: List::Tables(Arc::as_ptr(&tables) as usize),
                    which,
                };
                (state.shared.sweeps).moved(of, || Some(shared_sweep::of_tables(tables, which)))
            }
            (None, Swept::Tracked, _) => Some(sweep_every_file(None)),
        };
        // What the disk is known to match `fresh` in as of `epoch`: every file, after a
        // sweep of every file or when the feed vouched for every file; otherwise the
        // files of the kind swept, or of the kind the feed vouched for.
        let covered = match (swept, known, vouched) {
            (Swept::Tracked, _, _) | (_, true, Some(Vouched::Every(_))) => None,
            (_, true, Some(Vouched::Indexed(kind, _))) => Some(kind),
            (Swept::Indexed(which), _, _) => Some(which),
        };
        let fresh = match moved {
            Some(moved) => self.with_reread(state, moved)?,
            None => self.reconcile(&state.config).map_err(internal)?,
        };
        // Recorded for the next call, unless another snapshot was published meanwhile
        // (that one's own check stands).
        if let (Some(e), Some(record)) = (epoch, self.record_of(&fresh)) {
            match covered {
                None => record.verify(e),
                Some(kind) => record.verify_swept(kind, e),
            }
        }
        Ok(fresh)
    }
}

/// How far the change feed vouches for a snapshot a sweep starts from.
#[derive(Debug, Clone, Copy)]
enum Vouched {
    /// For every file it tracks, as of the epoch.
    Every(u64),
    /// For every walkable table's indexed files of a kind, as of the epoch: a sweep of
    /// those found them as the snapshot holds them.
    Indexed(Indexed, u64),
}

impl Vouched {
    /// What `record` vouches for that a sweep of `swept` can use.
    fn of(record: &Published<Snapshot>, swept: Swept) -> Option<Vouched> {
        if let Some(epoch) = record.verified() {
            return Some(Vouched::Every(epoch));
        }
        let of = |kind: Indexed| record.swept(kind).map(|e| Vouched::Indexed(kind, e));
        match swept {
            Swept::Indexed(which) => of(which),
            // The widest kind swept, so the sweep of every file skips the most.
            Swept::Tracked => of(Indexed::Every).or_else(|| of(Indexed::Statistics)),
        }
    }

    fn epoch(self) -> u64 {
        match self {
            Vouched::Every(epoch) | Vouched::Indexed(_, epoch) => epoch,
        }
    }
}

/// What a call's sweep `stat`s when the change feed cannot vouch for its snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Swept {
    /// Every walkable table's indexed files of this kind.
    Indexed(Indexed),
    /// Every file the connection tracks.
    Tracked,
}

impl<'a> sealed::Sealed for Connection<'a> {
    type Snapshot = Snapshot;
    type Reads = Reads<'a>;

    fn verified(&self, store: &Store, reads: Reads<'a>) -> Result<Arc<Snapshot>, QueryError> {
        // A search arriving while the start is under way sweeps beside it, and what it
        // found holds for the snapshot the start publishes from the image it swept.
        let beside = match reads {
            Reads::EveryTableStatistics => store.sweep_beside_start(self.0, Indexed::Statistics),
            Reads::EveryTableFile => store.sweep_beside_start(self.0, Indexed::Every),
            _ => None,
        };
        let state = store.connection_manifest(self.0, reads)?;
        if let Some(swept) = beside.filter(|swept| swept.holds_for(&state)) {
            store.starting.swept_beside();
            return store.with_reread(state, swept.moved);
        }
        match reads {
            Reads::Manifest
            | Reads::CurrentFiles
            | Reads::CheckedAsRead
            | Reads::TableArtifacts
            | Reads::NamedTables => Ok(state),
            Reads::TableStatistics(fqn) => {
                let moved = state
                    .search
                    .table_rank(fqn)
                    .map(|r| state.search.tables[r].moved_paths())
                    .unwrap_or_default();
                store.with_reread(state, moved)
            }
            Reads::EveryTableStatistics => {
                store.every_table(state, Swept::Indexed(Indexed::Statistics))
            }
            Reads::EveryTableFile => store.every_table(state, Swept::Indexed(Indexed::Every)),
            Reads::EveryFile => store.every_table(state, Swept::Tracked),
        }
    }

    fn reread(
        &self,
        store: &Store,
        snapshot: &Snapshot,
        path: PathBuf,
    ) -> Result<Arc<Snapshot>, QueryError> {
        store
            .refresh_files(&snapshot.config.name, &[path])
            .map_err(internal)
    }
}

impl sealed::Sealed for Project {
    type Snapshot = ProjectSnapshot;
    type Reads = ProjectReads;

    fn verified(
        &self,
        store: &Store,
        reads: ProjectReads,
    ) -> Result<Arc<ProjectSnapshot>, QueryError> {
        match reads {
            ProjectReads::EveryFile => store.project_snapshot().map_err(internal),
        }
    }

    /// A project snapshot holds every file's bytes, so an answer never finds one stale;
    /// should one, the project is scanned again.
    fn reread(
        &self,
        store: &Store,
        _snapshot: &ProjectSnapshot,
        _path: PathBuf,
    ) -> Result<Arc<ProjectSnapshot>, QueryError> {
        store.refresh_project().map_err(internal)
    }
}
