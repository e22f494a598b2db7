//! The one paging engine (spec §4.8). Head keys and list items become units; a page holds
//! the longest run of units whose reply, as the client receives it (a dict as indent-2 JSON,
//! a text as is), stays within 20,000 characters; an item too large for any page is sent as
//! parts. Each tool's reply shape (`Shape`) lives in its own module beside this one.
//!
//! The cut is the reference's: it probes 1, 2, 4... units, then bisects. Whether a run fits
//! is monotone in its length (a longer run only adds entries, and two parts of one item
//! sharing a page stay shared), so the longest fitting run is the `c` with `fits(c)` and not
//! `fits(c + 1)`, however it is found. Here it is found from an estimate: each unit's size
//! alone, less what two units on one page share, summed until the page is full; then real
//! renders confirm the estimate or gallop out from it ([`longest_fitting`]), which takes two
//! or three renders where the reference's search takes a dozen. A page is measured by
//! counting its JSON, never writing it (`compat::py::json_indent2_len`).

use super::cursor::Call;
use crate::error::QueryError;
use crate::query::value::dict;
use compat::py::json_compact;
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
        other => compat::py::json_indent2_len(other),
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
    cut(call, units, shape, cursor)
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
    let placeholder = call.cursor(0);
    // The units from the resume point on: each with the (entry, part) it is and its size
    // alone on a page.
    let mut made = Made::default();
    let mut next = start_entry;
    let mut more = |made: &mut Made| -> Result<bool, QueryError> {
        if next >= entries {
            return Ok(false);
        }
        let (units, sizes) = measured_units(call, vec![make(next)?], shape, true);
        let skip = if next == start_entry { start_part } else { 0 };
        for (part, (unit, size)) in units.into_iter().zip(sizes).enumerate().skip(skip) {
            made.units.push(unit);
            made.sizes.push(size);
            made.at.push((next, part));
        }
        next += 1;
        Ok(true)
    };
    let mut estimate = Estimate::new(shape, first, &placeholder);
    while !estimate.full {
        if estimate.fitting == made.units.len() && !more(&mut made)? {
            break;
        }
        estimate.take(&made.units, &made.sizes, shape, &placeholder);
    }
    let mut probe = |n: usize| -> Result<Probe, QueryError> {
        while made.units.len() < n {
            if !more(&mut made)? {
                return Ok(Probe::PastEnd(made.units.len()));
            }
        }
        Ok(Probe::of(run_fits(
            &made.units[..n],
            first,
            shape,
            &placeholder,
        )))
    };
    let run = longest_fitting(estimate.fitting, &mut probe)?;
    let units = &made.units;
    if run == units.len() {
        // The search saw the end: every remaining unit fits.
        return Ok(shape(units, first, None));
    }
    let run = if run == 0 && !first { 1 } else { run };
    let (entry, part) = made.at[run];
    Ok(shape(
        &units[..run],
        first,
        Some(&call.cursor(entry * PARTS_PER_ENTRY + part)),
    ))
}

/// The units a lazy page has made so far.
#[derive(Default)]
struct Made {
    units: Vec<Unit>,
    /// Each unit's size alone on a page.
    sizes: Vec<usize>,
    /// The (entry, part) each unit is.
    at: Vec<(usize, usize)>,
}

/// A running estimate of how many units fit a page, from their sizes alone: the empty
/// page, plus each unit's growth of an empty page, less what consecutive units share
/// (a list's brackets and indentation are paid once per page, not once per unit).
struct Estimate {
    /// The empty page's size as a page that is not the first.
    empty: usize,
    /// The estimated size of the first `fitting` units.
    total: usize,
    /// What a second unit on a page costs less than its growth of an empty page.
    shared: Option<usize>,
    /// How many units the estimate fits so far.
    fitting: usize,
    /// The next unit would not fit.
    full: bool,
}

impl Estimate {
    fn new(shape: &impl Shape, first: bool, placeholder: &str) -> Estimate {
        let empty = measure(&shape(&[], false, Some(placeholder)));
        let total = if first {
            measure(&shape(&[], true, Some(placeholder)))
        } else {
            empty
        };
        Estimate {
            empty,
            total,
            shared: None,
            fitting: 0,
            full: false,
        }
    }

    /// Count unit `self.fitting` of `units` (whose sizes alone are `sizes`) in, unless the
    /// page is full.
    fn take(&mut self, units: &[Unit], sizes: &[usize], shape: &impl Shape, placeholder: &str) {
        let i = self.fitting;
        let mut growth = sizes[i].saturating_sub(self.empty);
        if i > 0 {
            let shared = *self.shared.get_or_insert_with(|| {
                let two = measure(&shape(&units[..2], false, Some(placeholder)));
                (sizes[0] + sizes[1]).saturating_sub(self.empty + two)
            });
            growth = growth.saturating_sub(shared);
        }
        if self.total + growth > PAGE_CHARACTERS {
            self.full = true;
            return;
        }
        self.total += growth;
        self.fitting += 1;
    }
}

/// What rendering a run of `n` units found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    Fits,
    TooLong,
    /// There are fewer than `n` units: only this many.
    PastEnd(usize),
}

impl Probe {
    fn of(fits: bool) -> Probe {
        if fits {
            Probe::Fits
        } else {
            Probe::TooLong
        }
    }
}

/// The longest run that fits, found from `guess`: confirmed when the run of `guess` fits
/// and one more does not, else galloped out from it (1, 2, 4... units away) and bisected.
/// For a monotone fit this is the run the reference's search finds ([`longest_run`]);
/// an estimate off by `d` units costs about `2 log2(d)` renders more.
fn longest_fitting(
    guess: usize,
    probe: &mut dyn FnMut(usize) -> Result<Probe, QueryError>,
) -> Result<usize, QueryError> {
    let mut at = guess.max(1);
    let found = loop {
        match probe(at)? {
            Probe::PastEnd(0) => return Ok(0),
            Probe::PastEnd(total) => at = total,
            p => break p,
        }
    };
    // lo fits (or is 0); hi is known not to fit.
    let (mut lo, mut hi) = if found == Probe::Fits {
        let (mut lo, mut step) = (at, 1);
        loop {
            match probe(lo + step)? {
                Probe::Fits => {
                    lo += step;
                    step *= 2;
                }
                Probe::TooLong => break (lo, lo + step),
                Probe::PastEnd(total) if total == lo => return Ok(lo),
                Probe::PastEnd(total) => match probe(total)? {
                    Probe::Fits => return Ok(total),
                    _ => break (lo, total),
                },
            }
        }
    } else {
        let (mut hi, mut step) = (at, 1);
        loop {
            if hi <= step {
                break (0, hi);
            }
            match probe(hi - step)? {
                Probe::Fits => break (hi - step, hi),
                _ => {
                    hi -= step;
                    step *= 2;
                }
            }
        }
    };
    while hi - lo > 1 {
        let middle = (lo + hi) / 2;
        if probe(middle)? == Probe::Fits {
            lo = middle;
        } else {
            hi = middle;
        }
    }
    Ok(lo)
}

/// The longest run from the cursor's unit that fits a page, rendered; the search starts at
/// one unit, as the reference's does (these lists are short).
fn cut(
    call: &Call,
    units: &[Unit],
    shape: &impl Shape,
    cursor: Option<&str>,
) -> Result<Value, QueryError> {
    let first = cursor.is_none();
    let start = call.position(cursor)?;
    if start > units.len() || (!first && start == units.len()) {
        return Err(QueryError::ForeignCursor(call.tool.clone()));
    }
    let placeholder = call.cursor(0);
    let remaining = units.len() - start;
    let mut probe = |n: usize| -> Result<Probe, QueryError> {
        if n > remaining {
            return Ok(Probe::PastEnd(remaining));
        }
        Ok(Probe::of(run_fits(
            &units[start..start + n],
            first,
            shape,
            &placeholder,
        )))
    };
    let count = longest_fitting(1, &mut probe)?;
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

/// The reference's own search (`paging._longest_run`): probes 1, 2, 4... then bisection.
/// [`longest_fitting`] lands where it does; the tests hold the two together.
#[cfg(test)]
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

    /// A monotone fit over `total` units that holds up to `threshold`, as a probe.
    fn probe_of(total: usize, threshold: usize) -> impl FnMut(usize) -> Result<Probe, QueryError> {
        move |n| {
            Ok(if n > total {
                Probe::PastEnd(total)
            } else {
                Probe::of(n <= threshold)
            })
        }
    }

    #[test]
    fn the_search_from_any_guess_finds_the_reference_run() {
        for total in 0..40 {
            for threshold in 0..=total + 1 {
                let reference = longest_run(total, &|n| n <= threshold);
                for guess in 0..total + 4 {
                    let found = longest_fitting(guess, &mut probe_of(total, threshold));
                    assert_eq!(
                        found,
                        Ok(reference),
                        "total {total}, threshold {threshold}, guess {guess}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_right_guess_costs_two_renders() {
        let mut probes = 0;
        let mut inner = probe_of(1000, 500);
        let mut counted = |n| {
            probes += 1;
            inner(n)
        };
        assert_eq!(longest_fitting(500, &mut counted), Ok(500));
        assert_eq!(probes, 2);
    }

    /// Every page of `items` as [`lazy_page`] cuts them, following the cursors.
    fn walk_lazy(items: &[(UnitKey, Value)]) -> Vec<Value> {
        let call = call();
        let (head, rest): (Vec<_>, Vec<_>) = items
            .iter()
            .cloned()
            .partition(|(k, _)| matches!(k, UnitKey::Head(_)));
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut item = |i: usize| Ok(rest[i].clone());
            let page = lazy_page(
                &call,
                head.clone(),
                rest.len(),
                &mut item,
                &list_render,
                cursor.as_deref(),
            )
            .unwrap();
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

    /// The items of every page, the cursor left out (the two engines number positions
    /// differently).
    fn page_items(pages: &[Value]) -> Vec<Value> {
        pages
            .iter()
            .map(|p| p.get("items").cloned().unwrap_or(Value::Null))
            .collect()
    }

    #[test]
    fn lazy_pages_cut_where_the_reference_cuts() {
        let mut items: Vec<(UnitKey, Value)> =
            vec![(UnitKey::Head("header".into()), Value::Str("h".repeat(300)))];
        for i in 0..1500 {
            let text = match i {
                150 => "z".repeat(45_000),
                700..=720 => "é".repeat(3000),
                _ => "x".repeat(5 + (i * 37) % 90),
            };
            items.push((UnitKey::Item(Value::Int(i as i64)), Value::Str(text)));
        }
        let reference = walk(items.clone());
        let lazy = walk_lazy(&items);
        assert_eq!(page_items(&lazy), page_items(&reference));
        assert_eq!(lazy[0].get("header"), reference[0].get("header"));
    }

    #[test]
    fn an_empty_list_is_one_page() {
        let pages = walk_lazy(&[]);
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].get("items"), Some(&Value::seq(vec![])));
    }
}
