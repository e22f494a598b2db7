//! The single writer: an in-process mutex and an advisory file lock in the index
//! directory, so that of several processes sharing one index only one writes at a time;
//! the others find the work done (every file unchanged).
//!
//! Waits are bounded: a process holding the file lock and never letting go (a stopped
//! `index rebuild`) must not stop this one. [`Writer::lock_within`] tries for a short
//! while and then gives up; the caller answers without the shared index (see `location`).

use crate::error::Recover;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a writer waits for another process's write lock before it gives up on it.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(2);
/// After a wait that gave up, later attempts within this long try once, without waiting.
const BUSY_MEMORY: Duration = Duration::from_secs(5);
const RETRY_EVERY: Duration = Duration::from_millis(10);

/// The right to write the mirror and the search index.
pub(super) struct Writer {
    in_process: Mutex<()>,
    lock_file: PathBuf,
    /// When a wait for the file lock last gave up.
    gave_up: Mutex<Option<Instant>>,
}

impl Writer {
    pub(super) fn new(index_dir: &Path) -> Writer {
        Writer {
            in_process: Mutex::new(()),
            lock_file: index_dir.join("writer.lock"),
            gave_up: Mutex::new(None),
        }
    }

    /// Take the write lock, waiting at most `wait` for another process to release it
    /// (not at all when a wait gave up a moment ago); `None` when it stays held.
    pub(super) fn lock_within(&self, wait: Duration) -> Option<WriteLock<'_>> {
        let in_process = self.in_process.lock().recover();
        let recently_busy = self
            .gave_up
            .lock()
            .recover()
            .is_some_and(|at| at.elapsed() < BUSY_MEMORY);
        let wait = if recently_busy { Duration::ZERO } else { wait };
        match ProcessLock::acquire(&self.lock_file, wait) {
            Some(across) => Some(WriteLock {
                _across_processes: across,
                _in_process: in_process,
            }),
            None => {
                *self.gave_up.lock().recover() = Some(Instant::now());
                None
            }
        }
    }
}

/// Held while writing the mirror and the index.
pub(super) struct WriteLock<'a> {
    // Released before the in-process mutex (fields drop in order).
    _across_processes: ProcessLock,
    _in_process: MutexGuard<'a, ()>,
}

/// An exclusive advisory lock on a file in the index directory, released on drop.
/// Failing to open the file or to lock it at all (a filesystem without locks, a directory
/// gone) degrades to SQLite's own locking; the location's own checks find the rest.
struct ProcessLock(Option<std::fs::File>);

impl ProcessLock {
    /// `None`: another process holds the lock and kept it for `wait`.
    fn acquire(path: &Path, wait: Duration) -> Option<ProcessLock> {
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
        else {
            return Some(ProcessLock(None));
        };
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Some(ProcessLock(Some(file))),
                Err(std::fs::TryLockError::Error(_)) => return Some(ProcessLock(None)),
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() >= wait => return None,
                Err(std::fs::TryLockError::WouldBlock) => std::thread::sleep(RETRY_EVERY),
            }
        }
    }
}

impl Drop for ProcessLock {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            let _ = f.unlock();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_held_elsewhere_is_given_up_on_in_bounded_time() {
        let dir = tempfile::tempdir().unwrap();
        let held = std::fs::File::create(dir.path().join("writer.lock")).unwrap();
        held.lock().unwrap();
        let writer = Writer::new(dir.path());
        let started = Instant::now();
        assert!(writer.lock_within(Duration::from_millis(200)).is_none());
        assert!(started.elapsed() < Duration::from_secs(2));
        // Given up a moment ago: the next attempt does not wait again.
        let again = Instant::now();
        assert!(writer.lock_within(Duration::from_secs(30)).is_none());
        assert!(again.elapsed() < Duration::from_secs(1));
        held.unlock().unwrap();
        assert!(writer.lock_within(Duration::ZERO).is_some());
    }
}
