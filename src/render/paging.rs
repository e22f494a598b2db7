//! Paging of dict replies (spec §4.8): head keys and list items become units; a page
//! holds the longest run of units whose rendered JSON (indent 2) stays within the
//! bound; an item too large for any page is sent as parts.

use super::cursor::Call;
use super::dict;
use crate::error::QueryError;
use compat::py::{json_compact, json_indent2};
use compat::value::Value;

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
        Value::Str(s) => compat::py::len(s),
        other => compat::py::len(&json_indent2(other)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn list_render(run: &[Unit], _first: bool, next: Option<&str>) -> Value {
        let (head, rest) = split_head(run);
        let mut reply: Vec<(Value, Value)> =
            head.into_iter().map(|(k, v)| (Value::Str(k), v)).collect();
        reply.push((
            Value::Str("items".into()),
            Value::Seq(rest.iter().map(|u| u.value()).collect()),
        ));
        with_total(reply, 0, next)
    }

    fn call() -> Call {
        Call::new("t", &Value::Map(vec![]), &[])
    }

    fn walk(items: Vec<(UnitKey, Value)>) -> Vec<Value> {
        let call = call();
        let units = units(&call, items, &list_render);
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = page(&call, &units, &list_render, cursor.as_deref()).unwrap();
            assert!(measure(&page) <= PAGE_CHARACTERS, "page over the bound");
            cursor = page
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            pages.push(page);
            if cursor.is_none() {
                return pages;
            }
        }
    }

    #[test]
    fn pages_hold_every_item_once_in_order() {
        let items: Vec<(UnitKey, Value)> = (0..3000)
            .map(|i| {
                (
                    UnitKey::Item(Value::Int(i)),
                    Value::Str(format!("item-{i:05}")),
                )
            })
            .collect();
        let pages = walk(items);
        assert!(pages.len() > 1);
        let seen: Vec<String> = pages
            .iter()
            .flat_map(|p| p.get("items").unwrap().as_seq().unwrap().to_vec())
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let expected: Vec<String> = (0..3000).map(|i| format!("item-{i:05}")).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn an_oversize_item_arrives_in_parts_that_rebuild_its_json() {
        let big = Value::Str("é\"x".repeat(15_000));
        let items = vec![
            (UnitKey::Head("header".into()), Value::Str("h".into())),
            (UnitKey::Item(Value::Int(0)), big.clone()),
            (UnitKey::Item(Value::Int(1)), Value::Str("small".into())),
        ];
        let pages = walk(items);
        let mut text = String::new();
        let mut parts = 0;
        for page in &pages {
            for item in page.get("items").unwrap().as_seq().unwrap() {
                if let Some(t) = item.get("text") {
                    parts += 1;
                    text.push_str(t.as_str().unwrap());
                }
            }
            // Two parts of one item never share a page.
            let here = page
                .get("items")
                .unwrap()
                .as_seq()
                .unwrap()
                .iter()
                .filter(|i| i.get("part").is_some())
                .count();
            assert!(here <= 1);
        }
        assert!(parts >= 2);
        assert_eq!(text, json_compact(&big));
        assert_eq!(pages[0].get("header"), Some(&Value::Str("h".into())));
    }

    #[test]
    fn a_cursor_belongs_to_its_call() {
        let args = Value::Map(vec![(
            Value::Str("pattern".into()),
            Value::Str("a*".into()),
        )]);
        let files = vec![("/p/manifest.yaml".to_string(), "v1".to_string())];
        let call = Call::new("list_tables", &args, &files);
        let cursor = call.cursor(7);
        assert_eq!(call.position(Some(&cursor)), Ok(7));
        assert_eq!(call.position(None), Ok(0));
        let other_tool = Call::new("get_manifest", &args, &files);
        assert_eq!(
            other_tool.position(Some(&cursor)),
            Err(QueryError::ForeignCursor("get_manifest".into()))
        );
        let other_args = Call::new("list_tables", &Value::Map(vec![]), &files);
        assert_eq!(
            other_args.position(Some(&cursor)),
            Err(QueryError::ForeignCursor("list_tables".into()))
        );
        let changed = Call::new(
            "list_tables",
            &args,
            &[("/p/manifest.yaml".to_string(), "v2".to_string())],
        );
        assert_eq!(
            changed.position(Some(&cursor)),
            Err(QueryError::StaleCursor("list_tables".into()))
        );
        for garbage in ["garbage!!", "", "bm90LWEtY3Vyc29y", "e30"] {
            assert_eq!(
                call.position(Some(garbage)),
                Err(QueryError::MalformedCursor(garbage.into()))
            );
        }
    }

    #[test]
    fn a_cursor_past_the_end_is_foreign() {
        let call = call();
        let items = vec![(UnitKey::Item(Value::Int(0)), Value::Str("a".into()))];
        let units = units(&call, items, &list_render);
        let past = call.cursor(1);
        assert_eq!(
            page(&call, &units, &list_render, Some(&past)),
            Err(QueryError::ForeignCursor("t".into()))
        );
    }
}
