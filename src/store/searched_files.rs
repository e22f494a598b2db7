//! Every walkable table's searched files as a start's image holds them, kept beside the
//! image, so that a search arriving while a start is under way sweeps them at once instead
//! of waiting for the start to end first.
//!
//! A search must `stat` every table's searched files (an edit made while no server ran is
//! seen by the first call that reads the file), and at 100,000 tables that sweep and the
//! image's read back (the start) each take about 200 ms: one after the other, a first
//! search answered in 440-470 ms. The list is small beside the image (paths and
//! identities, no hashes, no map to make), so the search reads it back and sweeps while
//! the image is still being read. What it finds moved is read again once the start has
//! published, and only when the snapshot published is the image's (the same key: rows,
//! manifest, walk), whose tables hold exactly these identities; otherwise the search
//! sweeps the published snapshot as before.
//!
//! The sweep starts after the call arrived, so it finds every edit made before the call,
//! which is all a call's freshness asks.
//!
//! A serving process keeps the list with each image it keeps; `index rebuild` does not
//! (its peak memory would hold it beside the image and the file map), so the first start
//! after a rebuild keeps it, off its path, for the next.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cache::Key;
use super::derived::{connection_scope, DerivedDir, Kept, Texts};
use super::file_map::FileMap;
use super::search::{Indexed, TableEntry};
use super::shared_sweep::{List, SweepChunk, SweepOf, CHUNK};
use super::{background, image, Snapshot, Store};
use crate::config::ConnectionConfig;
use crate::ingest::{file_identity, FileIdentity};

/// The searched files of an image's tables: their statistics and annotations first (what
/// search_columns reads), then their descriptions and relationship notes (what find reads
/// too).
#[derive(Serialize, Deserialize, Default)]
pub(super) struct KeptSearchedFiles {
    statistics: Files,
    others: Files,
}

/// Paths (below the print root, relative to it; whole otherwise) and the identity the
/// image holds for each (`None`: untracked, or stored absent).
#[derive(Serialize, Deserialize, Default)]
struct Files {
    paths: Texts,
    identities: Vec<Option<FileIdentity>>,
}

impl Kept for KeptSearchedFiles {
    const ENCODING: u32 = 1;
}

/// One value per connection and print root: the newest image's.
fn scope(conn: &ConnectionConfig) -> Key {
    connection_scope("searched files", conn)
}

/// The key of the searched files of the image `image` names.
fn key(image: &Key) -> Key {
    Key::new("searched files", [image.hex().as_bytes()])
}

/// Whether the searched files of the image `image` names are kept (not read: one found
/// damaged when read is set aside, and kept again by the next start).
pub(super) fn held(derived: &DerivedDir, conn: &ConnectionConfig, image: &Key) -> bool {
    derived.holds(&scope(conn), &key(image))
}

/// Keep the searched files of `tables` with the identities `files` holds (as the image
/// `image` names makes its tables' entries), unless a whole list is kept already, a path
/// is not UTF-8 (the mirror holds none such) or the list outgrew its counts. Off the
/// start's path: it reads a kept list through.
pub(super) fn keep(
    derived: &DerivedDir,
    conn: &ConnectionConfig,
    image: &Key,
    (files, tables): (&FileMap, &[TableEntry]),
) {
    let (scope, key) = (scope(conn), key(image));
    if derived.holds_whole::<KeptSearchedFiles>(&scope, &key) {
        return;
    }
    if let Some(kept) = KeptSearchedFiles::of(&conn.print_root, files, tables) {
        derived.save(&scope, &key, &kept);
    }
}

/// The searched files of the image `image` names, if kept whole.
fn load(derived: &DerivedDir, conn: &ConnectionConfig, image: &Key) -> Option<KeptSearchedFiles> {
    derived.load(&scope(conn), &key(image))
}

/// What a search's sweep beside a start found: the files that moved since the image
/// `image` names was kept.
pub(super) struct SweptBesideStart {
    image: Key,
    pub(super) moved: Vec<PathBuf>,
}

impl SweptBesideStart {
    /// Whether `state` is the snapshot of the image swept: its tables then hold exactly
    /// the identities the sweep compared the disk with.
    pub(super) fn holds_for(&self, state: &Snapshot) -> bool {
        let (files, walk) = (&state.files, state.walk_outcome);
        image::key_of(&state.shared, &state.config, state.generation, files, walk)
            == Some(self.image)
    }
}

impl Store {
    /// For a search over every table's `which` files on connection `requested` (`None`:
    /// the default) that arrives while its start is under way: the sweep of them against
    /// the start's image, made now, beside the start. `None` when no start is under way,
    /// its head holds no image, or the image's searched files are not kept.
    pub(super) fn sweep_beside_start(
        &self,
        requested: Option<&str>,
        which: Indexed,
    ) -> Option<SweptBesideStart> {
        let conn = self.served.pick(requested).ok()?;
        let image = self.starting.head(&conn.name)?.image_key?;
        let started = std::time::Instant::now();
        let shared = self.shared();
        let of = SweepOf {
            connection: conn.name.clone(),
            list: List::Image(image),
            which,
        };
        let _sweeping = background::Sweeping::begin();
        let moved = shared.sweeps.moved(of, || {
            let kept = load(&DerivedDir::in_location(&shared.dir), conn, &image)?;
            Arc::new(kept).sweep(conn.print_root.clone(), which)
        })?;
        tracing::debug!(connection = %conn.name, swept = ?started.elapsed(), moved = moved.len(), "searched files swept beside the start");
        Some(SweptBesideStart { image, moved })
    }
}

impl KeptSearchedFiles {
    fn of(root: &Path, files: &FileMap, tables: &[TableEntry]) -> Option<KeptSearchedFiles> {
        let mut kept = KeptSearchedFiles::default();
        for table in tables {
            for (n, path) in table.indexed().into_iter().enumerate() {
                let Some(path) = path else { continue };
                let into = if n < 2 {
                    &mut kept.statistics
                } else {
                    &mut kept.others
                };
                let text = path.strip_prefix(root).unwrap_or(path).to_str()?;
                into.paths.push(text)?;
                into.identities.push(files.identity(path));
            }
        }
        Some(kept)
    }

    /// How many files `which` covers: the statistics and annotations, then the others.
    fn count(&self, which: Indexed) -> usize {
        let others = if which == Indexed::Every {
            self.others.identities.len()
        } else {
            0
        };
        self.statistics.identities.len() + others
    }

    /// The sweep of the files of `which` in chunks of `CHUNK` (`root`: the print root they
    /// are below): how many chunks, and the files of one whose identity on disk now is
    /// not the one kept (one `stat` each). `None` when the list is of another shape.
    pub(super) fn sweep(
        self: Arc<Self>,
        root: PathBuf,
        which: Indexed,
    ) -> Option<(usize, SweepChunk)> {
        let whole = |files: &Files| files.paths.len() == files.identities.len();
        if !whole(&self.statistics) || !whole(&self.others) {
            return None;
        }
        let count = self.count(which);
        let sweep = move |chunk: usize| -> Vec<PathBuf> {
            let first = self.statistics.identities.len();
            let mut moved = Vec::new();
            for n in chunk * CHUNK..((chunk + 1) * CHUNK).min(count) {
                let (files, n) = match n.checked_sub(first) {
                    None => (&self.statistics, n),
                    Some(n) => (&self.others, n),
                };
                // A whole path (not below the root) stands as it is; a text that does not
                // read back is taken as moved (its owner is read again).
                let rel = files.paths.get(n).unwrap_or_default();
                let path = root.join(rel);
                if rel.is_empty() || file_identity(&path) != files.identities[n] {
                    moved.push(path);
                }
            }
            moved
        };
        Some((count.div_ceil(CHUNK), Box::new(sweep)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::file_map::ContentHash;
    use crate::store::{Connection, Reads};

    /// Every chunk of `kept`'s sweep of `which`, one after another.
    fn moved(kept: &Arc<KeptSearchedFiles>, root: &Path, which: Indexed) -> Option<Vec<PathBuf>> {
        let (chunks, sweep) = kept.clone().sweep(root.to_path_buf(), which)?;
        Some((0..chunks).flat_map(sweep).collect())
    }

    /// A copy of the library fixture, every file dated a minute back and its directories
    /// left to settle (so a store over it keeps its head and image), and what it serves.
    fn settled_library() -> (tempfile::TempDir, crate::config::Served) {
        let (project, served) = crate::store::snapshot::tests::library_copy();
        crate::store::snapshot::tests::settle_files(project.path());
        std::thread::sleep(std::time::Duration::from_millis(200));
        (project, served)
    }

    #[test]
    fn a_search_during_a_start_sweeps_beside_it_and_sees_an_edit_made_before_it() {
        let (_project, served) = settled_library();
        let index = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open_unwatched(served, index.path()).unwrap());
        let state = store.current("library").unwrap();
        let notes =
            (state.config.print_root).join("stacks/members/patrons/statistics.annotations.yaml");
        let before = state.hash_of(&notes).expect("tracked");
        // Edited in place while no start is under way, then a start begun: the search
        // made meanwhile sweeps the kept list before the start ends, and its snapshot
        // holds the edit once it has.
        let edited = format!("{}\n# edited\n", std::fs::read_to_string(&notes).unwrap());
        std::fs::write(&notes, &edited).unwrap();
        assert!(store.begin_start("library"), "the reconcile kept no head");
        let (sent, got) = std::sync::mpsc::channel();
        let asking = {
            let store = store.clone();
            std::thread::spawn(move || {
                let answer = store.fresh(Connection(None), Reads::EveryTableStatistics);
                let _ = sent.send(answer.map(|state| state.hash_of(&notes)));
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(got.try_recv().is_err(), "answered before the start ended");
        store.end_start("library");
        let after = got
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap();
        asking.join().unwrap();
        let after = after.unwrap().expect("still tracked");
        assert_ne!(after, before, "the edit is read");
        assert_eq!(
            &*after.hex(),
            blake3::hash(edited.as_bytes()).to_hex().as_str()
        );
        assert_eq!(
            store.searches_swept_beside_start(),
            1,
            "swept beside the start"
        );

        // A search with no start under way sweeps the snapshot, as before.
        store
            .fresh(Connection(None), Reads::EveryTableFile)
            .unwrap();
        assert_eq!(store.searches_swept_beside_start(), 1);
    }

    #[test]
    fn a_sweep_of_the_kept_list_finds_what_moved_and_only_that() {
        let dir = tempfile::tempdir().unwrap();
        let config = "connections:\n  demo:\n    adapter: duckdb\n";
        std::fs::write(dir.path().join(".dbprint.yaml"), config).unwrap();
        let project = crate::config::load_at(&dir.path().display().to_string()).unwrap();
        let served = crate::config::Served::resolve(&project, None).unwrap();
        let conn = served.connections[0].clone();
        let root = conn.print_root.clone();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        let stats = write("s/a/statistics.yaml", "columns: []\n");
        let notes = write("s/a/statistics.annotations.yaml", "columns: {}\n");
        let description = write("s/a/description.md", "A table.\n");
        let relationships = root.join("s/a/relationships.annotations.yaml");
        // Stored as the disk holds it a minute ago (settled), the relationship notes absent.
        let back = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let mut files = FileMap::default();
        for path in [&stats, &notes, &description] {
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(back).unwrap();
            let identity = file_identity(path);
            assert!(identity.is_some_and(|id| id.settled));
            files.set(path, identity, ContentHash::from_hex(&"0".repeat(64)));
        }
        files.set(&relationships, None, None);
        let table = TableEntry {
            fqn: "db.s.a".into(),
            key: 1,
            stats: Some(stats.as_path().into()),
            annotations: Some(notes.as_path().into()),
            description: Some(description.as_path().into()),
            relationship_notes: Some(relationships.as_path().into()),
            identities: [None; 4],
            row_count: None,
        };
        let kept = KeptSearchedFiles::of(&root, &files, std::slice::from_ref(&table)).unwrap();
        assert_eq!(kept.count(Indexed::Statistics), 2);
        assert_eq!(kept.count(Indexed::Every), 4);
        // Read back through the derived directory, as a start does.
        let index = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(index.path());
        let key = Key::new("start image", [b"rows".as_slice()]);
        keep(
            &derived,
            &conn,
            &key,
            (&files, std::slice::from_ref(&table)),
        );
        let kept = Arc::new(load(&derived, &conn, &key).expect("the list reads back"));
        let none: Vec<PathBuf> = Vec::new();
        assert_eq!(moved(&kept, &root, Indexed::Every), Some(none.clone()));

        // An annotation edited in place and the relationship notes written: the statistics
        // sweep names the one, the sweep of every kind both; the untouched files neither.
        std::fs::write(&notes, "columns: {id: {note: edited}}\n").unwrap();
        write("s/a/relationships.annotations.yaml", "refers_to: []\n");
        assert_eq!(
            moved(&kept, &root, Indexed::Statistics),
            Some(vec![notes.clone()])
        );
        assert_eq!(
            moved(&kept, &root, Indexed::Every),
            Some(vec![notes.clone(), relationships.clone()])
        );
        std::fs::remove_file(&stats).unwrap();
        assert_eq!(
            moved(&kept, &root, Indexed::Statistics),
            Some(vec![stats, notes])
        );
        assert!(load(
            &derived,
            &conn,
            &Key::new("start image", [b"other".as_slice()])
        )
        .is_none());
    }
}
