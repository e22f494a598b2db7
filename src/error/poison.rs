//! Poisoned locks: one policy, one helper. A `Mutex` or `RwLock` is poisoned when a thread
//! panicked while holding it. printdex recovers: it takes the guard and goes on.
//!
//! Why recovering is sound here: every lock in the crate guards state that a panic cannot
//! leave in a shape a later reader would act on wrongly. Each holds a cache (a value is
//! put in whole or not at all, and is a cache anyway), a value swapped whole (a published
//! snapshot, a location), a handle (the mirror's connection, a child process, a session
//! table) or nothing (a `Mutex<()>` that only orders work). The panic itself was caught
//! where it happened (at the MCP boundary, or a worker's join) and reported there. Failing
//! every later call (panicking again) would turn one failed call into a server that no
//! longer answers; skipping the work silently would leave a session table or a retry
//! clock stale for good.

use std::sync::{LockResult, PoisonError};

/// `lock()`, `read()`, `write()` or `into_inner()` with the poison taken off: the guard (or
/// value), whether or not a thread panicked holding it.
pub trait Recover<T> {
    fn recover(self) -> T;
}

impl<T> Recover<T> for LockResult<T> {
    fn recover(self) -> T {
        self.unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Mutex, RwLock};

    #[test]
    fn a_lock_a_thread_panicked_holding_still_gives_its_value() {
        let shared = Mutex::new(vec![1]);
        let poisoned = std::thread::scope(|s| {
            s.spawn(|| {
                let mut held = shared.lock().recover();
                held.push(2);
                panic!("while holding the lock");
            })
            .join()
            .is_err()
        });
        assert!(poisoned && shared.is_poisoned());
        assert_eq!(*shared.lock().recover(), [1, 2]);
        shared.lock().recover().push(3);
        assert_eq!(shared.into_inner().recover(), [1, 2, 3]);

        let swapped = RwLock::new(1);
        let _ = std::thread::scope(|s| {
            s.spawn(|| {
                let _held = swapped.write().recover();
                panic!("while writing");
            })
            .join()
        });
        *swapped.write().recover() = 2;
        assert_eq!(*swapped.read().recover(), 2);
    }
}
