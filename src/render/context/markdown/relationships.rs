//! Edges as both purposes print them: the profile's Relationships section (with what was
//! measured about each edge) and the query purpose's Joins list.

use super::values::{null_shares, referencing_null_share};
use crate::query::context::facts::{columns_of, edges, ranked};
use crate::query::context::load::Artifacts;
use crate::query::context::read::{as_int, cv};
use crate::query::edges::{edge_detection, iterate};
use crate::render::context::notes::{join_facts, Rendered};
use crate::render::context::spell::{self, collapse, percent, spell_number, R};
use crate::render::context::terms::{self, is_term, Keys};
use compat::py::py_eq;
use compat::value::Value;
use std::collections::HashMap;

const NOT_A_JOIN_TARGET: &str = "not a join target, no declared-unique column";

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

/// `fk_target_map`: every outgoing edge per source column, surest first.
pub(super) fn fk_targets(a: &Artifacts) -> R<HashMap<String, Vec<String>>> {
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

pub(super) fn relationships_lines(a: &Artifacts) -> R<Vec<Rendered>> {
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

/// A Joins line's head: `- <this end> <arrow> <other end> (<detection>)`.
fn join_head(entry: &Value, arrow: &str, other: String) -> Rendered {
    Rendered {
        text: format!(
            "- {} {arrow} {other} ({})",
            endpoint(entry, "column", "path"),
            detection_text(entry)
        ),
        terms: detection_terms(entry),
    }
}

pub(super) fn joins_lines(a: &Artifacts) -> R<Vec<Rendered>> {
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
        let mut facts = vec![join_head(entry, "->", target(entry))];
        if let Some((share, _)) = referencing_null_share(a, entry, &shares)? {
            facts.push(nulls_fact(&share));
        }
        facts.extend(note_fact(entry));
        lines.push(join_facts(facts, "; "));
    }
    for entry in &referenced_by {
        let mut facts = vec![join_head(entry, "<-", referencer(entry))];
        facts.extend(note_fact(entry));
        lines.push(join_facts(facts, "; "));
    }
    Ok(lines)
}
