//! Python's `str` methods that depend on Unicode properties, driven by the
//! tables generated from Python 3.13 (`unicode_tables.rs`).

use super::unicode_tables::{
    CASED_NOT_IGNORABLE, CASEFOLD_NOT_LOWER, CASE_IGNORABLE, LINE_BREAK, LOWER, NON_PRINTABLE,
    WHITESPACE, WORD,
};

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let cp = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn lookup(table: &'static [(u32, &'static str)], c: char) -> Option<&'static str> {
    let cp = c as u32;
    table
        .binary_search_by_key(&cp, |&(k, _)| k)
        .ok()
        .map(|i| table[i].1)
}

/// `c.isprintable()`.
pub fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    !in_ranges(NON_PRINTABLE, c)
}

/// Whether `re`'s `\w` matches `c` in a str pattern: `c.isalnum()` or `_`.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_ranges(WORD, c)
}

/// `c.isspace()` (includes `\x1c`-`\x1f`, `\x85` and the Unicode spaces).
pub fn is_space(c: char) -> bool {
    in_ranges(WHITESPACE, c)
}

/// Whether `c` ends a line for `str.splitlines` (`\r\n` counts once).
pub fn is_line_break(c: char) -> bool {
    in_ranges(LINE_BREAK, c)
}

/// `len(s)`: code points.
pub fn len(s: &str) -> usize {
    s.chars().count()
}

/// `s.split()`: runs of whitespace separate, no empty pieces.
pub fn split_whitespace(s: &str) -> Vec<&str> {
    s.split(is_space).filter(|p| !p.is_empty()).collect()
}

/// `s.strip()` with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `s.rstrip()` with no argument.
pub fn rstrip(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

/// The lines of `s.splitlines()` as byte offsets: (start, where the terminator starts, end
/// after it). Breaks at `\n \r \r\n \v \f \x1c \x1d \x1e \x85 \u2028 \u2029`; no empty
/// last line.
fn line_spans(s: &str) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if is_line_break(c) {
            let mut end = i + c.len_utf8();
            if c == '\r' && matches!(it.peek(), Some(&(_, '\n'))) {
                it.next();
                end += 1;
            }
            out.push((start, i, end));
            start = end;
        }
    }
    if start < s.len() {
        out.push((start, s.len(), s.len()));
    }
    out
}

/// `s.splitlines(keepends=True)`.
pub fn splitlines_keepends(s: &str) -> Vec<&str> {
    line_spans(s)
        .into_iter()
        .map(|(start, _, end)| &s[start..end])
        .collect()
}

/// `s.splitlines()` as the byte ranges of its lines in `s` (terminators excluded).
pub fn splitlines_ranges(s: &str) -> Vec<std::ops::Range<usize>> {
    line_spans(s)
        .into_iter()
        .map(|(start, body_end, _)| start..body_end)
        .collect()
}

/// `s.casefold()`: full case folding, no context.
pub fn casefold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match lookup(CASEFOLD_NOT_LOWER, c).or_else(|| lookup(LOWER, c)) {
            Some(f) => out.push_str(f),
            None => out.push(c),
        }
    }
    out
}

/// `s.lower()`: full lowercase mapping, with CPython's final-sigma rule for
/// U+03A3.
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == '\u{3a3}' {
            out.push(if final_sigma(s, i) {
                '\u{3c2}'
            } else {
                '\u{3c3}'
            });
            continue;
        }
        match lookup(LOWER, c) {
            Some(f) => out.push_str(f),
            None => out.push(c),
        }
    }
    out
}

/// CPython's handle_capital_sigma: final when a cased char precedes (past
/// case-ignorables) and no cased char follows (past case-ignorables).
fn final_sigma(s: &str, i: usize) -> bool {
    let is_cased = |c: char| in_ranges(CASED_NOT_IGNORABLE, c);
    let ignorable = |c: char| in_ranges(CASE_IGNORABLE, c);
    let before = s[..i].chars().rev().find(|&c| !ignorable(c));
    if !before.is_some_and(is_cased) {
        return false;
    }
    let after = s[i + '\u{3a3}'.len_utf8()..]
        .chars()
        .find(|&c| !ignorable(c));
    !after.is_some_and(is_cased)
}
