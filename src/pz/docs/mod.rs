//! pz's documentation corpus, kept offline: fetched from the site (`fetch`), stored in a
//! versioned docs index in the user's cache (`store`), parsed as pz parses it (`parse`),
//! searched through an n-gram index (`index`) that answers exactly as pz's scan (`rank`)
//! would, and kept fresh in the background (`service`).

pub mod fetch;
pub mod index;
pub mod parse;
pub mod rank;
pub mod service;
pub mod store;
pub mod terms;

#[cfg(test)]
mod oracle_tests;
#[cfg(test)]
mod proptests;

use std::path::Path;

use index::{GramIndex, LineTable, Searchable};
use parse::Page;
use rank::Hit;

pub use crate::error::pz::DocsError;
use compat::dotnet;

/// One corpus, parsed and indexed.
pub struct Catalog {
    /// The base URL slugs were cut from.
    pub base: String,
    pub pages: Vec<Page>,
    pub full: String,
    search: Searchable,
}

impl Catalog {
    /// Parse and index the two files; the index goes to `dir` (an empty directory) or memory.
    pub fn build(
        index_text: &str,
        full: String,
        base: &str,
        dir: Option<&Path>,
    ) -> tantivy::Result<Catalog> {
        let base = parse::normalize_base(base);
        let pages = parse::parse(index_text, &full, &base);
        let table = LineTable::build(&pages, &full);
        let index = GramIndex::build(&table, dir)?;
        Ok(Catalog {
            base,
            pages,
            full,
            search: Searchable { table, index },
        })
    }

    /// Re-read a built corpus: the files are parsed again (deterministic, so line ids agree
    /// with the index, which is checked) and the index is opened.
    pub fn open(
        index_text: &str,
        full: String,
        base: &str,
        dir: &Path,
    ) -> tantivy::Result<Catalog> {
        let base = parse::normalize_base(base);
        let pages = parse::parse(index_text, &full, &base);
        let table = LineTable::build(&pages, &full);
        let index = GramIndex::open(dir)?;
        if index.len() != table.len() {
            return Err(tantivy::TantivyError::InvalidArgument(format!(
                "docs index holds {} lines, the corpus {}",
                index.len(),
                table.len()
            )));
        }
        Ok(Catalog {
            base,
            pages,
            full,
            search: Searchable { table, index },
        })
    }

    pub fn body(&self, page: &Page) -> &str {
        &self.full[page.body.clone()]
    }

    /// Scorable lines in the index.
    pub fn lines(&self) -> usize {
        self.search.table.len()
    }

    /// `pz_docs_search`: PZ0608 for a null or blank query; no terms is no hits.
    pub fn search(&self, query: Option<&str>, limit: i64) -> Result<Vec<Hit>, DocsError> {
        if dotnet::is_null_or_white_space(query) {
            return Err(DocsError::EmptyQuery);
        }
        let terms = terms::query_terms(query.unwrap_or_default());
        self.search
            .search(&self.pages, &self.full, &terms, rank::clamp_limit(limit))
            .map_err(|e| DocsError::store("IOException", e))
    }

    /// The same answer by scanning every page, as pz computes it.
    pub fn search_scan(&self, query: Option<&str>, limit: i64) -> Result<Vec<Hit>, DocsError> {
        if dotnet::is_null_or_white_space(query) {
            return Err(DocsError::EmptyQuery);
        }
        let terms = terms::query_terms(query.unwrap_or_default());
        Ok(rank::scan(
            &self.pages,
            &self.full,
            &terms,
            rank::clamp_limit(limit),
        ))
    }

    /// `pz_docs_get`: the slug trimmed of whitespace, then of slashes; case-insensitive.
    pub fn get(&self, slug: &str) -> Result<&Page, DocsError> {
        let wanted = dotnet::trim(slug).trim_matches('/');
        self.pages
            .iter()
            .find(|p| dotnet::eq_ignore_case(&p.slug, wanted))
            .ok_or_else(|| DocsError::UnknownSlug {
                slug: slug.to_string(),
            })
    }
}
