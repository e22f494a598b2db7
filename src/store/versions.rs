//! A snapshot's content versions: order-free digests of its files' contents, over every
//! file and per file name, kept up to date by each change rather than made again.

use std::collections::HashMap;
use std::path::Path;

use super::file_map::{ContentHash, FileMap};

/// Order-free digests of a snapshot's file contents: one over every (path, blake3) pair,
/// and one per file name (every `relationships.annotations.yaml`, say). Each is the XOR of
/// its pairs' own digests, so a change to a few files updates it without visiting the
/// rest, and two snapshots holding the same contents have the same digests.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContentVersions {
    all: [u8; 32],
    by_name: HashMap<String, [u8; 32]>,
    /// Per file name, over the paths alone: which files of that name exist, whatever
    /// they hold (what a listing of them depends on).
    present_by_name: HashMap<String, [u8; 32]>,
}

impl ContentVersions {
    pub fn of(files: &FileMap) -> ContentVersions {
        /// Below this many files one thread does it all.
        const PER_THREAD: usize = 16 * 1024;
        let files: Vec<(&Path, ContentHash)> = files.hashed().collect();
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(files.len().div_ceil(PER_THREAD))
            .max(1);
        let part = |chunk: &[(&Path, ContentHash)]| {
            let mut v = ContentVersions::default();
            for &(path, hash) in chunk {
                v.toggle(path, hash);
                v.toggle_presence(path);
            }
            v
        };
        if workers == 1 {
            return part(&files);
        }
        // Each digest is an XOR of its files' own: parts made apart fold into one.
        std::thread::scope(|scope| {
            let parts: Vec<_> = files
                .chunks(files.len().div_ceil(workers))
                .map(|chunk| scope.spawn(move || part(chunk)))
                .collect();
            parts
                .into_iter()
                .fold(ContentVersions::default(), |mut v, p| {
                    let p = p.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                    v.fold_in(p);
                    v
                })
        })
    }

    /// XOR another set of files' digests into these (the two sets disjoint).
    fn fold_in(&mut self, other: ContentVersions) {
        xor(&mut self.all, &other.all);
        for (mine, theirs) in [
            (&mut self.by_name, other.by_name),
            (&mut self.present_by_name, other.present_by_name),
        ] {
            for (name, digest) in theirs {
                xor_into(mine, &name, &digest);
            }
        }
    }

    /// Account for `path` moving from content `old` to `new` (`None`: absent).
    pub fn update(&mut self, path: &Path, old: Option<ContentHash>, new: Option<ContentHash>) {
        if old == new {
            return;
        }
        if let Some(h) = old {
            self.toggle(path, h);
        }
        if let Some(h) = new {
            self.toggle(path, h);
        }
        if old.is_none() != new.is_none() {
            self.toggle_presence(path);
        }
    }

    fn toggle_presence(&mut self, path: &Path) {
        let pair = *blake3::hash(path.as_os_str().as_encoded_bytes()).as_bytes();
        xor_named(&mut self.present_by_name, path, &pair);
    }

    fn toggle(&mut self, path: &Path, hash: ContentHash) {
        // Over the hash's hex text, as it was when hashes were kept as text: the digests
        // name `derived/` files, which stay readable across the change.
        let mut h = blake3::Hasher::new();
        h.update(path.as_os_str().as_encoded_bytes());
        h.update(&[0]);
        h.update(hash.hex().as_bytes());
        let pair = *h.finalize().as_bytes();
        xor(&mut self.all, &pair);
        xor_named(&mut self.by_name, path, &pair);
    }

    /// Over every file.
    pub fn all(&self) -> &[u8; 32] {
        &self.all
    }

    /// Over every file called `file_name`.
    pub fn named(&self, file_name: &str) -> [u8; 32] {
        self.by_name.get(file_name).copied().unwrap_or_default()
    }

    /// Over the paths of every file called `file_name`: moves when one appears or goes,
    /// not when one's content changes.
    pub fn present(&self, file_name: &str) -> [u8; 32] {
        self.present_by_name
            .get(file_name)
            .copied()
            .unwrap_or_default()
    }
}

/// XOR `pair` into the digest of `path`'s file name in `by_name`.
fn xor_named(by_name: &mut HashMap<String, [u8; 32]>, path: &Path, pair: &[u8; 32]) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    xor_into(by_name, &name, pair);
}

/// XOR `pair` into `name`'s digest in `by_name`.
fn xor_into(by_name: &mut HashMap<String, [u8; 32]>, name: &str, pair: &[u8; 32]) {
    // Looked up before it is owned: a print holds a few names many times over.
    let named = match by_name.get_mut(name) {
        Some(named) => named,
        None => by_name.entry(name.to_owned()).or_default(),
    };
    xor(named, pair);
    if *named == [0; 32] {
        // The last file of that name went: keep the map equal to a fresh digest's.
        by_name.remove(name);
    }
}

fn xor(into: &mut [u8; 32], other: &[u8; 32]) {
    for (a, b) in into.iter_mut().zip(other) {
        *a ^= b;
    }
}
