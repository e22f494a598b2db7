//! Text pages (spec §4.8 as §4.1 states it for text). A Markdown document's blocks, joined
//! by blank lines, fill a page greedily; a block that does not fit starts a new page and is
//! cut at line boundaries, a line longer than a page at a character boundary. Every page
//! but the last ends with a marker carrying the next cursor. Lengths are Python `len`, i.e.
//! code points. The line cut (`line_pages`) is also the one a resource read's pages follow,
//! measured there as JSON-escaped width.

use std::ops::Range;

use super::cursor::Call;
use super::paging::PAGE_CHARACTERS;
use crate::error::QueryError;
use compat::value::Value;

/// The Markdown page marker: `\n<!-- next_cursor: X -->`.
pub fn markdown_marker(cursor: &str) -> String {
    format!("\n<!-- next_cursor: {cursor} -->")
}

/// get_reference's reply: the section (or heading tree) paged as one Markdown document. The
/// documents belong to no print, so the cursor pins the call alone.
pub fn reference_page(
    text: String,
    arguments: &Value,
    cursor: Option<&str>,
) -> Result<String, QueryError> {
    let call = Call::new("get_reference", arguments, &[]);
    text_page(&call, &[text], cursor, markdown_marker)
}

/// The page of `blocks` that `cursor` points at (none: the first), with
/// `marker(next cursor)` appended on every page but the last. Pages leave room for the
/// marker, measured with a same-width placeholder cursor.
pub fn text_page<S: AsRef<str>>(
    call: &Call,
    blocks: &[S],
    cursor: Option<&str>,
    marker: impl Fn(&str) -> String,
) -> Result<String, QueryError> {
    dressed_text_page(call, blocks, cursor, marker, 0, |mut pages, index| {
        Ok(pages.swap_remove(index))
    })
}

/// [`text_page`] with `reserve` more characters kept free on every page, for what
/// `dress(pages, index)` adds to page `index` when it spells it.
pub fn dressed_text_page<S: AsRef<str>>(
    call: &Call,
    blocks: &[S],
    cursor: Option<&str>,
    marker: impl Fn(&str) -> String,
    reserve: usize,
    dress: impl FnOnce(Vec<String>, usize) -> Result<String, QueryError>,
) -> Result<String, QueryError> {
    let bound = PAGE_CHARACTERS
        .saturating_sub(compat::py::len(&marker(&call.cursor(0))))
        .saturating_sub(reserve);
    let pages = document_pages(blocks, bound);
    let index = call.position(cursor)?;
    // A document's page 0 is never a cursor's target: only the first call reaches it.
    if index >= pages.len() || (cursor.is_some() && index == 0) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let last = index + 1 == pages.len();
    let mut page = dress(pages, index)?;
    if !last {
        page.push_str(&marker(&call.cursor(index + 1)));
    }
    Ok(page)
}

/// The whole document cut into pages of at most `bound` code points; the pages
/// concatenate to the blocks joined by blank lines.
pub fn document_pages<S: AsRef<str>>(blocks: &[S], bound: usize) -> Vec<String> {
    let mut pages: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_len = 0usize;
    for (i, block) in blocks.iter().enumerate() {
        let block = block.as_ref();
        let piece: String = if i + 1 < blocks.len() {
            format!("{block}\n\n")
        } else {
            block.to_string()
        };
        let piece_len = compat::py::len(&piece);
        if current_len + piece_len <= bound {
            current.push_str(&piece);
            current_len += piece_len;
            continue;
        }
        if !current.is_empty() {
            pages.push(std::mem::take(&mut current));
        }
        let mut lines: Vec<String> = line_pages(&piece, bound, |_| 1)
            .into_iter()
            .map(|r| piece[r].to_string())
            .collect();
        current = lines.pop().unwrap_or_default();
        current_len = compat::py::len(&current);
        pages.extend(lines);
    }
    if !current.is_empty() || pages.is_empty() {
        pages.push(current);
    }
    pages
}

/// The byte ranges of `text`'s pages under `bound`, an ASCII byte `ascii(b)` wide and any
/// other character 1: greedy whole lines (as `str.splitlines` cuts them) per page; a line
/// wider than `bound` flushes the page, is cut into pages of its widest prefixes (at least
/// one character each), and its rest starts the next page. An empty text is one empty
/// page; the pages concatenate to `text`.
pub fn line_pages(text: &str, bound: usize, ascii: impl Fn(u8) -> usize) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut pages = Vec::new();
    let mut page_start = 0;
    let mut page_width = 0;
    let mut start = 0;
    while start < bytes.len() {
        let (end, mut width) = next_line(bytes, start, &ascii);
        let mut line_start = start;
        if width > bound {
            if line_start > page_start {
                pages.push(page_start..line_start);
            }
            // Cut the widest prefix that fits until the rest of the line fits.
            while width > bound {
                let (cut, cut_width) = widest_prefix(&text[line_start..end], bound, &ascii);
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

/// Where the line starting at `start` ends (after its terminator), and its width.
/// Terminators are `splitlines`': `\n \r \r\n \v \f \x1c \x1d \x1e \x85 \u2028 \u2029`.
fn next_line(bytes: &[u8], start: usize, ascii: &impl Fn(u8) -> usize) -> (usize, usize) {
    let mut i = start;
    let mut width = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            width += ascii(b);
            i += 1;
            match b {
                b'\r' => {
                    if bytes.get(i) == Some(&b'\n') {
                        width += ascii(b'\n');
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

/// Bytes and width of the longest prefix of `line` whose width stays within `bound`,
/// never less than one character.
fn widest_prefix(line: &str, bound: usize, ascii: &impl Fn(u8) -> usize) -> (usize, usize) {
    let mut total = 0;
    for (index, c) in line.char_indices() {
        let w = if c.is_ascii() { ascii(c as u8) } else { 1 };
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

    fn call() -> Call {
        Call::new("doc_tool", &Value::map(Vec::new()), &[])
    }

    /// `line_pages` by code points, as strings.
    fn lines(text: &str, bound: usize) -> Vec<&str> {
        line_pages(text, bound, |_| 1)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn line_pages_cut_at_lines_then_mid_line() {
        assert_eq!(lines("aa\nbb\ncc\n", 6), ["aa\nbb\n", "cc\n"]);
        // A line wider than the bound: what came before is flushed, the line is cut,
        // and its tail opens the next page.
        assert_eq!(
            lines("ab\ncdefghij\nk\n", 4),
            ["ab\n", "cdef", "ghij", "\nk\n"]
        );
        assert_eq!(lines("", 4), [""]);
        // Code points, not bytes.
        assert_eq!(lines("ééééé", 2), ["éé", "éé", "é"]);
    }

    #[test]
    fn document_pages_are_greedy_over_blocks() {
        assert_eq!(document_pages(&["ab", "cd"], 10), ["ab\n\ncd"]);
        // The second block does not fit beside the first: it starts a new page.
        assert_eq!(
            document_pages(&["abcd", "efghij"], 8),
            ["abcd\n\n", "efghij"]
        );
        // A block larger than a page is cut by lines; its last piece is continued.
        assert_eq!(
            document_pages(&["x", "1234\n5678\n9", "z"], 6),
            ["x\n\n", "1234\n", "5678\n", "9\n\nz"]
        );
    }

    #[test]
    fn pages_concatenate_to_the_document_and_carry_markers() {
        let long_line = "y".repeat(45_000);
        let text = format!(
            "# Title\n\n{}\n{long_line}\nafter\n",
            "short line\n".repeat(3000)
        );
        let call = call();
        let mut cursor: Option<String> = None;
        let mut rebuilt = String::new();
        let mut pages = 0;
        loop {
            let page =
                text_page(&call, &[text.as_str()], cursor.as_deref(), markdown_marker).unwrap();
            assert!(
                compat::py::len(&page) <= PAGE_CHARACTERS,
                "page {pages} is {} long",
                compat::py::len(&page)
            );
            pages += 1;
            match page.rfind("\n<!-- next_cursor: ") {
                Some(at) if page.ends_with(" -->") => {
                    let c = &page[at + "\n<!-- next_cursor: ".len()..page.len() - " -->".len()];
                    rebuilt.push_str(&page[..at]);
                    cursor = Some(c.to_string());
                }
                _ => {
                    rebuilt.push_str(&page);
                    break;
                }
            }
        }
        assert_eq!(rebuilt, text);
        // Two pages of short lines, then the long line cut twice, its tail on a fifth.
        assert_eq!(pages, 5);
    }

    #[test]
    fn cursors_outside_the_document_are_refused() {
        let call = call();
        let err =
            text_page(&call, &["one page"], Some(&call.cursor(0)), markdown_marker).unwrap_err();
        assert!(matches!(err, QueryError::ForeignCursor(_)));
        let err =
            text_page(&call, &["one page"], Some(&call.cursor(1)), markdown_marker).unwrap_err();
        assert!(matches!(err, QueryError::ForeignCursor(_)));
        assert_eq!(
            text_page(&call, &["one page"], None, markdown_marker).unwrap(),
            "one page"
        );
    }
}
