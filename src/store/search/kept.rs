//! A search view taken without syncing, for a start whose image (`store::image`) holds
//! the tables' entries as a view once synced had them: when the index holds exactly what
//! it held then, every entry's key is in it and no other of the connection's is, so the
//! index's table keys (a read of every table's posting at 100,000 tables) need not be
//! read to compare. What the index holds is named by its segments (each made with a
//! random id) and the documents each has deleted: any commit, merge or rebuild moves it.

use tantivy::Searcher;

use super::{directory, IndexError, SearchIndex, SearchView, TableEntry};

/// What a searcher reads: its segments, each with its documents and deletions.
pub fn stamp_of(searcher: &Searcher) -> [u8; 32] {
    let mut segments: Vec<(String, u32, u32)> = (searcher.segment_readers().iter())
        .map(|s| {
            (
                s.segment_id().uuid_string(),
                s.max_doc(),
                s.num_deleted_docs(),
            )
        })
        .collect();
    segments.sort();
    let mut h = blake3::Hasher::new();
    for (id, docs, deleted) in segments {
        h.update(id.as_bytes());
        h.update(&docs.to_le_bytes());
        h.update(&deleted.to_le_bytes());
    }
    *h.finalize().as_bytes()
}

impl SearchView {
    /// What the index held when this view was taken (see the module's doc).
    pub fn stamp(&self) -> [u8; 32] {
        stamp_of(&self.searcher)
    }
}

impl SearchIndex {
    /// `conn`'s view over `tables`, when the index holds what it held at `stamp` (a view
    /// synced over these tables then); otherwise `tables` back, for the caller to sync.
    pub fn kept_view(
        &self,
        conn: &str,
        mut tables: Vec<TableEntry>,
        stamp: &[u8; 32],
    ) -> Result<Result<SearchView, Vec<TableEntry>>, IndexError> {
        // Read from the index as it is now, not as this process last saw it.
        directory::reload(&self.reader)?;
        let searcher = self.reader.searcher();
        if stamp_of(&searcher) != *stamp {
            return Ok(Err(tables));
        }
        // Kept in the view's order already: a check, not a sort.
        tables.sort_by(|a, b| a.fqn.cmp(&b.fqn));
        Ok(Ok(self.view_over(searcher, conn, tables)))
    }
}
