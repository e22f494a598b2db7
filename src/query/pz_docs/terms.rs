//! pz's query terms and term counting, over .NET's string rules.

use compat::dotnet::{self, lower};

/// A character of pz's query-term class `[\w.:/-]`. A non-BMP character is a surrogate pair
/// in .NET, and neither half is `\w`.
pub fn is_term_char(c: char) -> bool {
    if matches!(c, '.' | ':' | '/' | '-') {
        return true;
    }
    dotnet::is_word_char(c)
}

/// pz's query terms: every run of two or more term characters in the lower-cased query,
/// distinct, in order of first appearance.
pub fn query_terms(query: &str) -> Vec<String> {
    let lowered = lower(query);
    let mut terms: Vec<String> = Vec::new();
    let mut run = String::new();
    let mut run_len = 0usize;
    let mut flush = |run: &mut String, run_len: &mut usize| {
        if *run_len >= 2 && !terms.iter().any(|t| t == run) {
            terms.push(run.clone());
        }
        run.clear();
        *run_len = 0;
    };
    for c in lowered.chars() {
        if is_term_char(c) {
            run.push(c);
            run_len += 1;
        } else {
            flush(&mut run, &mut run_len);
        }
    }
    flush(&mut run, &mut run_len);
    terms
}

/// Non-overlapping occurrences of `needle` in `hay`, scanning left to right and resuming
/// after each match, as pz's `Count` does with ordinal `IndexOf`.
pub fn count_non_overlapping(hay: &str, needle: &str) -> u32 {
    if needle.is_empty() || hay.len() < needle.len() {
        return 0;
    }
    hay.matches(needle).count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_follow_pz() {
        assert_eq!(query_terms("PZ0214"), ["pz0214"]);
        assert_eq!(
            query_terms("sink() a strategy: merge, merge"),
            ["sink", "strategy:", "merge"]
        );
        assert_eq!(
            query_terms("https://x/y data-plane"),
            ["https://x/y", "data-plane"]
        );
        assert!(query_terms("? ! * &").is_empty());
        // U+0130 keeps its case under ToLowerInvariant; a non-BMP letter splits a run.
        assert_eq!(query_terms("\u{130}X"), ["\u{130}x"]);
        assert_eq!(query_terms("ab\u{10400}cd"), ["ab", "cd"]);
    }

    #[test]
    fn counts_do_not_overlap() {
        assert_eq!(count_non_overlapping("aaaa", "aa"), 2);
        assert_eq!(count_non_overlapping("aaa", "aa"), 1);
        assert_eq!(count_non_overlapping("airplane plane", "plane"), 2);
    }
}
