//! find: one ranked search over what the print says of its tables, columns, values and
//! relationships, from free words to the next call to make.
//!
//! The index scores candidates by BM25 with field weights (`store::search::find`); here
//! the best of them are ranked again by how many of the query's words each one matches
//! (the square of the share, at least [`COVERAGE_FLOOR`]: a thing matching every word
//! outranks one matching a single word many times), a declared or candidate key and a column with a complete value list get
//! [`KEY_BOOST`], ties go by FQN, and each hit says why it matched and what to call next.

use crate::error::QueryError;
use crate::store::search::find::{short_name, FindCandidate, FindKind, FindRecord};
use crate::store::search::words::{self, QueryWord};
use crate::store::Snapshot;
use compat::py::repr_str;

/// Words of a query read at most: a longer query costs no more than this many words.
pub const MAX_WORDS: usize = 16;
pub const DEFAULT_LIMIT: usize = 10;
pub const MAX_LIMIT: usize = 50;
/// A candidate's score is multiplied by the square of the share of the query's words it
/// matches (a quarter for a thing matching half of them), and never by less than this.
pub const COVERAGE_FLOOR: f32 = 0.05;
/// A key column, or a column (or value) with a complete value list, ranks this much higher.
pub const KEY_BOOST: f32 = 1.1;
/// Scores equal to this many significant digits are equal ([`to_significant_digits`]).
const SIGNIFICANT_DIGITS: i32 = 5;
/// Candidates read from the index per hit asked for (and at least [`MIN_CANDIDATES`]).
const CANDIDATES_PER_HIT: usize = 2;
const MIN_CANDIDATES: usize = 40;
/// A query longer than this is not compared whole with names.
const MAX_EXACT: usize = 200;
/// A why's quoted prose is cut to this many characters.
const MAX_QUOTE: usize = 110;

/// What find was asked.
#[derive(Debug, Clone)]
pub struct Request {
    pub query: String,
    pub kinds: Vec<FindKind>,
    pub limit: usize,
}

/// The call an agent makes next about a hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Next {
    pub tool: &'static str,
    /// The call's arguments, in order.
    pub arguments: Vec<(&'static str, String)>,
}

/// One ranked hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub kind: FindKind,
    pub table: String,
    pub column: Option<String>,
    pub value: Option<String>,
    pub why: String,
    pub next: Next,
}

/// find's answer: the hits in rank order, and how many documents matched in all.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub query: String,
    pub hits: Vec<Hit>,
    pub total: usize,
}

/// The kinds argument's error for a kind find does not know, worded as argument faults are.
pub fn unknown_kind(kind: &str) -> QueryError {
    QueryError::InvalidArgument(format!(
        "kinds item {} must be one of {}.",
        repr_str(kind),
        crate::error::repr_str_list(&FindKind::ALL.map(str::to_string))
    ))
}

/// The words of `query` find looks for, or the error for a query with none.
pub fn query_words(query: &str) -> Result<Vec<QueryWord>, QueryError> {
    let found = words::query_words(query, MAX_WORDS);
    if found.is_empty() {
        let shown: String = query.chars().take(60).collect();
        let shown = if shown.len() < query.len() {
            format!("{shown}...")
        } else {
            shown
        };
        return Err(QueryError::InvalidArgument(format!(
            "query {} has no word to search for: only common words, punctuation or words longer than 40 characters. Name a thing, a column or a value.",
            repr_str(&shown)
        )));
    }
    Ok(found)
}

/// find's answer over `state`'s index.
pub fn answer(state: &Snapshot, request: &Request) -> Result<Found, QueryError> {
    let query_words = query_words(&request.query)?;
    let exact = if request.query.len() <= MAX_EXACT {
        words::exact_form(&request.query)
    } else {
        String::new()
    };
    let wanted = (request.limit * CANDIDATES_PER_HIT).max(MIN_CANDIDATES);
    let found = state
        .search
        .find(&query_words, &exact, &request.kinds, wanted)
        .map_err(|e| QueryError::Internal(e.to_string()))?;
    let hits = rank(found.candidates, &query_words)
        .into_iter()
        .take(request.limit)
        .map(|(matched, record)| hit(record, &matched))
        .collect();
    Ok(Found {
        query: request.query.clone(),
        hits,
        total: found.total,
    })
}

/// Candidates in reply order: each score times the square of the share of the query's
/// words the candidate matches (at least [`COVERAGE_FLOOR`]), times [`KEY_BOOST`] for a key
/// or a complete value list; equal scores by FQN.
fn rank(candidates: Vec<FindCandidate>, query_words: &[QueryWord]) -> Vec<(Matched, FindRecord)> {
    let mut ranked: Vec<(f32, Matched, FindRecord)> = candidates
        .into_iter()
        .map(|FindCandidate { score, record }| {
            let matched = Matched::of(&record, query_words);
            let share = matched.words as f32 / query_words.len() as f32;
            let mut score = score * (share * share).max(COVERAGE_FLOOR);
            if record.key || record.complete {
                score *= KEY_BOOST;
            }
            (to_significant_digits(score), matched, record)
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| order_key(&a.2).cmp(&order_key(&b.2)))
    });
    ranked.into_iter().map(|(_, m, r)| (m, r)).collect()
}

/// `score` rounded to [`SIGNIFICANT_DIGITS`]: the index adds a document's term scores in
/// no fixed order, so two things that score the same may differ in the last bits, and they
/// must still go by FQN.
fn to_significant_digits(score: f32) -> f32 {
    if !(score.is_finite() && score > 0.0) {
        return score;
    }
    let score = f64::from(score);
    let scale = 10f64.powi(SIGNIFICANT_DIGITS - 1 - score.log10().floor() as i32);
    ((score * scale).round() / scale) as f32
}

/// The stable order of equal scores: by FQN, then column, value and kind.
fn order_key(r: &FindRecord) -> (&str, &str, &str, FindKind) {
    (
        r.table.as_str(),
        r.column.as_deref().unwrap_or(""),
        r.value.as_deref().unwrap_or(""),
        r.kind,
    )
}

/// Which of the query's words a record matches, and where.
#[derive(Debug, Default)]
struct Matched {
    /// Query words matched anywhere.
    words: usize,
    /// Query words (as the query spells them) matched in the name, with the name's word
    /// when matched by one edit.
    in_name: Vec<(String, Option<String>)>,
    /// The first prose line holding a matched word.
    quote: Option<String>,
    /// Whether a word matched only where the thing sits (its table or column).
    in_context: bool,
}

impl Matched {
    fn of(record: &FindRecord, query: &[QueryWord]) -> Matched {
        let words::Matches {
            terms: name_terms,
            near: name_near,
            near_words: name_words,
        } = words::matches(&record.name, query);
        let sentences: Vec<String> = record.prose.iter().flat_map(|p| sentences(p)).collect();
        // Per sentence, which query words it holds (their terms, or a word one edit away).
        let per_sentence: Vec<u32> = sentences
            .iter()
            .map(|p| {
                let m = words::matches(p, query);
                m.terms | m.near
            })
            .collect();
        let in_prose = per_sentence.iter().fold(0, |all, m| all | m);
        let context = words::term_mask(
            &format!(
                "{} {}",
                record.table.replace('.', " "),
                record.column.as_deref().unwrap_or("")
            ),
            query,
        );
        let mut m = Matched::default();
        for (i, w) in query.iter().enumerate().take(32) {
            let bit = 1u32 << i;
            if name_terms & bit != 0 {
                m.in_name.push((w.word.clone(), None));
            } else if name_near & bit != 0 {
                let near = name_words
                    .iter()
                    .find(|(at, _)| *at == i)
                    .map(|(_, n)| n.clone());
                m.in_name.push((w.word.clone(), near));
            }
            let anywhere = (name_terms | name_near | in_prose) & bit != 0;
            if !anywhere && context & bit != 0 {
                m.in_context = true;
            }
            m.words += usize::from(anywhere || context & bit != 0);
        }
        // The sentence holding the most query words, a heading only when no other holds one.
        let quoted = (0..sentences.len())
            .filter(|&i| per_sentence[i] != 0)
            .max_by_key(|&i| {
                (
                    !sentences[i].starts_with('#'),
                    per_sentence[i].count_ones(),
                    usize::MAX - i,
                )
            });
        m.quote = quoted.map(|i| quote(&sentences[i]));
        m
    }
}

/// The sentences of prose: a heading alone, a paragraph's lines joined and cut after
/// each full stop.
fn sentences(text: &str) -> Vec<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            if !line.is_empty() {
                paragraphs.push(line.to_string());
            }
            open = false;
        } else if open {
            let last = paragraphs.last_mut().expect("an open paragraph");
            last.push(' ');
            last.push_str(line);
        } else {
            paragraphs.push(line.to_string());
            open = true;
        }
    }
    let mut out = Vec::new();
    for p in paragraphs {
        let mut rest = p.as_str();
        while let Some(at) = rest.find(". ") {
            out.push(rest[..=at].to_string());
            rest = rest[at + 2..].trim_start();
        }
        if !rest.is_empty() {
            out.push(rest.to_string());
        }
    }
    out
}

/// Prose as a why quotes it: one line, whitespace collapsed, cut at [`MAX_QUOTE`].
fn quote(text: &str) -> String {
    let line = text
        .split_whitespace()
        .filter(|w| !w.chars().all(|c| c == '#'))
        .collect::<Vec<_>>()
        .join(" ");
    match line.char_indices().nth(MAX_QUOTE) {
        Some((at, _)) => format!("{}...", line[..at].trim_end()),
        None => line,
    }
}

fn why(record: &FindRecord, m: &Matched) -> String {
    let mut parts = Vec::new();
    if !m.in_name.is_empty() {
        let said: Vec<String> = m
            .in_name
            .iter()
            .map(|(word, near)| match near {
                Some(n) if n != word => format!("`{word}` (as `{n}`)"),
                _ => format!("`{word}`"),
            })
            .collect();
        let what = match record.kind {
            FindKind::Value => "value",
            _ => "name",
        };
        parts.push(format!("{what} matches {}", said.join(", ")));
    }
    if let Some(q) = &m.quote {
        let label = match record.kind {
            FindKind::Table => "description",
            _ => "note",
        };
        parts.push(format!("{label}: '{q}'"));
    }
    if m.in_context && parts.is_empty() {
        parts.push(format!("in table `{}`", short_name(&record.table)));
    }
    if parts.is_empty() {
        parts.push("a word one edit away".to_string());
    }
    parts.join("; ")
}

fn hit(record: FindRecord, m: &Matched) -> Hit {
    let why = why(&record, m);
    let next = match (&record.kind, &record.column, &record.value) {
        (FindKind::Value, Some(column), Some(value)) => Next {
            tool: "resolve_value",
            arguments: vec![
                ("table", record.table.clone()),
                ("column", column.clone()),
                ("text", value.clone()),
            ],
        },
        _ => Next {
            tool: "get_table_context",
            arguments: vec![("table", record.table.clone())],
        },
    };
    Hit {
        kind: record.kind,
        table: record.table,
        column: record.column,
        value: record.value,
        why,
        next,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: FindKind, name: &str, prose: &[&str]) -> FindRecord {
        FindRecord {
            kind,
            table: "billing.fees".into(),
            column: Some("fee_amount".into()),
            value: None,
            name: name.into(),
            prose: prose.iter().map(|p| p.to_string()).collect(),
            key: false,
            complete: false,
        }
    }

    fn ranked(candidates: Vec<(f32, FindRecord)>, query: &str) -> Vec<String> {
        let q = query_words(query).unwrap();
        let candidates = candidates
            .into_iter()
            .map(|(score, record)| FindCandidate { score, record })
            .collect();
        rank(candidates, &q)
            .into_iter()
            .map(|(_, r)| format!("{} {}", r.table, r.column.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn equal_scores_go_by_fqn_and_a_key_or_complete_list_ranks_a_little_higher() {
        let at = |table: &str, column: &str| FindRecord {
            table: table.into(),
            column: Some(column.into()),
            ..record(FindKind::Column, column, &[])
        };
        let order = ranked(
            vec![(2.0, at("s.b", "fee")), (2.0, at("s.a", "fee"))],
            "fee",
        );
        assert_eq!(order, ["s.a fee", "s.b fee"]);
        let key = FindRecord {
            key: true,
            ..at("s.b", "fee")
        };
        let order = ranked(vec![(2.0, at("s.a", "fee")), (2.0, key)], "fee");
        assert_eq!(order, ["s.b fee", "s.a fee"]);
        // A little: not over a clearly better score.
        let complete = FindRecord {
            complete: true,
            ..at("s.b", "fee")
        };
        let order = ranked(vec![(2.5, at("s.a", "fee")), (2.0, complete)], "fee");
        assert_eq!(order, ["s.a fee", "s.b fee"]);
        // Scores a few bits apart (sums taken in another order) are equal.
        let above = f32::from_bits(2.0f32.to_bits() + 3);
        let order = ranked(
            vec![(above, at("s.b", "fee")), (2.0, at("s.a", "fee"))],
            "fee",
        );
        assert_eq!(order, ["s.a fee", "s.b fee"]);
    }

    #[test]
    fn a_thing_matching_every_word_outranks_one_matching_a_word_strongly() {
        let both = record(FindKind::Column, "late_fee", &[]);
        let one = FindRecord {
            table: "a.first".into(),
            ..record(FindKind::Column, "fee", &[])
        };
        // Three times the index's score for one of two words is not enough.
        let order = ranked(vec![(3.0, one), (1.0, both)], "late fee");
        assert_eq!(order, ["billing.fees fee_amount", "a.first fee_amount"]);
    }

    #[test]
    fn a_why_names_the_matched_words_and_quotes_the_note() {
        let q = query_words("late fees").unwrap();
        let r = record(
            FindKind::Column,
            "fee_amount",
            &["Charged per day when a rental is late."],
        );
        let m = Matched::of(&r, &q);
        assert_eq!(m.words, 2);
        assert_eq!(
            why(&r, &m),
            "name matches `fees`; note: 'Charged per day when a rental is late.'"
        );
    }

    #[test]
    fn a_misspelled_word_says_which_name_word_it_matched() {
        let q = query_words("custmer").unwrap();
        let r = record(FindKind::Column, "customer_name", &[]);
        let m = Matched::of(&r, &q);
        assert_eq!(why(&r, &m), "name matches `custmer` (as `customer`)");
    }

    #[test]
    fn a_long_note_is_quoted_on_one_line_and_cut() {
        let long = format!("# Title\n\n{}", "word ".repeat(100));
        let q = quote(&long);
        assert!(!q.contains('\n') && !q.contains('#'), "{q}");
        assert!(
            q.ends_with("...") && q.chars().count() <= MAX_QUOTE + 3,
            "{q}"
        );
    }

    #[test]
    fn a_query_without_a_word_to_search_for_is_refused() {
        let e = query_words("the of and ?").unwrap_err().to_string();
        assert_eq!(e, "query 'the of and ?' has no word to search for: only common words, punctuation or words longer than 40 characters. Name a thing, a column or a value.");
        assert_eq!(
            unknown_kind("tables").to_string(),
            "kinds item 'tables' must be one of ['column', 'note', 'table', 'value']."
        );
    }

    #[test]
    fn a_value_hit_leads_to_resolve_value_and_the_rest_to_the_table() {
        let mut r = record(FindKind::Value, "overdue", &[]);
        r.value = Some("overdue".into());
        let h = hit(r, &Matched::default());
        assert_eq!(h.next.tool, "resolve_value");
        assert_eq!(
            h.next.arguments,
            [
                ("table", "billing.fees".to_string()),
                ("column", "fee_amount".into()),
                ("text", "overdue".into())
            ]
        );
        let h = hit(
            record(FindKind::Column, "fee_amount", &[]),
            &Matched::default(),
        );
        assert_eq!(h.next.tool, "get_table_context");
    }
}
