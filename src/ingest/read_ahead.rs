//! Files about to be read, named to the kernel ahead of the read, so that a scan of a print
//! whose files are not in the page cache overlaps the disk's reads with its parsing.
//!
//! A cold ingest reads every file once, one after another on each worker: a file not in
//! the page cache leaves the worker's core idle until the disk answers (at 10,000 tables a
//! rebuild's scan took 10.2 s from a dropped cache against 6.1 s from a warm one, its
//! cores busy 1.4 of 2 instead of 1.8). Each worker names the files of the tables a few
//! ahead of the one it reads (`posix_fadvise(WILLNEED)`, which starts the reads and does
//! not wait for them), so that by the time it reads a file the disk has been at it.
//!
//! A hint reads nothing into the process and names only paths the worker is about to read
//! itself. It is given only where every file is to be read (a store that holds nothing):
//! a warm reconcile reads a few files, and the hint's `stat` and `open` would cost more than
//! they save.
//! Elsewhere than on Linux the hint is nothing.

use std::path::{Path, PathBuf};

use compat::value::Value;

use super::walk;

/// How many tables ahead of the one it reads a worker names the files of: at 100,000
/// tables a table's files average about 50 KB, so a worker keeps about 1.5 MB asked for.
const TABLES_AHEAD: usize = 32;

/// How far a worker has named its tables' files: it names those of the tables up to
/// [`TABLES_AHEAD`] ahead of the one it reads, each once.
pub(super) struct Naming {
    /// The first table of the worker's part whose files are not named yet.
    next: usize,
    /// How many files it named.
    pub(super) named: usize,
}

impl Naming {
    /// A worker's naming, from its first table; `off`: it names none (each table counts
    /// as named already).
    pub(super) fn new(tables: usize, off: bool) -> Naming {
        let next = if off { tables } else { 0 };
        Naming { next, named: 0 }
    }

    /// The worker is about to read the table at `at` of `tables` (walkable tables, each
    /// with its directory and manifest entry): name the files of those not named yet up
    /// to [`TABLES_AHEAD`] ahead.
    pub(super) fn reading<T>(&mut self, tables: &[(&(String, PathBuf, Value), T)], at: usize) {
        while self.next < tables.len().min(at + TABLES_AHEAD) {
            let ((_, dir, entry), _) = &tables[self.next];
            for (_, file) in walk::declared_artifacts(entry) {
                will_read(&dir.join(file));
                self.named += 1;
            }
            self.next += 1;
        }
    }
}

/// Tell the kernel `path` is about to be read whole. Failures are ignored: the read that
/// follows meets them itself.
///
/// Only a regular file is opened, as the read opens only those: opening a FIFO would
/// wait for a writer, and a device may act on being opened. The open does not wait
/// either (`O_NONBLOCK`), should the file be swapped for a FIFO meanwhile.
#[cfg(target_os = "linux")]
fn will_read(path: &Path) {
    use rustix::fs::{fadvise, open, stat, Advice, FileType, Mode, OFlags};
    let regular =
        stat(path).is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::RegularFile);
    if !regular {
        return;
    }
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
    if let Ok(file) = open(path, flags, Mode::empty()) {
        let _ = fadvise(&file, 0, None, Advice::WillNeed);
    }
}

#[cfg(not(target_os = "linux"))]
fn will_read(_path: &Path) {}
