//! The query purpose's value table and data dictionary: each column's listed values with
//! counts, coverage and null share, the remaining null shares, and the notes people wrote.

use super::FREQUENT_STATEMENT;
use crate::error::QueryError;
use crate::query::context::facts::{
    codes_undocumented, columns_of, listed_values, ordered_columns, row_count_of, scope,
    single_column,
};
use crate::query::context::load::Artifacts;
use crate::query::context::read::{
    as_int, compute_null_rate, cv, grouped_values, member, rows_scanned, scope_of, str_at,
    value_key, value_notes,
};
use crate::query::edges::iterate;
use crate::render::context::notes::{null_share, Rendered, LIST_SEPARATOR};
use crate::render::context::spell::{
    self, collapse, coverage_statement, escape_cell, percent, qualify, spell_literal, R,
};
use crate::render::context::terms::{self, is_term, Keys};
use crate::render::context::Options;
use compat::py::{rstrip, strip};
use compat::value::Value;

const MEANINGS_UNDOCUMENTED: &str = "meanings: not documented here";

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

pub(super) fn dictionary_text(a: &Artifacts, options: &Options) -> R<String> {
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

pub(super) fn column_values_lines(a: &Artifacts, joined: &[String]) -> R<Vec<Rendered>> {
    let Some(columns) = columns_of(a) else {
        return Ok(Vec::new());
    };
    let scope = scope(a);
    let row_count = row_count_of(a);
    let mut shares = null_shares(a)?;
    let mut rows = Vec::new();
    for (name, col) in ordered_columns(columns)? {
        let Some(listed) = listed_values(col, scope.as_ref(), row_count) else {
            continue;
        };
        let (statement, cue) = match listed.coverage {
            Some(coverage) => (
                coverage_statement(coverage, scope.as_ref()),
                codes_undocumented(col, coverage, a.annotation(&name), a.inherited_of(&name)),
            ),
            None => (FREQUENT_STATEMENT, false),
        };
        let (shown, share) = (listed.entries, listed.share);
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
        if listed.coverage.is_none() {
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
