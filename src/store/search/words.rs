//! find's words: how a name, a note or a query becomes the terms the index holds, the same
//! way on both sides. Identifiers split where their spelling changes (`customer_id`,
//! `CustomerID`, `customerId` and `customer id` are the words `customer` and `id`; `HTTPServer`
//! is `http server`; `address2` is `address 2`), words are lowercased, a listed
//! abbreviation becomes the words it stands for (`abbreviations`), and each word is
//! reduced to its English stem (`fees` and `fee` are one term, as are `invoices` and
//! `invoice`). Stopwords stay in the index (a value may be `no`); a query drops them.

use std::cell::RefCell;

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
struct Made {
    tokens: Vec<Token>,
    /// One past the token `token()` answers (0 before the first `advance`).
    at: usize,
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
        Made { tokens, at: 0 }
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
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                out.push((s, at));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(at);
            continue;
        };
        let (prev, now) = (class(chars[i - 1].1), class(c));
        let next = chars.get(i + 1).map(|&(_, n)| class(n));
        let cut = match (prev, now) {
            (Class::Digit, Class::Digit) => false,
            (Class::Digit, _) | (_, Class::Digit) => true,
            (Class::Lower, Class::Upper) => true,
            (Class::Upper, Class::Upper) => next == Some(Class::Lower),
            _ => false,
        };
        if cut {
            out.push((s, at));
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

thread_local! {
    static ANALYZER: RefCell<TextAnalyzer> = RefCell::new(
        TextAnalyzer::builder(Identifiers)
            .filter(Stemmer::new(Language::English))
            .build(),
    );
}

/// Every term of `text`, in order, with where its word stands.
pub fn analyze(text: &str) -> Vec<Term> {
    ANALYZER.with(|a| {
        let mut analyzer = a.borrow_mut();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push(Term {
                text: t.text.clone(),
                from: t.offset_from,
                to: t.offset_to,
            });
        }
        out
    })
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
}

/// A word of this many letters or more may be misspelled: one edit is tolerated.
pub const FUZZY_FROM: usize = 5;

/// The words of a query that carry meaning, in order, each once: stopwords dropped, at
/// most `max`. Only the first `max` distinct words are read, so a query of any length
/// costs no more than one of `max` words.
pub fn query_words(query: &str, max: usize) -> Vec<QueryWord> {
    let mut out: Vec<QueryWord> = Vec::new();
    for (from, to) in pieces(query) {
        if out.len() >= max {
            break;
        }
        let word = query[from..to].to_lowercase();
        if STOPWORDS.binary_search(&word.as_str()).is_ok() || word.len() > MAX_WORD {
            continue;
        }
        // An abbreviation stands for its words; each is a word of the query.
        let letters = word.chars().count();
        for term in terms(&word) {
            if !out.iter().any(|w| w.term == term) && out.len() < max {
                out.push(QueryWord {
                    fuzzy: letters >= FUZZY_FROM && term.chars().count() >= FUZZY_FROM - 1,
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
    fuzzy_forms(word).iter().any(|w| one_edit_apart(w, indexed))
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
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
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
    }

    #[test]
    fn the_stopword_list_is_sorted() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }
}
