//! Reading a [`SearchView`]: the columns and parts search_columns' filters match, table
//! records, and one column by name for resolve_value.

use std::collections::BTreeSet;

use tantivy::collector::{Collector, DocSetCollector, SegmentCollector};
use tantivy::fastfield::Column;
use tantivy::index::SegmentReader;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, TantivyDocument, Term};

use super::records::{CatalogTable, ColumnRecord, TableRecord};
use super::tokens::needle_trigrams;
use super::{IndexError, SearchView, LONG, RAW};
use compat::py::{casefold, Glob};

/// search_columns' predicates, ANDed; `None` passes everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct Filters<'a> {
    pub pattern: Option<&'a str>,
    pub classification: Option<&'a str>,
    pub sql_type: Option<&'a str>,
    pub sensitivity: Option<&'a str>,
    pub looks_like: Option<&'a str>,
    pub redacted: Option<&'a str>,
    pub candidate_key: Option<bool>,
    pub text: Option<&'a str>,
}

/// One candidate column or part of a walkable table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    /// Position of its table among the snapshot's tables (FQN order).
    pub table: usize,
    pub col_rank: u64,
    pub part_rank: u64,
    pub address: DocAddress,
}

/// Candidates, taken in reply order; `verify` says the stored record must confirm each
/// (a needle under three characters, or a value too long to be a term).
#[derive(Default)]
pub struct Hits {
    pub hits: OrderedHits,
    pub verify: bool,
}

/// Hits put in reply order only as far as they are read: a page reads a few dozen of a
/// broad search's thousands, so the rest are neither sorted nor told apart within their
/// table (their column and part ranks are read from the index for those placed alone).
#[derive(Default)]
pub struct OrderedHits {
    /// In reply order, the first `placed.len()` hits.
    placed: Vec<Hit>,
    /// The others from `from` on, each as its table's position and where it is.
    unplaced: Vec<(usize, DocAddress)>,
    from: usize,
    /// Each segment's column and part ranks, by segment ordinal.
    ranks: Vec<(Column<u64>, Column<u64>)>,
}

/// Hits placed at once when a page first reads past those already placed; later runs
/// double (a page reads on from where the last run stopped).
const FIRST_PLACED: usize = 64;

impl OrderedHits {
    pub fn len(&self) -> usize {
        self.placed.len() + self.unplaced.len() - self.from
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hit `i` in reply order.
    pub fn get(&mut self, i: usize) -> Option<Hit> {
        while i >= self.placed.len() && self.from < self.unplaced.len() {
            self.place(i + 1 - self.placed.len());
        }
        self.placed.get(i).copied()
    }

    /// Every hit, in reply order.
    pub fn into_sorted(mut self) -> Vec<Hit> {
        let rest = self.unplaced.len() - self.from;
        if rest > 0 {
            self.place(rest);
        }
        self.placed
    }

    /// Place at least `wanted` more hits: the nearest tables' hits, every hit of the last
    /// of them included (a table's hits go by column and part, read now).
    fn place(&mut self, wanted: usize) {
        let rest = &mut self.unplaced[self.from..];
        let n = wanted
            .max(self.placed.len())
            .max(FIRST_PLACED)
            .min(rest.len());
        if n < rest.len() {
            rest.select_nth_unstable_by_key(n - 1, |h| h.0);
        }
        let last = rest[n - 1].0;
        let mut end = n;
        for j in n..rest.len() {
            if rest[j].0 == last {
                rest.swap(end, j);
                end += 1;
            }
        }
        let mut run: Vec<Hit> = rest[..end]
            .iter()
            .map(|&(table, address)| {
                let (col, part) = &self.ranks[address.segment_ord as usize];
                Hit {
                    table,
                    col_rank: col.first(address.doc_id).unwrap_or(0),
                    part_rank: part.first(address.doc_id).unwrap_or(0),
                    address,
                }
            })
            .collect();
        run.sort_unstable();
        self.placed.extend(run);
        self.from += end;
    }
}

/// The characters of `pattern` before its first glob metacharacter: every match starts
/// with them.
fn literal_prefix(pattern: &str) -> &str {
    match pattern.find(['*', '?', '[']) {
        Some(at) => &pattern[..at],
        None => pattern,
    }
}

/// Term sets up to this size are a union of term queries; larger ones a `TermSetQuery`.
const UNION_AT_MOST: usize = 64;

/// Documents holding any of `terms`. A `TermSetQuery` marks every matching document of a
/// segment in a bitset as large as the segment before the intersection starts, a cost that
/// grows with the print; a union of term queries walks the postings, which the other
/// clauses skip through, so a few terms cost what their matches cost.
fn any_term(terms: Vec<Term>) -> Box<dyn Query> {
    if terms.len() > UNION_AT_MOST {
        return Box::new(TermSetQuery::new(terms));
    }
    Box::new(BooleanQuery::new(
        terms
            .into_iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(t, IndexRecordOption::Basic));
                (Occur::Should, q)
            })
            .collect(),
    ))
}

fn term_query(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::Basic,
    ))
}

/// A query's documents as their tables' positions and addresses, in the order the index
/// gives them (a document of a table the view does not hold is left out).
struct TableHitCollector {
    rank: std::sync::Arc<super::entries::ByTableKey<usize>>,
}

struct TableHitSegment {
    ord: SegmentOrdinal,
    key: Column<u64>,
    rank: std::sync::Arc<super::entries::ByTableKey<usize>>,
    out: Vec<(usize, DocAddress)>,
}

impl Collector for TableHitCollector {
    type Fruit = Vec<(usize, DocAddress)>;
    type Child = TableHitSegment;

    fn for_segment(
        &self,
        ord: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<TableHitSegment> {
        Ok(TableHitSegment {
            ord,
            key: reader.fast_fields().u64("table_key")?,
            rank: self.rank.clone(),
            out: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.concat())
    }
}

impl SegmentCollector for TableHitSegment {
    type Fruit = Vec<(usize, DocAddress)>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        if let Some(&rank) = self.key.first(doc).and_then(|key| self.rank.get(&key)) {
            self.out.push((rank, DocAddress::new(self.ord, doc)));
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.out
    }
}

/// Documents whose `text` holds `needle` (casefolded, three characters or more) exactly in
/// one of their strings: its trigrams at their offsets from one position.
fn needle_query(field: Field, needle: &str) -> Option<Box<dyn Query>> {
    let trigrams = needle_trigrams(needle)?;
    let mut terms: Vec<(usize, Term)> = trigrams
        .into_iter()
        .map(|(at, t)| (at, Term::from_field_text(field, t)))
        .collect();
    if terms.len() == 1 {
        let (_, term) = terms.remove(0);
        return Some(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
    }
    Some(Box::new(PhraseQuery::new_with_offset(terms)))
}

fn payload(doc: &TantivyDocument, field: Field) -> Option<&[u8]> {
    doc.get_first(field)
        .and_then(|v| tantivy::schema::Value::as_bytes(&v))
}

impl SearchView {
    /// The raw terms of `field` whose value `fnmatchcase`es `pattern` (the decision itself),
    /// plus the long-value marker when some value was too long to be a term.
    fn glob_terms(&self, field: Field, pattern: &str) -> Result<(Vec<Term>, bool), IndexError> {
        let glob = Glob::new(pattern);
        let start = format!("{RAW}{}", literal_prefix(pattern));
        let mut found: BTreeSet<Vec<u8>> = BTreeSet::new();
        let mut long = false;
        for segment in self.searcher.segment_readers() {
            let inverted = segment.inverted_index(field)?;
            let dict = inverted.terms();
            if dict.get(LONG.as_bytes())?.is_some() {
                long = true;
            }
            let mut stream = dict.range().ge(start.as_bytes()).into_stream()?;
            while stream.advance() {
                let key = stream.key();
                if !key.starts_with(start.as_bytes()) {
                    break;
                }
                if let Ok(value) = std::str::from_utf8(&key[RAW.len()..]) {
                    if glob.matches(value) {
                        found.insert(key.to_vec());
                    }
                }
            }
        }
        let mut terms: Vec<Term> = found
            .iter()
            .map(|k| Term::from_field_bytes(field, k))
            .collect();
        if long {
            terms.push(Term::from_field_text(field, LONG));
        }
        Ok((terms, long))
    }

    /// Trigram terms of the `text` field containing a needle shorter than three characters.
    fn short_needle_terms(&self, needle: &str) -> Result<Vec<Term>, IndexError> {
        let mut found: BTreeSet<Vec<u8>> = BTreeSet::new();
        for segment in self.searcher.segment_readers() {
            let inverted = segment.inverted_index(self.fields.text)?;
            let mut stream = inverted.terms().stream()?;
            while stream.advance() {
                let key = stream.key();
                if std::str::from_utf8(key).is_ok_and(|k| k.contains(needle)) {
                    found.insert(key.to_vec());
                }
            }
        }
        Ok(found
            .iter()
            .map(|k| Term::from_field_bytes(self.fields.text, k))
            .collect())
    }

    /// The columns and parts of the walkable tables that `filters` match (candidates to
    /// confirm when `verify`), taken in reply order: table FQN, column name, then the
    /// column's parts in file order.
    pub fn search(&self, filters: &Filters) -> Result<Hits, IndexError> {
        let f = &self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut verify = false;
        for (field, glob) in [
            (f.name, filters.pattern),
            (f.classification, filters.classification),
            (f.sql_type, filters.sql_type),
            (f.sensitivity, filters.sensitivity),
            (f.looks_like, filters.looks_like),
            (f.redacted, filters.redacted),
        ] {
            let Some(glob) = glob else { continue };
            let (terms, long) = self.glob_terms(field, glob)?;
            if terms.is_empty() {
                return Ok(Hits::default());
            }
            verify |= long;
            clauses.push((Occur::Must, any_term(terms)));
        }
        if let Some(ck) = filters.candidate_key {
            clauses.push((
                Occur::Must,
                term_query(f.candidate_key, if ck { "true" } else { "false" }),
            ));
        }
        if let Some(text) = filters.text {
            let needle = casefold(text);
            match needle_query(f.text, &needle) {
                Some(exact) => clauses.push((Occur::Must, exact)),
                None => {
                    verify = true;
                    let terms = self.short_needle_terms(&needle)?;
                    if terms.is_empty() {
                        return Ok(Hits::default());
                    }
                    clauses.push((Occur::Must, any_term(terms)));
                }
            }
        }
        // One clause per filter. Only column and part documents hold the fields filtered
        // on above, so a filter already keeps to them; a kind clause would only add a
        // union of millions of documents to step through. The connection's clause only
        // when another connection has documents here (each match would seek it).
        if clauses.is_empty() {
            clauses.push((
                Occur::Must,
                any_term(vec![
                    Term::from_field_text(f.kind, "column"),
                    Term::from_field_text(f.kind, "part"),
                ]),
            ));
        }
        if !self.only_connection()? {
            clauses.push((Occur::Must, term_query(f.conn, &self.conn)));
        }
        let query: Box<dyn Query> = match clauses.len() {
            1 => clauses.remove(0).1,
            _ => Box::new(BooleanQuery::new(clauses)),
        };
        let unplaced = self.searcher.search(query.as_ref(), &self.table_hits())?;
        let mut ranks = Vec::new();
        for segment in self.searcher.segment_readers() {
            let ff = segment.fast_fields();
            ranks.push((ff.u64("col_rank")?, ff.u64("part_rank")?));
        }
        Ok(Hits {
            hits: OrderedHits {
                placed: Vec::new(),
                unplaced,
                from: 0,
                ranks,
            },
            verify,
        })
    }

    /// What collects a query's documents of this view's tables.
    fn table_hits(&self) -> TableHitCollector {
        TableHitCollector {
            rank: self.rank.clone(),
        }
    }

    /// A column or part record.
    pub fn column(&self, address: DocAddress) -> Result<ColumnRecord, IndexError> {
        let doc: TantivyDocument = self.searcher.doc(address)?;
        let bytes = payload(&doc, self.fields.payload).unwrap_or(b"null");
        Ok(serde_json::from_slice(bytes)?)
    }

    /// The first document matching every (field, term) pair, for this snapshot's tables.
    fn first_doc(
        &self,
        key: u64,
        terms: &[(Field, &str)],
    ) -> Result<Option<TantivyDocument>, IndexError> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_u64(self.fields.table_key, key),
                IndexRecordOption::Basic,
            )),
        )];
        for (field, text) in terms {
            clauses.push((Occur::Must, term_query(*field, text)));
        }
        let docs = self
            .searcher
            .search(&BooleanQuery::new(clauses), &DocSetCollector)?;
        match docs.into_iter().min() {
            Some(address) => Ok(Some(self.searcher.doc(address)?)),
            None => Ok(None),
        }
    }

    /// The record of the table at `rank`; `stats_columns` filled only `with_columns`.
    pub fn table_record(
        &self,
        rank: usize,
        with_columns: bool,
    ) -> Result<Option<TableRecord>, IndexError> {
        let Some(entry) = self.tables.get(rank) else {
            return Ok(None);
        };
        let Some(doc) = self.first_doc(entry.key, &[(self.fields.kind, "table")])? else {
            return Ok(None);
        };
        let Some(bytes) = payload(&doc, self.fields.payload) else {
            return Ok(None);
        };
        let mut record: TableRecord = serde_json::from_slice(bytes)?;
        if with_columns {
            let listed = self.first_doc(entry.key, &[(self.fields.kind, "table_columns")])?;
            if let Some(bytes) = listed
                .as_ref()
                .and_then(|d| payload(d, self.fields.resolve))
            {
                // Only its column names: the rest of the catalog's record is skipped unread.
                #[derive(serde::Deserialize)]
                struct Named {
                    stats_columns: Vec<String>,
                }
                let named: Named = serde_json::from_slice(bytes)?;
                record.stats_columns = named.stats_columns;
            }
        }
        Ok(Some(record))
    }

    /// The column named `name` of the table at `rank` (not a part).
    pub fn column_by_name(
        &self,
        rank: usize,
        name: &str,
    ) -> Result<Option<ColumnRecord>, IndexError> {
        let Some(entry) = self.tables.get(rank) else {
            return Ok(None);
        };
        let term = format!("{RAW}{name}");
        let find = |kind: &str| {
            self.first_doc(
                entry.key,
                &[(self.fields.kind, kind), (self.fields.column, &term)],
            )
        };
        match find("column")? {
            Some(doc) => {
                let bytes = payload(&doc, self.fields.payload).unwrap_or(b"null");
                let mut record: ColumnRecord = serde_json::from_slice(bytes)?;
                if let Some(values) = find("values")? {
                    if let Some(resolve) = payload(&values, self.fields.resolve) {
                        record.resolve = Some(serde_json::from_slice(resolve)?);
                    }
                }
                Ok(Some(record))
            }
            // A name too long to be a term: look through the table's columns.
            None if name.len() > super::MAX_RAW => self.long_column(entry.key, name),
            None => Ok(None),
        }
    }

    fn long_column(&self, key: u64, name: &str) -> Result<Option<ColumnRecord>, IndexError> {
        let by_kind = |kind: &str| -> Result<Vec<TantivyDocument>, IndexError> {
            let query = BooleanQuery::new(vec![
                (
                    Occur::Must,
                    Box::new(TermQuery::new(
                        Term::from_field_u64(self.fields.table_key, key),
                        IndexRecordOption::Basic,
                    )) as Box<dyn Query>,
                ),
                (Occur::Must, term_query(self.fields.kind, kind)),
                (Occur::Must, term_query(self.fields.column, LONG)),
            ]);
            let mut docs = Vec::new();
            for address in self.searcher.search(&query, &DocSetCollector)? {
                docs.push(self.searcher.doc(address)?);
            }
            Ok(docs)
        };
        for doc in by_kind("column")? {
            let bytes = payload(&doc, self.fields.payload).unwrap_or(b"null");
            let mut record: ColumnRecord = serde_json::from_slice(bytes)?;
            if record.column != name {
                continue;
            }
            // The values documents of long names: the one whose record names this column.
            for values in by_kind("values")? {
                if let Some(bytes) = payload(&values, self.fields.resolve) {
                    let resolve: super::records::ColumnResolve = serde_json::from_slice(bytes)?;
                    if resolve.column == name {
                        record.resolve = Some(resolve);
                        break;
                    }
                }
            }
            return Ok(Some(record));
        }
        Ok(None)
    }

    /// What validate_sql's catalog reads of each walkable table whose position `wanted`
    /// accepts, handed to `each` with that position: one stored record per table, read,
    /// decoded and let go in turn (a large print's records are never held whole; an
    /// unwanted one is never read, so a catalog built again after a change reads only the
    /// tables it touched). A table the index holds no record for is not handed over.
    pub fn each_catalog_record(
        &self,
        wanted: &dyn Fn(usize) -> bool,
        each: &mut dyn FnMut(usize, CatalogTable),
    ) -> Result<(), IndexError> {
        self.each_doc_of_kind("table_columns", wanted, &mut |rank, doc| {
            if let Some(bytes) = payload(doc, self.fields.resolve) {
                each(rank, serde_json::from_slice(bytes)?);
            }
            Ok(())
        })
    }

    /// Each of this connection's documents of `kind` for the view's tables whose position
    /// `wanted` accepts, with that position, handed to `each` as it is read (a whole
    /// print's documents are never held at once; an unwanted one is never read).
    fn each_doc_of_kind(
        &self,
        kind: &str,
        wanted: &dyn Fn(usize) -> bool,
        each: &mut dyn FnMut(usize, &TantivyDocument) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let query = BooleanQuery::new(vec![
            (Occur::Must, term_query(self.fields.conn, &self.conn)),
            (Occur::Must, term_query(self.fields.kind, kind)),
        ]);
        // Read through mappings let go segment by segment (see `directory::StoresApart`);
        // the hits come in address order, segment by segment.
        let mut apart = super::directory::StoresApart::new(&self.dir, &self.searcher);
        for (rank, address) in self.searcher.search(&query, &self.table_hits())? {
            if wanted(rank) {
                each(rank, &apart.doc(address)?)?;
            }
        }
        Ok(())
    }

    /// Positions of the walkable tables whose record carries `flag`
    /// (`unreadable`, `looks_like_off`, `error`), in FQN order.
    pub fn flagged(&self, flag: &str) -> Result<Vec<usize>, IndexError> {
        let query = BooleanQuery::new(vec![
            (Occur::Must, term_query(self.fields.conn, &self.conn)),
            (Occur::Must, term_query(self.fields.kind, "table")),
            (Occur::Must, term_query(self.fields.flags, flag)),
        ]);
        let mut ranks: Vec<usize> = self
            .searcher
            .search(&query, &self.table_hits())?
            .into_iter()
            .map(|(rank, _)| rank)
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        Ok(ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix("status*"), "status");
        assert_eq!(literal_prefix("*x"), "");
        assert_eq!(literal_prefix("a?b"), "a");
        assert_eq!(literal_prefix("ab[c"), "ab");
        assert_eq!(literal_prefix("plain"), "plain");
    }
}
