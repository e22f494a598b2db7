//! Tokens for `text`: character trigrams of the casefolded string, each at the position it
//! starts at, so every substring of three or more characters (an identifier such as
//! `customer_id`, a part of one such as `omer`, a code such as `PZ0214`) is found exactly by
//! its trigrams at their offsets ([`needle_trigrams`]). A string shorter than three characters is
//! its own token, so a one- or two-character needle is found by the tokens containing it.

use tantivy::tokenizer::Token;

/// The name tantivy knows [`Trigrams`] by (search_columns' text field).
pub const TRIGRAMS_TOKENIZER: &str = "printdex_trigrams";

/// [`trigram_tokens`] as a tantivy tokenizer: the index makes the trigrams of a text it is
/// given, so a document carries the text, not its tokens encoded into it.
#[derive(Clone, Default)]
pub struct Trigrams;

impl tantivy::tokenizer::Tokenizer for Trigrams {
    type TokenStream<'a> = super::words::Made;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> super::words::Made {
        super::words::Made::new(trigram_tokens(text))
    }
}

/// Empty positions before each string's first window. The index puts a document's strings
/// one after another with one empty position between them; with these, three empty
/// positions part two strings, so no two of a needle's trigrams [`needle_trigrams`] asks
/// for, at most three apart, can stand one on each side.
pub const STRING_GAP: usize = 2;

/// Every trigram window of `text` (already casefolded) at the character it starts at, after
/// [`STRING_GAP`], or `text` itself there when shorter than three characters.
pub fn trigram_tokens(text: &str) -> Vec<Token> {
    windows(text)
        .into_iter()
        .enumerate()
        .map(|(at, t)| Token {
            offset_from: 0,
            offset_to: 0,
            position: STRING_GAP + at,
            text: t.to_string(),
            position_length: 1,
        })
        .collect()
}

/// The trigram windows of `text` in order, repeats kept, or `text` itself when shorter
/// than three characters (nothing for an empty string).
fn windows(text: &str) -> Vec<&str> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len() - 1;
    if chars == 0 {
        return Vec::new();
    }
    if chars < 3 {
        return vec![text];
    }
    (0..=chars - 3)
        .map(|i| &text[bounds[i]..bounds[i + 3]])
        .collect()
}

/// The trigrams that find `needle` (casefolded, at least three characters) exactly, each
/// with its offset from the needle's start: windows three apart and the last, which
/// together cover every character. A string holds `needle` when it holds these at these
/// offsets from one position; the empty positions between strings ([`STRING_GAP`]) keep
/// them from being read across two. `None` for a needle under three characters.
pub fn needle_trigrams(needle: &str) -> Option<Vec<(usize, &str)>> {
    if needle.chars().count() < 3 {
        return None;
    }
    let all = windows(needle);
    let last = all.len() - 1;
    let mut out: Vec<(usize, &str)> = (0..=last).step_by(3).map(|at| (at, all[at])).collect();
    if out.last().map(|(at, _)| *at) != Some(last) {
        out.push((last, all[last]));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_of_three_characters() {
        assert_eq!(windows("abcd"), vec!["abc", "bcd"]);
        assert_eq!(windows("ab"), vec!["ab"]);
        assert_eq!(windows(""), Vec::<&str>::new());
        assert_eq!(windows("ßüé"), vec!["ßüé"]);
        assert_eq!(windows("aaaa"), vec!["aaa", "aaa"]);
    }

    #[test]
    fn tokens_keep_repeats_at_their_positions_after_the_gap() {
        let tokens: Vec<(usize, String)> = trigram_tokens("abab")
            .into_iter()
            .map(|t| (t.position, t.text))
            .collect();
        assert_eq!(
            tokens,
            [
                (STRING_GAP, "aba".to_string()),
                (STRING_GAP + 1, "bab".to_string())
            ]
        );
        assert_eq!(trigram_tokens("ab").len(), 1);
    }

    #[test]
    fn a_needle_is_windows_three_apart_and_the_last() {
        assert_eq!(needle_trigrams("abc"), Some(vec![(0, "abc")]));
        assert_eq!(needle_trigrams("abcd"), Some(vec![(0, "abc"), (1, "bcd")]));
        assert_eq!(
            needle_trigrams("status"),
            Some(vec![(0, "sta"), (3, "tus")])
        );
        assert_eq!(
            needle_trigrams("abcdefg"),
            Some(vec![(0, "abc"), (3, "def"), (4, "efg")])
        );
        assert_eq!(
            needle_trigrams("aaaaaa"),
            Some(vec![(0, "aaa"), (3, "aaa")])
        );
        assert_eq!(
            needle_trigrams(&"x".repeat(3000)).map(|t| t.len()),
            Some(1000)
        );
        assert_eq!(needle_trigrams("ßü"), None);
        assert_eq!(needle_trigrams(""), None);
    }
}
