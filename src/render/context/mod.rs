//! get_table_context's reply over a `query::context::Context`: Markdown (`markdown`, with
//! the per-column Notes of `notes` and the `## Terms` legend of `terms`) cut by the text
//! rule with a legend per page, or the structured object (`structured`) as a JSON dict or
//! YAML text cut by the paging engine. `spell` spells numbers, values and scope.

mod markdown;
mod notes;
mod spell;
mod structured;
mod terms;

use super::cursor::Call;
use super::document::{dressed_text_page, markdown_marker};
use super::paging::{self, Unit};
use super::Reply;
use crate::error::QueryError;
use crate::query::context::Context;
use crate::query::value::set;
use compat::value::Value;
use markdown::Section;
use terms::{legend, Keys};

/// What the caller asked to see.
#[derive(Debug, Clone)]
pub struct Options {
    pub query: bool,
    pub include_description: bool,
    pub include_annotations: bool,
    pub include_stats: bool,
    pub include_relationships: bool,
}

pub use super::Format;

/// The page of `context`'s reply that `cursor` points at; its cursors pin every file the
/// answer read.
pub fn page(
    context: &Context,
    format: Format,
    options: &Options,
    arguments: &Value,
    cursor: Option<&str>,
) -> Result<Reply, QueryError> {
    let call = Call::pinned("get_table_context", arguments, &context.pins);
    let a = &context.artifacts;
    if format == Format::Md {
        let sections =
            markdown::sections(a, options, context.adapter.as_deref(), &context.profile)?;
        return legend_text_page(&call, &sections, cursor).map(Reply::Text);
    }
    let head = structured::header(a, options);
    let candidates = structured::candidates(a, options)?;
    let items = structured::units(&head, candidates);
    let yaml = format == Format::Yaml;
    let shape = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let mut reply = structured::nested(run);
        if yaml {
            let text = compat::yaml::emit::safe_dump(&reply);
            return Value::Str(match next {
                Some(c) => format!("{text}# next_cursor: {c}\n"),
                None => text,
            });
        }
        if let Some(c) = next {
            set(&mut reply, "next_cursor", Value::Str(c.to_string()));
        }
        reply
    };
    let mut item = |i: usize| {
        items
            .get(i)
            .cloned()
            .ok_or_else(|| QueryError::Internal("get_table_context: a unit past the end".into()))
    };
    let page = paging::lazy_page(&call, Vec::new(), items.len(), &mut item, &shape, cursor)?;
    match page {
        Value::Str(text) => Ok(Reply::Text(text)),
        dict => Ok(Reply::Dict(dict)),
    }
}

/// Markdown pages with a legend per page (spec §4.8 as §4.1 states it): the document is cut
/// leaving room for the whole document's legend, and each page then carries the legend of
/// the lines it holds, after the identity on page one and at the top of later pages.
fn legend_text_page(
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
        compat::py::len(&full) + 2
    };
    dressed_text_page(
        call,
        &texts,
        cursor,
        markdown_marker,
        reserve,
        |mut pages, index| {
            let start: usize = pages[..index].iter().map(|p| compat::py::len(p)).sum();
            let page = pages.swap_remove(index);
            let terms = terms_between(sections, start, start + compat::py::len(&page));
            let page_legend = legend(&terms).map_err(QueryError::Other)?;
            Ok(if page_legend.is_empty() {
                page
            } else if index == 0 {
                let head = compat::py::len(texts.first().copied().unwrap_or_default())
                    .min(compat::py::len(&page));
                let at = prefix_chars(&page, head);
                format!("{}\n\n{page_legend}{}", &page[..at], &page[at..])
            } else {
                format!("{page_legend}\n\n{page}")
            })
        },
    )
}

/// The terms of every line the document's characters `start..end` touch.
fn terms_between(sections: &[Section], start: usize, end: usize) -> Keys {
    let mut found = Keys::new();
    let mut offset = 0usize;
    for s in sections {
        for (number, line) in s.text.split('\n').enumerate() {
            let len = compat::py::len(line);
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
