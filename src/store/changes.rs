//! Exact, cheap change detection below the served print roots, for calls that would
//! otherwise `stat` every file of the print (search_columns reads every table's
//! statistics): an inotify instance whose queue a call drains with one non-blocking `read`
//! before trusting a state built earlier. The kernel queues an event before the writer's
//! system call returns, so a change made before a call began is seen by that call. Any
//! event at all only sends the call to the full stat sweep, which stays the authority;
//! where inotify is unavailable, or a watch could not be added, every call sweeps.
//!
//! Independent of `watch/` (whose debounced events drive re-ingest): this one never
//! waits, and never acts beyond counting.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

/// Everything that can change what a file reads as, or which file a path names.
fn mask() -> WatchMask {
    WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::CLOSE_WRITE
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
}

struct Inner {
    inotify: Inotify,
    dirs: HashMap<WatchDescriptor, PathBuf>,
    /// Directories watched without their whole tree: the names of the subdirectories
    /// that are watched (as trees) when they appear.
    shallow: HashMap<PathBuf, Vec<&'static str>>,
    buffer: Vec<u8>,
}

pub struct ChangeFeed {
    inner: Mutex<Inner>,
    /// Bumped once per drained batch of events.
    epoch: AtomicU64,
    /// Every directory below every root is watched.
    complete: AtomicBool,
}

impl ChangeFeed {
    /// Watch every directory below `roots` (symbolic links to directories followed);
    /// `None` when inotify is unavailable.
    pub fn watch(roots: &[PathBuf]) -> Option<ChangeFeed> {
        let feed = ChangeFeed::new()?;
        {
            let mut inner = feed.lock();
            for root in roots {
                feed.add_tree(&mut inner, root);
            }
        }
        Some(feed)
    }

    /// Watch `root` itself and, of what lies below it, only the trees of the subdirectories
    /// named in `trees` (as they are now, or once they appear): a pz project, whose data
    /// directories may be large and change on every run, is read only from a few.
    pub fn watch_shallow(root: &Path, trees: &[&'static str]) -> Option<ChangeFeed> {
        let feed = ChangeFeed::new()?;
        {
            let mut inner = feed.lock();
            match inner.inotify.watches().add(root, mask()) {
                Ok(wd) => {
                    inner.dirs.insert(wd, root.to_path_buf());
                    inner.shallow.insert(root.to_path_buf(), trees.to_vec());
                }
                Err(_) => feed.complete.store(false, Ordering::Relaxed),
            }
            for tree in trees {
                let dir = root.join(tree);
                if dir.is_dir() {
                    feed.add_tree(&mut inner, &dir);
                }
            }
        }
        Some(feed)
    }

    fn new() -> Option<ChangeFeed> {
        let inotify = Inotify::init().ok()?;
        Some(ChangeFeed {
            inner: Mutex::new(Inner {
                inotify,
                dirs: HashMap::new(),
                shallow: HashMap::new(),
                buffer: vec![0; 64 * 1024],
            }),
            epoch: AtomicU64::new(0),
            complete: AtomicBool::new(true),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add_tree(&self, inner: &mut Inner, top: &Path) {
        let mut seen: HashSet<PathBuf> = HashSet::new();
        let mut pending = vec![top.to_path_buf()];
        while let Some(dir) = pending.pop() {
            // A link cycle would never end: each real directory once.
            let Ok(real) = std::fs::canonicalize(&dir) else {
                // Not there (yet): whatever appears later is not watched.
                self.complete.store(false, Ordering::Relaxed);
                continue;
            };
            if !seen.insert(real) {
                continue;
            }
            match inner.inotify.watches().add(&dir, mask()) {
                Ok(wd) => {
                    inner.dirs.insert(wd, dir.clone());
                }
                Err(_) => {
                    self.complete.store(false, Ordering::Relaxed);
                    continue;
                }
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                    pending.push(path);
                }
            }
        }
    }

    /// Whether every directory below the roots is watched, so an unchanged epoch means
    /// nothing changed.
    pub fn complete(&self) -> bool {
        self.complete.load(Ordering::Relaxed)
    }

    /// Drain the queued events and return the epoch after them. New directories are
    /// watched as they appear.
    pub fn poll(&self) -> u64 {
        let mut guard = self.lock();
        loop {
            let inner = &mut *guard;
            let mut created: Vec<PathBuf> = Vec::new();
            let any = match inner.inotify.read_events(&mut inner.buffer) {
                Ok(events) => {
                    let mut any = false;
                    for event in events {
                        any = true;
                        if event.mask.contains(EventMask::Q_OVERFLOW) {
                            continue;
                        }
                        if event.mask.contains(EventMask::ISDIR)
                            && event
                                .mask
                                .intersects(EventMask::CREATE | EventMask::MOVED_TO)
                        {
                            if let (Some(parent), Some(name)) =
                                (inner.dirs.get(&event.wd), event.name)
                            {
                                let wanted = match inner.shallow.get(parent) {
                                    Some(trees) => trees.iter().any(|t| name == *t),
                                    None => true,
                                };
                                if wanted {
                                    created.push(parent.join(name));
                                }
                            }
                        }
                    }
                    any
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    self.complete.store(false, Ordering::Relaxed);
                    break;
                }
            };
            if any {
                self.epoch.fetch_add(1, Ordering::SeqCst);
            }
            for dir in created {
                self.add_tree(inner, &dir);
            }
        }
        self.epoch.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_below_a_root_moves_the_epoch_before_the_writer_returns() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("f.yaml"), "x: 1\n").unwrap();
        let feed = ChangeFeed::watch(&[dir.path().to_path_buf()]).unwrap();
        assert!(feed.complete());
        let quiet = feed.poll();
        assert_eq!(feed.poll(), quiet);
        std::fs::write(sub.join("f.yaml"), "x: 2\n").unwrap();
        let after = feed.poll();
        assert!(after > quiet);
        // A directory made later is watched from the poll that sees it.
        let late = dir.path().join("c");
        std::fs::create_dir(&late).unwrap();
        let seen = feed.poll();
        assert!(seen > after);
        std::fs::write(late.join("g.yaml"), "y").unwrap();
        assert!(feed.poll() > seen);
    }

    #[test]
    fn a_shallow_watch_sees_the_root_and_its_named_trees_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("data/big")).unwrap();
        let feed = ChangeFeed::watch_shallow(root, &["pipelines", ".pz"]).unwrap();
        assert!(
            feed.complete(),
            "a named tree not there yet is watched once it appears"
        );
        let quiet = feed.poll();
        std::fs::write(root.join("data/big/x.csv"), "1").unwrap();
        assert_eq!(feed.poll(), quiet, "data/ is not watched");
        std::fs::write(root.join("project.yml"), "name: a").unwrap();
        let seen = feed.poll();
        assert!(seen > quiet);
        std::fs::create_dir_all(root.join("pipelines")).unwrap();
        let made = feed.poll();
        assert!(made > seen);
        std::fs::create_dir(root.join("pipelines/sub")).unwrap();
        let sub = feed.poll();
        std::fs::write(root.join("pipelines/sub/a.sql"), "select 1").unwrap();
        assert!(feed.poll() > sub);
        std::fs::create_dir(root.join("out")).unwrap();
        let out = feed.poll();
        std::fs::write(root.join("out/a.csv"), "1").unwrap();
        assert_eq!(feed.poll(), out, "a new data directory is not watched");
    }

    #[test]
    fn a_missing_root_is_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        let feed = ChangeFeed::watch(&[dir.path().join("nope")]).unwrap();
        assert!(!feed.complete());
    }
}
