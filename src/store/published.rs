//! The store's record of a snapshot it published: the snapshot itself, which never changes
//! once published, and what the store has learned about it since, which does: the
//! change-feed epoch up to which the disk is known to still match it. Calls that read every
//! file of a source (search_columns, validate_sql, a pz project's tools) ask the feed only
//! what moved after that epoch, and move it forward when nothing they read did. Until the
//! feed vouches for every file, a sweep of some (every table's searched files) vouches for
//! those: a later call over them asks the feed what moved since, and the sweep of every
//! file skips them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::search::Indexed;

/// No change-feed epoch: a snapshot the feed has never vouched for.
const UNVERIFIED: u64 = u64::MAX;

/// A published snapshot and how far the change feed vouches for it.
pub(crate) struct Published<S> {
    pub(crate) snapshot: Arc<S>,
    /// The change-feed epoch at which the disk was last known to match `snapshot`.
    verified: AtomicU64,
    /// The epochs at which every walkable table's indexed files of a kind were last known
    /// to match it: `[Indexed::Statistics, Indexed::Every]`.
    swept: [AtomicU64; 2],
}

/// `which`'s place in `Published::swept`.
fn slot(which: Indexed) -> usize {
    match which {
        Indexed::Statistics => 0,
        Indexed::Every => 1,
    }
}

/// Move `at` forward to `epoch`; an older epoch changes nothing.
fn forward(at: &AtomicU64, epoch: u64) {
    let _ = at.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
        (now == UNVERIFIED || now < epoch).then_some(epoch)
    });
}

fn known(at: &AtomicU64) -> Option<u64> {
    Some(at.load(Ordering::SeqCst)).filter(|e| *e != UNVERIFIED)
}

impl<S> Published<S> {
    /// `snapshot`, known to match the disk as of change-feed epoch `verified` (`None`: not
    /// known to at any epoch the feed can answer for).
    pub(crate) fn new(snapshot: Arc<S>, verified: Option<u64>) -> Published<S> {
        Published {
            snapshot,
            verified: AtomicU64::new(verified.unwrap_or(UNVERIFIED)),
            swept: [const { AtomicU64::new(UNVERIFIED) }; 2],
        }
    }

    /// `snapshot`, made from `earlier`'s by reading again files the feed named (or a call
    /// found moved): the feed vouches for it as far as it did for `earlier`, since the
    /// other files were as both hold them then, and what the feed names since (these
    /// files among them) is checked against the new one.
    pub(crate) fn after(snapshot: Arc<S>, earlier: Option<&Published<S>>) -> Published<S> {
        let published = Published::new(snapshot, earlier.and_then(Published::verified));
        for (now, then) in published
            .swept
            .iter()
            .zip(earlier.map(|e| &e.swept).into_iter().flatten())
        {
            now.store(then.load(Ordering::SeqCst), Ordering::SeqCst);
        }
        published
    }

    /// The change-feed epoch the disk is known to match the snapshot at, if any.
    pub(crate) fn verified(&self) -> Option<u64> {
        known(&self.verified)
    }

    /// Record that the disk was found to match the snapshot as of `epoch`; an older epoch
    /// than the one recorded changes nothing.
    pub(crate) fn verify(&self, epoch: u64) {
        forward(&self.verified, epoch);
    }

    /// The change-feed epoch at which every walkable table's `which` files are known to
    /// match the snapshot, if any (a sweep of all four covers the statistics too).
    pub(crate) fn swept(&self, which: Indexed) -> Option<u64> {
        known(&self.swept[slot(which)])
    }

    /// Record that every walkable table's `which` files were found to match the snapshot
    /// as of `epoch`.
    pub(crate) fn verify_swept(&self, which: Indexed, epoch: u64) {
        forward(&self.swept[slot(which)], epoch);
        if which == Indexed::Every {
            forward(&self.swept[slot(Indexed::Statistics)], epoch);
        }
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

    #[test]
    fn a_sweep_of_every_indexed_file_vouches_for_the_statistics_and_is_carried() {
        let p = Published::new(Arc::new(()), None);
        p.verify_swept(Indexed::Statistics, 3);
        assert_eq!(p.swept(Indexed::Statistics), Some(3));
        assert_eq!(p.swept(Indexed::Every), None);
        p.verify_swept(Indexed::Every, 5);
        assert_eq!(p.swept(Indexed::Statistics), Some(5));
        assert_eq!(p.swept(Indexed::Every), Some(5));
        p.verify_swept(Indexed::Statistics, 4);
        assert_eq!(p.swept(Indexed::Statistics), Some(5));
        let next = Published::after(Arc::new(()), Some(&p));
        assert_eq!(next.swept(Indexed::Every), Some(5));
        assert_eq!(next.verified(), None);
        assert_eq!(
            Published::<()>::after(Arc::new(()), None).swept(Indexed::Statistics),
            None
        );
    }
}
