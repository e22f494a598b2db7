//! The one paging engine (spec §4.8). Head keys and list items become units; a page holds
//! the longest run of units whose reply, as the client receives it (a dict as indent-2 JSON,
//! a text as is), stays within 20,000 characters; an item too large for any page is sent as
//! parts. Each tool's reply shape (`Shape`) lives in its own module beside this one.
//!
//! The cut is the reference's: probe 1, 2, 4... units, then bisect. Whether a run fits is
//! monotone in its length (a longer run only adds entries, and two parts of one item sharing
//! a page stay shared), so the longest fitting run is the `c` with `fits(c)` and not
//! `fits(c + 1)`, however it is found: [`guided_page`] estimates `c` from each unit's size
//! alone and confirms it with a few renders, for shapes whose renders are dear (YAML).

use super::cursor::Call;
use crate::error::QueryError;
use crate::query::value::dict;
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

/// One indivisible piece of a paged reply: a head entry or an item, whole or one part of it.
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

/// A reply shape: renders a run of units as the reply page, `(units, first page?, next
/// cursor)`. A page is a dict, or a `Value::Str` holding finished text.
pub trait Shape: Fn(&[Unit], bool, Option<&str>) -> Value {}
impl<F: Fn(&[Unit], bool, Option<&str>) -> Value> Shape for F {}

/// The reference's `len(serialized(reply))`: a text as is, a dict as indent-2 JSON.
fn measure(reply: &Value) -> usize {
    match reply {
        Value::Str(s) => compat::py::len(s),
        other => compat::py::len(&json_indent2(other)),
    }
}

/// The size of `run` as a page (never the first), measured with a placeholder cursor.
fn measure_alone(unit: &Unit, shape: &impl Shape, placeholder: &str) -> usize {
    measure(&shape(std::slice::from_ref(unit), false, Some(placeholder)))
}

/// Head entries then items as units, each value too large for a page replaced by parts.
pub fn units(call: &Call, items: Vec<(UnitKey, Value)>, shape: &impl Shape) -> Vec<Unit> {
    measured_units(call, items, shape, false).0
}

/// [`units`], and with `sizes` each unit's size alone on a page (measured as the fit check
/// measures it, so a whole unit is rendered once).
fn measured_units(
    call: &Call,
    items: Vec<(UnitKey, Value)>,
    shape: &impl Shape,
    sizes: bool,
) -> (Vec<Unit>, Vec<usize>) {
    let placeholder = call.cursor(0);
    let mut out = Vec::with_capacity(items.len());
    let mut measured = Vec::with_capacity(if sizes { items.len() } else { 0 });
    for (key, value) in items {
        let whole = Unit::Whole {
            key: key.clone(),
            value,
        };
        let alone = measure_alone(&whole, shape, &placeholder);
        if alone <= PAGE_CHARACTERS {
            out.push(whole);
            if sizes {
                measured.push(alone);
            }
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
        let overhead = measure_alone(&probe, shape, &placeholder);
        let chunks = chunks(
            &json_compact(&value),
            PAGE_CHARACTERS.saturating_sub(overhead),
        );
        let parts = chunks.len();
        for (n, text) in chunks.into_iter().enumerate() {
            let part = Unit::Part {
                key: key.clone(),
                part: n + 1,
                parts,
                text,
            };
            if sizes {
                measured.push(measure_alone(&part, shape, &placeholder));
            }
            out.push(part);
        }
    }
    (out, measured)
}

/// The reply page `cursor` points at (none: the first page).
pub fn page(
    call: &Call,
    units: &[Unit],
    shape: &impl Shape,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    cut(call, units, shape, cursor, None)
}

/// The page of `items` that `cursor` points at, cut exactly where [`page`] cuts it with far
/// fewer renders: the run's length is first estimated from each unit's own size, then
/// confirmed or moved one unit at a time by real renders; an estimate that needs more than
/// a few moves falls back to the reference's search.
pub fn guided_page(
    call: &Call,
    items: Vec<(UnitKey, Value)>,
    shape: &impl Shape,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let (units, sizes) = measured_units(call, items, shape, true);
    cut(call, &units, shape, cursor, Some(&sizes))
}

/// Positions of a [`lazy_page`] cursor: `entry * PARTS_PER_ENTRY + part`, where entries
/// are the head units' values then the items, so a page resumes at its own entry without
/// making any before it.
const PARTS_PER_ENTRY: usize = 10_000;

/// The entry a [`lazy_page`] with `cursor` starts at (0 without one).
pub fn lazy_start(call: &Call, cursor: Option<&str>) -> Result<usize, QueryError> {
    Ok(call.position(cursor)? / PARTS_PER_ENTRY)
}

/// [`page`] over head entries and `count` items that `item` makes on demand: a page makes
/// the entries from its own start and only as far as it reaches, so page N costs what
/// page 1 does. A cut inside the run made so far is the cut the whole list gives, since a
/// page only grows with its units; a run too short to decide is made longer first.
pub fn lazy_page(
    call: &Call,
    head: Vec<(UnitKey, Value)>,
    count: usize,
    item: &mut dyn FnMut(usize) -> Result<(UnitKey, Value), QueryError>,
    shape: &impl Shape,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let first = cursor.is_none();
    let position = call.position(cursor)?;
    let (start_entry, start_part) = (position / PARTS_PER_ENTRY, position % PARTS_PER_ENTRY);
    let heads = head.len();
    let entries = heads + count;
    if start_entry > entries || (!first && start_entry >= entries) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let mut head = head.into_iter().map(Some).collect::<Vec<_>>();
    let mut make = |e: usize| -> Result<(UnitKey, Value), QueryError> {
        match head.get_mut(e) {
            Some(h) => h
                .take()
                .ok_or_else(|| QueryError::Internal("a head entry made twice".into())),
            None => item(e - heads),
        }
    };
    // The units from the resume point on, and the (entry, part) each one is.
    let mut units: Vec<Unit> = Vec::new();
    let mut at: Vec<(usize, usize)> = Vec::new();
    let mut next = start_entry;
    let placeholder = call.cursor(0);
    let mut wanted = 64usize;
    loop {
        while next < entries && units.len() < wanted {
            let made = self::units(call, vec![make(next)?], shape);
            let skip = if next == start_entry { start_part } else { 0 };
            for (part, unit) in made.into_iter().enumerate().skip(skip) {
                units.push(unit);
                at.push((next, part));
            }
            next += 1;
        }
        let complete = next == entries;
        let fits = |n: usize| run_fits(&units[..n], first, shape, &placeholder);
        let run = longest_run(units.len(), &fits);
        if complete && run == units.len() {
            return Ok(shape(&units, first, None));
        }
        if run < units.len() {
            let run = if run == 0 && !first { 1 } else { run };
            let (entry, part) = at[run];
            return Ok(shape(
                &units[..run],
                first,
                Some(&call.cursor(entry * PARTS_PER_ENTRY + part)),
            ));
        }
        wanted = wanted.saturating_mul(2);
    }
}

/// How many probes the guided search may spend before it falls back to the reference's.
const GUIDE_STEPS: usize = 6;

/// The longest run from the cursor's unit that fits a page, rendered. `sizes`: each unit's
/// size alone, for the guided search.
fn cut(
    call: &Call,
    units: &[Unit],
    shape: &impl Shape,
    cursor: Option<&str>,
    sizes: Option<&[usize]>,
) -> Result<Value, QueryError> {
    let first = cursor.is_none();
    let start = call.position(cursor)?;
    if start > units.len() || (!first && start == units.len()) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let placeholder = call.cursor(0);
    let remaining = units.len() - start;
    let fits = |count: usize| run_fits(&units[start..start + count], first, shape, &placeholder);
    let count = sizes
        .and_then(|sizes| {
            let guess = estimate(&sizes[start..], first, shape, &placeholder);
            settle(guess, remaining, &fits)
        })
        .unwrap_or_else(|| longest_run(remaining, &fits));
    if count == remaining {
        return Ok(shape(&units[start..], first, None));
    }
    let count = if count == 0 && !first { 1 } else { count };
    Ok(shape(
        &units[start..start + count],
        first,
        Some(&call.cursor(start + count)),
    ))
}

fn run_fits(run: &[Unit], first: bool, shape: &impl Shape, placeholder: &str) -> bool {
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
    measure(&shape(run, first, Some(placeholder))) <= PAGE_CHARACTERS
}

/// The run length the empty page plus each unit's own growth of it reaches.
fn estimate(sizes: &[usize], first: bool, shape: &impl Shape, placeholder: &str) -> usize {
    let empty = measure(&shape(&[], false, Some(placeholder)));
    let mut total = if first {
        measure(&shape(&[], true, Some(placeholder)))
    } else {
        empty
    };
    let mut guess = 0;
    while guess < sizes.len() {
        total += sizes[guess].saturating_sub(empty);
        if total > PAGE_CHARACTERS {
            break;
        }
        guess += 1;
    }
    guess
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

/// The reference's own search (`paging._longest_run`): probes 1, 2, 4... then bisection,
/// so page cuts land where its do.
fn longest_run(remaining: usize, fits: &impl Fn(usize) -> bool) -> usize {
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

/// A list reply's page before its counts: the head entries it carries, then `key` holding
/// its items as a list.
pub fn list_reply(run: &[Unit], key: &str) -> Vec<(Value, Value)> {
    let (head, rest) = split_head(run);
    let mut reply: Vec<(Value, Value)> =
        head.into_iter().map(|(k, v)| (Value::Str(k), v)).collect();
    reply.push((
        Value::Str(key.into()),
        Value::seq(rest.iter().map(|u| u.value()).collect()),
    ));
    reply
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
    Value::map(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list_render(run: &[Unit], _first: bool, next: Option<&str>) -> Value {
        with_total(list_reply(run, "items"), 0, next)
    }

    fn call() -> Call {
        Call::new("t", &Value::map(vec![]), &[])
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
        let args = Value::map(vec![(
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
        let other_args = Call::new("list_tables", &Value::map(vec![]), &files);
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

    #[test]
    fn the_guided_cut_lands_where_the_reference_cut_does() {
        let call = call();
        let mut items: Vec<(UnitKey, Value)> =
            vec![(UnitKey::Head("header".into()), Value::Str("h".repeat(300)))];
        // Items of uneven sizes, one too large for any page.
        for i in 0..400 {
            let text = if i == 150 {
                "z".repeat(45_000)
            } else {
                "x".repeat(20 + (i * 37) % 700)
            };
            items.push((UnitKey::Item(Value::Int(i as i64)), Value::Str(text)));
        }
        let units = units(&call, items.clone(), &list_render);
        let mut cursor: Option<String> = None;
        loop {
            let reference = page(&call, &units, &list_render, cursor.as_deref()).unwrap();
            let guided =
                guided_page(&call, items.clone(), &list_render, cursor.as_deref()).unwrap();
            assert_eq!(guided, reference);
            cursor = reference
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() {
                return;
            }
        }
    }
}
