//! `ProjectLoader.ValidateChecks`: every sidecar check's type and options, PZ0113.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::PzValue;
use crate::query::pz_project::compile::canonical::check_identity;
use crate::query::pz_project::model::{file_error, Check};
use compat::dotnet::ordinal_cmp;

use super::options::parse_duration_ms;

pub fn validate_checks(
    checks: &[Check],
    pipeline: &str,
    rel: &str,
    errors: &mut Vec<PzError>,
    column_shape_errors: &[usize],
) {
    let mut custom_names: Vec<String> = Vec::new();
    let mut identities: Vec<String> = Vec::new();
    let mut add = |message: String, hint: String| {
        errors.push(file_error(
            PzCode::InvalidCheck,
            format!("pipeline '{pipeline}': {message}."),
            rel,
            hint,
        ))
    };
    for (i, check) in checks.iter().enumerate() {
        let shape_error = column_shape_errors.contains(&i);
        if check.check_type != "custom_sql" && !shape_error {
            let identity = check_identity(check);
            if identities.contains(&identity) {
                let target = if check.columns.is_empty() {
                    String::new()
                } else {
                    format!(" on [{}]", check.columns.join(", "))
                };
                add(
                    format!("duplicate {} check{target}", check.check_type),
                    "remove the repeated entry \u{2014} it is identical to an earlier check on this pipeline".into(),
                );
                continue;
            }
            identities.push(identity);
        }
        match check.check_type.as_str() {
            t @ ("not_null" | "unique") => {
                if check.columns.is_empty() {
                    add(
                        format!("{t} check declares no columns"),
                        format!("list at least one column, e.g. `{t}: [id]`"),
                    );
                }
                refuse_unknown(check, &[], &mut add);
            }
            "row_count" => row_count(check, &mut add),
            "freshness" => freshness(check, shape_error, &mut add),
            "accepted_values" => accepted_values(check, shape_error, &mut add),
            "custom_sql" => custom_sql(check, &mut custom_names, &mut add),
            other => add(
                format!("unknown check type '{other}'"),
                "accepted: not_null | unique | row_count | freshness | accepted_values | custom_sql".into(),
            ),
        }
    }
}

/// `row_count`: a `min`, a `max` or both, integers, in order.
fn row_count(check: &Check, add: &mut impl FnMut(String, String)) {
    let option = |key: &str| check.options.get(key);
    let (min, max) = (option("min"), option("max"));
    if min.is_none() && max.is_none() {
        add(
            "row_count check needs at least one of min/max".into(),
            "e.g. `row_count: { min: 1 }`".into(),
        );
    }
    if let Some(v) = min.filter(|v| !matches!(v, PzValue::Long(_))) {
        add(
            format!(
                "row_count 'min' must be an integer, got '{}'",
                v.interpolated()
            ),
            "e.g. `min: 1`".into(),
        );
    }
    if let Some(v) = max.filter(|v| !matches!(v, PzValue::Long(_))) {
        add(
            format!(
                "row_count 'max' must be an integer, got '{}'",
                v.interpolated()
            ),
            "e.g. `max: 1000`".into(),
        );
    }
    if let (Some(PzValue::Long(lo)), Some(PzValue::Long(hi))) = (min, max) {
        if lo > hi {
            add(
                format!("row_count min ({lo}) exceeds max ({hi})"),
                "make min <= max".into(),
            );
        }
    }
    refuse_unknown(check, &["min", "max"], add);
}

/// `freshness`: one column and a positive `max_age`.
fn freshness(check: &Check, shape_error: bool, add: &mut impl FnMut(String, String)) {
    let option = |key: &str| check.options.get(key);
    if check.columns.len() != 1 && !shape_error {
        add(
            "freshness check requires exactly one 'column'".into(),
            "e.g. `freshness: { column: updated_at, max_age: 24h }`".into(),
        );
    }
    let raw = option("max_age").and_then(PzValue::to_dotnet_string);
    if raw
        .as_deref()
        .and_then(parse_duration_ms)
        .is_none_or(|ms| ms <= 0)
    {
        add(
            format!(
                "freshness 'max_age' must be a positive duration, got '{}'",
                raw.as_deref().unwrap_or("(absent)")
            ),
            "use `<integer><unit>` with unit ms|s|m|h|d, e.g. `max_age: 24h`".into(),
        );
    }
    refuse_unknown(check, &["max_age"], add);
}

/// `accepted_values`: one column and a non-empty list of scalars.
fn accepted_values(check: &Check, shape_error: bool, add: &mut impl FnMut(String, String)) {
    let option = |key: &str| check.options.get(key);
    if check.columns.len() != 1 && !shape_error {
        add(
            "accepted_values check requires exactly one 'column'".into(),
            "e.g. `accepted_values: { column: status, values: [a, b] }`".into(),
        );
    }
    match option("values") {
        Some(PzValue::List(values)) if !values.is_empty() => {
            for v in values {
                if !matches!(
                    v,
                    PzValue::Str(_) | PzValue::Long(_) | PzValue::Double(_) | PzValue::Bool(_)
                ) {
                    let shown = v.to_dotnet_string().unwrap_or_else(|| "null".into());
                    add(
                        format!("accepted_values 'values' entries must be scalars, got '{shown}'"),
                        "use strings, integers, floats, or booleans".into(),
                    );
                }
            }
        }
        _ => add(
            "accepted_values 'values' must be a non-empty list".into(),
            "e.g. `values: [pending, shipped]`".into(),
        ),
    }
    refuse_unknown(check, &["values"], add);
}

/// `custom_sql`: a distinct well-formed name, non-empty SQL, no columns.
fn custom_sql(check: &Check, custom_names: &mut Vec<String>, add: &mut impl FnMut(String, String)) {
    let option = |key: &str| check.options.get(key);
    let name = option("name").and_then(PzValue::as_str);
    match name {
            Some(n) if valid_check_name(n) => {
                if custom_names.iter().any(|c| c == n) {
                    add(
                        format!("duplicate custom_sql name '{n}'"),
                        "each custom_sql check on a pipeline needs a distinct name".into(),
                    );
                } else {
                    custom_names.push(n.to_string());
                }
            }
            _ => add(
                format!(
                    "custom_sql requires 'name' matching [a-z][a-z0-9_]*, got '{}'",
                    name.unwrap_or("(absent)")
                ),
                "e.g. `name: no_negative_totals` \u{2014} it becomes the node name check_<pipeline>_<name>".into(),
            ),
        }
    if option("sql")
        .and_then(PzValue::as_str)
        .is_none_or(str::is_empty)
    {
        add(
            "custom_sql requires non-empty 'sql'".into(),
            "a query returning VIOLATING rows, e.g. `sql: select * from staging.p where total < 0`"
                .into(),
        );
    }
    if !check.columns.is_empty() {
        add(
            "custom_sql does not take columns".into(),
            "put the column logic in the sql itself".into(),
        );
    }
    refuse_unknown(check, &["name", "sql"], add);
}

fn refuse_unknown(check: &Check, known: &[&str], add: &mut impl FnMut(String, String)) {
    let mut unknown: Vec<&str> = check
        .options
        .keys()
        .filter(|k| !known.contains(k))
        .collect();
    unknown.sort_by(|a, b| ordinal_cmp(a, b));
    let mut sorted_known = known.to_vec();
    sorted_known.sort_by(|a, b| ordinal_cmp(a, b));
    for key in unknown {
        let hint = if known.is_empty() {
            format!("{} takes no options", check.check_type)
        } else {
            format!("accepted options: {}", sorted_known.join(", "))
        };
        add(
            format!("{} check has unknown option '{key}'", check.check_type),
            hint,
        );
    }
}

fn valid_check_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
