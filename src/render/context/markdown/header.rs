//! The identity head of both purposes: the table line, what is missing or unreadable,
//! whether meanings are documented, and (profile) the qualifiers: scope, external, merging,
//! grain, timeline, switched-off measurements, dependencies, profile overrides.

use super::{disabled_label, join_strs, scanned_row_share, unprofiled_message};
use crate::query::context::facts::{disabled_of, effective_profile, meanings_documented};
use crate::query::context::load::Artifacts;
use crate::query::context::read::{cv, scope_of};
use crate::query::edges::iterate;
use crate::render::context::notes::Rendered;
use crate::render::context::spell::{scope_line, spell_literal, spell_number, R};
use crate::render::context::terms::{self, is_term};
use compat::py::py_eq;
use compat::py::strip;
use compat::value::Value;

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
                .unwrap_or(Value::seq(Vec::new()));
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
            keys.push(Value::map(entry));
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

pub(super) fn profile_header(
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

pub(super) fn query_header(a: &Artifacts, adapter: Option<&str>) -> R<Vec<Rendered>> {
    let mut lines = identity_lines(a, adapter, true)?;
    let empty = Value::map(Vec::new());
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
