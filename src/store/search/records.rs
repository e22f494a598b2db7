//! What the index keeps per table, column and part: everything search_columns and
//! resolve_value read off a table's `statistics.yaml` and `statistics.annotations.yaml`,
//! derived once at ingest with the reference's own reading rules (absence model, scope,
//! annotation admission), so a request only filters, orders and renders.

use serde::{Deserialize, Serialize};

use crate::ingest::reading::absence::{column_value, disabled_of, read_column_field, Absence};
use crate::ingest::reading::authored::{self, Kind};
use crate::ingest::reading::scope::{list_is_complete, rows_scanned, scope_of, ScanScope};
use compat::py::{casefold, str_of, strip};
use compat::value::Value;

/// How one of a table's two searched files reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FileState {
    /// The manifest does not declare it.
    Undeclared,
    /// Declared, but not a file on disk.
    Absent,
    Ok,
    /// `yaml.YAMLError`: the message without the path.
    ParseError(String),
    /// Another exception while reading it (`str(exc)`); a call reading it fails with it.
    OtherError(String),
    /// An annotation file that parses but fails admission: `does not match its schema ...`.
    Malformed(String),
}

/// A file as ingest hands it over.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    Undeclared,
    Absent,
    Yaml(&'a Value),
    YamlError(&'a str),
    OtherError(&'a str),
}

/// What validate_sql's catalog reads of one walkable table. Ingest derives it with the
/// table's other documents and keeps it as one stored record (the table's `table_columns`
/// document), so a whole print's catalog reads one document per table, not one per column
/// and value list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CatalogTable {
    /// How its statistics read (`None`: the index holds no record for it).
    pub stats: Option<FileState>,
    /// Its statistics describe the whole table (no scan scope).
    pub whole_table: bool,
    /// `sorted(statistics.columns)`, which resolve_value's unknown-column error lists too.
    pub stats_columns: Vec<String>,
    /// Its columns (no parts) in column order.
    pub columns: Vec<CatalogColumn>,
}

/// What validate_sql's catalog reads of one column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CatalogColumn {
    pub column: String,
    pub sql_type: Option<String>,
    pub physical_name: Option<String>,
    pub col_rank: u64,
    /// Its value list is every value it holds (complete, not redacted, present).
    pub complete_values: bool,
}

impl CatalogTable {
    /// The catalog's record of a table from what ingest derived of it.
    pub fn of(derived: &Derived) -> CatalogTable {
        let mut columns: Vec<CatalogColumn> = derived
            .columns
            .iter()
            .filter(|c| c.part.is_none())
            .map(|c| CatalogColumn {
                column: c.column.clone(),
                sql_type: c.sql_type.clone(),
                physical_name: c.physical_name.clone(),
                col_rank: c.col_rank,
                complete_values: false,
            })
            .collect();
        columns.sort_by_key(|c| c.col_rank);
        // Every value list, in the order the table's documents hold them; matched by name
        // (columns are in name order: `col_rank` ranks the sorted names).
        for resolve in derived.columns.iter().filter_map(|c| c.resolve.as_ref()) {
            let complete = resolve.own.as_ref().is_some_and(|r| {
                r.complete && r.redaction.is_none() && r.values == ValuesState::Present
            });
            if let Ok(at) = columns.binary_search_by(|c| c.column.as_str().cmp(&resolve.column)) {
                columns[at].complete_values = complete;
            }
        }
        CatalogTable {
            stats: Some(derived.table.stats.clone()),
            whole_table: derived.table.scope.is_none(),
            stats_columns: derived.table.stats_columns.clone(),
            columns,
        }
    }
}

/// Per-table facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRecord {
    pub fqn: String,
    pub stats: FileState,
    pub annotations: FileState,
    /// The exception search_columns meets first in this table, which fails the whole call.
    pub search_error: Option<String>,
    /// statistics.yaml does not parse, or the annotation file does not parse or is refused.
    pub unreadable: bool,
    /// `disabled` names `looks_like`.
    pub looks_like_off: bool,
    /// `disabled` names `parts`.
    pub parts_off: bool,
    pub scope: Option<ScanScope>,
    /// `sorted(statistics.columns)`, for resolve_value's unknown-column error. Stored
    /// apart from the rest (search_columns never decodes it).
    #[serde(skip)]
    pub stats_columns: Vec<String>,
}

/// Why a column's value list reads as it does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ValuesState {
    Present,
    Unmeasured(String),
    /// Not carried, for the reason given.
    Missing(String),
}

/// What resolve_value reads off a column or part block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolve {
    pub values: ValuesState,
    /// The list's mapping entries, in file order.
    pub listed: Vec<Value>,
    /// A non-empty string `redacted` marker.
    pub redaction: Option<String>,
    /// `values_coverage` as read (measured or implied), `Null` when none.
    pub coverage: Value,
    pub complete: bool,
}

/// A stats column's resolve_value facts, with its parts'.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnResolve {
    /// The column's name (so a values document needs no other key).
    pub column: String,
    /// A column block that is not a mapping: the exception reading it raises.
    pub crash: Option<String>,
    pub own: Option<Resolve>,
    /// Parts keyed by a string path, in file order.
    pub parts: Vec<(String, Resolve)>,
    /// Every part key, sorted, for the unknown-part error.
    pub part_names: Vec<String>,
}

/// One searchable column or part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnRecord {
    pub column: String,
    /// A part's path key as the print spells it; `None` for the column itself.
    pub part: Option<Value>,
    /// The name pattern and text read: the column, or `<column><path>` for a part.
    pub label: String,
    /// The annotation's `note`, when a string.
    pub note: Option<String>,
    /// Annotation `values` entries with a string note: (value, note as written).
    pub value_notes: Vec<(Value, String)>,
    pub classification: Option<String>,
    pub sql_type: Option<String>,
    /// The catalog's own spelling when it differs from the lowercase key (§2.2.4); a
    /// column's only, never a part's.
    #[serde(default)]
    pub physical_name: Option<String>,
    pub sensitivity: Option<String>,
    pub looks_like: Option<String>,
    pub redacted: Option<String>,
    /// `inferred.candidate_key` when known (measured or implied), as a bool.
    pub candidate_key: Option<bool>,
    /// `sql_type` and `classification` as the match shows them (`""` when absent).
    pub shown_sql_type: Value,
    pub shown_classification: Value,
    pub rows_scanned: Option<Value>,
    /// The match's keys after `scope`: looks_like ... annotation.
    pub tail: Vec<(String, Value)>,
    /// A part's `occurrences` (`Null` when absent).
    pub occurrences: Value,
    /// Column order within the table (the sorted name union), and 0 for the column or
    /// 1 + the part's position.
    pub col_rank: u64,
    pub part_rank: u64,
    /// resolve_value's facts, for a column the statistics list. Stored apart from the
    /// rest (search_columns never decodes them).
    #[serde(skip)]
    pub resolve: Option<ColumnResolve>,
}

impl ColumnRecord {
    /// The strings `text` is matched against, casefolded (index tokens).
    pub fn text_sources(&self) -> Vec<String> {
        let mut out = vec![casefold(&self.label)];
        if self.part.is_none() {
            if let Some(note) = &self.note {
                out.push(casefold(note));
            }
            out.extend(self.value_notes.iter().map(|(_, n)| casefold(n)));
        }
        out
    }
}

/// A table with its column and part records, in reply order.
#[derive(Debug, Clone)]
pub struct Derived {
    pub table: TableRecord,
    pub columns: Vec<ColumnRecord>,
}

/// Python's `AttributeError` text for `x.get` on a non-mapping.
fn no_get(value: &Value) -> String {
    let name = match value {
        Value::Date(_) => "datetime.date",
        Value::DateTime(_) => "datetime.datetime",
        other => other.py_type_name(),
    };
    format!("'{name}' object has no attribute 'get'")
}

fn present_str(v: &Value) -> Option<String> {
    (!matches!(v, Value::Null)).then(|| str_of(v))
}

/// `data or {}` then "a mapping, else `{}`".
fn mapping_or_empty(data: &Value) -> Value {
    match data {
        Value::Map(_) if data.truthy() => data.clone(),
        _ => Value::map(Vec::new()),
    }
}

fn resolve_of(block: &Value) -> Resolve {
    let reading = read_column_field(block, "values", &[]);
    let values = match reading.state {
        Absence::Present => ValuesState::Present,
        Absence::Unmeasured => ValuesState::Unmeasured(reading.cause.to_string()),
        _ => ValuesState::Missing(reading.cause.to_string()),
    };
    let listed = match &reading.value {
        Value::Seq(items) if reading.state == Absence::Present => items
            .iter()
            .filter(|e| matches!(e, Value::Map(_)))
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    let redaction = match column_value(block, "redacted") {
        Value::Str(s) if !s.is_empty() => Some(s),
        _ => None,
    };
    Resolve {
        values,
        listed,
        redaction,
        coverage: column_value(block, "values_coverage"),
        complete: list_is_complete(block),
    }
}

/// `_parts_of`: the parts map's mapping blocks, in file order.
fn parts_of(col: &Value) -> Vec<(&Value, &Value)> {
    match col.get("parts") {
        Some(Value::Map(pairs)) => pairs
            .iter()
            .filter(|(_, b)| matches!(b, Value::Map(_)))
            .map(|(k, b)| (k, b))
            .collect(),
        _ => Vec::new(),
    }
}

/// The fields one match carries beyond its identity (`_search_match` after `scope`).
fn match_tail(col: &Value, note: Option<&str>) -> Vec<(String, Value)> {
    let mut tail = Vec::new();
    let looks_like = read_column_field(col, "inferred.looks_like", &[]);
    if looks_like.state == Absence::Present {
        tail.push(("looks_like".to_string(), looks_like.value));
        for key in ["sampled", "matched"] {
            let evidence = column_value(col, &format!("inferred.{key}"));
            if !matches!(evidence, Value::Null) {
                tail.push((key.to_string(), evidence));
            }
        }
    }
    let sensitivity = read_column_field(col, "inferred.sensitivity", &[]);
    if sensitivity.state == Absence::Present {
        tail.push(("sensitivity".to_string(), sensitivity.value));
    }
    if let Value::Str(r) = column_value(col, "redacted") {
        if !r.is_empty() {
            tail.push(("redacted".to_string(), Value::Str(r)));
        }
    }
    if column_value(col, "inferred.candidate_key").truthy() {
        tail.push(("candidate_key".to_string(), Value::Bool(true)));
        let exception = column_value(col, "inferred.candidate_key_exception");
        if !matches!(exception, Value::Null) {
            tail.push(("candidate_key_exception".to_string(), exception));
        }
    }
    if let Some(note) = note {
        if !strip(note).is_empty() {
            tail.push(("annotation".to_string(), Value::Str(note.to_string())));
        }
    }
    tail
}

fn searchable(
    column: &str,
    part: Option<&Value>,
    col: &Value,
    annotation: &Value,
    scope: Option<&ScanScope>,
) -> ColumnRecord {
    let note = annotation
        .get("note")
        .and_then(Value::as_str)
        .map(str::to_string);
    let value_notes = annotation
        .get("values")
        .and_then(Value::as_seq)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|e| {
                    let note = e.get("note")?.as_str()?;
                    Some((
                        e.get("value").cloned().unwrap_or(Value::Null),
                        note.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let ck = read_column_field(col, "inferred.candidate_key", &[]);
    let label = match part {
        Some(path) => format!("{column}{}", str_of(path)),
        None => column.to_string(),
    };
    ColumnRecord {
        column: column.to_string(),
        part: part.cloned(),
        label,
        classification: col.get("classification").and_then(present_str),
        sql_type: col.get("sql_type").and_then(present_str),
        physical_name: part
            .is_none()
            .then(|| col.get("physical_name").and_then(Value::as_str))
            .flatten()
            .map(str::to_string),
        sensitivity: present_str(&column_value(col, "inferred.sensitivity")),
        looks_like: present_str(&column_value(col, "inferred.looks_like")),
        redacted: present_str(&column_value(col, "redacted")),
        candidate_key: ck.known().then(|| ck.value.truthy()),
        shown_sql_type: col
            .get("sql_type")
            .cloned()
            .unwrap_or_else(|| Value::Str(String::new())),
        shown_classification: col
            .get("classification")
            .cloned()
            .unwrap_or_else(|| Value::Str(String::new())),
        rows_scanned: rows_scanned(col, scope),
        tail: match_tail(col, note.as_deref().filter(|_| part.is_none())),
        occurrences: if part.is_some() {
            column_value(col, "occurrences")
        } else {
            Value::Null
        },
        note: if part.is_none() { note } else { None },
        value_notes: if part.is_none() {
            value_notes
        } else {
            Vec::new()
        },
        col_rank: 0,
        part_rank: 0,
        resolve: None,
    }
}

/// The annotations file as read: its state, and the column entries it admits (none unless
/// it matches its schema). Marks the table unreadable, or records the search error, as the
/// file's failure calls for.
fn annotation_input(
    annotations: Input,
    unreadable: &mut bool,
    search_error: &mut Option<String>,
) -> (FileState, Vec<(String, Value)>) {
    match annotations {
        Input::Undeclared => (FileState::Undeclared, Vec::new()),
        Input::Absent => (FileState::Absent, Vec::new()),
        Input::YamlError(m) => {
            *unreadable = true;
            (FileState::ParseError(m.to_string()), Vec::new())
        }
        Input::OtherError(m) => {
            search_error.get_or_insert_with(|| m.to_string());
            (FileState::OtherError(m.to_string()), Vec::new())
        }
        Input::Yaml(v) => {
            // `read(...) or {}`: an empty file is validated as `{}`.
            let data = if v.truthy() {
                v.clone()
            } else {
                Value::map(Vec::new())
            };
            match authored::malformation(Kind::Statistics, &data) {
                Some(problem) => {
                    *unreadable = true;
                    (
                        FileState::Malformed(format!(
                            "does not match its schema (SPEC 2.7): {problem}"
                        )),
                        Vec::new(),
                    )
                }
                None => {
                    let admitted = authored::iso_dates(&data);
                    let columns = admitted
                        .get("columns")
                        .and_then(Value::as_map)
                        .map(|pairs| {
                            pairs
                                .iter()
                                .filter(|(_, e)| matches!(e, Value::Map(_)))
                                .map(|(k, e)| (str_of(k), e.clone()))
                                .collect()
                        })
                        .unwrap_or_default();
                    (FileState::Ok, columns)
                }
            }
        }
    }
}

/// How resolve_value reads a column the statistics list: its own values and each part's,
/// or the error reading a column that is not a mapping raises.
fn column_resolve(name: &str, col: &Value, parts: &[(&Value, &Value)]) -> ColumnResolve {
    if !matches!(col, Value::Map(_)) {
        return ColumnResolve {
            column: name.to_string(),
            crash: Some(no_get(col)),
            own: None,
            parts: Vec::new(),
            part_names: Vec::new(),
        };
    }
    let mut part_names: Vec<String> = parts.iter().map(|(k, _)| str_of(k)).collect();
    part_names.sort();
    ColumnResolve {
        column: name.to_string(),
        crash: None,
        own: Some(resolve_of(col)),
        parts: parts
            .iter()
            .filter_map(|(k, b)| Some((k.as_str()?.to_string(), resolve_of(b))))
            .collect(),
        part_names,
    }
}

/// Derive a table's records from its two files, as search_columns and resolve_value read
/// them.
pub fn derive(fqn: &str, stats: Input, annotations: Input) -> Derived {
    let mut search_error: Option<String> = None;
    let mut unreadable = false;
    let (stats_state, statistics) = match stats {
        Input::Undeclared => (FileState::Undeclared, Value::map(Vec::new())),
        Input::Absent => (FileState::Absent, Value::map(Vec::new())),
        Input::Yaml(v) => (FileState::Ok, mapping_or_empty(v)),
        Input::YamlError(m) => {
            unreadable = true;
            (FileState::ParseError(m.to_string()), Value::map(Vec::new()))
        }
        Input::OtherError(m) => {
            search_error = Some(m.to_string());
            (FileState::OtherError(m.to_string()), Value::map(Vec::new()))
        }
    };
    let (ann_state, annotation_columns) =
        annotation_input(annotations, &mut unreadable, &mut search_error);

    let stats_columns: Vec<(String, &Value)> = statistics
        .get("columns")
        .and_then(Value::as_map)
        .map(|pairs| pairs.iter().map(|(k, v)| (str_of(k), v)).collect())
        .unwrap_or_default();
    let scope = scope_of(&statistics);
    let disabled = disabled_of(&statistics);
    // Annotation keys naming a column the statistics no longer list are stale, unless
    // there is no columns map to judge by.
    let judge = matches!(statistics.get("columns"), Some(Value::Map(_)));
    let mut names: Vec<String> = stats_columns.iter().map(|(n, _)| n.clone()).collect();
    for (name, _) in &annotation_columns {
        if !judge || stats_columns.iter().any(|(n, _)| n == name) {
            names.push(name.clone());
        }
    }
    names.sort();
    names.dedup();

    let mut columns = Vec::new();
    let empty = Value::map(Vec::new());
    for (rank, name) in names.iter().enumerate() {
        let raw = stats_columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v);
        let col = match raw {
            Some(v) if v.truthy() => v,
            _ => &empty,
        };
        let annotation = annotation_columns
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e)
            .unwrap_or(&empty);
        if !matches!(col, Value::Map(_)) {
            search_error.get_or_insert_with(|| no_get(col));
        }
        let mut record = searchable(name, None, col, annotation, scope.as_ref());
        record.col_rank = rank as u64;
        let parts = parts_of(col);
        if raw.is_some() {
            record.resolve = Some(column_resolve(name, col, &parts));
        }
        columns.push(record);
        for (i, (path, block)) in parts.iter().enumerate() {
            let mut part = searchable(name, Some(path), block, &empty, scope.as_ref());
            part.col_rank = rank as u64;
            part.part_rank = i as u64 + 1;
            columns.push(part);
        }
    }

    let mut stats_names: Vec<String> = stats_columns.into_iter().map(|(n, _)| n).collect();
    stats_names.sort();
    Derived {
        table: TableRecord {
            fqn: fqn.to_string(),
            stats: stats_state,
            annotations: ann_state,
            search_error,
            unreadable,
            looks_like_off: disabled.iter().any(|d| d == "looks_like"),
            parts_off: disabled.iter().any(|d| d == "parts"),
            scope,
            stats_columns: stats_names,
        },
        columns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compat::yaml;

    fn load(text: &str) -> Value {
        yaml::load(text).unwrap()
    }

    const STATS: &str = "
row_count: 10
columns:
  b_email:
    sql_type: VARCHAR
    classification: text
    cardinality: 9
    cardinality_ratio: 0.9
    inferred: {looks_like: email, sampled: 9, matched: 9, sensitivity: contact}
    values: [{value: a@x, count: 1}]
    values_coverage: 0.5
  a_id:
    sql_type: INTEGER
    physical_name: A_Id
    classification: numeric
    inferred: {candidate_key: true}
  doc:
    sql_type: JSON
    classification: json
    parts:
      .status: {classification: categorical, occurrences: 4, values: [{value: ok, count: 4}], values_coverage: 1.0}
      .n: 5
";

    #[test]
    fn columns_come_sorted_with_parts_after_their_column() {
        let stats = load(STATS);
        let d = derive("s.t", Input::Yaml(&stats), Input::Undeclared);
        let labels: Vec<&str> = d.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["a_id", "b_email", "doc", "doc.status"]);
        assert_eq!(d.table.stats_columns, ["a_id", "b_email", "doc"]);
        let email = &d.columns[1];
        assert_eq!(email.looks_like.as_deref(), Some("email"));
        assert_eq!(email.candidate_key, Some(false));
        let keys: Vec<&str> = email.tail.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["looks_like", "sampled", "matched", "sensitivity"]);
        assert_eq!(d.columns[0].candidate_key, Some(true));
        assert_eq!(d.columns[0].physical_name.as_deref(), Some("A_Id"));
        assert_eq!(email.physical_name, None);
        let part = &d.columns[3];
        assert_eq!(part.part, Some(Value::Str(".status".into())));
        assert_eq!(part.occurrences, Value::Int(4));
        let doc = d.columns[2].resolve.as_ref().unwrap();
        assert_eq!(doc.parts.len(), 1);
        assert!(doc.parts[0].1.complete);
        assert_eq!(d.table.search_error, None);
    }

    #[test]
    fn a_column_block_that_is_not_a_mapping_fails_the_search() {
        let stats = load("columns: {a: {}, b: text, c: ''}\n");
        let d = derive("s.t", Input::Yaml(&stats), Input::Undeclared);
        assert_eq!(
            d.table.search_error.as_deref(),
            Some("'str' object has no attribute 'get'")
        );
        // A falsy block reads as an empty column.
        assert_eq!(d.columns.len(), 3);
        assert!(d.columns[2].resolve.as_ref().unwrap().crash.is_none());
    }

    #[test]
    fn annotations_keep_only_live_columns_and_refused_files_are_unreadable() {
        let stats = load("columns: {a: {classification: text}}\n");
        let ann = load("format_version: 1\ncolumns:\n  a: {note: Hello}\n  gone: {note: x}\n");
        let d = derive("s.t", Input::Yaml(&stats), Input::Yaml(&ann));
        assert_eq!(d.columns.len(), 1);
        assert_eq!(d.columns[0].note.as_deref(), Some("Hello"));
        // Without a columns map every annotation key stands.
        let d = derive("s.t", Input::Absent, Input::Yaml(&ann));
        assert_eq!(d.columns.len(), 2);
        assert_eq!(d.columns[0].shown_sql_type, Value::Str(String::new()));
        let bad = load("format_version: 2\n");
        let d = derive("s.t", Input::Yaml(&stats), Input::Yaml(&bad));
        assert!(d.table.unreadable);
        assert!(matches!(d.table.annotations, FileState::Malformed(_)));
        let d = derive("s.t", Input::YamlError("boom"), Input::Undeclared);
        assert!(d.table.unreadable);
        assert!(d.columns.is_empty());
    }

    #[test]
    fn the_catalog_record_holds_columns_in_order_and_which_value_lists_are_whole() {
        let stats = load(&format!(
            "{STATS}  c_status:\n    sql_type: VARCHAR\n    values: [{{value: a, count: 5}}]\n    values_coverage: 1.0\n"
        ));
        let d = derive("s.t", Input::Yaml(&stats), Input::Undeclared);
        let record = CatalogTable::of(&d);
        assert_eq!(record.stats, Some(FileState::Ok));
        assert!(record.whole_table);
        assert_eq!(record.stats_columns, ["a_id", "b_email", "c_status", "doc"]);
        let shown: Vec<(&str, Option<&str>, Option<&str>, bool)> = record
            .columns
            .iter()
            .map(|c| {
                let (name, physical) = (c.column.as_str(), c.physical_name.as_deref());
                (name, c.sql_type.as_deref(), physical, c.complete_values)
            })
            .collect();
        // No parts; a part's whole value list (`doc.status`) does not make its column's.
        assert_eq!(
            shown,
            [
                ("a_id", Some("INTEGER"), Some("A_Id"), false),
                ("b_email", Some("VARCHAR"), None, false),
                ("c_status", Some("VARCHAR"), None, true),
                ("doc", Some("JSON"), None, false),
            ]
        );
        let ranks: Vec<u64> = record.columns.iter().map(|c| c.col_rank).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]));
        // A scoped table's statistics do not describe the whole table.
        let scoped = load("scope: {kind: sample, rows: 5}\ncolumns: {a: {sql_type: INTEGER}}\n");
        let d = derive("s.t", Input::Yaml(&scoped), Input::Undeclared);
        assert!(!CatalogTable::of(&d).whole_table);
        // Statistics that do not parse: no columns, and a state that says so.
        let d = derive("s.t", Input::YamlError("boom"), Input::Undeclared);
        let record = CatalogTable::of(&d);
        assert!(matches!(record.stats, Some(FileState::ParseError(_))));
        assert!(record.columns.is_empty());
    }
}
