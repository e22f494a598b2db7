//! A start's image: what a start's reconcile makes of the mirror (every tracked file's
//! identity and hash, the content digests over them, and every walkable table's entry
//! as the search index keys it), kept in `derived/` so that the next start need not make
//! it again. At 100,000 tables a start reads 409,094 stored rows, the manifest's 100,000
//! entries and every table's files to make what the last process made; read back, it
//! costs a fraction of that.
//!
//! The map a start's reconcile makes is decided by the mirror's rows, the manifest and
//! the walk for symlinks, and the disk only where it is asked: a start takes every settled
//! stored identity as the disk's (the catch-up checks them later), and `stat`s diff.yaml
//! and the unsettled ones. So an image is kept only when every identity in it is settled,
//! and it is named by the mirror's instance and the connection's generation (which
//! together name the rows: every write of them bumps the generation), the manifest's
//! hash and the walk's outcome (which decide the walkable tables). A start uses it when
//! its head holds, no connection-level file moved and diff.yaml is as the image holds it;
//! anything else reads the mirror as before.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cache::Key;
use super::derived::{connection_scope, DerivedDir, Kept, Texts};
use super::file_map::{ContentHash, FileMap};
use super::head::Head;
use super::lock::WriteLock;
use super::mirror::{self, MirrorError};
use super::search::{self, TableEntry};
use super::searched_files;
use super::snapshot::ContentVersions;
use super::{Ingested, Shared, Snapshot, Store};
use crate::config::ConnectionConfig;
use crate::ingest::{self, FileIdentity, DIFF_FILENAME, MANIFEST_FILENAME};
use compat::value::packed;

/// The map, digests and table entries a start's reconcile made, as kept.
#[derive(Serialize, Deserialize)]
struct KeptImage {
    /// Every tracked path, then the paths tables declare that are not tracked, one after
    /// another.
    paths: Texts,
    /// Per tracked path (the first of `paths`), its identity (`None`: stored absent).
    identities: Vec<Option<FileIdentity>>,
    /// Per tracked path, its content hash (32 bytes; zeros when it has none)...
    #[serde(with = "serde_bytes")]
    hashes: Vec<u8>,
    /// ...and whether it has one (1) or not (0): read back in one copy each, where a
    /// hash apiece costs a call per byte.
    #[serde(with = "serde_bytes")]
    hashed: Vec<u8>,
    versions: ContentVersions,
    tables: KeptTables,
    /// What the search index held when a view over `tables` was synced (`None`: none was,
    /// a rebuild's image): while it holds the same, the view is taken without syncing.
    view: Option<[u8; 32]>,
}

/// A path index standing for none.
const NO_PATH: u32 = u32::MAX;

/// Every walkable table's entry (see `search::TableEntry`), in the search view's order.
#[derive(Serialize, Deserialize, Default)]
struct KeptTables {
    fqns: Texts,
    keys: Vec<u64>,
    /// Its four indexed files, as positions in the image's `paths` (`NO_PATH`: none).
    paths: Vec<[u32; 4]>,
    row_counts: Vec<Option<RowCount>>,
}

/// A table's `row_count`: nearly always a number, kept as one; anything else packed
/// (`compat::value::packed`).
#[derive(Serialize, Deserialize)]
enum RowCount {
    Int(i64),
    Packed(Vec<u8>),
}

impl RowCount {
    fn of(value: &compat::value::Value) -> RowCount {
        match value {
            compat::value::Value::Int(n) => RowCount::Int(*n),
            other => RowCount::Packed(packed::to_bytes(other)),
        }
    }

    fn value(&self) -> Option<compat::value::Value> {
        match self {
            RowCount::Int(n) => Some(compat::value::Value::Int(*n)),
            RowCount::Packed(bytes) => packed::from_bytes(bytes).ok(),
        }
    }
}

impl Kept for KeptImage {
    const ENCODING: u32 = 5;
}

/// An image's content digests, kept beside it for a start's head (see `head`): read back
/// in a millisecond, where the image takes a few hundred. And what the search index held
/// when a view over the image's tables was last synced: a start from the image that had
/// to sync its view (the image was kept by a rebuild, without one, or the index was
/// compacted since) keeps it here, in a small file, for the next start to take.
#[derive(Serialize, Deserialize)]
pub(super) struct KeptDigests {
    pub(super) versions: ContentVersions,
    pub(super) view: Option<[u8; 32]>,
}

impl Kept for KeptDigests {
    const ENCODING: u32 = 2;
}

/// A start's image read back.
pub(super) struct Image {
    pub(super) files: FileMap,
    /// How many files `files` tracks (known before it is made).
    pub(super) tracked: usize,
    pub(super) versions: ContentVersions,
    pub(super) tables: Vec<TableEntry>,
    pub(super) view: Option<[u8; 32]>,
}

/// One value per connection and print root: the newest reconcile's.
fn scope(conn: &ConnectionConfig) -> Key {
    connection_scope("start image", conn)
}

/// One value per connection and print root, as `scope`'s.
fn digests_scope(conn: &ConnectionConfig) -> Key {
    connection_scope("start image digests", conn)
}

/// What decides the image: the rows (the mirror's instance and the connection's
/// generation), the manifest and the walk it was cut by.
struct ImageOf {
    instance: String,
    generation: u64,
    manifest_hash: ContentHash,
    walk_outcome: [u8; 32],
}

impl ImageOf {
    /// The image of `conn`'s rows at `generation`, its manifest as `files` holds it; `None`
    /// when there is nothing to name one by (no walk outcome, an untracked manifest, a
    /// mirror without an instance).
    fn new(
        shared: &Shared,
        conn: &ConnectionConfig,
        generation: u64,
        files: &FileMap,
        walk_outcome: Option<[u8; 32]>,
    ) -> Option<ImageOf> {
        Some(ImageOf {
            instance: shared.mirror.instance()?,
            generation,
            manifest_hash: files.hash(&conn.print_root.join(MANIFEST_FILENAME))?,
            walk_outcome: walk_outcome?,
        })
    }

    /// The index's version is part of it: an image's tables carry keys derived under one
    /// (`search::table_key`), which an index of another version never holds, so a start
    /// after an upgrade reconciles once and keeps a new image.
    fn key(&self) -> Key {
        Key::new(
            "start image",
            [
                crate::store::search::INDEX_VERSION.as_bytes(),
                self.instance.as_bytes(),
                &self.generation.to_le_bytes(),
                self.manifest_hash.hex().as_bytes(),
                self.walk_outcome.as_slice(),
            ],
        )
    }
}

/// Whether an image is kept for `of` (not read).
fn held(derived: &DerivedDir, conn: &ConnectionConfig, of: &ImageOf) -> bool {
    derived.holds(&scope(conn), &of.key())
}

/// Keep what `made` holds (its digests from `versions`, made only when needed) as the
/// image of `of`, unless one that reads back whole is kept already (a file kept under
/// this name may be damaged: a start that had no head never read it), or some identity
/// in it is unsettled (a start `stat`s those: what it makes of them is the disk's, not
/// the rows'). Whether the image is kept now.
fn keep(
    derived: &DerivedDir,
    conn: &ConnectionConfig,
    of: &ImageOf,
    (files, tables, view): (&FileMap, &[TableEntry], Option<[u8; 32]>),
    versions: impl FnOnce() -> ContentVersions,
) -> bool {
    let (scope, key) = (scope(conn), of.key());
    if derived.holds_whole::<KeptImage>(&scope, &key) {
        if !derived.holds(&digests_scope(conn), &key) {
            save_digests(derived, conn, &key, &versions(), view);
        }
        return true;
    }
    let versions = &versions();
    let made = Made {
        files,
        versions,
        tables,
        view,
    };
    let Some(kept) = KeptImage::of(made) else {
        return false;
    };
    let saved = derived.save(&scope, &key, &kept);
    save_digests(derived, conn, &key, versions, view);
    saved
}

/// Keep `versions` and `view` as the digests of the image `key` names.
fn save_digests(
    derived: &DerivedDir,
    conn: &ConnectionConfig,
    key: &Key,
    versions: &ContentVersions,
    view: Option<[u8; 32]>,
) {
    let versions = versions.clone();
    derived.save(&digests_scope(conn), key, &KeptDigests { versions, view });
}

/// The content digests (and view stamp) of the image kept for `conn`'s rows at
/// `generation` (`files`: a head's map, holding the manifest; `walk_outcome`: its walk's),
/// when no connection-level file moved, diff.yaml among them: what a start's reconcile
/// from that image holds, with the image's key. `None` otherwise, or when the rows moved
/// meanwhile.
pub(super) fn kept_digests(
    shared: &Shared,
    conn: &ConnectionConfig,
    generation: u64,
    files: &FileMap,
    walk_outcome: [u8; 32],
) -> Option<(Key, KeptDigests)> {
    let of = ImageOf::new(shared, conn, generation, files, Some(walk_outcome))?;
    let derived = DerivedDir::in_location(&shared.dir);
    let kept = derived.load::<KeptDigests>(&digests_scope(conn), &of.key())?;
    let rows = mirror::RowLookup(&shared.mirror);
    ingest::connection_files_unchanged(conn, &rows)?;
    let diff = conn.print_root.join(DIFF_FILENAME);
    if !ingest::unchanged_in(&rows, &diff, ingest::file_identity(&diff)) {
        return None;
    }
    let still = shared.mirror.generation(&conn.name).ok()? == generation;
    still.then_some((of.key(), kept))
}

/// The key of the image of `conn`'s rows at `generation` (`files`: holding the manifest;
/// `walk_outcome`: its walk's), whether one is kept or not: a snapshot made from an image
/// has its key.
pub(super) fn key_of(
    shared: &Shared,
    conn: &ConnectionConfig,
    generation: u64,
    files: &FileMap,
    walk_outcome: Option<[u8; 32]>,
) -> Option<Key> {
    ImageOf::new(shared, conn, generation, files, walk_outcome).map(|of| of.key())
}

/// What a reconcile made that an image keeps.
struct Made<'a> {
    files: &'a FileMap,
    versions: &'a ContentVersions,
    tables: &'a [TableEntry],
    view: Option<[u8; 32]>,
}

/// The image kept for `of`, if it reads back.
/// `known`: what the head holds of the image's files (see `KeptImage::into_image`).
fn load(
    derived: &DerivedDir,
    conn: &ConnectionConfig,
    of: &ImageOf,
    known: FileMap,
) -> Option<Image> {
    let started = std::time::Instant::now();
    let kept = derived.load::<KeptImage>(&scope(conn), &of.key())?;
    let decoded = started.elapsed();
    let image = kept.into_image(known);
    tracing::debug!(connection = %conn.name, ?decoded, total = ?started.elapsed(), "image read back");
    image
}

/// Whether `conn`'s diff.yaml is as `stored` holds it, as a start's scan would find it.
fn diff_unchanged(conn: &ConnectionConfig, stored: ingest::Known) -> bool {
    let path = conn.print_root.join(DIFF_FILENAME);
    ingest::unchanged_in(stored, &path, ingest::file_identity(&path))
}

impl KeptImage {
    /// `None`: some identity is unsettled, or a path is not UTF-8 (the mirror holds none
    /// such; a map that does is not this one's to keep).
    fn of(made: Made) -> Option<KeptImage> {
        let Made {
            files,
            versions,
            tables,
            view,
        } = made;
        let mut kept = KeptImage {
            paths: Texts::default(),
            identities: Vec::with_capacity(files.len()),
            hashes: Vec::with_capacity(32 * files.len()),
            hashed: Vec::with_capacity(files.len()),
            versions: versions.clone(),
            tables: KeptTables::default(),
            view,
        };
        // A table's paths are the map's own (shared): found by address.
        let mut at: hashbrown::HashMap<*const u8, u32> =
            hashbrown::HashMap::with_capacity(files.len());
        for (path, tracked) in files.iter() {
            if tracked.identity.is_some_and(|id| !id.settled) {
                return None;
            }
            let n = kept.paths.push(path.to_str()?)?;
            at.insert(Arc::as_ptr(path).cast::<u8>(), n);
            kept.identities.push(tracked.identity);
            let hash = tracked.hash.map(|h| *h.as_bytes());
            kept.hashes.extend_from_slice(&hash.unwrap_or_default());
            kept.hashed.push(u8::from(hash.is_some()));
        }
        let t = &mut kept.tables;
        for table in tables {
            let mut paths = [NO_PATH; 4];
            for (slot, path) in paths.iter_mut().zip(table.indexed_shared()) {
                if let Some(path) = path {
                    *slot = match at.get(&Arc::as_ptr(path).cast::<u8>()) {
                        Some(&n) => n,
                        None => kept.paths.push(path.to_str()?)?,
                    };
                }
            }
            t.fqns.push(&table.fqn)?;
            t.keys.push(table.key);
            t.paths.push(paths);
            t.row_counts
                .push(table.row_count.as_ref().map(RowCount::of));
        }
        Some(kept)
    }

    /// `None`: the parts do not agree (a file of another shape).
    ///
    /// `known`: entries the image's map holds as they are there (see
    /// `FileMap::made_later`).
    fn into_image(self, known: FileMap) -> Option<Image> {
        let names: Vec<&str> = self.paths.iter().collect::<Option<_>>()?;
        let tracked = self.identities.len();
        if self.hashed.len() != tracked || self.hashes.len() != 32 * tracked {
            return None;
        }
        if names.len() < tracked {
            return None;
        }
        let paths: Vec<Arc<Path>> = names.iter().map(|p| Arc::from(Path::new(p))).collect();
        drop(names);
        // The map and the tables share the paths and nothing else. The tables are made
        // now, the map beside what follows the start (see `FileMap::made_later`).
        let tables = self.tables.entries(&paths, &self.identities)?;
        let (identities, hashes, hashed) = (self.identities, self.hashes, self.hashed);
        let make = move || files_of(&paths, &identities, &hashes, &hashed);
        let files = FileMap::made_later(known, make);
        Some(Image {
            files,
            tracked,
            versions: self.versions,
            tables,
            view: self.view,
        })
    }
}

/// The tracked files, their paths the first of `paths`, with their `identities` and
/// their hashes (`hashes`, where `hashed` says one is).
fn files_of(
    paths: &[Arc<Path>],
    identities: &[Option<FileIdentity>],
    hashes: &[u8],
    hashed: &[u8],
) -> FileMap {
    let mut files = FileMap::with_capacity(identities.len());
    let hashes = hashes.chunks_exact(32).zip(hashed);
    let mut give_way = super::background::GiveWay::new();
    let each = paths.iter().zip(identities).zip(hashes).enumerate();
    for (n, ((path, &identity), (hash, &hashed))) in each {
        if n % 4096 == 0 {
            give_way.now();
        }
        let hash = (hashed == 1).then(|| Some(ContentHash::from_bytes(hash.try_into().ok()?)));
        files.set_shared(path.clone(), identity, hash.flatten());
    }
    files
}

impl KeptTables {
    /// The entries, each path one of `paths` (`identities`: the tracked ones', first).
    fn entries(
        &self,
        paths: &[Arc<Path>],
        identities: &[Option<FileIdentity>],
    ) -> Option<Vec<TableEntry>> {
        let fqns: Vec<&str> = self.fqns.iter().collect::<Option<_>>()?;
        let n = fqns.len();
        if self.keys.len() != n || self.paths.len() != n || self.row_counts.len() != n {
            return None;
        }
        let mut tables = Vec::with_capacity(n);
        let each = fqns
            .into_iter()
            .zip(&self.keys)
            .zip(&self.paths)
            .zip(&self.row_counts);
        for (((fqn, &key), at), row_count) in each {
            let row_count = match row_count {
                Some(kept) => Some(kept.value()?),
                None => None,
            };
            let mut shared = [const { None }; 4];
            let mut known = [None; 4];
            for ((slot, identity), &n) in shared.iter_mut().zip(&mut known).zip(at) {
                if n != NO_PATH {
                    *slot = Some(paths.get(n as usize)?.clone());
                    // A path past the tracked ones is untracked: it has no identity.
                    *identity = identities.get(n as usize).copied().flatten();
                }
            }
            let [stats, annotations, description, relationship_notes] = shared;
            tables.push(TableEntry {
                fqn: fqn.to_string(),
                key,
                stats,
                annotations,
                description,
                relationship_notes,
                identities: known,
                row_count,
            });
        }
        Some(tables)
    }
}

impl Store {
    /// A start's ingest of `conn` from the image the last reconcile kept, when one holds
    /// for the mirror's rows now (`generation`, read under the write lock) and `head`:
    /// the head's scan, the image's map and digests, and the tables' entries made from
    /// them, with nothing of the mirror's rows read. `None`: none holds (the caller
    /// scans).
    pub(super) fn ingest_from_image(
        shared: &Shared,
        conn: &ConnectionConfig,
        head: &Head,
        generation: u64,
    ) -> Result<Option<Ingested>, MirrorError> {
        let started = std::time::Instant::now();
        let walk_outcome = Some(head.walk_outcome);
        let files = &head.snapshot.files;
        let Some(of) = ImageOf::new(shared, conn, generation, files, walk_outcome) else {
            return Ok(None);
        };
        let derived = DerivedDir::in_location(&shared.dir);
        if !held(&derived, conn, &of) {
            return Ok(None);
        }
        // The connection-level files are checked beside reading the image back.
        let rows = mirror::RowLookup(&shared.mirror);
        let (manifest_identity, image) = std::thread::scope(|scope| {
            // The head's manifest is the image's: the image is named by its hash.
            let image = scope.spawn(|| load(&derived, conn, &of, files.clone()));
            let unchanged = ingest::connection_files_unchanged(conn, &rows);
            let image = image
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (unchanged, image)
        });
        let (Some(manifest_identity), Some(image)) = (manifest_identity, image) else {
            tracing::debug!(connection = %conn.name, "a connection file moved, or the image did not read back");
            return Ok(None);
        };
        // The rows are the image's (`of` names their generation): asked of them, the
        // image's map is left to be made beside the start.
        if !diff_unchanged(conn, &rows) {
            tracing::debug!(connection = %conn.name, "diff.yaml is not as the image holds it");
            return Ok(None);
        }
        let Image {
            files,
            tracked,
            versions,
            tables,
            view,
        } = image;
        // The view last synced over these tables, when a start from the image kept one
        // (the head read it with the digests).
        let view = head.kept_view.or(view);
        shared
            .mirror
            .record_reconcile(&conn.name, tracked, 0, started.elapsed())?;
        tracing::debug!(connection = %conn.name, elapsed = ?started.elapsed(), "ingested from the start's image");
        Ok(Some(Ingested {
            manifest: head.snapshot.manifest.clone(),
            manifest_identity: Some(manifest_identity),
            files,
            versions: Some(versions),
            tables,
            view,
            epoch: None,
            generation,
            walk_outcome: Some(head.walk_outcome),
        }))
    }

    /// `conn`'s search view over `tables`: taken as kept when the index holds what it held
    /// when `view` was synced (see `search::kept`), synced otherwise.
    pub(super) fn search_view(
        shared: &Shared,
        conn: &str,
        tables: Vec<TableEntry>,
        view: Option<[u8; 32]>,
    ) -> Result<search::SearchView, search::IndexError> {
        let tables = match view {
            Some(stamp) => match shared.index.kept_view(conn, tables, &stamp)? {
                Ok(view) => {
                    tracing::debug!(connection = conn, "search view kept");
                    return Ok(view);
                }
                Err(tables) => tables,
            },
            None => tables,
        };
        search::sync_connection(&shared.index, &shared.mirror, conn, tables)
    }

    /// Keep `published`'s map, digests, table entries and view stamp as the image of its
    /// rows for the next start, off the caller's path, unless an image of them that reads
    /// back whole is kept already (see the module's doc).
    pub(super) fn keep_image(
        &self,
        shared: &Shared,
        published: &Arc<Snapshot>,
        walk_outcome: Option<[u8; 32]>,
    ) {
        let (conn, files) = (&published.config, &published.files);
        let Some(of) = ImageOf::new(shared, conn, published.generation, files, walk_outcome) else {
            return;
        };
        let derived = DerivedDir::in_location(&shared.dir);
        let published = published.clone();
        let keeping = std::thread::spawn(move || {
            let search = &published.search;
            let made = (&published.files, &search.tables[..], Some(search.stamp()));
            let kept = keep(&derived, &published.config, &of, made, || {
                published.versions.clone()
            });
            if kept {
                let made = (&published.files, &search.tables[..]);
                searched_files::keep(&derived, &published.config, &of.key(), made);
            }
        });
        self.starting.keeping(keeping);
    }

    /// At close: keep each connection's image where a refresh moved its rows (see
    /// `keep_image_at_close`), and wait for them to be written.
    pub(super) fn keep_images_at_close(&self, shared: &Arc<Shared>, lock: &WriteLock) {
        for conn in &self.served.connections {
            self.keep_image_at_close(shared, conn, lock);
        }
        self.starting.wait_all(std::time::Duration::from_secs(60));
    }

    /// At close: keep the image of `conn`'s snapshot when a refresh while serving moved its
    /// rows since one was kept (the rows' generation names the image, so the next start
    /// would otherwise scan the whole print), its files recorded unsettled read again
    /// first so that the image can hold them. Skipped when more than a few are (a
    /// generate under way), the manifest moved, or another process wrote rows since: the
    /// next start reconciles then, as before. For a caller holding the write lock.
    fn keep_image_at_close(&self, shared: &Arc<Shared>, conn: &ConnectionConfig, lock: &WriteLock) {
        /// Files read again at close, at most.
        const UNSETTLED_AT_MOST: usize = 64;
        let Some(state) = Self::built_on(self.current(&conn.name), shared) else {
            return;
        };
        let Some(walk_outcome) = state.walk_outcome else {
            return;
        };
        // Rows another process wrote since: its image to keep, and a refresh here could
        // turn into a whole reconcile.
        if shared.mirror.generation(&conn.name).ok() != Some(state.generation) {
            return;
        }
        let of = ImageOf::new(
            shared,
            conn,
            state.generation,
            &state.files,
            Some(walk_outcome),
        );
        let derived = DerivedDir::in_location(&shared.dir);
        if of.is_none_or(|of| derived.holds(&scope(conn), &of.key())) {
            return;
        }
        if !state.manifest_unchanged() {
            return;
        }
        // Read again at once, then once more after a file written just now settles (an
        // edit made moments before the close); a file still unsettled leaves the image out.
        let mut state = state;
        let now = std::time::Duration::ZERO;
        for wait in [Some(now), Some(ingest::SETTLE_FINE), None] {
            let unsettled: Vec<PathBuf> = (state.files.iter())
                .filter(|(_, t)| t.identity.is_some_and(|id| !id.settled))
                .map(|(p, _)| p.to_path_buf())
                .take(UNSETTLED_AT_MOST + 1)
                .collect();
            if unsettled.is_empty() {
                tracing::debug!(connection = %conn.name, "the image kept at close");
                self.keep_image(shared, &state, state.walk_outcome);
                return;
            }
            let Some(wait) = wait.filter(|_| unsettled.len() <= UNSETTLED_AT_MOST) else {
                return;
            };
            std::thread::sleep(wait);
            match self.refresh_locked(shared, conn, &unsettled, lock) {
                Ok(refreshed) => state = refreshed,
                Err(_) => return,
            }
        }
    }

    /// Keep `published`'s digests and view stamp as its image's, for a snapshot made from
    /// its image (which is kept), unless they are kept already: when the digests are there
    /// and the view was taken as kept at `taken` (the stamp the start had), not synced. Its
    /// searched files too, off the caller's path, unless kept (see `searched_files`).
    pub(super) fn keep_digests(
        &self,
        shared: &Shared,
        published: &Arc<Snapshot>,
        walk_outcome: Option<[u8; 32]>,
        taken: Option<[u8; 32]>,
    ) {
        let (conn, files) = (&published.config, &published.files);
        let Some(of) = ImageOf::new(shared, conn, published.generation, files, walk_outcome) else {
            return;
        };
        let derived = DerivedDir::in_location(&shared.dir);
        let (key, view) = (of.key(), Some(published.search.stamp()));
        if view != taken || !derived.holds(&digests_scope(conn), &key) {
            save_digests(&derived, conn, &key, &published.versions, view);
        }
        if !searched_files::held(&derived, conn, &key) {
            let published = published.clone();
            let keeping = std::thread::spawn(move || {
                let made = (&published.files, &published.search.tables[..]);
                searched_files::keep(&derived, &published.config, &key, made);
            });
            self.starting.keeping(keeping);
        }
    }

    /// Keep the image of `conn`'s rows at `generation` (`files` and `tables`, as a rebuild's
    /// ingest left them, without a view) now, its digests made only if it is not kept already.
    pub(super) fn keep_image_now(
        shared: &Shared,
        conn: &ConnectionConfig,
        (files, tables): (&FileMap, &[TableEntry]),
        generation: u64,
        walk_outcome: Option<[u8; 32]>,
    ) {
        if let Some(of) = ImageOf::new(shared, conn, generation, files, walk_outcome) {
            let derived = DerivedDir::in_location(&shared.dir);
            // Without the tables' searched files: the rebuild's peak would hold them
            // beside everything else. The first start after it keeps them.
            keep(&derived, conn, &of, (files, tables, None), || {
                ContentVersions::of(files)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(inode: u64, settled: bool) -> FileIdentity {
        FileIdentity {
            mtime_ns: 10,
            size: 20,
            inode,
            settled,
        }
    }

    fn map() -> FileMap {
        let mut files = FileMap::default();
        files.set(
            Path::new("/p/a/statistics.yaml"),
            Some(identity(1, true)),
            Some(ContentHash::of(b"a")),
        );
        files.set(Path::new("/p/a/description.md"), None, None);
        files.set(
            Path::new("/p/b/statistics.yaml"),
            Some(identity(2, true)),
            Some(ContentHash::of(b"b")),
        );
        files
    }

    /// Table `a` with its statistics (tracked) and a description tracked absent; table `b`
    /// with its statistics and annotations it declares but the map does not track.
    fn tables(files: &FileMap) -> Vec<TableEntry> {
        let shared = |p: &str| Some(files.shared_path(Path::new(p)).unwrap());
        let entry = |fqn: &str, key, stats, description, annotations| {
            let mut entry = TableEntry {
                fqn: fqn.to_string(),
                key,
                stats,
                annotations,
                description,
                relationship_notes: None,
                identities: [None; 4],
                row_count: Some(compat::value::Value::Int(7.into())),
            };
            entry.identities = entry.indexed().map(|p| files.identity(p?));
            entry
        };
        let untracked: Arc<Path> = Arc::from(Path::new("/p/b/statistics.annotations.yaml"));
        vec![
            entry(
                "s.a",
                1,
                shared("/p/a/statistics.yaml"),
                shared("/p/a/description.md"),
                None,
            ),
            TableEntry {
                // A row count that is not a number is kept as it is.
                row_count: Some(compat::value::Value::Str("about 90".into())),
                ..entry(
                    "s.b",
                    2,
                    shared("/p/b/statistics.yaml"),
                    None,
                    Some(untracked),
                )
            },
        ]
    }

    fn kept(files: &FileMap, tables: &[TableEntry]) -> Option<KeptImage> {
        let versions = &ContentVersions::of(files);
        KeptImage::of(Made {
            files,
            versions,
            tables,
            view: Some([7; 32]),
        })
    }

    fn described(t: &TableEntry) -> String {
        format!(
            "{} {} {:?} {:?} {:?}",
            t.fqn,
            t.key,
            t.indexed(),
            t.identities
                .map(|i| i.map(|i| (i.mtime_ns, i.size, i.inode, i.settled))),
            t.row_count
        )
    }

    #[test]
    fn an_image_reads_back_as_the_map_digests_and_tables_it_was_made_of() {
        let files = map();
        let tables = tables(&files);
        let bytes = postcard::to_stdvec(&kept(&files, &tables).unwrap()).unwrap();
        let image = postcard::from_bytes::<KeptImage>(&bytes)
            .unwrap()
            .into_image(FileMap::default())
            .unwrap();
        assert_eq!(image.versions, ContentVersions::of(&files));
        assert_eq!(image.files.len(), files.len());
        for (path, tracked) in files.iter() {
            let back = image.files.get(path).unwrap();
            assert_eq!(back.hash, tracked.hash, "{}", path.display());
            assert_eq!(
                back.identity
                    .map(|i| (i.mtime_ns, i.size, i.inode, i.settled)),
                tracked
                    .identity
                    .map(|i| (i.mtime_ns, i.size, i.inode, i.settled)),
            );
        }
        let back: Vec<String> = image.tables.iter().map(described).collect();
        let made: Vec<String> = tables.iter().map(described).collect();
        assert_eq!(back, made);
        assert_eq!(image.view, Some([7; 32]));
        // A tracked path is the map's own, as a reconcile's entries hold it.
        let stats = image.tables[0].stats.as_ref().unwrap();
        let held = image.files.shared_path(stats).unwrap();
        assert!(Arc::ptr_eq(stats, &held));
    }

    #[test]
    fn a_map_with_an_unsettled_identity_is_not_kept() {
        let mut files = map();
        files.set(
            Path::new("/p/c/statistics.yaml"),
            Some(identity(3, false)),
            Some(ContentHash::of(b"c")),
        );
        assert!(kept(&files, &[]).is_none());
    }

    #[test]
    fn an_image_whose_parts_disagree_does_not_read_back() {
        let files = map();
        let tables = tables(&files);
        let mut image = kept(&files, &tables).unwrap();
        image.hashed.pop();
        assert!(image.into_image(FileMap::default()).is_none());
        let mut image = kept(&files, &tables).unwrap();
        image.paths = Texts::default();
        assert!(image.into_image(FileMap::default()).is_none());
        let mut image = kept(&files, &tables).unwrap();
        image.tables.paths[1][0] = 99;
        assert!(image.into_image(FileMap::default()).is_none());
        let mut image = kept(&files, &tables).unwrap();
        image.tables.keys.pop();
        assert!(image.into_image(FileMap::default()).is_none());
    }
}
