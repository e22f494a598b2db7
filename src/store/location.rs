//! The index location: the directory the mirror and the search index live in, opened
//! defensively, and the one place that decides what a failure of it means.
//!
//! - A damaged part (the mirror fails `PRAGMA quick_check`, does not open or is not a
//!   file; the search index fails to open, read or match its checksums) is set aside as
//!   `<name>.damaged-<n>` (an earlier one removed) and made again: the index is a cache,
//!   and nothing the user owns is in it.
//! - A location that cannot be used (not a directory, read-only, full, or its writer
//!   lock held by a process that does not let go and whose beat stands still, see
//!   `lock`) is stood in for by a private temporary one, warned once; the shared one is
//!   tried again every few seconds (at a write, and by the watcher while the process
//!   idles) and used again as soon as it opens. A live holder is never
//!   stood in for: a start opens the location beside it (see `beside`) or waits.
//! - A location removed under the process (its mirror file gone or another) is made
//!   again at the next write (one made again while it is still being removed fails, and
//!   a private one stands in until it can be tried again).
//!
//! Whether a part is verified on open is decided by the clean-shutdown marker: a
//! location closed cleanly and untouched since (its files as the marker lists them) is
//! trusted; so is one another live process has open (it holds `in-use.lock` shared from
//! its own open, checked or trusted then, until it exits: a second session on a served
//! index does not check it again); any other is checked.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::cache::Cache;
use super::lock::{Held, Writer, LOCK_WAIT};
use super::mirror::{Mirror, MirrorError, MIRROR_FILE};
use super::search::{IndexError, SearchIndex};
use super::Shared;
use crate::error::Recover;

/// Written on a clean shutdown: the location's files as they were left.
const CLEAN_MARKER: &str = "clean-shutdown";
/// Held shared by every process that has the location open (see `InUse`).
const IN_USE: &str = "in-use.lock";
const SEARCH_DIR: &str = "search";
/// How often a private location tries the shared one again.
const RETRY_SHARED_EVERY: Duration = Duration::from_secs(5);
/// How long a start waits for a live writer before it reads beside it. Another session
/// opening the location holds the lock for about 20 ms; reading beside a writer scans the
/// whole print (about 4 s at 100,000 tables), so sessions started together wait for each
/// other's open, and only a writer that keeps the lock longer (a rebuild, a large
/// reconcile) is read beside.
const BESIDE_AFTER: Duration = Duration::from_millis(300);

#[derive(Debug, thiserror::Error)]
pub enum LocationError {
    #[error("index location {} cannot be used: {reason}", .path.display())]
    Unusable { path: PathBuf, reason: String },
    #[error("index location {}: another process holds its writer lock", .path.display())]
    Busy { path: PathBuf },
}

/// A private temporary index directory, removed when the last reader lets it go.
pub(super) struct PrivateDir(PathBuf);

/// The name of every private index directory: `<PRIVATE_PREFIX><pid>-<n>`.
const PRIVATE_PREFIX: &str = "printdex-private-index-";

impl PrivateDir {
    fn make() -> std::io::Result<PrivateDir> {
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MADE.fetch_add(1, Ordering::SeqCst);
        if n == 0 {
            remove_abandoned();
        }
        let dir = std::env::temp_dir().join(format!("{PRIVATE_PREFIX}{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(PrivateDir(dir))
    }

    pub(super) fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Remove the private index directories of processes that are gone (killed before they
/// could remove their own). Only where `/proc` says which processes are alive.
fn remove_abandoned() {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(PRIVATE_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if !proc.join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The location the store writes now: the shared one, or a private one standing in.
pub(super) struct Locations {
    shared_dir: PathBuf,
    shared_writer: Arc<Writer>,
    cache: Arc<Cache>,
    current: RwLock<Arc<Shared>>,
    /// One change of location at a time.
    moving: Mutex<()>,
    /// When a private location last tried the shared one.
    tried_shared: Mutex<Instant>,
    warned: AtomicBool,
}

impl Locations {
    /// Open `dir` (or, when it cannot be used, a private location).
    pub(super) fn open(dir: &Path) -> Result<Locations, MirrorError> {
        let shared_writer = Arc::new(Writer::new(dir));
        let cache = Arc::new(Cache::default());
        let locations = |current: Shared| Locations {
            shared_dir: dir.to_path_buf(),
            shared_writer: shared_writer.clone(),
            cache: cache.clone(),
            current: RwLock::new(Arc::new(current)),
            moving: Mutex::new(()),
            tried_shared: Mutex::new(Instant::now()),
            warned: AtomicBool::new(false),
        };
        match open_at(dir, &shared_writer, &cache, None, Open::BesideLiveWriter) {
            Ok(shared) => Ok(locations(shared)),
            Err(e) => {
                let private = open_private(&cache)?;
                let this = locations(private);
                this.warn_private(&e);
                Ok(this)
            }
        }
    }

    /// The location written and read now.
    pub(super) fn current(&self) -> Arc<Shared> {
        self.current.read().recover().clone()
    }

    pub(super) fn cache(&self) -> &Cache {
        &self.cache
    }

    fn swap(&self, was: &Arc<Shared>, now: Shared) {
        let mut current = self.current.write().recover();
        if Arc::ptr_eq(&current, was) {
            *current = Arc::new(now);
        }
    }

    fn warn_private(&self, why: &dyn std::fmt::Display) {
        let dir = self.current().dir.clone();
        if !self.warned.swap(true, Ordering::SeqCst) {
            tracing::warn!(
                "{why}; answering from a private index at {} until it can be used again",
                dir.display()
            );
        } else {
            tracing::debug!("{why}; private index at {}", dir.display());
        }
    }

    /// `failed` (the location a write or read used) failed with `error`: repair it
    /// (set aside what is damaged) or, when that cannot be done or `error` says the
    /// location is unusable, stand in a private location. `first`: the first failure of
    /// this write (a second one never repairs again).
    pub(super) fn after_failure(&self, failed: &Arc<Shared>, error: &MirrorError, first: bool) {
        let _one = self.moving.lock().recover();
        if !Arc::ptr_eq(&self.current(), failed) {
            return; // another thread moved already
        }
        let busy = matches!(error, MirrorError::Location(LocationError::Busy { .. }));
        if failed.private.is_none() && first && !busy && !error.unusable_location() {
            tracing::warn!(
                "the index at {} failed ({error}): checking it",
                failed.dir.display()
            );
            match open_at(
                &failed.dir,
                &failed.writer,
                &self.cache,
                None,
                Open::Locked(LOCK_WAIT),
            ) {
                Ok(again) => return self.swap(failed, again),
                Err(e) => tracing::debug!("reopening the index failed: {e}"),
            }
        }
        match open_private(&self.cache) {
            Ok(private) => {
                self.swap(failed, private);
                self.warn_private(error);
            }
            Err(e) => tracing::warn!("no private index could be made either: {e}"),
        }
    }

    /// The shared location was removed under this process: make it again.
    pub(super) fn remake(&self, lost: &Arc<Shared>) {
        let failed = {
            let _one = self.moving.lock().recover();
            if !Arc::ptr_eq(&self.current(), lost) {
                return;
            }
            tracing::warn!(
                "the index at {} was removed: making it again",
                lost.dir.display()
            );
            match open_at(
                &lost.dir,
                &lost.writer,
                &self.cache,
                None,
                Open::Locked(LOCK_WAIT),
            ) {
                Ok(again) => return self.swap(lost, again),
                Err(e) => e,
            }
        };
        self.after_failure(lost, &MirrorError::Location(failed), false);
    }

    /// While a private location stands in: try the shared one again (at most every few
    /// seconds, never waiting for its lock); `true` when it is used again.
    pub(super) fn retry_shared(&self) -> bool {
        let current = self.current();
        if current.private.is_none() {
            return false;
        }
        {
            let mut tried = self.tried_shared.lock().recover();
            if tried.elapsed() < RETRY_SHARED_EVERY {
                return false;
            }
            *tried = Instant::now();
        }
        let _one = self.moving.lock().recover();
        match open_at(
            &self.shared_dir,
            &self.shared_writer,
            &self.cache,
            None,
            Open::IfFree,
        ) {
            Ok(shared) => {
                tracing::warn!(
                    "the index at {} can be used again",
                    self.shared_dir.display()
                );
                self.swap(&current, shared);
                true
            }
            Err(e) => {
                tracing::debug!("the shared index is still unusable: {e}");
                false
            }
        }
    }

    /// A call failed reading `read`: check it, and repair or replace it when it is
    /// damaged or gone. `true` when the location changed (the call is worth asking again).
    pub(super) fn check_after_read_failure(&self, read: &Arc<Shared>) -> bool {
        if !Arc::ptr_eq(&self.current(), read) {
            return true;
        }
        if !read.mirror.intact() && read.private.is_none() {
            self.remake(read);
            return true;
        }
        let found = match read.mirror.verify() {
            Err(e) => Some(e),
            Ok(()) => read.index.verify().err().map(MirrorError::Index),
        };
        match found {
            Some(e) => {
                self.after_failure(read, &e, true);
                true
            }
            None => false,
        }
    }
}

/// How a location is opened.
#[derive(Debug, Clone, Copy)]
enum Open {
    /// Under its writer lock, waited for as `Writer::lock_within` waits (for as long as
    /// a live holder beats, and this long after it went still).
    Locked(Duration),
    /// Under its writer lock if it is free now: not waited for at all, whoever holds it.
    IfFree,
    /// As `Locked(LOCK_WAIT)`, except that a location whose lock a live writer holds for
    /// longer than [`BESIDE_AFTER`] is opened beside it, unchecked, when it holds a mirror
    /// and an index of this version: a start reads while another process writes (a
    /// rebuild, a large reconcile), never waiting longer for it or standing a private
    /// location in for it.
    BesideLiveWriter,
}

/// Open the location in `dir` under its writer lock (or beside a live writer, as `how`
/// allows), verifying what the clean-shutdown marker does not vouch for and setting aside
/// what is damaged. `private`: the temporary directory this is, if it is one.
fn open_at(
    dir: &Path,
    writer: &Arc<Writer>,
    cache: &Arc<Cache>,
    private: Option<PrivateDir>,
    how: Open,
) -> Result<Shared, LocationError> {
    let unusable = |reason: String| LocationError::Unusable {
        path: dir.to_path_buf(),
        reason,
    };
    std::fs::create_dir_all(dir).map_err(|e| unusable(e.to_string()))?;
    let busy = || LocationError::Busy {
        path: dir.to_path_buf(),
    };
    let lock = match (how, writer.try_lock()) {
        (_, Ok(lock)) => lock,
        (Open::BesideLiveWriter, Err(Held::Live)) => match writer.lock_bounded(BESIDE_AFTER) {
            Some(lock) => lock,
            None => match open_beside(dir, writer, cache) {
                Some(shared) => return Ok(shared),
                None => writer.lock_within(LOCK_WAIT).ok_or_else(busy)?,
            },
        },
        (Open::BesideLiveWriter, Err(Held::Still)) => {
            writer.lock_within(LOCK_WAIT).ok_or_else(busy)?
        }
        (Open::Locked(wait), Err(_)) => writer.lock_within(wait).ok_or_else(busy)?,
        (Open::IfFree, Err(_)) => return Err(busy()),
    };
    let started = std::time::Instant::now();
    // Asked before the marker is taken: either vouches for the location.
    let vouched = InUse::held_elsewhere(dir);
    let clean = take_clean_marker(dir) || vouched;
    let marked = started.elapsed();
    let mut repaired = false;
    let mirror = open_part(
        dir,
        MIRROR_FILE,
        &mut repaired,
        || Mirror::open_checked(dir, !clean),
        MirrorError::unusable_location,
    )?;
    let mirrored = started.elapsed();
    let index = open_part(
        dir,
        SEARCH_DIR,
        &mut repaired,
        || SearchIndex::open(&dir.join(SEARCH_DIR), !clean),
        IndexError::unusable_location,
    )?;
    let in_use = InUse::hold(dir);
    drop(lock);
    tracing::debug!(?marked, ?mirrored, total = ?started.elapsed(), clean, vouched, "location opened");
    Ok(Shared {
        mirror,
        index,
        writer: writer.clone(),
        cache: cache.clone(),
        dir: dir.to_path_buf(),
        sweeps: Default::default(),
        repaired,
        _in_use: in_use,
        private,
    })
}

fn open_private(cache: &Arc<Cache>) -> Result<Shared, MirrorError> {
    let private = PrivateDir::make().map_err(|source| MirrorError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let dir = private.0.clone();
    let writer = Arc::new(Writer::new(&dir));
    Ok(open_at(
        &dir,
        &writer,
        cache,
        Some(private),
        Open::Locked(LOCK_WAIT),
    )?)
}

/// The location in `dir` opened beside the live writer that holds its lock (see
/// `Open::BesideLiveWriter`); `None` when it holds no mirror or index of this version
/// yet (a writer making it from nothing), or they do not open.
fn open_beside(dir: &Path, writer: &Arc<Writer>, cache: &Arc<Cache>) -> Option<Shared> {
    let started = Instant::now();
    let mirror = match Mirror::open_beside_writer(dir) {
        Ok(Some(mirror)) => mirror,
        Ok(None) => return None,
        Err(e) => {
            tracing::debug!("the mirror cannot be read beside its writer: {e}");
            return None;
        }
    };
    let index = match SearchIndex::open_beside_writer(&dir.join(SEARCH_DIR)) {
        Ok(Some(index)) => index,
        Ok(None) => return None,
        Err(e) => {
            tracing::debug!("the search index cannot be read beside its writer: {e}");
            return None;
        }
    };
    tracing::debug!(elapsed = ?started.elapsed(), "location opened beside a live writer");
    Some(Shared {
        mirror,
        index,
        writer: writer.clone(),
        cache: cache.clone(),
        dir: dir.to_path_buf(),
        sweeps: Default::default(),
        repaired: false,
        _in_use: InUse::hold(dir),
        private: None,
    })
}

/// Open one part of a location; a part that fails as damaged (not as an unusable place)
/// is set aside and made again once.
fn open_part<T, E: std::fmt::Display>(
    dir: &Path,
    name: &str,
    repaired: &mut bool,
    open: impl Fn() -> Result<T, E>,
    unusable_place: impl Fn(&E) -> bool,
) -> Result<T, LocationError> {
    let unusable = |reason: String| LocationError::Unusable {
        path: dir.to_path_buf(),
        reason,
    };
    let first = match open() {
        Ok(part) => return Ok(part),
        Err(e) if unusable_place(&e) => return Err(unusable(e.to_string())),
        Err(e) => e,
    };
    let aside = set_aside(&dir.join(name))
        .map_err(|e| unusable(format!("{first}, and it cannot be set aside: {e}")))?;
    tracing::warn!(
        "{first}: set aside as {}, building it again",
        aside.display()
    );
    *repaired = true;
    open().map_err(|e| unusable(e.to_string()))
}

/// Move a damaged part out of the way as `<path>.damaged-<n>`, removing an earlier one
/// of it (and, for the mirror, its journal files, which belong to the damaged file).
fn set_aside(path: &Path) -> std::io::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = path.parent().unwrap_or(Path::new("."));
    let prefix = format!("{name}.damaged-");
    for entry in std::fs::read_dir(parent)?.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let p = entry.path();
            let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
        }
    }
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = parent.join(format!("{prefix}{n}"));
    std::fs::rename(path, &aside)?;
    for journal in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(parent.join(format!("{name}{journal}")));
    }
    Ok(aside)
}

/// A process's share of `in-use.lock`: held from its open of the location (checked, or
/// trusted) until the process lets the location go, so a process opening it meanwhile
/// knows a live process vouches for it. The kernel lets go of a killed holder's share.
#[derive(Debug)]
pub(super) struct InUse {
    _held: std::fs::File,
}

impl InUse {
    /// This process's share, when the file can be made and locked.
    fn hold(dir: &Path) -> Option<InUse> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(IN_USE))
            .ok()?;
        file.try_lock_shared().ok()?;
        Some(InUse { _held: file })
    }

    /// Whether another live process holds a share of `dir`'s location.
    fn held_elsewhere(dir: &Path) -> bool {
        let Ok(file) = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join(IN_USE))
        else {
            return false;
        };
        matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
    }
}

/// Whether `dir` was closed cleanly and is untouched since; the marker is removed either
/// way (this process writes now, and a crash must not leave it behind).
fn take_clean_marker(dir: &Path) -> bool {
    let marker = dir.join(CLEAN_MARKER);
    let noted = std::fs::read_to_string(&marker).ok();
    let _ = std::fs::remove_file(&marker);
    noted.is_some_and(|noted| noted == files_digest(dir))
}

/// Note a clean shutdown of `dir`: what its files are now.
pub(super) fn mark_clean(dir: &Path) {
    let _ = std::fs::write(dir.join(CLEAN_MARKER), files_digest(dir));
}

/// The name, size and mtime of the mirror's file, its WAL (when it holds anything: an
/// empty one and none are the same) and every search index file but tantivy's lock files.
fn files_digest(dir: &Path) -> String {
    let mut files = vec![dir.join(MIRROR_FILE)];
    let wal = dir.join(format!("{MIRROR_FILE}-wal"));
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        files.push(wal);
    }
    if let Ok(entries) = std::fs::read_dir(dir.join(SEARCH_DIR)) {
        files.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_none_or(|e| e != "lock")),
        );
    }
    files.sort();
    let mut h = blake3::Hasher::new();
    for f in files {
        h.update(f.as_os_str().as_encoded_bytes());
        match crate::ingest::identity(&f) {
            Some(id) => h.update(format!(":{}:{}:{}\n", id.size, id.mtime_ns, id.inode).as_bytes()),
            None => h.update(b":-\n"),
        };
    }
    h.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clean_marker_vouches_only_for_files_as_it_left_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MIRROR_FILE), b"pages").unwrap();
        std::fs::create_dir(dir.path().join(SEARCH_DIR)).unwrap();
        std::fs::write(dir.path().join(SEARCH_DIR).join("a.store"), b"x").unwrap();
        assert!(!take_clean_marker(dir.path()), "no marker: not clean");
        mark_clean(dir.path());
        assert!(take_clean_marker(dir.path()));
        // Taken: a second open (after a crash) is not clean.
        assert!(!take_clean_marker(dir.path()));
        mark_clean(dir.path());
        std::fs::write(dir.path().join(SEARCH_DIR).join("a.store"), b"xy").unwrap();
        assert!(!take_clean_marker(dir.path()), "a file changed since");
    }

    #[test]
    fn a_location_another_holder_has_open_is_vouched_for_while_it_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!InUse::held_elsewhere(dir.path()), "nobody has it open");
        let first = InUse::hold(dir.path()).unwrap();
        let second = InUse::hold(dir.path()).unwrap();
        // Each open of the file is a holder of its own, as another process's would be.
        assert!(InUse::held_elsewhere(dir.path()));
        drop(first);
        assert!(InUse::held_elsewhere(dir.path()));
        drop(second);
        assert!(!InUse::held_elsewhere(dir.path()), "every holder let go");
    }

    #[test]
    fn a_start_waits_for_a_writer_that_lets_go_soon_and_reads_beside_one_that_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let writer = Arc::new(Writer::new(dir.path()));
        let cache = Arc::new(Cache::default());
        // A location with a mirror and an index of this version.
        drop(open_at(dir.path(), &writer, &cache, None, Open::Locked(LOCK_WAIT)).unwrap());
        // An open under the lock takes the clean marker; one beside the writer leaves it.
        let quick = Duration::from_millis(50);
        for (hold, under_the_lock) in [(quick, true), (BESIDE_AFTER * 3, false)] {
            mark_clean(dir.path());
            let (held, holding) = std::sync::mpsc::channel();
            let holder = {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    let lock = writer.lock_within(LOCK_WAIT).unwrap();
                    held.send(()).unwrap();
                    std::thread::sleep(hold);
                    drop(lock);
                })
            };
            holding.recv().unwrap();
            let started = Instant::now();
            let opened = open_at(dir.path(), &writer, &cache, None, Open::BesideLiveWriter);
            let took = started.elapsed();
            assert!(opened.is_ok());
            assert_eq!(
                !dir.path().join(CLEAN_MARKER).exists(),
                under_the_lock,
                "held for {hold:?}, opened after {took:?}"
            );
            assert!(took < BESIDE_AFTER * 2, "{took:?}");
            drop(opened);
            holder.join().unwrap();
        }
    }

    #[test]
    fn a_part_set_aside_replaces_an_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let mirror = dir.path().join(MIRROR_FILE);
        for round in 0..2 {
            std::fs::write(&mirror, format!("round {round}")).unwrap();
            std::fs::write(dir.path().join("mirror.sqlite-wal"), b"w").unwrap();
            let aside = set_aside(&mirror).unwrap();
            assert_eq!(
                std::fs::read_to_string(&aside).unwrap(),
                format!("round {round}")
            );
            assert!(!mirror.exists() && !dir.path().join("mirror.sqlite-wal").exists());
        }
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
