//! The docs index's write and open side: every scorable line of the corpus
//! (`ingest::pz_docs::lines::LineTable`) is a tantivy document whose terms are its
//! lower-cased character bigrams and trigrams, with their frequencies, and whose `line` fast
//! field is its line id. `query::pz_docs::postings` reads the postings to answer a search.

use std::path::Path;
use std::sync::Arc;

use tantivy::postings::SegmentPostings;
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{DocId, Index, IndexSettings, InvertedIndexReader, TantivyDocument, Term};

use crate::ingest::pz_docs::lines::LineTable;
use crate::store::search::directory::BoundedLocks;

const GRAMS: &str = "grams";
const LINE: &str = "line";
const TOKENIZER: &str = "pz_grams";
/// Indexing arena; bounded so a large corpus stays within a small daemon's memory.
const WRITER_BUDGET: usize = 64 * 1024 * 1024;

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

/// One segment of the index: its postings and which line each of its documents is.
pub struct SegmentLines {
    grams: Field,
    inverted: Arc<InvertedIndexReader>,
    /// Doc id → line id.
    line_of: Vec<u32>,
}

impl SegmentLines {
    /// The postings of one n-gram, with its frequency in each line; `None` when no line in
    /// this segment holds it.
    pub fn postings(&self, gram: &str) -> std::io::Result<Option<SegmentPostings>> {
        let term = Term::from_field_text(self.grams, gram);
        self.inverted
            .read_postings(&term, IndexRecordOption::WithFreqs)
    }

    /// The line id of a document.
    pub fn line_of(&self, doc: DocId) -> Option<u32> {
        self.line_of.get(doc as usize).copied()
    }
}

/// The opened n-gram index.
pub struct GramIndex {
    segments: Vec<SegmentLines>,
}

impl GramIndex {
    /// Build the index for `table` in `dir` (a fresh directory), or in memory.
    pub fn build(table: &LineTable, dir: Option<&Path>) -> tantivy::Result<GramIndex> {
        let (schema, grams, line) = schema();
        let index = match dir {
            Some(d) => Index::create(BoundedLocks::open(d)?, schema, IndexSettings::default())?,
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
        let index = Index::open(BoundedLocks::open(dir)?)?;
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
                grams,
                inverted: seg.inverted_index(grams)?,
                line_of,
            });
        }
        Ok(GramIndex { segments })
    }

    /// Number of indexed lines.
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.line_of.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn segments(&self) -> &[SegmentLines] {
        &self.segments
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
}
