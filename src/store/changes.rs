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
        let inotify = Inotify::init().ok()?;
        let feed = ChangeFeed {
            inner: Mutex::new(Inner {
                inotify,
                dirs: HashMap::new(),
                buffer: vec![0; 64 * 1024],
            }),
            epoch: AtomicU64::new(0),
            complete: AtomicBool::new(true),
        };
        {
            let mut inner = feed.lock();
            for root in roots {
                feed.add_tree(&mut inner, root);
            }
        }
        Some(feed)
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
                                created.push(parent.join(name));
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
    fn a_missing_root_is_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        let feed = ChangeFeed::watch(&[dir.path().join("nope")]).unwrap();
        assert!(!feed.complete());
    }
}
