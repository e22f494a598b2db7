//! The docs index on disk, in the user's cache (shared by every project, since the docs tools
//! need none):
//!
//! ```text
//! $XDG_CACHE_HOME/printdex/pz-docs/
//!   current.json            which version answers, its source, when it was synced and checked
//!   v-<blake3>/             one immutable version: llms.txt, llms-full.txt, meta.json, index/
//!   tmp-<pid>-<nanos>/      a version being built
//! ```
//!
//! A version's name is the blake3 of its source and both files, so syncing unchanged docs
//! builds nothing. Versions are built aside and renamed into place, and `current.json` is
//! replaced by rename, so concurrent servers and syncs never see half a corpus and need no lock.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::fetch::{Fetched, FULL_FILE, INDEX_FILE};
use super::Catalog;
use crate::error::pz::DocsError;
use crate::ingest::pz_docs::parse::decode;

/// Bumped when the parse, line table or index layout changes: old versions are rebuilt.
const FORMAT: u32 = 2;
const POINTER: &str = "current.json";
const META: &str = "meta.json";
const INDEX_DIR: &str = "index";
const STALE_VERSION: Duration = Duration::from_secs(24 * 3600);
const STALE_TMP: Duration = Duration::from_secs(3600);

/// `$XDG_CACHE_HOME/printdex/pz-docs`, else `~/.cache/printdex/pz-docs`.
pub fn default_root() -> PathBuf {
    crate::config::cache_root().join("pz-docs")
}

pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `current.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pointer {
    pub version: String,
    /// The base URL the version was fetched from.
    pub source: String,
    /// When this version was first installed (unix seconds).
    pub synced_at: u64,
    /// When the source last answered with it (unix seconds).
    pub checked_at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMeta {
    pub url: String,
    pub bytes: u64,
    pub blake3: String,
}

/// A version's `meta.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub format: u32,
    pub source: String,
    pub llms_txt: FileMeta,
    pub llms_full_txt: FileMeta,
    pub pages: usize,
    pub lines: usize,
    pub built_at: u64,
}

/// What identifies the pointer file's current state, to notice another process's sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    #[cfg(unix)]
    ino: u64,
}

/// An installed version, opened.
pub struct Installed {
    pub pointer: Pointer,
    pub meta: Meta,
    pub catalog: Catalog,
    /// The same content was already installed: nothing was built.
    pub reused: bool,
}

pub struct Store {
    root: PathBuf,
}

fn store_err(e: impl std::fmt::Display) -> DocsError {
    DocsError::store("IOException", e)
}

impl Store {
    pub fn at(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn pointer(&self) -> Option<Pointer> {
        let text = std::fs::read(self.root.join(POINTER)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    pub fn stamp(&self) -> Option<Stamp> {
        let m = std::fs::metadata(self.root.join(POINTER)).ok()?;
        Some(Stamp {
            modified: m.modified().ok(),
            len: m.len(),
            #[cfg(unix)]
            ino: std::os::unix::fs::MetadataExt::ino(&m),
        })
    }

    pub fn version_dir(&self, version: &str) -> PathBuf {
        self.root.join(version)
    }

    pub fn meta(&self, version: &str) -> Option<Meta> {
        let text = std::fs::read(self.version_dir(version).join(META)).ok()?;
        serde_json::from_slice::<Meta>(&text)
            .ok()
            .filter(|m| m.format == FORMAT)
    }

    /// The version name a fetch would install as.
    pub fn version_of(fetched: &Fetched) -> String {
        let mut h = blake3::Hasher::new();
        h.update(&FORMAT.to_le_bytes());
        for part in [fetched.base.as_bytes(), &fetched.index, &fetched.full] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        format!("v-{}", &h.finalize().to_hex()[..16])
    }

    /// Open the version the pointer names.
    pub fn open(&self, pointer: &Pointer) -> Result<(Meta, Catalog), DocsError> {
        let dir = self.version_dir(&pointer.version);
        let meta = self
            .meta(&pointer.version)
            .ok_or_else(|| store_err(format!("no usable {META} in {}", dir.display())))?;
        let index = std::fs::read(dir.join(INDEX_FILE)).map_err(store_err)?;
        let full = std::fs::read(dir.join(FULL_FILE)).map_err(store_err)?;
        let catalog = Catalog::open(
            &decode(&index),
            decode(&full),
            &meta.source,
            &dir.join(INDEX_DIR),
        )
        .map_err(|e| DocsError::store("TantivyError", e))?;
        Ok((meta, catalog))
    }

    /// Install a fetch (building its version unless present) and point `current.json` at it.
    pub fn install(&self, fetched: &Fetched) -> Result<Installed, DocsError> {
        std::fs::create_dir_all(&self.root).map_err(store_err)?;
        let version = Self::version_of(fetched);
        let dir = self.version_dir(&version);
        let mut reused = self.meta(&version).is_some();
        if !reused {
            let _ = std::fs::remove_dir_all(&dir);
            self.build(fetched, &dir)?;
        }
        let now = now_secs();
        let previous = self.pointer().filter(|p| p.version == version);
        let pointer = Pointer {
            version: version.clone(),
            source: fetched.base.clone(),
            synced_at: previous.map(|p| p.synced_at).unwrap_or(now),
            checked_at: now,
        };
        let opened = self.open(&pointer);
        let (meta, catalog) = match opened {
            Ok(x) => x,
            Err(_) if reused => {
                // A damaged version: rebuild it once.
                reused = false;
                let _ = std::fs::remove_dir_all(&dir);
                self.build(fetched, &dir)?;
                self.open(&pointer)?
            }
            Err(e) => return Err(e),
        };
        self.write_pointer(&pointer)?;
        self.gc(&version);
        Ok(Installed {
            pointer,
            meta,
            catalog,
            reused,
        })
    }

    /// `<prefix>-<pid>-<nanos>` in the root: a name no other process or build is using.
    fn tmp_path(&self, prefix: &str) -> PathBuf {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        self.root
            .join(format!("{prefix}-{}-{nanos}", std::process::id()))
    }

    fn build(&self, fetched: &Fetched, dir: &Path) -> Result<(), DocsError> {
        let tmp = self.tmp_path("tmp");
        let result = (|| {
            std::fs::create_dir_all(tmp.join(INDEX_DIR)).map_err(store_err)?;
            std::fs::write(tmp.join(INDEX_FILE), &fetched.index).map_err(store_err)?;
            std::fs::write(tmp.join(FULL_FILE), &fetched.full).map_err(store_err)?;
            let catalog = Catalog::build(
                &decode(&fetched.index),
                decode(&fetched.full),
                &fetched.base,
                Some(&tmp.join(INDEX_DIR)),
            )
            .map_err(|e| DocsError::store("TantivyError", e))?;
            let meta = Meta {
                format: FORMAT,
                source: fetched.base.clone(),
                llms_txt: file_meta(&fetched.base, INDEX_FILE, &fetched.index),
                llms_full_txt: file_meta(&fetched.base, FULL_FILE, &fetched.full),
                pages: catalog.pages.len(),
                lines: catalog.lines(),
                built_at: now_secs(),
            };
            drop(catalog);
            let text = serde_json::to_vec_pretty(&meta).map_err(store_err)?;
            std::fs::write(tmp.join(META), text).map_err(store_err)?;
            match std::fs::rename(&tmp, dir) {
                Ok(()) => Ok(()),
                // Another process installed the same version first: theirs is as good.
                Err(_)
                    if self
                        .meta(&dir.file_name().unwrap_or_default().to_string_lossy())
                        .is_some() =>
                {
                    Ok(())
                }
                Err(e) => Err(store_err(e)),
            }
        })();
        let _ = std::fs::remove_dir_all(&tmp);
        result
    }

    pub fn write_pointer(&self, pointer: &Pointer) -> Result<(), DocsError> {
        let tmp = self.tmp_path(&format!("{POINTER}.tmp"));
        let text = serde_json::to_vec_pretty(pointer).map_err(store_err)?;
        std::fs::write(&tmp, text).map_err(store_err)?;
        std::fs::rename(&tmp, self.root.join(POINTER)).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            store_err(e)
        })
    }

    /// Record that the source answered with the installed version just now.
    pub fn touch(&self, version: &str) -> Result<(), DocsError> {
        match self.pointer() {
            Some(mut p) if p.version == version => {
                p.checked_at = now_secs();
                self.write_pointer(&p)
            }
            _ => Ok(()),
        }
    }

    /// Remove versions other than `keep` untouched for a day, and abandoned builds.
    fn gc(&self, keep: &str) {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let age = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .unwrap_or_default();
            let stale = (name.starts_with("v-") && name != keep && age > STALE_VERSION)
                || (name.starts_with("tmp-") && age > STALE_TMP);
            if stale {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

fn file_meta(base: &str, file: &str, bytes: &[u8]) -> FileMeta {
    FileMeta {
        url: format!("{base}/{file}"),
        bytes: bytes.len() as u64,
        blake3: blake3::hash(bytes).to_hex().to_string(),
    }
}
