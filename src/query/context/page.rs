//! Markdown pages with a legend per page (spec §4.8 as §4.1 states it): the document is cut
//! leaving room for the whole document's legend, and each page then carries the legend of
//! the lines it holds, after the identity on page one and at the top of later pages.

use super::markdown::Section;
use super::terms::{legend, Keys};
use crate::error::QueryError;
use crate::render::cursor::Call;
use crate::render::document::{document_pages, markdown_marker};
use crate::render::paging::PAGE_CHARACTERS;
use crate::render::py_len;

/// The terms of every line the document's characters `start..end` touch.
fn terms_between(sections: &[Section], start: usize, end: usize) -> Keys {
    let mut found = Keys::new();
    let mut offset = 0usize;
    for s in sections {
        for (number, line) in s.text.split('\n').enumerate() {
            let len = py_len(line);
            if number < s.line_terms.len() && offset < end && offset + len > start {
                found.extend(s.line_terms[number].iter().cloned());
            }
            offset += len + 1;
        }
        offset += 1;
    }
    found
}

fn prefix_chars(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// `legend_text_page`: the page `cursor` points at.
pub fn legend_text_page(
    call: &Call,
    sections: &[Section],
    cursor: Option<&str>,
) -> Result<String, QueryError> {
    let texts: Vec<&str> = sections.iter().map(|s| s.text.as_str()).collect();
    let all: Keys = sections
        .iter()
        .flat_map(|s| s.line_terms.iter().flatten().cloned())
        .collect();
    let full = legend(&all).map_err(QueryError::Other)?;
    let reserve = if full.is_empty() {
        0
    } else {
        py_len(&full) + 2
    };
    let bound = PAGE_CHARACTERS
        .saturating_sub(py_len(&markdown_marker(&call.cursor(0))))
        .saturating_sub(reserve);
    let pages = document_pages(&texts, bound);
    let index = call.position(cursor)?;
    if index >= pages.len() || (cursor.is_some() && index == 0) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let start: usize = pages[..index].iter().map(|p| py_len(p)).sum();
    let page = &pages[index];
    let terms = terms_between(sections, start, start + py_len(page));
    let page_legend = legend(&terms).map_err(QueryError::Other)?;
    let mut text = if page_legend.is_empty() {
        page.clone()
    } else if index == 0 {
        let head = py_len(texts.first().copied().unwrap_or_default()).min(py_len(page));
        let at = prefix_chars(page, head);
        format!("{}\n\n{page_legend}{}", &page[..at], &page[at..])
    } else {
        format!("{page_legend}\n\n{page}")
    };
    if index + 1 < pages.len() {
        text.push_str(&markdown_marker(&call.cursor(index + 1)));
    }
    Ok(text)
}
