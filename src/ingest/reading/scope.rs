//! How much of a table a `statistics.yaml` describes (format spec §2.2.8), read the same way
//! by every tool (dbprint's `spec/scope.py`): a scoped file describes the rows scanned, not
//! the table.

use super::absence::{block_value, column_value, is_int, read_table_block, Absence};
use super::as_f64;
use compat::py::py_eq;
use compat::value::Value;

pub const SCANNED_CLAUSE: &str = "over the rows scanned";
pub const WHOLE_DOMAIN_STATEMENT: &str = "the list is the whole domain";
pub const SAMPLED_STATEMENT: &str = "a sample of the most frequent values";

/// `WHOLE_DOMAIN_STATEMENT` + " " + `SCANNED_CLAUSE`.
pub const SCANNED_DOMAIN_STATEMENT: &str = "the list is the whole domain over the rows scanned";

/// A scoped file's reading: the `scope` block verbatim (`{}` when malformed or echo-only).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScanScope {
    pub block: Value,
    /// An int (`Int` or `BigInt`), when known.
    pub rows_scanned: Option<Value>,
    /// The file's own `row_count`, an int, when known.
    pub row_count: Option<Value>,
    pub sample: Option<Value>,
    pub filter: Option<String>,
}

impl ScanScope {
    /// `rows_scanned / row_count`, when both are known and the count is not zero.
    pub fn share(&self) -> Option<f64> {
        let rows = as_f64(self.rows_scanned.as_ref()?)?;
        let count = as_f64(self.row_count.as_ref()?)?;
        (count != 0.0).then(|| rows / count)
    }

    /// Whether the scan read no rows (`rows_scanned == 0`).
    pub fn read_no_rows(&self) -> bool {
        matches!(self.rows_scanned, Some(Value::Int(0)))
    }
}

/// The file's scope, or `None` when it read every row. A present `scope` decides,
/// malformed or not; else any column's `rows_scanned` echo makes the file scoped.
pub fn scope_of(statistics: &Value) -> Option<ScanScope> {
    if !statistics.truthy() {
        return None;
    }
    let reading = read_table_block(statistics, "scope");
    let echoes: Vec<Value> = statistics
        .get("columns")
        .and_then(Value::as_map)
        .map(|columns| {
            columns
                .iter()
                .filter(|(_, col)| matches!(col, Value::Map(_)))
                .map(|(_, col)| column_value(col, "rows_scanned"))
                .filter(is_int)
                .collect()
        })
        .unwrap_or_default();
    if reading.state != Absence::Present && echoes.is_empty() {
        return None;
    }
    // `dict(reading.value)`: a copy, so the block never aliases the file's own `scope`.
    let block = match reading.value {
        Value::Map(pairs) => Value::map(pairs.to_vec()),
        _ => Value::map(Vec::new()),
    };
    let rows_scanned = match block.get("rows_scanned") {
        Some(v) if is_int(v) => Some(v.clone()),
        _ => echoes.first().cloned(),
    };
    let row_count = Some(block_value(statistics, "row_count")).filter(is_int);
    let sample = block
        .get("sample")
        .filter(|v| matches!(v, Value::Int(_) | Value::BigInt(_) | Value::Float(_)))
        .cloned();
    let filter = block
        .get("filter")
        .and_then(Value::as_str)
        .map(str::to_string);
    Some(ScanScope {
        block,
        rows_scanned,
        row_count,
        sample,
        filter,
    })
}

/// Rows a scoped column was measured over: its own echo, else the file's; `None` unscoped.
pub fn rows_scanned(column: &Value, scope: Option<&ScanScope>) -> Option<Value> {
    let scope = scope?;
    let echo = column_value(column, "rows_scanned");
    if is_int(&echo) {
        Some(echo)
    } else {
        scope.rows_scanned.clone()
    }
}

/// Whether `values` lists every distinct value over what was read (spec §2.2.4, §2.2.5):
/// `values_coverage` of 1.0, else `frequencies.listed` against an exact `cardinality`.
pub fn list_is_complete(column: &Value) -> bool {
    if py_eq(&column_value(column, "values_coverage"), &Value::Float(1.0)) {
        return true;
    }
    let frequencies = column_value(column, "frequencies");
    let cardinality = column_value(column, "cardinality");
    matches!(frequencies, Value::Map(_))
        && column_value(column, "cardinality_method").as_str() == Some("exact")
        && is_int(&cardinality)
        && frequencies
            .get("listed")
            .is_some_and(|listed| py_eq(listed, &cardinality))
}

/// The `scope` and `row_count` fields a structured reply about a scoped table carries.
pub fn reply_scope(scope: Option<&ScanScope>) -> Vec<(String, Value)> {
    let Some(scope) = scope else {
        return Vec::new();
    };
    let mut out = vec![("scope".to_string(), scope.block.clone())];
    if let Some(count) = &scope.row_count {
        out.push(("row_count".to_string(), count.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use compat::yaml;

    fn load(text: &str) -> Value {
        yaml::load(text).unwrap()
    }

    #[test]
    fn unscoped_files_have_no_scope() {
        assert_eq!(scope_of(&load("row_count: 3\ncolumns: {a: {}}\n")), None);
        assert_eq!(scope_of(&Value::map(vec![])), None);
    }

    #[test]
    fn a_scope_block_or_an_echo_scopes_the_file() {
        let s = scope_of(&load(
            "row_count: 10\nscope: {rows_scanned: 4, filter: x > 1}\ncolumns: {}\n",
        ))
        .unwrap();
        assert_eq!(s.rows_scanned, Some(Value::Int(4)));
        assert_eq!(s.row_count, Some(Value::Int(10)));
        assert_eq!(s.filter.as_deref(), Some("x > 1"));
        assert_eq!(s.share(), Some(0.4));
        let s = scope_of(&load("columns: {a: {rows_scanned: 7}}\n")).unwrap();
        assert_eq!(s.block, Value::map(vec![]));
        assert_eq!(s.rows_scanned, Some(Value::Int(7)));
        let s = scope_of(&load("scope: [1]\ncolumns: {}\n")).unwrap();
        assert_eq!(s.block, Value::map(vec![]));
        assert_eq!(s.rows_scanned, None);
    }

    #[test]
    fn completeness() {
        assert!(list_is_complete(&load("values_coverage: 1.0\n")));
        assert!(list_is_complete(&load("values_coverage: 1\n")));
        assert!(list_is_complete(&load("values_coverage: true\n")));
        assert!(!list_is_complete(&load("values_coverage: 0.5\n")));
        assert!(list_is_complete(&load(
            "classification: numeric\nfrequencies: {listed: 3}\ncardinality: 3\ncardinality_method: exact\n"
        )));
        assert!(!list_is_complete(&load(
            "classification: numeric\nfrequencies: {listed: 3}\ncardinality: 3\ncardinality_method: hll\n"
        )));
    }
}
