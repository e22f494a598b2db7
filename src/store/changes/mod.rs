//! Exact, cheap change detection below the served print roots and pz project, for calls
//! that would otherwise `stat` every file of the print (search_columns reads every table's
//! statistics) or scan the project. A call polls the feed before trusting a state built earlier; the feed
//! answers with the paths that changed since the epoch the state was verified at, so the
//! call re-reads those and nothing else. Whatever the feed cannot vouch for (a directory
//! created or moved, a queue overflow, an older epoch than it remembers) is
//! [`Since::Unknown`], and the caller falls back to the full stat sweep, which stays the
//! authority. Where no feed could be set up every call sweeps.
//!
//! Two backends: on Linux the kernel's inotify queue, drained with one non-blocking
//! `read` (the kernel queues an event before the writer's system call returns, so a
//! change made before a call began is seen by that call); elsewhere, or on Linux with
//! `PRINTDEX_CHANGE_FEED=portable`, notify's watcher, made exact by a barrier: a poll
//! writes a sentinel file in the feed's own directory and waits until its event arrives
//! behind everything queued before it.
//!
//! The feed only records; `watch` is the one that acts on it, re-ingesting what it
//! names in the background.

#[cfg(target_os = "linux")]
mod inotify;
mod known;
mod portable;

pub use known::KnownDirs;

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

/// The environment variable that selects the portable backend on Linux.
pub const BACKEND_VARIABLE: &str = "PRINTDEX_CHANGE_FEED";

/// What changed since an epoch.
#[derive(Debug, PartialEq, Eq)]
pub enum Since {
    Nothing,
    /// These files (deduplicated, in the order first seen) and nothing else.
    Files(Vec<PathBuf>),
    /// More than the feed can name: sweep.
    Unknown,
}

/// The changes a backend recorded, numbered by epoch (one per batch of events). A
/// bounded window: asking about an epoch older than the window answers `Unknown`.
#[derive(Default)]
struct Log {
    /// `(epoch, path)`; `None` for a change the feed cannot name.
    entries: VecDeque<(u64, Option<PathBuf>)>,
    /// Entries with an epoch at or below this may have been dropped.
    floor: u64,
    epoch: u64,
}

impl Log {
    /// Changes the log keeps before it forgets the oldest.
    const CAPACITY: usize = 16 * 1024;

    /// Record one batch of changes under a new epoch (nothing, for an empty batch).
    fn record(&mut self, batch: Vec<Option<PathBuf>>) {
        if batch.is_empty() {
            return;
        }
        self.epoch += 1;
        for change in batch {
            self.entries.push_back((self.epoch, change));
        }
        while self.entries.len() > Self::CAPACITY {
            if let Some((epoch, _)) = self.entries.pop_front() {
                self.floor = epoch;
            }
        }
    }

    fn since(&self, epoch: u64) -> Since {
        if epoch < self.floor || epoch > self.epoch {
            return Since::Unknown;
        }
        let mut seen = HashSet::new();
        let mut files = Vec::new();
        // Entries are in epoch order: the ones after `epoch` are a suffix.
        let start = self.entries.partition_point(|(e, _)| *e <= epoch);
        for (_, change) in self.entries.range(start..) {
            match change {
                None => return Since::Unknown,
                Some(path) => {
                    if seen.insert(path.clone()) {
                        files.push(path.clone());
                    }
                }
            }
        }
        if files.is_empty() {
            Since::Nothing
        } else {
            Since::Files(files)
        }
    }
}

enum Backend {
    #[cfg(target_os = "linux")]
    Inotify(inotify::InotifyFeed),
    Portable(portable::PortableFeed),
}

/// A change feed over the served print roots.
pub struct ChangeFeed {
    backend: Backend,
}

impl ChangeFeed {
    /// Watch every directory below `roots` (symbolic links to directories followed);
    /// `private` is a directory of printdex's own the portable backend may write its
    /// sentinel in. `None` when no backend could start.
    /// `known`: directories a walk met, not read again while their identity holds.
    pub fn watch(roots: &[PathBuf], private: &Path, known: KnownDirs) -> Option<ChangeFeed> {
        let portable = std::env::var(BACKEND_VARIABLE).is_ok_and(|v| v == "portable");
        ChangeFeed::with_backend(roots, private, portable, known)
    }

    fn with_backend(
        roots: &[PathBuf],
        private: &Path,
        portable: bool,
        known: KnownDirs,
    ) -> Option<ChangeFeed> {
        #[cfg(target_os = "linux")]
        if !portable {
            return inotify::InotifyFeed::watch(roots, known).map(|feed| ChangeFeed {
                backend: Backend::Inotify(feed),
            });
        }
        let _ = (portable, known);
        portable::PortableFeed::watch(roots, private).map(|feed| ChangeFeed {
            backend: Backend::Portable(feed),
        })
    }

    /// Whether every directory below the roots is watched, so the feed's answers are
    /// the whole truth.
    pub fn complete(&self) -> bool {
        match &self.backend {
            #[cfg(target_os = "linux")]
            Backend::Inotify(feed) => feed.complete(),
            Backend::Portable(feed) => feed.complete(),
        }
    }

    /// Take in every change made before this call and return the epoch after them.
    pub fn poll(&self) -> u64 {
        match &self.backend {
            #[cfg(target_os = "linux")]
            Backend::Inotify(feed) => feed.poll(),
            Backend::Portable(feed) => feed.poll(),
        }
    }

    /// Whether a poll could find anything new: the portable backend's poll writes a
    /// sentinel and waits for it, which a loop polling for work should not do while
    /// nothing has arrived; the kernel's queue is cheap to look at, so it always says yes.
    pub fn stirred(&self) -> bool {
        match &self.backend {
            #[cfg(target_os = "linux")]
            Backend::Inotify(_) => true,
            Backend::Portable(feed) => feed.stirred(),
        }
    }

    /// What changed after `epoch`, as of the last poll.
    pub fn since(&self, epoch: u64) -> Since {
        match &self.backend {
            #[cfg(target_os = "linux")]
            Backend::Inotify(feed) => feed.since(epoch),
            Backend::Portable(feed) => feed.since(epoch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_os = "linux")]
    use crate::ingest::walk::WalkMemo;

    #[test]
    fn the_log_names_what_changed_after_an_epoch() {
        let mut log = Log::default();
        assert_eq!(log.since(0), Since::Nothing);
        log.record(vec![Some("a".into()), Some("b".into())]);
        log.record(vec![]);
        log.record(vec![Some("a".into())]);
        assert_eq!(log.epoch, 2);
        assert_eq!(log.since(0), Since::Files(vec!["a".into(), "b".into()]));
        assert_eq!(log.since(1), Since::Files(vec!["a".into()]));
        assert_eq!(log.since(2), Since::Nothing);
        log.record(vec![None]);
        assert_eq!(log.since(2), Since::Unknown);
        assert_eq!(log.since(9), Since::Unknown);
    }

    #[test]
    fn the_log_forgets_the_oldest_and_says_so() {
        let mut log = Log::default();
        for n in 0..=Log::CAPACITY {
            log.record(vec![Some(PathBuf::from(n.to_string()))]);
        }
        assert_eq!(log.since(0), Since::Unknown);
        assert!(matches!(log.since(2), Since::Files(f) if f.len() == Log::CAPACITY - 1));
    }

    /// Both backends, against the same edits.
    fn feeds(dir: &Path, private: &Path) -> Vec<ChangeFeed> {
        let mut out = vec![ChangeFeed::with_backend(
            &[dir.to_path_buf()],
            private,
            true,
            KnownDirs::default(),
        )
        .unwrap()];
        if cfg!(target_os = "linux") {
            out.push(
                ChangeFeed::with_backend(
                    &[dir.to_path_buf()],
                    private,
                    false,
                    KnownDirs::default(),
                )
                .unwrap(),
            );
        }
        out
    }

    /// A root with `a/b/f.yaml`, an index directory beside it, and the file's path.
    fn root_with_a_file() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let file = sub.join("f.yaml");
        std::fs::write(&file, "x: 1\n").unwrap();
        (dir, tempfile::tempdir().unwrap(), file)
    }

    #[test]
    fn a_write_below_a_root_is_named_by_the_poll_after_it() {
        let (dir, private, file) = root_with_a_file();
        for (n, feed) in feeds(dir.path(), private.path()).into_iter().enumerate() {
            assert!(feed.complete());
            let quiet = feed.poll();
            assert_eq!(feed.poll(), quiet);
            assert_eq!(feed.since(quiet), Since::Nothing);
            std::fs::write(&file, "x: 2\n").unwrap();
            let after = feed.poll();
            assert!(after > quiet);
            assert_eq!(feed.since(quiet), Since::Files(vec![file.clone()]));
            assert_eq!(feed.since(after), Since::Nothing);
            // A directory made later cannot be vouched for until a sweep; its files are
            // named from the poll that sees it.
            let late = dir.path().join(format!("late{n}"));
            std::fs::create_dir(&late).unwrap();
            let seen = feed.poll();
            assert_eq!(feed.since(after), Since::Unknown);
            std::fs::write(late.join("g.yaml"), "y").unwrap();
            feed.poll();
            assert_eq!(feed.since(seen), Since::Files(vec![late.join("g.yaml")]));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_cycle_below_a_root_is_watched_once_and_a_write_beyond_it_named() {
        let (dir, private, file) = root_with_a_file();
        // a/b/up -> a: walking it would never end but for the directory seen once.
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("a/b/up")).unwrap();
        for feed in feeds(dir.path(), private.path()) {
            assert!(feed.complete());
            let quiet = feed.poll();
            std::fs::write(&file, "x: 2\n").unwrap();
            feed.poll();
            assert_eq!(feed.since(quiet), Since::Files(vec![file.clone()]));
        }
    }

    /// The inotify feed over `dir`, with what a walk of it (a memo, `edit`ed) met.
    #[cfg(target_os = "linux")]
    fn feed_knowing(dir: &Path, edit: impl FnOnce(&mut WalkMemo)) -> ChangeFeed {
        let mut memo = crate::ingest::walk::walk_links(dir)
            .new_memo()
            .cloned()
            .unwrap();
        edit(&mut memo);
        let mut known = KnownDirs::default();
        known.add(dir, memo);
        let private = tempfile::tempdir().unwrap();
        ChangeFeed::with_backend(&[dir.to_path_buf()], private.path(), false, known).unwrap()
    }

    /// `a/b/f.yaml` below a root whose directories are settled, so a walk can vouch for them.
    #[cfg(target_os = "linux")]
    fn settled_root() -> (tempfile::TempDir, PathBuf) {
        let (dir, _, file) = root_with_a_file();
        std::thread::sleep(std::time::Duration::from_millis(120));
        (dir, file)
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_a_walk_met_is_not_read_again_while_its_identity_holds() {
        let (dir, file) = settled_root();
        // A memo that leaves `a/b` out: `a` still holds, so nothing reads it to find
        // `a/b`, which goes unwatched. (No real walk leaves a directory out; this shows
        // the walk's entries are what the feed follows.)
        let b = dir.path().join("a/b");
        let feed = feed_knowing(dir.path(), |memo| memo.dirs.retain(|(d, _)| *d != b));
        let quiet = feed.poll();
        std::fs::write(&file, "x: 2\n").unwrap();
        feed.poll();
        assert_eq!(feed.since(quiet), Since::Nothing);
        // With the walk's entries whole, `a/b` is watched.
        let feed = feed_knowing(dir.path(), |_| {});
        let quiet = feed.poll();
        std::fs::write(&file, "x: 3\n").unwrap();
        feed.poll();
        assert_eq!(feed.since(quiet), Since::Files(vec![file.clone()]));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_made_after_the_walk_and_before_the_watch_is_read_and_watched() {
        let (dir, _) = settled_root();
        // Made after the walk: `a`'s mtime moves, so `a` is read again.
        let late = dir.path().join("a/late");
        let feed = feed_knowing(dir.path(), |_| std::fs::create_dir(&late).unwrap());
        let quiet = feed.poll();
        std::fs::write(late.join("g.yaml"), "y").unwrap();
        feed.poll();
        assert_eq!(feed.since(quiet), Since::Files(vec![late.join("g.yaml")]));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_link_a_walk_met_is_followed_as_a_read_of_its_directory_follows_it() {
        let outside = tempfile::tempdir().unwrap();
        let (dir, file) = settled_root();
        let link = dir.path().join("a/out");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        // a/b/up -> a: a cycle, watched once.
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("a/b/up")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(120));
        let feed = feed_knowing(dir.path(), |memo| assert_eq!(memo.links.len(), 2));
        assert!(feed.complete());
        let quiet = feed.poll();
        std::fs::write(outside.path().join("g.yaml"), "y").unwrap();
        std::fs::write(&file, "x: 2\n").unwrap();
        feed.poll();
        assert_eq!(
            feed.since(quiet),
            Since::Files(vec![link.join("g.yaml"), file.clone()])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_walk_watched_in_parts_is_watched_whole_and_reads_what_moved_in_any_part() {
        // More directories than one part takes (4,096), so the watches are added on
        // several threads where there are cores, and taken back in the walk's order.
        let dir = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = (0..9_000)
            .map(|i| dir.path().join(format!("d{i:04}")))
            .collect();
        dirs.iter().for_each(|d| std::fs::create_dir(d).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(120));
        // Made after the walk, in the last part: its parent is read, and it is watched.
        let late = dirs[8_999].join("late");
        let feed = feed_knowing(dir.path(), |memo| {
            assert_eq!(memo.dirs.len(), 9_001);
            std::fs::create_dir(&late).unwrap();
        });
        assert!(feed.complete());
        let quiet = feed.poll();
        let written = [
            dirs[0].join("f.yaml"),
            dirs[4_500].join("f.yaml"),
            late.join("g.yaml"),
        ];
        written
            .iter()
            .for_each(|f| std::fs::write(f, "x: 1\n").unwrap());
        feed.poll();
        assert_eq!(feed.since(quiet), Since::Files(written.to_vec()));
    }

    #[test]
    fn a_missing_root_is_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        let private = tempfile::tempdir().unwrap();
        for feed in feeds(&dir.path().join("nope"), private.path()) {
            assert!(!feed.complete());
        }
    }
}
