//! The single writer: an in-process mutex and an advisory file lock in the index
//! directory, so that of several processes sharing one index only one writes at a time;
//! the others find the work done (every file unchanged).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The right to write the mirror and the search index.
pub(super) struct Writer {
    in_process: Mutex<()>,
    lock_file: PathBuf,
}

impl Writer {
    pub(super) fn new(index_dir: &Path) -> Writer {
        Writer {
            in_process: Mutex::new(()),
            lock_file: index_dir.join("writer.lock"),
        }
    }

    /// Wait for, and take, the write lock.
    pub(super) fn lock(&self) -> WriteLock<'_> {
        WriteLock {
            _in_process: self.in_process.lock().unwrap_or_else(|e| e.into_inner()),
            _across_processes: ProcessLock::acquire(&self.lock_file),
        }
    }
}

/// Held while writing the mirror and the index.
pub(super) struct WriteLock<'a> {
    _in_process: MutexGuard<'a, ()>,
    _across_processes: ProcessLock,
}

/// An exclusive advisory lock on a file in the index directory, released on drop.
/// Failing to lock (a filesystem without locks) degrades to SQLite's own locking.
struct ProcessLock(Option<std::fs::File>);

impl ProcessLock {
    fn acquire(path: &Path) -> ProcessLock {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .ok();
        ProcessLock(file.filter(|f| f.lock().is_ok()))
    }
}

impl Drop for ProcessLock {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            let _ = f.unlock();
        }
    }
}
