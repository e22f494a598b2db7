//! find's documents and their ranked lookup, in the one search index beside
//! search_columns' documents (kind `find`; same table key, same sync, same commits), so a
//! table's find documents are replaced exactly when its other documents are.
//!
//! One document per table (its name; its description.md), per column (its name; its note
//! and value notes), per string value of a complete or sampled value list (the value; its
//! note) and per relationship note (the columns and target; the note). Fields, all
//! analyzed by [`words`](super::words), registered with the index as its tokenizers (the
//! query side makes its terms with the same functions):
//!
//! | field | holds | weight |
//! |---|---|---|
//! | `find_name` | the name (table, column, value, the relationship's columns and target) | [`NAME_WEIGHT`] |
//! | `find_text` | the prose: description, note, value notes | [`TEXT_WEIGHT`] |
//! | `find_word` | the name's and the prose's words, lowercased and not stemmed: what typo tolerance matches | [`FUZZY_WEIGHT`] |
//! | `find_exact` | the name's exact form (its terms joined) | [`EXACT_WEIGHT`] |
//!
//! BM25 scores each field; the weights make a table's or a column's name count over its
//! description or note, and an exact name over everything. Where a thing sits (its table,
//! its column) is not a field: it would make every column and value of a table match the
//! table's words, many times the documents to score on a large print. The query stage
//! counts those words when it ranks the best candidates again.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use tantivy::collector::{Count, TopDocs};
use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::{
    Bm25Weight, BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring, FuzzyTermQuery, Occur,
    Query, TermQuery,
};
use tantivy::schema::{IndexRecordOption, Value as _};
use tantivy::{DocAddress, TantivyDocument, Term};

use super::records::{Derived, ValuesState};
use super::words::{self, QueryWord};
use super::{Fields, IndexError, SearchView};
use compat::py::str_of;
use compat::value::Value;

/// A name matched counts this much over the same word in prose.
pub const NAME_WEIGHT: f32 = 3.0;
pub const TEXT_WEIGHT: f32 = 1.0;
/// A word one edit away from a query word (a misspelling) counts a little.
pub const FUZZY_WEIGHT: f32 = 0.8;
/// A query that is a thing's whole name, in any spelling, puts that thing first.
pub const EXACT_WEIGHT: f32 = 12.0;
/// At most this many string values of one column are indexed (a list of codes is short;
/// a longer one is a sample of free text).
const VALUES_PER_COLUMN: usize = 60;
/// A value longer than this is free text, not a code anyone names.
const MAX_VALUE: usize = 80;
/// Prose kept on a hit for its one-line why.
const MAX_PROSE: usize = 2_000;

/// What a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindKind {
    Table,
    Column,
    Value,
    Note,
}

impl FindKind {
    pub const ALL: [&'static str; 4] = ["column", "note", "table", "value"];

    pub fn name(self) -> &'static str {
        match self {
            FindKind::Table => "table",
            FindKind::Column => "column",
            FindKind::Value => "value",
            FindKind::Note => "note",
        }
    }

    pub fn parse(s: &str) -> Option<FindKind> {
        match s {
            "table" => Some(FindKind::Table),
            "column" => Some(FindKind::Column),
            "value" => Some(FindKind::Value),
            "note" => Some(FindKind::Note),
            _ => None,
        }
    }
}

/// A find document's stored part: what a hit says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindRecord {
    pub kind: FindKind,
    pub table: String,
    /// The column (a column's, a value's), or the relationship's columns joined by `, `.
    pub column: Option<String>,
    /// A value as `str()` spells it.
    pub value: Option<String>,
    /// What `find_name` was made from.
    pub name: String,
    /// The prose searched: description, note, value notes (each a line).
    pub prose: Vec<String>,
    /// A declared or candidate key (a column).
    pub key: bool,
    /// A column with a complete value list, or a value of one.
    pub complete: bool,
}

/// One scored candidate.
#[derive(Debug, Clone)]
pub struct FindCandidate {
    pub score: f32,
    pub record: FindRecord,
}

/// The best candidates for a query, and how many documents matched in all.
#[derive(Debug, Clone, Default)]
pub struct FindCandidates {
    pub candidates: Vec<FindCandidate>,
    pub total: usize,
}

/// The last dotted part of a name.
pub fn short_name(fqn: &str) -> &str {
    fqn.rsplit('.').next().unwrap_or(fqn)
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_PROSE) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// Every find document of one table, each started by `base` (kind, connection, table id
/// and key), from its derived records, its description's text and its relationship
/// annotations.
pub(super) fn documents(
    f: &Fields,
    base: &dyn Fn(&str) -> TantivyDocument,
    derived: &Derived,
    description: Option<&str>,
    relationship_notes: Option<&Value>,
) -> Result<Vec<TantivyDocument>, IndexError> {
    let fqn = derived.table.fqn.as_str();
    let mut docs = Vec::new();
    let mut add = |record: FindRecord| -> Result<(), IndexError> {
        let mut doc = base("find");
        doc.add_text(f.find_kind, record.kind.name());
        // The index analyzes the name and prose itself (`words::Terms`, `words::Plain`).
        doc.add_text(f.find_exact, words::exact_form(&record.name));
        doc.add_text(f.find_name, &record.name);
        for line in &record.prose {
            doc.add_text(f.find_text, line);
        }
        // What a misspelled word is compared with: one value, so its tokenizer lists each
        // word once and a near word scores the same however often it is written.
        let mut plain = record.name.clone();
        for line in &record.prose {
            plain.push('\n');
            plain.push_str(line);
        }
        doc.add_text(f.find_word, &plain);
        doc.add_bytes(f.find_hit, &serde_json::to_vec(&record)?);
        docs.push(doc);
        Ok(())
    };
    add(FindRecord {
        kind: FindKind::Table,
        table: fqn.to_string(),
        column: None,
        value: None,
        name: short_name(fqn).to_string(),
        prose: description.map(cut).into_iter().collect(),
        key: false,
        complete: false,
    })?;
    for c in derived.columns.iter().filter(|c| c.part.is_none()) {
        let own = c.resolve.as_ref().and_then(|r| r.own.as_ref());
        let complete = own.is_some_and(|r| r.complete);
        let mut prose: Vec<String> = c.note.iter().map(|n| cut(n)).collect();
        prose.extend(
            c.value_notes
                .iter()
                .map(|(v, n)| cut(&format!("{}: {n}", str_of(v)))),
        );
        add(FindRecord {
            kind: FindKind::Column,
            table: fqn.to_string(),
            column: Some(c.column.clone()),
            value: None,
            name: c.column.clone(),
            prose,
            key: c.candidate_key == Some(true),
            complete,
        })?;
        for value in column_values(c, own) {
            let note = c
                .value_notes
                .iter()
                .find(|(v, _)| str_of(v) == value)
                .map(|(_, n)| cut(n));
            add(FindRecord {
                kind: FindKind::Value,
                table: fqn.to_string(),
                column: Some(c.column.clone()),
                name: value.clone(),
                value: Some(value),
                prose: note.into_iter().collect(),
                key: false,
                complete,
            })?;
        }
    }
    for (columns, target, note) in relationship_notes.map(notes_of).unwrap_or_default() {
        add(FindRecord {
            kind: FindKind::Note,
            table: fqn.to_string(),
            column: Some(columns.clone()),
            value: None,
            name: format!("{columns} {target}"),
            prose: vec![cut(&note)],
            key: false,
            complete: false,
        })?;
    }
    Ok(docs)
}

/// The string values a column's list holds (listed, then noted), each once, at most
/// [`VALUES_PER_COLUMN`].
fn column_values(
    c: &super::records::ColumnRecord,
    own: Option<&super::records::Resolve>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let listed = own
        .filter(|r| r.values == ValuesState::Present)
        .map(|r| r.listed.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e.get("value"));
    for v in listed.chain(c.value_notes.iter().map(|(v, _)| v)) {
        let Value::Str(s) = v else { continue };
        if s.trim().is_empty() || s.chars().count() > MAX_VALUE || out.contains(s) {
            continue;
        }
        out.push(s.clone());
        if out.len() >= VALUES_PER_COLUMN {
            break;
        }
    }
    out
}

/// A relationships.annotations.yaml's notes: (the columns, the target table, the note),
/// from every list of entries under its top-level keys.
fn notes_of(file: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let Some(map) = file.as_map() else {
        return out;
    };
    for (_, entries) in map.iter() {
        let Some(entries) = entries.as_seq() else {
            continue;
        };
        for entry in entries {
            let Some(Value::Str(note)) = entry.get("note") else {
                continue;
            };
            let words_of = |key: &str| match entry.get(key) {
                Some(Value::Seq(items)) => items.iter().map(str_of).collect::<Vec<_>>().join(", "),
                Some(Value::Str(s)) => s.clone(),
                _ => String::new(),
            };
            let target = [words_of("target_table"), words_of("table")]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or_default();
            out.push((words_of("column"), target, note.clone()));
        }
    }
    out
}

fn boosted(query: Box<dyn Query>, weight: f32) -> Box<dyn Query> {
    Box::new(BoostQuery::new(query, weight))
}

fn term(field: tantivy::schema::Field, text: &str) -> Box<dyn Query> {
    term_of(Term::from_field_text(field, text))
}

fn term_of(term: Term) -> Box<dyn Query> {
    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
}

impl SearchView {
    /// The `wanted` best-scored find documents of this view's tables for `query_words`
    /// (and `exact`, the whole query's exact form), of `kinds` when given, and how many
    /// matched in all.
    ///
    /// Every match is scored, in the pass that counts them. tantivy's pruned top hits
    /// (block-max WAND, which skips postings that cannot beat the best so far) were
    /// measured a little faster but drop matches tied for the best in a large segment,
    /// so a page could show weaker hits than the ones it left out. A misspelled word is
    /// the indexed words one edit from its forms (`near_words`).
    pub fn find(
        &self,
        query_words: &[QueryWord],
        exact: &str,
        kinds: &[FindKind],
        wanted: usize,
    ) -> Result<FindCandidates, IndexError> {
        let f = &self.fields;
        let words = self.words_query(query_words, exact)?;
        // Only find's documents hold the find fields, so no kind filter is needed; nor a
        // connection filter when every document (deleted ones too) is this connection's.
        let mut filter: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !self.only_connection()? {
            filter.push((Occur::Must, term(f.conn, &self.conn)));
        }
        if !kinds.is_empty() {
            let any: Vec<(Occur, Box<dyn Query>)> = kinds
                .iter()
                .map(|k| (Occur::Should, term(f.find_kind, k.name())))
                .collect();
            filter.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        let query = if filter.is_empty() {
            words
        } else {
            BooleanQuery::new(vec![
                (Occur::Must, Box::new(words) as Box<dyn Query>),
                (
                    Occur::Must,
                    Box::new(ConstScoreQuery::new(
                        Box::new(BooleanQuery::new(filter)),
                        0.0,
                    )),
                ),
            ])
        };
        let (top, total) = self.scored(&query, wanted)?;
        let mut candidates = Vec::with_capacity(top.len());
        for (score, address) in top {
            if let Some(record) = self.find_record(address)? {
                candidates.push(FindCandidate { score, record });
            }
        }
        Ok(FindCandidates { candidates, total })
    }

    /// The union of term queries find scores: each query word in names and in prose, the
    /// words near a misspelled one, and the whole query as an exact name.
    fn words_query(
        &self,
        query_words: &[QueryWord],
        exact: &str,
    ) -> Result<BooleanQuery, IndexError> {
        let f = &self.fields;
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for w in query_words {
            should.push((
                Occur::Should,
                boosted(term(f.find_name, &w.term), NAME_WEIGHT),
            ));
            should.push((
                Occur::Should,
                boosted(term(f.find_text, &w.term), TEXT_WEIGHT),
            ));
            if w.fuzzy {
                for (near, weight) in self.near_words(&w.forms)? {
                    should.push((Occur::Should, boosted(term_of(near), weight)));
                }
            }
        }
        if !exact.is_empty() {
            should.push((
                Occur::Should,
                boosted(term(f.find_exact, exact), EXACT_WEIGHT),
            ));
        }
        Ok(BooleanQuery::new(should))
    }

    /// The best `wanted` of any query and the count of its matches, every match scored.
    fn scored(
        &self,
        query: &dyn Query,
        wanted: usize,
    ) -> Result<(Vec<(f32, DocAddress)>, usize), IndexError> {
        Ok(self.searcher.search_with_executor(
            query,
            &(TopDocs::with_limit(wanted).order_by_score(), Count),
            super::search_executor(),
            EnableScoring::enabled_from_searcher(&self.searcher),
        )?)
    }

    /// The indexed words (`find_word`) one edit from each of a misspelled word's `forms`
    /// (a word near two forms is listed for each, as it matches each), each with the boost
    /// that makes it score [`FUZZY_WEIGHT`]: a near word says little of how well a thing
    /// matches, so its score is not its rarity.
    fn near_words(&self, forms: &[String]) -> Result<Vec<(Term, f32)>, IndexError> {
        let field = self.fields.find_word;
        let mut near: Vec<Vec<u8>> = Vec::new();
        for form in forms {
            let automaton =
                FuzzyTermQuery::new(Term::from_field_text(field, form), 1, true).automaton()?;
            let mut of_form: BTreeSet<Vec<u8>> = BTreeSet::new();
            for segment in self.searcher.segment_readers() {
                let inverted = segment.inverted_index(field)?;
                let mut words = inverted.terms().search(&automaton).into_stream()?;
                while words.advance() {
                    of_form.insert(words.key().to_vec());
                }
            }
            near.extend(of_form);
        }
        let mut out = Vec::with_capacity(near.len());
        for word in near {
            let Ok(text) = std::str::from_utf8(&word) else {
                continue;
            };
            let term = Term::from_field_text(field, text);
            // The field keeps no lengths, so every document reads as length one, and its
            // tokenizer lists a word once.
            let once = Bm25Weight::for_terms(&self.searcher, std::slice::from_ref(&term))?
                .score(FieldNormReader::fieldnorm_to_id(1), 1);
            if once > 0.0 {
                out.push((term, FUZZY_WEIGHT / once));
            }
        }
        Ok(out)
    }

    /// Whether every document in the index, deleted or not, is this view's connection's.
    pub(super) fn only_connection(&self) -> Result<bool, IndexError> {
        let mine = self
            .searcher
            .doc_freq(&Term::from_field_text(self.fields.conn, &self.conn))?;
        let all: u64 = self
            .searcher
            .segment_readers()
            .iter()
            .map(|r| u64::from(r.max_doc()))
            .sum();
        Ok(mine == all)
    }

    /// A find document's record, when its table is one of this view's (a document another
    /// writer stored under a key this view does not know is not this view's).
    fn find_record(&self, address: DocAddress) -> Result<Option<FindRecord>, IndexError> {
        let key = self
            .searcher
            .segment_reader(address.segment_ord)
            .fast_fields()
            .u64("table_key")?
            .first(address.doc_id);
        if !key.is_some_and(|k| self.rank.contains_key(&k)) {
            return Ok(None);
        }
        let doc: TantivyDocument = self.searcher.doc(address)?;
        let Some(bytes) = doc
            .get_first(self.fields.find_hit)
            .and_then(|v| v.as_bytes())
        else {
            return Ok(None);
        };
        Ok(Some(serde_json::from_slice(bytes)?))
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use super::super::{table_key, Loaded, SearchIndex, TableEntry};
    use super::*;
    use crate::ingest::Parsed;

    /// One table's files: its statistics (YAML) and its description.
    struct Table {
        fqn: &'static str,
        stats: &'static str,
        description: &'static str,
    }

    fn view_of(dir: &Path, tables: &[Table]) -> SearchView {
        view_in(&SearchIndex::open(dir, false).unwrap(), "c", tables)
    }

    /// `tables` as connection `conn`'s, synced into `index`.
    fn view_in(index: &SearchIndex, conn: &str, tables: &[Table]) -> SearchView {
        let mut files: HashMap<PathBuf, Parsed> = HashMap::new();
        let mut entries = Vec::new();
        for t in tables {
            let stats = PathBuf::from(format!("/p/{}/statistics.yaml", t.fqn));
            let description = PathBuf::from(format!("/p/{}/description.md", t.fqn));
            files.insert(
                stats.clone(),
                Parsed::Yaml(compat::yaml::load(t.stats).unwrap()),
            );
            files.insert(
                description.clone(),
                Parsed::Prose(t.description.to_string()),
            );
            let key = table_key(
                conn,
                t.fqn,
                [Some((&stats, "1")), None, Some((&description, "1")), None],
            );
            entries.push(TableEntry {
                fqn: t.fqn.to_string(),
                key,
                stats: Some(stats.into()),
                annotations: None,
                description: Some(description.into()),
                relationship_notes: None,
                identities: [None; 4],
                row_count: None,
            });
        }
        let load = |p: &Path| Loaded {
            parsed: Cow::Owned(files[p].clone()),
            version: "1".to_string(),
        };
        index.sync(conn, entries, &load).unwrap()
    }

    fn ranked(view: &SearchView, query: &str) -> Vec<String> {
        let words = words::query_words(query, 16);
        let found = view
            .find(&words, &words::exact_form(query), &[], 20)
            .unwrap();
        found
            .candidates
            .iter()
            .map(|c| {
                let r = &c.record;
                match &r.column {
                    Some(col) => format!("{} {}.{col}", r.kind.name(), r.table),
                    None => format!("{} {}", r.kind.name(), r.table),
                }
            })
            .collect()
    }

    const PLAIN: &str = "columns:\n  amount: {sql_type: INT}\n";

    #[test]
    fn a_name_counts_over_prose_and_an_exact_name_comes_first() {
        let dir = tempfile::tempdir().unwrap();
        let view = view_of(
            dir.path(),
            &[
                Table {
                    fqn: "s.fees",
                    stats: "columns:\n  fee_amount: {sql_type: INT}\n  id: {sql_type: INT}\n",
                    description: "Charges for returns.",
                },
                Table {
                    fqn: "s.charges",
                    stats: PLAIN,
                    description: "Fees charged at the desk.",
                },
            ],
        );
        let fees = ranked(&view, "fees");
        let at = |hit: &str| fees.iter().position(|h| h == hit).unwrap_or(usize::MAX);
        // A table's name over another's description.
        assert!(at("table s.fees") < at("table s.charges"), "{fees:?}");
        // A column's name over a table's description.
        assert!(
            at("column s.fees.fee_amount") < at("table s.charges"),
            "{fees:?}"
        );
        // The whole name, in another spelling, first.
        assert_eq!(ranked(&view, "FeeAmount")[0], "column s.fees.fee_amount");
        // A word one edit away is found, below the exact word.
        assert!(ranked(&view, "charjes").contains(&"table s.charges".to_string()));
    }

    #[test]
    fn a_near_word_scores_its_weight_however_often_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let view = view_of(
            dir.path(),
            &[
                Table {
                    fqn: "s.once",
                    stats: PLAIN,
                    description: "Charges.",
                },
                Table {
                    fqn: "s.thrice",
                    stats: PLAIN,
                    description: "Charges, charges and more charges.",
                },
            ],
        );
        // Only the misspelling's near word matches, in each table's description.
        let words = words::query_words("charjes", 16);
        let found = view
            .find(&words, &words::exact_form("charjes"), &[], 10)
            .unwrap();
        let scores: Vec<(&str, f32)> = found
            .candidates
            .iter()
            .map(|c| (c.record.table.as_str(), c.score))
            .collect();
        assert_eq!(scores.len(), 2, "{scores:?}");
        for (_, score) in &scores {
            assert!((score - FUZZY_WEIGHT).abs() < 1e-4, "{scores:?}");
        }
    }

    /// Tables' strings made at run time, for a test's many tables.
    fn leaked(text: String) -> &'static str {
        Box::leak(text.into_boxed_str())
    }

    /// Clones of three tables: every score tied many times over, postings over many blocks.
    fn tied_clones() -> Vec<Table> {
        (0..1_200)
            .map(|i| {
                let (name, stats, description) = match i % 3 {
                    0 => (
                        "fees",
                        "columns:\n  fee_amount: {sql_type: INT}\n  late_fee: {sql_type: INT}\n",
                        "Late fees charged on overdue loans.",
                    ),
                    1 => (
                        "loans",
                        "columns:\n  due_date: {sql_type: DATE}\n  overdue: {sql_type: BOOLEAN}\n",
                        "Loans, and when each is due back.",
                    ),
                    _ => (
                        "patrons",
                        "columns:\n  email: {sql_type: VARCHAR}\n",
                        "People who borrow; some owe fees.",
                    ),
                };
                Table {
                    fqn: leaked(format!("s{i:04}.{name}")),
                    stats,
                    description,
                }
            })
            .collect()
    }

    #[test]
    fn the_best_hits_are_those_of_sorting_every_match_in_one_segment_or_several() {
        let tables = tied_clones();
        // One sync (one segment), then three syncs of 400 tables (three segments).
        let one = tempfile::tempdir().unwrap();
        let view = view_of(one.path(), &tables);
        assert_eq!(view.searcher.segment_readers().len(), 1);
        best_hits_are_the_sorted_best(&view);
        let several = tempfile::tempdir().unwrap();
        let index = SearchIndex::open(several.path(), false).unwrap();
        for end in [400, 800] {
            view_in(&index, "c", &tables[..end]);
        }
        let view = view_in(&index, "c", &tables);
        assert_eq!(view.searcher.segment_readers().len(), 3);
        best_hits_are_the_sorted_best(&view);
    }

    /// find's best `wanted` scores are the first `wanted` of every match's score, sorted
    /// (tantivy's pruned top 40 of "overdue fees" on one segment held 36 of the 400
    /// documents tied for the best, then weaker ones), and its total is every match.
    fn best_hits_are_the_sorted_best(view: &SearchView) {
        for query in [
            "overdue fees",
            "late fee amount",
            "patrns emial",
            "loans",
            "fees",
        ] {
            let words = words::query_words(query, 16);
            let exact = words::exact_form(query);
            let union = view.words_query(&words, &exact).unwrap();
            let mut every: Vec<f32> = Vec::new();
            for segment in view.searcher.segment_readers() {
                let weight = union
                    .weight(tantivy::query::EnableScoring::enabled_from_searcher(
                        &view.searcher,
                    ))
                    .unwrap();
                weight
                    .for_each(segment, &mut |_, score| every.push(score))
                    .unwrap();
            }
            every.sort_by(|a, b| b.total_cmp(a));
            for wanted in [1, 40, 100] {
                let found = view.find(&words, &exact, &[], wanted).unwrap();
                assert_eq!(found.total, every.len(), "{query}");
                assert!(found.total > wanted, "{query}: {} matches", found.total);
                let mut got: Vec<f32> = found.candidates.iter().map(|c| c.score).collect();
                got.sort_by(|a, b| b.total_cmp(a));
                assert_eq!(got.len(), wanted, "{query}");
                // Scores summed in another order may differ in the last place.
                for (x, y) in got.iter().zip(&every) {
                    assert!(
                        (x - y).abs() <= 1e-5 * y.abs(),
                        "{query}, {wanted}: {got:?} {:?}",
                        &every[..wanted]
                    );
                }
            }
        }
    }

    #[test]
    fn a_connection_finds_only_its_own_tables_in_a_shared_index() {
        let dir = tempfile::tempdir().unwrap();
        let index = SearchIndex::open(dir.path(), false).unwrap();
        let fees = |fqn| Table {
            fqn,
            stats: PLAIN,
            description: "Late fees.",
        };
        let mine = view_in(&index, "c", &[fees("s.fees")]);
        // Alone in the index, then beside another connection's documents.
        assert_eq!(ranked(&mine, "fees"), ["table s.fees"]);
        let theirs = view_in(&index, "d", &[fees("t.fees")]);
        let mine = view_in(&index, "c", &[fees("s.fees")]);
        assert_eq!(ranked(&mine, "fees"), ["table s.fees"]);
        assert_eq!(ranked(&theirs, "fees"), ["table t.fees"]);
    }

    #[test]
    fn values_of_a_list_are_hits_that_name_their_column() {
        let dir = tempfile::tempdir().unwrap();
        let view = view_of(
            dir.path(),
            &[Table {
                fqn: "s.loans",
                stats: "columns:\n  status:\n    sql_type: VARCHAR\n    values: [{value: overdue, count: 3}, {value: out, count: 2}, {value: 7, count: 1}]\n    values_coverage: 1.0\n",
                description: "",
            }],
        );
        assert_eq!(ranked(&view, "overdue")[0], "value s.loans.status");
        // Numbers in a value list are not values anyone names.
        assert!(!ranked(&view, "7").iter().any(|h| h.starts_with("value")));
    }
}
