//! format json and yaml: the structured object, its identity head and its sections in the
//! reference's key order, cut into paging units (a statistics column, an annotation, a
//! values block or a dictionary entry each its own unit), and one page rendered back into
//! a nested object: a JSON dict, or `yaml.safe_dump` text with a `# next_cursor:` line.

use super::markdown::{
    null_shares, referencing_null_share, unprofiled_message, FREQUENT_STATEMENT,
};
use super::spell::{collapse, coverage_statement, R};
use super::Options;
use crate::query::context::facts::{
    codes_undocumented, edges, listed_values, meanings_documented, ordered_columns,
    referencing_columns,
};
use crate::query::context::load::Artifacts;
use crate::query::context::read::{cv, scope_of, str_at, value_key, value_notes};
use crate::query::edges::edge_detection;
use crate::query::value::set;
use crate::render::paging::{Unit, UnitKey};
use compat::value::Value;

fn s(text: &str) -> Value {
    Value::Str(text.to_string())
}

fn map() -> Value {
    Value::map(Vec::new())
}

/// The identity fields: `table, type, columns_count, row_count?, _unprofiled?, _missing?,
/// _corrupted?, meanings_documented?`, then a scoped file's `scope` and `row_count`.
pub fn header(a: &Artifacts, options: &Options) -> Value {
    let mut h = map();
    set(&mut h, "table", s(&a.fqn));
    set(&mut h, "type", a.table_type.clone());
    set(&mut h, "columns_count", Value::Int(a.column_count));
    if let Some(rc) = &a.row_count {
        set(&mut h, "row_count", rc.clone());
    }
    if a.last_run_failed {
        set(&mut h, "_unprofiled", s(&unprofiled_message(&a.fqn)));
    }
    if !a.missing.is_empty() {
        set(
            &mut h,
            "_missing",
            Value::seq(a.missing.iter().map(|m| s(m)).collect()),
        );
    }
    if !a.corrupted.is_empty() {
        set(
            &mut h,
            "_corrupted",
            Value::map(a.corrupted.iter().map(|(k, v)| (s(k), s(v))).collect()),
        );
    }
    if !meanings_documented(a, options.query) {
        set(&mut h, "meanings_documented", Value::Bool(false));
    }
    if let Some(scope) = scope_of(a.statistics()) {
        set(&mut h, "scope", scope.block.clone());
        if let Some(rc) = scope.row_count {
            set(&mut h, "row_count", Value::Int(rc));
        }
    }
    h
}

/// `_stripped_statistics`: every column without its `sketch`.
fn stripped_statistics(statistics: &Value) -> Value {
    let Some(Value::Map(columns)) = statistics.get("columns") else {
        return statistics.clone();
    };
    let stripped: Vec<(Value, Value)> = columns
        .iter()
        .map(|(name, col)| {
            let col = match col {
                Value::Map(pairs) => Value::map(
                    pairs
                        .iter()
                        .filter(|(k, _)| k.as_str() != Some("sketch"))
                        .cloned()
                        .collect(),
                ),
                other => other.clone(),
            };
            (name.clone(), col)
        })
        .collect();
    let mut out = statistics.clone();
    set(&mut out, "columns", Value::map(stripped));
    out
}

fn annotations_value(a: &Artifacts) -> Value {
    Value::map(
        a.annotations
            .iter()
            .map(|(k, v)| (s(k), v.clone()))
            .collect(),
    )
}

fn edge_fields(entry: &Value, keys: &[&str]) -> Value {
    let mut edge = map();
    for k in keys {
        if let Some(v) = entry.get(k) {
            set(&mut edge, k, v.clone());
        }
    }
    set(&mut edge, "detection", edge_detection(entry));
    edge
}

/// `_structured_joins`: each edge's fields and detection; a lone referencing column's nulls.
fn joins(a: &Artifacts) -> R<Value> {
    let (refers_to, referenced_by) = edges(a)?;
    let shares = null_shares(a)?;
    let mut out_edges = Vec::new();
    for e in &refers_to {
        let mut edge = edge_fields(
            e,
            &[
                "column",
                "path",
                "target_table",
                "target_column",
                "target_path",
                "note",
            ],
        );
        if let Some((_, rate)) = referencing_null_share(a, e, &shares)? {
            set(&mut edge, "null_rate", rate);
        }
        out_edges.push(edge);
    }
    let incoming: Vec<Value> = referenced_by
        .iter()
        .map(|e| {
            edge_fields(
                e,
                &[
                    "column",
                    "path",
                    "referencer_table",
                    "referencer_column",
                    "referencer_path",
                    "note",
                ],
            )
        })
        .collect();
    let mut j = map();
    set(&mut j, "refers_to", Value::seq(out_edges));
    set(&mut j, "referenced_by", Value::seq(incoming));
    Ok(j)
}

fn structured_entries(entries: &[Value], annotation: Option<&Value>) -> Value {
    let notes = value_notes(annotation);
    Value::seq(
        entries
            .iter()
            .filter(|e| matches!(e, Value::Map(_)))
            .map(|e| {
                let value = e.get("value").cloned().unwrap_or(Value::Null);
                let mut item = map();
                set(&mut item, "value", value.clone());
                set(
                    &mut item,
                    "count",
                    e.get("count").cloned().unwrap_or(Value::Null),
                );
                if let Some(note) = notes.get(&value_key(&value)).filter(|n| !n.is_empty()) {
                    set(&mut item, "note", s(note));
                }
                if let Some(of) = e.get("spelling_of").filter(|v| **v != Value::Null) {
                    set(&mut item, "spelling_of", of.clone());
                }
                item
            })
            .collect(),
    )
}

/// `_structured_values`: per column, the entries query shows and what they cover.
fn values(a: &Artifacts) -> R<Vec<(String, Value)>> {
    let Some(columns) = a
        .statistics()
        .and_then(|st| st.get("columns"))
        .filter(|c| matches!(c, Value::Map(_)))
    else {
        return Ok(Vec::new());
    };
    let scope = scope_of(a.statistics());
    let row_count = a.statistics().and_then(|st| cv(st, "row_count"));
    let shares = null_shares(a)?;
    let mut out = Vec::new();
    for (name, col) in ordered_columns(columns)? {
        let Some(listed) = listed_values(col, scope.as_ref(), row_count) else {
            continue;
        };
        let mut block = map();
        match listed.coverage {
            Some(coverage) => {
                set(&mut block, "coverage", Value::Float(coverage));
                set(
                    &mut block,
                    "coverage_statement",
                    s(coverage_statement(coverage, scope.as_ref())),
                );
                if coverage != 1.0 {
                    set(&mut block, "shown_coverage", Value::Float(listed.share));
                }
            }
            None => {
                set(&mut block, "coverage_statement", s(FREQUENT_STATEMENT));
                set(&mut block, "shown_coverage", Value::Float(listed.share));
            }
        }
        let shown = listed.entries;
        match str_at(col, "redacted").filter(|r| !r.is_empty()) {
            Some(r) => {
                set(&mut block, "redacted", s(r));
                set(
                    &mut block,
                    "counts",
                    Value::seq(
                        shown
                            .iter()
                            .map(|e| e.get("count").cloned().unwrap_or(Value::Null))
                            .collect(),
                    ),
                );
            }
            None => set(
                &mut block,
                "entries",
                structured_entries(&shown, a.annotation(&name)),
            ),
        }
        if let Some((_, _, rate)) = shares.iter().find(|(n, _, _)| *n == name) {
            set(&mut block, "null_rate", rate.clone());
        }
        if let Some(coverage) = listed.coverage {
            if codes_undocumented(col, coverage, a.annotation(&name), a.inherited_of(&name)) {
                set(&mut block, "meanings_documented", Value::Bool(false));
            }
        }
        out.push((name, block));
    }
    Ok(out)
}

/// The sections as `(name, value)` in the order paging ranks them.
pub fn candidates(a: &Artifacts, options: &Options) -> R<Vec<(&'static str, Value)>> {
    let mut out: Vec<(&'static str, Value)> = vec![("ddl", s(&a.ddl))];
    let notes = a
        .connection_notes
        .as_ref()
        .filter(|_| options.include_annotations);
    if options.query {
        if let Some(n) = notes {
            out.push(("connection_notes", s(n)));
        }
        let values = values(a)?;
        if !values.is_empty() {
            out.push((
                "values",
                Value::map(values.iter().map(|(k, v)| (s(k), v.clone())).collect()),
            ));
        }
        if options.include_relationships && a.relationships.is_some() {
            out.push(("joins", joins(a)?));
        }
        let joined = if options.include_relationships {
            referencing_columns(a)?
        } else {
            Vec::new()
        };
        let nulls: Vec<(Value, Value)> = null_shares(a)?
            .into_iter()
            .filter(|(n, _, _)| !values.iter().any(|(v, _)| v == n) && !joined.contains(n))
            .map(|(n, _, rate)| (s(&n), rate))
            .collect();
        if !nulls.is_empty() {
            out.push(("nulls", Value::map(nulls)));
        }
        if options.include_annotations {
            let dictionary: Vec<(Value, Value)> = a
                .annotations
                .iter()
                .filter_map(|(name, entry)| {
                    let note = entry.get("note").and_then(Value::as_str)?;
                    (!compat::py::strip(note).is_empty()).then(|| (s(name), s(&collapse(note))))
                })
                .collect();
            if !dictionary.is_empty() {
                out.push(("dictionary", Value::map(dictionary)));
            }
            if !a.inherited.is_empty() {
                out.push((
                    "inherited_notes",
                    Value::map(
                        a.inherited
                            .iter()
                            .map(|(k, v)| (s(k), Value::seq(v.clone())))
                            .collect(),
                    ),
                ));
            }
        }
        if options.include_description {
            if let Some(d) = &a.description {
                out.push(("description", s(d)));
            }
        }
        return Ok(out);
    }
    if let Some(n) = notes {
        out.push(("connection_notes", s(n)));
    }
    if options.include_description {
        if let Some(d) = &a.description {
            out.push(("description", s(d)));
        }
    }
    if options.include_annotations && !a.annotations.is_empty() {
        out.push(("annotations", annotations_value(a)));
    }
    if options.include_annotations {
        if let Some(g) = a.annotated_grain.as_ref().filter(|g| g.truthy()) {
            out.push(("grain_annotations", g.clone()));
        }
    }
    if options.include_stats {
        if let Some(st) = a.statistics() {
            out.push(("statistics", stripped_statistics(st)));
        }
    }
    if options.include_relationships {
        if let Some(rel) = &a.relationships {
            out.push(("relationships", rel.clone()));
        }
        if let Some(ra) = a
            .relationship_annotations
            .as_ref()
            .filter(|r| !r.is_empty())
        {
            out.push(("relationship_annotations", Value::seq(ra.clone())));
        }
    }
    Ok(out)
}

fn path_key(parts: &[&str]) -> UnitKey {
    UnitKey::Item(Value::seq(parts.iter().map(|p| s(p)).collect()))
}

/// `_context_units`: the identity head keys, then the sections, statistics columns and the
/// per-column maps split one entry per unit.
pub fn units(head: &Value, candidates: Vec<(&'static str, Value)>) -> Vec<(UnitKey, Value)> {
    let mut out: Vec<(UnitKey, Value)> = head
        .as_map()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (UnitKey::Head(compat::py::str_of(k)), v.clone()))
        .collect();
    for (name, value) in candidates {
        match (name, &value) {
            ("statistics", Value::Map(pairs)) if matches!(value.get("columns"), Some(Value::Map(c)) if !c.is_empty()) =>
            {
                let rest: Vec<(Value, Value)> = pairs
                    .iter()
                    .filter(|(k, _)| k.as_str() != Some("columns"))
                    .cloned()
                    .collect();
                out.push((path_key(&[name]), Value::map(rest)));
                if let Some(Value::Map(columns)) = value.get("columns") {
                    for (col, v) in columns.iter() {
                        let col = compat::py::str_of(col);
                        out.push((path_key(&[name, "columns", &col]), v.clone()));
                    }
                }
            }
            ("annotations" | "values" | "dictionary", Value::Map(pairs)) if !pairs.is_empty() => {
                for (col, v) in pairs.iter() {
                    let col = compat::py::str_of(col);
                    out.push((path_key(&[name, &col]), v.clone()));
                }
            }
            _ => out.push((path_key(&[name]), value)),
        }
    }
    out
}

/// `_nested`: a page's units back into one object, on top of its head keys.
pub fn nested(run: &[Unit]) -> Value {
    let mut reply = map();
    let mut rest = Vec::new();
    for u in run {
        match u.key() {
            UnitKey::Head(name) => set(&mut reply, name, u.value()),
            UnitKey::Item(_) => rest.push(u),
        }
    }
    for u in rest {
        let UnitKey::Item(Value::Seq(path)) = u.key() else {
            continue;
        };
        let path: Vec<String> = path.iter().map(compat::py::str_of).collect();
        let value = u.value();
        let mut target = &mut reply;
        for key in &path[..path.len() - 1] {
            if target.get(key).is_none() {
                set(target, key, map());
            }
            target = get_mut(target, key);
        }
        let last = &path[path.len() - 1];
        match (&value, target.get(last)) {
            (Value::Map(pairs), Some(Value::Map(_))) => {
                let existing = get_mut(target, last);
                for (k, v) in pairs.iter() {
                    if let Value::Map(e) = existing {
                        match std::sync::Arc::make_mut(e).iter_mut().find(|(x, _)| x == k) {
                            Some(slot) => slot.1 = v.clone(),
                            None => std::sync::Arc::make_mut(e).push((k.clone(), v.clone())),
                        }
                    }
                }
            }
            // `dict(value)`: a unit's mapping is a copy, so it is never an alias of another.
            (Value::Map(pairs), _) => set(target, last, Value::map(pairs.to_vec())),
            _ => set(target, last, value),
        }
    }
    reply
}

fn get_mut<'a>(map: &'a mut Value, key: &str) -> &'a mut Value {
    match map {
        Value::Map(pairs) => {
            let pairs = std::sync::Arc::make_mut(pairs);
            let i = pairs
                .iter()
                .position(|(k, _)| k.as_str() == Some(key))
                .unwrap_or(0);
            &mut pairs[i].1
        }
        other => other,
    }
}
