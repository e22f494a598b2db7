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
        let kept = KeptWalk {
            found: memo.found.clone(),
            symlinks_seen: memo.symlinks_seen,
            dirs: memo
                .dirs
                .iter()
                .map(|(path, id)| {
                    let path = path.to_string_lossy().into_owned();
                    (path, id.mtime_ns, id.size, id.inode)
                })
                .collect(),
            links: memo
                .links
                .iter()
                .map(|(link, target)| {
                    let link = link.to_string_lossy().into_owned();
                    (link, target.to_string_lossy().into_owned())
                })
                .collect(),
        };
        self.db().execute(
            "UPDATE connections SET walk = ?2 WHERE name = ?1",
            params![connection, serde_json::to_string(&kept)?],
        )?;
        Ok(())
    }

    /// What the last walk for symlinks of `connection` depended on, if it was kept and
    /// reads back (anything else: walk again).
    pub fn walk_memo(&self, connection: &str) -> Option<WalkMemo> {
        let text: String = self
            .db()
            .query_row(
                "SELECT walk FROM connections WHERE name = ?1",
                params![connection],
                |r| r.get::<_, Option<String>>(0),
            )
            .ok()??;
        let kept: KeptWalk = serde_json::from_str(&text).ok()?;
        Some(WalkMemo {
            found: kept.found,
            symlinks_seen: kept.symlinks_seen,
            dirs: kept
                .dirs
                .into_iter()
                .map(|(path, mtime_ns, size, inode)| {
                    // Only settled identities are kept (an unsettled one never matches).
                    let id = FileIdentity {
                        mtime_ns,
                        size,
                        inode,
                        settled: true,
                    };
                    (PathBuf::from(path), id)
                })
                .collect(),
            links: kept
                .links
                .into_iter()
                .map(|(link, target)| (PathBuf::from(link), PathBuf::from(target)))
                .collect(),
        })
    }
}

/// A [`WalkMemo`] as the `connections.walk` column holds it: directories as (path, mtime,
/// size, inode), links as (link, where it resolved).
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptWalk {
    found: Vec<String>,
    symlinks_seen: usize,
    dirs: Vec<(String, i64, u64, u64)>,
    links: Vec<(String, String)>,
}
