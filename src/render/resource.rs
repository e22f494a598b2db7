//! Pages of a resource's text (spec §3.4): at most 20,000 characters each, measured as
//! the text's width inside a JSON string (`json.dumps(text, ensure_ascii=False)` minus the
//! quotes), cut at `str.splitlines` line boundaries, and a line wider than a page at a
//! character boundary. The pages concatenate to the text exactly.

use std::ops::Range;

pub use super::paging::PAGE_CHARACTERS;

/// Escaped width of an ASCII byte: `"` `\` and the short escapes take 2, other controls
/// take 6 (`\u00XX`), everything else 1. Non-ASCII characters are sent raw: 1 each.
const fn ascii_width(b: u8) -> usize {
    match b {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
        0..=0x1f => 6,
        _ => 1,
    }
}

/// `len(json.dumps(ch, ensure_ascii=False)) - 2`.
pub fn char_width(c: char) -> usize {
    if c.is_ascii() {
        ascii_width(c as u8)
    } else {
        1
    }
}

/// `len(json.dumps(text, ensure_ascii=False)) - 2`.
pub fn escaped_width(text: &str) -> usize {
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

/// Where the line starting at `start` ends (after its terminator), and its escaped width.
/// Terminators are `splitlines`': `\n \r \r\n \v \f \x1c \x1d \x1e \x85 \u2028 \u2029`.
fn next_line(bytes: &[u8], start: usize) -> (usize, usize) {
    let mut i = start;
    let mut width = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            width += ascii_width(b);
            i += 1;
            match b {
                b'\r' => {
                    if bytes.get(i) == Some(&b'\n') {
                        width += 2;
                        i += 1;
                    }
                    return (i, width);
                }
                b'\n' | 0x0b | 0x0c | 0x1c | 0x1d | 0x1e => return (i, width),
                _ => {}
            }
        } else {
            width += 1;
            let len = utf8_len(b);
            let seq = &bytes[i..(i + len).min(bytes.len())];
            i += len;
            if seq == [0xc2, 0x85] || seq == [0xe2, 0x80, 0xa8] || seq == [0xe2, 0x80, 0xa9] {
                return (i, width);
            }
        }
    }
    (i, width)
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        _ => 2,
    }
}

/// The byte ranges of `text`'s pages under `bound`: greedy whole lines per page; a line
/// wider than `bound` flushes the page, is cut into pages of its widest prefixes (at least
/// one character each), and its rest starts the next page. An empty text is one empty page.
pub fn line_pages(text: &str, bound: usize) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut pages = Vec::new();
    let mut page_start = 0;
    let mut page_width = 0;
    let mut start = 0;
    while start < bytes.len() {
        let (end, mut width) = next_line(bytes, start);
        let mut line_start = start;
        if width > bound {
            if line_start > page_start {
                pages.push(page_start..line_start);
            }
            // Cut the widest prefix that fits until the rest of the line fits.
            while width > bound {
                let (cut, cut_width) = widest_prefix(&text[line_start..end], bound);
                pages.push(line_start..line_start + cut);
                line_start += cut;
                width -= cut_width;
            }
            page_start = line_start;
            page_width = 0;
        }
        if line_start > page_start && page_width + width > bound {
            pages.push(page_start..line_start);
            page_start = line_start;
            page_width = 0;
        }
        page_width += width;
        start = end;
    }
    if page_start < bytes.len() || pages.is_empty() {
        pages.push(page_start..bytes.len());
    }
    pages
}

/// Bytes and width of the longest prefix of `line` whose width stays within `bound`,
/// never less than one character.
fn widest_prefix(line: &str, bound: usize) -> (usize, usize) {
    let mut total = 0;
    for (index, c) in line.char_indices() {
        let w = char_width(c);
        if total + w > bound {
            if index == 0 {
                return (c.len_utf8(), w);
            }
            return (index, total);
        }
        total += w;
    }
    (line.len(), total)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
