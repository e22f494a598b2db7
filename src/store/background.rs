//! Work the calls need not wait for, run below the threads that answer them. On two
//! cores the change feed's set-up (a watch and a `stat` per directory, about a second at
//! 100,000 tables) took a core from the first searches of a session, which sweep what
//! they read rather than wait for it; below them it fills the time they leave, and the
//! searches answer sooner. A call that does wait for it sleeps meanwhile, leaving it the
//! cores. Elsewhere than Linux threads keep their priority.

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
