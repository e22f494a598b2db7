//! The Markdown sections of both purposes, in the order paging ranks them, each line
//! carrying the term keys its labels print. Profile: identity and qualifiers, connection
//! notes, DDL, description, annotations, the column catalog or the statistics sections,
//! relationships, parts. Query: identity and scope, DDL, connection notes, the value
//! table, Joins, data dictionary.

use std::collections::HashMap;

use super::load::{has_meaning, Artifacts};
use super::notes::{self, join_facts, null_share, Rendered, LIST_SEPARATOR};
use super::read::{
    as_f64, as_int, compute_null_rate, coverage_statement, cv, grouped_values, member, parent,
    parse_path, qualify, rows_scanned, scope_line, scope_of, str_at, value_key, value_notes,
    ScanScope, Step,
};
use super::spell::{
    self, collapse, escape_cell, is_number, percent, spell_literal, spell_number, spell_value, R,
};
use super::terms::{self, is_term, Keys};
use super::Options;
use crate::error::QueryError;
use crate::query::edges::{edge_detection, iterate};
use compat::py::py_eq;
use compat::py::{rstrip, strip};
use compat::value::Value;

/// One Markdown section: its text and the term keys of each of its lines.
#[derive(Debug, Clone)]
pub struct Section {
    /// The reference's section name (`header`, `ddl`, `values`...), for tests and debugging.
    #[allow(dead_code)]
    pub name: &'static str,
    pub text: String,
    pub line_terms: Vec<Keys>,
}

fn section(name: &'static str, lines: Vec<Rendered>) -> Section {
    let text = lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Section {
        name,
        text,
        line_terms: lines.into_iter().map(|l| l.terms).collect(),
    }
}

fn plain_section(name: &'static str, text: String) -> Section {
    Section {
        name,
        text,
        line_terms: Vec::new(),
    }
}

const NOT_A_JOIN_TARGET: &str = "not a join target, no declared-unique column";
const MEANINGS_UNDOCUMENTED: &str = "meanings: not documented here";
const FREQUENT_STATEMENT: &str = "frequent values, not a domain";
const NULL_PATTERN_LIMIT: usize = 8;
const QUERY_SAMPLE_LIMIT: usize = 5;
const QUERY_FREQUENT_SHARE: f64 = 0.01;

const DISABLEABLE: [&str; 6] = [
    "looks_like",
    "null_patterns",
    "parts",
    "relationships.infer",
    "sketches",
    "timeline",
];

fn disabled_label(name: &str) -> &'static str {
    match name {
        "looks_like" => "value shapes (looks like)",
        "null_patterns" => "columns null on the same rows",
        "parts" => "parts of nested columns",
        "relationships.infer" => "inferred relationships",
        "sketches" => "value sketches and measured joins",
        _ => "timeline",
    }
}

fn disabled_consequence(name: &str) -> &'static str {
    match name {
        "looks_like" => {
            "no column's value shape was detected; an absent looks_like is not \"no pattern\""
        }
        "null_patterns" => "which columns are null on the same rows is unknown, not \"none\"",
        "parts" => "no nested column was described part by part",
        "relationships.infer" => "no foreign key was inferred from its column names",
        "sketches" => "no value sketch was taken and no join was measured from one",
        "timeline" => "its activity over time and each column's populated span are unknown",
        _ => "its reading is unknown, not absent",
    }
}

fn unmeasured_block_message(name: &str) -> &'static str {
    match name {
        "physical_layout" => "this run did not measure it, so whether a key is declared is unknown, not \"none\".",
        "null_patterns" => "this run did not measure it, so which columns are null on the same rows is unknown, not \"none\".",
        "dependencies" => "this run did not measure it, so no dependency between columns is ruled out.",
        _ => "this run did not measure it; its content is unknown.",
    }
}

pub fn unprofiled_message(fqn: &str) -> String {
    format!(
        "the last generate run could not profile {}; run dbprint generate to see the cause",
        compat::py::repr_str(fqn)
    )
}

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

fn attribute_error(v: &Value, attribute: &str) -> QueryError {
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

fn columns_of(a: &Artifacts) -> Option<&Value> {
    a.statistics()
        .and_then(|s| s.get("columns"))
        .filter(|c| matches!(c, Value::Map(_)))
}

fn row_count_of(a: &Artifacts) -> Option<&Value> {
    a.statistics().and_then(|s| cv(s, "row_count"))
}

fn scope(a: &Artifacts) -> Option<ScanScope> {
    scope_of(a.statistics())
}

// Edges.

fn ranked(edges: Option<&Value>) -> R<Vec<Value>> {
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

fn join_columns(columns: Option<&Value>) -> String {
    let names: Vec<String> = columns
        .and_then(Value::as_seq)
        .map(|s| s.iter().map(compat::py::str_of).collect())
        .unwrap_or_default();
    match names.len() {
        0 => "?".into(),
        1 => names[0].clone(),
        _ => format!("({})", names.join(", ")),
    }
}

fn endpoint(entry: &Value, columns: &str, path: &str) -> String {
    let joined = join_columns(entry.get(columns));
    match entry.get(path).and_then(Value::as_seq) {
        Some(keys) if !keys.is_empty() => {
            let keys: Vec<String> = keys.iter().map(compat::py::str_of).collect();
            format!("{joined} (path {})", keys.join("."))
        }
        _ => joined,
    }
}

fn table_of(entry: &Value, key: &str) -> String {
    entry
        .get(key)
        .map(compat::py::str_of)
        .unwrap_or_else(|| "?".into())
}

fn target(entry: &Value) -> String {
    format!(
        "{}.{}",
        table_of(entry, "target_table"),
        endpoint(entry, "target_column", "target_path")
    )
}

fn referencer(entry: &Value) -> String {
    format!(
        "{}.{}",
        table_of(entry, "referencer_table"),
        endpoint(entry, "referencer_column", "referencer_path")
    )
}

fn detection_text(entry: &Value) -> String {
    compat::py::str_of(&edge_detection(entry))
}

fn detection_terms(entry: &Value) -> Keys {
    let d = detection_text(entry);
    if d == "annotated" {
        return terms::keys(["annotated"]);
    }
    let key = format!("detection:{d}");
    if is_term(&key) {
        [key].into_iter().collect()
    } else {
        Keys::new()
    }
}

fn single_column(entry: &Value) -> Option<String> {
    match entry.get("column").and_then(Value::as_seq) {
        Some([one]) => Some(compat::py::str_of(one)),
        _ => None,
    }
}

/// `fk_target_map`: every outgoing edge per source column, surest first.
fn fk_targets(a: &Artifacts) -> R<HashMap<String, Vec<String>>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let rel = a.relationships.as_ref();
    for entry in ranked(rel.and_then(|r| r.get("refers_to")))? {
        let cols: Vec<String> = iterate(entry.get("column"))?
            .iter()
            .map(compat::py::str_of)
            .collect();
        let mut label = format!("{} ({})", target(&entry), detection_text(&entry));
        if cols.len() > 1 || entry.get("path").is_some_and(Value::truthy) {
            label = format!("{} -> {label}", endpoint(&entry, "column", "path"));
        }
        for c in cols {
            out.entry(c).or_default().push(label.clone());
        }
    }
    Ok(out)
}

// Header.

fn meanings_documented(a: &Artifacts, query: bool) -> bool {
    if a.description
        .as_deref()
        .is_some_and(|d| !strip(d).is_empty())
        || (query && !a.inherited.is_empty())
    {
        return true;
    }
    a.annotations.iter().any(|(_, e)| has_meaning(Some(e)))
}

pub fn meanings_documented_for(a: &Artifacts, query: bool) -> bool {
    meanings_documented(a, query)
}

fn identity_lines(a: &Artifacts, adapter: Option<&str>, query: bool) -> R<Vec<Rendered>> {
    let mut parts = Vec::new();
    if let Some(rc) = &a.row_count {
        parts.push(format!("{} rows", spell_number(rc)?));
    }
    parts.push(format!("{} columns", a.column_count));
    let mut lines = vec![format!("# Table: {}  ({})", a.fqn, parts.join(", "))];
    if a.last_run_failed {
        lines.push(format!(
            "Unprofiled: {} - this print is an earlier run's",
            unprofiled_message(&a.fqn)
        ));
    }
    if let Some(adapter) = adapter {
        lines.push(format!("Adapter: {adapter}"));
    }
    if !a.missing.is_empty() {
        lines.push(format!(
            "Missing: {} (declared but missing from disk)",
            a.missing.join(", ")
        ));
    }
    if !a.corrupted.is_empty() {
        let kinds: Vec<&str> = a.corrupted.iter().map(|(k, _)| k.as_str()).collect();
        lines.push(format!(
            "Unreadable: {} (present on disk, malformed)",
            kinds.join(", ")
        ));
    }
    let mut out: Vec<Rendered> = lines.into_iter().map(Rendered::plain).collect();
    if !meanings_documented(a, query) {
        out.push(Rendered::with(
            "Meanings: not documented here - read codes, units and defaults from the code",
            ["meanings_table"],
        ));
    }
    Ok(out)
}

fn scope_summary(statistics: Option<&Value>) -> Rendered {
    let Some(scope) = scope_of(statistics) else {
        return Rendered::default();
    };
    let mut keys = terms::keys(["scanned"]);
    if scope.sample.is_some() {
        keys.insert("sampled".into());
    } else if scope
        .filter
        .as_deref()
        .is_some_and(|f| !strip(f).is_empty())
    {
        keys.insert("filtered_by".into());
    }
    Rendered {
        text: scope_line(&scope),
        terms: keys,
    }
}

fn external_line(statistics: &Value) -> String {
    if cv(statistics, "external") != Some(&Value::Bool(true)) {
        return String::new();
    }
    let read = if cv(statistics, "catalog_only") == Some(&Value::Bool(true)) {
        "not queried by dbprint"
    } else {
        "statistics were read through it"
    };
    format!(
        "External: rows live outside this database - {read}; every query against it reads the other system"
    )
}

fn merging_summary(statistics: &Value) -> R<String> {
    let Some(block @ Value::Map(_)) = cv(statistics, "merging") else {
        return Ok(String::new());
    };
    let mut exprs = Vec::new();
    for k in iterate(block.get("key"))? {
        exprs.push(match k.get("expression") {
            Some(e) => compat::py::str_of(e),
            None => String::new(),
        });
    }
    let key = exprs.join(", ");
    let engine = block
        .get("engine")
        .map(compat::py::str_of)
        .unwrap_or_else(|| "None".into());
    let head = format!("Merging: {engine} on ({key})");
    if block.get("rows").and_then(Value::as_str) == Some("merged") {
        return Ok(format!(
            "{head} - statistics were read with FINAL; queries without FINAL see more rows"
        ));
    }
    if block.get("one_row_per_key").is_some_and(Value::truthy) {
        let grouped = if key.is_empty() {
            String::new()
        } else {
            format!(", or GROUP BY {key},")
        };
        return Ok(format!(
            "{head} - rows counted here may repeat a key until merged; query with FINAL{grouped} for one row per key"
        ));
    }
    Ok(format!(
        "{head} - rows counted here include state and cancel rows not yet collapsed; query with FINAL for the collapsed rows"
    ))
}

fn join_strs(v: Option<&Value>) -> R<String> {
    let mut out = Vec::new();
    for item in iterate(v)? {
        match item {
            Value::Str(s) => out.push(s),
            other => {
                return Err(QueryError::Other(format!(
                    "sequence item {}: expected str instance, {} found",
                    out.len(),
                    other.py_type_name()
                )))
            }
        }
    }
    Ok(out.join(", "))
}

fn grain_summary(statistics: &Value, annotated: Option<&Value>) -> R<Rendered> {
    let block = cv(statistics, "grain").filter(|b| b.truthy());
    let mut keys: Vec<Value> = match block {
        Some(b) => iterate(b.get("keys"))?
            .into_iter()
            .filter(|k| matches!(k, Value::Map(_)))
            .collect(),
        None => Vec::new(),
    };
    if let Some(list) = annotated
        .and_then(|g| g.get("keys"))
        .and_then(Value::as_seq)
    {
        for key in list.iter().filter(|k| matches!(k, Value::Map(_))) {
            let columns = key
                .get("columns")
                .filter(|c| c.truthy())
                .cloned()
                .unwrap_or(Value::Seq(Vec::new()));
            let mut entry = vec![
                (Value::Str("columns".into()), columns),
                (
                    Value::Str("detection".into()),
                    Value::Str("annotated".into()),
                ),
            ];
            if let Some(n) = key.get("note").and_then(Value::as_str) {
                if !strip(n).is_empty() {
                    entry.push((Value::Str("note".into()), Value::Str(n.to_string())));
                }
            }
            keys.push(Value::Map(entry));
        }
    }
    let grain = terms::keys(["grain"]);
    if keys.is_empty() {
        let exhausted = block
            .and_then(|b| b.get("search"))
            .filter(|s| matches!(s, Value::Map(_)))
            .and_then(|s| s.get("exhausted"));
        let text = match exhausted {
            Some(Value::Bool(true)) => "Grain: searched, none found",
            Some(Value::Bool(false)) => "Grain: search bounded, none found within the cap",
            _ => "Grain: not determined",
        };
        return Ok(Rendered {
            text: text.into(),
            terms: grain,
        });
    }
    let mut parts = Vec::new();
    let mut t = grain;
    for key in &keys {
        let columns = join_strs(key.get("columns").filter(|c| c.truthy()))?;
        let detection = key
            .get("detection")
            .map(compat::py::str_of)
            .unwrap_or_else(|| "None".into());
        let mut text = format!("({columns}) {detection}");
        if let Some(note) = key.get("note").filter(|n| n.truthy()) {
            text.push_str(&format!(" - {}", spell_literal(note)?));
        }
        parts.push(text);
        let d = if detection == "annotated" {
            "annotated".to_string()
        } else {
            format!("detection:{detection}")
        };
        if is_term(&d) {
            t.insert(d);
        }
    }
    Ok(Rendered {
        text: format!("Grain: {}", parts.join("; ")),
        terms: t,
    })
}

fn scanned_row_share(coverage: Option<&Value>) -> Option<String> {
    let c = match coverage {
        Some(v @ (Value::Int(_) | Value::Float(_) | Value::BigInt(_))) => v,
        _ => return None,
    };
    Some(if as_f64(Some(c)).unwrap_or(0.0) >= 1.0 {
        "every scanned row".into()
    } else {
        format!(
            "{} of scanned rows",
            spell::spell_percent(c).unwrap_or_default()
        )
    })
}

fn timeline_summary(statistics: &Value) -> R<Rendered> {
    let Some(block) = cv(statistics, "timeline").filter(|b| b.truthy()) else {
        return Ok(Rendered::default());
    };
    let column = block
        .get("column")
        .map(compat::py::str_of)
        .unwrap_or_else(|| "None".into());
    let unit = block
        .get("unit")
        .map(compat::py::str_of)
        .unwrap_or_else(|| "None".into());
    let buckets: Vec<Value> = iterate(block.get("buckets"))?
        .into_iter()
        .filter(|b| matches!(b, Value::Map(_)))
        .collect();
    let head = format!("Timeline: {column} ({unit}); buckets: {}", buckets.len());
    let (Some(first), Some(last)) = (buckets.first(), buckets.last()) else {
        return Ok(Rendered::with(head, ["timeline", "buckets"]));
    };
    let first = spell_literal(first.get("start").unwrap_or(&Value::Null))?;
    let last = spell_literal(last.get("start").unwrap_or(&Value::Null))?;
    let share = scanned_row_share(block.get("coverage"));
    let mut keys = terms::keys(["timeline", "buckets", "bucket_starts"]);
    let covered = match &share {
        Some(s) => {
            keys.insert("covers".into());
            format!("; covers: {s}")
        }
        None => String::new(),
    };
    Ok(Rendered {
        text: format!("{head}; bucket starts: {first} -> {last}{covered}"),
        terms: keys,
    })
}

fn disabled_summary(statistics: &Value) -> Rendered {
    let named = disabled_of(statistics);
    if named.is_empty() {
        return Rendered::default();
    }
    let labels: Vec<&str> = named.iter().map(|n| disabled_label(n)).collect();
    Rendered::with(
        format!("Not measured: switched off - {}", labels.join(", ")),
        ["switched_off"],
    )
}

fn depends_on_summary(statistics: &Value) -> String {
    let Some(block) = cv(statistics, "depends_on").and_then(Value::as_seq) else {
        return String::new();
    };
    let names: Vec<&str> = block.iter().filter_map(Value::as_str).collect();
    if names.is_empty() {
        "Depends on: nothing else in this print".into()
    } else {
        format!("Depends on: {}", names.join(", "))
    }
}

/// `effective_profile`: the connection's profile overlaid block by block with a table's.
pub fn effective_profile(base: &Value, delta: Option<&Value>) -> Value {
    let mut out: Vec<(Value, Value)> = base.as_map().map(<[_]>::to_vec).unwrap_or_default();
    let Some(Value::Map(delta)) = delta else {
        return Value::Map(out);
    };
    let put = |out: &mut Vec<(Value, Value)>, k: &Value, v: Value| match out
        .iter_mut()
        .find(|(x, _)| x == k)
    {
        Some(slot) => slot.1 = v,
        None => out.push((k.clone(), v)),
    };
    for (name, block) in delta {
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
            put(&mut out, name, Value::Map(read));
        } else {
            put(&mut out, name, block.clone());
        }
    }
    Value::Map(out)
}

fn profile_leaves(tree: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
    for (k, v) in tree.as_map().unwrap_or_default() {
        let key = format!("{prefix}{}", compat::py::str_of(k));
        match v {
            Value::Map(_) => profile_leaves(v, &format!("{key}."), out),
            other => match out.iter_mut().find(|(p, _)| *p == key) {
                Some(slot) => slot.1 = other.clone(),
                None => out.push((key, other.clone())),
            },
        }
    }
}

fn profile_override_summary(connection: &Value, table: Option<&Value>) -> String {
    let Some(table) = table.filter(|t| t.truthy()) else {
        return String::new();
    };
    let mut own = Vec::new();
    profile_leaves(&effective_profile(connection, Some(table)), "", &mut own);
    let mut base = Vec::new();
    profile_leaves(connection, "", &mut base);
    let mut differing: Vec<(String, Value)> = own
        .into_iter()
        .filter(|(p, v)| {
            !base
                .iter()
                .find(|(b, _)| b == p)
                .is_some_and(|(_, bv)| py_eq(bv, v))
        })
        .collect();
    if differing.is_empty() {
        return String::new();
    }
    differing.sort_by(|a, b| a.0.cmp(&b.0));
    let rendered: Vec<String> = differing
        .iter()
        .map(|(p, v)| match v {
            Value::Bool(b) => format!("{p}={}", if *b { "true" } else { "false" }),
            other => format!("{p}={}", compat::py::str_of(other)),
        })
        .collect();
    format!("Profile override: {}", rendered.join(", "))
}

fn profile_header(
    a: &Artifacts,
    include_qualifiers: bool,
    connection_profile: &Value,
    adapter: Option<&str>,
) -> R<Vec<Rendered>> {
    let mut lines = identity_lines(a, adapter, false)?;
    if !include_qualifiers {
        return Ok(lines);
    }
    let Some(statistics) = a.statistics() else {
        return Ok(lines);
    };
    let qualifiers = vec![
        scope_summary(Some(statistics)),
        Rendered::plain(external_line(statistics)),
        Rendered::plain(merging_summary(statistics)?),
        grain_summary(statistics, a.annotated_grain.as_ref())?,
        timeline_summary(statistics)?,
        disabled_summary(statistics),
        Rendered::plain(depends_on_summary(statistics)),
        Rendered::plain(profile_override_summary(
            connection_profile,
            a.profile_override.as_ref(),
        )),
    ];
    lines.extend(qualifiers.into_iter().filter(|l| !l.text.is_empty()));
    Ok(lines)
}

fn query_header(a: &Artifacts, adapter: Option<&str>) -> R<Vec<Rendered>> {
    let mut lines = identity_lines(a, adapter, true)?;
    let empty = Value::Map(Vec::new());
    let statistics = a.statistics().unwrap_or(&empty);
    // The scope line rides even when empty: the reference appends its (truthy) blank line.
    lines.push(scope_summary(Some(statistics)));
    let external = external_line(statistics);
    if !external.is_empty() {
        lines.push(Rendered::plain(external));
    }
    let merging = merging_summary(statistics)?;
    if !merging.is_empty() {
        lines.push(Rendered::plain(merging));
    }
    let off = disabled_summary(statistics);
    if !off.text.is_empty() {
        lines.push(off);
    }
    Ok(lines)
}

// Plain sections.

fn connection_notes_text(a: &Artifacts) -> String {
    format!(
        "## Connection notes\n\n{}",
        a.connection_notes.as_deref().unwrap_or_default()
    )
}

fn ddl_text(a: &Artifacts) -> String {
    format!("## DDL\n\n```sql\n{}\n```", rstrip(&a.ddl))
}

fn annotation_has_content(entry: &Value) -> bool {
    if entry
        .get("note")
        .and_then(Value::as_str)
        .is_some_and(|n| !strip(n).is_empty())
    {
        return true;
    }
    if entry
        .get("claims")
        .and_then(Value::as_map)
        .is_some_and(|c| !c.is_empty())
    {
        return true;
    }
    entry
        .get("values")
        .and_then(Value::as_seq)
        .is_some_and(|vs| {
            vs.iter().any(|v| {
                v.get("note")
                    .and_then(Value::as_str)
                    .is_some_and(|n| !strip(n).is_empty())
            })
        })
}

fn annotations_text(a: &Artifacts) -> R<String> {
    let mut lines = vec!["## Annotations".to_string()];
    for (name, entry) in &a.annotations {
        if !annotation_has_content(entry) {
            continue;
        }
        match entry
            .get("note")
            .and_then(Value::as_str)
            .filter(|n| !strip(n).is_empty())
        {
            Some(note) => lines.push(format!("- **{name}**: {}", strip(note))),
            None => lines.push(format!("- **{name}**")),
        }
        if let Some(claims) = entry
            .get("claims")
            .and_then(Value::as_map)
            .filter(|c| !c.is_empty())
        {
            let mut rendered = Vec::new();
            for (stat, predicate) in claims {
                rendered.push(format!(
                    "{}: {}",
                    compat::py::str_of(stat),
                    spell::spell_inline(predicate)?
                ));
            }
            lines.push(format!("  - claims: {}", rendered.join(", ")));
        }
        if let Some(values) = entry.get("values").and_then(Value::as_seq) {
            for v in values.iter().filter(|v| matches!(v, Value::Map(_))) {
                if let Some(note) = v
                    .get("note")
                    .and_then(Value::as_str)
                    .filter(|n| !strip(n).is_empty())
                {
                    let value = v.get("value").unwrap_or(&Value::Null);
                    lines.push(format!("  - {}: {}", spell_value(value)?, strip(note)));
                }
            }
        }
    }
    Ok(lines.join("\n"))
}

fn catalog_only_text(a: &Artifacts) -> R<String> {
    let mut lines = vec![
        "## Columns (not queried)".to_string(),
        String::new(),
        "| Column | Type | Classification |".into(),
        "|---|---|---|".into(),
    ];
    let empty = Value::Map(Vec::new());
    let columns = a
        .statistics()
        .and_then(|s| s.get("columns"))
        .filter(|c| c.truthy())
        .unwrap_or(&empty);
    for (name, col) in ordered_columns(columns)? {
        let get = |k: &str| {
            col.get(k)
                .map(compat::py::str_of)
                .unwrap_or_else(|| "?".into())
        };
        lines.push(format!(
            "| {} | {} | {} |",
            escape_cell(&name),
            escape_cell(&get("sql_type")),
            escape_cell(&get("classification"))
        ));
    }
    Ok(lines.join("\n"))
}

fn unmeasured_text(statistics: &Value) -> String {
    let Some(named) = cv(statistics, "unmeasured").and_then(Value::as_seq) else {
        return String::new();
    };
    let lines: Vec<String> = named
        .iter()
        .filter_map(Value::as_str)
        .map(|name| {
            let label = match name {
                "physical_layout" => " (clustering or partitioning)",
                "null_patterns" => " (columns null on the same rows)",
                _ => "",
            };
            format!("- `{name}`{label}: {}", unmeasured_block_message(name))
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut out = vec![
        "## Blocks in the file's `unmeasured` list".to_string(),
        String::new(),
    ];
    out.extend(lines);
    out.join("\n")
}

fn disabled_text(statistics: &Value) -> String {
    let named = disabled_of(statistics);
    if named.is_empty() {
        return String::new();
    }
    let mut out = vec![
        "## Measurements in the file's `disabled` list".to_string(),
        String::new(),
    ];
    for name in named {
        out.push(format!(
            "- `{name}` ({}): not measured: switched off for this table, so {}.",
            disabled_label(name),
            disabled_consequence(name)
        ));
    }
    out.join("\n")
}

fn physical_layout_text(statistics: &Value) -> R<String> {
    let (mechanism, keys) = match cv(statistics, "physical_layout") {
        Some(block @ Value::Map(_)) => (
            block.get("mechanism").and_then(Value::as_str),
            iterate(block.get("keys"))?
                .into_iter()
                .filter(|k| matches!(k, Value::Map(_)))
                .collect(),
        ),
        _ => (None, Vec::new()),
    };
    let label = match mechanism {
        Some("cluster") => "Clustered by",
        Some("sort") => "Sorted by",
        _ => "Partitioned by",
    };
    let exprs: Vec<String> = keys
        .iter()
        .map(|k| {
            k.get("expression")
                .map(compat::py::str_of)
                .unwrap_or_default()
        })
        .collect();
    Ok(format!(
        "## Physical layout\n\n{label}: {}",
        exprs.join(", ")
    ))
}

// Cardinality.

fn saturation(
    col: &Value,
    row_count: Option<&Value>,
    scope: Option<&ScanScope>,
) -> Option<&'static str> {
    let cardinality = cv(col, "cardinality")?;
    match scope {
        Some(_) => {
            let scanned = rows_scanned(col, scope).filter(|s| *s != 0)?;
            py_eq(cardinality, &Value::Int(scanned)).then_some(" (= scanned rows)")
        }
        None => {
            let rc = row_count.filter(|r| r.truthy())?;
            py_eq(cardinality, rc).then_some(" (= row count)")
        }
    }
}

fn cardinality_cell(
    col: &Value,
    row_count: Option<&Value>,
    scope: Option<&ScanScope>,
) -> R<String> {
    let Some(cardinality) = cv(col, "cardinality") else {
        return Ok("n/a".into());
    };
    let mut text = spell_number(cardinality)?;
    if let Some(s) = saturation(col, row_count, scope) {
        text.push_str(s);
    }
    if str_at(col, "cardinality_method") == Some("approximate") {
        text.push_str(" (approx)");
    }
    if let (Some(n), Some(c)) = (
        as_int(cv(col, "normalized_cardinality")),
        as_int(Some(cardinality)),
    ) {
        if n < c {
            text.push_str(&format!(" ({} merge case/whitespace-folded)", c - n));
        }
    }
    Ok(text)
}

fn cardinality_lines(a: &Artifacts, profile: &Value) -> R<Vec<Rendered>> {
    let empty = Value::Map(Vec::new());
    let statistics = a.statistics().unwrap_or(&empty);
    let columns = statistics
        .get("columns")
        .filter(|c| c.truthy())
        .unwrap_or(&empty);
    let row_count = cv(statistics, "row_count");
    let scope = scope_of(Some(statistics));
    let fk = fk_targets(a)?;
    let mut lines = vec![
        Rendered::plain("## Cardinality & key columns"),
        Rendered::plain(""),
        Rendered::plain("| Column | Cardinality | Notes |"),
        Rendered::plain("|---|---|---|"),
    ];
    for (name, col) in ordered_columns(columns)? {
        let cell = cardinality_cell(col, row_count, scope.as_ref())?;
        let notes = notes::synthesize(
            col,
            fk.get(&name).map(Vec::as_slice),
            profile,
            scope.as_ref(),
            as_int(row_count),
        )?;
        lines.push(Rendered {
            text: format!(
                "| {} | {} | {} |",
                escape_cell(&name),
                escape_cell(&cell),
                escape_cell(&notes.text)
            ),
            terms: notes.terms,
        });
    }
    Ok(lines)
}

fn null_patterns_lines(statistics: &Value) -> R<Vec<Rendered>> {
    let empty = Value::Map(Vec::new());
    let block = cv(statistics, "null_patterns")
        .filter(|b| b.truthy())
        .unwrap_or(&empty);
    if !matches!(block, Value::Map(_)) {
        return Err(attribute_error(block, "get"));
    }
    let patterns: Vec<Value> = iterate(block.get("patterns"))?
        .into_iter()
        .filter(|p| matches!(p, Value::Map(_)))
        .collect();
    let shown = &patterns[..patterns.len().min(NULL_PATTERN_LIMIT)];
    let mut counts = Vec::new();
    for p in &patterns {
        counts.push(super::read::count_or_zero(
            p.get("count").filter(|c| c.truthy()),
        )?);
    }
    let scanned = {
        let scope = scope_of(Some(statistics));
        let s = match &scope {
            Some(sc) => sc.rows_scanned,
            None => as_int(cv(statistics, "row_count")),
        };
        match s.filter(|s| *s > 0) {
            Some(s) => Some(s),
            None => {
                let listed: i64 = counts.iter().sum();
                match block.get("coverage") {
                    Some(c @ (Value::Int(_) | Value::Float(_))) => {
                        let c = as_f64(Some(c)).unwrap_or(0.0);
                        if c > 0.0 {
                            Some(compat::py::py_round(listed as f64 / c, 0) as i64)
                                .filter(|n| *n != 0)
                        } else {
                            None
                        }
                    }
                    _ => None,
                }
            }
        }
    };
    let mut lines: Vec<String> = vec![
        "## Columns null on the same rows".into(),
        String::new(),
        "| Rows | Null together |".into(),
        "|---|---|".into(),
    ];
    for (i, entry) in shown.iter().enumerate() {
        let names = join_strs(entry.get("columns").filter(|c| c.truthy()))?;
        let names = if names.is_empty() {
            "(none - fully populated)".to_string()
        } else {
            names
        };
        let count = counts[i];
        let rows = match scanned {
            Some(s) => percent(count as f64 / s as f64),
            None => count.to_string(),
        };
        lines.push(format!("| {rows} | {} |", escape_cell(&names)));
    }
    let Some(scanned) = scanned else {
        return Ok(lines.into_iter().map(Rendered::plain).collect());
    };
    let every = shown.len() == patterns.len() && super::read::is_one(block.get("coverage"));
    let held: i64 = counts[..shown.len()].iter().sum();
    let covered = if every {
        "every scanned row".to_string()
    } else {
        scanned_row_share(Some(&Value::Float(held as f64 / scanned as f64))).unwrap_or_default()
    };
    let hedge = if block.get("coverage_method").and_then(Value::as_str) == Some("bounded") {
        " (bounded)"
    } else {
        ""
    };
    let mut out: Vec<Rendered> = lines.into_iter().map(Rendered::plain).collect();
    out.push(Rendered::plain(""));
    out.push(Rendered::with(
        format!("Shown combinations cover {covered}{hedge}."),
        ["shown_combinations"],
    ));
    Ok(out)
}

fn on_delete(entry: &Value) -> String {
    match entry.get("on_delete").filter(|v| **v != Value::Null) {
        Some(v) => format!("; on delete: {}", compat::py::str_of(v)),
        None => String::new(),
    }
}

fn on_delete_terms(entry: &Value) -> Keys {
    if entry.get("on_delete").is_some_and(|v| *v != Value::Null) {
        terms::keys(["on_delete"])
    } else {
        Keys::new()
    }
}

fn note_line(entry: &Value) -> Option<Rendered> {
    entry
        .get("note")
        .and_then(Value::as_str)
        .map(|n| Rendered::plain(format!("  note: {}", collapse(n))))
}

fn observed_lines(entry: &Value, child_distinct: Option<&Value>) -> R<Vec<Rendered>> {
    let Some(observed @ Value::Map(_)) = entry.get("observed") else {
        return Ok(Vec::new());
    };
    if observed.get("scope_compatible") == Some(&Value::Bool(false)) {
        return Ok(vec![Rendered::with(
            "  not measured (one side was read in part)",
            ["not_measured"],
        )]);
    }
    let (Some(fanout_avg), Some(target_coverage)) = (
        observed.get("fanout_avg").filter(|v| **v != Value::Null),
        observed
            .get("target_coverage")
            .filter(|v| **v != Value::Null),
    ) else {
        return Ok(Vec::new());
    };
    let mut facts = vec![format!("fanout avg: {}", spell_number(fanout_avg)?)];
    let mut keys = terms::keys(["fanout_avg", "covers"]);
    if let Some(m) = observed.get("fanout_max").filter(|v| **v != Value::Null) {
        facts.push(format!("fanout max: {}", spell_number(m)?));
        keys.insert("fanout_max".into());
    }
    facts.push(format!(
        "covers: {} of target values",
        spell::spell_percent(target_coverage)?
    ));
    if let Some(containment) = observed.get("containment").filter(|v| **v != Value::Null) {
        let mut contained = format!(
            "contained: {} of referencing values",
            spell::spell_percent(containment)?
        );
        if let Some(compared) = as_int(observed.get("answerable_count")).filter(|c| *c > 0) {
            if child_distinct.is_some_and(|d| py_eq(d, &Value::Int(compared))) {
                contained.push_str(" (exact)");
            } else {
                let margin = percent(1.0 / (compared as f64).sqrt());
                contained.push_str(&format!(" (\u{b1}{margin}, {compared} compared)"));
            }
        }
        facts.push(contained);
        keys.insert("contained".into());
    }
    if observed.get("coherent") == Some(&Value::Bool(false)) {
        facts.push("incoherent (more distinct referencing values than target values)".into());
        keys.insert("incoherent".into());
    }
    Ok(vec![Rendered {
        text: format!("  {}", facts.join("; ")),
        terms: keys,
    }])
}

fn own_cardinality<'a>(a: &'a Artifacts, columns: Option<&Value>) -> Option<&'a Value> {
    let names = columns?.as_seq()?;
    if names.len() != 1 {
        return None;
    }
    let col = columns_of(a)?
        .as_map()?
        .iter()
        .find(|(k, _)| py_eq(k, &names[0]))
        .map(|(_, v)| v)?;
    cv(col, "cardinality")
        .filter(|c| matches!(c, Value::Int(_) | Value::BigInt(_) | Value::Bool(_)))
}

fn relationships_lines(a: &Artifacts) -> R<Vec<Rendered>> {
    let mut lines = vec![Rendered::plain("## Relationships")];
    let (refers_to, referenced_by) = edges(a)?;
    if refers_to.is_empty() && referenced_by.is_empty() {
        let ineligible = a
            .relationships
            .as_ref()
            .and_then(|r| r.get("eligible_target"))
            == Some(&Value::Bool(false));
        lines.push(Rendered::plain(if ineligible {
            format!("- (none - {NOT_A_JOIN_TARGET})")
        } else {
            "- (none)".to_string()
        }));
        return Ok(lines);
    }
    for entry in &refers_to {
        let via = endpoint(entry, "column", "path");
        let mut keys = detection_terms(entry);
        keys.insert("via".into());
        keys.extend(on_delete_terms(entry));
        lines.push(Rendered {
            text: format!(
                "- -> {} ({}); via: {via}{}",
                target(entry),
                detection_text(entry),
                on_delete(entry)
            ),
            terms: keys,
        });
        lines.extend(note_line(entry));
        lines.extend(observed_lines(
            entry,
            own_cardinality(a, entry.get("column")),
        )?);
    }
    for entry in &referenced_by {
        let mut keys = detection_terms(entry);
        keys.extend(on_delete_terms(entry));
        lines.push(Rendered {
            text: format!(
                "- <- {} ({}){}",
                referencer(entry),
                detection_text(entry),
                on_delete(entry)
            ),
            terms: keys,
        });
        lines.extend(note_line(entry));
        let key = (
            table_of(entry, "referencer_table"),
            join_columns(entry.get("referencer_column")),
        );
        let referencer_table_is_str = entry
            .get("referencer_table")
            .and_then(Value::as_str)
            .is_some();
        let distinct = referencer_table_is_str
            .then(|| a.incoming_cardinalities.get(&key))
            .flatten();
        lines.extend(observed_lines(entry, distinct)?);
    }
    Ok(lines)
}

// Parts.

fn presence(
    column: &str,
    path: &str,
    block: &Value,
    parts: &[(Value, Value)],
    scanned: Option<i64>,
    scoped: bool,
) -> R<Option<String>> {
    let rows = if scoped { "rows scanned" } else { "rows" };
    let steps = parse_path(path)?;
    let Some(occurrences) = as_int(cv(block, "occurrences")) else {
        return Ok(None);
    };
    if !matches!(steps.last(), Some(Step::Member(_))) {
        return Ok(None);
    }
    let Some(up) = parent(path)? else {
        return Ok(scanned.filter(|s| *s != 0).map(|s| {
            format!(
                "present: {} of {rows}",
                percent(occurrences as f64 / s as f64)
            )
        }));
    };
    let Some(holder @ Value::Map(_)) = parts
        .iter()
        .find(|(k, _)| k.as_str() == Some(&up))
        .map(|(_, v)| v)
    else {
        return Ok(None);
    };
    let population = as_int(cv(holder, "occurrences")).unwrap_or(0)
        - as_int(cv(holder, "null_count")).unwrap_or(0);
    if population == 0 {
        return Ok(None);
    }
    let mut text = format!(
        "present: {} of {column}{up}",
        percent(occurrences as f64 / population as f64)
    );
    if let Some(s) = scanned.filter(|s| *s != 0) {
        if steps.iter().all(|s| matches!(s, Step::Member(_))) {
            text.push_str(&format!(
                " ({} of {rows})",
                percent(occurrences as f64 / s as f64)
            ));
        }
    }
    Ok(Some(text))
}

fn parts_lines(a: &Artifacts) -> R<Vec<Rendered>> {
    let empty = Value::Map(Vec::new());
    let statistics = a.statistics().unwrap_or(&empty);
    let columns = statistics
        .get("columns")
        .filter(|c| c.truthy())
        .unwrap_or(&empty);
    let row_count = cv(statistics, "row_count");
    let scope = scope_of(Some(statistics));
    let mut rows = Vec::new();
    let no_profile = Value::Map(Vec::new());
    for (name, col) in ordered_columns(columns)? {
        let Some(parts) = cv(col, "parts").and_then(Value::as_map) else {
            continue;
        };
        let counted = rows_scanned(col, scope.as_ref());
        let scanned = counted.or_else(|| as_int(row_count));
        for (path, block) in parts {
            if !matches!(block, Value::Map(_)) {
                continue;
            }
            let path = compat::py::str_of(path);
            let mut notes = notes::synthesize(block, None, &no_profile, scope.as_ref(), None)?;
            if let Some(present) = presence(&name, &path, block, parts, scanned, counted.is_some())?
            {
                notes = join_facts(vec![notes, Rendered::with(present, ["present"])], "; ");
            }
            let cell = cardinality_cell(block, None, None)?;
            rows.push(Rendered {
                text: format!(
                    "| {} | {} | {} |",
                    escape_cell(&format!("{name}{path}")),
                    escape_cell(&cell),
                    escape_cell(&notes.text)
                ),
                terms: notes.terms,
            });
        }
    }
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<Rendered> = [
        "## Column parts",
        "",
        "| Part | Cardinality | Notes |",
        "|---|---|---|",
    ]
    .into_iter()
    .map(Rendered::plain)
    .collect();
    out.extend(rows);
    Ok(out)
}

// Query sections.

/// `_null_shares`: each column's stated null share (spelled) and its raw rate, in order.
pub fn null_shares(a: &Artifacts) -> R<Vec<(String, String, Value)>> {
    let Some(columns) = columns_of(a) else {
        return Ok(Vec::new());
    };
    let scope = scope(a);
    let mut out = Vec::new();
    for (name, col) in ordered_columns(columns)? {
        if let Some(share) = null_share(col, scope.as_ref())? {
            let rate = cv(col, "null_rate").cloned().unwrap_or(Value::Null);
            out.push((name, share, rate));
        }
    }
    Ok(out)
}

/// `_referencing_null_share`: the referencing endpoint's null share, spelled and raw; a path
/// key's derived from its part, none without one.
pub fn referencing_null_share(
    a: &Artifacts,
    entry: &Value,
    shares: &[(String, String, Value)],
) -> R<Option<(String, Value)>> {
    let column = single_column(entry);
    let keys = entry.get("path").filter(|k| k.truthy());
    let Some(keys) = keys else {
        return Ok(column.and_then(|c| {
            shares
                .iter()
                .find(|(n, _, _)| *n == c)
                .map(|(_, s, r)| (s.clone(), r.clone()))
        }));
    };
    let Some(column) = column else {
        return Ok(None);
    };
    let Some(statistics) = a.statistics() else {
        return Ok(None);
    };
    let Some(col @ Value::Map(_)) = statistics.get("columns").and_then(|c| c.get(&column)) else {
        return Ok(None);
    };
    let path: String = iterate(Some(keys))?
        .iter()
        .map(|k| member(&compat::py::str_of(k)))
        .collect();
    let Some(key_part @ Value::Map(_)) = cv(col, "parts").and_then(|p| p.get(&path)) else {
        return Ok(None);
    };
    let scope = scope_of(Some(statistics));
    let population =
        rows_scanned(col, scope.as_ref()).or_else(|| as_int(cv(statistics, "row_count")));
    let (Some(occurrences), Some(population)) = (as_int(cv(key_part, "occurrences")), population)
    else {
        return Ok(None);
    };
    if population == 0 {
        return Ok(None);
    }
    let null_rows = population - occurrences + as_int(cv(key_part, "null_count")).unwrap_or(0);
    let rate = compute_null_rate(null_rows, population);
    let text = if null_rows != 0 {
        percent(rate)
    } else {
        qualify("none", scope.as_ref())
    };
    Ok(Some((text, Value::Float(rate))))
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

fn nulls_fact(share: &str) -> Rendered {
    if share.starts_with("none ") {
        Rendered::with(
            format!("nulls: {share}"),
            ["nulls", "over_the_rows_scanned"],
        )
    } else {
        Rendered::with(format!("nulls: {share}"), ["nulls"])
    }
}

fn note_fact(entry: &Value) -> Vec<Rendered> {
    entry
        .get("note")
        .and_then(Value::as_str)
        .map(|n| Rendered::plain(format!("note: {}", collapse(n))))
        .into_iter()
        .collect()
}

fn joins_lines(a: &Artifacts) -> R<Vec<Rendered>> {
    let Some(rel) = &a.relationships else {
        return Ok(Vec::new());
    };
    let (refers_to, referenced_by) = edges(a)?;
    let mut lines = vec![Rendered::with("## Joins", ["joins"])];
    if refers_to.is_empty() && referenced_by.is_empty() {
        let ineligible = rel.get("eligible_target") == Some(&Value::Bool(false));
        lines.push(Rendered::plain(if ineligible {
            format!("none found ({NOT_A_JOIN_TARGET})")
        } else {
            "none found".to_string()
        }));
        return Ok(lines);
    }
    let shares = null_shares(a)?;
    for entry in &refers_to {
        let mut facts = vec![Rendered {
            text: format!(
                "- {} -> {} ({})",
                endpoint(entry, "column", "path"),
                target(entry),
                detection_text(entry)
            ),
            terms: detection_terms(entry),
        }];
        if let Some((share, _)) = referencing_null_share(a, entry, &shares)? {
            facts.push(nulls_fact(&share));
        }
        facts.extend(note_fact(entry));
        lines.push(join_facts(facts, "; "));
    }
    for entry in &referenced_by {
        let mut facts = vec![Rendered {
            text: format!(
                "- {} <- {} ({})",
                endpoint(entry, "column", "path"),
                referencer(entry),
                detection_text(entry)
            ),
            terms: detection_terms(entry),
        }];
        facts.extend(note_fact(entry));
        lines.push(join_facts(facts, "; "));
    }
    Ok(lines)
}

fn dictionary_lines(name: &str, entry: Option<&Value>, inherited: &[Value]) -> R<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(note) = entry
        .and_then(|e| e.get("note"))
        .and_then(Value::as_str)
        .filter(|n| !strip(n).is_empty())
    {
        lines.push(format!("- {name}: {}", collapse(note)));
    }
    for source in inherited {
        let mut facts = Vec::new();
        if let Some(note) = source.get("note").filter(|n| n.truthy()) {
            facts.push(collapse(&compat::py::str_of(note)));
        }
        for v in source
            .get("values")
            .and_then(Value::as_seq)
            .unwrap_or_default()
        {
            facts.push(format!(
                "{} = {}",
                spell_literal(v.get("value").unwrap_or(&Value::Null))?,
                collapse(&compat::py::str_of(v.get("note").unwrap_or(&Value::Null)))
            ));
        }
        lines.push(format!(
            "- {name} (from {}): {}",
            source
                .get("source")
                .map(compat::py::str_of)
                .unwrap_or_default(),
            facts.join("; ")
        ));
    }
    Ok(lines)
}

fn dictionary_text(a: &Artifacts, options: &Options) -> R<String> {
    let description = if options.include_description {
        a.description.as_deref().filter(|d| !d.is_empty())
    } else {
        None
    };
    let mut notes = Vec::new();
    if options.include_annotations {
        let mut names: Vec<String> = a.annotations.iter().map(|(n, _)| n.clone()).collect();
        if let Some(columns) = columns_of(a) {
            for (name, _) in ordered_columns(columns)? {
                if a.inherited_of(&name).is_some() && a.annotation(&name).is_none() {
                    names.push(name);
                }
            }
        }
        for name in names {
            let inherited = a.inherited_of(&name).cloned().unwrap_or_default();
            notes.extend(dictionary_lines(&name, a.annotation(&name), &inherited)?);
        }
    }
    if notes.is_empty() && description.is_none() {
        return Ok(String::new());
    }
    let mut lines = vec!["## Data dictionary".to_string()];
    if let Some(d) = description {
        lines.push(String::new());
        lines.push(rstrip(d).to_string());
    }
    if !notes.is_empty() {
        lines.push(String::new());
        lines.extend(notes);
    }
    Ok(lines.join("\n"))
}

/// `_covered_values`: the value entries and their coverage, when both are readable.
pub fn covered_values(col: &Value) -> Option<(Vec<Value>, f64)> {
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

fn count_of(entry: &Value) -> i64 {
    as_int(entry.get("count")).unwrap_or(0)
}

/// `_frequent_values`: a numeric or temporal column's values above the bar, at most five,
/// with their joint share.
pub fn frequent_values(
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
    let population = notes::non_null_rows(col, as_int(row_count), scope).filter(|p| *p != 0)?;
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
pub fn shown_values(entries: &[Value], coverage: f64) -> (Vec<Value>, f64) {
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
        && !super::read::truthy(cv(col, "redacted"))
        && !has_meaning(annotation)
        && inherited.is_none_or(Vec::is_empty)
}

/// Python `sum(e.get("count") or 0 ...)` over loaded counts.
fn sum_counts(entries: &[&Value]) -> R<String> {
    let mut int_total: i64 = 0;
    let mut float_total: Option<f64> = None;
    for e in entries {
        match e.get("count").filter(|c| c.truthy()) {
            None => {}
            Some(Value::Int(i)) => {
                int_total += i;
                if let Some(f) = float_total.as_mut() {
                    *f += *i as f64;
                }
            }
            Some(Value::Bool(b)) => int_total += i64::from(*b),
            Some(Value::Float(f)) => {
                float_total = Some(float_total.unwrap_or(int_total as f64) + f);
            }
            Some(other) => {
                return Err(QueryError::Other(format!(
                    "unsupported operand type(s) for +: 'int' and '{}'",
                    other.py_type_name()
                )))
            }
        }
    }
    Ok(match float_total {
        Some(f) => compat::py::float_repr(f),
        None => int_total.to_string(),
    })
}

fn values_cell(col: &Value, entries: &[Value], annotation: Option<&Value>) -> R<Rendered> {
    if let Some(redaction) = str_at(col, "redacted").filter(|r| !r.is_empty()) {
        let withheld: Vec<String> = entries
            .iter()
            .filter(|e| matches!(e, Value::Map(_)))
            .map(|e| {
                format!(
                    "withheld ({})",
                    compat::py::str_of(e.get("count").unwrap_or(&Value::Null))
                )
            })
            .collect();
        let mut keys: Keys = terms::keys(["redacted", "values", "withheld"]);
        keys.insert(format!("redaction:{redaction}"));
        keys.retain(|k| is_term(k));
        return Ok(Rendered {
            text: format!("redacted: {redaction}; values: {}", withheld.join(", ")),
            terms: keys,
        });
    }
    let notes = value_notes(annotation);
    let mut cells = Vec::new();
    for (entry, members) in grouped_values(entries) {
        let value = entry.get("value").unwrap_or(&Value::Null);
        let mut counted = vec![entry];
        counted.extend(members.iter().copied());
        let mut cell = format!(
            "{} ({})",
            escape_cell(&spell_literal(value)?),
            sum_counts(&counted)?
        );
        if !members.is_empty() {
            let mut spellings = Vec::new();
            for e in &counted {
                spellings.push(format!(
                    "{} ({})",
                    escape_cell(&spell_literal(e.get("value").unwrap_or(&Value::Null))?),
                    compat::py::str_of(e.get("count").unwrap_or(&Value::Null))
                ));
            }
            cell.push_str(&format!(" {{{}}}", spellings.join(", ")));
        }
        if let Some(note) = notes.get(&value_key(value)).filter(|n| !n.is_empty()) {
            cell.push_str(&format!(" = {}", escape_cell(&spell::str_literal(note))));
        }
        cells.push(cell);
    }
    Ok(Rendered::plain(cells.join(", ")))
}

fn scope_terms(text: &str) -> Keys {
    if text.contains("over the rows scanned") {
        terms::keys(["over_the_rows_scanned"])
    } else {
        Keys::new()
    }
}

fn column_values_lines(a: &Artifacts, joined: &[String]) -> R<Vec<Rendered>> {
    let Some(columns) = columns_of(a) else {
        return Ok(Vec::new());
    };
    let scope = scope(a);
    let row_count = row_count_of(a);
    let mut shares = null_shares(a)?;
    let mut rows = Vec::new();
    for (name, col) in ordered_columns(columns)? {
        let listed = covered_values(col);
        let frequent = if listed.is_none() {
            frequent_values(col, scope.as_ref(), row_count)
        } else {
            None
        };
        let (shown, share, statement, cue) = if let Some((entries, coverage)) = &listed {
            let (shown, share) = shown_values(entries, *coverage);
            let cue =
                codes_undocumented(col, *coverage, a.annotation(&name), a.inherited_of(&name));
            (
                shown,
                share,
                coverage_statement(*coverage, scope.as_ref()),
                cue,
            )
        } else if let Some((shown, share)) = &frequent {
            (shown.clone(), *share, FREQUENT_STATEMENT, false)
        } else {
            continue;
        };
        let cell = values_cell(col, &shown, a.annotation(&name))?;
        let nulls = match shares.iter().position(|(n, _, _)| *n == name) {
            Some(i) => shares.remove(i).1,
            None => String::new(),
        };
        let mut keys = cell.terms.clone();
        keys.extend(scope_terms(statement));
        keys.extend(scope_terms(&nulls));
        if cue {
            keys.insert("meanings".into());
        }
        if frequent.is_some() {
            keys.insert("frequent_values".into());
        }
        let cue_text = if cue {
            format!("; {MEANINGS_UNDOCUMENTED}")
        } else {
            String::new()
        };
        rows.push(Rendered {
            text: format!(
                "| {} | {} | {} - {statement}{cue_text} | {nulls} |",
                escape_cell(&name),
                cell.text,
                percent(share)
            ),
            terms: keys,
        });
    }
    let rest: Vec<String> = shares
        .iter()
        .filter(|(n, _, _)| !joined.contains(n))
        .map(|(n, s, _)| format!("{n} ({s})"))
        .collect();
    if rows.is_empty() && rest.is_empty() {
        return Ok(Vec::new());
    }
    let mut lines = vec![Rendered::plain("## Column values")];
    if !rows.is_empty() {
        lines.push(Rendered::plain(""));
        lines.push(Rendered::with(
            "| Column | Values (count) | Coverage | Nulls |",
            ["nulls_column"],
        ));
        lines.push(Rendered::plain("|---|---|---|---|"));
        lines.extend(rows);
    }
    if !rest.is_empty() {
        let line = format!("Nulls: {}", rest.join(LIST_SEPARATOR));
        let mut keys = terms::keys(["nulls_column"]);
        keys.extend(scope_terms(&line));
        lines.push(Rendered::plain(""));
        lines.push(Rendered {
            text: line,
            terms: keys,
        });
    }
    Ok(lines)
}

/// The profile sections, ranked as paging keeps them.
fn profile_sections(
    a: &Artifacts,
    options: &Options,
    connection_profile: &Value,
    adapter: Option<&str>,
) -> R<Vec<Section>> {
    let stats = a.statistics().filter(|s| s.truthy());
    let include_qualifiers = options.include_stats && stats.is_some();
    let mut out = vec![section(
        "header",
        profile_header(a, include_qualifiers, connection_profile, adapter)?,
    )];
    if options.include_annotations && a.connection_notes.is_some() {
        out.push(plain_section("connection_notes", connection_notes_text(a)));
    }
    out.push(plain_section("ddl", ddl_text(a)));
    if let Some(d) = a.description.as_deref().filter(|d| !d.is_empty()) {
        if options.include_description {
            out.push(plain_section(
                "description",
                format!("## Description\n\n{}", rstrip(d)),
            ));
        }
    }
    if options.include_annotations && a.annotations.iter().any(|(_, e)| annotation_has_content(e)) {
        out.push(plain_section("annotations", annotations_text(a)?));
    }
    if let (true, Some(statistics)) = (options.include_stats, stats) {
        if cv(statistics, "catalog_only") == Some(&Value::Bool(true)) {
            out.push(plain_section("columns", catalog_only_text(a)?));
        } else {
            let lost = unmeasured_text(statistics);
            if !lost.is_empty() {
                out.push(plain_section("unmeasured", lost));
            }
            let off = disabled_text(statistics);
            if !off.is_empty() {
                out.push(plain_section("disabled", off));
            }
            if cv(statistics, "physical_layout").is_some_and(Value::truthy) {
                out.push(plain_section(
                    "physical_layout",
                    physical_layout_text(statistics)?,
                ));
            }
            let profile = effective_profile(connection_profile, a.profile_override.as_ref());
            out.push(section("cardinality", cardinality_lines(a, &profile)?));
            if cv(statistics, "null_patterns").is_some_and(Value::truthy) {
                out.push(section("null_patterns", null_patterns_lines(statistics)?));
            }
        }
    }
    if options.include_relationships && a.relationships.as_ref().is_some_and(Value::truthy) {
        out.push(section("relationships", relationships_lines(a)?));
    }
    if options.include_stats && stats.is_some() {
        let parts = parts_lines(a)?;
        if !parts.is_empty() {
            out.push(section("parts", parts));
        }
    }
    Ok(out)
}

/// The query sections in ranked order: header, DDL, connection notes, values, Joins,
/// dictionary.
fn query_sections(a: &Artifacts, options: &Options, adapter: Option<&str>) -> R<Vec<Section>> {
    let dictionary = dictionary_text(a, options)?;
    let joined = if options.include_relationships {
        referencing_columns(a)?
    } else {
        Vec::new()
    };
    let header = query_header(a, adapter)?;
    let joins = if options.include_relationships {
        joins_lines(a)?
    } else {
        Vec::new()
    };
    let values = column_values_lines(a, &joined)?;
    let mut out = vec![section("header", header)];
    out.push(section("ddl", vec![Rendered::plain(ddl_text(a))]));
    if options.include_annotations && a.connection_notes.is_some() {
        out.push(section(
            "connection_notes",
            vec![Rendered::plain(connection_notes_text(a))],
        ));
    }
    if !values.is_empty() {
        out.push(section("values", values));
    }
    if !joins.is_empty() {
        out.push(section("joins", joins));
    }
    if !dictionary.is_empty() {
        out.push(section("dictionary", vec![Rendered::plain(dictionary)]));
    }
    Ok(out)
}

/// `ranked_sections`: one table's Markdown sections, none dropped, in paging order.
pub fn sections(a: &Artifacts, options: &Options, manifest: &Value) -> R<Vec<Section>> {
    let adapter = manifest
        .get("adapter")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let connection_profile = match manifest.get("profile") {
        Some(p @ Value::Map(_)) => p.clone(),
        _ => Value::Map(Vec::new()),
    };
    if options.query {
        query_sections(a, options, adapter)
    } else {
        profile_sections(a, options, &connection_profile, adapter)
    }
}
