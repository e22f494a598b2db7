//! The profile sections: annotations, the column catalog of a table read from the catalog
//! only, the `unmeasured` and `disabled` lists, physical layout, the Cardinality table with
//! each column's Notes, nulls shared across columns, and column parts.

use super::relationships::fk_targets;
use super::{disabled_label, join_strs, scanned_row_share};
use crate::query::context::facts::{attribute_error, disabled_of, ordered_columns};
use crate::query::context::load::Artifacts;
use crate::query::context::read::{
    as_f64, as_int, count_or_zero, cv, is_one, parent, parse_path, rows_scanned, scope_of, str_at,
    ScanScope, Step,
};
use crate::query::edges::iterate;
use crate::render::context::notes::{self, join_facts, Rendered};
use crate::render::context::spell::{self, escape_cell, percent, spell_number, spell_value, R};
use compat::py::py_eq;
use compat::py::strip;
use compat::value::Value;

const NULL_PATTERN_LIMIT: usize = 8;

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

pub(super) fn annotation_has_content(entry: &Value) -> bool {
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

pub(super) fn annotations_text(a: &Artifacts) -> R<String> {
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

pub(super) fn catalog_only_text(a: &Artifacts) -> R<String> {
    let mut lines = vec![
        "## Columns (not queried)".to_string(),
        String::new(),
        "| Column | Type | Classification |".into(),
        "|---|---|---|".into(),
    ];
    for (name, col) in profiled_columns(a)?.0 {
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

pub(super) fn unmeasured_text(statistics: &Value) -> String {
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

pub(super) fn disabled_text(statistics: &Value) -> String {
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

pub(super) fn physical_layout_text(statistics: &Value) -> R<String> {
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

/// The statistics' columns (none when the file has none), classification-ranked, with the
/// file's row count and scan scope.
type Profiled<'a> = (
    Vec<(String, &'a Value)>,
    Option<&'a Value>,
    Option<ScanScope>,
);

fn profiled_columns(a: &Artifacts) -> R<Profiled<'_>> {
    static EMPTY: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| Value::map(Vec::new()));
    let statistics = a.statistics().unwrap_or(&*EMPTY);
    let columns = statistics
        .get("columns")
        .filter(|c| c.truthy())
        .unwrap_or(&EMPTY);
    Ok((
        ordered_columns(columns)?,
        cv(statistics, "row_count"),
        scope_of(Some(statistics)),
    ))
}

pub(super) fn cardinality_lines(a: &Artifacts, profile: &Value) -> R<Vec<Rendered>> {
    // The edges are read first: their failure is the one the reference meets first.
    let fk = fk_targets(a)?;
    let (columns, row_count, scope) = profiled_columns(a)?;
    let mut lines = vec![
        Rendered::plain("## Cardinality & key columns"),
        Rendered::plain(""),
        Rendered::plain("| Column | Cardinality | Notes |"),
        Rendered::plain("|---|---|---|"),
    ];
    for (name, col) in columns {
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

pub(super) fn null_patterns_lines(statistics: &Value) -> R<Vec<Rendered>> {
    let empty = Value::map(Vec::new());
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
        counts.push(count_or_zero(p.get("count").filter(|c| c.truthy()))?);
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
    let every = shown.len() == patterns.len() && is_one(block.get("coverage"));
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

pub(super) fn parts_lines(a: &Artifacts) -> R<Vec<Rendered>> {
    let (columns, row_count, scope) = profiled_columns(a)?;
    let mut rows = Vec::new();
    let no_profile = Value::map(Vec::new());
    for (name, col) in columns {
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
