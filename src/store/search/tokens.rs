//! Tokens for `text`: character trigrams of the casefolded string, so every substring of
//! three or more characters (an identifier such as `customer_id`, a part of one such as
//! `omer`, a code such as `PZ0214`) is found by the trigrams it contains. A string shorter
//! than three characters is its own token, so a one- or two-character needle is found by
//! the tokens containing it.

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

/// The trigram windows of `text` (already casefolded), as index tokens.
pub fn trigram_tokens(text: &str) -> Vec<Token> {
    trigrams(text)
        .into_iter()
        .enumerate()
        .map(|(position, t)| Token {
            offset_from: 0,
            offset_to: 0,
            position,
            text: t.to_string(),
            position_length: 1,
        })
        .collect()
}

/// The distinct trigram windows of `text`, or `text` itself when shorter than three
/// characters (nothing for an empty string).
pub fn trigrams(text: &str) -> Vec<&str> {
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
    let mut out: Vec<&str> = (0..=chars - 3)
        .map(|i| &text[bounds[i]..bounds[i + 3]])
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_of_three_characters() {
        assert_eq!(trigrams("abcd"), vec!["abc", "bcd"]);
        assert_eq!(trigrams("ab"), vec!["ab"]);
        assert_eq!(trigrams(""), Vec::<&str>::new());
        assert_eq!(trigrams("ßüé"), vec!["ßüé"]);
        assert_eq!(trigrams("aaaa"), vec!["aaa"]);
    }
}
