//! A start's image: what a start's reconcile makes of the mirror (every tracked file's
//! identity and hash, and the content digests over them), kept in `derived/` so that the
//! next start need not make it again. At 100,000 tables a start reads 409,094 stored rows
//! and goes through every table's files to make the same map the last process made;
//! read back, the map costs a fraction of that.
//!
//! The map a start's reconcile makes is decided by the mirror's rows, the manifest and
//! the walk for symlinks, and the disk only where it is asked: a start takes every settled
//! stored identity as the disk's (the catch-up checks them later), and `stat`s diff.yaml
//! and the unsettled ones. So an image is kept only when every identity in it is settled,
//! and it is named by the mirror's instance and the connection's generation (which
//! together name the rows: every write of them bumps the generation), the manifest's
//! hash and the walk's outcome. A start uses it when its head holds, no connection-level
//! file moved (the head's scan read none) and diff.yaml is as the image holds it; anything
//! else reads the mirror as before.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cache::Key;
use super::derived::{DerivedDir, Kept};
use super::file_map::{ContentHash, FileMap};
use super::head::Head;
use super::mirror::{self, MirrorError};
use super::snapshot::ContentVersions;
use super::{search, Ingested, Shared, Snapshot, Store};
use crate::config::ConnectionConfig;
use crate::ingest::{self, FileIdentity, DIFF_FILENAME, MANIFEST_FILENAME};

/// The map and digests a start's reconcile made, as kept.
#[derive(Serialize, Deserialize)]
struct KeptImage {
    /// Every tracked path, one after another.
    paths: String,
    /// Where each path of `paths` ends.
    ends: Vec<u32>,
    /// Per path, its identity (`None`: stored absent).
    identities: Vec<Option<FileIdentity>>,
    /// Per path, its content hash.
    hashes: Vec<Option<[u8; 32]>>,
    versions: ContentVersions,
}

impl Kept for KeptImage {
    const ENCODING: u32 = 1;
}

/// A start's image read back.
pub(super) struct Image {
    pub(super) files: FileMap,
    pub(super) versions: ContentVersions,
}

/// One value per connection and print root: the newest reconcile's.
fn scope(conn: &ConnectionConfig) -> Key {
    Key::new(
        "start image",
        [
            conn.name.as_bytes(),
            conn.print_root.to_string_lossy().as_bytes(),
        ],
    )
}

/// What decides the image: the rows (the mirror's instance and the connection's
/// generation), the manifest and the walk it was cut by.
struct ImageOf<'a> {
    instance: &'a str,
    generation: u64,
    manifest_hash: &'a str,
    walk_outcome: &'a [u8; 32],
}

impl ImageOf<'_> {
    fn key(&self) -> Key {
        Key::new(
            "start image",
            [
                self.instance.as_bytes(),
                &self.generation.to_le_bytes(),
                self.manifest_hash.as_bytes(),
                self.walk_outcome.as_slice(),
            ],
        )
    }
}

/// Whether an image is kept for `of` (not read).
fn held(derived: &DerivedDir, conn: &ConnectionConfig, of: &ImageOf) -> bool {
    derived.holds(&scope(conn), &of.key())
}

/// Keep `files` and `versions` as the image of `of`, unless some identity in it is
/// unsettled (a start `stat`s those: what it makes of them is the disk's, not the rows').
fn keep(
    derived: &DerivedDir,
    conn: &ConnectionConfig,
    of: &ImageOf,
    files: &FileMap,
    versions: &ContentVersions,
) {
    if let Some(kept) = KeptImage::of(files, versions) {
        derived.save(&scope(conn), &of.key(), &kept);
    }
}

/// The image kept for `of`, if it reads back.
fn load(derived: &DerivedDir, conn: &ConnectionConfig, of: &ImageOf) -> Option<Image> {
    derived
        .load::<KeptImage>(&scope(conn), &of.key())?
        .into_image()
}

/// Whether `conn`'s diff.yaml is as `files` holds it, as a start's scan would find it: a
/// settled identity equal to the one held, or absent and held absent.
fn diff_unchanged(conn: &ConnectionConfig, files: &FileMap) -> bool {
    let path = conn.print_root.join(DIFF_FILENAME);
    match (crate::ingest::file_identity(&path), files.get(&path)) {
        (None, Some(held)) => held.identity.is_none(),
        (Some(now), Some(held)) => held.identity == Some(now),
        (_, None) => false,
    }
}

impl KeptImage {
    /// `None`: some identity is unsettled, or a path is not UTF-8 (the mirror holds none
    /// such; a map that does is not this one's to keep).
    fn of(files: &FileMap, versions: &ContentVersions) -> Option<KeptImage> {
        let mut kept = KeptImage {
            paths: String::new(),
            ends: Vec::with_capacity(files.len()),
            identities: Vec::with_capacity(files.len()),
            hashes: Vec::with_capacity(files.len()),
            versions: versions.clone(),
        };
        for (path, tracked) in files.iter() {
            if tracked.identity.is_some_and(|id| !id.settled) {
                return None;
            }
            kept.paths.push_str(path.to_str()?);
            kept.ends.push(u32::try_from(kept.paths.len()).ok()?);
            kept.identities.push(tracked.identity);
            kept.hashes.push(tracked.hash.map(|h| *h.as_bytes()));
        }
        Some(kept)
    }

    /// `None`: the parts do not agree (a file of another shape).
    fn into_image(self) -> Option<Image> {
        let n = self.ends.len();
        if self.identities.len() != n || self.hashes.len() != n {
            return None;
        }
        let mut files = FileMap::with_capacity(n);
        let mut start = 0;
        for ((end, identity), hash) in self.ends.into_iter().zip(self.identities).zip(self.hashes) {
            let path = self.paths.get(start..end as usize)?;
            start = end as usize;
            files.set(Path::new(path), identity, hash.map(ContentHash::from_bytes));
        }
        Some(Image {
            files,
            versions: self.versions,
        })
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
        let Some(instance) = shared.mirror.instance() else {
            return Ok(None);
        };
        let manifest_path = conn.print_root.join(MANIFEST_FILENAME);
        let Some(manifest_hash) = head.snapshot.files.hash(&manifest_path) else {
            return Ok(None);
        };
        let manifest_hash = manifest_hash.to_string();
        let of = ImageOf {
            instance: &instance,
            generation,
            manifest_hash: &manifest_hash,
            walk_outcome: &head.walk_outcome,
        };
        let derived = DerivedDir::in_location(&shared.dir);
        if !held(&derived, conn, &of) {
            return Ok(None);
        }
        // The connection-level files are checked beside reading the image back.
        let rows = mirror::RowLookup(&shared.mirror);
        let stash: ingest::Spill = &shared.mirror;
        let (scan, image) = std::thread::scope(|scope| {
            let image = scope.spawn(|| load(&derived, conn, &of));
            let manifest = &head.snapshot.manifest;
            let scan =
                ingest::scan_head_known(conn, manifest, head.walk_outcome, &rows, Some(stash))
                    .and_then(|head| ingest::scan_unchanged(conn, head));
            let image = image
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (scan, image)
        });
        let (Some(scan), Some(image)) = (scan, image) else {
            tracing::debug!(connection = %conn.name, "a connection file moved, or the image did not read back");
            return Ok(None);
        };
        if !diff_unchanged(conn, &image.files) {
            tracing::debug!(connection = %conn.name, "diff.yaml is not as the image holds it");
            return Ok(None);
        }
        let read_back = started.elapsed();
        let manifest_identity = scan.manifest_identity(&conn.print_root);
        let ingest::ConnectionScan {
            manifest,
            tables,
            walk_outcome,
            ..
        } = scan;
        let Image { files, versions } = image;
        shared
            .mirror
            .record_reconcile(&conn.name, files.len(), 0, started.elapsed())?;
        let entries = search::table_entries(&conn.name, &tables, &files);
        // Many small allocations: freed off the caller's path.
        std::thread::spawn(move || drop(tables));
        tracing::debug!(connection = %conn.name, ?read_back, total = ?started.elapsed(), "ingested from the start's image");
        Ok(Some(Ingested {
            manifest,
            manifest_identity,
            files,
            versions: Some(versions),
            tables: entries,
            epoch: None,
            generation,
            walk_outcome,
        }))
    }

    /// Keep `published`'s map and digests as the image of its rows for the next start, off
    /// the caller's path, unless it is kept already (see the module's doc).
    pub(super) fn keep_image(
        &self,
        shared: &Shared,
        published: &Arc<Snapshot>,
        walk_outcome: Option<[u8; 32]>,
    ) {
        let (conn, files) = (&published.config, &published.files);
        let Some(of) = KeptOf::new(shared, conn, published.generation, files, walk_outcome) else {
            return;
        };
        let published = published.clone();
        let keeping = std::thread::spawn(move || {
            let (files, versions) = (&published.files, &published.versions);
            of.keep(&published.config, files, || versions.clone());
        });
        self.starting.keeping(keeping);
    }

    /// Keep the image of `conn`'s rows at `generation` (`files`, as a rebuild's ingest left
    /// them) now, its digests made only if it is not kept already.
    pub(super) fn keep_image_now(
        shared: &Shared,
        conn: &ConnectionConfig,
        files: &FileMap,
        generation: u64,
        walk_outcome: Option<[u8; 32]>,
    ) {
        if let Some(of) = KeptOf::new(shared, conn, generation, files, walk_outcome) {
            of.keep(conn, files, || ContentVersions::of(files));
        }
    }
}

/// [`ImageOf`] with its parts owned, for a thread that keeps an image.
struct KeptOf {
    derived: DerivedDir,
    instance: String,
    generation: u64,
    manifest_hash: String,
    walk_outcome: [u8; 32],
}

impl KeptOf {
    /// `None`: there is nothing to name an image by (no walk outcome, an untracked manifest,
    /// a mirror without an instance).
    fn new(
        shared: &Shared,
        conn: &ConnectionConfig,
        generation: u64,
        files: &FileMap,
        walk_outcome: Option<[u8; 32]>,
    ) -> Option<KeptOf> {
        let manifest_hash = files.hash(&conn.print_root.join(MANIFEST_FILENAME))?;
        Some(KeptOf {
            derived: DerivedDir::in_location(&shared.dir),
            instance: shared.mirror.instance()?,
            generation,
            manifest_hash: manifest_hash.to_string(),
            walk_outcome: walk_outcome?,
        })
    }

    fn of(&self) -> ImageOf<'_> {
        ImageOf {
            instance: &self.instance,
            generation: self.generation,
            manifest_hash: &self.manifest_hash,
            walk_outcome: &self.walk_outcome,
        }
    }

    fn keep(
        &self,
        conn: &ConnectionConfig,
        files: &FileMap,
        versions: impl FnOnce() -> ContentVersions,
    ) {
        if !held(&self.derived, conn, &self.of()) {
            keep(&self.derived, conn, &self.of(), files, &versions());
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

    #[test]
    fn an_image_reads_back_as_the_map_and_digests_it_was_made_of() {
        let files = map();
        let versions = ContentVersions::of(&files);
        let kept = KeptImage::of(&files, &versions).unwrap();
        let bytes = postcard::to_stdvec(&kept).unwrap();
        let image = postcard::from_bytes::<KeptImage>(&bytes)
            .unwrap()
            .into_image()
            .unwrap();
        assert_eq!(image.versions, versions);
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
    }

    #[test]
    fn a_map_with_an_unsettled_identity_is_not_kept() {
        let mut files = map();
        files.set(
            Path::new("/p/c/statistics.yaml"),
            Some(identity(3, false)),
            Some(ContentHash::of(b"c")),
        );
        assert!(KeptImage::of(&files, &ContentVersions::of(&files)).is_none());
    }

    #[test]
    fn an_image_whose_parts_disagree_does_not_read_back() {
        let files = map();
        let mut kept = KeptImage::of(&files, &ContentVersions::of(&files)).unwrap();
        kept.hashes.pop();
        assert!(kept.into_image().is_none());
        let mut kept = KeptImage::of(&files, &ContentVersions::of(&files)).unwrap();
        *kept.ends.last_mut().unwrap() += 1;
        assert!(kept.into_image().is_none());
    }
}
