//! Work the calls need not wait for, run below the threads that answer them. On two
//! cores the change feed's set-up (a watch and a `stat` per directory, about a second at
//! 100,000 tables) took a core from the first searches of a session, which sweep what
//! they read rather than wait for it; below them it fills the time they leave, and the
//! searches answer sooner. A call that does wait for it sleeps meanwhile, leaving it the
//! cores. Elsewhere than Linux threads keep their priority.
//!
//! Work a call is likely to wait for (the image's file map, a session's read-back of
//! kept values) keeps the calls' priority, as a call waiting on work below it waits for
//! whatever else runs; it gives way only while a call sweeps ([`GiveWay`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How many calls are sweeping what they read right now (see [`Sweeping`]).
static SWEEPING: AtomicUsize = AtomicUsize::new(0);

/// A call's sweep under way: background work that gives way ([`GiveWay`]) pauses until
/// it ends. A lower priority is not enough for the change feed's set-up: adding a
/// watch takes locks in the kernel that the sweep's `stat`s need too, and at 100,000
/// tables a first search's sweep took 260-280 ms beside it against 185 ms alone.
pub struct Sweeping(());

impl Sweeping {
    pub fn begin() -> Sweeping {
        SWEEPING.fetch_add(1, Ordering::SeqCst);
        Sweeping(())
    }
}

impl Drop for Sweeping {
    fn drop(&mut self) {
        SWEEPING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Background work's pauses for the calls' sweeps, bounded in all: calls that kept
/// sweeping because the work is not done (searches before the change feed is up) must
/// not hold it back for ever.
pub struct GiveWay {
    paused: Duration,
    most: Duration,
}

/// The most one piece of background work pauses for the calls' sweeps, in all.
const MOST_PAUSED: Duration = Duration::from_secs(1);

impl GiveWay {
    pub fn new() -> GiveWay {
        GiveWay::at_most(MOST_PAUSED)
    }

    /// Pauses of at most `most` in all: for work a call will soon wait for (a session's
    /// read-back of validate_sql's catalog), which must not be held back until the calls
    /// after the first searches arrive.
    pub fn at_most(most: Duration) -> GiveWay {
        GiveWay {
            paused: Duration::ZERO,
            most,
        }
    }

    /// Wait while a call sweeps, unless this work has paused its most already.
    pub fn now(&mut self) {
        const EVERY: Duration = Duration::from_millis(2);
        if SWEEPING.load(Ordering::SeqCst) == 0 || self.paused >= self.most {
            return;
        }
        let started = Instant::now();
        while SWEEPING.load(Ordering::SeqCst) > 0 && self.paused + started.elapsed() < self.most {
            std::thread::sleep(EVERY);
        }
        self.paused += started.elapsed();
    }
}

impl Default for GiveWay {
    fn default() -> GiveWay {
        GiveWay::new()
    }
}

/// The nice value such work runs at: below the calls (0), not starved by them.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const NICE: libc::c_int = 10;

/// Lower the calling thread, and the threads it spawns from now on, below the calls.
/// Only for a thread that does such work alone and then ends.
#[allow(unsafe_code)] // setpriority on this thread's own id
pub fn below_calls() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: gettid and setpriority take no pointers; on Linux a nice value is a
    // thread's own, so this leaves the process's other threads as they are.
    unsafe {
        let thread = libc::gettid() as libc::id_t;
        // Never raised: a process started below this already stays where it is.
        if libc::getpriority(libc::PRIO_PROCESS, thread) < NICE
            && libc::setpriority(libc::PRIO_PROCESS, thread, NICE) != 0
        {
            tracing::debug!("could not lower a background thread's priority");
        }
    }
}

#[cfg(test)]
mod give_way_tests {
    use super::*;

    /// How long `give_way` held its caller back, asked twice.
    fn paused_twice(give_way: &mut GiveWay) -> Duration {
        let started = Instant::now();
        give_way.now();
        give_way.now();
        started.elapsed()
    }

    #[test]
    fn background_work_pauses_while_a_call_sweeps_and_for_a_second_at_most_in_all() {
        // One test owns the process-wide count: another sweeping beside it would only
        // lengthen a pause, never shorten one below what is asserted.
        let sweeping = Sweeping::begin();
        let ends = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(sweeping);
        });
        let mut give_way = GiveWay::new();
        let started = Instant::now();
        give_way.now();
        let paused = started.elapsed();
        ends.join().unwrap();
        assert!(paused >= Duration::from_millis(100), "paused {paused:?}");

        // A sweep that never ends holds it back a second in all, then no more.
        let _forever = Sweeping::begin();
        let paused = paused_twice(&mut give_way);
        assert!(paused >= Duration::from_millis(800), "paused {paused:?}");
        assert!(paused < Duration::from_secs(3), "paused {paused:?}");
        let started = Instant::now();
        give_way.now();
        assert!(started.elapsed() < Duration::from_millis(100));

        // Work bounded lower pauses that long in all.
        let paused = paused_twice(&mut GiveWay::at_most(Duration::from_millis(150)));
        assert!(paused >= Duration::from_millis(140), "paused {paused:?}");
        assert!(paused < Duration::from_millis(900), "paused {paused:?}");
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    #[allow(unsafe_code)]
    fn nice_of_this_thread() -> libc::c_int {
        // SAFETY: as in `below_calls`.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    #[test]
    fn a_background_thread_and_what_it_spawns_run_below_the_calls_and_no_other_thread_does() {
        let before = nice_of_this_thread();
        let (own, spawned) = std::thread::spawn(|| {
            super::below_calls();
            let spawned = std::thread::spawn(nice_of_this_thread).join().unwrap();
            (nice_of_this_thread(), spawned)
        })
        .join()
        .unwrap();
        assert_eq!(own, before.max(super::NICE));
        assert_eq!(spawned, own, "a thread it spawns inherits its priority");
        assert_eq!(
            nice_of_this_thread(),
            before,
            "the caller's thread keeps its own"
        );
    }
}
