//! A start beside a live writer: when another process holds the writer lock and is
//! working (its beat moves: a start's reconcile, a rebuild, a refresh), a starting store
//! does not wait for it or stand a private index in for it. It scans the print against
//! the mirror as it stands, without writing, and when every file is as the mirror holds
//! it and the search index holds exactly the tables those contents key, it publishes
//! that state and answers from it; each call then verifies what it reads, as after any
//! start. Otherwise (the disk moved, the writer is half way through, the holder is
//! still) the start reconciles as usual, which waits for a live holder and falls back
//! only on a still one.

use std::sync::Arc;

use super::lock::Held;
use super::mirror::MirrorError;
use super::{changes, search, snapshot, Snapshot, Store};
use crate::config::ConnectionConfig;
use crate::ingest;

impl Store {
    /// `conn`'s state read beside the live writer that holds the lock, and published;
    /// `None` when the lock is free or its holder still, or the state cannot be read
    /// whole beside it (the caller reconciles instead).
    pub(super) fn read_beside_writer(&self, conn: &ConnectionConfig) -> Option<Arc<Snapshot>> {
        let shared = self.shared();
        if shared.private.is_some() {
            return None;
        }
        // A lock taken here is let go at once: the caller's reconcile takes it again.
        if shared.writer.try_lock().err() != Some(Held::Live) {
            return None;
        }
        let started = std::time::Instant::now();
        match self.state_beside_writer(conn) {
            Ok(Some(state)) => {
                tracing::debug!(connection = %conn.name, elapsed = ?started.elapsed(), "read beside a live writer");
                Some(state)
            }
            Ok(None) => {
                tracing::debug!(connection = %conn.name, "the index is being written: waiting for its writer");
                None
            }
            Err(e) => {
                tracing::debug!(connection = %conn.name, "reading beside the writer failed: {e}");
                None
            }
        }
    }

    fn state_beside_writer(
        &self,
        conn: &ConnectionConfig,
    ) -> Result<Option<Arc<Snapshot>>, MirrorError> {
        let shared = self.shared();
        let epoch = self.change_feed().map(changes::ChangeFeed::poll);
        // The rows read below are of this generation only if it is the same after.
        let generation = shared.mirror.generation(&conn.name)?;
        let (scan, stored) = Self::scan_locked(
            &shared,
            conn,
            None,
            None,
            &|_, _| {},
            false,
            super::Look::Everything,
        )?;
        let Some(stored) = stored else {
            return Ok(None);
        };
        // Every file as stored, identity included: a touched file's new identity would be
        // the writer's to store.
        let as_stored = scan
            .files
            .iter()
            .all(|f| matches!(f.scanned, ingest::Scanned::Unchanged));
        if !as_stored || !shared.mirror.unchanged(&conn.name, &scan)? {
            return Ok(None);
        }
        let files = stored.into_files();
        let manifest_identity = scan.manifest_identity(&conn.print_root);
        let tables = search::table_entries(&conn.name, &scan.tables, &files);
        let ingest::ConnectionScan {
            manifest,
            files: records,
            tables: entries,
            ..
        } = scan;
        // Many small allocations (the manifest's entries as values): freed off the
        // caller's path.
        std::thread::spawn(move || drop((records, entries)));
        let Some(search) = shared
            .index
            .view(&conn.name, tables)
            .map_err(MirrorError::Index)?
        else {
            return Ok(None);
        };
        if shared.mirror.generation(&conn.name)? != generation {
            return Ok(None);
        }
        let snapshot = Snapshot {
            config: conn.clone(),
            manifest,
            manifest_identity,
            versions: snapshot::ContentVersions::of(&files),
            files,
            search,
            generation,
            rows_beyond_map: false,
            // A start beside a live writer keeps no image: the writer does.
            walk_outcome: None,
            shared: shared.clone(),
        };
        Ok(Some(self.publish(snapshot, epoch)))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use crate::config::{self, Served};
    use crate::store::snapshot::tests::copy_dir;
    use crate::store::{Connection, Reads, Store};

    fn library() -> tempfile::TempDir {
        let project = tempfile::tempdir().unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/library");
        copy_dir(&fixture, project.path());
        project
    }

    fn open(project: &Path, index: &Path) -> Store {
        let config = config::load_at(&project.display().to_string()).unwrap();
        Store::open(Served::resolve(&config, None).unwrap(), index).unwrap()
    }

    /// The FQNs of the tables a store's snapshot searches.
    fn searched(store: &Store) -> Vec<String> {
        let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
        state.search.tables.iter().map(|t| t.fqn.clone()).collect()
    }

    #[test]
    fn a_state_is_read_beside_a_live_writer_only_while_the_disk_and_the_index_match_the_mirror() {
        let project = library();
        let index = tempfile::tempdir().unwrap();
        let writer = open(project.path(), index.path());
        let reader = open(project.path(), index.path());
        let conn = reader.served.connections[0].clone();
        let expected = searched(&writer);
        assert!(!expected.is_empty());
        // Free lock: nothing to read around (the caller reconciles).
        assert!(reader.read_beside_writer(&conn).is_none());
        let shared = writer.shared();
        let lock = shared.writer.lock_within(Duration::ZERO).expect("free");
        let state = reader
            .read_beside_writer(&conn)
            .expect("read beside the live writer");
        assert_eq!(
            state
                .search
                .tables
                .iter()
                .map(|t| t.fqn.clone())
                .collect::<Vec<_>>(),
            expected
        );
        assert_eq!(searched(&reader), expected, "published");
        // A file other than the mirror holds it: only the writer may store it.
        let stats = conn
            .print_root
            .join("stacks/catalog/series/statistics.yaml");
        let text = std::fs::read_to_string(&stats).unwrap();
        std::fs::write(&stats, text.replacen("row_count: 40", "row_count: 41", 1)).unwrap();
        assert!(reader.read_beside_writer(&conn).is_none());
        // Nor is an index read for a state whose tables it does not hold exactly.
        let fewer: Vec<_> = state.search.tables[1..].to_vec();
        assert!(reader
            .shared()
            .index
            .view(&conn.name, fewer)
            .unwrap()
            .is_none());
        let all = state.search.tables.to_vec();
        assert!(reader
            .shared()
            .index
            .view(&conn.name, all)
            .unwrap()
            .is_some());
        drop(lock);
        assert!(!reader.index_is_private());
    }
}
