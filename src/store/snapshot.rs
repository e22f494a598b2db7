//! A snapshot: one served connection as the store last saw it. Immutable once built;
//! requests read it, and the store swaps in a new one when the disk moves.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::ConnectionConfig;
use crate::error::QueryError;
use crate::ingest::{self, FileIdentity, Manifest, ManifestRead, Parsed, MANIFEST_FILENAME};
use compat::value::Value;

use super::cache::{Cache, Key};
use super::derived::{DerivedDir, Kept};
use super::file_map::{ContentHash, FileMap, NotMade, Tracked};
use super::files::FreshFile;
use super::search::{SearchView, SweptPaths};
pub use super::versions::ContentVersions;
use super::Shared;

/// One served connection as the store last saw it.
#[derive(Clone)]
pub struct Snapshot {
    pub config: ConnectionConfig,
    pub manifest: ManifestRead,
    /// The manifest's identity when it was read (`None`: absent).
    pub manifest_identity: Option<FileIdentity>,
    /// The search index as this state was built against it.
    pub search: SearchView,
    /// Every file the connection's mirror holds: the identity each present file had when
    /// it was stored and its blake3, and the files the print declares (or the connection
    /// looks for) that are not there.
    pub files: FileMap,
    /// Digests of the contents above, for keys into the cache.
    pub versions: ContentVersions,
    /// The mirror's generation of the connection's rows that the maps above are: a
    /// writer whose state is of an older one catches up before it stores anything.
    pub(super) generation: u64,
    /// A start's head holding its image's digests (see `head`): a file `files` does not
    /// hold is taken as the mirror's row for it holds it, as the start's reconcile takes
    /// it, and checked against the disk as it is read.
    pub(super) rows_beyond_map: bool,
    /// The outcome of the walk for symlinks the manifest was cut by, when the reconcile
    /// that made this state (or the one a refresh made it from) knew it: with the
    /// generation, it names this state's image (see `image`).
    pub(super) walk_outcome: Option<[u8; 32]>,
    /// The mirror, the writer and the cache (read through the methods below).
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("connection", &self.config.name)
            .field("files", &self.files.len())
            .finish()
    }
}

impl Snapshot {
    /// The parsed content this snapshot knows `path` by (`None`: it knows no content for
    /// it). The mirror's row is read only while it holds those bytes: a row rewritten
    /// since (by another process sharing the index, or a newer snapshot) is
    /// `QueryError::Stale`, never another version's parse.
    pub fn parsed(&self, path: &Path) -> Result<Option<Parsed>, QueryError> {
        let Some(hash) = self.hash_of(path) else {
            return Ok(None);
        };
        match self.shared.mirror.parsed_as(path, &hash.hex()) {
            Ok(Some(parsed)) => Ok(Some(parsed)),
            Ok(None) => Err(QueryError::Stale(path.to_path_buf())),
            Err(e) => Err(QueryError::Internal(e.to_string())),
        }
    }

    /// `path` of this connection as it is on disk now, through the store: a file whose
    /// identity moved since the mirror stored it is read again (by the store's one writer)
    /// before it is answered. `fqn` and `kind` say what the file is when the mirror does
    /// not know it yet; `force` reads it again even when its identity is the stored one.
    pub fn current_file(
        &self,
        path: &Path,
        fqn: Option<&str>,
        kind: &str,
        force: bool,
    ) -> Result<FreshFile, QueryError> {
        self.shared
            .current_file(&self.config.name, path, fqn, kind, force)
    }

    /// The bytes of `path` (a file the store keeps no parse of: a DDL, a description), as
    /// this snapshot knows them. They are read and checked against the content hash the
    /// snapshot holds: when `strict`, bytes other than those (or a file present where the
    /// snapshot knows none, or gone where it knows one) are `QueryError::Stale`, for the
    /// store to read the file again and the call to be asked again; otherwise what is on
    /// disk now is answered. `Ok(None)`: there is no such file.
    pub fn file_bytes(&self, path: &Path, strict: bool) -> Result<Option<Vec<u8>>, QueryError> {
        let known = self.hash_of(path);
        let mut bytes = Vec::new();
        match super::files::read_whole(path, &mut bytes) {
            Ok(()) if path.is_file() => {}
            Err(e) if e.kind() != std::io::ErrorKind::NotFound && path.is_file() => {
                return Err(QueryError::Other(e.to_string()))
            }
            // Absent, or not a file.
            _ if strict && known.is_some() => return Err(QueryError::Stale(path.to_path_buf())),
            _ => return Ok(None),
        }
        if strict && known != Some(ContentHash::of(&bytes)) {
            return Err(QueryError::Stale(path.to_path_buf()));
        }
        Ok(Some(bytes))
    }

    /// The parsed value of a file `current_file` found to parse as YAML.
    pub fn current_value(&self, file: &FreshFile) -> Result<Option<Value>, QueryError> {
        self.shared.current_value(file)
    }

    /// The document of a file `current_file` found to parse as YAML, when the mirror holds
    /// it read in pieces: its list emptied, its items read through
    /// [`Snapshot::split_items`]. `None`: read it whole with `current_value`.
    pub fn split_header(&self, file: &FreshFile) -> Result<Option<Value>, QueryError> {
        self.shared.split_header(file)
    }

    /// The mirror's split lists, for a value kept beyond this call (get_diff's kept diff
    /// reads its events a page at a time).
    pub fn split_items(&self) -> SplitItems {
        SplitItems {
            shared: Arc::clone(&self.shared),
        }
    }

    /// The store's one cache, for values derived from this snapshot's content.
    pub fn cache(&self) -> &Cache {
        &self.shared.cache
    }

    /// `scope`'s current value for `key`, as [`Cache::current_of_scope`] holds it, read
    /// back from the index location's `derived/` files when another process (or an
    /// earlier run) built it, and kept there once built here. `valid` checks what `key`
    /// cannot name, for a value read back as for one held in memory.
    pub fn kept<T, E>(
        &self,
        scope: Key,
        key: Key,
        valid: impl Fn(&T) -> bool,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E>
    where
        T: Kept + Send + Sync + 'static,
    {
        let derived = self.derived();
        self.cache().current_of_scope(
            scope,
            key,
            |held| valid(held),
            || {
                let started = std::time::Instant::now();
                match derived.load::<T>(&scope, &key) {
                    Some(read) if valid(&read) => {
                        tracing::debug!(kind = key.kind(), elapsed = ?started.elapsed(), "a kept value read back");
                        return Ok(read);
                    }
                    Some(_) => tracing::debug!(kind = key.kind(), "a kept value is out of date"),
                    None => tracing::debug!(kind = key.kind(), "no kept value"),
                }
                let built = build()?;
                // Held as every later process reads it: a build's own form can be much
                // larger (validate_sql's catalog holds its joins memo and unpacked edges).
                let read = derived.save(&scope, &key, &built).then(|| derived.load::<T>(&scope, &key));
                Ok(read.flatten().filter(|read| valid(read)).unwrap_or(built))
            },
        )
    }

    /// `scope`'s value under whichever key, held in memory or kept on disk (its value
    /// before a change, for a build that takes from it what still holds).
    pub fn kept_in_scope<T>(&self, scope: &Key) -> Option<Arc<T>>
    where
        T: Kept + Send + Sync + 'static,
    {
        self.cache()
            .current_in_scope::<T>(scope)
            .or_else(|| self.derived().load_in_scope::<T>(scope).map(Arc::new))
    }

    /// Whether `scope`'s value for `key` is held in memory or kept on disk (a start skips
    /// its warm-up then: the first call reads it back).
    pub fn is_kept(&self, scope: &Key, key: &Key) -> bool {
        self.cache().peek_any(key) || self.derived().holds(scope, key)
    }

    /// The kept values' directory, for a value kept beside another (read by its builds).
    pub fn derived(&self) -> DerivedDir {
        DerivedDir::in_location(&self.shared.dir)
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.config.print_root.join(MANIFEST_FILENAME)
    }

    /// The manifest as readers use it, or the error every tool gives for it.
    /// `Ok(None)`: there is no manifest.
    pub fn manifest_or_error(&self) -> Result<Option<&Manifest>, QueryError> {
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

    /// Every file this state read (the manifest among them) or found absent where the
    /// print declares it, that is no longer on disk as this state holds it, or that `also`
    /// names: one `stat` each, a sweep of the whole connection, split over the cores
    /// (409,000 of them at 100,000 tables). The files `vouched` holds are skipped unless
    /// `also` names them (a sweep of those found them as this state holds them).
    pub fn moved_files(
        &self,
        vouched: Option<&SweptPaths>,
        also: impl Fn(&Path) -> bool + Sync,
    ) -> Vec<PathBuf> {
        let swept = |p: &Arc<Path>| vouched.is_some_and(|v| v.holds(p)) && !also(p);
        let paths: Vec<&Path> = (self.files.iter())
            .filter(|(p, _)| !swept(p))
            .map(|(p, _)| &**p)
            .collect();
        ingest::parts::in_parts(&paths, 4096, 4, |part| {
            part.iter()
                .filter(|p| also(p) || !self.unchanged_on_disk(p))
                .map(|p| p.to_path_buf())
                .collect::<Vec<_>>()
        })
        .concat()
    }

    /// Whether this state read `path` (or found it absent where the print declares it),
    /// so a change to it can change an answer.
    pub fn tracks(&self, path: &Path) -> bool {
        self.tracked(path).is_some()
    }

    /// What this state holds of `path` (`None`: untracked): its map's entry, or for a
    /// head holding its image's digests, the mirror's row.
    fn tracked(&self, path: &Path) -> Option<Tracked> {
        let held = match self.files.get_made(path) {
            Ok(held) => held,
            // A map still being made from the start's image is the mirror's rows at this
            // generation: while they are still that, one row is asked rather than the
            // whole map waited for (a first validate_sql's few files).
            Err(NotMade) => match self.row_of_this_generation(path) {
                Some(row) => return row,
                None => self.files.get(path),
            },
        };
        if let Some(tracked) = held {
            return Some(*tracked);
        }
        if !self.rows_beyond_map {
            return None;
        }
        self.row_of(path)
    }

    /// What the mirror's row holds of `path`, when the connection's rows were of this
    /// state's generation before and after it was read (`None`: they were not).
    fn row_of_this_generation(&self, path: &Path) -> Option<Option<Tracked>> {
        let of_this =
            || self.shared.mirror.generation(&self.config.name).ok() == Some(self.generation);
        if !of_this() {
            return None;
        }
        let row = self.row_of(path);
        of_this().then_some(row)
    }

    /// What the mirror's row holds of `path` (`None`: no row).
    fn row_of(&self, path: &Path) -> Option<Tracked> {
        let row = self.shared.mirror.status(path).ok()??;
        let hash = match row.hash {
            Some(hex) => Some(ContentHash::from_hex(&hex)?),
            None => None,
        };
        Some(Tracked {
            identity: row.identity,
            hash: hash.filter(|_| row.identity.is_some()),
        })
    }

    /// The content hash of `path` (`None`: untracked, or absent).
    pub fn hash_of(&self, path: &Path) -> Option<ContentHash> {
        self.tracked(path)?.hash
    }

    /// Whether `path` is present with content: a file this state read.
    pub fn has_content(&self, path: &Path) -> bool {
        self.hash_of(path).is_some()
    }

    /// Whether `path` is on disk as this state stored it (present with that identity, or
    /// absent).
    pub fn unchanged_on_disk(&self, path: &Path) -> bool {
        let recorded = self.tracked(path).and_then(|t| t.identity);
        self.on_disk_as(path, recorded.as_ref())
    }

    /// `path` against the identity this state recorded for it. A file whose stat matches
    /// but was recorded unsettled (a rewrite within a timestamp tick looks the same) is
    /// compared by content hash instead.
    fn on_disk_as(&self, path: &Path, recorded: Option<&FileIdentity>) -> bool {
        match (ingest::file_identity(path), recorded) {
            (None, None) => true,
            (Some(now), Some(recorded)) if now == *recorded => true,
            (Some(now), Some(recorded)) if now.same_stat(recorded) => {
                let known = self.hash_of(path);
                ingest::hash_file(path).is_some_and(|h| known.is_some_and(|k| *k.hex() == h))
            }
            _ => false,
        }
    }

    /// The content version of `path` for cursors and resource versions: its blake3,
    /// or `absent`.
    pub fn version_of(&self, path: &Path) -> String {
        self.hash_of(path)
            .map_or_else(|| "absent".into(), |h| h.to_string())
    }
}

/// The items of the mirror's split lists (see `ingest::SPLIT_KEY`), by content hash.
#[derive(Clone)]
pub struct SplitItems {
    shared: Arc<Shared>,
}

impl SplitItems {
    /// Each item of the list held under `hash`, in order, with its position.
    pub fn each(
        &self,
        hash: &str,
        each: impl FnMut(u32, Value) -> Result<(), QueryError>,
    ) -> Result<(), QueryError> {
        self.shared
            .mirror
            .each_item(hash, each)
            .map_err(|e| QueryError::Internal(e.to_string()))?
    }

    /// The items at `ords` of `path`'s list held under `hash` (`QueryError::Stale` once
    /// the file was rewritten and its items went).
    pub fn at(&self, path: &Path, hash: &str, ords: &[u32]) -> Result<Vec<Value>, QueryError> {
        let found = self
            .shared
            .mirror
            .items_at(hash, ords)
            .map_err(|e| QueryError::Internal(e.to_string()))?;
        found
            .into_iter()
            .map(|item| item.ok_or_else(|| QueryError::Stale(path.to_path_buf())))
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// The content version of these bytes (their blake3, in hex).
    fn content_version(bytes: &[u8]) -> String {
        blake3::hash(bytes).to_hex().to_string()
    }

    use super::*;

    /// A content hash standing for `text`'s file.
    fn h(text: &str) -> ContentHash {
        ContentHash::of(text.as_bytes())
    }

    fn hashes(pairs: &[(&str, &str)]) -> FileMap {
        let mut files = FileMap::default();
        for (path, text) in pairs {
            files.set(Path::new(path), Some(identity()), Some(h(text)));
        }
        files
    }

    fn identity() -> FileIdentity {
        FileIdentity {
            mtime_ns: 1,
            size: 1,
            inode: 1,
            settled: true,
        }
    }

    #[test]
    fn a_files_digest_is_over_its_hash_as_hex_text() {
        // The digests name `derived/` files: they are made as they were when hashes were
        // kept as hex text, so those files stay readable.
        let path = Path::new("/p/a/statistics.yaml");
        let mut v = ContentVersions::default();
        v.update(path, None, Some(h("1")));
        let mut expected = blake3::Hasher::new();
        expected.update(b"/p/a/statistics.yaml\0");
        expected.update(blake3::hash(b"1").to_hex().as_bytes());
        assert_eq!(v.all(), expected.finalize().as_bytes());
    }

    #[test]
    fn an_update_equals_a_fresh_digest() {
        let before = hashes(&[("/p/a/statistics.yaml", "1"), ("/p/b/statistics.yaml", "2")]);
        let after = hashes(&[("/p/a/statistics.yaml", "3"), ("/p/b/statistics.yaml", "2")]);
        let mut v = ContentVersions::of(&before);
        v.update(
            Path::new("/p/a/statistics.yaml"),
            Some(h("1")),
            Some(h("3")),
        );
        assert_eq!(v, ContentVersions::of(&after));
        assert_ne!(v, ContentVersions::of(&before));
    }

    #[test]
    fn named_digests_see_only_their_files() {
        let a = hashes(&[("/p/a/statistics.yaml", "1"), ("/p/a/ddl.sql", "9")]);
        let b = hashes(&[("/p/a/statistics.yaml", "1"), ("/p/a/ddl.sql", "8")]);
        let (a, b) = (ContentVersions::of(&a), ContentVersions::of(&b));
        assert_eq!(a.named("statistics.yaml"), b.named("statistics.yaml"));
        assert_ne!(a.named("ddl.sql"), b.named("ddl.sql"));
        assert_ne!(a.all(), b.all());
    }

    #[test]
    fn presence_moves_when_a_file_comes_or_goes_not_when_it_changes() {
        let path = Path::new("/p/a/statistics.annotations.yaml");
        let mut v = ContentVersions::default();
        let none = v.present("statistics.annotations.yaml");
        v.update(path, None, Some(h("1")));
        let one = v.present("statistics.annotations.yaml");
        assert_ne!(one, none);
        v.update(path, Some(h("1")), Some(h("2")));
        assert_eq!(v.present("statistics.annotations.yaml"), one);
        assert_ne!(v.named("statistics.annotations.yaml"), [0; 32]);
        v.update(path, Some(h("2")), None);
        assert_eq!(v.present("statistics.annotations.yaml"), none);
        assert_eq!(v, ContentVersions::default());
    }

    #[test]
    fn removing_a_file_undoes_adding_it() {
        let mut v = ContentVersions::default();
        v.update(Path::new("/p/x"), None, Some(h("1")));
        v.update(Path::new("/p/x"), Some(h("1")), None);
        assert_eq!(v, ContentVersions::default());
    }

    /// A directory tree copied (the store's unit tests serve copies of the fixtures).
    pub(crate) fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }

    /// A store on `index` whose change feed is up (complete).
    fn watched_store(served: crate::config::Served, index: &Path) -> crate::store::Store {
        let store = crate::store::Store::open(served, index).unwrap();
        until_feed_up(&store);
        store
    }

    /// Wait until `store`'s change feed is up (complete).
    fn until_feed_up(store: &crate::store::Store) {
        let waited = std::time::Instant::now();
        while !store.change_feed().is_some_and(|c| c.complete()) {
            assert!(
                waited.elapsed().as_secs() < 30,
                "the change feed never came up"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Wait until `store`'s feed names a change after epoch `at`.
    fn until_named(store: &crate::store::Store, at: u64) {
        let feed = store.change_feed().unwrap();
        let named = std::time::Instant::now();
        while feed.poll() == at || feed.since(at) == crate::store::changes::Since::Nothing {
            assert!(
                named.elapsed().as_secs() < 10,
                "the feed never named the edit"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Date every file below `dir` a minute back, as files written well before a server
    /// read them are: their identities are then settled.
    pub(crate) fn settle_files(dir: &Path) {
        let back = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let mut dirs = vec![dir.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    let file = std::fs::File::options().write(true).open(&path).unwrap();
                    file.set_modified(back).unwrap();
                }
            }
        }
    }

    /// A copy of the library fixture project, and what it serves.
    pub(crate) fn library_copy() -> (tempfile::TempDir, crate::config::Served) {
        let project = tempfile::tempdir().unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/library");
        copy_dir(&fixture, project.path());
        let config = crate::config::load_at(&project.path().display().to_string()).unwrap();
        let served = crate::config::Served::resolve(&config, None).unwrap();
        (project, served)
    }

    #[test]
    fn a_map_still_being_made_is_read_through_the_rows_of_its_generation_and_else_waited_for() {
        let (_project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open_unwatched(served, index.path()).unwrap();
        let state = store.current("library").unwrap();
        let stats = (state.config.print_root).join("stacks/members/patrons/statistics.yaml");
        let as_stored = state.hash_of(&stats).expect("tracked");
        // A map whose making is held until the test lets it go, holding another hash.
        let making = |release: std::sync::mpsc::Receiver<()>| {
            let stats = stats.clone();
            FileMap::made_later(FileMap::default(), move || {
                release.recv().unwrap();
                hashes(&[(stats.to_str().unwrap(), "made")])
            })
        };
        // Let go after a while: a lookup that waited would get the made map's hash.
        let (let_go, release) = std::sync::mpsc::channel();
        let of_the_rows = Snapshot {
            files: making(release),
            ..(*state).clone()
        };
        let later = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(2));
            let _ = let_go.send(());
        });
        assert_eq!(
            of_the_rows.hash_of(&stats),
            Some(as_stored),
            "the row, not waited for"
        );
        assert!(!of_the_rows.tracks(&stats.with_file_name("nothing.yaml")));

        // Rows of another generation are not this map: the map is waited for.
        let (let_go, release) = std::sync::mpsc::channel();
        let other = Snapshot {
            files: making(release),
            generation: state.generation + 1,
            ..(*state).clone()
        };
        let letting_go = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let_go.send(()).unwrap();
        });
        assert_eq!(other.hash_of(&stats), Some(h("made")));
        letting_go.join().unwrap();
        later.join().unwrap();
    }

    #[test]
    fn a_text_file_is_read_as_the_snapshot_knows_it_or_found_stale() {
        let (_project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(served, index.path()).unwrap();
        let state = store
            .fresh(
                crate::store::Connection(None),
                crate::store::Reads::Manifest,
            )
            .unwrap();
        let table = state.config.print_root.join("stacks/members/patrons");
        for name in ["ddl.sql", "description.md"] {
            let path = table.join(name);
            assert!(state.files.has_content(&path), "{name} is tracked");
            let on_disk = std::fs::read(&path).unwrap();
            assert_eq!(state.file_bytes(&path, true).unwrap(), Some(on_disk));
            std::fs::write(&path, "rewritten\n").unwrap();
            assert!(matches!(
                state.file_bytes(&path, true),
                Err(QueryError::Stale(p)) if p == path
            ));
            assert_eq!(
                state.file_bytes(&path, false).unwrap(),
                Some(b"rewritten\n".to_vec())
            );
            std::fs::remove_file(&path).unwrap();
            assert!(matches!(
                state.file_bytes(&path, true),
                Err(QueryError::Stale(_))
            ));
            assert_eq!(state.file_bytes(&path, false).unwrap(), None);
        }
        let undeclared = table.join("notes.txt");
        assert_eq!(state.file_bytes(&undeclared, true).unwrap(), None);
    }

    #[test]
    fn catching_up_reads_again_only_what_moved_since_the_scan() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        // Stamped a little ahead of the start's scan, as a write within a timestamp tick of
        // it would be: recorded unsettled. Catching up once it has settled stores its
        // settled identity.
        let rewritten = project
            .path()
            .join("prints/library/stacks/members/patrons/statistics.yaml");
        let ahead = std::time::Duration::from_millis(1500);
        std::fs::File::options()
            .write(true)
            .open(&rewritten)
            .unwrap()
            .set_modified(std::time::SystemTime::now() + ahead)
            .unwrap();
        let store = crate::store::Store::open(served, index.path()).unwrap();
        let opened = store.current("library").unwrap();
        assert!(!opened.files.identity(&rewritten).unwrap().settled);
        std::thread::sleep(ahead + std::time::Duration::from_millis(200));
        store.catch_up("library").unwrap();
        let before = store.current("library").unwrap();
        assert!(before.files.present().all(|(_, id)| id.settled));

        store.catch_up("library").unwrap();
        let same = store.current("library").unwrap();
        assert!(Arc::ptr_eq(&before, &same), "nothing moved: nothing read");

        // What a person does while the feed is not yet watching: a file edited, another
        // removed.
        let table = before.config.print_root.join("stacks/members/patrons");
        let edited = table.join("description.md");
        let removed = table.join("ddl.sql");
        std::fs::write(&edited, "Edited during the start.\n").unwrap();
        std::fs::remove_file(&removed).unwrap();
        store.catch_up("library").unwrap();
        let after = store.current("library").unwrap();
        assert_eq!(
            after.version_of(&edited),
            content_version(b"Edited during the start.\n")
        );
        assert_eq!(after.version_of(&removed), "absent");
        assert_ne!(before.version_of(&edited), after.version_of(&edited));
    }

    #[test]
    fn a_catch_up_after_a_call_swept_every_file_reads_only_what_the_feed_names() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        let store = watched_store(served, index.path());
        let fresh = || {
            store
                .fresh(
                    crate::store::Connection(None),
                    crate::store::Reads::EveryFile,
                )
                .unwrap()
        };
        // The start did not look at the files, so validate_sql's first call sweeps them,
        // and the feed, complete, vouches for what it found.
        let swept = fresh();
        assert_eq!(store.whole_sweeps_made(), 1);
        let verified = store.record_of(&swept).unwrap().verified().unwrap();
        // The catch-up that follows sweeps no more: it reads what the feed named since.
        let edited = swept
            .config
            .print_root
            .join("stacks/members/patrons/description.md");
        std::fs::write(&edited, "Edited after the sweep.\n").unwrap();
        until_named(&store, verified);
        store.catch_up("library").unwrap();
        assert_eq!(store.whole_sweeps_made(), 1, "no second sweep");
        assert_eq!(
            store.current("library").unwrap().version_of(&edited),
            content_version(b"Edited after the sweep.\n")
        );
        drop(project);
    }

    #[test]
    fn a_sweep_of_every_file_skips_the_searched_files_a_search_vouched_for() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open_unwatched(served, index.path()).unwrap();
        let state = store.current("library").unwrap();
        let table = state.config.print_root.join("stacks/lending/fines");
        let (stats, relationships) = (
            table.join("statistics.yaml"),
            table.join("relationships.yaml"),
        );
        for path in [&stats, &relationships] {
            let text = std::fs::read_to_string(path).unwrap();
            std::fs::write(path, format!("{text}\n# moved\n")).unwrap();
        }
        let mut every = state.moved_files(None, |_| false);
        every.sort();
        assert_eq!(every, [relationships.clone(), stats.clone()]);
        // The table entries share their paths with the file map: the skip finds them.
        let searched = SweptPaths::of(
            &state.search.tables,
            crate::store::search::Indexed::Statistics,
        );
        assert_eq!(
            state.moved_files(Some(&searched), |_| false),
            std::slice::from_ref(&relationships)
        );
        // One recorded unsettled is read again all the same.
        let unsettled = state.moved_files(Some(&searched), |p| p == stats);
        assert_eq!(unsettled.len(), 2);
        drop(project);
    }

    #[test]
    fn a_search_made_once_the_feed_is_up_vouches_for_its_files_until_the_catch_up() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        let store = watched_store(served, index.path());
        let fresh = |reads| store.fresh(crate::store::Connection(None), reads).unwrap();
        let searched = fresh(crate::store::Reads::EveryTableStatistics);
        let record = store.record_of(&searched).unwrap();
        assert!(
            record.verified().is_none(),
            "a search vouches for its files only"
        );
        let at = record
            .swept(crate::store::search::Indexed::Statistics)
            .unwrap();
        assert!(record.swept(crate::store::search::Indexed::Every).is_none());

        // An edit after the search is named by the feed: the next search reads it.
        let table = searched.config.print_root.join("stacks/lending/fines");
        let stats = table.join("statistics.yaml");
        let text = std::fs::read_to_string(&stats).unwrap();
        let edited = format!("{text}\n# edited after the search\n");
        std::fs::write(&stats, &edited).unwrap();
        until_named(&store, at);
        let again = fresh(crate::store::Reads::EveryTableStatistics);
        assert_eq!(again.version_of(&stats), content_version(edited.as_bytes()));

        // The catch-up sweeps the other files (a relationships file edited while the feed
        // watched is found either way), and then the feed vouches for every file.
        let relationships = table.join("relationships.yaml");
        std::fs::write(&relationships, "format_version: 1\nrefers_to: []\n").unwrap();
        store.catch_up("library").unwrap();
        assert_eq!(store.whole_sweeps_made(), 1);
        let caught_up = store.current("library").unwrap();
        assert!(store.record_of(&caught_up).unwrap().verified().is_some());
        assert_eq!(
            caught_up.version_of(&relationships),
            content_version(b"format_version: 1\nrefers_to: []\n")
        );
        assert_eq!(
            caught_up.version_of(&stats),
            content_version(edited.as_bytes())
        );
        drop(project);
    }

    #[test]
    fn a_store_opened_unwatched_sweeps_every_file_without_waiting_for_a_feed() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open_unwatched(served, index.path()).unwrap();
        // Settled as no feed at all, so nothing waits for one.
        assert!(matches!(store.changes.get(), Some(None)));
        let swept = store
            .fresh(
                crate::store::Connection(None),
                crate::store::Reads::EveryFile,
            )
            .unwrap();
        assert_eq!(store.whole_sweeps_made(), 1);
        assert!(store.record_of(&swept).unwrap().verified().is_none());
        drop(project);
    }

    #[test]
    fn every_file_is_swept_for_a_call_that_reads_joins_when_no_feed_vouches() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        // No watcher and no change feed here: every call sweeps what it reads.
        let mut store = crate::store::Store::open(served, index.path()).unwrap();
        store.changes = Arc::new(std::sync::OnceLock::from(None));
        let fresh = |reads| store.fresh(crate::store::Connection(None), reads).unwrap();
        let before = fresh(crate::store::Reads::EveryFile);
        let file = before
            .config
            .print_root
            .join("stacks/lending/fines/relationships.yaml");
        assert!(before.tracks(&file));
        std::fs::write(
            &file,
            "format_version: 1\nrefers_to: []\nreferenced_by: []\n",
        )
        .unwrap();
        // search_columns reads only statistics: its sweep leaves relationships alone.
        let searched = fresh(crate::store::Reads::EveryTableStatistics);
        assert_eq!(searched.version_of(&file), before.version_of(&file));
        // validate_sql and plan_joins read every table's joins: theirs reads it again.
        let joined = fresh(crate::store::Reads::EveryFile);
        assert_ne!(joined.version_of(&file), before.version_of(&file));
        drop(project);
    }

    #[test]
    fn a_start_takes_settled_stored_files_as_stored_and_calls_still_answer_the_disk() {
        let (project, served) = library_copy();
        let index = tempfile::tempdir().unwrap();
        // Settled before the first start stores them (50 ms past a fine timestamp).
        std::thread::sleep(std::time::Duration::from_millis(120));
        drop(crate::store::Store::open(served.clone(), index.path()).unwrap());

        // Edited while no process runs.
        let table = project.path().join("prints/library/stacks/members/patrons");
        let stats = table.join("statistics.yaml");
        let text = std::fs::read_to_string(&stats).unwrap();
        std::fs::write(&stats, format!("{text}\n# edited while no server ran\n")).unwrap();
        let description = table.join("description.md");
        std::fs::write(&description, "Edited while no server ran.\n").unwrap();

        let store = crate::store::Store::open(served, index.path()).unwrap();
        let started = store.current("library").unwrap();
        // The start did not look: it holds the stored versions, verified at no epoch.
        let stored_stats = started.version_of(&stats);
        assert_ne!(
            stored_stats,
            content_version(&std::fs::read(&stats).unwrap())
        );
        assert!(store.record_of(&started).unwrap().verified().is_none());
        // A call that reads the table's statistics answers the disk.
        let read = store
            .fresh(
                crate::store::Connection(None),
                crate::store::Reads::TableStatistics("stacks.members.patrons"),
            )
            .unwrap();
        assert_ne!(read.version_of(&stats), stored_stats);
        // The catch-up finds the rest.
        store.catch_up("library").unwrap();
        let caught_up = store.current("library").unwrap();
        assert_eq!(
            caught_up.version_of(&description),
            content_version(b"Edited while no server ran.\n")
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_start_from_its_head_hands_the_walk_it_checked_to_the_change_feed() {
        let (project, served) = library_copy();
        let index = project.path().join("index");
        let first = crate::store::Store::open(served.clone(), &index).unwrap();
        first.close();
        drop(first);
        let store = crate::store::Store::open_serving(served, &index, None).unwrap();
        until_feed_up(&store);
        assert!(
            store.starting.take_walks().is_empty(),
            "the feed took the walk"
        );
        // The walk a head hands on is the one it checked: every directory, as it holds.
        // Read once this start has written its own head: one read mid-write is none.
        store.starting.wait_all(std::time::Duration::from_secs(30));
        let conn = &store.served.connections[0];
        let (_, walk) = crate::store::Store::head_of(&store.shared(), conn).expect("a head");
        assert!(walk.holds());
        assert!(walk
            .dirs
            .iter()
            .any(|(d, _)| d.ends_with("stacks/catalog/books")));
        // The feed the walk set up watches the tables' directories.
        let at = store.change_feed().unwrap().poll();
        let statistics = project
            .path()
            .join("prints/library/stacks/catalog/books/statistics.yaml");
        let text = std::fs::read_to_string(&statistics).unwrap();
        std::fs::write(&statistics, format!("{text}\n")).unwrap();
        until_named(&store, at);
        store.close();
    }

    #[test]
    fn content_versions_made_in_parts_equal_those_made_in_one_pass() {
        let mut files = FileMap::default();
        for i in 0..40_000usize {
            let name = ["statistics.yaml", "ddl.sql", "relationships.yaml"][i % 3];
            let path = PathBuf::from(format!("/p/t{i}/{name}"));
            files.set(
                &path,
                Some(identity()),
                Some(ContentHash::of(&i.to_le_bytes())),
            );
        }
        let mut one_pass = ContentVersions::default();
        for (path, hash) in files.hashed() {
            one_pass.update(path, None, Some(hash));
        }
        assert_eq!(ContentVersions::of(&files), one_pass);
        let mut emptied = one_pass;
        for (path, hash) in files.hashed() {
            emptied.update(path, Some(hash), None);
        }
        assert_eq!(emptied, ContentVersions::default());
    }
}
