//! Facts both get_table_context shapes (Markdown, json/yaml) are made of, read off the
//! table's artifacts: column order, the edges surest first, which value entries a query
//! reply lists and what they cover, whether meanings are documented, the switched-off
//! measurements, the effective profile. Spelling them is `render::context`'s.

use super::load::{has_meaning, Artifacts};
use super::read::{
    as_f64, as_int, cv, grouped_values, is_number, rows_scanned, scope_of, str_at, truthy,
    ScanScope,
};
use super::R;
use crate::error::QueryError;
use crate::ingest::reading::absence::DISABLEABLE;
use crate::query::edges::{edge_detection, iterate};
use compat::value::Value;

/// `disabled_of`: the switched-off measurements a statistics file names, known names only.
pub fn disabled_of(statistics: &Value) -> Vec<&'static str> {
    let Some(named) = statistics.get("disabled").and_then(Value::as_seq) else {
        return Vec::new();
    };
    DISABLEABLE
        .iter()
        .copied()
        .filter(|d| named.iter().any(|n| n.as_str() == Some(*d)))
        .collect()
}

/// Python's `AttributeError` text for `v.attribute` on a value without it.
pub fn attribute_error(v: &Value, attribute: &str) -> QueryError {
    QueryError::Other(format!(
        "'{}' object has no attribute '{attribute}'",
        v.py_type_name()
    ))
}

const ORDER: [&str; 12] = [
    "foreign_key_candidate",
    "categorical",
    "temporal",
    "numeric",
    "boolean",
    "text",
    "binary",
    "composite",
    "spatial",
    "vector",
    "json",
    "unsupported",
];

/// `_ordered_column_names`: classification rank, then file order. A column block that is
/// not a mapping fails as the reference's `.get` does.
pub fn ordered_columns(columns: &Value) -> R<Vec<(String, &Value)>> {
    let Some(pairs) = columns.as_map() else {
        return Ok(Vec::new());
    };
    let mut keyed = Vec::with_capacity(pairs.len());
    for (i, (name, col)) in pairs.iter().enumerate() {
        if !matches!(col, Value::Map(_)) {
            return Err(attribute_error(col, "get"));
        }
        let class = col.get("classification");
        let rank = match class {
            None => ORDER.len() - 1,
            Some(c) => c
                .as_str()
                .and_then(|c| ORDER.iter().position(|o| *o == c))
                .unwrap_or(ORDER.len()),
        };
        keyed.push((rank, i, compat::py::str_of(name), col));
    }
    keyed.sort_by_key(|(rank, i, _, _)| (*rank, *i));
    Ok(keyed.into_iter().map(|(_, _, n, c)| (n, c)).collect())
}

pub fn columns_of(a: &Artifacts) -> Option<&Value> {
    a.statistics()
        .and_then(|s| s.get("columns"))
        .filter(|c| matches!(c, Value::Map(_)))
}

pub fn row_count_of(a: &Artifacts) -> Option<&Value> {
    a.statistics().and_then(|s| cv(s, "row_count"))
}

pub fn scope(a: &Artifacts) -> Option<ScanScope> {
    scope_of(a.statistics())
}

pub fn ranked(edges: Option<&Value>) -> R<Vec<Value>> {
    let listed: Vec<Value> = iterate(edges)?
        .into_iter()
        .filter(|e| matches!(e, Value::Map(_)))
        .collect();
    let rank = |e: &Value| match edge_detection(e).as_str() {
        Some("declared") => 0,
        Some("inferred") => 1,
        Some("measured") => 2,
        Some("annotated") => 3,
        _ => 4,
    };
    let mut keyed: Vec<(usize, Value)> = listed.into_iter().map(|e| (rank(&e), e)).collect();
    keyed.sort_by_key(|(r, _)| *r);
    Ok(keyed.into_iter().map(|(_, e)| e).collect())
}

/// `_edges`: the table's outgoing and incoming edges, surest first.
pub fn edges(a: &Artifacts) -> R<(Vec<Value>, Vec<Value>)> {
    let rel = a.relationships.as_ref();
    let get = |k: &str| rel.and_then(|r| r.get(k));
    Ok((ranked(get("refers_to"))?, ranked(get("referenced_by"))?))
}

pub fn single_column(entry: &Value) -> Option<String> {
    match entry.get("column").and_then(Value::as_seq) {
        Some([one]) => Some(compat::py::str_of(one)),
        _ => None,
    }
}

/// `_referencing_columns`: single columns that reference another table without a path.
pub fn referencing_columns(a: &Artifacts) -> R<Vec<String>> {
    let (refers_to, _) = edges(a)?;
    Ok(refers_to
        .iter()
        .filter(|e| !e.get("path").is_some_and(Value::truthy))
        .filter_map(single_column)
        .collect())
}

pub fn meanings_documented(a: &Artifacts, query: bool) -> bool {
    if a.description
        .as_deref()
        .is_some_and(|d| !compat::py::strip(d).is_empty())
        || (query && !a.inherited.is_empty())
    {
        return true;
    }
    a.annotations.iter().any(|(_, e)| has_meaning(Some(e)))
}

pub const QUERY_SAMPLE_LIMIT: usize = 5;

const QUERY_FREQUENT_SHARE: f64 = 0.01;

/// `_covered_values`: the value entries and their coverage, when both are readable.
fn covered_values(col: &Value) -> Option<(Vec<Value>, f64)> {
    if !matches!(col, Value::Map(_)) {
        return None;
    }
    let entries = cv(col, "values").and_then(Value::as_seq)?;
    let coverage = cv(col, "values_coverage").filter(|c| is_number(c))?;
    if entries.is_empty() {
        return None;
    }
    Some((
        entries
            .iter()
            .filter(|e| matches!(e, Value::Map(_)))
            .cloned()
            .collect(),
        as_f64(Some(coverage)).unwrap_or(0.0),
    ))
}

pub fn count_of(entry: &Value) -> i64 {
    as_int(entry.get("count")).unwrap_or(0)
}

/// `_frequent_values`: a numeric or temporal column's values above the bar, at most five,
/// with their joint share.
fn frequent_values(
    col: &Value,
    scope: Option<&ScanScope>,
    row_count: Option<&Value>,
) -> Option<(Vec<Value>, f64)> {
    if !matches!(
        str_at(col, "classification"),
        Some("numeric") | Some("temporal")
    ) {
        return None;
    }
    let entries = cv(col, "values").and_then(Value::as_seq)?;
    let cardinality = cv(col, "cardinality").filter(|c| is_number(c))?;
    let population = non_null_rows(col, as_int(row_count), scope).filter(|p| *p != 0)?;
    let card = as_f64(Some(cardinality)).unwrap_or(0.0);
    let floor = if card != 0.0 {
        QUERY_FREQUENT_SHARE.max(2.0 / card)
    } else {
        QUERY_FREQUENT_SHARE
    };
    let shown: Vec<Value> = entries
        .iter()
        .filter(|e| matches!(e, Value::Map(_)) && count_of(e) as f64 / population as f64 >= floor)
        .take(QUERY_SAMPLE_LIMIT)
        .cloned()
        .collect();
    if shown.is_empty() {
        return None;
    }
    let sum: i64 = shown.iter().map(count_of).sum();
    Some((shown, sum as f64 / population as f64))
}

/// `_shown_values`: a sampled list cut to five categories, a spelling group counting one.
fn shown_values(entries: &[Value], coverage: f64) -> (Vec<Value>, f64) {
    if coverage == 1.0 {
        return (entries.to_vec(), coverage);
    }
    let groups = grouped_values(entries);
    let mut shown = Vec::new();
    for (canonical, members) in groups.into_iter().take(QUERY_SAMPLE_LIMIT) {
        shown.push(canonical.clone());
        shown.extend(members.into_iter().cloned());
    }
    let listed: i64 = entries.iter().map(count_of).sum();
    let kept: i64 = shown.iter().map(count_of).sum();
    let share = if listed != 0 {
        coverage * kept as f64 / listed as f64
    } else {
        coverage
    };
    (shown, share)
}

/// The value entries a query reply lists for a column, and what they cover.
pub struct Listed {
    pub entries: Vec<Value>,
    /// The share of scanned non-null rows the entries hold.
    pub share: f64,
    /// The list's `values_coverage` when the column publishes a readable list; `None` when
    /// the entries are a numeric or temporal column's frequent values instead.
    pub coverage: Option<f64>,
}

/// `_covered_values` cut by `_shown_values`, else `_frequent_values`: what a query reply
/// lists for `col`, if anything.
pub fn listed_values(
    col: &Value,
    scope: Option<&ScanScope>,
    row_count: Option<&Value>,
) -> Option<Listed> {
    if let Some((entries, coverage)) = covered_values(col) {
        let (entries, share) = shown_values(&entries, coverage);
        return Some(Listed {
            entries,
            share,
            coverage: Some(coverage),
        });
    }
    let (entries, share) = frequent_values(col, scope, row_count)?;
    Some(Listed {
        entries,
        share,
        coverage: None,
    })
}

/// `_codes_undocumented`: a complete list of codes no note explains.
pub fn codes_undocumented(
    col: &Value,
    coverage: f64,
    annotation: Option<&Value>,
    inherited: Option<&Vec<Value>>,
) -> bool {
    coverage == 1.0
        && matches!(
            str_at(col, "classification"),
            Some("categorical") | Some("text")
        )
        && !truthy(cv(col, "redacted"))
        && !has_meaning(annotation)
        && inherited.is_none_or(Vec::is_empty)
}

/// `effective_profile`: the connection's profile overlaid block by block with a table's.
pub fn effective_profile(base: &Value, delta: Option<&Value>) -> Value {
    let mut out: Vec<(Value, Value)> = base.as_map().map(<[_]>::to_vec).unwrap_or_default();
    let Some(Value::Map(delta)) = delta else {
        return Value::map(out);
    };
    let put = |out: &mut Vec<(Value, Value)>, k: &Value, v: Value| match out
        .iter_mut()
        .find(|(x, _)| x == k)
    {
        Some(slot) => slot.1 = v,
        None => out.push((k.clone(), v)),
    };
    for (name, block) in delta.iter() {
        if name.as_str() == Some("read") && matches!(block, Value::Map(_)) {
            let mut read: Vec<(Value, Value)> = out
                .iter()
                .find(|(k, _)| k.as_str() == Some("read"))
                .and_then(|(_, v)| v.as_map())
                .map(<[_]>::to_vec)
                .unwrap_or_default();
            for (k, v) in block.as_map().unwrap_or_default() {
                put(&mut read, k, v.clone());
            }
            put(&mut out, name, Value::map(read));
        } else {
            put(&mut out, name, block.clone());
        }
    }
    Value::map(out)
}

/// `non_null_rows`: a part's occurrences, the rows scanned, else the row count, less nulls.
pub fn non_null_rows(
    stats: &Value,
    row_count: Option<i64>,
    scope: Option<&ScanScope>,
) -> Option<i64> {
    let population = as_int(cv(stats, "occurrences"))
        .or_else(|| rows_scanned(stats, scope))
        .or(row_count)?;
    Some(population - as_int(cv(stats, "null_count")).unwrap_or(0))
}
