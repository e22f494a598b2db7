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

use super::envelope::PzError;
use compat::dotnet;

pub const PZ0607_NEXT_STEP: &str = "The documentation tools need network access; every other pz tool works offline. Set PZ_DOCS_URL to a reachable mirror of the site if this machine cannot reach the public one.";
pub const EMPTY_QUERY_MESSAGE: &str = "search query was empty";
pub const EMPTY_QUERY_NEXT_STEP: &str =
    "Pass a query \u{2014} a term, an error code like PZ0214, or an option name like force_universal.";
pub const UNKNOWN_SLUG_NEXT_STEP: &str =
    "Call pz_docs_list for the available slugs, or pz_docs_search to find one by keyword.";
/// pz's PZ0610 hint is not known; this one is ours.
pub const PZ0610_NEXT_STEP: &str = "The documentation source served a file larger than pz accepts. Point PZ_DOCS_URL at a mirror that serves the site's own llms.txt and llms-full.txt.";

/// Every way a docs request can fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocsError {
    /// PZ0607: the source could not be read (and no synced corpus stands in for it).
    Unreachable { url: String },
    /// PZ0610: a file over the cap.
    TooLarge { url: String, limit: u64, size: u64 },
    /// PZ0608: an empty query.
    EmptyQuery,
    /// PZ0608: no page carries this slug (as received).
    UnknownSlug { slug: String },
    /// The docs index could not be written or read: not a bad argument, a local fault.
    Store {
        type_name: &'static str,
        message: String,
    },
}

impl DocsError {
    pub fn store(type_name: &'static str, e: impl std::fmt::Display) -> DocsError {
        DocsError::Store {
            type_name,
            message: e.to_string(),
        }
    }

    /// The envelope error, or `None` for a failure only the PZ0609 backstop may report.
    pub fn to_pz(&self) -> Option<PzError> {
        Some(match self {
            DocsError::Unreachable { url } => PzError::new(
                "PZ0607",
                format!("could not reach the documentation at {url}"),
                PZ0607_NEXT_STEP,
            ),
            DocsError::TooLarge { url, limit, size } => PzError::new(
                "PZ0610",
                format!("the documentation response from {url} is over pz's {limit}-byte limit ({size} bytes and counting)"),
                PZ0610_NEXT_STEP,
            ),
            DocsError::EmptyQuery => {
                PzError::new("PZ0608", EMPTY_QUERY_MESSAGE, EMPTY_QUERY_NEXT_STEP)
            }
            DocsError::UnknownSlug { slug } => PzError::new(
                "PZ0608",
                format!("no documentation page with slug '{slug}'"),
                UNKNOWN_SLUG_NEXT_STEP,
            ),
            DocsError::Store { .. } => return None,
        })
    }
}

impl std::fmt::Display for DocsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_pz() {
            Some(e) => write!(f, "{}: {}", e.code, e.message),
            None => match self {
                DocsError::Store { type_name, message } => write!(f, "{type_name}: {message}"),
                _ => Ok(()),
            },
        }
    }
}

impl std::error::Error for DocsError {}

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
