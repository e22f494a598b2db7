//! pz's lexical ranking (`DocsSearch.Rank`) in its parts, plus the straightforward scan
//! over every page that the index must agree with.

use std::cmp::Ordering;

use super::terms::count_non_overlapping;
use crate::ingest::pz_docs::lines::{body_lines, DESCRIPTION_WEIGHT, TITLE_WEIGHT};
use crate::ingest::pz_docs::parse::Page;
use compat::dotnet::{self, lower, ordinal_cmp, trim};

pub const DEFAULT_LIMIT: i64 = 10;
pub const MAX_EXCERPTS: usize = 3;
const EXCERPT_MAX: usize = 200;
const EXCERPT_KEEP: usize = 197;

/// One matching line as a hit shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    /// A high surrogate left by a cut through a surrogate pair (.NET keeps it).
    pub dangling: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Index position of the page.
    pub page: usize,
    pub score: u64,
    pub excerpts: Vec<Excerpt>,
}

/// `Math.Clamp(limit, 1, 50)`.
pub fn clamp_limit(limit: i64) -> usize {
    limit.clamp(1, 50) as usize
}

/// A matching line as an excerpt: trimmed, and past 200 UTF-16 units cut to 197 plus `...`.
pub fn excerpt(line: &str) -> Excerpt {
    let trimmed = trim(line);
    if dotnet::utf16_len(trimmed) <= EXCERPT_MAX {
        return Excerpt {
            text: trimmed.to_string(),
            dangling: None,
        };
    }
    let (head, dangling) = dotnet::utf16_prefix(trimmed, EXCERPT_KEEP);
    Excerpt {
        text: format!("{head}{}", if dangling.is_some() { "" } else { "..." }),
        dangling,
    }
}

impl Excerpt {
    /// The excerpt as UTF-16 code units, as pz's JSON writer sees it.
    pub fn utf16(&self) -> Vec<u16> {
        let mut units: Vec<u16> = self.text.encode_utf16().collect();
        if let Some(d) = self.dangling {
            units.push(d);
            units.extend("...".encode_utf16());
        }
        units
    }
}

/// Summed non-overlapping counts of every term in the lower-cased text.
pub fn count(text: &str, terms: &[String]) -> u32 {
    if text.is_empty() {
        return 0;
    }
    let lowered = lower(text);
    terms
        .iter()
        .map(|t| count_non_overlapping(&lowered, t))
        .sum()
}

/// Best first: score descending, then slug in ordinal order; stable for equal slugs.
pub fn order(pages: &[Page], hits: &mut [Hit]) {
    hits.sort_by(|a, b| match b.score.cmp(&a.score) {
        Ordering::Equal => {
            ordinal_cmp(&pages[a.page].slug, &pages[b.page].slug).then(a.page.cmp(&b.page))
        }
        o => o,
    });
}

/// The reference ranking: score every page line by line, as pz does on each query.
pub fn scan(pages: &[Page], full: &str, terms: &[String], limit: usize) -> Vec<Hit> {
    if terms.is_empty() {
        return Vec::new();
    }
    let mut hits = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let mut score = u64::from(count(&page.title, terms) * TITLE_WEIGHT)
            + u64::from(count(&page.description, terms) * DESCRIPTION_WEIGHT);
        let mut excerpts = Vec::new();
        for (line, weight) in body_lines(&full[page.body.clone()]) {
            let Some(weight) = weight else { continue };
            let n = count(line, terms);
            if n == 0 {
                continue;
            }
            score += u64::from(n * weight);
            if excerpts.len() < MAX_EXCERPTS {
                excerpts.push(excerpt(line));
            }
        }
        if score > 0 {
            hits.push(Hit {
                page: i,
                score,
                excerpts,
            });
        }
    }
    order(pages, &mut hits);
    hits.truncate(limit);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_cut_at_200() {
        let long = "x".repeat(250);
        let e = excerpt(&format!("  {long}  "));
        assert_eq!(e.text.len(), 200);
        assert!(e.text.ends_with("..."));
        assert_eq!(excerpt(&"y".repeat(200)).text.len(), 200);
        let pair = format!("{}\u{10400}z{}", "a".repeat(196), "b".repeat(10));
        let cut = excerpt(&pair);
        assert_eq!(cut.dangling, Some(0xD801));
        assert_eq!(cut.utf16().len(), 200);
    }

    #[test]
    fn limits_clamp() {
        assert_eq!(clamp_limit(0), 1);
        assert_eq!(clamp_limit(-5), 1);
        assert_eq!(clamp_limit(80), 50);
        assert_eq!(clamp_limit(7), 7);
    }
}
