//! pz's documentation corpus, kept offline: fetched from the site (`fetch`), stored as
//! versions in the user's cache (`disk`), each with an n-gram docs index (`index`) built from
//! the corpus's lines (`ingest::pz_docs`), and the version a server answers from, loaded,
//! synced and refreshed in the background (`service`). `query::pz_docs` answers from a
//! `Catalog`; nothing there writes.

pub mod disk;
pub mod fetch;
pub mod index;
pub mod service;

use std::path::Path;

use crate::ingest::pz_docs::lines::LineTable;
use crate::ingest::pz_docs::parse::{self, Page};
use index::GramIndex;

/// One corpus, parsed and indexed.
pub struct Catalog {
    /// The base URL slugs were cut from.
    pub base: String,
    pub pages: Vec<Page>,
    pub full: String,
    /// The scorable lines; their ids are the index's documents.
    pub table: LineTable,
    pub index: GramIndex,
}

impl Catalog {
    /// Parse and index the two files; the index goes to `dir` (an empty directory) or memory.
    pub fn build(
        index_text: &str,
        full: String,
        base: &str,
        dir: Option<&Path>,
    ) -> tantivy::Result<Catalog> {
        Self::parsed(index_text, full, base, |table| GramIndex::build(table, dir))
    }

    /// Re-read a built corpus: the files are parsed again (deterministic, so line ids agree
    /// with the index, which is checked) and the index is opened.
    pub fn open(
        index_text: &str,
        full: String,
        base: &str,
        dir: &Path,
    ) -> tantivy::Result<Catalog> {
        Self::parsed(index_text, full, base, |table| {
            let index = GramIndex::open(dir)?;
            if index.len() != table.len() {
                return Err(tantivy::TantivyError::InvalidArgument(format!(
                    "docs index holds {} lines, the corpus {}",
                    index.len(),
                    table.len()
                )));
            }
            Ok(index)
        })
    }

    /// The two files parsed into pages and lines, with the index `index_of` gives for them.
    fn parsed(
        index_text: &str,
        full: String,
        base: &str,
        index_of: impl FnOnce(&LineTable) -> tantivy::Result<GramIndex>,
    ) -> tantivy::Result<Catalog> {
        let base = parse::normalize_base(base);
        let pages = parse::parse(index_text, &full, &base);
        let table = LineTable::build(&pages, &full);
        let index = index_of(&table)?;
        Ok(Catalog {
            base,
            pages,
            full,
            table,
            index,
        })
    }

    pub fn body(&self, page: &Page) -> &str {
        &self.full[page.body.clone()]
    }

    /// Scorable lines in the index.
    pub fn lines(&self) -> usize {
        self.table.len()
    }
}
