//! One table's artifacts as get_table_context reads them: what loaded, what is missing or
//! unreadable (each degrading only its own section), the human notes it inherits, and its
//! relationships with people's verdicts and additions laid over them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::overlay::{self, load_annotations, load_mapping, Overlay, Table};
use super::read::{count_or_zero, cv};
use super::Ctx;
use super::R;
use crate::error::QueryError;
use crate::ingest::reading::authored::Kind;
use crate::ingest::walk::Artifact;
use crate::ingest::MANIFEST_ANNOTATIONS_FILENAME;
use crate::query::edges::{
    edge_key, incoming_key, iterate, rejected_edges, withhold_rejected, EdgeKey, IncomingKey,
    IncomingRejections, Rejections,
};
use crate::query::value::set;
use crate::store::Snapshot;
use compat::py::py_eq;
use compat::value::Value;

/// Everything one call knows about its table.
#[derive(Debug, Clone)]
pub struct Artifacts {
    pub fqn: String,
    /// `entry.get("type", "table")`.
    pub table_type: Value,
    /// The manifest's `row_count`, as written (`None`: absent).
    pub row_count: Option<Value>,
    pub column_count: i64,
    pub ddl: String,
    pub statistics: Option<Arc<Value>>,
    /// relationships.yaml with the overlay applied.
    pub relationships: Option<Value>,
    pub description: Option<String>,
    /// Live column annotations, by column.
    pub annotations: Vec<(String, Value)>,
    pub annotated_grain: Option<Value>,
    pub relationship_annotations: Option<Vec<Value>>,
    pub missing: Vec<String>,
    pub corrupted: Vec<(String, String)>,
    pub profile_override: Option<Value>,
    pub last_run_failed: bool,
    /// Each single referencing column's distinct count, by (referencer, column).
    pub incoming_cardinalities: HashMap<(String, String), Value>,
    pub connection_notes: Option<String>,
    /// Per column, each `derived_from` source carrying a note: `{source, note?, values?}`.
    pub inherited: Vec<(String, Vec<Value>)>,
}

impl Artifacts {
    pub fn annotation(&self, column: &str) -> Option<&Value> {
        self.annotations
            .iter()
            .find(|(k, _)| k == column)
            .map(|(_, v)| v)
    }

    pub fn inherited_of(&self, column: &str) -> Option<&Vec<Value>> {
        self.inherited
            .iter()
            .find(|(k, _)| k == column)
            .map(|(_, v)| v)
    }

    pub fn statistics(&self) -> Option<&Value> {
        self.statistics.as_deref()
    }
}

/// Python `Path.read_text(encoding="utf-8")`: universal newlines; `None` when absent.
/// The bytes come through the store, checked against the content the snapshot knows.
fn read_text(cx: &Ctx, path: &Path) -> R<Option<String>> {
    let Some(bytes) = cx.state.file_bytes(path, cx.strict)? else {
        return Ok(None);
    };
    crate::ingest::read_text(bytes)
        .map(Some)
        .map_err(QueryError::Other)
}

/// Whether a file of the state is present (declared-but-missing reads absent).
fn exists(state: &Snapshot, path: &Path) -> bool {
    state.has_content(path)
}

/// `_annotation_columns` then `live_annotations`: mapping entries whose column the
/// statistics still list (every key stands when there is no columns map to judge by).
fn live_annotations(mapping: Option<&Value>, statistics: Option<&Value>) -> Vec<(String, Value)> {
    let Some(columns) = mapping
        .and_then(|m| m.get("columns"))
        .and_then(Value::as_map)
    else {
        return Vec::new();
    };
    let known = statistics
        .and_then(|s| s.get("columns"))
        .and_then(Value::as_map);
    columns
        .iter()
        .filter(|(_, e)| matches!(e, Value::Map(_)))
        .filter(|(k, _)| known.is_none_or(|cols| cols.iter().any(|(c, _)| py_eq(c, k))))
        .map(|(k, e)| (compat::py::str_of(k), e.clone()))
        .collect()
}

/// `load_connection_notes`: the stripped notes, and why the file is unreadable.
pub fn connection_notes(cx: &Ctx) -> R<(Option<String>, Option<String>)> {
    let root = &cx.state.config.print_root;
    let path = root.join(MANIFEST_ANNOTATIONS_FILENAME);
    if path.is_file() && !crate::ingest::walk::contained(root, &path) {
        return Ok((None, None));
    }
    let (mapping, reason) = load_annotations(cx, &path, Kind::Manifest)?;
    let Some(mapping) = mapping else {
        return Ok((None, reason));
    };
    let notes = mapping
        .get("notes")
        .and_then(Value::as_str)
        .map(compat::py::strip)
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    Ok((notes, None))
}

fn edge_rows(v: Option<&Value>, key: &str) -> R<Vec<Value>> {
    match v {
        Some(rel) if rel.truthy() => iterate(rel.get(key)),
        _ => Ok(Vec::new()),
    }
}

/// `incoming_rejections`: each referencer's binding rejections of an edge into `fqn`.
fn incoming_rejections(
    cx: &Ctx,
    ix: &Overlay,
    fqn: &str,
    relationships: Option<&Value>,
) -> R<IncomingRejections> {
    let rows = edge_rows(relationships, "referenced_by")?;
    let mut referencers: Vec<String> = rows
        .iter()
        .filter(|e| matches!(e, Value::Map(_)))
        .filter_map(|e| e.get("referencer_table").and_then(Value::as_str))
        .filter(|r| ix.has_table(r))
        .map(str::to_string)
        .collect();
    referencers.sort();
    referencers.dedup();
    let mut out = IncomingRejections::default();
    for referencer in referencers {
        // Only a table declaring the file can author a rejection.
        let Some(annotated) = ix.authored_of(cx, &referencer)? else {
            continue;
        };
        let mut keyed = Vec::new();
        for edge in &rows {
            if matches!(edge, Value::Map(_))
                && edge.get("referencer_table").and_then(Value::as_str) == Some(&referencer)
            {
                keyed.push((incoming_key(edge, fqn)?, edge.clone()));
            }
        }
        let annotated = annotated.unwrap_or_default();
        for (key, rejection) in rejected_edges(&annotated, &keyed)?.entries {
            if key.target_table.as_str() == Some(fqn) {
                let k = IncomingKey {
                    referencer: Value::Str(referencer.clone()),
                    key,
                };
                match out.entries.iter_mut().find(|(e, _)| *e == k) {
                    Some(slot) => slot.1 = rejection,
                    None => out.entries.push((k, rejection)),
                }
            }
        }
    }
    Ok(out)
}

/// `{edge_key(e): e ...}` over the mapping entries of `refers_to`.
fn by_edge_key(relationships: Option<&Value>) -> R<Vec<(EdgeKey, Value)>> {
    let mut out = Vec::new();
    for e in edge_rows(relationships, "refers_to")? {
        if matches!(e, Value::Map(_)) {
            out.push((edge_key(&e)?, e));
        }
    }
    Ok(out)
}

/// `_annotated`: a human edge as one side of the join sees it.
fn annotated_edge(
    entry: &Value,
    fields: &[(&str, &str)],
    extra: Option<(&str, &str)>,
    note: Option<&str>,
) -> Value {
    let mut edge = Value::map(Vec::new());
    if let Some((k, v)) = extra {
        set(&mut edge, k, Value::Str(v.to_string()));
    }
    for (source, to) in fields {
        if let Some(v) = entry.get(source) {
            set(&mut edge, to, v.clone());
        }
    }
    set(&mut edge, "detection", Value::Str("annotated".into()));
    if let Some(n) = note {
        set(&mut edge, "note", Value::Str(n.to_string()));
    }
    edge
}

const OUTGOING_FIELDS: [(&str, &str); 5] = [
    ("column", "column"),
    ("path", "path"),
    ("target_table", "target_table"),
    ("target_column", "target_column"),
    ("target_path", "target_path"),
];
const INCOMING_FIELDS: [(&str, &str); 4] = [
    ("target_column", "column"),
    ("target_path", "path"),
    ("column", "referencer_column"),
    ("path", "referencer_path"),
];

fn human_note(entry: &Value) -> Option<&str> {
    entry
        .get("note")
        .and_then(Value::as_str)
        .filter(|n| !compat::py::strip(n).is_empty())
}

/// `with_human_edges`: the edges people added, on both tables, and their notes on emitted
/// edges. `None` relationships stay `None` (no file, no joins).
fn with_human_edges(
    cx: &Ctx,
    relationships: Option<Value>,
    ix: &Overlay,
    fqn: &str,
) -> R<Option<Value>> {
    let Some(rel) = relationships else {
        return Ok(None);
    };
    let mut refers_to = iterate(rel.get("refers_to"))?;
    let mut referenced_by = iterate(rel.get("referenced_by"))?;
    // Address -> index of the last edge holding it (a dict keeps the last).
    let mut outgoing: Vec<(EdgeKey, usize)> = Vec::new();
    for (i, e) in refers_to.iter().enumerate() {
        if matches!(e, Value::Map(_)) {
            let k = edge_key(e)?;
            match outgoing.iter_mut().find(|(x, _)| *x == k) {
                Some(slot) => slot.1 = i,
                None => outgoing.push((k, i)),
            }
        }
    }
    let mut incoming: Vec<(IncomingKey, usize)> = Vec::new();
    for (i, e) in referenced_by.iter().enumerate() {
        if matches!(e, Value::Map(_)) {
            let k = IncomingKey {
                referencer: e.get("referencer_table").cloned().unwrap_or(Value::Null),
                key: incoming_key(e, fqn)?,
            };
            match incoming.iter_mut().find(|(x, _)| *x == k) {
                Some(slot) => slot.1 = i,
                None => incoming.push((k, i)),
            }
        }
    }
    let mut changed = false;
    // The overlay's own read of the table's file, not the caller's: an edge made from the
    // caller's entries would share their lists, and a YAML reply would spell the second
    // as an alias of the first (the reference reads the file apart for this).
    for entry in &overlay::authored_edges_of(cx, ix, fqn)? {
        let key = edge_key(entry)?;
        let note = human_note(entry);
        match outgoing.iter().find(|(k, _)| *k == key) {
            Some((_, i)) => {
                if let Some(n) = note {
                    set(&mut refers_to[*i], "note", Value::Str(n.to_string()));
                    changed = true;
                }
            }
            None => {
                refers_to.push(annotated_edge(entry, &OUTGOING_FIELDS, None, note));
                changed = true;
            }
        }
    }
    for (referencer, entry) in &ix.human_into(fqn) {
        let key = IncomingKey {
            referencer: Value::Str(referencer.clone()),
            key: edge_key(entry)?,
        };
        let note = human_note(entry);
        match incoming.iter().find(|(k, _)| *k == key) {
            Some((_, i)) => {
                if let Some(n) = note {
                    set(&mut referenced_by[*i], "note", Value::Str(n.to_string()));
                    changed = true;
                }
            }
            None => {
                referenced_by.push(annotated_edge(
                    entry,
                    &INCOMING_FIELDS,
                    Some(("referencer_table", referencer)),
                    note,
                ));
                changed = true;
            }
        }
    }
    if !changed {
        return Ok(Some(rel));
    }
    let mut out = rel;
    set(&mut out, "refers_to", Value::seq(refers_to));
    set(&mut out, "referenced_by", Value::seq(referenced_by));
    Ok(Some(out))
}

/// `_incoming_cardinalities`: the referencing column's distinct count behind each compared
/// incoming edge; a referencer missing or unreadable leaves its edges out.
fn incoming_cardinalities(
    cx: &Ctx,
    ix: &Overlay,
    relationships: Option<&Value>,
) -> R<HashMap<(String, String), Value>> {
    let mut out = HashMap::new();
    let mut parsed: HashMap<String, Option<Arc<Value>>> = HashMap::new();
    let rows = match relationships {
        Some(rel) => match rel.get("referenced_by") {
            Some(v) if v.truthy() => iterate(Some(v))?,
            _ => Vec::new(),
        },
        None => Vec::new(),
    };
    for edge in rows {
        let Some(observed @ Value::Map(_)) = edge.get("observed") else {
            continue;
        };
        if observed.get("answerable_count").is_none() {
            continue;
        }
        let Some(referencer) = edge.get("referencer_table").and_then(Value::as_str) else {
            continue;
        };
        let Some(table) = ix.table(referencer) else {
            continue;
        };
        let Some(columns) = edge.get("referencer_column").and_then(Value::as_seq) else {
            continue;
        };
        if columns.len() != 1 {
            continue;
        }
        if !parsed.contains_key(referencer) {
            let stats = match table.artifact(Artifact::Statistics) {
                Some(path) => load_mapping(cx, &path)?.0,
                None => None,
            };
            parsed.insert(referencer.to_string(), stats);
        }
        let column = parsed[referencer]
            .as_deref()
            .and_then(|s| s.get("columns"))
            .and_then(|cols| lookup_key(cols, &columns[0]));
        if let Some(card @ (Value::Int(_) | Value::BigInt(_) | Value::Bool(_))) = column
            .filter(|c| matches!(c, Value::Map(_)))
            .and_then(|c| cv(c, "cardinality"))
        {
            out.insert(
                (referencer.to_string(), compat::py::str_of(&columns[0])),
                card.clone(),
            );
        }
    }
    Ok(out)
}

/// `mapping.get(key)` with Python key equality.
fn lookup_key<'a>(mapping: &'a Value, key: &Value) -> Option<&'a Value> {
    mapping
        .as_map()?
        .iter()
        .find(|(k, _)| py_eq(k, key))
        .map(|(_, v)| v)
}

/// `_has_meaning`: a note or a value note.
pub fn has_meaning(entry: Option<&Value>) -> bool {
    let Some(entry @ Value::Map(_)) = entry else {
        return false;
    };
    let note = entry
        .get("note")
        .and_then(Value::as_str)
        .is_some_and(|n| !compat::py::strip(n).is_empty());
    note || !super::read::value_notes(Some(entry)).is_empty()
}

/// `_live_source_annotations`: a derived_from source table's live column annotations.
fn source_annotations(cx: &Ctx, table: &Table) -> R<Vec<(String, Value)>> {
    let Some(path) = table.artifact(Artifact::StatisticsAnnotations) else {
        return Ok(Vec::new());
    };
    let (admitted, _) = load_annotations(cx, &path, Kind::Statistics)?;
    let statistics = match table.artifact(Artifact::Statistics) {
        Some(p) => load_mapping(cx, &p)?.0,
        None => None,
    };
    Ok(live_annotations(admitted.as_ref(), statistics.as_deref()))
}

/// `_inherited_notes`: each column's `derived_from` sources that carry a note or value
/// notes, one step deep; an annotation's own list replaces the parsed one.
fn inherited_notes(
    cx: &Ctx,
    ix: &Overlay,
    annotations: &[(String, Value)],
    statistics: Option<&Value>,
) -> R<Vec<(String, Vec<Value>)>> {
    let mut lineage: Vec<(String, Value)> = Vec::new();
    if let Some(cols) = statistics
        .and_then(|s| s.get("columns"))
        .and_then(Value::as_map)
    {
        for (name, col) in cols {
            if let Some(d) = matches!(col, Value::Map(_))
                .then(|| cv(col, "derived_from"))
                .flatten()
            {
                lineage.push((compat::py::str_of(name), d.clone()));
            }
        }
    }
    for (name, entry) in annotations {
        if let Some(d) = entry.get("derived_from") {
            match lineage.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = d.clone(),
                None => lineage.push((name.clone(), d.clone())),
            }
        }
    }
    let mut parsed: HashMap<String, Vec<(String, Value)>> = HashMap::new();
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for (name, sources) in lineage {
        let Some(sources) = sources.as_seq() else {
            continue;
        };
        for source in sources {
            let (Some(table), Some(column)) = (
                source.get("table").and_then(Value::as_str),
                source.get("column").and_then(Value::as_str),
            ) else {
                continue;
            };
            let Some(entry) = ix.table(table) else {
                continue;
            };
            if !parsed.contains_key(table) {
                let live = source_annotations(cx, &entry)?;
                parsed.insert(table.to_string(), live);
            }
            let noted = parsed[table]
                .iter()
                .find(|(k, _)| k == column)
                .map(|(_, v)| v);
            if !has_meaning(noted) {
                continue;
            }
            let Some(noted) = noted else { continue };
            let mut item = Value::map(vec![(
                Value::Str("source".into()),
                Value::Str(format!("{table}.{column}")),
            )]);
            if let Some(note) = noted.get("note").and_then(Value::as_str) {
                if !compat::py::strip(note).is_empty() {
                    set(&mut item, "note", Value::Str(note.to_string()));
                }
            }
            let values: Vec<Value> = noted
                .get("values")
                .and_then(Value::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|v| {
                    let note = v.get("note").and_then(Value::as_str)?;
                    (matches!(v, Value::Map(_)) && !compat::py::strip(note).is_empty()).then(|| {
                        Value::map(vec![
                            (
                                Value::Str("value".into()),
                                v.get("value").cloned().unwrap_or(Value::Null),
                            ),
                            (Value::Str("note".into()), Value::Str(note.to_string())),
                        ])
                    })
                })
                .collect();
            if !values.is_empty() {
                set(&mut item, "values", Value::seq(values));
            }
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1.push(item),
                None => out.push((name.clone(), vec![item])),
            }
        }
    }
    Ok(out)
}

/// The files a call reads for `fqn` and pins in its cursor itself: the manifest, the
/// table's declared artifacts, the connection notes. Every authored relationships
/// annotation file is pinned too, through one digest shared by every table's pins
/// (`context::answer`).
pub fn pinned(state: &Snapshot, ix: &Overlay, fqn: &str) -> Vec<PathBuf> {
    let root = &state.config.print_root;
    let mut files = vec![state.manifest_path()];
    if let Some(t) = ix.table(fqn) {
        files.extend(t.artifacts.iter().map(|(_, name)| t.dir.join(name)));
    }
    files.push(root.join(MANIFEST_ANNOTATIONS_FILENAME));
    files
}

/// The table's declared artifacts and the connection notes: what must be current before
/// the table is read.
pub fn own_files(state: &Snapshot, ix: &Overlay, fqn: &str) -> Vec<PathBuf> {
    let mut files = vec![state.config.print_root.join(MANIFEST_ANNOTATIONS_FILENAME)];
    if let Some(t) = ix.table(fqn) {
        files.extend(t.artifacts.iter().map(|(_, name)| t.dir.join(name)));
    }
    files
}

/// The other tables whose annotation files decide this table's overlay, sorted: the
/// referencers that may reject an edge into it and every table that added an edge into it.
fn deciding_tables(ix: &Overlay, fqn: &str, relationships: Option<&Value>) -> R<Vec<String>> {
    let mut tables: Vec<String> = edge_rows(relationships, "referenced_by")?
        .iter()
        .filter_map(|e| e.get("referencer_table").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    tables.extend(ix.adding_tables(fqn).map(str::to_string));
    tables.sort();
    tables.dedup();
    Ok(tables)
}

/// The overlay on one table's relationships.yaml (`raw`): what people rejected (the table's
/// own verdicts, `annotated`, and its referencers') is withheld, what they added on either
/// side joins it. `None` stays `None` (no file, no joins). `deciding`: the tables
/// [`deciding_tables`] names, whose annotation files must be current.
fn shown_relationships(
    cx: &Ctx,
    ix: &Overlay,
    fqn: &str,
    raw: Option<&Value>,
    annotated: Option<&[Value]>,
    deciding: &[String],
) -> R<Option<Value>> {
    let files = deciding
        .iter()
        .filter_map(|t| ix.table(t)?.artifact(Artifact::RelationshipsAnnotations));
    for path in files {
        super::ensure_current(cx, &path)?;
    }
    let own: Rejections = rejected_edges(annotated.unwrap_or_default(), &by_edge_key(raw)?)?;
    let incoming = incoming_rejections(cx, ix, fqn, raw)?;
    let withheld = match raw {
        Some(rel) => withhold_rejected(rel, &own, &incoming, fqn)?.or_else(|| Some(rel.clone())),
        None => None,
    };
    with_human_edges(cx, withheld, ix, fqn)
}

/// A table's joins as get_table_context shows them, and the edges its own annotation file
/// rejects.
#[derive(Debug, Clone, Default)]
pub struct Joins {
    /// relationships.yaml with the overlay applied; `None` when the table declares none or
    /// the file is unreadable.
    pub shown: Option<Value>,
    /// The binding `verdict: rejected` entries (`column`, `target_table`, `target_column`,
    /// `note`...), as written.
    pub rejected: Vec<Value>,
    /// The table's own annotation entries that address an edge its relationships.yaml
    /// emits without rejecting it: a person confirmed that edge.
    pub confirmed: Vec<Value>,
}

/// A table's joins (`Joins::default()` when its files cannot be read), with the other
/// tables whose annotation files decide them.
pub fn joins_of(cx: &Ctx, ix: &Overlay, fqn: &str) -> (Joins, Vec<String>) {
    match read_joins(cx, ix, fqn) {
        Ok(read) => read,
        // Its own files and the tables adding edges into it still decide it: an edit to
        // any of them reads it again.
        Err(_) => (
            Joins::default(),
            deciding_tables(ix, fqn, None).unwrap_or_default(),
        ),
    }
}

fn read_joins(cx: &Ctx, ix: &Overlay, fqn: &str) -> R<(Joins, Vec<String>)> {
    let Some(table) = ix.table(fqn) else {
        return Ok((Joins::default(), Vec::new()));
    };
    let raw = match table.artifact(Artifact::Relationships) {
        Some(p) => load_mapping(cx, &p)?.0.map(|v| (*v).clone()),
        None => None,
    };
    let annotated = match table.artifact(Artifact::RelationshipsAnnotations) {
        Some(p) => {
            overlay::annotation_entries(load_annotations(cx, &p, Kind::Relationships)?.0.as_ref())
        }
        None => None,
    };
    let deciding = deciding_tables(ix, fqn, raw.as_ref())?;
    let shown = shown_relationships(cx, ix, fqn, raw.as_ref(), annotated.as_deref(), &deciding)?;
    let emitted = by_edge_key(raw.as_ref())?;
    let rejected = rejected_edges(annotated.as_deref().unwrap_or_default(), &emitted)?
        .entries
        .into_iter()
        .map(|(_, entry)| entry)
        .collect();
    let mut confirmed = Vec::new();
    for entry in overlay::authored_edges_of(cx, ix, fqn)? {
        let key = edge_key(&entry)?;
        if emitted.iter().any(|(k, _)| *k == key) {
            confirmed.push(entry);
        }
    }
    let joins = Joins {
        shown,
        rejected,
        confirmed,
    };
    Ok((joins, deciding))
}

/// The relationship annotations less those on edges the print withholds (in the joins
/// file but not shown); `None` when it withholds none.
fn annotations_of_shown(
    entries: &[Value],
    raw: &Value,
    shown: Option<&Value>,
) -> R<Option<Vec<Value>>> {
    let kept: Vec<EdgeKey> = by_edge_key(shown)?.into_iter().map(|(k, _)| k).collect();
    let withheld_keys: Vec<EdgeKey> = by_edge_key(Some(raw))?
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| !kept.contains(k))
        .collect();
    if withheld_keys.is_empty() {
        return Ok(None);
    }
    let mut filtered = Vec::new();
    for e in entries {
        if !withheld_keys.contains(&edge_key(e)?) {
            filtered.push(e.clone());
        }
    }
    Ok(Some(filtered))
}

/// `_load_table_artifacts` plus the connection notes (`_attach_connection_notes`).
pub fn load_table(cx: &Ctx, ix: &Overlay, fqn: &str, failed: &[String]) -> R<Artifacts> {
    let empty = Table {
        entry: Value::map(Vec::new()),
        dir: cx.state.config.print_root.join(fqn.replace('.', "/")),
        artifacts: Vec::new(),
    };
    let table = ix.table(fqn).unwrap_or(empty);
    let entry = &table.entry;
    let mut corrupted: Vec<(String, String)> = Vec::new();

    let ddl = match table.artifact(Artifact::Ddl) {
        Some(p) => read_text(cx, &p)?.unwrap_or_default(),
        None => String::new(),
    };
    let mut statistics = None;
    if let Some(p) = table.artifact(Artifact::Statistics) {
        let (data, reason) = load_mapping(cx, &p)?;
        statistics = data;
        if let Some(r) = reason {
            corrupted.push((Artifact::Statistics.name().into(), r));
        }
    }
    let mut relationships: Option<Value> = None;
    if let Some(p) = table.artifact(Artifact::Relationships) {
        let (data, reason) = load_mapping(cx, &p)?;
        relationships = data.map(|v| (*v).clone());
        if let Some(r) = reason {
            corrupted.push((Artifact::Relationships.name().into(), r));
        }
    }
    let description = match table.artifact(Artifact::Description) {
        Some(p) => read_text(cx, &p)?,
        None => None,
    };
    let mut annotations = Vec::new();
    let mut annotated_grain = None;
    if let Some(p) = table.artifact(Artifact::StatisticsAnnotations) {
        let (admitted, reason) = load_annotations(cx, &p, Kind::Statistics)?;
        if let Some(r) = reason {
            corrupted.push((Artifact::StatisticsAnnotations.name().into(), r));
        }
        annotations = live_annotations(admitted.as_ref(), statistics.as_deref());
        annotated_grain = admitted
            .as_ref()
            .and_then(|m| m.get("grain"))
            .filter(|g| matches!(g, Value::Map(_)))
            .cloned();
    }
    let mut relationship_annotations = None;
    if let Some(p) = table.artifact(Artifact::RelationshipsAnnotations) {
        let (admitted, reason) = load_annotations(cx, &p, Kind::Relationships)?;
        if let Some(r) = reason {
            corrupted.push((Artifact::RelationshipsAnnotations.name().into(), r));
        }
        relationship_annotations = overlay::annotation_entries(admitted.as_ref());
    }

    let raw = relationships.clone();
    let deciding = deciding_tables(ix, fqn, raw.as_ref())?;
    let shown = shown_relationships(
        cx,
        ix,
        fqn,
        raw.as_ref(),
        relationship_annotations.as_deref(),
        &deciding,
    )?;
    if let (Some(entries), Some(raw_rel)) = (&relationship_annotations, &raw) {
        if let Some(kept) = annotations_of_shown(entries, raw_rel, shown.as_ref())? {
            relationship_annotations = Some(kept);
        }
    }

    let mut missing: Vec<String> = table
        .artifacts
        .iter()
        .filter(|(_, name)| !exists(cx.state, &table.dir.join(name)))
        .map(|(kind, _)| kind.clone())
        .collect();
    missing.sort();

    let incoming_cardinalities = incoming_cardinalities(cx, ix, raw.as_ref())?;
    let inherited = inherited_notes(cx, ix, &annotations, statistics.as_deref())?;
    let (notes, notes_reason) = connection_notes(cx)?;
    if let Some(r) = notes_reason {
        corrupted.push(("manifest_annotations".into(), r));
    }
    Ok(Artifacts {
        fqn: fqn.to_string(),
        table_type: entry
            .get("type")
            .cloned()
            .unwrap_or_else(|| Value::Str("table".into())),
        row_count: entry
            .get("row_count")
            .filter(|v| **v != Value::Null)
            .cloned(),
        column_count: count_or_zero(entry.get("columns").filter(|v| v.truthy()))?,
        ddl,
        statistics,
        relationships: shown,
        description,
        annotations,
        annotated_grain,
        relationship_annotations,
        missing,
        corrupted,
        profile_override: entry
            .get("profile")
            .filter(|p| matches!(p, Value::Map(_)))
            .cloned(),
        last_run_failed: failed.iter().any(|f| f == fqn),
        incoming_cardinalities,
        connection_notes: notes,
        inherited,
    })
}
