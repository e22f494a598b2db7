//! A served pz project in the mirror: the files pz reads, ingested (`ingest::pz_project::scan`,
//! stored in the mirror's `pz_files`, parsed by `ingest::pz_project::parse_project`) and handed to
//! readers as an immutable [`ProjectSnapshot`]. The watcher (`watch`) refreshes it when
//! the disk moves; a call is fresh by itself too: the change feed over the project
//! directory names what changed since the snapshot was last known to match the disk, and
//! only when that touches a file pz reads (or the feed cannot say) are the files `stat`ed
//! again, what moved re-read and the project re-parsed, before the call is answered. A
//! run writing its data and staging files costs a call nothing. Where the feed is missing
//! every call sweeps. Requests never parse: parsing happens only here, under the one
//! writer.

pub mod watch;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use super::cache::Cache;
use super::changes::{ChangeFeed, Since};
use super::mirror::{Mirror, MirrorError};
use crate::ingest::pz_project::scan::{scan_project, KnownFile, ProjectScan};
use crate::ingest::pz_project::{parse_project, parse_project_reusing, ParsedProject};

/// No change-feed epoch: a snapshot never verified against the feed.
const UNVERIFIED: u64 = u64::MAX;

/// One version of the project: its parsed files, and what the next scan compares with.
pub struct ProjectSnapshot {
    pub parsed: Arc<ParsedProject>,
    /// blake3 over every file's path and content hash: equal versions, equal answers.
    pub version: [u8; 32],
    files: HashMap<String, KnownFile>,
    /// The change-feed epoch at which this snapshot was last known to match the disk.
    verified: AtomicU64,
}

impl ProjectSnapshot {
    /// The snapshot of `scan`: its parse is `parsed` when given (same content), else
    /// made anew, reusing what `previous` parsed of the files that did not change.
    fn of(
        root: &Path,
        scan: &ProjectScan,
        parsed: Option<Arc<ParsedProject>>,
        previous: Option<&ParsedProject>,
    ) -> ProjectSnapshot {
        let mut h = blake3::Hasher::new();
        for f in &scan.files {
            h.update(f.rel.as_bytes());
            h.update(b"\0");
            h.update(f.file.hash.as_bytes());
            h.update(b"\0");
        }
        let parsed = parsed.unwrap_or_else(|| {
            let view = scan.view(root);
            Arc::new(match previous {
                Some(previous) => {
                    let unchanged: std::collections::HashSet<&str> = scan
                        .files
                        .iter()
                        .filter(|f| !f.changed)
                        .map(|f| f.rel.as_str())
                        .collect();
                    parse_project_reusing(&view, previous, &|rel| unchanged.contains(rel))
                }
                None => parse_project(&view),
            })
        });
        ProjectSnapshot {
            parsed,
            version: *h.finalize().as_bytes(),
            files: scan
                .files
                .iter()
                .map(|f| (f.rel.clone(), f.file.clone()))
                .collect(),
            verified: AtomicU64::new(UNVERIFIED),
        }
    }

    /// Bytes the snapshot holds (a cache weight).
    pub fn bytes(&self) -> usize {
        self.files.values().map(|f| f.bytes.len()).sum()
    }

    /// How many files pz reads the project has.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }
}

/// What runs after a new snapshot is published (the MCP layer warms its answers with it).
pub type OnPublish = Box<dyn Fn(&ProjectSnapshot) + Send + Sync>;

/// A pz project kept fresh in the mirror.
pub struct ProjectStore {
    root: PathBuf,
    mirror: Mirror,
    cache: Cache,
    current: RwLock<Arc<ProjectSnapshot>>,
    /// The one writer of this project's rows and snapshots in this process (rows are
    /// identity-checked on read, so a second process's writes are never trusted wrongly).
    writer: Mutex<()>,
    /// Set up off the startup path; until then every call sweeps.
    changes: Arc<OnceLock<Option<ChangeFeed>>>,
    /// Set when something outside the feed's view may have written (a forwarded edit).
    stale: AtomicBool,
    on_publish: OnceLock<OnPublish>,
}

impl ProjectStore {
    /// Open the mirror in `index_dir` and ingest the project at `root`: files whose
    /// identity the mirror holds are not read again.
    pub fn open(root: &Path, index_dir: &Path) -> Result<ProjectStore, MirrorError> {
        let private = index_dir.to_path_buf();
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let mirror = Mirror::open(index_dir)?;
        let stored: HashMap<String, KnownFile> = mirror.pz_files(&root)?.into_iter().collect();
        let scan = scan_project(&root, &|rel| stored.get(rel).cloned()).map_err(|source| {
            MirrorError::Io {
                path: root.clone(),
                source,
            }
        })?;
        store_scan(&mirror, &root, &scan, &stored)?;
        let snapshot = ProjectSnapshot::of(&root, &scan, None, None);
        let changes: Arc<OnceLock<Option<ChangeFeed>>> = Arc::default();
        {
            let changes = changes.clone();
            let watched = root.clone();
            std::thread::Builder::new()
                .name("printdex-pz-changes".into())
                .spawn(move || {
                    let _ = changes.set(ChangeFeed::watch(&[watched], &private));
                })
                .map_err(|source| MirrorError::Io {
                    path: root.clone(),
                    source,
                })?;
        }
        Ok(ProjectStore {
            root,
            mirror,
            cache: Cache::default(),
            current: RwLock::new(Arc::new(snapshot)),
            writer: Mutex::new(()),
            changes,
            stale: AtomicBool::new(false),
            on_publish: OnceLock::new(),
        })
    }

    /// The project directory, absolute.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The cache of values derived from a snapshot (keyed by its version).
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    pub fn mirror(&self) -> &Mirror {
        &self.mirror
    }

    /// Run `hook` on every snapshot published from now on, and on the current one now.
    pub fn on_publish(&self, hook: OnPublish) {
        let current = self.current();
        if self.on_publish.set(hook).is_ok() {
            if let Some(hook) = self.on_publish.get() {
                hook(&current);
            }
        }
    }

    /// Say that the project may have been written by someone the change feed cannot be
    /// trusted to have seen in time (a forwarded edit): the next call sweeps.
    pub fn invalidate(&self) {
        self.stale.store(true, Ordering::SeqCst);
    }

    /// The snapshot published last, without looking at the disk.
    pub fn current(&self) -> Arc<ProjectSnapshot> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether the change feed watches the whole project, so a call that finds nothing
    /// changed reads no file (until then every call sweeps).
    pub fn watching(&self) -> bool {
        self.feed().is_some_and(ChangeFeed::complete)
    }

    fn feed(&self) -> Option<&ChangeFeed> {
        self.changes.get().and_then(Option::as_ref)
    }

    /// The project as it is on disk now: the current snapshot when the change feed saw
    /// nothing since it was verified, else a fresh scan's.
    pub fn snapshot(&self) -> Result<Arc<ProjectSnapshot>, MirrorError> {
        let current = self.current();
        if !self.stale.load(Ordering::SeqCst) {
            if let Some(feed) = self.feed().filter(|f| f.complete()) {
                let epoch = feed.poll();
                let verified = current.verified.load(Ordering::SeqCst);
                if epoch == verified {
                    return Ok(current);
                }
                let untouched = verified != UNVERIFIED
                    && match feed.since(verified) {
                        Since::Nothing => true,
                        Since::Files(files) => {
                            !files.iter().any(|p| watch::concerns(&self.root, p))
                        }
                        Since::Unknown => false,
                    };
                if untouched {
                    current.verified.store(epoch, Ordering::SeqCst);
                    return Ok(current);
                }
            }
        }
        self.refresh()
    }

    /// Scan the project again and publish what changed (the watcher's and a stale call's
    /// way in). An unchanged project keeps its snapshot and parse.
    pub fn refresh(&self) -> Result<Arc<ProjectSnapshot>, MirrorError> {
        let _writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        // Before the scan: a change while it runs leaves the result unverified.
        self.stale.store(false, Ordering::SeqCst);
        let epoch = self.feed().map_or(UNVERIFIED, ChangeFeed::poll);
        let current = self.current();
        let scan =
            scan_project(&self.root, &|rel| current.files.get(rel).cloned()).map_err(|source| {
                MirrorError::Io {
                    path: self.root.clone(),
                    source,
                }
            })?;
        store_scan(&self.mirror, &self.root, &scan, &current.files)?;
        let changed = scan.content_differs(current.files.len());
        if !changed && !scan.files.iter().any(|f| f.moved) {
            current.verified.store(epoch, Ordering::SeqCst);
            return Ok(current);
        }
        // Same content with new identities keeps the parse; new content is parsed again.
        let parsed = (!changed).then(|| current.parsed.clone());
        let snapshot = Arc::new(ProjectSnapshot::of(
            &self.root,
            &scan,
            parsed,
            Some(&current.parsed),
        ));
        snapshot.verified.store(epoch, Ordering::SeqCst);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = snapshot.clone();
        if changed {
            tracing::debug!(files = snapshot.files.len(), "pz project re-ingested");
            if let Some(hook) = self.on_publish.get() {
                hook(&snapshot);
            }
        }
        Ok(snapshot)
    }
}

/// Write what `scan` found that differs from `known` to the mirror.
fn store_scan(
    mirror: &Mirror,
    root: &Path,
    scan: &ProjectScan,
    known: &HashMap<String, KnownFile>,
) -> Result<(), MirrorError> {
    let moved: Vec<_> = scan
        .files
        .iter()
        .filter(|f| f.moved || !known.contains_key(&f.rel))
        .collect();
    let gone: Vec<&str> = known
        .keys()
        .filter(|rel| !scan.files.iter().any(|f| &f.rel == *rel))
        .map(String::as_str)
        .collect();
    mirror.store_pz_files(root, &moved, &gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A project of `files` in a temp dir, its store, and the mirror's directory.
    fn opened(files: &[(&str, &str)]) -> (tempfile::TempDir, tempfile::TempDir, ProjectStore) {
        let (project, index) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (rel, text) in files {
            write(project.path(), rel, text);
        }
        let store = ProjectStore::open(project.path(), index.path()).unwrap();
        (project, index, store)
    }

    #[test]
    fn an_edit_is_seen_by_the_next_snapshot_and_a_restart_reads_the_mirror() {
        let (project, index, store) = opened(&[
            ("project.yml", "name: a\nversion: '1'\n"),
            ("pipelines/a.sql", "select 1"),
        ]);
        let root = project.path();
        let first = store.snapshot().unwrap();
        assert_eq!(first.file_count(), 2);
        assert_eq!(first.parsed.pipelines.len(), 1);
        // Nothing moved: the same snapshot.
        let again = store.snapshot().unwrap();
        assert_eq!(again.version, first.version);

        write(root, "pipelines/b.sql", "select 2");
        let edited = store.snapshot().unwrap();
        assert_ne!(edited.version, first.version);
        assert_eq!(edited.parsed.pipelines.len(), 2);
        // Only the new file was parsed: a.sql's parse is the one from before.
        assert!(Arc::ptr_eq(
            &edited.parsed.pipelines[0].template,
            &first.parsed.pipelines[0].template
        ));
        write(root, "pipelines/a.sql", "select 10");
        let rewritten = store.snapshot().unwrap();
        assert!(!Arc::ptr_eq(
            &rewritten.parsed.pipelines[0].template,
            &first.parsed.pipelines[0].template
        ));
        assert!(Arc::ptr_eq(
            &rewritten.parsed.pipelines[1].template,
            &edited.parsed.pipelines[1].template
        ));

        std::fs::remove_file(root.join("pipelines/a.sql")).unwrap();
        let removed = store.snapshot().unwrap();
        assert_eq!(removed.parsed.pipelines.len(), 1);
        assert_eq!(
            store.mirror().pz_files(store.root()).unwrap().len(),
            2,
            "the mirror holds project.yml and b.sql"
        );
        drop(store);

        // A restart serves the mirror's bytes for what did not move.
        let reopened = ProjectStore::open(root, index.path()).unwrap();
        assert_eq!(reopened.current().version, removed.version);
    }

    #[test]
    fn a_hook_sees_each_new_content_once() {
        let (project, _index, store) = opened(&[("project.yml", "name: a\n")]);
        let root = project.path();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        store.on_publish(Box::new(move |s| log.lock().unwrap().push(s.version)));
        store.refresh().unwrap();
        write(root, "project.yml", "name: b\n");
        store.invalidate();
        let after = store.snapshot().unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "the current snapshot, then the edit");
        assert_eq!(seen[1], after.version);
    }

    #[test]
    fn a_change_to_what_pz_does_not_read_costs_no_scan() {
        let (project, _index, store) =
            opened(&[("project.yml", "name: a\n"), ("data/orders.csv", "id\n1\n")]);
        let root = project.path();
        let started = std::time::Instant::now();
        while !store.watching() {
            assert!(started.elapsed().as_secs() < 20, "no change feed");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let verified = store.refresh().unwrap();
        write(root, "data/orders.csv", "id\n1\n2\n");
        write(root, "pipelines_notes.txt", "x");
        let after = store.snapshot().unwrap();
        assert!(
            Arc::ptr_eq(&verified, &after),
            "the same snapshot, not a re-scan"
        );
        write(root, "project.yml", "name: b\n");
        let edited = store.snapshot().unwrap();
        assert_ne!(edited.version, verified.version);
    }
}
