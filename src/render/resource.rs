//! Resource replies (spec §3). A `resources/read` page holds at most 20,000 characters of
//! the resource's text, measured as the text's width inside a JSON string
//! (`json.dumps(text, ensure_ascii=False)` minus the quotes) and cut by the document line
//! rule (`document::line_pages`); the pages concatenate to the text exactly. A
//! `resources/list` page is cut by the paging engine like any list.

use std::ops::Range;

use super::cursor::Call;
use super::document;
use super::paging::{self, Unit, UnitKey, PAGE_CHARACTERS};
use crate::error::QueryError;
use crate::query::resources::{Entry, Listing, Resource};
use crate::query::value::dict;
use compat::value::Value;

/// Escaped width of an ASCII byte: `"` `\` and the short escapes take 2, other controls
/// take 6 (`\u00XX`), everything else 1. Non-ASCII characters are sent raw: 1 each.
const fn ascii_width(b: u8) -> usize {
    match b {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
        0..=0x1f => 6,
        _ => 1,
    }
}

/// The byte ranges of `text`'s pages under `bound`, by escaped width.
pub fn line_pages(text: &str, bound: usize) -> Vec<Range<usize>> {
    document::line_pages(text, bound, ascii_width)
}

/// One page of a resource, with where it sits among the resource's pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub text: String,
    pub mime_type: &'static str,
    pub page: usize,
    pub pages: usize,
    pub version: String,
}

/// The byte ranges of a resource text's pages (the caller keeps them per version, see
/// `query::resources::Whole::page_cut`).
pub fn cut(text: &str) -> Vec<Range<usize>> {
    line_pages(text, PAGE_CHARACTERS)
}

/// `resources/read`'s page of `resource`, read through `uri`, given its text's page cut
/// (`ranges`, from [`cut`]): a page the text does not have, then a later page asked for
/// without a version, then a stale version, fail in that order.
pub fn page(uri: &str, resource: &Resource, ranges: &[Range<usize>]) -> Result<Page, QueryError> {
    let whole = &resource.whole;
    let query = &resource.query;
    let page = page_number(&query.page)?
        .filter(|n| (1..=ranges.len()).contains(n))
        .ok_or_else(|| QueryError::PageOutOfRange {
            uri: uri.to_string(),
            pages: ranges.len(),
        })?;
    match &query.version {
        None if page > 1 => return Err(QueryError::MissingPageVersion(uri.to_string())),
        Some(v) if *v != whole.version => {
            return Err(QueryError::StalePageVersion(uri.to_string()))
        }
        _ => {}
    }
    Ok(Page {
        text: whole.text_of(ranges[page - 1].clone())?,
        mime_type: whole.mime_type,
        page,
        pages: ranges.len(),
        version: whole.version.clone(),
    })
}

/// Python's limit on converting a decimal string to `int`.
const INT_MAX_STR_DIGITS: usize = 4300;

/// `page.isascii() and page.isdecimal()`, as an integer (leading zeros allowed); `int()`
/// refuses a string of more than 4,300 digits, and the reference lets that escape.
fn page_number(page: &str) -> Result<Option<usize>, QueryError> {
    if page.is_empty() || !page.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    if page.len() > INT_MAX_STR_DIGITS {
        return Err(QueryError::Other(format!(
            "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string conversion: value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
            page.len()
        )));
    }
    let digits = page.trim_start_matches('0');
    // Past any page count: the same "names no page" answer.
    if digits.len() > 18 {
        return Ok(Some(usize::MAX));
    }
    Ok(Some(digits.parse().unwrap_or(0)))
}

/// One page of `resources/list` and the cursor to the next.
#[derive(Debug, Clone)]
pub struct ListPage {
    pub entries: Vec<Entry>,
    pub next_cursor: Option<String>,
}

fn entry_value(entry: &Entry) -> Value {
    dict([
        ("uri", Value::Str(entry.uri.clone())),
        ("name", Value::Str(entry.name.clone())),
        ("description", Value::Str(entry.description.clone())),
        ("mimeType", Value::Str(entry.mime_type.into())),
    ])
}

/// `resources/list`'s page `cursor` points at, paged past 20,000 characters; the cursor
/// pins every served manifest.
pub fn list_page(listing: &Listing, cursor: Option<&str>) -> Result<ListPage, QueryError> {
    let call = Call::pinned("resources/list", &Value::map(Vec::new()), &listing.pins);
    let start = paging::lazy_start(&call, cursor)?;
    let mut item = |i: usize| -> Result<(UnitKey, Value), QueryError> {
        let listed = listing
            .get(i)
            .ok_or_else(|| QueryError::Internal("resources/list: an entry past the end".into()))?;
        Ok((
            UnitKey::Item(Value::Int(i as i64)),
            entry_value(&listed.entry()),
        ))
    };
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let mut reply = vec![(
            Value::Str("resources".into()),
            Value::seq(run.iter().map(Unit::value).collect()),
        )];
        if let Some(c) = next {
            reply.push((Value::Str("nextCursor".into()), Value::Str(c.to_string())));
        }
        Value::map(reply)
    };
    let page = paging::lazy_page(&call, Vec::new(), listing.len(), &mut item, &shape, cursor)?;
    let shown = page
        .get("resources")
        .and_then(Value::as_seq)
        .map(<[Value]>::len)
        .unwrap_or(0);
    Ok(ListPage {
        entries: (start..start + shown)
            .filter_map(|i| listing.get(i).map(|l| l.entry()))
            .collect(),
        next_cursor: page
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len(json.dumps(ch, ensure_ascii=False)) - 2`.
    fn char_width(c: char) -> usize {
        if c.is_ascii() {
            ascii_width(c as u8)
        } else {
            1
        }
    }

    /// `len(json.dumps(text, ensure_ascii=False)) - 2`.
    fn escaped_width(text: &str) -> usize {
        let mut width = 0;
        for &b in text.as_bytes() {
            if b < 0x80 {
                width += ascii_width(b);
            } else if b & 0xc0 != 0x80 {
                // A leading byte: one code point.
                width += 1;
            }
        }
        width
    }

    fn pages(text: &str, bound: usize) -> Vec<&str> {
        line_pages(text, bound)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    /// A direct transcription of the reference's loop over Python-like pieces, to compare with.
    fn naive(text: &str, bound: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut current = String::new();
        let mut current_width = 0;
        for line in compat::py::splitlines_keepends(text) {
            let mut line: String = line.to_string();
            while escaped_width(&line) > bound {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                    current_width = 0;
                }
                let mut total = 0;
                let mut cut = line.chars().count();
                for (i, c) in line.chars().enumerate() {
                    total += char_width(c);
                    if total > bound {
                        cut = i.max(1);
                        break;
                    }
                }
                let byte = line
                    .char_indices()
                    .nth(cut)
                    .map(|(b, _)| b)
                    .unwrap_or(line.len());
                out.push(line[..byte].to_string());
                line = line[byte..].to_string();
            }
            let w = escaped_width(&line);
            if !current.is_empty() && current_width + w > bound {
                out.push(std::mem::take(&mut current));
                current_width = 0;
            }
            current.push_str(&line);
            current_width += w;
        }
        if !current.is_empty() || out.is_empty() {
            out.push(current);
        }
        out
    }

    #[test]
    fn widths_follow_json_dumps_without_ascii_escaping() {
        assert_eq!(escaped_width("abc"), 3);
        assert_eq!(escaped_width("\"\\"), 4);
        assert_eq!(escaped_width("\n\r\t\u{8}\u{c}"), 10);
        assert_eq!(escaped_width("\u{0}\u{1f}\u{b}"), 18);
        // DEL, non-ASCII, U+2028 and astral characters are sent raw.
        assert_eq!(escaped_width("\u{7f}é\u{2028}😀"), 4);
    }

    #[test]
    fn empty_text_is_one_empty_page() {
        assert_eq!(pages("", 10), vec![""]);
    }

    /// Expectations from the reference: `paging.line_pages(text, bound, width=escaped_width)`.
    #[test]
    fn whole_lines_fill_pages_greedily() {
        // `\n` is two wide: `aaa\n` is 5.
        assert_eq!(pages("aaa\nbbb\nccc\n", 10), vec!["aaa\nbbb\n", "ccc\n"]);
        assert_eq!(pages("aaa\nbbb\nccc", 12), vec!["aaa\nbbb\n", "ccc"]);
    }

    #[test]
    fn escapes_count_double_or_sixfold() {
        // `"a"\n` is 7 wide.
        assert_eq!(pages("\"a\"\n\"a\"\n", 14).len(), 1);
        assert_eq!(pages("\"a\"\n\"a\"\n", 12), vec!["\"a\"\n", "\"a\"\n"]);
        assert_eq!(pages("\"a\"\n\"a\"\n", 11), vec!["\"a\"\n", "\"a\"\n"]);
        // A control character is 6 wide.
        assert_eq!(pages("\u{1}\n\u{1}\n", 8), vec!["\u{1}\n", "\u{1}\n"]);
        assert_eq!(pages("\\\\\n\\\\\n", 12).len(), 1);
        assert_eq!(pages("\\\\\n\\\\\n", 11).len(), 2);
    }

    #[test]
    fn unicode_line_separators_break_lines() {
        assert_eq!(
            pages("ab\u{2028}cd\u{2029}ef\u{85}gh\u{c}ij", 4),
            vec!["ab\u{2028}", "cd\u{2029}", "ef\u{85}", "gh\u{c}", "ij"]
        );
        assert_eq!(
            pages("a\r\nb\rc\x1cd", 4),
            vec!["a\r", "\n", "b\r", "c", "\x1c", "d"]
        );
    }

    #[test]
    fn a_line_wider_than_a_page_is_cut_at_characters() {
        assert_eq!(
            pages("x\nabcdefghij\ny\n", 4),
            vec!["x\n", "abcd", "efgh", "ij\n", "y\n"]
        );
        // Astral characters are one wide, never split inside.
        assert_eq!(pages("😀😀😀😀😀", 2), vec!["😀😀", "😀😀", "😀"]);
        // A character wider than the bound still makes progress, one per page.
        assert_eq!(pages("\u{1}\u{1}", 3), vec!["\u{1}", "\u{1}"]);
    }

    #[test]
    fn pages_concatenate_to_the_text_and_match_the_reference_loop() {
        let samples = [
            "plain\ntext\n",
            "q\"uote\\s\n\t\tcontrols\u{1}\u{2}\n",
            "é😀\u{2028}x\u{2029}\r\n\ry\u{85}z",
            "",
            "\n\n\n",
            "a very long line without any break at all, repeated repeated repeated",
        ];
        for text in samples {
            for bound in 1..25 {
                let got = pages(text, bound);
                assert_eq!(got.concat(), text);
                assert_eq!(got, naive(text, bound), "{text:?} at {bound}");
            }
        }
    }

    #[test]
    fn page_numbers_are_ascii_decimal() {
        assert_eq!(page_number("1"), Ok(Some(1)));
        assert_eq!(page_number("01"), Ok(Some(1)));
        assert_eq!(page_number("0"), Ok(Some(0)));
        assert_eq!(page_number(""), Ok(None));
        assert_eq!(page_number("x"), Ok(None));
        assert_eq!(page_number("-1"), Ok(None));
        assert_eq!(page_number("+1"), Ok(None));
        assert_eq!(page_number(" 1"), Ok(None));
        assert_eq!(page_number("١"), Ok(None));
        assert_eq!(page_number("99999999999999999999999"), Ok(Some(usize::MAX)));
        let long = "1".repeat(4301);
        assert!(
            matches!(page_number(&long), Err(QueryError::Other(m)) if m.contains("value has 4301 digits"))
        );
        assert_eq!(page_number(&"0".repeat(4300)), Ok(Some(0)));
    }
}
