//! The portable backend: notify's recommended watcher (FSEvents, ReadDirectoryChangesW,
//! kqueue, or inotify through notify) recording into the log from notify's thread.
//! Events arrive there some time after the change, so a poll is a barrier: it makes a
//! sentinel file of its own in the feed's directory, watched by the same watcher, and
//! waits until an event naming that file arrives; whatever the watcher queued before the
//! sentinel has then been recorded. A barrier that does not arrive in time leaves the
//! feed unable to vouch for anything (the caller sweeps).
//!
//! Each poll's sentinel has its own name (this process's id and the poll's number):
//! one write makes several events (its creation, the data, the close), and with one
//! sentinel rewritten for every poll, a late event of the previous poll's write, or
//! another process's on the same index, ended a poll before the events queued ahead of
//! its own write were recorded, and an edit went unseen.

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
    /// The highest poll number whose sentinel's event has arrived.
    barrier_seen: u64,
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
    /// The feed's directory, where the sentinels are made.
    dir: PathBuf,
    /// One poll at a time; the number of the last one.
    polling: Mutex<u64>,
    complete: AtomicBool,
    _watcher: notify::RecommendedWatcher,
}

impl PortableFeed {
    pub(super) fn watch(roots: &[PathBuf], private: &Path) -> Option<PortableFeed> {
        let dir = private.join("change-feed");
        std::fs::create_dir_all(&dir).ok()?;
        remove_stale_sentinels(&dir);
        let shared = Arc::new(Shared {
            recorded: Mutex::new(Recorded::default()),
            arrived: Condvar::new(),
        });
        let handler = {
            let shared = shared.clone();
            let dir = dir.clone();
            move |event: notify::Result<notify::Event>| record(&shared, &dir, event)
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
            dir,
            polling: Mutex::new(0),
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
        let mut last = self.polling.lock().recover();
        let this = *last + 1;
        *last = this;
        let sentinel = self.dir.join(sentinel_name(this));
        if std::fs::write(&sentinel, b"").is_err() {
            self.complete.store(false, Ordering::Relaxed);
            return self.shared.lock().log.epoch;
        }
        // The poll before this one's: its events, late or not, no longer end a poll.
        let _ = std::fs::remove_file(self.dir.join(sentinel_name(this - 1)));
        let mut recorded = self.shared.lock();
        recorded.stirred = false;
        let (mut recorded, waited) = self
            .shared
            .arrived
            .wait_timeout_while(recorded, BARRIER_WAIT, |r| r.barrier_seen < this)
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
/// What this process's sentinels' names begin with.
fn own_sentinels() -> String {
    format!("barrier-{}-", std::process::id())
}

/// The name of this process's sentinel for poll `n`.
fn sentinel_name(n: u64) -> String {
    format!("{}{n}", own_sentinels())
}

/// The poll number `path` names when it is one of this process's sentinels in `dir`.
fn sentinel_number(dir: &Path, path: &Path) -> Option<u64> {
    if path.parent() != Some(dir) {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    name.strip_prefix(&own_sentinels())?.parse().ok()
}

/// Sentinels left by processes that ended without removing theirs (a live one makes a
/// new one at each poll), and the single sentinel of earlier versions.
fn remove_stale_sentinels(dir: &Path) {
    const STALE: Duration = Duration::from_secs(3600);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str().filter(|n| n.starts_with("barrier")) else {
            continue;
        };
        let age = (entry.metadata().and_then(|m| m.modified()))
            .ok()
            .and_then(|t| t.elapsed().ok());
        if name == "barrier" || age.is_some_and(|a| a > STALE) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

impl Drop for PortableFeed {
    fn drop(&mut self) {
        let last = *self.polling.lock().recover();
        let _ = std::fs::remove_file(self.dir.join(sentinel_name(last)));
    }
}

fn record(shared: &Shared, dir: &Path, event: notify::Result<notify::Event>) {
    let mut recorded = shared.lock();
    let event = match event {
        Ok(event) => event,
        Err(_) => {
            recorded.log.record(vec![None]);
            recorded.stirred = true;
            return;
        }
    };
    // A sentinel's event: this process's polls up to its number are behind us. Another
    // process's sentinels (on the same index) say nothing of this watcher's queue.
    let own = event
        .paths
        .iter()
        .filter_map(|p| sentinel_number(dir, p))
        .max();
    if let Some(n) = own {
        if n > recorded.barrier_seen {
            recorded.barrier_seen = n;
            recorded.lagging = false;
        }
        drop(recorded);
        shared.arrived.notify_all();
        return;
    }
    if event.paths.iter().any(|p| p.parent() == Some(dir)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::DataChange;

    fn written(path: &Path) -> notify::Result<notify::Event> {
        Ok(
            notify::Event::new(EventKind::Modify(ModifyKind::Data(DataChange::Any)))
                .add_path(path.into()),
        )
    }

    #[test]
    fn only_this_processs_newer_sentinels_end_a_poll_and_no_sentinel_is_a_change() {
        let shared = Shared {
            recorded: Mutex::new(Recorded::default()),
            arrived: Condvar::new(),
        };
        let dir = Path::new("/index/change-feed");
        let edited = Path::new("/print/stacks/loans/statistics.yaml");
        record(&shared, dir, written(&dir.join(sentinel_name(2))));
        assert_eq!(shared.lock().barrier_seen, 2);
        // A late event of an earlier poll's sentinel, another process's, and the single
        // sentinel of earlier versions: none ends a poll waiting for its own (3).
        record(&shared, dir, written(&dir.join(sentinel_name(1))));
        let other = format!("barrier-{}-9", std::process::id() + 1);
        record(&shared, dir, written(&dir.join(other)));
        record(&shared, dir, written(&dir.join("barrier")));
        assert_eq!(shared.lock().barrier_seen, 2);
        assert_eq!(shared.lock().log.since(0), Since::Nothing);
        // An edit is recorded.
        record(&shared, dir, written(edited));
        assert_eq!(
            shared.lock().log.since(0),
            Since::Files(vec![edited.to_path_buf()])
        );
        assert_eq!(sentinel_number(dir, &dir.join(sentinel_name(7))), Some(7));
        assert_eq!(
            sentinel_number(Path::new("/elsewhere"), &dir.join(sentinel_name(7))),
            None
        );
    }
}
