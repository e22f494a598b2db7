//! Directories a walk of the print already met: the walk for symlinks' memo (`WalkMemo`)
//! holds every directory below a print root with the identity it had when the walk read
//! it. Setting up the feed reads every directory to find the ones below it (at 100,000
//! tables, 127,000 of them: opening and reading each was most of the feed's set-up).
//! Instead each directory the walk met is watched and then `stat`ed: one whose identity
//! still holds has the entries the walk found in it (an entry made after the watch is an
//! event; one made before it moved the directory's mtime), so only a directory whose
//! identity moved is read, and the links the walk met are followed as a read follows
//! them.

use std::path::{Path, PathBuf};

use crate::ingest::walk::WalkMemo;

/// What the walks of the served roots met, by root.
#[derive(Default)]
pub struct KnownDirs {
    walks: Vec<(PathBuf, WalkMemo)>,
}

impl KnownDirs {
    /// Add what a walk of `root` met.
    pub fn add(&mut self, root: &Path, memo: WalkMemo) {
        self.walks.push((root.to_path_buf(), memo));
    }

    /// What the walk of `root` met, when it began at `root` (`None`: read every directory).
    // Only the inotify feed follows a walk.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn take(&mut self, root: &Path) -> Option<WalkMemo> {
        let at = self.walks.iter().position(|(r, _)| r == root)?;
        let (_, memo) = self.walks.swap_remove(at);
        (memo.dirs.first().map(|(d, _)| d.as_path()) == Some(root)).then_some(memo)
    }
}
