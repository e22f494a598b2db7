//! A file's identity on disk (mtime, size, inode, settled) and its content hash: what the
//! freshness contract compares to decide whether a file must be read again.

use std::path::{Path, PathBuf};

/// A file's identity on disk, as the freshness contract (spec §7.1) defines it.
///
/// Two identities are equal only when both are *settled*: taken at least a timestamp tick
/// after the file's mtime. A file rewritten within the tick it was last stat'ed in keeps
/// its mtime, size and (in place) inode, so an unsettled identity proves nothing and never
/// matches: the file is read again and its content hash decides (git's "racily clean").
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct FileIdentity {
    pub mtime_ns: i64,
    pub size: u64,
    pub inode: u64,
    pub settled: bool,
}

/// How long after its mtime a file's identity is trusted: filesystems with nanosecond
/// timestamps stamp from a clock that advances every tick (at most 10 ms at HZ=100);
/// ones with whole-second (or FAT's two-second) stamps show no sub-millisecond digits.
const SETTLE_FINE_NS: i64 = 50_000_000;
const SETTLE_COARSE_NS: i64 = 2_000_000_000;

impl FileIdentity {
    /// The identity a `stat` taken no earlier than `before_ns` (ns since the epoch) shows.
    pub fn from_metadata(m: &std::fs::Metadata, before_ns: i64) -> FileIdentity {
        FileIdentity::from_stat(platform_stat(m), before_ns)
    }

    /// The identity of a stat's (mtime in ns, size, identity number), taken no earlier
    /// than `before_ns`.
    fn from_stat((mtime_ns, size, inode): StatOf, before_ns: i64) -> FileIdentity {
        // No sub-millisecond digits: a whole-second (or FAT two-second) timestamp.
        let settle = if mtime_ns % 1_000_000 == 0 {
            SETTLE_COARSE_NS
        } else {
            SETTLE_FINE_NS
        };
        FileIdentity {
            mtime_ns,
            size,
            inode,
            settled: before_ns >= mtime_ns.saturating_add(settle),
        }
    }
}

/// (mtime in ns since the epoch, size, file identity number) as the platform keeps them.
#[cfg(unix)]
fn platform_stat(m: &std::fs::Metadata) -> (i64, u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (
        m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        m.size(),
        m.ino(),
    )
}

/// Windows: the file index (the inode's counterpart) needs an unstable API, so the
/// creation time stands in for it. That is weaker: NTFS carries a creation time over to
/// a file re-created under the same name within seconds (tunneling), so a replace that
/// keeps the write time and size is caught only while its identity is unsettled (by the
/// content hash), as an in-place rewrite is on every platform.
#[cfg(windows)]
fn platform_stat(m: &std::fs::Metadata) -> (i64, u64, u64) {
    use std::os::windows::fs::MetadataExt;
    /// 100 ns intervals from 1601-01-01 to 1970-01-01.
    const EPOCH_OFFSET: i64 = 116_444_736_000_000_000;
    let since_1601 = i64::try_from(m.last_write_time()).unwrap_or(i64::MAX);
    (
        since_1601.saturating_sub(EPOCH_OFFSET).saturating_mul(100),
        m.file_size(),
        m.creation_time(),
    )
}

/// Elsewhere: the portable mtime and size; no identity number.
#[cfg(not(any(unix, windows)))]
fn platform_stat(m: &std::fs::Metadata) -> (i64, u64, u64) {
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    (mtime_ns, m.len(), 0)
}

impl PartialEq for FileIdentity {
    fn eq(&self, other: &FileIdentity) -> bool {
        self.settled && other.settled && self.same_stat(other)
    }
}

impl FileIdentity {
    /// The same mtime, size and inode, settled or not: for an unsettled pair, the file
    /// may still have changed; its bytes decide (see [`hash_file`]).
    pub fn same_stat(&self, other: &FileIdentity) -> bool {
        self.mtime_ns == other.mtime_ns && self.size == other.size && self.inode == other.inode
    }
}

/// blake3 of a file's bytes, hex, as the mirror stores it; `None` when unreadable.
pub fn hash_file(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| blake3::hash(&bytes).to_hex().to_string())
}

/// Nanoseconds since the epoch, read before a `stat` whose identity it settles.
pub fn clock_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// `os.stat` (links followed); `None` when the file is absent or unreadable.
pub fn identity(path: &Path) -> Option<FileIdentity> {
    let before = clock_ns();
    let m = std::fs::metadata(path).ok()?;
    Some(FileIdentity::from_metadata(&m, before))
}

/// [`identity`] of a regular file; `None` for anything else.
pub fn file_identity(path: &Path) -> Option<FileIdentity> {
    let before = clock_ns();
    let m = std::fs::metadata(path).ok()?;
    m.is_file().then(|| FileIdentity::from_metadata(&m, before))
}

/// A stat's (mtime in ns, size, identity number).
type StatOf = (i64, u64, u64);

/// Stats of the paths below one directory, each resolved from a handle on it, so the
/// kernel walks only the components below it: a sweep stats hundreds of thousands of paths
/// that share a print root's prefix, and the walk of that prefix was most of its cost.
/// A path elsewhere (or where no handle could be opened) is stat'ed as it is. What each
/// stat answers is what [`identity`] and [`file_identity`] answer.
pub struct StatsBelow {
    #[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
    root: PathBuf,
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    dir: Option<std::fs::File>,
}

impl StatsBelow {
    pub fn open(root: &Path) -> StatsBelow {
        StatsBelow {
            root: root.to_path_buf(),
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            dir: std::fs::File::open(root).ok(),
        }
    }

    /// [`identity`] of `path` (links followed).
    pub fn identity(&self, path: &Path) -> Option<FileIdentity> {
        let before = clock_ns();
        match self.stat(path) {
            Some(found) => found.map(|(stat, _)| FileIdentity::from_stat(stat, before)),
            None => identity(path),
        }
    }

    /// [`file_identity`] of `path`: `None` for anything but a regular file.
    pub fn file_identity(&self, path: &Path) -> Option<FileIdentity> {
        let before = clock_ns();
        match self.stat(path) {
            Some(found) => found
                .filter(|(_, is_file)| *is_file)
                .map(|(stat, _)| FileIdentity::from_stat(stat, before)),
            None => file_identity(path),
        }
    }

    /// `path`'s stat through the handle (`Some(None)`: it answered that there is nothing
    /// to stat), or `None` when the handle cannot take it.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)] // fstatat on the handle this value owns
    fn stat(&self, path: &Path) -> Option<Option<(StatOf, bool)>> {
        use std::os::fd::AsRawFd;
        use std::os::unix::ffi::OsStrExt;
        let dir = self.dir.as_ref()?;
        let below = path.strip_prefix(&self.root).ok()?;
        if below.as_os_str().is_empty() {
            return None;
        }
        let name = std::ffi::CString::new(below.as_os_str().as_bytes()).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `name` is NUL-terminated and outlives the call, `dir` is an open handle
        // this value owns, and `st` is only read after fstatat filled it (it returned 0).
        let st = unsafe {
            if libc::fstatat(dir.as_raw_fd(), name.as_ptr(), st.as_mut_ptr(), 0) != 0 {
                return Some(None);
            }
            st.assume_init()
        };
        let mtime_ns = st.st_mtime * 1_000_000_000 + st.st_mtime_nsec;
        let is_file = st.st_mode & libc::S_IFMT == libc::S_IFREG;
        Some(Some(((mtime_ns, st.st_size as u64, st.st_ino), is_file)))
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn stat(&self, _path: &Path) -> Option<Option<(StatOf, bool)>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_below_a_root_answer_as_plain_stats_do_wherever_the_path_is() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let table = root.path().join("stacks/catalog/series");
        std::fs::create_dir_all(&table).unwrap();
        std::fs::write(table.join("statistics.yaml"), "row_count: 40\n").unwrap();
        std::fs::write(outside.path().join("elsewhere.yaml"), "x: 1\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.path().join("linked")).unwrap();
        let below = StatsBelow::open(root.path());
        let paths = [
            table.join("statistics.yaml"),
            table.join("statistics.annotations.yaml"),
            table.clone(),
            root.path().to_path_buf(),
            root.path().join("linked/elsewhere.yaml"),
            root.path().join("linked/absent.yaml"),
            outside.path().join("elsewhere.yaml"),
            PathBuf::from("/nonexistent/x"),
        ];
        let agree = |plain: Option<FileIdentity>, through: Option<FileIdentity>, path: &Path| {
            assert_eq!(plain.is_some(), through.is_some(), "{}", path.display());
            if let (Some(plain), Some(through)) = (plain, through) {
                assert!(plain.same_stat(&through), "{}", path.display());
            }
        };
        for path in &paths {
            agree(identity(path), below.identity(path), path);
            agree(file_identity(path), below.file_identity(path), path);
        }
        // Directories are identities, not file identities; the handle tells them apart.
        assert!(below.identity(&table).is_some() && below.file_identity(&table).is_none());
        // A rewrite shows through the handle as it shows to a plain stat.
        let stats = table.join("statistics.yaml");
        let before = below.file_identity(&stats).unwrap();
        std::fs::write(&stats, "row_count: 1040\n").unwrap();
        assert!(!before.same_stat(&below.file_identity(&stats).unwrap()));
    }
}
