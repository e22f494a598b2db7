//! The single writer: an in-process mutex and an advisory file lock in the index
//! directory, so that of several processes sharing one index only one writes at a time;
//! the others find the work done (every file unchanged).
//!
//! The holder says it is alive: while it holds the lock, a thread of its own rewrites a
//! small sibling file, `writer.beat`, every [`BEAT_EVERY`] (see [`Beat`]). A waiter tells
//! a live holder (a start's reconcile, a rebuild, another server's refresh: it will let
//! go) from one that is not running (a stopped process, a crashed one's lock left to a
//! child, a tool that holds the lock and never beats), whose beat stays still.
//!
//! Waits are bounded by that: [`Writer::lock_within`] waits for as long as the holder
//! keeps beating (up to [`LIVE_AT_MOST`]), and gives up once it has been still for the
//! wait it is given; the caller then answers without the shared index (see `location`).
//! [`Writer::lock_bounded`] waits a plain bound, whoever holds the lock: for what can be
//! done without it (a file read privately, a clean-shutdown mark left out).

use crate::error::Recover;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a writer waits, after the holder of another process's write lock was last
/// seen alive, before it gives up on it.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(2);
/// After a wait that gave up on a still holder, later attempts within this long try once,
/// without waiting (a holder seen alive is still waited for).
const BUSY_MEMORY: Duration = Duration::from_secs(5);
const RETRY_EVERY: Duration = Duration::from_millis(10);
/// How often the holder rewrites its beat.
const BEAT_EVERY: Duration = Duration::from_millis(200);
/// A beat not seen to move for this long says nothing: its holder may be stopped. Ten
/// beats: a holder whose beat thread a loaded machine leaves waiting is not taken for a
/// stopped one.
const BEAT_STALE: Duration = Duration::from_secs(2);
/// The longest a live holder is waited for: one beating but never letting go (a thread
/// stuck while its beat goes on) is then given up on as a still one is.
const LIVE_AT_MOST: Duration = Duration::from_secs(15 * 60);

/// The file beside the lock that its holder rewrites while it holds it.
pub(super) const BEAT_FILE: &str = "writer.beat";

/// The right to write the mirror and the search index.
pub(super) struct Writer {
    in_process: Mutex<()>,
    lock_file: PathBuf,
    beat: Arc<Beat>,
    /// When a wait for the file lock last gave up on a still holder.
    gave_up: Mutex<Option<Instant>>,
}

/// Who holds the lock, when it could not be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Held {
    /// A holder whose beat moves: it is working and will let go.
    Live,
    /// A holder whose beat is still (stopped, hung, or one that never beats).
    Still,
}

impl Writer {
    pub(super) fn new(index_dir: &Path) -> Writer {
        Writer {
            in_process: Mutex::new(()),
            lock_file: index_dir.join("writer.lock"),
            beat: Arc::new(Beat::new(index_dir.join(BEAT_FILE))),
            gave_up: Mutex::new(None),
        }
    }

    /// Take the write lock, waiting for as long as its holder beats (at most
    /// [`LIVE_AT_MOST`]) and at most `wait` after its beat was last seen to move (not at
    /// all when a wait gave up on a still holder a moment ago); `None` when the holder
    /// stays still, or never lets go.
    pub(super) fn lock_within(&self, wait: Duration) -> Option<WriteLock<'_>> {
        let in_process = self.in_process.lock().recover();
        let recently_still = self
            .gave_up
            .lock()
            .recover()
            .is_some_and(|at| at.elapsed() < BUSY_MEMORY);
        let still_wait = if recently_still { Duration::ZERO } else { wait };
        match self.acquire(still_wait, true) {
            Ok(across) => Some(self.held(across, in_process)),
            Err(held) => {
                if held == Held::Still {
                    *self.gave_up.lock().recover() = Some(Instant::now());
                }
                None
            }
        }
    }

    /// Take the write lock, waiting at most `wait` whoever holds it: for a caller that can
    /// do without it (it reads a file privately, or leaves a mark out).
    pub(super) fn lock_bounded(&self, wait: Duration) -> Option<WriteLock<'_>> {
        let started = Instant::now();
        // Bounded here too: a thread of this process may be waiting for a live holder.
        let in_process = loop {
            match self.in_process.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(e)) => break e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) if started.elapsed() >= wait => {
                    return None
                }
                Err(std::sync::TryLockError::WouldBlock) => std::thread::sleep(RETRY_EVERY),
            }
        };
        let across = self
            .acquire(wait.saturating_sub(started.elapsed()), false)
            .ok()?;
        Some(self.held(across, in_process))
    }

    /// Take the write lock if it is free now, without waiting; otherwise say whether its
    /// holder is live. A holder in this process counts as live.
    pub(super) fn try_lock(&self) -> Result<WriteLock<'_>, Held> {
        let in_process = match self.in_process.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Err(Held::Live),
        };
        match self.acquire(Duration::ZERO, false) {
            Ok(across) => Ok(self.held(across, in_process)),
            Err(_) => Err(if BeatWatch::new(&self.beat.path).live() {
                Held::Live
            } else {
                Held::Still
            }),
        }
    }

    fn held<'a>(&'a self, across: ProcessLock, in_process: MutexGuard<'a, ()>) -> WriteLock<'a> {
        // Only a lock really taken across processes is beaten for: a filesystem without
        // locks has no waiter to tell.
        let beat = across.0.is_some().then(|| BeatGuard::start(&self.beat));
        WriteLock {
            _beat: beat,
            _across_processes: across,
            _in_process: in_process,
        }
    }

    /// The file lock, waiting at most `still_wait` after the holder was last seen live
    /// (when `follow_live`; otherwise at most `still_wait` in all).
    fn acquire(&self, still_wait: Duration, follow_live: bool) -> Result<ProcessLock, Held> {
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock_file)
        else {
            return Ok(ProcessLock(None));
        };
        let started = Instant::now();
        let mut quiet_since = started;
        let mut watch = BeatWatch::new(&self.beat.path);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(ProcessLock(Some(file))),
                Err(std::fs::TryLockError::Error(_)) => return Ok(ProcessLock(None)),
                Err(std::fs::TryLockError::WouldBlock) => {}
            }
            if follow_live && watch.live() {
                if started.elapsed() >= LIVE_AT_MOST {
                    tracing::warn!(
                        "the writer lock at {} stayed held for {LIVE_AT_MOST:?} by a live process",
                        self.lock_file.display()
                    );
                    return Err(Held::Live);
                }
                quiet_since = Instant::now();
            } else if quiet_since.elapsed() >= still_wait {
                return Err(Held::Still);
            }
            std::thread::sleep(RETRY_EVERY);
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.beat.stop();
    }
}

/// Held while writing the mirror and the index.
pub(super) struct WriteLock<'a> {
    // The beat stops, then the lock across processes goes, then the in-process mutex
    // (fields drop in order).
    _beat: Option<BeatGuard>,
    _across_processes: ProcessLock,
    _in_process: MutexGuard<'a, ()>,
}

/// An exclusive advisory lock on a file in the index directory, released on drop.
/// Failing to open the file or to lock it at all (a filesystem without locks, a directory
/// gone) degrades to SQLite's own locking; the location's own checks find the rest.
struct ProcessLock(Option<std::fs::File>);

impl Drop for ProcessLock {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            let _ = f.unlock();
        }
    }
}

/// The holder's side of the beat: a thread per writer, started at its first lock, that
/// rewrites the beat file every [`BEAT_EVERY`] while the lock is held and sleeps
/// otherwise. A stopped process stops its thread with it, so its beat stands still.
struct Beat {
    path: PathBuf,
    state: Mutex<BeatState>,
    wake: Condvar,
}

#[derive(Default)]
struct BeatState {
    /// The beat file while the lock is held (opened at each lock: the index directory may
    /// have been made again since).
    file: Option<std::fs::File>,
    holding: bool,
    beats: u64,
    thread: bool,
    stop: bool,
}

impl Beat {
    fn new(path: PathBuf) -> Beat {
        Beat {
            path,
            state: Mutex::new(BeatState::default()),
            wake: Condvar::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, BeatState> {
        self.state.lock().recover()
    }

    /// Write one beat: this process's id, a count, and the time, in a record of fixed
    /// length written over the last (a reader never sees a shorter file than a record).
    fn write(path: &Path, state: &mut BeatState) {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Beat::write_at(path, state, nanos);
    }

    /// Write one beat carrying `nanos` (0: the lock was let go, so that a waiter's first
    /// look at the file never takes a holder that has gone for a live one).
    fn write_at(path: &Path, state: &mut BeatState, nanos: u128) {
        state.beats += 1;
        let Some(file) = state.file.as_mut() else {
            return;
        };
        let record = format!(
            "{:>10} {:>20} {:>30}\n",
            std::process::id(),
            state.beats,
            nanos
        );
        if file.seek(SeekFrom::Start(0)).is_err() || file.write_all(record.as_bytes()).is_err() {
            tracing::debug!("cannot write the writer's beat at {}", path.display());
            state.file = None;
        }
    }

    fn stop(&self) {
        self.state().stop = true;
        self.wake.notify_all();
    }
}

/// The lock holder's beat, from the lock's taking to its release.
struct BeatGuard(Arc<Beat>);

impl BeatGuard {
    fn start(beat: &Arc<Beat>) -> BeatGuard {
        let mut state = beat.state();
        state.file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&beat.path)
            .ok();
        state.holding = true;
        // At once: a waiter that looks now sees a holder that has just begun.
        Beat::write(&beat.path, &mut state);
        if !state.thread {
            let for_thread = beat.clone();
            let spawned = std::thread::Builder::new()
                .name("printdex-beat".into())
                .spawn(move || beat_loop(&for_thread));
            state.thread = spawned.is_ok();
        }
        drop(state);
        beat.wake.notify_all();
        BeatGuard(beat.clone())
    }
}

impl Drop for BeatGuard {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.holding = false;
        Beat::write_at(&self.0.path, &mut state, 0);
        state.file = None;
    }
}

fn beat_loop(beat: &Beat) {
    let mut state = beat.state();
    while !state.stop {
        if state.holding {
            Beat::write(&beat.path, &mut state);
            state = beat.wake.wait_timeout(state, BEAT_EVERY).recover().0;
        } else {
            state = beat.wake.wait(state).recover();
        }
    }
}

/// A waiter's side of the beat: whether the holder was seen alive lately. The first look
/// trusts the time the beat carries; after it, only a beat seen to move counts (a clock
/// set back cannot make a still holder look alive).
struct BeatWatch<'a> {
    path: &'a Path,
    seen: Option<Vec<u8>>,
    moved_at: Option<Instant>,
}

impl<'a> BeatWatch<'a> {
    fn new(path: &'a Path) -> BeatWatch<'a> {
        BeatWatch {
            path,
            seen: None,
            moved_at: None,
        }
    }

    fn live(&mut self) -> bool {
        let now = std::fs::read(self.path).ok();
        match &self.seen {
            None => {
                if now.as_deref().is_some_and(beat_is_recent) {
                    self.moved_at = Some(Instant::now());
                }
                self.seen = Some(now.unwrap_or_default());
            }
            Some(seen) => {
                let now = now.unwrap_or_default();
                if *seen != now {
                    self.moved_at = Some(Instant::now());
                    self.seen = Some(now);
                }
            }
        }
        self.moved_at.is_some_and(|at| at.elapsed() < BEAT_STALE)
    }
}

/// Whether a beat record carries a time within [`BEAT_STALE`] of now (either side).
fn beat_is_recent(record: &[u8]) -> bool {
    let Some(nanos) = std::str::from_utf8(record)
        .ok()
        .and_then(|r| r.split_whitespace().nth(2))
        .and_then(|n| n.parse::<u128>().ok())
    else {
        return false;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    now.abs_diff(nanos) < BEAT_STALE.as_nanos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(dir: &Path) -> std::fs::File {
        let held = std::fs::File::create(dir.join("writer.lock")).unwrap();
        held.lock().unwrap();
        held
    }

    #[test]
    fn a_lock_held_elsewhere_is_given_up_on_in_bounded_time() {
        let dir = tempfile::tempdir().unwrap();
        let held = hold(dir.path());
        let writer = Writer::new(dir.path());
        let started = Instant::now();
        assert!(writer.lock_within(Duration::from_millis(200)).is_none());
        assert!(started.elapsed() < Duration::from_secs(2));
        // Given up a moment ago: the next attempt does not wait again.
        let again = Instant::now();
        assert!(writer.lock_within(Duration::from_secs(30)).is_none());
        assert!(again.elapsed() < Duration::from_secs(1));
        assert_eq!(writer.try_lock().err(), Some(Held::Still));
        held.unlock().unwrap();
        assert!(writer.lock_within(Duration::ZERO).is_some());
    }

    #[test]
    fn a_beating_holder_is_waited_for_until_it_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let holder = Writer::new(dir.path());
        let waiter = Writer::new(dir.path());
        std::thread::scope(|scope| {
            let lock = holder.lock_within(Duration::ZERO).expect("free");
            assert_eq!(waiter.try_lock().err(), Some(Held::Live));
            let (taken, released) = std::sync::mpsc::channel();
            let waiting = scope.spawn(move || {
                // A still holder would be given up on within 100 ms: this one beats.
                let got = waiter.lock_within(Duration::from_millis(100)).is_some();
                let _ = taken.send(());
                got
            });
            std::thread::sleep(Duration::from_millis(1500));
            assert!(
                released.try_recv().is_err(),
                "the waiter gave up on a live holder"
            );
            drop(lock);
            assert!(waiting.join().unwrap(), "the waiter never took the lock");
        });
    }

    #[test]
    fn a_bounded_wait_gives_up_on_a_live_holder_too() {
        let dir = tempfile::tempdir().unwrap();
        let holder = Writer::new(dir.path());
        let waiter = Writer::new(dir.path());
        let _lock = holder.lock_within(Duration::ZERO).expect("free");
        assert!(waiter.lock_bounded(Duration::from_millis(100)).is_none());
        // Giving up on a live holder leaves no memory that shortens a later wait.
        assert!(waiter.gave_up.lock().unwrap().is_none());
    }

    #[test]
    fn a_beat_stops_moving_once_the_lock_is_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let writer = Writer::new(dir.path());
        let beat = dir.path().join(BEAT_FILE);
        drop(writer.lock_within(Duration::ZERO).expect("free"));
        let mut watch = BeatWatch::new(&beat);
        let first = std::fs::read(&beat).unwrap();
        std::thread::sleep(BEAT_EVERY * 3);
        assert_eq!(
            std::fs::read(&beat).unwrap(),
            first,
            "beat moved while unheld"
        );
        std::thread::sleep(BEAT_STALE);
        assert!(!watch.live());
    }

    #[test]
    fn only_a_recent_beat_counts_at_first_sight() {
        assert!(!beat_is_recent(b"garbage"));
        assert!(!beat_is_recent(b"1 2 3\n"));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        assert!(beat_is_recent(format!("1 2 {now}\n").as_bytes()));
    }
}
