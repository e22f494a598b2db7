//! The portable backend: notify's recommended watcher (FSEvents, ReadDirectoryChangesW,
//! kqueue, or inotify through notify) recording into the log from notify's thread.
//! Events arrive there some time after the change, so a poll is a barrier: it rewrites a
//! sentinel file in the feed's own directory, watched by the same watcher, and waits
//! until that event arrives; whatever the watcher queued before the sentinel has then
//! been recorded. A barrier that does not arrive in time leaves the feed unable to vouch
//! for anything (the caller sweeps).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use notify::event::{CreateKind, EventKind, ModifyKind, RemoveKind};
use notify::{RecursiveMode, Watcher};

use super::{Log, Since};
use crate::error::Recover;

/// How long a poll waits for its sentinel before giving up on the feed for that call.
const BARRIER_WAIT: Duration = Duration::from_millis(250);

#[derive(Default)]
struct Recorded {
    log: Log,
    /// Sentinel events seen so far.
    barriers: u64,
    /// A barrier timed out: until the next one arrives, nothing is vouched for.
    lagging: bool,
    /// Something other than a barrier arrived since the last poll.
    stirred: bool,
}

struct Shared {
    recorded: Mutex<Recorded>,
    arrived: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.recorded.lock().recover()
    }
}

pub(super) struct PortableFeed {
    shared: Arc<Shared>,
    sentinel: PathBuf,
    /// One poll at a time, so a barrier's event is the one its own write made.
    polling: Mutex<()>,
    complete: AtomicBool,
    _watcher: notify::RecommendedWatcher,
}

impl PortableFeed {
    pub(super) fn watch(roots: &[PathBuf], private: &Path) -> Option<PortableFeed> {
        let dir = private.join("change-feed");
        std::fs::create_dir_all(&dir).ok()?;
        let sentinel = dir.join("barrier");
        std::fs::write(&sentinel, b"0").ok()?;
        let shared = Arc::new(Shared {
            recorded: Mutex::new(Recorded::default()),
            arrived: Condvar::new(),
        });
        let handler = {
            let shared = shared.clone();
            let sentinel = sentinel.clone();
            move |event: notify::Result<notify::Event>| record(&shared, &sentinel, event)
        };
        let mut watcher = notify::recommended_watcher(handler).ok()?;
        watcher.watch(&dir, RecursiveMode::NonRecursive).ok()?;
        let mut complete = true;
        for root in roots {
            if watcher.watch(root, RecursiveMode::Recursive).is_err() {
                complete = false;
            }
        }
        let feed = PortableFeed {
            shared,
            sentinel,
            polling: Mutex::new(()),
            complete: AtomicBool::new(complete),
            _watcher: watcher,
        };
        // Whatever setting up queued is behind us.
        feed.poll();
        Some(feed)
    }

    pub(super) fn complete(&self) -> bool {
        self.complete.load(Ordering::Relaxed)
    }

    pub(super) fn poll(&self) -> u64 {
        let _one = self.polling.lock().recover();
        let before = self.shared.lock().barriers;
        let token = (before + 1).to_string();
        if std::fs::write(&self.sentinel, token).is_err() {
            self.complete.store(false, Ordering::Relaxed);
            return self.shared.lock().log.epoch;
        }
        let mut recorded = self.shared.lock();
        recorded.stirred = false;
        let (mut recorded, waited) = self
            .shared
            .arrived
            .wait_timeout_while(recorded, BARRIER_WAIT, |r| r.barriers == before)
            .recover();
        recorded.lagging = waited.timed_out();
        recorded.log.epoch
    }

    pub(super) fn stirred(&self) -> bool {
        self.shared.lock().stirred
    }

    pub(super) fn since(&self, epoch: u64) -> Since {
        let recorded = self.shared.lock();
        if recorded.lagging {
            return Since::Unknown;
        }
        recorded.log.since(epoch)
    }
}

/// notify's thread: one event into the log, or the barrier's arrival.
fn record(shared: &Shared, sentinel: &Path, event: notify::Result<notify::Event>) {
    let mut recorded = shared.lock();
    let event = match event {
        Ok(event) => event,
        Err(_) => {
            recorded.log.record(vec![None]);
            recorded.stirred = true;
            return;
        }
    };
    if event.paths.iter().any(|p| p == sentinel) {
        recorded.barriers += 1;
        recorded.lagging = false;
        drop(recorded);
        shared.arrived.notify_all();
        return;
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return;
    }
    recorded.stirred = true;
    if event.need_rescan() || event.paths.is_empty() {
        recorded.log.record(vec![None]);
        return;
    }
    // A path is named only when it surely is a file; a directory made, removed or
    // renamed (or a rename whose far side is gone) leaves what happened inside unknown.
    let kind_says_file = matches!(
        event.kind,
        EventKind::Create(CreateKind::File)
            | EventKind::Remove(RemoveKind::File)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Metadata(_))
    );
    let batch = event
        .paths
        .into_iter()
        .map(|p| (kind_says_file || p.is_file()).then_some(p))
        .collect();
    recorded.log.record(batch);
}
