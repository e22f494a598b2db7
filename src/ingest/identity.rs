//! A file's identity on disk (mtime, size, inode, settled) and its content hash: what the
//! freshness contract compares to decide whether a file must be read again.

use std::path::Path;

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

/// How long after a write to a file with fine timestamps its identity settles.
pub const SETTLE_FINE: std::time::Duration = std::time::Duration::from_nanos(SETTLE_FINE_NS as u64);
const SETTLE_COARSE_NS: i64 = 2_000_000_000;

impl FileIdentity {
    /// The identity a `stat` taken no earlier than `before_ns` (ns since the epoch) shows.
    pub fn from_metadata(m: &std::fs::Metadata, before_ns: i64) -> FileIdentity {
        let (mtime_ns, size, inode) = platform_stat(m);
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
