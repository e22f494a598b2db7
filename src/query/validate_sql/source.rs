//! The SQL text as findings point into it: sqlparser's locations (1-based line, 1-based
//! column counted in characters) mapped back to the text they cover.

use sqlparser::tokenizer::{Location, Span};

use super::Position;

pub struct Source<'a> {
    text: &'a str,
    /// Byte offset of each line's first character.
    lines: Vec<usize>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Source<'a> {
        let mut lines = vec![0];
        lines.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { text, lines }
    }

    /// The byte offset of a location; the text's end for one past it.
    fn offset(&self, at: Location) -> Option<usize> {
        let line = usize::try_from(at.line).ok()?.checked_sub(1)?;
        let start = *self.lines.get(line)?;
        let column = usize::try_from(at.column).ok()?.checked_sub(1)?;
        let rest = &self.text[start..];
        match rest.char_indices().nth(column) {
            Some((i, _)) => Some(start + i),
            None => Some(self.text.len()),
        }
    }

    /// The text a span covers (its end is the location just past it), `None` for an empty
    /// or unknown span.
    pub fn slice(&self, span: Span) -> Option<&'a str> {
        let (start, end) = (self.offset(span.start)?, self.offset(span.end)?);
        (start < end).then(|| self.text[start..end].trim_end())
    }

    /// The location of a byte offset.
    fn location(&self, offset: usize) -> Location {
        let line = self.lines.partition_point(|&start| start <= offset);
        let start = self.lines[line - 1];
        let column = self.text[start..offset].chars().count() + 1;
        Location::new(line as u64, column as u64)
    }

    /// `span` widened back over `word` when the text right before it (spaces apart) is
    /// that word, case ignored: a typed literal's type keyword (`DATE '2024-01-01'`).
    pub fn with_word_before(&self, span: Span, word: &str) -> Span {
        let Some(start) = self.offset(span.start) else {
            return span;
        };
        let before = self.text[..start].trim_end();
        let n = word.len();
        let found = before.len() >= n
            && before.is_char_boundary(before.len() - n)
            && before[before.len() - n..].eq_ignore_ascii_case(word);
        if !found {
            return span;
        }
        Span::new(self.location(before.len() - n), span.end)
    }

    pub fn position(at: Location) -> Position {
        Position {
            line: at.line,
            column: at.column,
        }
    }

    /// Where the text ends, for a finding about what is missing from it.
    pub fn end(&self) -> Position {
        let line = self.lines.len();
        let column = self.text[self.lines[line - 1]..].chars().count() + 1;
        Position {
            line: line as u64,
            column: column as u64,
        }
    }

    /// The word starting at `at`: up to the first space, at most 40 characters.
    pub fn word_at(&self, at: Location) -> Option<&'a str> {
        let start = self.offset(at)?;
        let word = self.text[start..].split(char::is_whitespace).next()?;
        let cut = word.char_indices().nth(40).map_or(word.len(), |(i, _)| i);
        (!word.is_empty()).then(|| &word[..cut])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_count_characters_per_line() {
        let src = Source::new("SELECT é,\n  bad FROM t");
        let span = Span::new(Location::new(2, 3), Location::new(2, 6));
        assert_eq!(src.slice(span), Some("bad"));
        let span = Span::new(Location::new(1, 8), Location::new(1, 9));
        assert_eq!(src.slice(span), Some("é"));
        assert_eq!(src.word_at(Location::new(2, 7)), Some("FROM"));
        assert_eq!(
            src.end(),
            Position {
                line: 2,
                column: 13
            }
        );
        assert_eq!(src.slice(Span::empty()), None);
        let src = Source::new("x = date\n '2024-01-01'");
        let value = Span::new(Location::new(2, 2), Location::new(2, 14));
        let widened = src.with_word_before(value, "DATE");
        assert_eq!(widened.start, Location::new(1, 5));
        assert_eq!(src.slice(widened), Some("date\n '2024-01-01'"));
        assert_eq!(src.with_word_before(value, "TIME"), value);
    }
}
