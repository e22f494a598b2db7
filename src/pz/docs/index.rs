//! The search index: every scorable line (titles, descriptions, body lines outside fence
//! markers) is a tantivy document whose terms are its lower-cased character bigrams and
//! trigrams, with their frequencies. A query term that is itself one n-gram and cannot
//! overlap itself (`ab`, `abc` with `a != c`) is counted from its postings alone: its
//! frequency in a line is pz's non-overlapping count there. Any other term's candidate lines
//! are the intersection of its trigram postings (its bigram's for `aa`), and only those lines
//! are counted. Either way a query touches the lines that may hold its terms and never the rest
//! of the corpus, and pz's substring semantics are kept exactly, so the result equals
//! `rank::scan`.

use std::path::Path;
use std::sync::Arc;

use tantivy::directory::MmapDirectory;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{
    DocSet, Index, IndexSettings, InvertedIndexReader, TantivyDocument, Term, TERMINATED,
};

use super::parse::Page;
use super::rank::{self, body_lines, Hit, DESCRIPTION_WEIGHT, MAX_EXCERPTS, TITLE_WEIGHT};
use compat::dotnet::{lower, ordinal_cmp};

const GRAMS: &str = "grams";
const LINE: &str = "line";
const TOKENIZER: &str = "pz_grams";
/// Indexing arena; bounded so a large corpus stays within a small daemon's memory.
const WRITER_BUDGET: usize = 64 * 1024 * 1024;
/// N-gram postings intersected per term.
const MAX_INTERSECTED: usize = 3;

/// One scorable line.
#[derive(Debug, Clone)]
struct Line {
    page: u32,
    weight: u32,
    /// Body lines are excerpted; titles and descriptions only score.
    excerptable: bool,
    /// Range of the lower-cased text in `LineTable::lowered`.
    low: (u32, u32),
    /// Range of the original line in the full text (body lines only).
    orig: (u32, u32),
}

/// Every line that can match a term (two or more characters), in document order.
#[derive(Debug, Default)]
pub struct LineTable {
    lowered: String,
    lines: Vec<Line>,
}

impl LineTable {
    pub fn build(pages: &[Page], full: &str) -> LineTable {
        let mut table = LineTable::default();
        for (p, page) in pages.iter().enumerate() {
            table.push(p, &page.title, TITLE_WEIGHT, None);
            table.push(p, &page.description, DESCRIPTION_WEIGHT, None);
            for (line, weight) in body_lines(&full[page.body.clone()]) {
                if let Some(w) = weight {
                    // `line` is a slice of `full`: its offset is the pointer difference.
                    let start = line.as_ptr() as usize - full.as_ptr() as usize;
                    table.push(p, line, w, Some((start, start + line.len())));
                }
            }
        }
        table
    }

    fn push(&mut self, page: usize, text: &str, weight: u32, orig: Option<(usize, usize)>) {
        let low = lower(text);
        if low.chars().nth(1).is_none() {
            return;
        }
        let start = self.lowered.len();
        self.lowered.push_str(&low);
        let end = self.lowered.len();
        self.lowered.push('\n');
        let (os, oe) = orig.unwrap_or((0, 0));
        self.lines.push(Line {
            page: page as u32,
            weight,
            excerptable: orig.is_some(),
            low: (start as u32, end as u32),
            orig: (os as u32, oe as u32),
        });
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn lowered(&self, id: usize) -> &str {
        let (s, e) = self.lines[id].low;
        &self.lowered[s as usize..e as usize]
    }
}

/// Emits each position's bigram, then its trigram.
#[derive(Clone, Default)]
struct GramTokenizer {
    token: Token,
}

struct GramStream<'a> {
    text: &'a str,
    starts: Vec<usize>,
    at: usize,
    trigram: bool,
    token: &'a mut Token,
}

impl Tokenizer for GramTokenizer {
    type TokenStream<'a> = GramStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> GramStream<'a> {
        self.token.reset();
        let mut starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        starts.push(text.len());
        GramStream {
            text,
            starts,
            at: 0,
            trigram: false,
            token: &mut self.token,
        }
    }
}

impl TokenStream for GramStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            // starts has one entry per character plus the end.
            let chars = self.starts.len() - 1;
            let width = if self.trigram { 3 } else { 2 };
            if self.at + 2 > chars {
                return false;
            }
            if self.at + width <= chars {
                let (s, e) = (self.starts[self.at], self.starts[self.at + width]);
                self.token.text.clear();
                self.token.text.push_str(&self.text[s..e]);
                self.token.offset_from = s;
                self.token.offset_to = e;
                self.token.position = self.token.position.wrapping_add(1);
                self.advance_cursor();
                return true;
            }
            self.advance_cursor();
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

impl GramStream<'_> {
    fn advance_cursor(&mut self) {
        if self.trigram {
            self.trigram = false;
            self.at += 1;
        } else {
            self.trigram = true;
        }
    }
}

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

fn schema() -> (Schema, Field, Field) {
    let mut builder = Schema::builder();
    let grams = builder.add_text_field(
        GRAMS,
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqs)
                .set_fieldnorms(false),
        ),
    );
    let line = builder.add_u64_field(LINE, NumericOptions::default().set_fast());
    (builder.build(), grams, line)
}

struct SegmentLines {
    inverted: Arc<InvertedIndexReader>,
    /// Doc id → line id.
    line_of: Vec<u32>,
}

/// The opened n-gram index.
pub struct GramIndex {
    grams: Field,
    segments: Vec<SegmentLines>,
}

impl GramIndex {
    /// Build the index for `table` in `dir` (a fresh directory), or in memory.
    pub fn build(table: &LineTable, dir: Option<&Path>) -> tantivy::Result<GramIndex> {
        let (schema, grams, line) = schema();
        let index = match dir {
            Some(d) => Index::create(MmapDirectory::open(d)?, schema, IndexSettings::default())?,
            None => Index::create_in_ram(schema),
        };
        index
            .tokenizers()
            .register(TOKENIZER, GramTokenizer::default());
        let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, WRITER_BUDGET)?;
        for id in 0..table.len() {
            let mut doc = TantivyDocument::default();
            doc.add_text(grams, table.lowered(id));
            doc.add_u64(line, id as u64);
            writer.add_document(doc)?;
        }
        writer.commit()?;
        writer.wait_merging_threads()?;
        Self::from_index(&index)
    }

    pub fn open(dir: &Path) -> tantivy::Result<GramIndex> {
        let index = Index::open_in_dir(dir)?;
        index
            .tokenizers()
            .register(TOKENIZER, GramTokenizer::default());
        Self::from_index(&index)
    }

    fn from_index(index: &Index) -> tantivy::Result<GramIndex> {
        let grams = index.schema().get_field(GRAMS)?;
        let reader = index.reader()?;
        let searcher = reader.searcher();
        let mut segments = Vec::new();
        for seg in searcher.segment_readers() {
            let column = seg.fast_fields().u64(LINE)?;
            let line_of = (0..seg.max_doc())
                .map(|d| column.first(d).unwrap_or(u64::from(u32::MAX)) as u32)
                .collect();
            segments.push(SegmentLines {
                inverted: seg.inverted_index(grams)?,
                line_of,
            });
        }
        Ok(GramIndex { grams, segments })
    }

    /// Number of indexed lines.
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.line_of.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The lines that may hold `term`, per segment in doc order, each with its count when
    /// the postings know it exactly, else an upper bound on it (the least frequency among the
    /// intersected n-grams: every occurrence of the term is one of each of its n-grams).
    fn candidates(&self, term: &str, mut emit: impl FnMut(u32, Count)) -> std::io::Result<()> {
        let plan = plan(term);
        for seg in &self.segments {
            let postings = |g: &str, option| {
                let t = Term::from_field_text(self.grams, g);
                seg.inverted.read_postings(&t, option)
            };
            let grams = match &plan {
                Plan::Exact(g) => {
                    let Some(mut p) = postings(g, IndexRecordOption::WithFreqs)? else {
                        continue;
                    };
                    let mut doc = p.doc();
                    while doc != TERMINATED {
                        if let Some(&line) = seg.line_of.get(doc as usize) {
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
                match postings(g, IndexRecordOption::WithFreqs)? {
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
                if let Some(&line) = seg.line_of.get(doc as usize) {
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
}

/// Lines of the corpus plus the index over them: what a query runs against.
pub struct Searchable {
    pub table: LineTable,
    pub index: GramIndex,
}

impl Searchable {
    /// pz's ranking from the index: score, order, cut to `limit`, excerpt.
    ///
    /// Lines counted exactly by the postings score at once. The other candidate lines only
    /// bound their page's score until the page is needed: pages are taken in order of that
    /// bound and counted exactly, and once `limit` exact pages are held the first page whose
    /// bound cannot beat the last of them (more score, or the same score and an earlier slug)
    /// ends the search — no page after it can enter. Scores and order are pz's exactly.
    pub fn search(
        &self,
        pages: &[Page],
        full: &str,
        terms: &[String],
        limit: usize,
    ) -> std::io::Result<Vec<Hit>> {
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
            self.index.candidates(term, |id, count| {
                let Some(line) = self.table.lines.get(id as usize) else {
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
                let line = &self.table.lines[id as usize];
                // Non-overlapping matches, left to right: pz's count.
                let n = finders[t as usize]
                    .find_iter(self.table.lowered(id as usize).as_bytes())
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
                    let (s, e) = self.table.lines[id as usize].orig;
                    rank::excerpt(&full[s as usize..e as usize])
                })
                .collect();
        }
        Ok(best)
    }
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

    fn grams_of(text: &str) -> Vec<String> {
        let mut t = GramTokenizer::default();
        let mut s = t.token_stream(text);
        let mut out = Vec::new();
        while s.advance() {
            out.push(s.token().text.clone());
        }
        out
    }

    #[test]
    fn tokenizer_emits_bigrams_and_trigrams() {
        assert_eq!(grams_of("abcd"), ["ab", "abc", "bc", "bcd", "cd"]);
        assert_eq!(grams_of("ab"), ["ab"]);
        assert!(grams_of("a").is_empty());
        assert_eq!(grams_of("é€x"), ["é€", "é€x", "€x"]);
    }

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
