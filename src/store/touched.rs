//! Files a scan found with the same bytes under a new identity (a touch, a rewrite of
//! the same content, an identity that settled): their identities are stored, and a row
//! that turns out to hold other bytes than the writer's view knew is read again whole.

use std::path::PathBuf;

use super::file_map::{self, FileMap};
use super::mirror::MirrorError;
use super::{Shared, Store};
use crate::ingest;

impl Store {
    /// Store the identities a scan that found the same bytes throughout noted (a touch, a
    /// rewrite of the same content, an identity that settled) and return the map with
    /// them.
    pub(super) fn note_touched(
        shared: &Shared,
        scan: &ingest::ConnectionScan,
        mut files: FileMap,
    ) -> Result<FileMap, MirrorError> {
        let touched: Vec<ingest::FileRecord> = scan
            .files
            .iter()
            .filter(|f| f.scanned == ingest::Scanned::Touched)
            .cloned()
            .collect();
        if touched.is_empty() {
            return Ok(files);
        }
        let mismatched = shared.mirror.upsert_files(&touched)?;
        let again = Self::read_in_full(shared, &mismatched, &touched)?;
        for f in touched.into_iter().chain(again) {
            let identity = match (&f.scanned, f.identity) {
                (ingest::Scanned::Read(ingest::Parsed::Absent), _) | (_, None) => None,
                (_, identity) => identity,
            };
            let hash = f.hash.as_deref().and_then(file_map::ContentHash::from_hex);
            files.set(&f.path, identity, hash);
        }
        Ok(files)
    }

    /// Read `paths` (records among `records` the mirror refused as touched: its row holds
    /// other bytes than the writer's view knew) again in full, store what they hold now
    /// and return those records.
    pub(super) fn read_in_full(
        shared: &Shared,
        paths: &[PathBuf],
        records: &[ingest::FileRecord],
    ) -> Result<Vec<ingest::FileRecord>, MirrorError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let again: Vec<ingest::FileRecord> = records
            .iter()
            .filter(|r| paths.contains(&r.path))
            .map(|r| ingest::read_file(&r.path, &r.connection, r.fqn.as_deref(), &r.kind))
            .collect();
        // Whole records (parsed, not touched) are always stored.
        shared.mirror.upsert_files(&again)?;
        Ok(again)
    }
}
