//! The mirror's rows for pz projects (`pz_files`): each file pz reads, its identity and its
//! bytes, keyed by project directory and project-relative path.

use std::path::Path;
use std::sync::Arc;

use rusqlite::params;

use super::{Mirror, MirrorError};
use crate::ingest::pz_project::scan::{KnownFile, ScannedFile};
use crate::ingest::FileIdentity;

impl Mirror {
    /// Every stored file of the project at `project`, by relative path.
    pub fn pz_files(&self, project: &Path) -> Result<Vec<(String, KnownFile)>, MirrorError> {
        let db = self.db();
        let mut stmt = db.prepare(
            "SELECT rel, mtime_ns, size, inode, settled, hash, bytes FROM pz_files WHERE project = ?1",
        )?;
        let rows = stmt.query_map(params![project.to_string_lossy()], |r| {
            let bytes: Vec<u8> = r.get(6)?;
            Ok((
                r.get::<_, String>(0)?,
                KnownFile {
                    identity: FileIdentity {
                        mtime_ns: r.get(1)?,
                        size: r.get::<_, i64>(2)? as u64,
                        inode: r.get::<_, i64>(3)? as u64,
                        settled: r.get(4)?,
                    },
                    hash: r.get(5)?,
                    bytes: Arc::from(bytes),
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Store what a scan of `project` found: `moved` files written whole, `gone` paths
    /// deleted, in one transaction.
    pub fn store_pz_files(
        &self,
        project: &Path,
        moved: &[&ScannedFile],
        gone: &[&str],
    ) -> Result<(), MirrorError> {
        if moved.is_empty() && gone.is_empty() {
            return Ok(());
        }
        let project = project.to_string_lossy();
        let mut db = self.db();
        let tx = db.transaction()?;
        {
            let mut upsert = tx.prepare_cached(
                "INSERT OR REPLACE INTO pz_files (project, rel, mtime_ns, size, inode, settled, hash, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for f in moved {
                let id = f.file.identity;
                upsert.execute(params![
                    project,
                    f.rel,
                    id.mtime_ns,
                    id.size as i64,
                    id.inode as i64,
                    id.settled,
                    f.file.hash,
                    &f.file.bytes[..],
                ])?;
            }
            let mut delete =
                tx.prepare_cached("DELETE FROM pz_files WHERE project = ?1 AND rel = ?2")?;
            for rel in gone {
                delete.execute(params![project, rel])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
