//! Edges and the human verdicts on them (format spec §2.3, §2.7.2): an edge's address, which
//! `verdict: rejected` entries bind (the referencing table's own annotation file decides, never
//! for a declared edge), and the relationships and diff documents without what a person
//! rejected. Shared by the resources and the tools that read joins or the diff.
//!
//! Python semantics are kept where a print can reach them: `tuple(x or ())` of odd values,
//! `==` across numbers, and the `TypeError` a non-iterable raises (which the reference lets
//! escape, so it surfaces as `QueryError::Other`).

use compat::py::{py_eq, seq_eq};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::QueryError;
use crate::ingest::reading::authored::{self, Kind};
use crate::ingest::walk::{self, Artifact};
use crate::ingest::{ManifestRead, ManifestTables};
use crate::store::files::{Check, FreshFile};
use crate::store::Snapshot;
use compat::value::Value;

/// A YAML print file as a verdict reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Absent,
    Yaml(Value),
    /// `yaml.YAMLError`: the reader treats the file as unreadable.
    YamlError(String),
}

impl Content {
    /// A file the store found current, as a verdict reads it; an error other than a YAML
    /// one escapes, as the reference lets it.
    pub fn of(state: &Snapshot, fresh: &FreshFile) -> Result<Content, QueryError> {
        Ok(match &fresh.check {
            Check::Yaml => match state.current_value(fresh)? {
                Some(v) => Content::Yaml(v),
                None => Content::Absent,
            },
            Check::YamlError(m) => Content::YamlError(m.clone()),
            Check::OtherError(m) => return Err(QueryError::Other(m.clone())),
            Check::Absent | Check::Text => Content::Absent,
        })
    }
}

/// Where verdicts read files from. A read failing with another exception is `Err`
/// (`QueryError::Other`): the reference does not catch those either.
pub trait Files {
    fn read(&self, path: &Path) -> Result<Content, QueryError>;
}

/// The print a verdict is taken over: its root and its walkable manifest entries.
pub struct Print<'a> {
    pub root: &'a Path,
    /// The manifest's `tables` map, cut to walkable entries.
    pub tables: &'a ManifestTables,
    pub files: &'a dyn Files,
}

impl<'a> Print<'a> {
    pub fn new(root: &'a Path, tables: &'a ManifestTables, files: &'a dyn Files) -> Print<'a> {
        Print {
            root,
            tables,
            files,
        }
    }

    /// The walkable entry named `fqn` (the first, as the manifest's own lookup finds it).
    pub fn entry(&self, fqn: &str) -> Option<Value> {
        self.tables.get(fqn)
    }

    /// Whether `fqn` names a walkable entry.
    pub fn holds(&self, fqn: &str) -> bool {
        self.tables.position(fqn).is_some()
    }

    /// The path of a declared artifact of a walkable table, when it declares `kind`.
    pub fn artifact(&self, fqn: &str, kind: walk::Artifact) -> Option<PathBuf> {
        let entry = self.entry(fqn)?;
        walk::declared_artifacts(&entry)
            .into_iter()
            .find(|(k, _)| k == kind.name())
            .map(|(_, name)| self.root.join(walk::table_path(fqn, &entry)).join(name))
    }
}

/// `(tuple(column), target_table, tuple(target_column))`: how a `refers_to` edge is addressed.
#[derive(Debug, Clone)]
pub struct EdgeKey {
    pub column: Vec<Value>,
    pub target_table: Value,
    pub target_column: Vec<Value>,
}

impl PartialEq for EdgeKey {
    fn eq(&self, other: &EdgeKey) -> bool {
        seq_eq(&self.column, &other.column)
            && py_eq(&self.target_table, &other.target_table)
            && seq_eq(&self.target_column, &other.target_column)
    }
}

/// Verdicts by address, as a Python dict keeps them: first position, last value.
#[derive(Debug, Clone)]
pub struct Verdicts<K> {
    pub entries: Vec<(K, Value)>,
}

impl<K> Default for Verdicts<K> {
    fn default() -> Self {
        Verdicts {
            entries: Vec::new(),
        }
    }
}

impl<K: PartialEq> Verdicts<K> {
    fn insert(&mut self, key: K, value: Value) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    pub fn contains(&self, key: &K) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A table's own rejections, by the edge's address.
pub type Rejections = Verdicts<EdgeKey>;

/// Rejections of edges into a table, by `(referencer_table, address)`.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingKey {
    pub referencer: Value,
    pub key: EdgeKey,
}

pub type IncomingRejections = Verdicts<IncomingKey>;

fn not_iterable(v: &Value) -> QueryError {
    let name = match v {
        Value::Date(_) => "datetime.date",
        Value::DateTime(_) => "datetime.datetime",
        other => other.py_type_name(),
    };
    QueryError::Other(format!("'{name}' object is not iterable"))
}

/// The items `for x in (v or [])` visits.
pub fn iterate(v: Option<&Value>) -> Result<Vec<Value>, QueryError> {
    match v {
        None => Ok(Vec::new()),
        Some(v) if !v.truthy() => Ok(Vec::new()),
        Some(Value::Seq(items)) => Ok(items.to_vec()),
        Some(Value::Map(pairs)) => Ok(pairs.iter().map(|(k, _)| k.clone()).collect()),
        Some(Value::Str(s)) => Ok(s.chars().map(|c| Value::Str(c.to_string())).collect()),
        Some(Value::Bytes(b)) => Ok(b.iter().map(|x| Value::Int(i64::from(*x))).collect()),
        Some(other) => Err(not_iterable(other)),
    }
}

fn field<'v>(entry: &'v Value, key: &str) -> Option<&'v Value> {
    entry.get(key)
}

fn or_null(v: Option<&Value>) -> Value {
    v.cloned().unwrap_or(Value::Null)
}

/// `edge_key`: the address of a `refers_to` edge.
pub fn edge_key(entry: &Value) -> Result<EdgeKey, QueryError> {
    Ok(EdgeKey {
        column: iterate(field(entry, "column"))?,
        target_table: or_null(field(entry, "target_table")),
        target_column: iterate(field(entry, "target_column"))?,
    })
}

/// `incoming_key`: the address of the referencer's own edge behind a `referenced_by` row.
pub fn incoming_key(entry: &Value, table: &str) -> Result<EdgeKey, QueryError> {
    Ok(EdgeKey {
        column: iterate(field(entry, "referencer_column"))?,
        target_table: Value::Str(table.to_string()),
        target_column: iterate(field(entry, "column"))?,
    })
}

/// `edge_detection`: absent or empty reads `inferred`, the weaker claim.
pub fn edge_detection(edge: &Value) -> Value {
    match edge.get("detection") {
        Some(d) if d.truthy() => d.clone(),
        _ => Value::Str("inferred".into()),
    }
}

/// `verdict_binds`: never on a declared edge; an edge the file does not hold binds.
fn verdict_binds(edge: Option<&Value>) -> bool {
    edge.is_none_or(|e| edge_detection(e).as_str() != Some("declared"))
}

/// `rejected_edges`: the binding `verdict: rejected` entries of an annotation `refers_to` list.
/// `edges` maps each address the table's file holds to its edge (last one wins, as a dict).
pub fn rejected_edges(
    annotated: &[Value],
    edges: &[(EdgeKey, Value)],
) -> Result<Rejections, QueryError> {
    let mut out = Rejections::default();
    for entry in annotated {
        if !matches!(entry, Value::Map(_))
            || entry.get("verdict").and_then(Value::as_str) != Some("rejected")
        {
            continue;
        }
        let key = edge_key(entry)?;
        let edge = edges.iter().rev().find(|(k, _)| *k == key).map(|(_, e)| e);
        if verdict_binds(edge) {
            out.insert(key, entry.clone());
        }
    }
    Ok(out)
}

/// `{edge_key(e): e for e in refers_to or [] if isinstance(e, dict)}`.
fn addressed(refers_to: Option<&Value>) -> Result<Vec<(EdgeKey, Value)>, QueryError> {
    iterate(refers_to)?
        .into_iter()
        .filter(|e| matches!(e, Value::Map(_)))
        .map(|e| Ok((edge_key(&e)?, e)))
        .collect()
}

/// The table's own binding rejections from its `relationships.annotations.yaml`
/// (`path`, when declared) over the edges its `refers_to` holds. An absent, unparseable
/// or inadmissible file rejects nothing.
pub fn own_rejections(
    files: &dyn Files,
    path: Option<&Path>,
    refers_to: Option<&Value>,
) -> Result<Rejections, QueryError> {
    let Some(path) = path else {
        return Ok(Rejections::default());
    };
    let Content::Yaml(data) = files.read(path)? else {
        return Ok(Rejections::default());
    };
    let Some(admitted) = authored::admitted(Kind::Relationships, &data) else {
        return Ok(Rejections::default());
    };
    let edges = addressed(refers_to)?;
    let annotated = admitted
        .get("refers_to")
        .and_then(Value::as_seq)
        .unwrap_or_default();
    rejected_edges(annotated, &edges)
}

/// An admitted annotation file as `load_annotations` gives it; `None` when absent,
/// unparseable, not a mapping or not admitted.
pub fn load_annotations(
    files: &dyn Files,
    path: &Path,
    kind: Kind,
) -> Result<Option<Value>, QueryError> {
    match files.read(path)? {
        Content::Yaml(data @ Value::Map(_)) => Ok(authored::admitted(kind, &data)),
        _ => Ok(None),
    }
}

/// `referenced_by` rows of `relationships`, as `(relationships or {}).get(...) or []` yields them.
fn referenced_by(relationships: &Value) -> Result<Vec<Value>, QueryError> {
    if !relationships.truthy() {
        return Ok(Vec::new());
    }
    iterate(relationships.get("referenced_by"))
}

/// Each referencer's binding rejections of an edge into `fqn`, keyed by referencer and
/// address, and the annotation files consulted (the referencer alone authors a rejection).
pub fn incoming_rejections(
    print: &Print,
    fqn: &str,
    relationships: &Value,
) -> Result<(IncomingRejections, Vec<PathBuf>), QueryError> {
    let rows = referenced_by(relationships)?;
    let mut referencers: Vec<String> = rows
        .iter()
        .filter(|e| matches!(e, Value::Map(_)))
        .filter_map(|e| e.get("referencer_table").and_then(Value::as_str))
        .filter(|r| print.holds(r))
        .map(str::to_string)
        .collect();
    referencers.sort();
    referencers.dedup();
    let mut out = IncomingRejections::default();
    let mut consulted = Vec::new();
    for referencer in referencers {
        let Some(path) = print.artifact(&referencer, Artifact::RelationshipsAnnotations) else {
            continue;
        };
        consulted.push(path.clone());
        let annotations = load_annotations(print.files, &path, Kind::Relationships)?;
        let mut keyed = Vec::new();
        for edge in &rows {
            if matches!(edge, Value::Map(_))
                && edge.get("referencer_table").and_then(Value::as_str) == Some(referencer.as_str())
            {
                keyed.push((incoming_key(edge, fqn)?, edge.clone()));
            }
        }
        let annotated: Vec<Value> = annotations
            .as_ref()
            .and_then(|a| a.get("refers_to"))
            .and_then(Value::as_seq)
            .map(|entries| {
                entries
                    .iter()
                    .filter(|e| matches!(e, Value::Map(_)))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        for (key, rejection) in rejected_edges(&annotated, &keyed)?.entries {
            if key.target_table.as_str() == Some(fqn) {
                let incoming = IncomingKey {
                    referencer: Value::Str(referencer.clone()),
                    key,
                };
                out.insert(incoming, rejection);
            }
        }
    }
    Ok((out, consulted))
}

/// Which of `entries` survive: the ones whose address no verdict names.
fn kept(
    entries: &[Value],
    rejected: impl Fn(&Value) -> Result<bool, QueryError>,
) -> Result<Vec<Value>, QueryError> {
    let mut out = Vec::new();
    for e in entries {
        if !(matches!(e, Value::Map(_)) && rejected(e)?) {
            out.push(e.clone());
        }
    }
    Ok(out)
}

/// `withhold_rejected`: `relationships` less every edge a person rejected, from both
/// `refers_to` and `referenced_by`; `None` when nothing is withheld (the file is then
/// served as it is).
pub fn withhold_rejected(
    relationships: &Value,
    rejected: &Rejections,
    incoming: &IncomingRejections,
    table: &str,
) -> Result<Option<Value>, QueryError> {
    if !relationships.truthy() {
        return Ok(None);
    }
    let refers_to = relationships.get("refers_to");
    let referenced = relationships.get("referenced_by");
    let outgoing = iterate(refers_to)?;
    let incoming_rows = iterate(referenced)?;
    let own = kept(&outgoing, |e| Ok(rejected.contains(&edge_key(e)?)))?;
    let others = kept(&incoming_rows, |e| {
        let key = IncomingKey {
            referencer: or_null(e.get("referencer_table")),
            key: incoming_key(e, table)?,
        };
        Ok(incoming.contains(&key))
    })?;
    if own.len() == outgoing.len() && others.len() == incoming_rows.len() {
        return Ok(None);
    }
    let mut out = relationships.clone();
    if refers_to.is_some_and(|v| *v != Value::Null) {
        super::value::set(&mut out, "refers_to", Value::seq(own));
    }
    if referenced.is_some_and(|v| *v != Value::Null) {
        super::value::set(&mut out, "referenced_by", Value::seq(others));
    }
    Ok(Some(out))
}

/// The rejections a relationship event's source table authored (`_source_verdicts`),
/// recording the files read: its annotation file and its relationships file.
fn source_verdicts(
    print: &Print,
    source: &str,
    consulted: &mut Vec<PathBuf>,
) -> Result<Rejections, QueryError> {
    let Some(path) = print.artifact(source, Artifact::RelationshipsAnnotations) else {
        return Ok(Rejections::default());
    };
    consulted.push(path.clone());
    let mut edges = None;
    if let Some(relationships) = print.artifact(source, Artifact::Relationships) {
        consulted.push(relationships.clone());
        if let Content::Yaml(data @ Value::Map(_)) = print.files.read(&relationships)? {
            edges = data.get("refers_to").cloned();
        }
    }
    own_rejections(print.files, Some(&path), edges.as_ref())
}

/// The print a diff's verdicts are taken over in `state`, its verdict files read through
/// `files`: `None` without a usable manifest (nothing is withheld); a manifest whose read
/// failed otherwise fails the call.
pub fn verdict_print<'a>(
    state: &'a Snapshot,
    files: &'a dyn Files,
) -> Result<Option<Print<'a>>, QueryError> {
    match &state.manifest {
        ManifestRead::Ok { doc, .. } => Ok(Some(Print::new(
            &state.config.print_root,
            doc.tables(),
            files,
        ))),
        ManifestRead::Failed(m) => Err(QueryError::Other(m.clone())),
        _ => Ok(None),
    }
}

/// Which dict events of a diff are kept, decided one event at a time (a diff runs to
/// hundreds of thousands): a relationship event is dropped when its source table, a
/// walkable one, rejected the edge; each source's verdict files are read once.
pub struct EventFilter<'p, 'a> {
    print: Option<&'p Print<'a>>,
    verdicts: HashMap<String, Rejections>,
    /// The annotation and relationships files read to decide, in the order first read.
    pub consulted: Vec<PathBuf>,
}

impl<'p, 'a> EventFilter<'p, 'a> {
    /// `print` is `None` when the connection has no readable manifest: every event is kept.
    pub fn new(print: Option<&'p Print<'a>>) -> EventFilter<'p, 'a> {
        EventFilter {
            print,
            verdicts: HashMap::new(),
            consulted: Vec::new(),
        }
    }

    /// Whether the dict event `change` is kept.
    pub fn keeps(&mut self, change: &Value) -> Result<bool, QueryError> {
        let Some(print) = self.print else {
            return Ok(true);
        };
        // `str(kind).startswith("relationship_")` holds only for a str kind.
        let relationship = change
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k.starts_with("relationship_"));
        if !relationship {
            return Ok(true);
        }
        let Some(source) = change
            .get("source_table")
            .and_then(Value::as_str)
            .filter(|s| print.holds(s))
        else {
            return Ok(true);
        };
        if !self.verdicts.contains_key(source) {
            let v = source_verdicts(print, source, &mut self.consulted)?;
            self.verdicts.insert(source.to_string(), v);
        }
        let key = EdgeKey {
            column: iterate(change.get("source_column"))?,
            target_table: or_null(change.get("target_table")),
            target_column: iterate(change.get("target_column"))?,
        };
        Ok(!self.verdicts[source].contains(&key))
    }
}

/// The keys `{**data, "changes": kept}` shows besides `changes`, in the document's order,
/// and the place `changes` takes among them; `summary.relationships_changed` counts
/// `dropped` fewer events. `None` (with 0) when `data` is not a mapping: it is shown as it is.
pub fn shown_header(data: &Value, dropped: usize) -> (Option<Vec<(Value, Value)>>, usize) {
    let Value::Map(pairs) = data else {
        return (None, 0);
    };
    let at = pairs
        .iter()
        .position(|(k, _)| k.as_str() == Some("changes"))
        .unwrap_or(pairs.len());
    let mut header: Vec<(Value, Value)> = pairs
        .iter()
        .filter(|(k, _)| k.as_str() != Some("changes"))
        .cloned()
        .collect();
    if dropped > 0 {
        if let Some(summary @ Value::Map(_)) = data.get("summary") {
            let changed = match summary.get("relationships_changed") {
                Some(Value::Int(n)) => Some(Value::Int(n - dropped as i64)),
                Some(Value::Bool(b)) => Some(Value::Int(i64::from(*b) - dropped as i64)),
                Some(Value::BigInt(n)) => Some(bigint_minus(n, dropped)),
                _ => None,
            };
            if let Some(changed) = changed {
                let mut adjusted = summary.clone();
                super::value::set(&mut adjusted, "relationships_changed", changed);
                if let Some(slot) = header
                    .iter_mut()
                    .find(|(k, _)| k.as_str() == Some("summary"))
                {
                    slot.1 = adjusted;
                }
            }
        }
    }
    (Some(header), at)
}

/// A count beyond 64 bits less a small one; such a count is never real, but stays exact.
fn bigint_minus(n: &str, k: usize) -> Value {
    match n.parse::<i128>() {
        Ok(v) => {
            let r = v - k as i128;
            match i64::try_from(r) {
                Ok(small) => Value::Int(small),
                Err(_) => Value::BigInt(r.to_string()),
            }
        }
        Err(_) => Value::BigInt(n.to_string()),
    }
}

#[cfg(test)]
mod tests;
