//! find's words: how a name, a note or a query becomes the terms the index holds, the same
//! way on both sides. Identifiers split where their spelling changes (`customer_id`,
//! `CustomerID`, `customerId` and `customer id` are the words `customer` and `id`; `HTTPServer`
//! is `http server`; `address2` is `address 2`), words are lowercased, a listed
//! abbreviation becomes the words it stands for (`abbreviations`), and each word is
//! reduced to its English stem (`fees` and `fee` are one term, as are `invoices` and
//! `invoice`). Stopwords stay in the index (a value may be `no`); a query drops them.

use std::cell::RefCell;
use std::collections::HashMap;

use tantivy::tokenizer::{
    Language, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer as TantivyTokenizer,
};

use super::abbreviations::expansion;

/// A word longer than this (a hash, a run of digits) is no term.
const MAX_WORD: usize = 40;

/// Query words dropped as carrying no meaning to search for.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does",
    "find", "for", "from", "get", "give", "has", "have", "how", "i", "in", "into", "is", "it",
    "its", "list", "me", "my", "of", "on", "or", "show", "so", "that", "the", "their", "them",
    "there", "these", "this", "those", "to", "us", "was", "we", "were", "what", "when", "where",
    "which", "who", "whose", "why", "with", "you", "your",
];

/// One term of a text: its stem, and where in the text the word it came from stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub text: String,
    /// Byte offsets of the word in the analyzed text.
    pub from: usize,
    pub to: usize,
}

/// The splitting, lowercasing and abbreviation step, as a tantivy tokenizer so tantivy's
/// English stemmer can follow it.
#[derive(Clone, Default)]
struct Identifiers;

/// Tokens made up front: identifier splitting looks ahead.
pub struct Made {
    tokens: Vec<Token>,
    /// One past the token `token()` answers (0 before the first `advance`).
    at: usize,
}

impl Made {
    pub fn new(tokens: Vec<Token>) -> Made {
        Made { tokens, at: 0 }
    }
}

impl TokenStream for Made {
    fn advance(&mut self) -> bool {
        if self.at < self.tokens.len() {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.at.saturating_sub(1)]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.at.saturating_sub(1)]
    }
}

impl TantivyTokenizer for Identifiers {
    type TokenStream<'a> = Made;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Made {
        let mut tokens = Vec::new();
        for (from, to) in pieces(text) {
            let word = text[from..to].to_lowercase();
            if word.len() > MAX_WORD {
                continue;
            }
            let mut push = |w: &str| {
                tokens.push(Token {
                    offset_from: from,
                    offset_to: to,
                    position: tokens.len(),
                    text: w.to_string(),
                    position_length: 1,
                })
            };
            match expansion(&word) {
                Some(long) => long.split(' ').for_each(&mut push),
                None => push(&word),
            }
        }
        Made::new(tokens)
    }
}

/// The name tantivy knows [`Terms`] by (find's scored fields).
pub const TERMS_TOKENIZER: &str = "printdex_terms";
/// The name tantivy knows [`Plain`] by (find's typo-tolerance field).
pub const PLAIN_TOKENIZER: &str = "printdex_plain";

/// [`analyze`] as a tantivy tokenizer: the index makes a find field's terms itself, so a
/// document carries plain text, not tokens encoded into it.
#[derive(Clone, Default)]
pub struct Terms;

impl TantivyTokenizer for Terms {
    type TokenStream<'a> = Made;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Made {
        let mut tokens = Vec::new();
        each_term(text, |term, from, to| {
            tokens.push(Token {
                offset_from: from,
                offset_to: to,
                position: tokens.len(),
                text: term.to_string(),
                position_length: 1,
            })
        });
        Made::new(tokens)
    }
}

/// [`plain_words`] as a tantivy tokenizer, each word once: typo tolerance asks only
/// whether a word is there, so a word written twice scores as one written once.
#[derive(Clone, Default)]
pub struct Plain;

impl TantivyTokenizer for Plain {
    type TokenStream<'a> = Made;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Made {
        let mut seen = std::collections::HashSet::new();
        let tokens = plain_words(text)
            .into_iter()
            .filter(|t| seen.insert(t.text.clone()))
            .enumerate()
            .map(|(position, t)| Token {
                offset_from: t.from,
                offset_to: t.to,
                position,
                text: t.text,
                position_length: 1,
            })
            .collect();
        Made::new(tokens)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
    /// A letter without case (CJK, Arabic, ...).
    Other,
}

fn class(c: char) -> Class {
    if c.is_numeric() {
        Class::Digit
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_lowercase() {
        Class::Lower
    } else {
        Class::Other
    }
}

/// The byte ranges of `text`'s identifier pieces: runs of letters and digits, cut where
/// letters meet digits, where a lowercase letter meets an uppercase one (`customerId`),
/// and before the last capital of a run of capitals followed by lowercase
/// (`HTTPServer`: `HTTP`, `Server`).
pub fn pieces(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev: Option<Class> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                out.push((s, at));
            }
            prev = None;
            continue;
        }
        let now = class(c);
        let Some(before) = prev.replace(now) else {
            start = Some(at);
            continue;
        };
        let cut = match (before, now) {
            (Class::Digit, Class::Digit) => false,
            (Class::Digit, _) | (_, Class::Digit) => true,
            (Class::Lower, Class::Upper) => true,
            (Class::Upper, Class::Upper) => {
                chars.peek().is_some_and(|&(_, n)| class(n) == Class::Lower)
            }
            _ => false,
        };
        if cut {
            out.extend(start.map(|s| (s, at)));
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Distinct pieces whose terms a thread keeps (then it starts again): a print's prose
/// repeats its words, so most pieces are analyzed once per thread, not once per use.
const MEMO_PIECES: usize = 100_000;

/// One piece's terms, as the memo keeps them.
type PieceTerms = Box<[Box<str>]>;

thread_local! {
    static ANALYZER: RefCell<TextAnalyzer> = RefCell::new(
        TextAnalyzer::builder(Identifiers)
            .filter(Stemmer::new(Language::English))
            .build(),
    );
    /// A piece (as written) to its terms. A piece's terms never depend on its
    /// neighbours (`pieces` of a piece is the piece), so this is exact.
    static MEMO: RefCell<HashMap<Box<str>, PieceTerms>> = RefCell::new(HashMap::new());
}

/// Every term of `text`, in order, with where its word stands.
pub fn analyze(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    each_term(text, |term, from, to| {
        out.push(Term {
            text: term.to_string(),
            from,
            to,
        })
    });
    out
}

/// Call `f` with every term of `text` in order, and where its word stands.
fn each_term(text: &str, mut f: impl FnMut(&str, usize, usize)) {
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        for (from, to) in pieces(text) {
            piece_terms(&mut memo, &text[from..to], |t| f(t, from, to));
        }
    })
}

/// Call `f` with each term of one piece: kept in `memo`, or made and kept.
fn piece_terms(memo: &mut HashMap<Box<str>, PieceTerms>, piece: &str, mut f: impl FnMut(&str)) {
    if let Some(terms) = memo.get(piece) {
        terms.iter().for_each(|t| f(t));
        return;
    }
    let terms = analyze_piece(piece);
    terms.iter().for_each(|t| f(t));
    if memo.len() >= MEMO_PIECES {
        memo.clear();
    }
    memo.insert(piece.into(), terms);
}

/// One piece's terms, by the analyzer.
fn analyze_piece(piece: &str) -> PieceTerms {
    ANALYZER.with(|a| {
        let mut analyzer = a.borrow_mut();
        let mut stream = analyzer.token_stream(piece);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.as_str().into());
        }
        out.into_boxed_slice()
    })
}

/// Which of `query`'s words (bit `i` for word `i`, of at most 32) have their term among
/// `text`'s terms.
pub fn term_mask(text: &str, query: &[QueryWord]) -> u32 {
    let mut mask = 0;
    each_term(text, |t, _, _| {
        for (i, w) in query.iter().enumerate().take(32) {
            if w.term == t {
                mask |= 1 << i;
            }
        }
    });
    mask
}

/// Which of a query's words a text holds (bit `i` for word `i`, of at most 32).
#[derive(Debug, Default)]
pub struct Matches {
    /// Words whose term is among the text's terms.
    pub terms: u32,
    /// Misspellable words one edit from a word of the text.
    pub near: u32,
    /// For each word in `near`, the first such word of the text (lowercased).
    pub near_words: Vec<(usize, String)>,
}

/// Which of `query`'s words `text` holds, by term and by one edit, in one pass over its
/// pieces.
pub fn matches(text: &str, query: &[QueryWord]) -> Matches {
    let mut m = Matches::default();
    let any_fuzzy = query.iter().any(|w| w.fuzzy);
    let mut lower = String::new();
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        for (from, to) in pieces(text) {
            let word = &text[from..to];
            piece_terms(&mut memo, word, |t| {
                for (i, w) in query.iter().enumerate().take(32) {
                    if w.term == t {
                        m.terms |= 1 << i;
                    }
                }
            });
            if !any_fuzzy || to - from > MAX_WORD {
                continue;
            }
            lower.clear();
            match word.is_ascii() {
                true => lower.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase()))),
                false => lower.push_str(&word.to_lowercase()),
            }
            for (i, w) in query.iter().enumerate().take(32) {
                if m.near & (1 << i) == 0 && w.is_near(&lower) {
                    m.near |= 1 << i;
                    m.near_words.push((i, lower.clone()));
                }
            }
        }
    });
    m
}

/// The words of `text` lowercased, neither expanded nor stemmed: what typo tolerance
/// compares a misspelled query word with.
pub fn plain_words(text: &str) -> Vec<Term> {
    pieces(text)
        .into_iter()
        .filter(|(from, to)| to - from <= MAX_WORD)
        .map(|(from, to)| Term {
            text: text[from..to].to_lowercase(),
            from,
            to,
        })
        .collect()
}

/// The terms of `text`, as the index holds them.
pub fn terms(text: &str) -> Vec<String> {
    analyze(text).into_iter().map(|t| t.text).collect()
}

/// A name's exact form: its terms joined by one space. Two names with the same exact form
/// are the same words (`CustomerID`, `customer_id`, `cust id`).
pub fn exact_form(text: &str) -> String {
    terms(text).join(" ")
}

/// One word of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryWord {
    /// The term looked for.
    pub term: String,
    /// The word as the query spells it, lowercased.
    pub word: String,
    /// Whether a term one edit away is looked for too (a word of five letters or more).
    pub fuzzy: bool,
    /// The spellings one edit from which a word is near this one ([`fuzzy_forms`]),
    /// when `fuzzy`.
    pub forms: Vec<String>,
}

impl QueryWord {
    /// Whether `indexed` (a lowercased word) is one edit from this word or its plural.
    pub fn is_near(&self, indexed: &str) -> bool {
        self.fuzzy && near_any(&self.forms, indexed)
    }
}

/// A word of this many letters or more may be misspelled: one edit is tolerated.
pub const FUZZY_FROM: usize = 5;

/// The words of a query that carry meaning, in order, each once: stopwords dropped, at
/// most `max`. Only the first `max` distinct words are read, so a query of any length
/// costs no more than one of `max` words.
pub fn query_words(query: &str, max: usize) -> Vec<QueryWord> {
    let mut out: Vec<QueryWord> = Vec::new();
    // A word met again adds nothing: it is looked at once (a long query repeats itself).
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (from, to) in pieces(query) {
        if out.len() >= max {
            break;
        }
        if !seen.insert(&query[from..to]) {
            continue;
        }
        let word = query[from..to].to_lowercase();
        if STOPWORDS.binary_search(&word.as_str()).is_ok() || word.len() > MAX_WORD {
            continue;
        }
        // An abbreviation stands for its words; each is a word of the query.
        let letters = word.chars().count();
        for term in terms(&word) {
            if !out.iter().any(|w| w.term == term) && out.len() < max {
                let fuzzy = letters >= FUZZY_FROM && term.chars().count() >= FUZZY_FROM - 1;
                out.push(QueryWord {
                    fuzzy,
                    forms: if fuzzy {
                        fuzzy_forms(&word)
                    } else {
                        Vec::new()
                    },
                    term,
                    word: word.clone(),
                });
            }
        }
    }
    out
}

/// Whether `word` (a query's, misspelled perhaps) is one edit from `indexed`, or from its
/// plural: `subscripton` is near `subscriptions`. The index's fuzzy queries ask the same
/// ([`fuzzy_forms`]).
pub fn near(word: &str, indexed: &str) -> bool {
    near_any(&fuzzy_forms(word), indexed)
}

/// Whether `indexed` is one edit from any of `forms` (a word's [`fuzzy_forms`]).
fn near_any(forms: &[String], indexed: &str) -> bool {
    let length = |s: &str| match s.is_ascii() {
        true => s.len(),
        false => s.chars().count(),
    };
    let i = length(indexed);
    // Lengths first: most words are too long or too short to be one edit from a form.
    forms.iter().any(|form| {
        let f = length(form);
        i + 1 >= f && i <= f + 1 && one_edit_apart(form, indexed)
    })
}

/// The spellings typo tolerance looks for, one edit away each: the word, and its plural
/// when it does not end in `s`.
pub fn fuzzy_forms(word: &str) -> Vec<String> {
    let mut out = vec![word.to_string()];
    if !word.ends_with('s') {
        out.push(format!("{word}s"));
    }
    out
}

/// Whether `a` and `b` are at most one edit apart (an insertion, a deletion, a
/// substitution, or two neighbours swapped), as the index's typo tolerance counts.
pub fn one_edit_apart(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        one_edit_apart_in(a.as_bytes(), b.as_bytes())
    } else {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        one_edit_apart_in(&a, &b)
    }
}

fn one_edit_apart_in<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let first = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        let rest = |from: usize| short[from..] == long[from..];
        // A substitution, or a swap of two neighbours.
        rest(first + 1)
            || (first + 1 < short.len()
                && short[first] == long[first + 1]
                && short[first + 1] == long[first]
                && rest(first + 2))
    } else {
        short[first..] == long[first + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        pieces(text).into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn identifiers_split_where_their_spelling_changes() {
        assert_eq!(split("customer_id"), ["customer", "id"]);
        assert_eq!(split("CustomerID"), ["Customer", "ID"]);
        assert_eq!(split("customerId"), ["customer", "Id"]);
        assert_eq!(split("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(split("address2line"), ["address", "2", "line"]);
        assert_eq!(
            split("stacks.lending_c0001.loans"),
            ["stacks", "lending", "c", "0001", "loans"]
        );
        assert_eq!(split("  'ACTIVE '  "), ["ACTIVE"]);
        assert_eq!(split("Straße-öl 東京"), ["Straße", "öl", "東京"]);
        assert!(split("-- ..").is_empty());
    }

    #[test]
    fn every_spelling_of_an_identifier_has_the_same_terms() {
        let expected = terms("customer id");
        for spelling in [
            "customer_id",
            "CustomerID",
            "customerId",
            "CUSTOMER-ID",
            "cust_id",
        ] {
            assert_eq!(terms(spelling), expected, "{spelling}");
        }
        assert_eq!(exact_form("Cust_ID"), exact_form("customer id"));
    }

    #[test]
    fn words_are_stemmed_so_a_plural_finds_its_singular() {
        assert_eq!(terms("fees"), terms("fee"));
        assert_eq!(terms("invoices"), terms("invoice"));
        assert_eq!(terms("churned"), terms("churn"));
        assert_eq!(
            terms("fee_amount"),
            [terms("fee")[0].clone(), terms("amount")[0].clone()]
        );
    }

    #[test]
    fn abbreviations_read_as_their_words_both_ways() {
        assert_eq!(terms("qty"), terms("quantity"));
        assert_eq!(terms("order_qty"), terms("order quantity"));
        assert_eq!(terms("dob"), terms("date of birth"));
        // Offsets still point at the word the terms came from.
        let t = analyze("x dob");
        assert!(t[1..].iter().all(|t| (t.from, t.to) == (2, 5)), "{t:?}");
    }

    #[test]
    fn a_query_keeps_its_meaningful_words_once_and_no_more_than_asked() {
        let words = query_words("Show me the customers who churned, customers!", 16);
        let terms: Vec<&str> = words.iter().map(|w| w.term.as_str()).collect();
        assert_eq!(terms, [super::terms("customer")[0].as_str(), "churn"]);
        assert!(words[0].fuzzy);
        assert!(query_words("the of and", 16).is_empty());
        assert!(query_words("?!", 16).is_empty());
        let long =
            "word ".repeat(2_000) + &(0..2_000).map(|i| format!("w{i} ")).collect::<String>();
        assert_eq!(query_words(&long, 16).len(), 16);
        // Short words are matched exactly.
        assert!(!query_words("late", 16)[0].fuzzy);
    }

    #[test]
    fn one_edit_is_an_insertion_a_deletion_a_substitution_or_a_swap() {
        assert!(one_edit_apart("custom", "custom"));
        assert!(one_edit_apart("cusom", "custom"));
        assert!(one_edit_apart("custom", "cusom"));
        assert!(one_edit_apart("custam", "custom"));
        assert!(one_edit_apart("cutsom", "custom"));
        assert!(!one_edit_apart("cstmr", "custom"));
        assert!(!one_edit_apart("abc", "bca"));
        assert!(one_edit_apart("", "a"));
        assert!(one_edit_apart("straße", "strase"));
        assert!(!one_edit_apart("straße", "strasse"));
    }

    #[test]
    fn near_is_one_edit_from_the_word_or_its_plural() {
        assert!(near("subscripton", "subscriptions"));
        assert!(near("adress", "address"));
        assert!(near("emial", "email"));
        assert!(!near("adress", "addresses"));
        assert!(!near("custmer", "cust"));
        assert!(near("straße", "strase") && near("a😀b", "ab"));
    }

    #[test]
    fn the_terms_of_a_text_are_its_pieces_terms_kept_or_made() {
        // Twice: made, then kept, the same both times.
        for _ in 0..2 {
            let text = "HTTPServer cust_IDs were LATE fees, dob 2024 Straße-öl";
            let whole = ANALYZER.with(|a| {
                let mut a = a.borrow_mut();
                let mut stream = a.token_stream(text);
                let mut out = Vec::new();
                while stream.advance() {
                    let t = stream.token();
                    out.push((t.text.clone(), t.offset_from, t.offset_to));
                }
                out
            });
            let kept: Vec<(String, usize, usize)> = analyze(text)
                .into_iter()
                .map(|t| (t.text, t.from, t.to))
                .collect();
            assert_eq!(kept, whole);
        }
    }

    #[test]
    fn the_stopword_list_is_sorted() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }
}
