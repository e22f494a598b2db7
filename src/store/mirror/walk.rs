//! What the last walk for symlinks of a connection depended on, kept beside its row.

use std::path::PathBuf;

use rusqlite::params;

use super::{Mirror, MirrorError};
use crate::ingest::walk::WalkMemo;
use crate::ingest::FileIdentity;

impl Mirror {
    /// Keep what the last walk for symlinks of `connection` depended on, beside its row
    /// (which `apply` writes first).
    pub fn store_walk(&self, connection: &str, memo: &WalkMemo) -> Result<(), MirrorError> {
        let mut kept = KeptWalk {
            found: memo.found.clone(),
            symlinks_seen: memo.symlinks_seen,
            dir_shared: Vec::with_capacity(memo.dirs.len()),
            dir_rests: String::new(),
            dir_ends: Vec::with_capacity(memo.dirs.len()),
            dir_ids: Vec::with_capacity(memo.dirs.len()),
            links: memo
                .links
                .iter()
                .map(|(link, target)| {
                    let link = link.to_string_lossy().into_owned();
                    (link, target.to_string_lossy().into_owned())
                })
                .collect(),
        };
        let mut previous = String::new();
        for (path, id) in &memo.dirs {
            let path = path.to_string_lossy();
            let shared = shared_prefix(&previous, &path);
            kept.dir_shared.push(shared);
            kept.dir_rests.push_str(&path[shared..]);
            kept.dir_ends.push(kept.dir_rests.len());
            kept.dir_ids.push((id.mtime_ns, id.size, id.inode));
            previous = path.into_owned();
        }
        // Encoding into memory fails only for a shape postcard cannot write, which this is
        // not; should it, no memo is kept, and the next start walks again.
        let bytes = postcard::to_stdvec(&kept)
            .ok()
            .map(|encoded| [KEPT_WALK, encoded.as_slice()].concat());
        self.db().execute(
            "UPDATE connections SET walk = ?2 WHERE name = ?1",
            params![connection, bytes],
        )?;
        Ok(())
    }

    /// What the last walk for symlinks of `connection` depended on, if it was kept and
    /// reads back whole (anything else, such as the JSON text an earlier version kept:
    /// walk again).
    pub fn walk_memo(&self, connection: &str) -> Option<WalkMemo> {
        let bytes: Vec<u8> = self
            .db()
            .query_row(
                "SELECT walk FROM connections WHERE name = ?1",
                params![connection],
                |r| r.get::<_, Option<Vec<u8>>>(0),
            )
            .ok()??;
        let kept: KeptWalk = postcard::from_bytes(bytes.strip_prefix(KEPT_WALK)?).ok()?;
        let count = kept.dir_ids.len();
        if kept.dir_ends.len() != count || kept.dir_shared.len() != count {
            return None;
        }
        let mut dirs = Vec::with_capacity(count);
        let (mut start, mut path) = (0, String::new());
        let each = kept
            .dir_shared
            .iter()
            .zip(&kept.dir_ends)
            .zip(&kept.dir_ids);
        for ((&shared, &end), &(mtime_ns, size, inode)) in each {
            // `get` refuses a length past the text or inside a character, and an end out
            // of order.
            let rest = kept.dir_rests.get(start..end)?;
            path.truncate(path.get(..shared)?.len());
            path.push_str(rest);
            start = end;
            // Only settled identities are kept (an unsettled one never matches).
            let id = FileIdentity {
                mtime_ns,
                size,
                inode,
                settled: true,
            };
            dirs.push((PathBuf::from(&path), id));
        }
        Some(WalkMemo {
            found: kept.found,
            symlinks_seen: kept.symlinks_seen,
            dirs,
            links: kept
                .links
                .into_iter()
                .map(|(link, target)| (PathBuf::from(link), PathBuf::from(target)))
                .collect(),
        })
    }
}

/// What a kept walk's bytes begin with: this encoding's name.
const KEPT_WALK: &[u8] = b"printdex walk memo 2\n";

/// A [`WalkMemo`] as the `connections.walk` column holds it, as postcard bytes after
/// [`KEPT_WALK`]: each directory's path as the bytes it shares with the path before it
/// and the rest (the rests end to end in one string), with its identity (mtime, size,
/// inode), and the links as (link, where it resolved). A start reads it back before it
/// answers anything: kept as JSON, a string per directory, 127,000 directories were 13.7
/// MB and took 60-100 ms to read back.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptWalk {
    found: Vec<String>,
    symlinks_seen: usize,
    /// How many bytes each directory's path shares with the one before it.
    dir_shared: Vec<usize>,
    /// The rest of each path, one after another; `dir_ends` cuts them.
    dir_rests: String,
    dir_ends: Vec<usize>,
    dir_ids: Vec<(i64, u64, u64)>,
    links: Vec<(String, String)>,
}

/// How many bytes `a` and `b` begin with alike, up to a character's boundary.
fn shared_prefix(a: &str, b: &str) -> usize {
    let same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    (0..=same)
        .rev()
        .find(|&n| b.is_char_boundary(n))
        .unwrap_or(0)
}
