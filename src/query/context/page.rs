//! Markdown pages with a legend per page (spec §4.8 as §4.1 states it): the document is cut
//! leaving room for the whole document's legend, and each page then carries the legend of
//! the lines it holds, after the identity on page one and at the top of later pages.

use super::markdown::Section;
use super::terms::{legend, Keys};
use crate::error::QueryError;
use crate::render::cursor::Call;
use crate::render::document::{document_pages, markdown_marker};
use crate::render::paging::{self, Unit, UnitKey, PAGE_CHARACTERS};
use compat::value::Value;

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
        compat::py::len(&full) + 2
    };
    let bound = PAGE_CHARACTERS
        .saturating_sub(compat::py::len(&markdown_marker(&call.cursor(0))))
        .saturating_sub(reserve);
    let pages = document_pages(&texts, bound);
    let index = call.position(cursor)?;
    if index >= pages.len() || (cursor.is_some() && index == 0) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let start: usize = pages[..index].iter().map(|p| compat::py::len(p)).sum();
    let page = &pages[index];
    let terms = terms_between(sections, start, start + compat::py::len(page));
    let page_legend = legend(&terms).map_err(QueryError::Other)?;
    let mut text = if page_legend.is_empty() {
        page.clone()
    } else if index == 0 {
        let head =
            compat::py::len(texts.first().copied().unwrap_or_default()).min(compat::py::len(page));
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

/// The reference's `len(serialized(reply))`: a text as is, a dict as indent-2 JSON.
fn measure(reply: &Value) -> usize {
    match reply {
        Value::Str(s) => compat::py::len(s),
        other => compat::py::len(&compat::py::json_indent2(other)),
    }
}

/// How many probes the guided search may spend before it falls back to the reference's
/// exponential-then-binary search.
const GUIDE_STEPS: usize = 6;

/// A dict reply's page, cut exactly where `paging::page` cuts it, with far fewer renders.
///
/// `paging::page` finds the longest run of units that fits by rendering probes 1, 2, 4...
/// then bisecting; every probe serializes a whole page, which for YAML dominates the call.
/// Whether a run fits is monotone in its length (a longer run only adds entries, and two
/// parts of one item sharing a page stay shared), so the longest fitting run is the `c`
/// with `fits(c)` and not `fits(c + 1)`, whichever way it is found. Here `c` is first
/// estimated from each unit's size alone, then confirmed or moved one unit at a time by
/// real renders; an estimate that needs more than a few moves falls back to the bisection.
pub fn guided_page(
    call: &Call,
    items: Vec<(UnitKey, Value)>,
    render: &impl Fn(&[Unit], bool, Option<&str>) -> Value,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let placeholder = call.cursor(0);
    let empty = measure(&render(&[], false, Some(&placeholder)));
    let wholes: Vec<Unit> = items
        .iter()
        .map(|(key, value)| Unit::Whole {
            key: key.clone(),
            value: value.clone(),
        })
        .collect();
    let alone: Vec<usize> = wholes
        .iter()
        .map(|u| measure(&render(std::slice::from_ref(u), false, Some(&placeholder))))
        .collect();
    // An item too large for any page is cut into parts exactly as `paging::units` cuts it.
    let (units, alone) = if alone.iter().all(|n| *n <= PAGE_CHARACTERS) {
        (wholes, alone)
    } else {
        let units = paging::units(call, items, render);
        let alone = units
            .iter()
            .map(|u| measure(&render(std::slice::from_ref(u), false, Some(&placeholder))))
            .collect();
        (units, alone)
    };
    let first = cursor.is_none();
    let start = call.position(cursor)?;
    if start > units.len() || (!first && start == units.len()) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let remaining = units.len() - start;
    let fits = |count: usize| -> bool {
        let run = &units[start..start + count];
        let mut part_keys: Vec<&UnitKey> = Vec::new();
        for u in run {
            if let Unit::Part { key, .. } = u {
                if part_keys.contains(&key) {
                    return false;
                }
                part_keys.push(key);
            }
        }
        measure(&render(run, first, Some(&placeholder))) <= PAGE_CHARACTERS
    };
    // The estimate: the empty page plus each unit's own growth of it.
    let base = if first {
        measure(&render(&[], true, Some(&placeholder)))
    } else {
        empty
    };
    let mut total = base;
    let mut guess = 0;
    while guess < remaining {
        total += alone[start + guess].saturating_sub(empty);
        if total > PAGE_CHARACTERS {
            break;
        }
        guess += 1;
    }
    let count = settle(guess, remaining, &fits).unwrap_or_else(|| bisect(remaining, &fits));
    if count == remaining {
        return Ok(render(&units[start..], first, None));
    }
    let count = if count == 0 && !first { 1 } else { count };
    Ok(render(
        &units[start..start + count],
        first,
        Some(&call.cursor(start + count)),
    ))
}

/// From `guess`, the `c` with `fits(c)` and not `fits(c + 1)`, within `GUIDE_STEPS` renders.
fn settle(guess: usize, remaining: usize, fits: &impl Fn(usize) -> bool) -> Option<usize> {
    let mut c = guess.min(remaining);
    let mut steps = 0;
    if c > 0 && !fits(c) {
        loop {
            c -= 1;
            steps += 1;
            if c == 0 || fits(c) {
                return Some(c);
            }
            if steps >= GUIDE_STEPS {
                return None;
            }
        }
    }
    while c < remaining {
        steps += 1;
        if !fits(c + 1) {
            return Some(c);
        }
        c += 1;
        if steps >= GUIDE_STEPS {
            return None;
        }
    }
    Some(c)
}

/// The reference's own search (`paging._longest_run`): probes 1, 2, 4... then bisection.
fn bisect(remaining: usize, fits: &impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0usize, 1usize);
    while high <= remaining && fits(high) {
        low = high;
        high *= 2;
    }
    high = high.min(remaining + 1);
    while high - low > 1 {
        let middle = (low + high) / 2;
        if fits(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    low
}
