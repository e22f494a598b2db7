//! What an absent field of a print means (format spec §7.2, §7.3), read the same way by
//! every tool: dbprint's absence model (`spec/absence.py`) with its data tables (the §2.2.3
//! forbidden-field matrix, the redaction roles). A reading has six states, so an omitted
//! verdict never reads as a measurement nobody took.
//!
//! Shared by every tool that reads a column block (search_columns, resolve_value,
//! get_table_context). One gap: the `sketches` switch (`disabled: [sketches]`) needs
//! `sketch_kind` (spec/sketch.py, built on `classification.base_type`), which is not ported
//! here; with `sketches` in `disabled`, a `sketch` field reads as if nothing were switched off.

use std::borrow::Cow;

use super::is_number;
use compat::value::Value;

/// Why a field reads as it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absence {
    Present,
    Omitted,
    NotApplicable,
    Withheld,
    Unmeasured,
    Disabled,
}

/// One field read against format spec §7: `value` is the field when present, the value the
/// spec implies when omitted, and `Null` otherwise; `cause` names the cause in a few words.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldReading {
    pub state: Absence,
    pub value: Value,
    pub cause: Cow<'static, str>,
    pub spec_ref: &'static str,
}

impl FieldReading {
    fn new(state: Absence, value: Value, cause: &'static str, spec_ref: &'static str) -> Self {
        FieldReading {
            state,
            value,
            cause: Cow::Borrowed(cause),
            spec_ref,
        }
    }

    /// Whether the reading carries a value a reader may act on: measured or implied.
    pub fn known(&self) -> bool {
        matches!(self.state, Absence::Present | Absence::Omitted)
    }
}

#[rustfmt::skip]
const COLUMN_FIELDS: &[&str] = &[
    "cardinality", "cardinality_ratio", "cardinality_method", "values", "values_coverage",
    "values_coverage_method", "distribution", "frequencies", "range", "range.span_days",
    "percentiles", "mean", "sum", "zero_count", "negative_count", "non_finite_count",
    "empty_count", "quantized_count", "length", "normalized_cardinality", "freshness",
    "unmeasured", "unrepresentable", "rows_scanned", "physical_name", "collation",
    "physical_layout_key", "derived_from", "populated", "inferred.looks_like",
    "inferred.sampled", "inferred.matched", "inferred.looks_like_candidate",
    "inferred.looks_like_candidate_share", "inferred.sensitivity", "inferred.epoch_unit",
    "inferred.candidate_key", "inferred.candidate_key_exception", "inferred.fk_candidate",
    "redacted", "sketch", "geometry", "extent", "dimension", "norm", "parts", "parts_found",
    "size", "occurrences", "types",
];

#[rustfmt::skip]
const TABLE_BLOCKS: &[&str] = &[
    "catalog_only", "external", "row_count", "row_count_method", "scope", "null_patterns",
    "null_patterns.coverage_method", "physical_layout", "merging", "grain", "grain.search",
    "dependencies", "unmeasured", "disabled", "timeline", "depends_on",
];

/// Every property of the statistics schema's `Column` (spec/redaction.py `FIELD_ROLES`).
#[rustfmt::skip]
const FIELD_ROLE_NAMES: &[&str] = &[
    "null_count", "null_rate", "cardinality", "cardinality_ratio", "cardinality_method",
    "values_coverage", "values_coverage_method", "distribution", "frequencies", "populated",
    "values", "range", "percentiles", "mean", "sum", "length", "zero_count",
    "negative_count", "non_finite_count", "empty_count", "quantized_count",
    "normalized_cardinality", "unrepresentable", "sketch", "extent", "dimension", "norm",
    "geometry", "parts_found", "size", "types", "occurrences", "parts", "freshness",
    "inferred", "sql_type", "nullable", "classification", "physical_name", "collation",
    "physical_layout_key", "derived_from", "rows_scanned", "unmeasured", "redacted",
];

/// The fields whose redaction role is `withheld`: a redacted column never carries them.
#[rustfmt::skip]
pub const WITHHELD_UNDER_REDACTION: &[&str] = &[
    "mean", "sum", "length", "zero_count", "negative_count", "non_finite_count",
    "empty_count", "quantized_count", "normalized_cardinality", "unrepresentable", "sketch",
    "extent", "dimension", "norm",
];

pub const SAMPLED_CLASSIFICATIONS: &[&str] =
    &["categorical", "text", "foreign_key_candidate", "binary"];

/// The measurements a `statistics.yaml` may name in `disabled` (spec/profile.py), sorted.
pub const DISABLEABLE: &[&str] = &[
    "looks_like",
    "null_patterns",
    "parts",
    "relationships.infer",
    "sketches",
    "timeline",
];

const LOOKS_LIKE_FIELDS: &[&str] = &[
    "inferred.looks_like",
    "inferred.sampled",
    "inferred.matched",
    "inferred.looks_like_candidate",
    "inferred.looks_like_candidate_share",
];

#[rustfmt::skip]
const QUERIED_BLOCKS: &[&str] = &[
    "row_count", "row_count_method", "null_patterns", "null_patterns.coverage_method",
    "physical_layout", "grain.search", "dependencies", "timeline",
];

/// Format spec §2.2.3's matrix: the top-level fields each classification forbids.
/// (Spec data, written a row of the matrix per arm rather than a name per line.)
#[rustfmt::skip]
pub fn forbidden_fields(classification: &str) -> &'static [&'static str] {
    match classification {
        "boolean" => &[
            "dimension", "distribution", "empty_count", "extent", "frequencies", "freshness",
            "geometry", "length", "mean", "negative_count", "non_finite_count", "norm",
            "normalized_cardinality", "occurrences", "parts", "parts_found", "percentiles",
            "quantized_count", "range", "size", "sum", "types", "unrepresentable", "zero_count"
        ],
        "json" => &[
            "dimension", "distribution", "empty_count", "extent", "frequencies", "freshness",
            "geometry", "length", "mean", "negative_count", "non_finite_count", "norm",
            "normalized_cardinality", "occurrences", "percentiles", "quantized_count", "range",
            "redacted", "sketch", "sum", "unrepresentable", "values", "values_coverage",
            "values_coverage_method", "zero_count"
        ],
        "composite" => &[
            "dimension", "distribution", "extent", "frequencies", "freshness", "geometry",
            "length", "mean", "negative_count", "non_finite_count", "normalized_cardinality",
            "occurrences", "percentiles", "quantized_count", "range", "redacted", "sketch",
            "sum", "types", "unrepresentable", "values", "values_coverage",
            "values_coverage_method"
        ],
        "spatial" => &[
            "cardinality", "cardinality_method", "cardinality_ratio", "dimension",
            "distribution", "empty_count", "frequencies", "freshness", "length", "mean",
            "negative_count", "non_finite_count", "norm", "normalized_cardinality",
            "occurrences", "parts", "parts_found", "percentiles", "quantized_count", "range",
            "size", "sketch", "sum", "types", "unrepresentable", "values", "values_coverage",
            "values_coverage_method", "zero_count"
        ],
        "vector" => &[
            "cardinality", "cardinality_method", "cardinality_ratio", "distribution",
            "empty_count", "extent", "frequencies", "freshness", "geometry", "length", "mean",
            "negative_count", "non_finite_count", "normalized_cardinality", "occurrences",
            "parts", "parts_found", "percentiles", "quantized_count", "range", "redacted",
            "size", "sketch", "sum", "types", "unrepresentable", "values", "values_coverage",
            "values_coverage_method"
        ],
        "foreign_key_candidate" | "categorical" => &[
            "dimension", "empty_count", "extent", "frequencies", "freshness", "geometry",
            "mean", "negative_count", "non_finite_count", "norm", "occurrences", "parts",
            "parts_found", "percentiles", "quantized_count", "range", "size", "sum", "types",
            "unrepresentable", "zero_count"
        ],
        "temporal" => &[
            "dimension", "empty_count", "extent", "geometry", "length", "mean",
            "negative_count", "non_finite_count", "norm", "normalized_cardinality",
            "occurrences", "parts", "parts_found", "size", "sum", "types", "values_coverage",
            "values_coverage_method", "zero_count"
        ],
        "numeric" => &[
            "dimension", "empty_count", "extent", "freshness", "geometry", "length", "norm",
            "normalized_cardinality", "occurrences", "parts", "parts_found", "size", "types",
            "unrepresentable", "values_coverage", "values_coverage_method"
        ],
        "binary" => &[
            "dimension", "distribution", "extent", "frequencies", "freshness", "geometry",
            "mean", "negative_count", "non_finite_count", "norm", "normalized_cardinality",
            "occurrences", "parts", "parts_found", "percentiles", "quantized_count", "range",
            "size", "sum", "types", "unrepresentable", "values", "values_coverage",
            "values_coverage_method", "zero_count"
        ],
        "text" => &[
            "dimension", "extent", "frequencies", "freshness", "geometry", "mean",
            "negative_count", "non_finite_count", "norm", "occurrences", "parts", "parts_found",
            "percentiles", "quantized_count", "range", "size", "sum", "types",
            "unrepresentable", "zero_count"
        ],
        "unsupported" => &[
            "cardinality", "cardinality_method", "cardinality_ratio", "dimension",
            "distribution", "empty_count", "extent", "frequencies", "freshness", "geometry",
            "inferred", "length", "mean", "negative_count", "non_finite_count", "norm",
            "normalized_cardinality", "occurrences", "parts", "parts_found", "percentiles",
            "quantized_count", "range", "redacted", "size", "sketch", "sum", "types",
            "unrepresentable", "values", "values_coverage", "values_coverage_method",
            "zero_count"
        ],
        _ => &[],
    }
}

/// The §2.2.3 matrix's dotted rows, which the top-level matrix does not carry.
fn forbidden_nested(classification: &str, head: &str) -> bool {
    let looks_like = LOOKS_LIKE_FIELDS.contains(&head);
    let key = matches!(
        head,
        "inferred.candidate_key" | "inferred.candidate_key_exception"
    );
    let epoch = head == "inferred.epoch_unit";
    let fk = head == "inferred.fk_candidate";
    let span = head == "range.span_days";
    match classification {
        "unsupported" | "spatial" | "vector" => {
            looks_like
                || key
                || epoch
                || fk
                || span
                || (classification == "unsupported" && head == "inferred.sensitivity")
        }
        "boolean" | "json" | "composite" | "numeric" => {
            looks_like || (epoch && classification != "numeric") || fk || span
        }
        "temporal" => looks_like || epoch || fk,
        "foreign_key_candidate" => span,
        "categorical" | "text" => fk || span,
        "binary" => epoch || fk || span,
        _ => false,
    }
}

fn stated_by_absence(head: &str) -> Option<(Value, &'static str, &'static str)> {
    Some(match head {
        "physical_name" => (
            Value::Null,
            "the map key is the catalog's own spelling",
            "§2.2.4",
        ),
        "collation" => (
            Value::Null,
            "the connection's default collation applies",
            "§2.2.4",
        ),
        "physical_layout_key" => (
            Value::Null,
            "not a key of this table's physical layout",
            "§2.2.11",
        ),
        "derived_from" => (
            Value::Null,
            "no source column was traced for it - never that it has none",
            "§2.2.4",
        ),
        "inferred.sensitivity" => (
            Value::Null,
            "nothing was detected - never that it is safe",
            "§4.4.2",
        ),
        "inferred.epoch_unit" => (Value::Null, "no epoch window matched", "§4.5.1"),
        "inferred.candidate_key_exception" => (Value::Null, "no exception to state", "§4.2"),
        "redacted" => (Value::Null, "no redact rule covers the column", "§2.2.9"),
        "unmeasured" => (
            Value::seq(Vec::new()),
            "every field the column should carry was measured",
            "§2.2.4",
        ),
        "unrepresentable" => (
            Value::seq(Vec::new()),
            "no emitted bound lies outside years 0001-9999",
            "§2.2.4",
        ),
        "non_finite_count" => (Value::Int(0), "no NaN or infinity was scanned", "§2.2.4"),
        "rows_scanned" => (
            Value::Null,
            "the file carries no scope, so row_count is the population",
            "§2.2.8",
        ),
        _ => return None,
    })
}

/// Python `isinstance(v, int) and not isinstance(v, bool)`.
pub fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::BigInt(_))
}

/// `mapping.get(key)` with Python's `None` for a missing key.
fn get<'a>(mapping: &'a Value, key: &str) -> &'a Value {
    mapping.get(key).unwrap_or(&Value::Null)
}

/// A column's own `redacted` marker makes it redacted (format spec §2.2.9).
pub fn is_redacted(column: &Value) -> bool {
    !matches!(get(column, "redacted"), Value::Null)
}

fn lookup<'a>(mapping: &'a Value, path: &str) -> Option<&'a Value> {
    let mut current = mapping;
    for segment in path.split('.') {
        current = current.get(segment)?;
    }
    Some(current)
}

/// The string names a `unmeasured` list carries.
fn unmeasured(mapping: &Value) -> Vec<&str> {
    get(mapping, "unmeasured")
        .as_seq()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn column_head(path: &str) -> &str {
    if COLUMN_FIELDS.contains(&path) {
        return path;
    }
    let head = if path.starts_with("inferred.") {
        match path.match_indices('.').nth(1) {
            Some((at, _)) => &path[..at],
            None => path,
        }
    } else {
        path.split('.').next().unwrap_or(path)
    };
    // dbprint raises KeyError for a path outside the model, so a typo never reads absent.
    debug_assert!(
        COLUMN_FIELDS.contains(&head) || FIELD_ROLE_NAMES.contains(&head),
        "unknown column field {path}"
    );
    head
}

fn table_head(name: &str) -> &str {
    if TABLE_BLOCKS.contains(&name) {
        return name;
    }
    let head = name.split('.').next().unwrap_or(name);
    debug_assert!(TABLE_BLOCKS.contains(&head), "unknown table block {name}");
    head
}

fn disabled_reading() -> FieldReading {
    FieldReading::new(
        Absence::Disabled,
        Value::Null,
        "switched off for this table by configuration",
        "§2.2.21",
    )
}

/// Read one per-column field, or a key beneath one (`range.min`), per format spec §7.2.
/// `disabled` is the file's own list (see [`disabled_of`]).
pub fn read_column_field(column: &Value, path: &str, disabled: &[String]) -> FieldReading {
    let head = column_head(path);
    if let Some(value) = lookup(column, path) {
        return FieldReading::new(Absence::Present, value.clone(), "emitted", "§2.2.3");
    }
    let named = unmeasured(column);
    if named.contains(&head)
        || (head == "inferred.candidate_key" && named.contains(&"cardinality_ratio"))
        || (LOOKS_LIKE_FIELDS.contains(&head) && named.contains(&"inferred.looks_like"))
    {
        return FieldReading::new(
            Absence::Unmeasured,
            Value::Null,
            "the read failed this run",
            "§2.2.4",
        );
    }
    if switched_off(column, head, disabled) {
        return disabled_reading();
    }
    let top = head.split('.').next().unwrap_or(head);
    if let Value::Str(classification) = get(column, "classification") {
        if forbidden_fields(classification).contains(&top) || forbidden_nested(classification, head)
        {
            return FieldReading {
                state: Absence::NotApplicable,
                value: Value::Null,
                cause: Cow::Owned(format!("not carried by {classification}")),
                spec_ref: "§2.2.3",
            };
        }
    }
    if is_redacted(column)
        && (WITHHELD_UNDER_REDACTION.contains(&top)
            || (matches!(top, "range" | "percentiles")
                && get(column, "redacted").as_str() == Some("drop")))
    {
        return FieldReading::new(
            Absence::Withheld,
            Value::Null,
            "withheld by the redacted marker",
            "§2.2.9",
        );
    }
    implied(column, head)
}

/// The value a reader may act on (measured or implied by omission), else `Null`.
pub fn column_value(column: &Value, path: &str) -> Value {
    let reading = read_column_field(column, path, &[]);
    if reading.known() {
        reading.value
    } else {
        Value::Null
    }
}

fn implied(column: &Value, head: &str) -> FieldReading {
    match head {
        "inferred.candidate_key" => {
            if is_number(get(column, "cardinality_ratio")) {
                FieldReading::new(
                    Absence::Omitted,
                    Value::Bool(false),
                    "below the candidate-key threshold",
                    "§4.2",
                )
            } else {
                FieldReading::new(
                    Absence::NotApplicable,
                    Value::Null,
                    "no cardinality_ratio measured",
                    "§4.2",
                )
            }
        }
        "inferred.looks_like" => {
            let sampled = get(column, "classification")
                .as_str()
                .is_some_and(|c| SAMPLED_CLASSIFICATIONS.contains(&c));
            let positive = match get(column, "cardinality") {
                Value::Int(n) => *n > 0,
                Value::BigInt(s) => !s.starts_with('-'),
                _ => false,
            };
            if sampled && positive {
                FieldReading::new(
                    Absence::Omitted,
                    Value::Null,
                    "no pattern reached the threshold",
                    "§4.1.2",
                )
            } else {
                FieldReading::new(
                    Absence::NotApplicable,
                    Value::Null,
                    "detection does not run here",
                    "§4.1.5",
                )
            }
        }
        "types" => FieldReading::new(
            Absence::NotApplicable,
            Value::Null,
            "catalog-only, or the engine names no per-value type",
            "§7.2",
        ),
        _ => match stated_by_absence(head) {
            Some((value, cause, spec_ref)) => {
                FieldReading::new(Absence::Omitted, value, cause, spec_ref)
            }
            None => FieldReading::new(
                Absence::NotApplicable,
                Value::Null,
                "not emitted for this column",
                "§7.2",
            ),
        },
    }
}

/// Whether a switched-off measurement owns `head` on a column that could carry it.
fn switched_off(column: &Value, head: &str, disabled: &[String]) -> bool {
    if disabled.is_empty() {
        return false;
    }
    let on = |name: &str| disabled.iter().any(|d| d == name);
    let classification = get(column, "classification");
    let class = classification.as_str();
    if LOOKS_LIKE_FIELDS.contains(&head) || head == "inferred.epoch_unit" {
        return on("looks_like")
            && class.is_some_and(|c| SAMPLED_CLASSIFICATIONS.contains(&c))
            && !class.is_some_and(|c| forbidden_nested(c, head));
    }
    // Before the forbidden test: §2.2.3 forbids `parts` on `unsupported`, which is exactly
    // how a column reads when its descent was switched off.
    if matches!(head, "parts" | "parts_found" | "size") {
        return on("parts") && matches!(class, Some("json" | "unsupported"));
    }
    head == "populated" && on("timeline")
}

/// Read one file-level field of `statistics.yaml`, or a key beneath one, per spec §7.3.
pub fn read_table_block(statistics: &Value, name: &str) -> FieldReading {
    let head = table_head(name);
    if let Some(value) = lookup(statistics, name) {
        return FieldReading::new(Absence::Present, value.clone(), "emitted", "§2.2.1");
    }
    if unmeasured(statistics).contains(&head) {
        return FieldReading::new(
            Absence::Unmeasured,
            Value::Null,
            "the read failed this run",
            "§2.2.1",
        );
    }
    if matches!(get(statistics, "catalog_only"), Value::Bool(true))
        && QUERIED_BLOCKS.contains(&head)
    {
        return FieldReading::new(
            Absence::NotApplicable,
            Value::Null,
            "nothing was queried",
            "§2.2.15",
        );
    }
    let feature = match head {
        "null_patterns" | "null_patterns.coverage_method" => Some("null_patterns"),
        "timeline" => Some("timeline"),
        _ => None,
    };
    if let Some(feature) = feature {
        if disabled_of(statistics).iter().any(|d| d == feature) {
            return disabled_reading();
        }
    }
    implied_block(statistics, head)
}

/// The file-level counterpart of [`column_value`].
pub fn block_value(statistics: &Value, name: &str) -> Value {
    let reading = read_table_block(statistics, name);
    if reading.known() {
        reading.value
    } else {
        Value::Null
    }
}

/// The measurements a `statistics.yaml` names switched off (spec §2.2.21); unknown names drop.
pub fn disabled_of(statistics: &Value) -> Vec<String> {
    match read_table_block(statistics, "disabled").value {
        Value::Seq(items) => items
            .iter()
            .filter_map(Value::as_str)
            .filter(|n| DISABLEABLE.contains(n))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn implied_block(statistics: &Value, head: &str) -> FieldReading {
    let omitted =
        |value, cause, spec_ref| FieldReading::new(Absence::Omitted, value, cause, spec_ref);
    match head {
        "catalog_only" => omitted(Value::Bool(false), "the object was queried", "§2.2.15"),
        "external" => omitted(Value::Bool(false), "the rows are stored locally", "§2.2.20"),
        "scope" => omitted(Value::Null, "every row was read", "§2.2.8"),
        "null_patterns" => omitted(Value::Null, "no column carries a null", "§2.2.10"),
        "physical_layout" => omitted(Value::Null, "the table declares no layout", "§2.2.11"),
        "merging" => omitted(Value::Null, "no merging engine", "§2.2.19"),
        "unmeasured" => omitted(
            Value::seq(Vec::new()),
            "every block the file should carry was measured",
            "§2.2.1",
        ),
        "disabled" => omitted(
            Value::seq(Vec::new()),
            "no measurement was switched off",
            "§2.2.21",
        ),
        "timeline" => omitted(
            Value::Null,
            "no eligible anchor, or a scoped or empty table",
            "§2.2.16",
        ),
        "depends_on" => {
            if matches!(get(statistics, "type").as_str(), Some("view" | "matview")) {
                FieldReading::new(
                    Absence::Unmeasured,
                    Value::Null,
                    "the dependency read did not happen",
                    "§2.2.17",
                )
            } else {
                FieldReading::new(
                    Absence::NotApplicable,
                    Value::Null,
                    "a table has no dependencies",
                    "§2.2.17",
                )
            }
        }
        _ => FieldReading::new(
            Absence::NotApplicable,
            Value::Null,
            "not emitted for this file",
            "§7.3",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compat::yaml;

    fn col(text: &str) -> Value {
        yaml::load(text).unwrap()
    }

    #[test]
    fn a_present_field_reads_as_emitted_even_when_null() {
        let c = col("classification: text\ninferred: {sensitivity: null}\n");
        let r = read_column_field(&c, "inferred.sensitivity", &[]);
        assert_eq!(r.state, Absence::Present);
        assert_eq!(r.value, Value::Null);
    }

    #[test]
    fn candidate_key_is_implied_false_beside_a_ratio() {
        let c = col("classification: categorical\ncardinality_ratio: 0.5\n");
        let r = read_column_field(&c, "inferred.candidate_key", &[]);
        assert_eq!(r.state, Absence::Omitted);
        assert_eq!(r.value, Value::Bool(false));
        // Unmeasured ratio: not known.
        let c = col("classification: categorical\ncardinality_ratio: 0.5\nunmeasured: [cardinality_ratio]\n");
        assert_eq!(
            read_column_field(&c, "inferred.candidate_key", &[]).state,
            Absence::Unmeasured
        );
        // Forbidden on spatial.
        let c = col("classification: spatial\ncardinality_ratio: 0.5\n");
        let r = read_column_field(&c, "inferred.candidate_key", &[]);
        assert_eq!(r.state, Absence::NotApplicable);
        assert_eq!(r.cause, "not carried by spatial");
        // A bool is not a ratio.
        let c = col("classification: text\ncardinality_ratio: true\n");
        assert_eq!(
            read_column_field(&c, "inferred.candidate_key", &[]).state,
            Absence::NotApplicable
        );
    }

    #[test]
    fn values_causes() {
        let c = col("classification: json\n");
        assert_eq!(
            read_column_field(&c, "values", &[]).cause,
            "not carried by json"
        );
        let c = col("classification: text\nunmeasured: [values]\n");
        assert_eq!(
            read_column_field(&c, "values", &[]).state,
            Absence::Unmeasured
        );
        let c = col("classification: text\n");
        assert_eq!(
            read_column_field(&c, "values", &[]).cause,
            "not emitted for this column"
        );
    }

    #[test]
    fn redaction_withholds_its_fields() {
        let c = col("classification: text\nredacted: hash\n");
        assert_eq!(
            read_column_field(&c, "length", &[]).state,
            Absence::Withheld
        );
        // A field the classification forbids reads as not applicable first.
        assert_eq!(
            read_column_field(&c, "mean", &[]).state,
            Absence::NotApplicable
        );
        let c = col("classification: numeric\nredacted: drop\n");
        assert_eq!(read_column_field(&c, "mean", &[]).state, Absence::Withheld);
        assert_eq!(read_column_field(&c, "range", &[]).state, Absence::Withheld);
        let c = col("classification: numeric\nredacted: mask\n");
        assert_eq!(
            read_column_field(&c, "range", &[]).state,
            Absence::NotApplicable
        );
    }

    #[test]
    fn looks_like_omitted_only_where_detection_runs() {
        let c = col("classification: text\ncardinality: 3\n");
        assert_eq!(
            read_column_field(&c, "inferred.looks_like", &[]).state,
            Absence::Omitted
        );
        let c = col("classification: text\ncardinality: 0\n");
        assert_eq!(
            read_column_field(&c, "inferred.looks_like", &[]).state,
            Absence::NotApplicable
        );
        let off = vec!["looks_like".to_string()];
        let c = col("classification: text\ncardinality: 3\n");
        assert_eq!(
            read_column_field(&c, "inferred.looks_like", &off).state,
            Absence::Disabled
        );
    }

    #[test]
    fn table_blocks() {
        let s = col("catalog_only: true\ncolumns: {}\n");
        assert_eq!(
            read_table_block(&s, "row_count").state,
            Absence::NotApplicable
        );
        let s = col("disabled: [looks_like, bogus, 3]\n");
        assert_eq!(disabled_of(&s), vec!["looks_like".to_string()]);
        let s = col("row_count: 5\n");
        assert_eq!(block_value(&s, "row_count"), Value::Int(5));
        assert_eq!(read_table_block(&s, "scope").state, Absence::Omitted);
        let s = col("scope: null\n");
        assert_eq!(read_table_block(&s, "scope").state, Absence::Present);
    }
}
