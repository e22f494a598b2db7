//! The corpus a running server answers from: the installed version, reloaded when another
//! process (a `printdex pz docs sync`, another server) moves `current.json`; synced in the
//! foreground only when nothing was ever synced (bounded by the fetch timeout), and refreshed
//! in the background once older than the configured age, so a tool call never waits on the
//! network for a corpus it already has.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::disk::{now_secs, Installed, Pointer, Stamp, Store};
use super::fetch::{self, DEFAULT_BASE, DEFAULT_TIMEOUT};
use super::Catalog;
use crate::error::pz::DocsError;
use crate::error::Recover;

/// Default age past which a synced corpus is refreshed in the background.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(24 * 3600);
/// Longest wait before retrying a refresh that failed.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(300);

#[derive(Debug, Clone)]
pub struct DocsConfig {
    /// The docs index directory (see `disk`).
    pub root: PathBuf,
    /// `PZ_DOCS_URL` when set: where to sync and refresh from. Otherwise the source of the
    /// last sync, else the public site.
    pub source: Option<String>,
    pub timeout: Duration,
    /// Refresh once the last check is older than this; `None` never refreshes by itself.
    pub max_age: Option<Duration>,
}

impl DocsConfig {
    /// The defaults a server starts with: the cache directory and `PZ_DOCS_URL`.
    pub fn from_env() -> DocsConfig {
        DocsConfig {
            root: super::disk::default_root(),
            source: std::env::var("PZ_DOCS_URL").ok(),
            timeout: DEFAULT_TIMEOUT,
            max_age: Some(DEFAULT_MAX_AGE),
        }
    }
}

struct Loaded {
    stamp: Option<Stamp>,
    pointer: Pointer,
    catalog: Arc<Catalog>,
}

pub struct DocsService {
    cfg: DocsConfig,
    store: Store,
    loaded: RwLock<Option<Arc<Loaded>>>,
    /// Serializes foreground syncs so concurrent first calls fetch once.
    sync: Mutex<()>,
    refreshing: AtomicBool,
    retry_at: Mutex<Option<Instant>>,
}

/// Fetch from `base` and install it: what `printdex pz docs sync` does.
pub fn sync(store: &Store, base: &str, timeout: Duration) -> Result<Installed, DocsError> {
    let fetched = fetch::fetch(base, timeout)?;
    store.install(&fetched)
}

impl DocsService {
    pub fn new(cfg: DocsConfig) -> Arc<DocsService> {
        let store = Store::at(cfg.root.clone());
        Arc::new(DocsService {
            cfg,
            store,
            loaded: RwLock::new(None),
            sync: Mutex::new(()),
            refreshing: AtomicBool::new(false),
            retry_at: Mutex::new(None),
        })
    }

    pub fn config(&self) -> &DocsConfig {
        &self.cfg
    }

    /// Where a sync or refresh would fetch from now.
    pub fn source(&self) -> String {
        if let Some(s) = &self.cfg.source {
            return s.trim_end_matches('/').to_string();
        }
        self.loaded()
            .map(|l| l.pointer.source.clone())
            .or_else(|| self.store.pointer().map(|p| p.source))
            .unwrap_or_else(|| DEFAULT_BASE.to_string())
    }

    fn loaded(&self) -> Option<Arc<Loaded>> {
        self.loaded.read().ok().and_then(|g| g.clone())
    }

    fn set_loaded(&self, loaded: Loaded) -> Arc<Loaded> {
        let loaded = Arc::new(loaded);
        if let Ok(mut g) = self.loaded.write() {
            *g = Some(loaded.clone());
        }
        loaded
    }

    /// Load (or reload, when `current.json` moved) the installed version, without network.
    fn current(&self) -> Option<Arc<Loaded>> {
        let stamp = self.store.stamp();
        let have = self.loaded();
        if let Some(l) = &have {
            if stamp.is_none() || l.stamp == stamp {
                return have;
            }
        }
        let Some(pointer) = self.store.pointer() else {
            return have;
        };
        if let Some(l) = &have {
            if l.pointer.version == pointer.version {
                return Some(self.set_loaded(Loaded {
                    stamp,
                    pointer,
                    catalog: l.catalog.clone(),
                }));
            }
        }
        match self.store.open(&pointer) {
            Ok((_, catalog)) => Some(self.set_loaded(Loaded {
                stamp,
                pointer,
                catalog: Arc::new(catalog),
            })),
            Err(e) => {
                tracing::warn!("pz docs index {} unusable: {e}", pointer.version);
                have
            }
        }
    }

    /// Load what is installed and start a refresh if it is stale; no foreground network.
    pub fn warm(self: &Arc<Self>) {
        if let Some(l) = self.current() {
            self.maybe_refresh(&l);
        }
    }

    /// The corpus to answer from. Only when none was ever synced does this fetch, in the
    /// foreground and within the fetch timeout; that failing is the tool's error.
    pub fn catalog(self: &Arc<Self>) -> Result<Arc<Catalog>, DocsError> {
        if let Some(l) = self.current() {
            self.maybe_refresh(&l);
            return Ok(l.catalog.clone());
        }
        let _guard = self.sync.lock().recover();
        if let Some(l) = self.current() {
            return Ok(l.catalog.clone());
        }
        let installed = sync(&self.store, &self.source(), self.cfg.timeout)?;
        let loaded = self.install_loaded(installed);
        Ok(loaded.catalog.clone())
    }

    fn install_loaded(&self, installed: Installed) -> Arc<Loaded> {
        self.set_loaded(Loaded {
            stamp: self.store.stamp(),
            pointer: installed.pointer,
            catalog: Arc::new(installed.catalog),
        })
    }

    fn maybe_refresh(self: &Arc<Self>, loaded: &Loaded) {
        let Some(max_age) = self.cfg.max_age else {
            return;
        };
        let age = Duration::from_secs(now_secs().saturating_sub(loaded.pointer.checked_at));
        if age < max_age {
            return;
        }
        if let Ok(r) = self.retry_at.lock() {
            if r.is_some_and(|t| Instant::now() < t) {
                return;
            }
        }
        if self.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let me = Arc::clone(self);
        let version = loaded.pointer.version.clone();
        let spawned = std::thread::Builder::new()
            .name("pz-docs-refresh".into())
            .spawn(move || {
                me.refresh(&version, max_age);
                me.refreshing.store(false, Ordering::Release);
            });
        if spawned.is_err() {
            self.refreshing.store(false, Ordering::Release);
        }
    }

    fn refresh(&self, version: &str, max_age: Duration) {
        let source = self.source();
        let result = fetch::fetch(&source, self.cfg.timeout).and_then(|fetched| {
            if Store::version_of(&fetched) == version {
                self.store.touch(version)
            } else {
                let installed = self.store.install(&fetched)?;
                tracing::info!(
                    "pz docs refreshed from {source}: {} ({} pages)",
                    installed.pointer.version,
                    installed.meta.pages
                );
                self.install_loaded(installed);
                Ok(())
            }
        });
        match result {
            Ok(()) => {
                if let Ok(mut r) = self.retry_at.lock() {
                    *r = None;
                }
            }
            Err(e) => {
                tracing::warn!("pz docs refresh from {source} failed: {e}");
                if let Ok(mut r) = self.retry_at.lock() {
                    *r = Some(Instant::now() + max_age.min(MAX_RETRY_DELAY));
                }
            }
        }
    }
}
