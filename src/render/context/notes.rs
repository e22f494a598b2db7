//! The profile Markdown's per-column Notes cell: one template per classification, then a
//! fixed chain of suffixes. A cell is facts joined by `; `, each `label: value` or a bare
//! flag, and records the term key of every label it prints for the page legend.

use super::spell::{
    self, enum_word, is_number, qualify, spell_literal, spell_number, statistic, R,
};
use super::terms::{self, Keys};
use crate::query::context::facts::non_null_rows;
use crate::query::context::read::{
    as_int, count_or_zero, cv, grouped_values, is_binary_type, is_integer_type, list_is_complete,
    str_at, value_key, ScanScope,
};
use crate::query::edges::iterate;
use compat::py::py_eq;
use compat::value::Value;

pub const LIST_SEPARATOR: &str = ", ";
const TOP_VALUES: usize = 5;

/// Rendered text and the term keys of every label it prints.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub text: String,
    pub terms: Keys,
}

impl Rendered {
    pub fn plain(text: impl Into<String>) -> Rendered {
        Rendered {
            text: text.into(),
            terms: Keys::new(),
        }
    }

    pub fn with<const N: usize>(text: impl Into<String>, keys: [&str; N]) -> Rendered {
        Rendered {
            text: text.into(),
            terms: terms::keys(keys),
        }
    }
}

fn fact<const N: usize>(text: impl Into<String>, keys: [&str; N]) -> Rendered {
    Rendered::with(text, keys)
}

/// `join_facts`: the non-empty facts joined by `separator`, their terms combined.
pub fn join_facts(facts: Vec<Rendered>, separator: &str) -> Rendered {
    let kept: Vec<Rendered> = facts.into_iter().filter(|f| !f.text.is_empty()).collect();
    let text = kept
        .iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join(separator);
    let terms = kept.into_iter().flat_map(|f| f.terms).collect();
    Rendered { text, terms }
}

/// `_qualified`: the scanned clause and its term on a scoped table.
fn qualified(f: Rendered, scope: Option<&ScanScope>) -> Rendered {
    match scope {
        None => f,
        Some(_) => {
            let mut terms = f.terms;
            terms.insert("over_the_rows_scanned".into());
            Rendered {
                text: qualify(&f.text, scope),
                terms,
            }
        }
    }
}

/// `percentile_label`: `p50` -> `P50`, `p01` -> `P1`; any other name unchanged.
pub fn percentile_label(field: &str) -> String {
    match terms::percentile_key(field) {
        Some(k) => format!("P{}", &k["percentile:".len()..]),
        None => field.to_string(),
    }
}

/// `null_share`: `0.4%`, `none`, `none over the rows scanned`; `None` for a NOT NULL column
/// with no nulls, or where count or rate is unreadable.
pub fn null_share(stats: &Value, scope: Option<&ScanScope>) -> R<Option<String>> {
    let (Some(count), Some(rate)) = (cv(stats, "null_count"), cv(stats, "null_rate")) else {
        return Ok(None);
    };
    if !is_number(count) || !is_number(rate) {
        return Ok(None);
    }
    if py_eq(count, &Value::Int(0)) {
        return Ok(
            (cv(stats, "nullable") == Some(&Value::Bool(true))).then(|| qualify("none", scope))
        );
    }
    spell::spell_percent(rate).map(Some)
}

/// The value list as (value, count) pairs, in the artifact's order.
pub fn value_entries(stats: &Value) -> R<Vec<(Value, i64)>> {
    let mut out = Vec::new();
    for e in iterate(cv(stats, "values"))? {
        if matches!(e, Value::Map(_)) {
            let count = count_or_zero(e.get("count").filter(|c| c.truthy()))?;
            out.push((e.get("value").cloned().unwrap_or(Value::Null), count));
        } else {
            out.push((Value::Null, 0));
        }
    }
    Ok(out)
}

/// `_grouped_entries`: (value, total, spellings) per category, members folded in.
fn grouped_entries(stats: &Value, entries: &[(Value, i64)]) -> R<Vec<(Value, i64, usize)>> {
    let listed = iterate(cv(stats, "values"))?;
    let groups = grouped_values(&listed);
    let mut members: Vec<(String, Vec<&Value>)> = Vec::new();
    let mut away = std::collections::HashSet::new();
    for (entry, spellings) in &groups {
        let key = value_key(entry.get("value").unwrap_or(&Value::Null));
        match members.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = spellings.clone(),
            None => members.push((key, spellings.clone())),
        }
        for m in spellings {
            away.insert(value_key(m.get("value").unwrap_or(&Value::Null)));
        }
    }
    let mut out = Vec::new();
    for (value, count) in entries {
        let key = value_key(value);
        if away.contains(&key) {
            continue;
        }
        let spellings: &[&Value] = members
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| s.as_slice())
            .unwrap_or_default();
        let mut total = *count;
        for m in spellings {
            total += count_or_zero(m.get("count").filter(|c| c.truthy()))?;
        }
        out.push((value.clone(), total, spellings.len() + 1));
    }
    Ok(out)
}

fn spelling_suffix(spellings: usize) -> String {
    if spellings > 1 {
        format!(", {spellings} spellings")
    } else {
        String::new()
    }
}

fn ratio(count: i64, of: i64) -> String {
    spell::percent(count as f64 / of as f64)
}

fn redacted_label(primitive: &str) -> Rendered {
    Rendered {
        text: format!("redacted: {primitive}"),
        terms: ["redacted".to_string(), format!("redaction:{primitive}")]
            .into_iter()
            .collect(),
    }
}

fn shown_value(value: &Value, redaction: Option<&str>) -> R<String> {
    match redaction {
        Some(_) => Ok("withheld".into()),
        None => spell_literal(value),
    }
}

/// `_truncated_values`: the most frequent categories, their shares and what they cover.
fn truncated_values(
    stats: &Value,
    entries: &[(Value, i64)],
    total: Option<i64>,
    redaction: Option<&str>,
) -> R<Rendered> {
    let mut shown = grouped_entries(stats, entries)?;
    shown.truncate(TOP_VALUES);
    let sum: i64 = entries.iter().map(|(_, c)| c).sum();
    let share_of = total
        .filter(|t| *t != 0)
        .unwrap_or(if sum != 0 { sum } else { 1 });
    let mut items = Vec::new();
    for (value, count, spellings) in &shown {
        items.push(format!(
            "{} ({}{})",
            shown_value(value, redaction)?,
            ratio(*count, share_of),
            spelling_suffix(*spellings)
        ));
    }
    let covered = ratio(shown.iter().map(|(_, c, _)| c).sum(), share_of);
    let text = format!(
        "values (top {}, covering {covered}): {}",
        shown.len(),
        items.join(LIST_SEPARATOR)
    );
    Ok(if redaction.is_some() {
        fact(text, ["values_top", "withheld"])
    } else {
        fact(text, ["values_top"])
    })
}

/// `_complete_values`: every category with its share of the non-null scanned rows.
fn complete_values(
    stats: &Value,
    entries: &[(Value, i64)],
    scope: Option<&ScanScope>,
    total: Option<i64>,
    redaction: Option<&str>,
) -> R<Rendered> {
    let (key, label) = match scope {
        None => ("values_complete", "values (complete)"),
        Some(_) => (
            "values_complete_scanned",
            "values (complete over the rows scanned)",
        ),
    };
    let sum: i64 = entries.iter().map(|(_, c)| c).sum();
    let share_of = total
        .filter(|t| *t != 0)
        .unwrap_or(if sum != 0 { sum } else { 1 });
    let mut items = Vec::new();
    for (value, count, spellings) in grouped_entries(stats, entries)? {
        items.push(format!(
            "{} ({}{})",
            shown_value(&value, redaction)?,
            ratio(count, share_of),
            spelling_suffix(spellings)
        ));
    }
    let body = if items.is_empty() {
        "none".to_string()
    } else {
        items.join(LIST_SEPARATOR)
    };
    let text = format!("{label}: {body}");
    Ok(if redaction.is_some() && !items.is_empty() {
        fact(text, [key, "withheld"])
    } else {
        fact(text, [key])
    })
}

fn distribution_suffix(
    stats: &Value,
    total: Option<i64>,
    redaction: Option<&str>,
) -> R<Vec<Rendered>> {
    let Some(distribution) = cv(stats, "distribution").filter(|d| d.truthy()) else {
        return Ok(Vec::new());
    };
    let Some(distribution) = distribution.as_str() else {
        return Err(crate::error::QueryError::Other(format!(
            "'{}' object has no attribute 'replace'",
            distribution.py_type_name()
        )));
    };
    let mut text = format!("distribution: {}", enum_word(distribution));
    let grouped = grouped_entries(stats, &value_entries(stats)?)?;
    if distribution == "dominant_value" {
        if let Some((value, count, _)) = grouped.first() {
            let shown = shown_value(value, redaction)?;
            let share = match total.filter(|t| *t != 0) {
                Some(t) => format!(" ({})", ratio(*count, t)),
                None => String::new(),
            };
            text.push_str(&format!(" {shown}{share}"));
        }
    }
    Ok(vec![Rendered {
        text,
        terms: [
            "distribution".to_string(),
            format!("distribution:{distribution}"),
        ]
        .into_iter()
        .collect(),
    }])
}

fn census(stats: &Value, rows: Option<i64>, members: &[(&str, &str, &str)]) -> R<Vec<Rendered>> {
    let mut out = Vec::new();
    for (field, label, key) in members {
        if let Some(count) = as_int(cv(stats, field)).filter(|c| *c != 0) {
            let share = match rows.filter(|r| *r != 0) {
                Some(r) => ratio(count, r),
                None => count.to_string(),
            };
            out.push(fact(format!("{label}: {share}"), [*key]));
        }
    }
    Ok(out)
}

fn length_suffix(stats: &Value) -> R<Vec<Rendered>> {
    let Some(length @ Value::Map(_)) = cv(stats, "length") else {
        return Ok(Vec::new());
    };
    let (Some(mn), Some(mx), Some(avg)) = (cv(length, "min"), cv(length, "max"), cv(length, "avg"))
    else {
        return Ok(Vec::new());
    };
    let unit = match str_at(stats, "sql_type") {
        Some(t) if is_binary_type(t) => " bytes",
        _ => "",
    };
    let span = format!(
        "{} -> {}{unit} (avg {})",
        statistic(mn)?,
        statistic(mx)?,
        statistic(avg)?
    );
    Ok(vec![fact(format!("length: {span}"), ["length"])])
}

fn distinct(stats: &Value) -> Vec<Rendered> {
    match cv(stats, "cardinality") {
        None => Vec::new(),
        Some(c) => vec![fact(
            format!("distinct: {}", compat::py::str_of(c)),
            ["distinct"],
        )],
    }
}

fn sampled_values(stats: &Value, total: Option<i64>, redaction: Option<&str>) -> R<Vec<Rendered>> {
    let entries = value_entries(stats)?;
    if entries.is_empty() || list_is_complete(stats) {
        return Ok(Vec::new());
    }
    Ok(vec![truncated_values(stats, &entries, total, redaction)?])
}

fn withheld_values(entries: &[(Value, i64)]) -> Vec<Rendered> {
    if entries.is_empty() {
        return Vec::new();
    }
    let listed: Vec<String> = entries
        .iter()
        .map(|(_, c)| format!("withheld ({c})"))
        .collect();
    vec![fact(
        format!("values: {}", listed.join(LIST_SEPARATOR)),
        ["values", "withheld"],
    )]
}

/// Python `dict.get(True, dict.get("true", 0))` over the value counts.
fn bool_count(entries: &[(Value, i64)], flag: bool, word: &str) -> i64 {
    let as_bool = Value::Bool(flag);
    entries
        .iter()
        .rev()
        .find(|(v, _)| py_eq(v, &as_bool))
        .or_else(|| entries.iter().rev().find(|(v, _)| v.as_str() == Some(word)))
        .map(|(_, c)| *c)
        .unwrap_or(0)
}

fn boolean_notes(stats: &Value, redaction: Option<&str>) -> R<Vec<Rendered>> {
    if let Some(r) = redaction {
        let mut out = vec![redacted_label(r)];
        out.extend(withheld_values(&value_entries(stats)?));
        return Ok(out);
    }
    if !crate::query::context::read::present(stats, "values") {
        return Ok(vec![fact("boolean", ["classification:boolean"])]);
    }
    let entries = value_entries(stats)?;
    Ok(vec![
        fact(
            format!("true: {}", bool_count(&entries, true, "true")),
            ["true"],
        ),
        fact(
            format!("false: {}", bool_count(&entries, false, "false")),
            ["false"],
        ),
    ])
}

fn categorical_notes(column: &Column) -> R<Vec<Rendered>> {
    let Column {
        stats,
        redaction,
        scope,
        total,
        ..
    } = *column;
    let entries = value_entries(stats)?;
    let distribution = distribution_suffix(stats, total, redaction)?;
    let mut out: Vec<Rendered> = redaction.map(redacted_label).into_iter().collect();
    if list_is_complete(stats)
        && (!entries.is_empty() || crate::query::context::read::present(stats, "values"))
    {
        out.push(complete_values(stats, &entries, scope, total, redaction)?);
    } else if entries.is_empty() {
        out.extend(distinct(stats));
    } else {
        out.push(truncated_values(stats, &entries, total, redaction)?);
    }
    out.extend(distribution);
    out.extend(length_suffix(stats)?);
    Ok(out)
}

fn temporal_notes(column: &Column) -> R<Vec<Rendered>> {
    let Column {
        stats,
        redaction,
        scope,
        total,
        rows,
    } = *column;
    let percentiles = cv(stats, "percentiles");
    let rng = cv(stats, "range");
    let get = |block: Option<&Value>, key: &str| block.and_then(|b| cv(b, key)).cloned();
    let (low, high) = (get(rng, "min"), get(rng, "max"));
    let (p01, p99) = (get(percentiles, "p01"), get(percentiles, "p99"));
    let span = get(rng, "span_days");
    let freshness_class = get(cv(stats, "freshness"), "classification");
    let mut facts = Vec::new();
    if let Some(r) = redaction {
        facts.push(redacted_label(r));
        if let Some(s) = &span {
            facts.push(fact(
                format!("span: {} days", compat::py::str_of(s)),
                ["span"],
            ));
        }
    } else {
        if let (Some(lo), Some(hi)) = (&low, &high) {
            let days = match &span {
                Some(s) => format!(" ({} days)", compat::py::str_of(s)),
                None => String::new(),
            };
            facts.push(fact(
                format!(
                    "range: {} -> {}{days}",
                    spell_literal(lo)?,
                    spell_literal(hi)?
                ),
                ["range"],
            ));
        }
        if let (Some(a), Some(b)) = (&p01, &p99) {
            let same = match (&low, &high) {
                (Some(lo), Some(hi)) => py_eq(a, lo) && py_eq(b, hi),
                _ => false,
            };
            if !same {
                facts.push(fact(
                    format!("P1-P99: {} -> {}", spell_literal(a)?, spell_literal(b)?),
                    ["percentile_band"],
                ));
            }
        }
    }
    facts.extend(sampled_values(stats, total, redaction)?);
    facts.extend(census(
        stats,
        rows,
        &[("quantized_count", "at midnight", "at_midnight")],
    )?);
    facts.extend(distribution_suffix(stats, total, redaction)?);
    if let Some(class) = freshness_class.filter(|c| c.truthy()) {
        let class = compat::py::str_of(&class);
        let f = Rendered {
            text: format!("freshness: {}", enum_word(&class)),
            terms: ["freshness".to_string(), format!("freshness:{class}")]
                .into_iter()
                .collect(),
        };
        facts.push(qualified(f, scope));
    }
    if facts.is_empty() {
        facts.push(fact("temporal", ["classification:temporal"]));
    }
    Ok(facts)
}

fn numeric_notes(column: &Column) -> R<Vec<Rendered>> {
    let Column {
        stats,
        redaction,
        total,
        rows,
        ..
    } = *column;
    let rng = cv(stats, "range");
    let get = |block: Option<&Value>, key: &str| block.and_then(|b| cv(b, key)).cloned();
    let (mn, mx) = (get(rng, "min"), get(rng, "max"));
    let p50 = get(cv(stats, "percentiles"), "p50");
    let mean = cv(stats, "mean");
    let whole = str_at(stats, "sql_type").is_some_and(is_integer_type);
    let mut members = vec![
        ("zero_count", "zeros", "zeros"),
        ("negative_count", "negatives", "negatives"),
        ("non_finite_count", "non-finite", "non_finite"),
    ];
    if !whole {
        members.push(("quantized_count", "whole numbers", "whole_numbers"));
    }
    let census = census(stats, rows, &members)?;
    let distribution = distribution_suffix(stats, total, redaction)?;
    let mut facts = Vec::new();
    match redaction {
        // A redacted column shows its label where the range and P50 would be.
        Some(r) => facts.push(redacted_label(r)),
        None => {
            if let (Some(a), Some(b)) = (&mn, &mx) {
                facts.push(fact(
                    format!("range: {} -> {}", statistic(a)?, statistic(b)?),
                    ["range"],
                ));
            }
            if let Some(p) = &p50 {
                facts.push(fact(format!("P50: {}", statistic(p)?), ["percentile:50"]));
            }
        }
    }
    if let Some(m) = mean {
        facts.push(fact(format!("mean: {}", statistic(m)?), ["mean"]));
    }
    facts.extend(sampled_values(stats, total, redaction)?);
    facts.extend(census);
    facts.extend(distribution);
    if facts.is_empty() {
        facts.push(fact("numeric", ["classification:numeric"]));
    }
    Ok(facts)
}

fn text_notes(column: &Column) -> R<Vec<Rendered>> {
    let Column {
        stats,
        redaction,
        scope,
        total,
        rows,
    } = *column;
    let entries = value_entries(stats)?;
    let distribution = distribution_suffix(stats, total, redaction)?;
    let census = census(
        stats,
        rows,
        &[("empty_count", "empty strings", "empty_strings")],
    )?;
    let length = length_suffix(stats)?;
    let mut out = Vec::new();
    if entries.is_empty() {
        out.push(fact("text", ["classification:text"]));
    } else {
        let values = if list_is_complete(stats) {
            complete_values(stats, &entries, scope, total, redaction)?
        } else {
            truncated_values(stats, &entries, total, redaction)?
        };
        out.extend(redaction.map(redacted_label));
        out.push(values);
    }
    out.extend(distribution);
    out.extend(census);
    out.extend(length);
    Ok(out)
}

fn types_suffix(stats: &Value) -> R<Vec<Rendered>> {
    let Some(types) = cv(stats, "types").and_then(Value::as_map) else {
        return Ok(Vec::new());
    };
    types
        .iter()
        .map(|(name, n)| {
            Ok(Rendered::plain(format!(
                "{}: {}",
                compat::py::str_of(name),
                spell_number(n)?
            )))
        })
        .collect()
}

fn parts_suffix(stats: &Value) -> R<Vec<Rendered>> {
    let Some(found) =
        cv(stats, "parts_found").filter(|f| matches!(f, Value::Int(_) | Value::Bool(_)))
    else {
        return Ok(Vec::new());
    };
    let listed = cv(stats, "parts")
        .and_then(Value::as_map)
        .map_or(0, <[_]>::len) as i64;
    let found_n = as_int(Some(found));
    Ok(vec![if found_n == Some(listed) {
        fact(format!("parts: {}", spell_number(found)?), ["parts"])
    } else {
        fact(
            format!("parts: {listed} of {} profiled", spell_number(found)?),
            ["parts"],
        )
    }])
}

fn key_error(key: &str) -> crate::error::QueryError {
    crate::error::QueryError::Other(compat::py::repr_str(key))
}

fn vector_notes(stats: &Value) -> R<Vec<Rendered>> {
    let mut facts = vec![fact("vector", ["classification:vector"])];
    if let Some(dimension @ Value::Map(_)) = cv(stats, "dimension") {
        let lo = dimension.get("min").ok_or_else(|| key_error("min"))?;
        let hi = dimension.get("max").ok_or_else(|| key_error("max"))?;
        facts.push(if py_eq(lo, hi) {
            fact(
                format!("dimension: {}", compat::py::str_of(lo)),
                ["dimension"],
            )
        } else {
            fact(
                format!(
                    "mixed dimension: {} -> {}",
                    compat::py::str_of(lo),
                    compat::py::str_of(hi)
                ),
                ["mixed_dimension"],
            )
        });
    }
    if let Some(norm @ Value::Map(_)) = cv(stats, "norm") {
        let mut unit = true;
        for bound in ["min", "max"] {
            let v = norm.get(bound).ok_or_else(|| key_error(bound))?;
            let x = crate::query::context::read::as_f64(Some(v)).unwrap_or(f64::NAN);
            // NaN (a non-number bound) is never close to 1.
            let close = (x - 1.0).abs() <= 0.001;
            if !close {
                unit = false;
                break;
            }
        }
        if unit {
            facts.push(fact("unit-normalized", ["unit_normalized"]));
        }
    }
    if let Some(z) = as_int(cv(stats, "zero_count")).filter(|z| *z != 0) {
        facts.push(fact(format!("zero vectors: {z}"), ["zero_vectors"]));
    }
    Ok(facts)
}

fn spatial_notes(stats: &Value) -> R<Vec<Rendered>> {
    let mut facts = vec![fact("spatial", ["classification:spatial"])];
    if let Some(geometry @ Value::Map(_)) = cv(stats, "geometry") {
        let kinds = geometry.get("kinds").ok_or_else(|| key_error("kinds"))?;
        for k in iterate(Some(kinds))? {
            let kind = k.get("kind").ok_or_else(|| key_error("kind"))?;
            let count = k.get("count").ok_or_else(|| key_error("count"))?;
            facts.push(Rendered::plain(format!(
                "{}: {}",
                compat::py::str_of(kind),
                spell_number(count)?
            )));
        }
        if let Some(srids) = geometry.get("srids").filter(|s| s.truthy()) {
            let mut listed = Vec::new();
            for s in iterate(Some(srids))? {
                listed.push(compat::py::str_of(
                    s.get("srid").ok_or_else(|| key_error("srid"))?,
                ));
            }
            facts.push(fact(
                format!("srid: {}", listed.join(LIST_SEPARATOR)),
                ["srid"],
            ));
        }
    }
    if let Some(extent @ Value::Map(_)) = cv(stats, "extent") {
        let g = |k: &str| extent.get(k).ok_or_else(|| key_error(k));
        let x = format!("{} -> {}", statistic(g("min_x")?)?, statistic(g("max_x")?)?);
        let y = format!("{} -> {}", statistic(g("min_y")?)?, statistic(g("max_y")?)?);
        facts.push(fact(format!("extent x: {x}"), ["extent_x"]));
        facts.push(fact(format!("extent y: {y}"), ["extent_y"]));
    }
    Ok(facts)
}

/// `_non_null`: the rows a share is taken against.
fn non_null(stats: &Value, row_count: Option<i64>, scope: Option<&ScanScope>) -> R<Option<i64>> {
    let listed: i64 = value_entries(stats)?.iter().map(|(_, c)| c).sum();
    if list_is_complete(stats) {
        return Ok(Some(listed));
    }
    if let Some(coverage) = cv(stats, "values_coverage").filter(|c| is_number(c)) {
        let c = crate::query::context::read::as_f64(Some(coverage)).unwrap_or(0.0);
        if 0.0 < c && c < 1.0 {
            let scaled = compat::py::py_round(listed as f64 / c, 0) as i64;
            return Ok(Some(scaled.max(listed)));
        }
    }
    Ok(non_null_rows(stats, row_count, scope))
}

/// What a classification's notes read of one column.
#[derive(Clone, Copy)]
struct Column<'a> {
    stats: &'a Value,
    redaction: Option<&'a str>,
    scope: Option<&'a ScanScope>,
    /// The rows a share is taken against (`non_null`).
    total: Option<i64>,
    /// The non-null rows read (`non_null_rows`): a part's occurrences, the rows scanned,
    /// else the row count, less nulls.
    rows: Option<i64>,
}

fn base_template(
    classification: &str,
    stats: &Value,
    redaction: Option<&str>,
    scope: Option<&ScanScope>,
    total: Option<i64>,
    rows: Option<i64>,
) -> R<Vec<Rendered>> {
    let column = Column {
        stats,
        redaction,
        scope,
        total,
        rows,
    };
    match classification {
        "boolean" => boolean_notes(stats, redaction),
        "categorical" => categorical_notes(&column),
        "foreign_key_candidate" => {
            let entries = value_entries(stats)?;
            let mut out: Vec<Rendered> = redaction.map(redacted_label).into_iter().collect();
            if !entries.is_empty() && list_is_complete(stats) {
                out.push(complete_values(stats, &entries, scope, total, redaction)?);
            } else if !entries.is_empty() {
                out.push(truncated_values(stats, &entries, total, redaction)?);
            }
            out.extend(distribution_suffix(stats, total, redaction)?);
            out.extend(length_suffix(stats)?);
            Ok(out)
        }
        "temporal" => temporal_notes(&column),
        "numeric" => numeric_notes(&column),
        "text" => text_notes(&column),
        "json" => {
            let mut out = vec![fact("json", ["classification:json"])];
            out.extend(types_suffix(stats)?);
            out.extend(parts_suffix(stats)?);
            Ok(out)
        }
        "composite" => {
            let mut out = vec![fact("composite", ["classification:composite"])];
            out.extend(parts_suffix(stats)?);
            out.extend(census(
                stats,
                rows,
                &[("empty_count", "empty arrays", "empty_arrays")],
            )?);
            Ok(out)
        }
        "binary" => {
            let mut out = vec![fact("binary", ["classification:binary"])];
            out.extend(length_suffix(stats)?);
            Ok(out)
        }
        "spatial" => spatial_notes(stats),
        "vector" => vector_notes(stats),
        _ => Ok(vec![Rendered::plain(
            cv(stats, "sql_type")
                .filter(|t| t.truthy())
                .map(compat::py::str_of)
                .unwrap_or_else(|| "unsupported".into()),
        )]),
    }
}

/// `_fk_note`: every edge the column references, surest first.
fn fk_note(classification: &str, targets: Option<&[String]>) -> Vec<Rendered> {
    let targets = targets.unwrap_or_default();
    if targets.is_empty() {
        return if classification == "foreign_key_candidate" {
            vec![fact("FK candidate", ["fk_candidate"])]
        } else {
            Vec::new()
        };
    }
    let mut terms: Keys = terms::keys(["fk"]);
    for t in targets {
        for d in ["declared", "inferred", "measured"] {
            if t.ends_with(&format!("({d})")) {
                terms.insert(format!("detection:{d}"));
            }
        }
    }
    vec![Rendered {
        text: format!("FK: {}", targets.join(LIST_SEPARATOR)),
        terms,
    }]
}

fn candidate_key_suffix(stats: &Value, scope: Option<&ScanScope>) -> Vec<Rendered> {
    if !crate::query::context::read::truthy(cv(stats, "inferred.candidate_key")) {
        return Vec::new();
    }
    let f = match cv(stats, "inferred.candidate_key_exception") {
        Some(e) => {
            let e = compat::py::str_of(e);
            Rendered {
                text: format!("candidate key ({})", enum_word(&e)),
                terms: [
                    "candidate_key".to_string(),
                    format!("candidate_key_exception:{e}"),
                ]
                .into_iter()
                .collect(),
            }
        }
        None => fact("candidate key", ["candidate_key"]),
    };
    vec![qualified(f, scope)]
}

fn looks_like_suffix(stats: &Value, params: &Value) -> R<Vec<Rendered>> {
    let Some(pattern) = cv(stats, "inferred.looks_like").filter(|p| p.truthy()) else {
        return Ok(looks_like_candidate_suffix(stats));
    };
    let pattern = compat::py::str_of(pattern);
    let sampled = as_int(cv(stats, "inferred.sampled"));
    let matched = as_int(cv(stats, "inferred.matched"));
    let sample_size = params
        .get("looks_like")
        .filter(|l| l.truthy())
        .and_then(|l| as_int(l.get("sample_size")));
    let evidence = match (matched, sampled, sample_size) {
        (Some(m), Some(s), Some(z)) => format!(" ({m} of {s} sampled, {z} configured)"),
        (Some(m), Some(s), None) => format!(" ({m} of {s} sampled)"),
        (_, _, Some(z)) => format!(" (drawn {z})"),
        _ => String::new(),
    };
    Ok(vec![Rendered {
        text: format!("looks like: {}{evidence}", enum_word(&pattern)),
        terms: ["looks_like".to_string(), format!("looks_like:{pattern}")]
            .into_iter()
            .collect(),
    }])
}

fn looks_like_candidate_suffix(stats: &Value) -> Vec<Rendered> {
    let Some(candidate) = cv(stats, "inferred.looks_like_candidate").filter(|c| c.truthy()) else {
        return Vec::new();
    };
    let Some(share) = cv(stats, "inferred.looks_like_candidate_share").filter(|s| is_number(s))
    else {
        return Vec::new();
    };
    let candidate = compat::py::str_of(candidate);
    let share = spell::spell_percent(share).unwrap_or_default();
    vec![Rendered {
        text: format!(
            "near: {} ({share} of sampled values, no verdict)",
            enum_word(&candidate)
        ),
        terms: ["near".to_string(), format!("looks_like:{candidate}")]
            .into_iter()
            .collect(),
    }]
}

fn tagged(stats: &Value, path: &str, label: &str, key: &str, family: &str) -> Vec<Rendered> {
    let Some(v) = cv(stats, path).filter(|v| v.truthy()) else {
        return Vec::new();
    };
    let v = compat::py::str_of(v);
    vec![Rendered {
        text: format!("{label}: {}", enum_word(&v)),
        terms: [key.to_string(), format!("{family}:{v}")]
            .into_iter()
            .collect(),
    }]
}

fn field_list(stats: &Value, key: &str) -> R<Vec<Rendered>> {
    let Some(fields) = cv(stats, key).filter(|f| f.truthy()) else {
        return Ok(Vec::new());
    };
    let fields: Vec<String> = iterate(Some(fields))?
        .iter()
        .map(compat::py::str_of)
        .collect();
    let listed: Vec<String> = fields.iter().map(|f| percentile_label(f)).collect();
    let mut terms = terms::keys([key]);
    terms.extend(fields.iter().filter_map(|f| terms::percentile_key(f)));
    Ok(vec![Rendered {
        text: format!("{key}: {}", listed.join(LIST_SEPARATOR)),
        terms,
    }])
}

fn null_suffix(stats: &Value, scope: Option<&ScanScope>) -> R<Vec<Rendered>> {
    let Some(share) = null_share(stats, scope)? else {
        return Ok(Vec::new());
    };
    let mut f = fact(format!("nulls: {share}"), ["nulls"]);
    if scope.is_some() && share.starts_with("none") {
        f.terms.insert("over_the_rows_scanned".into());
    }
    Ok(vec![f])
}

fn populated_suffix(stats: &Value) -> R<Vec<Rendered>> {
    let Some(populated @ Value::Map(_)) = cv(stats, "populated") else {
        return Ok(Vec::new());
    };
    let (Some(start), Some(end)) = (
        populated.get("from").filter(|v| v.truthy()),
        populated.get("to").filter(|v| v.truthy()),
    ) else {
        return Ok(Vec::new());
    };
    Ok(vec![fact(
        format!(
            "populated: {} -> {}",
            spell_literal(start)?,
            spell_literal(end)?
        ),
        ["populated"],
    )])
}

/// `synthesize`: the Notes cell of one column (or part).
pub fn synthesize(
    stats: &Value,
    fk_targets: Option<&[String]>,
    params: &Value,
    scope: Option<&ScanScope>,
    row_count: Option<i64>,
) -> R<Rendered> {
    let classification = cv(stats, "classification")
        .filter(|c| c.truthy())
        .map(compat::py::str_of)
        .unwrap_or_else(|| "unsupported".into());
    let mut facts = fk_note(&classification, fk_targets);
    let redaction = str_at(stats, "redacted").filter(|r| !r.is_empty());
    let total = non_null(stats, row_count, scope)?;
    let rows = non_null_rows(stats, row_count, scope);
    facts.extend(base_template(
        &classification,
        stats,
        redaction,
        scope,
        total,
        rows,
    )?);
    facts.extend(candidate_key_suffix(stats, scope));
    if crate::query::context::read::truthy(cv(stats, "physical_layout_key")) {
        facts.push(fact("cluster/partition key", ["cluster_partition_key"]));
    }
    facts.extend(looks_like_suffix(stats, params)?);
    facts.extend(tagged(
        stats,
        "inferred.sensitivity",
        "detected",
        "detected",
        "sensitivity",
    ));
    facts.extend(tagged(
        stats,
        "inferred.epoch_unit",
        "epoch",
        "epoch",
        "epoch_unit",
    ));
    facts.extend(field_list(stats, "unmeasured")?);
    facts.extend(field_list(stats, "unrepresentable")?);
    facts.extend(null_suffix(stats, scope)?);
    if str_at(stats, "values_coverage_method") == Some("bounded") {
        facts.push(fact("coverage bounded", ["coverage_bounded"]));
    }
    facts.extend(populated_suffix(stats)?);
    Ok(join_facts(facts, "; "))
}
