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
            dir_paths: String::new(),
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
        for (path, id) in &memo.dirs {
            kept.dir_paths.push_str(&path.to_string_lossy());
            kept.dir_ends.push(kept.dir_paths.len());
            kept.dir_ids.push((id.mtime_ns, id.size, id.inode));
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
        let mut dirs = Vec::with_capacity(kept.dir_ids.len());
        let mut start = 0;
        if kept.dir_ends.len() != kept.dir_ids.len() {
            return None;
        }
        for (&end, &(mtime_ns, size, inode)) in kept.dir_ends.iter().zip(&kept.dir_ids) {
            // `get` refuses an end out of order, past the text or inside a character.
            let path = kept.dir_paths.get(start..end)?;
            start = end;
            // Only settled identities are kept (an unsettled one never matches).
            let id = FileIdentity {
                mtime_ns,
                size,
                inode,
                settled: true,
            };
            dirs.push((PathBuf::from(path), id));
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
/// [`KEPT_WALK`]: the directories' paths end to end in one string, with where each ends
/// and its identity (mtime, size, inode), and the links as (link, where it resolved). A
/// start reads it back before it answers anything: kept as JSON with a string per
/// directory, 127,000 directories took 60-100 ms to read back, kept so about 10 ms.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptWalk {
    found: Vec<String>,
    symlinks_seen: usize,
    dir_paths: String,
    dir_ends: Vec<usize>,
    dir_ids: Vec<(i64, u64, u64)>,
    links: Vec<(String, String)>,
}
