//! A start's head: a large connection's start reads every file it tracks against the
//! mirror (seconds at 100,000 tables; less from its image, `image`), but the calls that
//! read the manifest alone (list_tables, get_manifest), or the manifest and files taken
//! as they are now (get_diff, resources/read: `Reads::CurrentFiles`), need none of that.
//! A server's start therefore answers them from a *head* first, when it can: the walkable
//! manifest the last reconcile kept in `derived/`, read back when the manifest and the
//! walk for symlinks are as that reconcile found them (the manifest's settled identity is
//! the stored row's, and every directory and link the walk met is as it was). When the
//! start's image is kept for the rows as they are, and no connection-level file moved, the
//! head holds the image's content digests too, and answers a table's context
//! (`Reads::TableArtifacts`): each file it reads is taken as the mirror's row holds it,
//! as the start's reconcile would take it, and checked against the disk as it is read.
//! The start's reconcile then runs on a thread of its own; any other call waits for it,
//! and the head is never a base for a write (it is not published: `Store::current` never
//! returns it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::cache::Key;
use super::derived::{connection_scope, DerivedDir, Kept};
use super::file_map::{ContentHash, FileMap};
use super::{image, Shared, Snapshot, Store};
use crate::config::ConnectionConfig;
use crate::error::Recover;
use crate::ingest::walk::WalkMemo;
use crate::ingest::{self, KeptManifest, ManifestRead, MANIFEST_FILENAME};

/// The walkable manifest a reconcile kept, with what decided it: the manifest's content
/// hash and the outcome of the walk for symlinks it was cut by.
#[derive(Serialize, Deserialize)]
struct KeptHead {
    manifest_hash: String,
    walk_outcome: [u8; 32],
    manifest: KeptManifest,
}

impl Kept for KeptHead {
    const ENCODING: u32 = 1;
}

/// One value per connection and print root: the newest reconcile's.
fn scope(conn: &ConnectionConfig) -> Key {
    connection_scope("walkable manifest", conn)
}

fn key(manifest_hash: &str, walk_outcome: &[u8; 32]) -> Key {
    Key::new(
        "walkable manifest",
        [manifest_hash.as_bytes(), walk_outcome.as_slice()],
    )
}

/// A connection's head: a snapshot of its manifest alone, and the outcome of the walk
/// for symlinks its manifest was cut by (the start's reconcile takes both as read).
#[derive(Clone)]
pub(super) struct Head {
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) walk_outcome: [u8; 32],
    /// The search view's stamp kept with the image's digests, when the head read them.
    pub(super) kept_view: Option<[u8; 32]>,
    /// The key of the image whose digests the head read (see `searched_files`).
    pub(super) image_key: Option<Key>,
}

/// The connections whose start's reconcile is under way, each with its head when it has
/// one; a call waits on `ended` for the reconcile. Also the threads writing heads for the
/// next start, which closing waits for.
#[derive(Default)]
pub(super) struct Starting {
    pending: Mutex<HashMap<String, Option<Head>>>,
    ended: Condvar,
    keeping: Mutex<Vec<std::thread::JoinHandle<()>>>,
    /// The walk memos the heads checked, by connection, until the change feed takes them.
    walks: Mutex<HashMap<String, WalkMemo>>,
    /// How many searches took the sweep they made beside a start (`searched_files`).
    swept_beside: AtomicU64,
}

impl Starting {
    /// `name`'s start is under way, answering the reads a head answers from `head`.
    pub(super) fn begin(&self, name: &str, head: Option<Head>) {
        self.pending.lock().recover().insert(name.to_string(), head);
    }

    /// The walk `name`'s head checked, for the change feed to follow.
    pub(super) fn walked(&self, name: &str, walk: WalkMemo) {
        self.walks.lock().recover().insert(name.to_string(), walk);
    }

    /// The walks the heads checked, taken: the change feed's set-up follows them (a
    /// memo decoded is 60-200 ms at 100,000 tables; any memo the mirror held will do,
    /// since a directory whose identity moved since its walk is read again).
    pub(super) fn take_walks(&self) -> HashMap<String, WalkMemo> {
        std::mem::take(&mut *self.walks.lock().recover())
    }

    /// A search took the sweep it made beside a start.
    pub(super) fn swept_beside(&self) {
        self.swept_beside.fetch_add(1, Ordering::Relaxed);
    }

    /// `name`'s start ended (published, or failed: a call then reconciles itself).
    pub(super) fn end(&self, name: &str) {
        self.pending.lock().recover().remove(name);
        self.ended.notify_all();
    }

    /// For a call on `name` while its start is under way: its head, when it answers what
    /// the call reads (`head_answers`) and the manifest is as the head holds it;
    /// otherwise, once the start has ended, `None` (the call reads the published snapshot).
    pub(super) fn head_or_wait(
        &self,
        name: &str,
        head_answers: impl Fn(&Snapshot) -> bool,
    ) -> Option<Arc<Snapshot>> {
        let mut pending = self.pending.lock().recover();
        loop {
            let head = match pending.get(name) {
                None => return None,
                Some(head) => head.clone(),
            };
            if let Some(head) = head.map(|h| h.snapshot).filter(|h| head_answers(h)) {
                drop(pending);
                if head.manifest_unchanged() {
                    return Some(head);
                }
                pending = self.pending.lock().recover();
                // The manifest moved: this head answers no call any more.
                if let Some(slot) = pending.get_mut(name) {
                    *slot = None;
                }
                continue;
            }
            pending = self.ended.wait(pending).recover();
        }
    }

    /// `name`'s head while its start is under way, for the start's reconcile to take as
    /// read (it checks the manifest is still as stored).
    pub(super) fn head(&self, name: &str) -> Option<Head> {
        self.pending.lock().recover().get(name).cloned().flatten()
    }

    /// `thread` writes what the next start reads (a head, an image): closing waits for it.
    pub(super) fn keeping(&self, thread: std::thread::JoinHandle<()>) {
        let mut threads = self.keeping.lock().recover();
        threads.retain(|t| !t.is_finished());
        threads.push(thread);
    }

    /// Wait, at most `bound`, for every start under way to end, then for the heads being
    /// written (a process that ends mid-write leaves no head, only a slower next start).
    pub(super) fn wait_all(&self, bound: Duration) {
        let pending = self.pending.lock().recover();
        let _ = self
            .ended
            .wait_timeout_while(pending, bound, |p| !p.is_empty());
        let keeping = std::mem::take(&mut *self.keeping.lock().recover());
        keeping.into_iter().for_each(|k| drop(k.join()));
    }
}

impl Store {
    /// `conn`'s head on `shared`: the walkable manifest the last reconcile kept, when the
    /// manifest and the walk for symlinks are as that reconcile found them; `None`
    /// otherwise (the start reconciles before it serves). With it, the walk's memo it
    /// checked (the change feed follows it rather than decoding it again:
    /// `Starting::walked`).
    pub(super) fn head_of(
        shared: &Arc<Shared>,
        conn: &ConnectionConfig,
    ) -> Option<(Head, WalkMemo)> {
        let started = std::time::Instant::now();
        let path = conn.print_root.join(MANIFEST_FILENAME);
        let derived = DerivedDir::in_location(&shared.dir);
        // The walk's memo (every directory below the root) is checked beside reading the
        // kept manifest back.
        let (outcome, kept) = std::thread::scope(|scope| {
            let walk = scope.spawn(|| {
                let memo = shared.mirror.walk_memo(&conn.name)?;
                let decoded = started.elapsed();
                let holds = memo.holds();
                tracing::debug!(?decoded, checked = ?started.elapsed(), "the walk's memo checked");
                holds.then(|| (memo.outcome(), memo))
            });
            let kept = derived.load_in_scope::<KeptHead>(&self::scope(conn));
            tracing::debug!(elapsed = ?started.elapsed(), "the kept manifest read back");
            (walk.join().ok().flatten(), kept)
        });
        let ((outcome, walk), kept) = (outcome?, kept?);
        let identity = ingest::identity(&path).filter(|id| id.settled)?;
        let stored = shared.mirror.status(&path).ok()??;
        let hash = stored.hash.filter(|_| stored.identity == Some(identity))?;
        if kept.manifest_hash != hash || kept.walk_outcome != outcome {
            tracing::debug!(connection = %conn.name, "the kept manifest is of another manifest or walk");
            return None;
        }
        let (doc, dropped) = kept.manifest.into_manifest()?;
        let mut files = FileMap::default();
        files.set(&path, Some(identity), ContentHash::from_hex(&hash));
        let generation = shared.mirror.generation(&conn.name).ok()?;
        // With the image's digests, the head answers a table's context too.
        let (image_key, digests) =
            image::kept_digests(shared, conn, generation, &files, outcome).unzip();
        let snapshot = Snapshot {
            config: conn.clone(),
            manifest: ManifestRead::Ok { doc, dropped },
            manifest_identity: Some(identity),
            search: shared.index.empty_view(&conn.name),
            files,
            rows_beyond_map: digests.is_some(),
            walk_outcome: Some(outcome),
            versions: digests
                .as_ref()
                .map(|d| d.versions.clone())
                .unwrap_or_default(),
            generation,
            shared: shared.clone(),
        };
        tracing::debug!(connection = %conn.name, elapsed = ?started.elapsed(), "head read back");
        let head = Head {
            snapshot: Arc::new(snapshot),
            walk_outcome: outcome,
            kept_view: digests.and_then(|d| d.view),
            image_key,
        };
        Some((head, walk))
    }

    /// Keep `conn`'s walkable manifest, as a reconcile on `shared` left it (`files`: what
    /// it tracks), for the next start's head, off the caller's path, unless it is kept
    /// already. `walk_outcome`: the outcome of the walk it was cut by.
    pub(super) fn keep_head(
        &self,
        shared: &Shared,
        conn: &ConnectionConfig,
        (manifest, files): (&ManifestRead, &FileMap),
        walk_outcome: Option<[u8; 32]>,
    ) {
        let (Some(walk_outcome), ManifestRead::Ok { doc, dropped }) = (walk_outcome, manifest)
        else {
            return;
        };
        let path = conn.print_root.join(MANIFEST_FILENAME);
        let Some(hash) = files.hash(&path).map(|h| h.to_string()) else {
            return;
        };
        let derived = DerivedDir::in_location(&shared.dir);
        let (scope, key) = (scope(conn), key(&hash, &walk_outcome));
        if derived.holds(&scope, &key) {
            return;
        }
        // Its entries are shared, not copied, until the thread packs them.
        let (doc, dropped) = (doc.clone(), dropped.clone());
        let keeping = std::thread::spawn(move || {
            let Some(manifest) = doc.to_kept(&dropped) else {
                return;
            };
            let kept = KeptHead {
                manifest_hash: hash,
                walk_outcome,
                manifest,
            };
            derived.save(&scope, &key, &kept);
        });
        self.starting.keeping(keeping);
    }
}

impl Store {
    /// The reconciles `open_serving` deferred, each ended as it is published (or fails: a
    /// call then reconciles itself), even should one panic; then the change feed, when
    /// `watch`.
    pub(super) fn finish_starts(&self, deferred: Vec<ConnectionConfig>, watch: bool) {
        struct EndOnDrop<'a>(&'a Starting, Vec<String>);
        impl Drop for EndOnDrop<'_> {
            fn drop(&mut self) {
                self.1.iter().for_each(|name| self.0.end(name));
            }
        }
        let _unended = EndOnDrop(
            &self.starting,
            deferred.iter().map(|c| c.name.clone()).collect(),
        );
        // Set before any start ends, so no call that waited for one sweeps before it.
        self.feed_coming
            .store(watch, std::sync::atomic::Ordering::SeqCst);
        for conn in deferred {
            let started = std::time::Instant::now();
            let reconciled = self.write(|shared, lock| {
                self.reconcile_locked(shared, &conn, &|_, _| {}, super::Look::Trusting, lock)
            });
            if let Err(e) = reconciled {
                tracing::warn!(connection = %conn.name, "a start's reconcile failed: {e}");
            }
            tracing::debug!(connection = %conn.name, elapsed = ?started.elapsed(), "start ended");
            self.starting.end(&conn.name);
        }
        if watch {
            self.watch_changes();
        }
    }
}

#[cfg(test)]
impl Store {
    /// Leave `name` as a server's start leaves it while its reconcile is under way,
    /// answering from the head the last reconcile kept, until [`Store::end_start`]; for
    /// tests of what a head answers. `false`: no head could be had.
    pub fn begin_start(&self, name: &str) -> bool {
        self.starting.wait_all(Duration::from_secs(10));
        let shared = self.shared();
        let conn = self.served.connections.iter().find(|c| c.name == name);
        let head = conn.and_then(|conn| Store::head_of(&shared, conn).map(|(head, _)| head));
        let had = head.is_some();
        self.starting.begin(name, head);
        had
    }

    /// How many searches took the sweep they made beside a start.
    pub fn searches_swept_beside_start(&self) -> u64 {
        self.starting.swept_beside.load(Ordering::Relaxed)
    }

    /// `name`'s start begun by [`Store::begin_start`] ended.
    pub fn end_start(&self, name: &str) {
        self.starting.end(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_without_a_head_waits_for_the_start_and_one_after_it_does_not() {
        let starting = Arc::new(Starting::default());
        assert!(
            starting.head_or_wait("c", |_| true).is_none(),
            "no start under way"
        );
        starting.begin("c", None);
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ender = {
            let (starting, ended) = (starting.clone(), ended.clone());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                ended.store(true, std::sync::atomic::Ordering::SeqCst);
                starting.end("c");
            })
        };
        assert!(starting.head_or_wait("c", |_| true).is_none());
        assert!(
            ended.load(std::sync::atomic::Ordering::SeqCst),
            "the call waited for the start's end"
        );
        ender.join().unwrap();
        starting.begin("d", None);
        starting.end("d");
        starting.wait_all(Duration::from_secs(5));
        assert!(starting.pending.lock().recover().is_empty());
    }
}
