//! A sweep of every table's searched files shared by the searches that arrive while it
//! runs. Until the change feed is up, every search `stat`s every table's searched files
//! (200,000 at 100,000 tables); three sessions on one server starting together made three
//! such sweeps at once, each slowed by the others on two cores.
//!
//! A sweep is split into chunks that its callers' threads claim in order. A call arriving
//! while one runs over the same list joins it: every chunk claimed after it arrived was
//! swept after it began, which is all a call's freshness asks, so it takes those from the
//! sweep and sweeps again only the chunks claimed before it joined (a few, when the calls
//! arrive together). Every caller helps with the chunks left, so the sweep ends as soon as
//! one alone would have.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};

use super::cache::Key;
use super::search::{Indexed, TableEntry};
use crate::error::Recover;
use crate::ingest::parts::in_parts;

/// How many items (tables, or files) one claim sweeps.
pub(super) const CHUNK: usize = 1024;

/// How long a chunk takes when its `stat`s wait on the disk: from the cache a chunk of
/// 1,024 tables' two files takes about 3 ms (6 ms sharing the cores); with the inodes to
/// read from the disk, 40 ms or more.
const WAITS_ON_DISK: std::time::Duration = std::time::Duration::from_millis(20);

/// How many threads a core a sweep that waits on the disk adds.
const MORE_PER_CORE: usize = 7;

/// What a sweep runs over: one connection's list of searched files, of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct SweepOf {
    pub(super) connection: String,
    pub(super) list: List,
    pub(super) which: Indexed,
}

/// Which list a sweep runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum List {
    /// The searched files kept beside the start's image this key names.
    Image(Key),
    /// A snapshot's tables, by the address of the list they share (held by the sweep
    /// while it runs, so no other list has it meanwhile).
    Tables(usize),
}

/// Chunk `n`'s files that moved.
pub(super) type SweepChunk = Box<dyn Fn(usize) -> Vec<PathBuf> + Send + Sync>;

/// The sweep of every table's files of `which` in chunks of `CHUNK` tables.
pub(super) fn of_tables(tables: Arc<Vec<TableEntry>>, which: Indexed) -> (usize, SweepChunk) {
    let chunks = tables.len().div_ceil(CHUNK);
    let sweep = move |chunk: usize| -> Vec<PathBuf> {
        let part = &tables[chunk * CHUNK..((chunk + 1) * CHUNK).min(tables.len())];
        part.iter().flat_map(|t| t.moved_of(which)).collect()
    };
    (chunks, Box::new(sweep))
}

/// What chunks `0..chunks` of `sweep` find moved, swept by this call alone over the
/// cores. `None` when a chunk's sweep failed.
pub(super) fn swept_alone(chunks: usize, sweep: &SweepChunk) -> Option<Vec<PathBuf>> {
    let all: Vec<usize> = (0..chunks).collect();
    let parts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        in_parts(&all, 1, usize::MAX, |part| {
            part.iter().flat_map(|&n| sweep(n)).collect::<Vec<_>>()
        })
    }));
    Some(parts.ok()?.concat())
}

/// This process's sweeps under way, by what they run over.
#[derive(Default)]
pub(crate) struct SharedSweeps {
    under_way: Mutex<HashMap<SweepOf, Weak<Sweep>>>,
}

struct Sweep {
    chunks: usize,
    /// The next chunk to claim: claimed in order, so every chunk from the value a call
    /// read when it joined on is swept after it joined.
    next: AtomicUsize,
    sweep: SweepChunk,
    found: Mutex<Found>,
    all_found: Condvar,
}

/// Each chunk's files that moved (`None`: not swept yet, or its sweep failed).
struct Found {
    moved: Vec<Option<Vec<PathBuf>>>,
    done: usize,
}

impl SharedSweeps {
    /// Every file of `of` that moved, each chunk swept after this call began: by a sweep
    /// of `of` under way that it joins, or by one it starts with `make` (how many chunks
    /// and how to sweep one; `None`: the list cannot be had). `None` when a chunk's sweep
    /// failed, or `make` gave none.
    pub(super) fn moved(
        &self,
        of: SweepOf,
        make: impl FnOnce() -> Option<(usize, SweepChunk)>,
    ) -> Option<Vec<PathBuf>> {
        let (sweep, joined_at) = self.join(of, make)?;
        sweep.help();
        let found = sweep.all_swept();
        let mut moved = Vec::new();
        for chunk in &found.moved[joined_at..] {
            moved.extend(chunk.iter().flatten().cloned());
            chunk.as_ref()?;
        }
        drop(found);
        // The chunks claimed before this call joined may have been swept before it began.
        moved.extend(swept_alone(joined_at, &sweep.sweep)?);
        Some(moved)
    }

    /// The sweep of `of` under way with chunks still to claim, and the first chunk it will
    /// claim from now on; or a new one, from its first chunk, made under the lock (so a
    /// call arriving while its list is read joins it from its first chunk too).
    fn join(
        &self,
        of: SweepOf,
        make: impl FnOnce() -> Option<(usize, SweepChunk)>,
    ) -> Option<(Arc<Sweep>, usize)> {
        let mut under_way = self.under_way.lock().recover();
        under_way.retain(|_, sweep| sweep.strong_count() > 0);
        if let Some(sweep) = under_way.get(&of).and_then(Weak::upgrade) {
            let next = sweep.next.load(Ordering::SeqCst);
            if next < sweep.chunks {
                return Some((sweep, next));
            }
        }
        let (chunks, sweep) = make()?;
        let sweep = Arc::new(Sweep {
            chunks,
            next: AtomicUsize::new(0),
            sweep,
            found: Mutex::new(Found {
                moved: vec![None; chunks],
                done: 0,
            }),
            all_found: Condvar::new(),
        });
        under_way.insert(of, Arc::downgrade(&sweep));
        Some((sweep, 0))
    }
}

impl Sweep {
    /// Claim and sweep chunks, on every core, until none is left to claim. Once a chunk
    /// of the caller's takes as long as a disk's reads ([`WAITS_ON_DISK`]: the files'
    /// inodes are not cached, after a reboot), the threads wait more than they work, and
    /// more join ([`MORE_PER_CORE`] a core) so that more reads are under way at once.
    fn help(&self) {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let work = || {
            while let Some(n) = self.claim() {
                self.sweep_chunk(n);
            }
        };
        std::thread::scope(|scope| {
            for _ in 1..workers.min(self.chunks) {
                scope.spawn(work);
            }
            let mut more = workers * MORE_PER_CORE;
            while let Some(n) = self.claim() {
                let began = std::time::Instant::now();
                self.sweep_chunk(n);
                if more > 0 && began.elapsed() > WAITS_ON_DISK {
                    tracing::debug!(chunk = n, took = ?began.elapsed(), threads = more, "a sweep waits on the disk: more threads join");
                    for _ in 0..more {
                        scope.spawn(work);
                    }
                    more = 0;
                }
            }
        });
    }

    /// Sweep chunk `n` and record what it found. A chunk whose sweep panicked is recorded
    /// as failed, so no caller waits for it for ever.
    fn sweep_chunk(&self, n: usize) {
        let swept = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.sweep)(n)));
        self.record(n, swept.ok());
    }

    fn claim(&self) -> Option<usize> {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        (n < self.chunks).then_some(n)
    }

    fn record(&self, n: usize, moved: Option<Vec<PathBuf>>) {
        let mut found = self.found.lock().recover();
        found.moved[n] = moved;
        found.done += 1;
        if found.done == self.chunks {
            self.all_found.notify_all();
        }
    }

    /// What every chunk found, once each is swept (by whichever caller claimed it).
    fn all_swept(&self) -> std::sync::MutexGuard<'_, Found> {
        let found = self.found.lock().recover();
        self.all_found
            .wait_while(found, |found| found.done < self.chunks)
            .recover()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    fn of(list: usize) -> SweepOf {
        SweepOf {
            connection: "c".into(),
            list: List::Tables(list),
            which: Indexed::Statistics,
        }
    }

    /// A sweep of `chunks` chunks where chunk `n` finds `/moved/<n>` when `n` is in
    /// `moving`, counting each chunk's sweeps in `counts`.
    fn counted(
        chunks: usize,
        moving: &'static [usize],
        counts: &Arc<Vec<AtomicU64>>,
    ) -> Option<(usize, SweepChunk)> {
        let counts = counts.clone();
        let sweep = move |n: usize| {
            counts[n].fetch_add(1, Ordering::SeqCst);
            let path = PathBuf::from(format!("/moved/{n}"));
            moving.contains(&n).then_some(path).into_iter().collect()
        };
        Some((chunks, Box::new(sweep)))
    }

    fn counts(chunks: usize) -> Arc<Vec<AtomicU64>> {
        Arc::new((0..chunks).map(|_| AtomicU64::new(0)).collect())
    }

    #[test]
    fn a_call_alone_sweeps_every_chunk_once_and_a_later_call_sweeps_again() {
        let sweeps = SharedSweeps::default();
        let swept = counts(40);
        let moved = sweeps.moved(of(1), || counted(40, &[3, 31], &swept));
        let mut moved = moved.unwrap();
        moved.sort();
        assert_eq!(
            moved,
            [PathBuf::from("/moved/3"), PathBuf::from("/moved/31")]
        );
        assert!(swept.iter().all(|c| c.load(Ordering::SeqCst) == 1));
        // A call after it ended starts a sweep of its own: an earlier one proves nothing.
        let again = sweeps.moved(of(1), || counted(40, &[], &swept)).unwrap();
        assert!(again.is_empty());
        assert!(swept.iter().all(|c| c.load(Ordering::SeqCst) == 2));
        assert!(sweeps.moved(of(2), || None).is_none(), "no list, no sweep");
    }

    /// How many threads swept a sweep of `chunks` chunks, each taking `each`.
    fn threads_sweeping(chunks: usize, each: std::time::Duration) -> usize {
        let threads = Arc::new(Mutex::new(std::collections::HashSet::new()));
        let seen = threads.clone();
        let sweep = move |_: usize| {
            seen.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(each);
            Vec::new()
        };
        let sweeps = SharedSweeps::default();
        let moved = sweeps.moved(of(1), || Some((chunks, Box::new(sweep) as SweepChunk)));
        assert_eq!(moved, Some(Vec::new()));
        let n = threads.lock().unwrap().len();
        n
    }

    #[test]
    fn a_sweep_whose_chunks_wait_on_the_disk_adds_threads_and_one_that_does_not_keeps_to_the_cores()
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // A chunk as long as one whose inodes are read from the disk: more threads join.
        let slow = threads_sweeping(60, WAITS_ON_DISK * 2);
        assert!(slow > cores, "{slow} threads on {cores} cores");
        assert!(slow <= cores * (1 + MORE_PER_CORE));
        // A chunk swept from the cache: one thread a core.
        let quick = threads_sweeping(60, std::time::Duration::ZERO);
        assert!(quick <= cores, "{quick} threads on {cores} cores");
    }

    #[test]
    fn a_call_joining_a_sweep_takes_the_chunks_claimed_after_it_and_sweeps_the_others_again() {
        let sweeps = SharedSweeps::default();
        let swept = counts(8);
        // A sweep under way whose chunks 0-2 were claimed (and swept) before the call below.
        let (under_way, from) = sweeps.join(of(1), || counted(8, &[1, 6], &swept)).unwrap();
        assert_eq!(from, 0);
        for _ in 0..3 {
            let n = under_way.claim().unwrap();
            under_way.record(n, Some((under_way.sweep)(n)));
        }
        let started = std::sync::atomic::AtomicBool::new(false);
        let moved = sweeps.moved(of(1), || {
            started.store(true, Ordering::SeqCst);
            None
        });
        assert!(!started.load(Ordering::SeqCst), "joined, did not start one");
        let mut moved = moved.expect("swept");
        moved.sort();
        assert_eq!(
            moved,
            [PathBuf::from("/moved/1"), PathBuf::from("/moved/6")]
        );
        let each: Vec<u64> = swept.iter().map(|c| c.load(Ordering::SeqCst)).collect();
        assert_eq!(
            each,
            [2, 2, 2, 1, 1, 1, 1, 1],
            "the first three again, by the call"
        );
        // Another list is another sweep.
        assert!(sweeps.moved(of(2), || None).is_none());
    }

    #[test]
    fn searches_at_once_before_the_feed_is_up_each_see_an_edit_made_before_them() {
        use crate::store::{Connection, Reads, Store};
        let (_project, served) = crate::store::snapshot::tests::library_copy();
        let index = tempfile::tempdir().unwrap();
        // No change feed: every search sweeps every table's searched files.
        let store = Arc::new(Store::open_unwatched(served, index.path()).unwrap());
        let root = store.current("library").unwrap().config.print_root.clone();
        for round in 0..3 {
            let notes = root.join("stacks/members/patrons/statistics.annotations.yaml");
            let edited = format!(
                "{}\n# edit {round}\n",
                std::fs::read_to_string(&notes).unwrap()
            );
            std::fs::write(&notes, &edited).unwrap();
            let together = Arc::new(std::sync::Barrier::new(4));
            let searches: Vec<_> = (0..4)
                .map(|_| {
                    let (store, together, notes) = (store.clone(), together.clone(), notes.clone());
                    std::thread::spawn(move || {
                        together.wait();
                        let state = store.fresh(Connection(None), Reads::EveryTableStatistics);
                        state.unwrap().hash_of(&notes).unwrap()
                    })
                })
                .collect();
            let want = blake3::hash(edited.as_bytes());
            for search in searches {
                assert_eq!(&*search.join().unwrap().hex(), want.to_hex().as_str());
            }
        }
    }

    #[test]
    fn a_chunk_whose_sweep_fails_fails_the_call_and_leaves_no_one_waiting() {
        let sweeps = SharedSweeps::default();
        let failing = || {
            let sweep = |n: usize| -> Vec<PathBuf> {
                assert_ne!(n, 5, "a chunk's sweep fails");
                Vec::new()
            };
            Some((12, Box::new(sweep) as SweepChunk))
        };
        assert!(sweeps.moved(of(1), failing).is_none());
        let swept = counts(12);
        assert_eq!(
            sweeps.moved(of(1), || counted(12, &[], &swept)),
            Some(Vec::new())
        );
    }
}
