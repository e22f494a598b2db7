//! Paging of Markdown documents (spec §4.8 as §4.1 states it for text): blocks joined
//! by blank lines fill a page greedily; a block that does not fit starts a new page and
//! is cut at line boundaries, a line longer than a page at a character boundary. Every
//! page but the last ends with a marker carrying the next cursor. Lengths are Python
//! `len`, i.e. code points.

use super::cursor::Call;
use super::paging::PAGE_CHARACTERS;
use crate::error::QueryError;

/// The Markdown page marker: `\n<!-- next_cursor: X -->`.
pub fn markdown_marker(cursor: &str) -> String {
    format!("\n<!-- next_cursor: {cursor} -->")
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
    let bound = PAGE_CHARACTERS.saturating_sub(compat::py::len(&marker(&call.cursor(0))));
    let mut pages = document_pages(blocks, bound);
    let index = call.position(cursor)?;
    // A document's page 0 is never a cursor's target: only the first call reaches it.
    if index >= pages.len() || (cursor.is_some() && index == 0) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let last = index == pages.len() - 1;
    let mut page = pages.swap_remove(index);
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
        let mut lines = line_pages(&piece, bound);
        current = lines.pop().unwrap_or_default();
        current_len = compat::py::len(&current);
        pages.extend(lines);
    }
    if !current.is_empty() || pages.is_empty() {
        pages.push(current);
    }
    pages
}

/// `text` cut at line boundaries into pages of at most `bound` code points, a line
/// longer than that mid-line; the pages concatenate to `text`.
pub fn line_pages(text: &str, bound: usize) -> Vec<String> {
    line_pages_by(text, bound, |_| 1)
}

/// `line_pages` measuring each character with `width` (a resource read measures the
/// JSON-escaped width the client receives).
pub fn line_pages_by(text: &str, bound: usize, width: impl Fn(char) -> usize) -> Vec<String> {
    let measure = |s: &str| s.chars().map(&width).sum::<usize>();
    let mut pages: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_width = 0usize;
    for whole in compat::py::splitlines_keepends(text) {
        let mut line = whole;
        let mut line_width = measure(line);
        while line_width > bound {
            if !current.is_empty() {
                pages.push(std::mem::take(&mut current));
                current_width = 0;
            }
            let cut = widest_prefix(line, bound, &width);
            pages.push(line[..cut].to_string());
            line = &line[cut..];
            line_width = measure(line);
        }
        if !current.is_empty() && current_width + line_width > bound {
            pages.push(std::mem::take(&mut current));
            current_width = 0;
        }
        current.push_str(line);
        current_width += line_width;
    }
    if !current.is_empty() || pages.is_empty() {
        pages.push(current);
    }
    pages
}

/// Byte length of the longest prefix of `text` within `bound`, at least one character.
fn widest_prefix(text: &str, bound: usize, width: &impl Fn(char) -> usize) -> usize {
    let mut total = 0usize;
    for (index, (byte, ch)) in text.char_indices().enumerate() {
        total += width(ch);
        if total > bound {
            if index == 0 {
                return ch.len_utf8();
            }
            return byte;
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use compat::value::Value;

    fn call() -> Call {
        Call::new("doc_tool", &Value::Map(Vec::new()), &[])
    }

    #[test]
    fn line_pages_cut_at_lines_then_mid_line() {
        assert_eq!(line_pages("aa\nbb\ncc\n", 6), ["aa\nbb\n", "cc\n"]);
        // A line wider than the bound: what came before is flushed, the line is cut,
        // and its tail opens the next page.
        assert_eq!(
            line_pages("ab\ncdefghij\nk\n", 4),
            ["ab\n", "cdef", "ghij", "\nk\n"]
        );
        assert_eq!(line_pages("", 4), [""]);
        // Code points, not bytes.
        assert_eq!(line_pages("ééééé", 2), ["éé", "éé", "é"]);
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
