//! Paging of dict replies (spec §4.8): head keys and list items become units; a page
//! holds the longest run of units whose rendered JSON (indent 2) stays within the
//! bound; an item too large for any page is sent as parts.

use super::cursor::Call;
use super::{dict, py_len};
use crate::error::QueryError;
use crate::pyfmt::{json_compact, json_indent2};
use crate::yaml::Value;

pub const PAGE_CHARACTERS: usize = 20_000;

/// What a unit stands for in the reply.
#[derive(Debug, Clone, PartialEq)]
pub enum UnitKey {
    /// A top-level key riding the first page.
    Head(String),
    /// A list or map item.
    Item(Value),
}

#[derive(Debug, Clone)]
pub enum Unit {
    Whole {
        key: UnitKey,
        value: Value,
    },
    Part {
        key: UnitKey,
        part: usize,
        parts: usize,
        text: String,
    },
}

impl Unit {
    pub fn key(&self) -> &UnitKey {
        match self {
            Unit::Whole { key, .. } | Unit::Part { key, .. } => key,
        }
    }

    /// The unit as it stands in a reply: a part stands in its item's place.
    pub fn value(&self) -> Value {
        match self {
            Unit::Whole { value, .. } => value.clone(),
            Unit::Part {
                part, parts, text, ..
            } => dict([
                ("part", Value::Int(*part as i64)),
                ("parts", Value::Int(*parts as i64)),
                ("text", Value::Str(text.clone())),
            ]),
        }
    }
}

/// Renders a run of units as the reply page: `(units, first page?, next cursor)`.
pub trait Render: Fn(&[Unit], bool, Option<&str>) -> Value {}
impl<F: Fn(&[Unit], bool, Option<&str>) -> Value> Render for F {}

fn measure(reply: &Value) -> usize {
    match reply {
        Value::Str(s) => py_len(s),
        other => py_len(&json_indent2(other)),
    }
}

fn fits(reply: &Value) -> bool {
    measure(reply) <= PAGE_CHARACTERS
}

/// Head entries then items as units, each value too large for a page replaced by parts.
pub fn units(call: &Call, items: Vec<(UnitKey, Value)>, render: &impl Render) -> Vec<Unit> {
    let placeholder = call.cursor(0);
    let mut out = Vec::with_capacity(items.len());
    for (key, value) in items {
        let whole = Unit::Whole {
            key: key.clone(),
            value,
        };
        if fits(&render(
            std::slice::from_ref(&whole),
            false,
            Some(&placeholder),
        )) {
            out.push(whole);
            continue;
        }
        let Unit::Whole { value, .. } = whole else {
            unreachable!()
        };
        let probe = Unit::Part {
            key: key.clone(),
            part: 9999,
            parts: 9999,
            text: String::new(),
        };
        let overhead = measure(&render(
            std::slice::from_ref(&probe),
            false,
            Some(&placeholder),
        ));
        let chunks = chunks(
            &json_compact(&value),
            PAGE_CHARACTERS.saturating_sub(overhead),
        );
        let parts = chunks.len();
        out.extend(chunks.into_iter().enumerate().map(|(n, text)| Unit::Part {
            key: key.clone(),
            part: n + 1,
            parts,
            text,
        }));
    }
    out
}

/// The reply page `cursor` points at (none: the first page).
pub fn page(
    call: &Call,
    units: &[Unit],
    render: &impl Render,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let first = cursor.is_none();
    let start = call.position(cursor)?;
    if start > units.len() || (!first && start == units.len()) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let mut count = longest_run(units, start, first, render, &call.cursor(0));
    if count == units.len() - start {
        return Ok(render(&units[start..], first, None));
    }
    if count == 0 && !first {
        count = 1;
    }
    Ok(render(
        &units[start..start + count],
        first,
        Some(&call.cursor(start + count)),
    ))
}

/// Probe 1, 2, 4, ... units until one fails, then binary-search: the reference's
/// exact search, so page cuts land where its do.
fn longest_run(
    units: &[Unit],
    start: usize,
    first: bool,
    render: &impl Render,
    placeholder: &str,
) -> usize {
    let fits_run = |count: usize| -> bool {
        let run = &units[start..start + count];
        let mut part_keys: Vec<&UnitKey> = Vec::new();
        for u in run {
            if let Unit::Part { key, .. } = u {
                // A mapping holds one value per key: two parts of one item never share a page.
                if part_keys.contains(&key) {
                    return false;
                }
                part_keys.push(key);
            }
        }
        fits(&render(run, first, Some(placeholder)))
    };
    let remaining = units.len() - start;
    let (mut low, mut high) = (0usize, 1usize);
    while high <= remaining && fits_run(high) {
        low = high;
        high *= 2;
    }
    high = high.min(remaining + 1);
    while high - low > 1 {
        let middle = (low + high) / 2;
        if fits_run(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    low
}

/// Cut ASCII JSON text into chunks whose escaped width fits `budget`.
fn chunks(text: &str, budget: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut size = 0usize;
    for ch in text.chars() {
        let width = escaped_char_width(ch);
        if size + width > budget && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            size = 0;
        }
        current.push(ch);
        size += width;
    }
    out.push(current);
    out
}

/// `len(json.dumps(ch)) - 2` (ensure_ascii).
fn escaped_char_width(ch: char) -> usize {
    match ch {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c if (c as u32) < 0x7f => 1,
        c if (c as u32) < 0x10000 => 6,
        _ => 12,
    }
}

/// Split rendered units into head entries (in order) and the rest.
pub fn split_head(units: &[Unit]) -> (Vec<(String, Value)>, Vec<&Unit>) {
    let mut head = Vec::new();
    let mut rest = Vec::new();
    for u in units {
        match u.key() {
            UnitKey::Head(name) => head.push((name.clone(), u.value())),
            UnitKey::Item(_) => rest.push(u),
        }
    }
    (head, rest)
}

/// A page reply: head entries, then the caller's keys, then `total` and `next_cursor`.
pub fn with_total(
    mut reply: Vec<(Value, Value)>,
    total: usize,
    next_cursor: Option<&str>,
) -> Value {
    reply.push((Value::Str("total".into()), Value::Int(total as i64)));
    if let Some(c) = next_cursor {
        reply.push((Value::Str("next_cursor".into()), Value::Str(c.to_string())));
    }
    Value::Map(reply)
}
