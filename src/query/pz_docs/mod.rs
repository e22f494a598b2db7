//! pz's docs tools answered, read-only, from the `Catalog` a `store::pz_docs::service`
//! hands over: `search` through the index's postings (`postings`) exactly as pz's scan
//! (`rank::scan`, over pz's query `terms`) ranks, and `get` by slug. Nothing here writes
//! or fetches.

pub mod postings;
pub mod rank;
pub mod terms;

#[cfg(test)]
mod oracle_tests;
#[cfg(test)]
mod proptests;

use crate::error::pz::DocsError;
use crate::ingest::pz_docs::parse::Page;
use crate::store::pz_docs::Catalog;
use compat::dotnet;
use rank::Hit;

/// `pz_docs_search`: PZ0608 for a null or blank query; no terms is no hits.
pub fn search(catalog: &Catalog, query: Option<&str>, limit: i64) -> Result<Vec<Hit>, DocsError> {
    if dotnet::is_null_or_white_space(query) {
        return Err(DocsError::EmptyQuery);
    }
    let terms = terms::query_terms(query.unwrap_or_default());
    postings::search(catalog, &terms, rank::clamp_limit(limit))
        .map_err(|e| DocsError::store("IOException", e))
}

/// The same answer by scanning every page, as pz computes it.
pub fn search_scan(
    catalog: &Catalog,
    query: Option<&str>,
    limit: i64,
) -> Result<Vec<Hit>, DocsError> {
    if dotnet::is_null_or_white_space(query) {
        return Err(DocsError::EmptyQuery);
    }
    let terms = terms::query_terms(query.unwrap_or_default());
    Ok(rank::scan(
        &catalog.pages,
        &catalog.full,
        &terms,
        rank::clamp_limit(limit),
    ))
}

/// `pz_docs_get`: the slug trimmed of whitespace, then of slashes; case-insensitive.
pub fn get<'a>(catalog: &'a Catalog, slug: &str) -> Result<&'a Page, DocsError> {
    let wanted = dotnet::trim(slug).trim_matches('/');
    catalog
        .pages
        .iter()
        .find(|p| dotnet::eq_ignore_case(&p.slug, wanted))
        .ok_or_else(|| DocsError::UnknownSlug {
            slug: slug.to_string(),
        })
}
