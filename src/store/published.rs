//! The store's record of a snapshot it published: the snapshot itself, which never changes
//! once published, and what the store has learned about it since, which does: the
//! change-feed epoch up to which the disk is known to still match it. Calls that read every
//! file of a source (search_columns, validate_sql, a pz project's tools) ask the feed only
//! what moved after that epoch, and move it forward when nothing they read did.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// No change-feed epoch: a snapshot the feed has never vouched for.
const UNVERIFIED: u64 = u64::MAX;

/// A published snapshot and how far the change feed vouches for it.
pub(crate) struct Published<S> {
    pub(crate) snapshot: Arc<S>,
    /// The change-feed epoch at which the disk was last known to match `snapshot`.
    verified: AtomicU64,
}

impl<S> Published<S> {
    /// `snapshot`, known to match the disk as of change-feed epoch `verified` (`None`: not
    /// known to at any epoch the feed can answer for).
    pub(crate) fn new(snapshot: Arc<S>, verified: Option<u64>) -> Published<S> {
        Published {
            snapshot,
            verified: AtomicU64::new(verified.unwrap_or(UNVERIFIED)),
        }
    }

    /// The change-feed epoch the disk is known to match the snapshot at, if any.
    pub(crate) fn verified(&self) -> Option<u64> {
        Some(self.verified.load(Ordering::SeqCst)).filter(|e| *e != UNVERIFIED)
    }

    /// Record that the disk was found to match the snapshot as of `epoch`; an older epoch
    /// than the one recorded changes nothing.
    pub(crate) fn verify(&self, epoch: u64) {
        let _ = self
            .verified
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                (now == UNVERIFIED || now < epoch).then_some(epoch)
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verification_only_moves_forward() {
        let p = Published::new(Arc::new(()), None);
        assert_eq!(p.verified(), None);
        p.verify(4);
        assert_eq!(p.verified(), Some(4));
        p.verify(2);
        assert_eq!(p.verified(), Some(4));
        p.verify(7);
        assert_eq!(p.verified(), Some(7));
        assert_eq!(Published::new(Arc::new(()), Some(3)).verified(), Some(3));
    }
}
