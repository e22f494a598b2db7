//! A served pz project, stored as a dbprint connection is: in the index location's mirror
//! (`pz_files`: each file pz reads, its identity and its bytes), written only through
//! `Store::write` under the one writer (so several processes sharing the location, and a
//! damaged, locked, unusable or removed location, are handled as for prints), kept fresh by
//! the store's one change feed and its daemon loop (`DaemonEvent::ProjectChanged`), and
//! handed to readers as an immutable [`ProjectSnapshot`], published with the change-feed
//! epoch it is known to match the disk at.
//!
//! A call is fresh by itself: the change feed names what changed since the snapshot was
//! last known to match the disk, and only when that touches a file pz reads (or a
//! directory that may hold some, or the feed cannot say) is the project scanned again
//! (every file `stat`ed, what moved re-read, what changed re-parsed) before the call is
//! answered. A run writing its data and staging files costs a call nothing. Requests
//! never parse: parsing happens only here, as the one writer.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

use super::lock::WriteLock;
use super::mirror::{Mirror, MirrorError};
use super::published::Published;
use super::watch::is_temporary;
use super::{Shared, Store};
use crate::error::Recover;
use crate::ingest::pz_project::files::is_project_path;
use crate::ingest::pz_project::scan::{scan_project, KnownFile, ProjectScan};
use crate::ingest::pz_project::{parse_project, parse_project_reusing, ParsedProject};

/// One version of the project: its parsed files, and what the next scan compares with.
/// Never changes once published.
pub struct ProjectSnapshot {
    pub parsed: Arc<ParsedProject>,
    /// blake3 over every file's path and content hash: equal versions, equal answers.
    pub version: [u8; 32],
    files: HashMap<String, KnownFile>,
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
                    let unchanged: HashSet<&str> = scan
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

/// What runs after a snapshot with new content is published (the MCP layer warms its
/// answers with it).
pub type OnPublish = Box<dyn Fn(&ProjectSnapshot) + Send + Sync>;

/// The pz project a store serves, and what the store keeps of it.
pub(super) struct ProjectSource {
    /// The project directory, absolute.
    pub(super) root: PathBuf,
    published: RwLock<Option<Arc<Published<ProjectSnapshot>>>>,
    /// The location whose mirror holds the published snapshot's files: a refresh on
    /// another one (a private location standing in, the shared one made again) stores
    /// against what that one holds, not against the snapshot.
    stored_on: Mutex<Weak<Shared>>,
    /// Set when something outside the feed's view may have written (a forwarded edit).
    stale: AtomicBool,
    on_publish: OnceLock<OnPublish>,
}

impl ProjectSource {
    pub(super) fn new(root: &Path) -> ProjectSource {
        ProjectSource {
            root: std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()),
            published: RwLock::new(None),
            stored_on: Mutex::new(Weak::new()),
            stale: AtomicBool::new(false),
            on_publish: OnceLock::new(),
        }
    }

    fn published(&self) -> Option<Arc<Published<ProjectSnapshot>>> {
        self.published.read().recover().clone()
    }

    fn stored_on(&self, shared: &Arc<Shared>) -> bool {
        let stored = self.stored_on.lock().recover();
        std::ptr::eq(stored.as_ptr(), Arc::as_ptr(shared))
    }
}

/// Whether a change at `path` may change what pz reads in the project at `root`: a
/// project file, or a directory that may hold some (a rename of `pipelines/sub/` moves
/// its files without an event each).
pub fn concerns(root: &Path, path: &Path) -> bool {
    if is_temporary(path) {
        return false;
    }
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    // pz's relative paths use `/` on every platform.
    let rel = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/");
    rel.is_empty()
        || is_project_path(&rel)
        || rel == "pipelines"
        || rel.starts_with("pipelines/") && !rel.ends_with(".sql") && !rel.contains('.')
        || matches!(
            rel.as_str(),
            "sources" | "sinks" | ".pz" | ".pz/state" | ".pz/runs" | ".pz/target"
        )
        || rel
            .strip_prefix(".pz/runs/")
            .is_some_and(|rest| !rest.contains('/'))
}

/// A project scan failed as a whole (a directory pz reads could not be listed, a file
/// not read).
fn scan_failed(root: &Path, source: std::io::Error) -> MirrorError {
    MirrorError::Io {
        path: root.to_path_buf(),
        source,
    }
}

impl Store {
    fn project_source(&self) -> Result<&ProjectSource, MirrorError> {
        self.project
            .as_ref()
            .ok_or_else(|| MirrorError::NotServed("this store serves no pz project".into()))
    }

    /// The served pz project's directory, if there is one.
    pub fn project_root(&self) -> Option<&Path> {
        self.project.as_ref().map(|p| p.root.as_path())
    }

    /// Run `hook` on every project snapshot with new content published from now on, and
    /// on the current one now.
    pub fn on_project_publish(&self, hook: OnPublish) {
        let Some(project) = &self.project else {
            return;
        };
        if project.on_publish.set(hook).is_ok() {
            if let (Some(hook), Some(current)) = (project.on_publish.get(), project.published()) {
                hook(&current.snapshot);
            }
        }
    }

    /// Say that the project may have been written by someone the change feed cannot be
    /// trusted to have seen in time (a forwarded edit): the next call scans.
    pub fn invalidate_project(&self) {
        if let Some(project) = &self.project {
            project.stale.store(true, Ordering::SeqCst);
        }
    }

    /// Whether the change feed watches every directory it was asked to, so a project call
    /// that finds nothing changed reads no file (until then every such call scans).
    pub fn watching(&self) -> bool {
        self.change_feed()
            .is_some_and(super::changes::ChangeFeed::complete)
    }

    /// The project as it is on disk now: the published snapshot when the change feed saw
    /// nothing pz reads move since it was verified, else a fresh scan's.
    pub(super) fn project_snapshot(&self) -> Result<Arc<ProjectSnapshot>, MirrorError> {
        let project = self.project_source()?;
        let Some(current) = project.published() else {
            return self.refresh_project();
        };
        if !project.stale.load(Ordering::SeqCst) {
            if let Some(feed) = self.change_feed().filter(|f| f.complete()) {
                let epoch = feed.poll();
                let verified = current.verified();
                if verified == Some(epoch) {
                    return Ok(current.snapshot.clone());
                }
                let untouched = verified.is_some_and(|verified| match feed.since(verified) {
                    super::changes::Since::Nothing => true,
                    super::changes::Since::Files(files) => {
                        !files.iter().any(|p| concerns(&project.root, p))
                    }
                    super::changes::Since::Unknown => false,
                });
                if untouched {
                    current.verify(epoch);
                    return Ok(current.snapshot.clone());
                }
            }
        }
        self.refresh_project()
    }

    /// Scan the project again and publish what changed (the daemon loop's and a stale
    /// call's way in), as the one writer. An unchanged project keeps its snapshot and
    /// parse.
    pub fn refresh_project(&self) -> Result<Arc<ProjectSnapshot>, MirrorError> {
        let project = self.project_source()?;
        let published =
            self.write(|shared, lock| self.refresh_project_locked(shared, project, lock))?;
        Ok(published.snapshot.clone())
    }

    /// `refresh_project` on `shared`, for a caller holding its write lock.
    fn refresh_project_locked(
        &self,
        shared: &Arc<Shared>,
        project: &ProjectSource,
        _lock: &WriteLock,
    ) -> Result<Arc<Published<ProjectSnapshot>>, MirrorError> {
        let root = &project.root;
        // Before the scan: a change while it runs leaves the result unverified.
        project.stale.store(false, Ordering::SeqCst);
        let epoch = self.change_feed().map(super::changes::ChangeFeed::poll);
        let current = project.published();
        // What the location's mirror holds: this process's snapshot when it stored it
        // there, else the mirror's own rows (a first scan, or a location since replaced).
        let rows: Option<HashMap<String, KnownFile>> =
            match current.as_ref().filter(|_| project.stored_on(shared)) {
                Some(_) => None,
                None => Some(shared.mirror.pz_files(root)?.into_iter().collect()),
            };
        let known = |rel: &str| match &current {
            Some(c) => c.snapshot.files.get(rel).cloned(),
            None => rows.as_ref().and_then(|r| r.get(rel).cloned()),
        };
        let scan = scan_project(root, &known).map_err(|e| scan_failed(root, e))?;
        let nothing = HashMap::new();
        let stored = rows
            .as_ref()
            .or_else(|| current.as_ref().map(|c| &c.snapshot.files))
            .unwrap_or(&nothing);
        store_scan(&shared.mirror, root, &scan, stored)?;
        *project.stored_on.lock().recover() = Arc::downgrade(shared);
        let Some(current) = current else {
            let snapshot = Arc::new(ProjectSnapshot::of(root, &scan, None, None));
            return Ok(self.publish_project(project, Published::new(snapshot, epoch), true));
        };
        let changed = scan.content_differs(current.snapshot.files.len());
        if !changed && !scan.files.iter().any(|f| f.moved) {
            if let Some(epoch) = epoch {
                current.verify(epoch);
            }
            return Ok(current);
        }
        // Same content with new identities keeps the parse; new content is parsed again.
        let parsed = (!changed).then(|| current.snapshot.parsed.clone());
        let snapshot = Arc::new(ProjectSnapshot::of(
            root,
            &scan,
            parsed,
            Some(&current.snapshot.parsed),
        ));
        if changed {
            tracing::debug!(files = snapshot.files.len(), "pz project re-ingested");
        }
        Ok(self.publish_project(project, Published::new(snapshot, epoch), changed))
    }

    /// Make `published` the snapshot project calls read from now on; `new_content` runs
    /// the publish hook on it.
    fn publish_project(
        &self,
        project: &ProjectSource,
        published: Published<ProjectSnapshot>,
        new_content: bool,
    ) -> Arc<Published<ProjectSnapshot>> {
        let published = Arc::new(published);
        *project.published.write().recover() = Some(published.clone());
        if new_content {
            if let Some(hook) = project.on_publish.get() {
                hook(&published.snapshot);
            }
        }
        published
    }
}

/// Write what `scan` found that differs from `known` (what the mirror holds) to the mirror.
fn store_scan(
    mirror: &Mirror,
    root: &Path,
    scan: &ProjectScan,
    known: &HashMap<String, KnownFile>,
) -> Result<(), MirrorError> {
    let moved: Vec<_> = scan
        .files
        .iter()
        .filter(|f| {
            f.moved
                || known
                    .get(&f.rel)
                    .is_none_or(|k| k.identity != f.file.identity || k.hash != f.file.hash)
        })
        .collect();
    let scanned: HashSet<&str> = scan.files.iter().map(|f| f.rel.as_str()).collect();
    let gone: Vec<&str> = known
        .keys()
        .map(String::as_str)
        .filter(|rel| !scanned.contains(rel))
        .collect();
    mirror.store_pz_files(root, &moved, &gone)
}

#[cfg(test)]
mod tests;
