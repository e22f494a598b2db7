//! The directory a tantivy index lives in: tantivy's memory-mapped one, with one change.
//! tantivy waits without end for its meta lock (`.tantivy-meta.lock`, taken while a
//! reader opens a searcher and while a writer deletes files no commit uses). The
//! processes sharing an index all take it, so one stopped while holding it (SIGSTOP, a
//! debugger) would hang every other process's next read and every new start.
//!
//! Here that lock is waited for [`META_LOCK_WAIT`], then passed by: the reader opens
//! without it, and a writer deletes without it. What the lock guards against is a file
//! deleted between a reader reading `meta.json` and opening the files it lists, which
//! fails that open with a missing file; [`reload`] asks again, and the new `meta.json`
//! lists what is there. After one pass, later waits within [`PASSED_MEMORY`] try once,
//! so a holder that stays stopped costs one wait, not one per read.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyError};

use crate::error::Recover;

/// How long a blocking lock is waited for before it is passed by. Its holders keep it
/// for the milliseconds a searcher takes to open, or a writer to delete a few files.
pub const META_LOCK_WAIT: Duration = Duration::from_secs(1);
/// After a lock was passed by, how long later waits try it once and no more.
const PASSED_MEMORY: Duration = Duration::from_secs(5);
const RETRY_EVERY: Duration = Duration::from_millis(5);
/// How often a reload is asked again after a file it listed was gone.
const RELOAD_ATTEMPTS: usize = 3;

/// An index directory whose blocking locks are waited for a bounded time (see the
/// module's notes).
#[derive(Clone)]
pub struct BoundedLocks {
    inner: MmapDirectory,
    /// When a lock was last passed by: shared by the clones tantivy makes.
    passed: Arc<Mutex<Option<Instant>>>,
}

impl fmt::Debug for BoundedLocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BoundedLocks").field(&self.inner).finish()
    }
}

impl BoundedLocks {
    pub fn open(dir: &Path) -> Result<BoundedLocks, OpenDirectoryError> {
        Ok(BoundedLocks {
            inner: MmapDirectory::open(dir)?,
            passed: Arc::new(Mutex::new(None)),
        })
    }

    fn wait_for(&self) -> Duration {
        match *self.passed.lock().recover() {
            Some(at) if at.elapsed() < PASSED_MEMORY => Duration::ZERO,
            _ => META_LOCK_WAIT,
        }
    }
}

/// What stands for a lock passed by: it holds nothing.
struct Unheld;

impl Directory for BoundedLocks {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.inner.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        if !lock.is_blocking {
            return self.inner.acquire_lock(lock);
        }
        let once = Lock {
            filepath: lock.filepath.clone(),
            is_blocking: false,
        };
        let wait = self.wait_for();
        let started = Instant::now();
        loop {
            match self.inner.acquire_lock(&once) {
                Err(LockError::LockBusy) if started.elapsed() < wait => {
                    std::thread::sleep(RETRY_EVERY)
                }
                Err(LockError::LockBusy) => {
                    *self.passed.lock().recover() = Some(Instant::now());
                    // Said once per holder that stays: the passes after it are quick.
                    if wait > Duration::ZERO {
                        tracing::warn!(
                            "{} has been held for {:?} (a stopped process?): going on without it",
                            lock.filepath.display(),
                            started.elapsed()
                        );
                    } else {
                        tracing::debug!("{} still held: passed by", lock.filepath.display());
                    }
                    return Ok(DirectoryLock::from(Box::new(Unheld)));
                }
                taken => return taken,
            }
        }
    }
}

/// A reader of `index`, reloaded only when asked, opened as [`reload`] reloads.
pub fn reader(index: &Index) -> tantivy::Result<IndexReader> {
    again_if_gone(|| {
        index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
    })
}

/// Reload `reader`, asking again when a file the index's `meta.json` listed was deleted
/// before it was opened (possible once the meta lock was passed by).
pub fn reload(reader: &IndexReader) -> tantivy::Result<()> {
    again_if_gone(|| reader.reload())
}

fn again_if_gone<T>(open: impl Fn() -> tantivy::Result<T>) -> tantivy::Result<T> {
    let mut attempt = 1;
    loop {
        match open() {
            Err(TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(path)))
                if attempt < RELOAD_ATTEMPTS =>
            {
                tracing::debug!(
                    "{} was gone when the reader opened it: again",
                    path.display()
                );
                attempt += 1;
            }
            done => return done,
        }
    }
}

/// The doc stores of a searcher's segments over mappings of their own, one segment at a
/// time, each unmapped when the read moves on to the next segment or ends. A read of every
/// table's documents (validate_sql's catalog built whole) touches most of the doc store;
/// through the searcher's mappings, which live as long as the process serves that state,
/// those pages stayed resident: 330 MB of a 100,000-table server's memory after its first
/// validate_sql. Mapped all at once and let go at the end, they still were, until the
/// read ended (its peak). The segments are the searcher's (files never change once
/// written), so the same address reads the same document; a segment whose store cannot
/// be mapped apart (merged away and deleted since the searcher opened it) is read
/// through the searcher.
pub struct StoresApart<'s> {
    searcher: &'s tantivy::Searcher,
    /// `None`: the directory could not be opened; every read goes through the searcher.
    directory: Option<MmapDirectory>,
    /// The segment mapped now, by its ordinal; `None` beside it: read through the searcher.
    mapped: Option<(u32, Option<tantivy::store::StoreReader>)>,
}

impl<'s> StoresApart<'s> {
    pub fn new(dir: &Path, searcher: &'s tantivy::Searcher) -> StoresApart<'s> {
        StoresApart {
            searcher,
            directory: MmapDirectory::open(dir).ok(),
            mapped: None,
        }
    }

    /// The document at `address` (of the searcher this was made for). Read in address
    /// order, each segment is mapped once.
    pub fn doc(
        &mut self,
        address: tantivy::DocAddress,
    ) -> tantivy::Result<tantivy::TantivyDocument> {
        let ord = address.segment_ord;
        if self.mapped.as_ref().map(|(at, _)| *at) != Some(ord) {
            // The last segment's pages go before the next one's are read.
            self.mapped = None;
            self.mapped = Some((ord, self.map(ord)));
        }
        match &self.mapped {
            Some((_, Some(store))) => store.get(address.doc_id),
            _ => self.searcher.doc(address),
        }
    }

    /// Whether the segment at `ord` is read through a mapping of its own.
    #[cfg(test)]
    pub fn maps(&self, ord: u32) -> bool {
        self.map(ord).is_some()
    }

    fn map(&self, ord: u32) -> Option<tantivy::store::StoreReader> {
        let segment = self.searcher.segment_readers().get(ord as usize)?;
        let name = format!("{}.store", segment.segment_id().uuid_string());
        let file = self.directory.as_ref()?.open_read(Path::new(&name)).ok()?;
        // Without the footer tantivy's own directory takes off every file it reads.
        let (_, file) = tantivy::directory::footer::Footer::extract_footer(file).ok()?;
        // One block cached, as the searcher's own store readers do by default: the
        // documents are read in address order.
        tantivy::store::StoreReader::open(file, 1).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::directory::META_LOCK;

    /// The meta lock's file in `dir`, locked by a handle of its own, as another process
    /// holds it (flock locks belong to the open file, not the process).
    fn hold_meta_lock(dir: &Path) -> std::fs::File {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(&META_LOCK.filepath))
            .unwrap();
        file.lock().unwrap();
        file
    }

    #[test]
    fn a_free_meta_lock_is_taken_and_held_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let directory = BoundedLocks::open(dir.path()).unwrap();
        let held = directory.acquire_lock(&META_LOCK).unwrap();
        let other = std::fs::File::open(dir.path().join(&META_LOCK.filepath)).unwrap();
        assert!(other.try_lock().is_err(), "the lock was not taken");
        drop(held);
        assert!(other.try_lock().is_ok(), "the lock was not let go");
    }

    #[test]
    fn a_meta_lock_that_stays_held_is_waited_for_once_then_tried_once() {
        let dir = tempfile::tempdir().unwrap();
        let directory = BoundedLocks::open(dir.path()).unwrap();
        let _held = hold_meta_lock(dir.path());
        let started = Instant::now();
        directory.acquire_lock(&META_LOCK).unwrap();
        let first = started.elapsed();
        assert!(first >= META_LOCK_WAIT, "passed after {first:?}");
        // A clone, as tantivy makes them, remembers the pass.
        let clone = directory.clone();
        let started = Instant::now();
        clone.acquire_lock(&META_LOCK).unwrap();
        assert!(started.elapsed() < META_LOCK_WAIT, "waited again");
    }

    #[test]
    fn a_lock_tantivy_never_waits_for_is_refused_at_once_when_held() {
        let dir = tempfile::tempdir().unwrap();
        let directory = BoundedLocks::open(dir.path()).unwrap();
        let writer_lock = &tantivy::directory::INDEX_WRITER_LOCK;
        let _held = directory.acquire_lock(writer_lock).unwrap();
        assert!(matches!(
            directory.acquire_lock(writer_lock),
            Err(LockError::LockBusy)
        ));
    }
}
