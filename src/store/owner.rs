//! Which project an index directory belongs to: a small file (`project.json`) written
//! each time a server or a rebuild opens the index, so `printdex index list` can say
//! whose each index in the cache is and `index prune` can remove only the indexes of
//! projects that are gone.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub const OWNER_FILE: &str = "project.json";
/// What marks a directory as an index (see `mirror`), with or without an owner file.
const MIRROR_FILE: &str = "mirror.sqlite";
/// The writer's lock file (see `lock`): held while a process writes the index.
const WRITER_LOCK: &str = "writer.lock";

/// The project an index was opened for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// The `.dbprint.yaml` the index was built from.
    pub config: PathBuf,
    /// The project as `--project` named it when it was a git address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Unix seconds of the last open.
    pub last_used: u64,
    /// The printdex version that opened it last.
    pub printdex: String,
}

impl Owner {
    /// An owner record for `config`, opened now by this build.
    pub fn now(config: &Path, address: Option<&str>) -> Owner {
        Owner {
            config: config.to_path_buf(),
            address: address.map(str::to_string),
            last_used: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            printdex: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// Whether the project still exists (its configuration file is there).
    pub fn project_exists(&self) -> bool {
        self.config.is_file()
    }
}

/// Record `owner` in `index_dir`, replacing the file whole (a reader never sees half).
pub fn record(index_dir: &Path, owner: &Owner) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(owner).map_err(std::io::Error::other)?;
    let tmp = index_dir.join(format!(".{OWNER_FILE}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, index_dir.join(OWNER_FILE))
}

/// The owner recorded in `index_dir`, if any.
pub fn read(index_dir: &Path) -> Option<Owner> {
    let text = std::fs::read(index_dir.join(OWNER_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// One index found in the cache.
#[derive(Debug, Clone)]
pub struct Listed {
    pub dir: PathBuf,
    /// `None`: an index without an owner file (written by an older printdex).
    pub owner: Option<Owner>,
    /// Bytes on disk, everything in the directory.
    pub bytes: u64,
}

impl Listed {
    /// Gone: its owner is recorded and the project's configuration is no longer there.
    /// An index whose owner is unknown is never taken for gone.
    pub fn project_gone(&self) -> bool {
        self.owner.as_ref().is_some_and(|o| !o.project_exists())
    }

    /// Whether a process holds its write lock now (it is being written).
    pub fn in_use(&self) -> bool {
        let Ok(file) = std::fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join(WRITER_LOCK))
        else {
            return false;
        };
        match file.try_lock() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(std::fs::TryLockError::WouldBlock) => true,
            Err(std::fs::TryLockError::Error(_)) => false,
        }
    }
}

/// Every index directly under `cache_root` (a directory holding a mirror or an owner
/// file), sorted by directory. Other directories there (git checkouts, pz docs) are not
/// indexes and are not listed.
pub fn list(cache_root: &Path) -> Vec<Listed> {
    let Ok(entries) = std::fs::read_dir(cache_root) else {
        return Vec::new();
    };
    let mut out: Vec<Listed> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|dir| dir.join(MIRROR_FILE).is_file() || dir.join(OWNER_FILE).is_file())
        .map(|dir| Listed {
            owner: read(&dir),
            bytes: size_of(&dir),
            dir,
        })
        .collect();
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

/// Bytes of every file below `dir` (symlinks not followed).
fn size_of(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size_of(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_round_trip_and_only_indexes_are_listed() {
        let cache = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let config = project.path().join(".dbprint.yaml");
        std::fs::write(&config, "connections: {}\n").unwrap();
        let index = cache.path().join("0123456789abcdef");
        std::fs::create_dir_all(&index).unwrap();
        std::fs::write(index.join(MIRROR_FILE), b"x").unwrap();
        let owner = Owner::now(&config, None);
        record(&index, &owner).unwrap();
        assert_eq!(read(&index), Some(owner));
        let older = cache.path().join("fedcba9876543210");
        std::fs::create_dir_all(&older).unwrap();
        std::fs::write(older.join(MIRROR_FILE), b"y").unwrap();
        std::fs::create_dir_all(cache.path().join("git/abc/checkout")).unwrap();
        std::fs::create_dir_all(cache.path().join("pz-docs")).unwrap();
        let listed = list(cache.path());
        let dirs: Vec<&Path> = listed.iter().map(|l| l.dir.as_path()).collect();
        assert_eq!(dirs, [index.as_path(), older.as_path()]);
        assert!(!listed[0].project_gone() && !listed[1].project_gone());
        assert!(listed[0].bytes > 1);
        std::fs::remove_file(&config).unwrap();
        let listed = list(cache.path());
        assert!(listed[0].project_gone());
        assert!(!listed[1].project_gone(), "an unknown owner is never gone");
    }
}
