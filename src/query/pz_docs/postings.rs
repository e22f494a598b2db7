//! A search answered from the docs index's postings, exactly as `rank::scan` answers it. A
//! query term that is itself one n-gram and cannot overlap itself (`ab`, `abc` with `a != c`)
//! is counted from its postings alone: its frequency in a line is pz's non-overlapping count
//! there. Any other term's candidate lines are the intersection of its trigram postings (its
//! bigram's for `aa`), and only those lines are counted. Either way a query touches the lines
//! that may hold its terms and never the rest of the corpus, and pz's substring semantics are
//! kept exactly.

use tantivy::postings::{Postings, SegmentPostings};
use tantivy::{DocSet, TERMINATED};

use super::rank::{self, Hit, MAX_EXCERPTS};
use crate::store::pz_docs::index::GramIndex;
use crate::store::pz_docs::Catalog;
use compat::dotnet::ordinal_cmp;

/// N-gram postings intersected per term.
const MAX_INTERSECTED: usize = 3;

/// What the postings say about a term in one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    Exact(u32),
    AtMost(u32),
}

/// How a term's lines are found.
#[derive(Debug, PartialEq, Eq)]
enum Plan {
    /// The term is one n-gram that cannot overlap itself: postings frequencies are counts.
    Exact(String),
    /// Lines holding all these n-grams may hold the term: count them.
    Candidates(Vec<String>),
}

fn plan(term: &str) -> Plan {
    let chars: Vec<char> = term.chars().collect();
    let starts: Vec<usize> = term
        .char_indices()
        .map(|(i, _)| i)
        .chain([term.len()])
        .collect();
    match chars.len() {
        0 | 1 => Plan::Candidates(vec![term.to_string()]),
        2 if chars[0] != chars[1] => Plan::Exact(term.to_string()),
        3 if chars[0] != chars[2] => Plan::Exact(term.to_string()),
        2 | 3 => Plan::Candidates(vec![term.to_string()]),
        n => {
            let mut grams: Vec<String> = (0..n - 2)
                .map(|i| term[starts[i]..starts[i + 3]].to_string())
                .collect();
            grams.sort();
            grams.dedup();
            Plan::Candidates(grams)
        }
    }
}

/// The lines that may hold `term`, per segment in doc order, each with its count when
/// the postings know it exactly, else an upper bound on it (the least frequency among the
/// intersected n-grams: every occurrence of the term is one of each of its n-grams).
fn candidates(
    index: &GramIndex,
    term: &str,
    mut emit: impl FnMut(u32, Count),
) -> std::io::Result<()> {
    let plan = plan(term);
    for seg in index.segments() {
        let grams = match &plan {
            Plan::Exact(g) => {
                let Some(mut p) = seg.postings(g)? else {
                    continue;
                };
                let mut doc = p.doc();
                while doc != TERMINATED {
                    if let Some(line) = seg.line_of(doc) {
                        emit(line, Count::Exact(p.term_freq()));
                    }
                    doc = p.advance();
                }
                continue;
            }
            Plan::Candidates(grams) => grams,
        };
        let mut lists: Vec<SegmentPostings> = Vec::with_capacity(grams.len());
        for g in grams {
            match seg.postings(g)? {
                Some(p) => lists.push(p),
                None => {
                    lists.clear();
                    break;
                }
            }
        }
        if lists.is_empty() {
            continue;
        }
        // The rarest few n-grams bound the candidates nearly as tightly as all of them,
        // for a fraction of the seeks; the count below removes any extra line.
        lists.sort_by_key(|p| p.doc_freq());
        lists.truncate(MAX_INTERSECTED);
        let (driver, others) = lists.split_at_mut(1);
        let driver = &mut driver[0];
        let mut doc = driver.doc();
        'next: while doc != TERMINATED {
            for p in others.iter_mut() {
                let mut d = p.doc();
                if d < doc {
                    d = p.seek(doc);
                }
                if d > doc {
                    doc = driver.seek(d);
                    continue 'next;
                }
            }
            if let Some(line) = seg.line_of(doc) {
                let bound = driver.term_freq().min(
                    others
                        .iter()
                        .map(|p| p.term_freq())
                        .min()
                        .unwrap_or(u32::MAX),
                );
                emit(line, Count::AtMost(bound));
            }
            doc = driver.advance();
        }
    }
    Ok(())
}

/// pz's ranking from the index: score, order, cut to `limit`, excerpt.
///
/// Lines counted exactly by the postings score at once. The other candidate lines only
/// bound their page's score until the page is needed: pages are taken in order of that
/// bound and counted exactly, and once `limit` exact pages are held the first page whose
/// bound cannot beat the last of them (more score, or the same score and an earlier slug)
/// ends the search — no page after it can enter. Scores and order are pz's exactly.
pub fn search(catalog: &Catalog, terms: &[String], limit: usize) -> std::io::Result<Vec<Hit>> {
    let (pages, full, table) = (&catalog.pages, &catalog.full, &catalog.table);
    if terms.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    // Per page: the exactly known part of its score, its bound, the smallest ids of its
    // matching body lines, and the (line, term) pairs still to count.
    let mut exact = vec![0u64; pages.len()];
    let mut bound = vec![0u64; pages.len()];
    let mut firsts: Vec<Vec<u32>> = vec![Vec::new(); pages.len()];
    let mut pending: Vec<Vec<(u32, u16)>> = vec![Vec::new(); pages.len()];
    let mut touched: Vec<u32> = Vec::new();
    for (t, term) in terms.iter().enumerate() {
        candidates(&catalog.index, term, |id, count| {
            let Some(line) = table.get(id as usize) else {
                return;
            };
            let page = line.page as usize;
            let (n, known) = match count {
                Count::Exact(n) => (n, true),
                Count::AtMost(n) => (n, false),
            };
            if n == 0 {
                return;
            }
            if bound[page] == 0 {
                touched.push(line.page);
            }
            let weighted = u64::from(n) * u64::from(line.weight);
            bound[page] += weighted;
            if known {
                exact[page] += weighted;
                if line.excerptable {
                    keep_first(&mut firsts[page], id);
                }
            } else {
                pending[page].push((id, t as u16));
            }
        })?;
    }
    touched.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        bound[b]
            .cmp(&bound[a])
            .then_with(|| ordinal_cmp(&pages[a].slug, &pages[b].slug))
            .then(a.cmp(&b))
    });
    let finders: Vec<memchr::memmem::Finder> = terms
        .iter()
        .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
        .collect();
    let mut best: Vec<Hit> = Vec::with_capacity(limit + 1);
    for &p in &touched {
        let p = p as usize;
        if best.len() == limit {
            let last = &best[limit - 1];
            let beats = bound[p] > last.score
                || (bound[p] == last.score
                    && ordinal_cmp(&pages[p].slug, &pages[last.page].slug)
                        .then(p.cmp(&last.page))
                        .is_lt());
            if !beats {
                break;
            }
        }
        let mut score = exact[p];
        for &(id, t) in &pending[p] {
            let line = &table[id as usize];
            // Non-overlapping matches, left to right: pz's count.
            let n = finders[t as usize]
                .find_iter(table.lowered(id as usize).as_bytes())
                .count() as u64;
            if n > 0 {
                score += n * u64::from(line.weight);
                if line.excerptable {
                    keep_first(&mut firsts[p], id);
                }
            }
        }
        if score == 0 {
            continue;
        }
        best.push(Hit {
            page: p,
            score,
            excerpts: Vec::new(),
        });
        rank::order(pages, &mut best);
        best.truncate(limit);
    }
    for hit in &mut best {
        hit.excerpts = firsts[hit.page]
            .iter()
            .map(|&id| {
                let (s, e) = table[id as usize].orig;
                rank::excerpt(&full[s as usize..e as usize])
            })
            .collect();
    }
    Ok(best)
}

fn keep_first(firsts: &mut Vec<u32>, id: u32) {
    match firsts.binary_search(&id) {
        Ok(_) => {}
        Err(at) if at < MAX_EXCERPTS => {
            firsts.insert(at, id);
            firsts.truncate(MAX_EXCERPTS);
        }
        Err(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_count_from_postings_only_what_cannot_overlap() {
        let exact = |t: &str| Plan::Exact(t.to_string());
        let cands = |g: &[&str]| Plan::Candidates(g.iter().map(|s| s.to_string()).collect());
        assert_eq!(plan("pz"), exact("pz"));
        assert_eq!(plan("aa"), cands(&["aa"]));
        assert_eq!(plan("abc"), exact("abc"));
        assert_eq!(plan("aba"), cands(&["aba"]));
        assert_eq!(plan("aaaa"), cands(&["aaa"]));
        assert_eq!(plan("pz0214"), cands(&["021", "214", "pz0", "z02"]));
        assert_eq!(plan("é€é"), cands(&["é€é"]));
    }

    #[test]
    fn first_three_stay_sorted() {
        let mut f = Vec::new();
        for id in [9, 4, 7, 4, 1, 8] {
            keep_first(&mut f, id);
        }
        assert_eq!(f, [1, 4, 7]);
    }
}
