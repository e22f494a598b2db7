//! The overlay: what a get_table_context call needs from other tables, built once per
//! content so a call never opens every table's annotation file: the walkable entries by
//! FQN, each declaring table's admitted `relationships.annotations.yaml` edges, and the
//! human-added edges by the table they point at. Parsed files come through the store's
//! cache keyed by path and blake3, so a changed file is never served stale.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Ctx;
use super::R;
use crate::error::QueryError;
use crate::ingest::reading::authored::{self, Kind};
use crate::ingest::walk::{self, Artifact};
use crate::ingest::Parsed;
use crate::store::cache::{value_weight, Key};
use crate::store::Snapshot;
use compat::value::Value;

/// The file whose every copy decides the overlay's edges.
const RELATIONSHIPS_ANNOTATIONS: &str = "relationships.annotations.yaml";

/// A file of the print as a reader meets it.
#[derive(Debug, Clone)]
pub enum Loaded {
    Absent,
    Yaml(Arc<Value>),
    /// `yaml.YAMLError`'s text.
    YamlError(String),
}

/// One walkable manifest entry.
#[derive(Debug, Clone)]
pub struct Table {
    pub entry: Value,
    pub dir: PathBuf,
    /// Declared artifacts under their canonical names, in the entry's order.
    pub artifacts: Vec<(String, String)>,
}

impl Table {
    pub fn artifact(&self, kind: Artifact) -> Option<PathBuf> {
        self.artifacts
            .iter()
            .find(|(k, _)| k == kind.name())
            .map(|(_, name)| self.dir.join(name))
    }
}

/// What the overlay needs from every table, derived from the manifest and the annotation
/// files alone, so a new state with the same manifest and annotation files reuses it.
#[derive(Debug, Default)]
pub struct Overlay {
    pub tables: HashMap<String, Table>,
    /// Every walkable table declaring `relationships_annotations`, FQN-sorted: its admitted
    /// `refers_to` mapping entries (`None`: absent, unreadable or not admitted).
    pub authored: BTreeMap<String, Option<Vec<Value>>>,
    /// Each declaring table's annotation file, for cursor pins.
    pub author_paths: Vec<PathBuf>,
    /// Human-added edges by the table they point at: (referencer, entry), referencers sorted.
    pub human_into: HashMap<String, Vec<(String, Value)>>,
}

impl Overlay {
    pub fn table(&self, fqn: &str) -> Option<&Table> {
        self.tables.get(fqn)
    }

    /// Roughly what the overlay holds, in bytes, for the cache's budget.
    fn weight(&self) -> usize {
        let tables: usize = self
            .tables
            .values()
            .map(|t| 64 + t.dir.as_os_str().len() + value_weight(&t.entry))
            .sum();
        let edges: usize = self
            .human_into
            .values()
            .flatten()
            .map(|(r, v)| r.len() + value_weight(v))
            .sum();
        tables + edges + self.authored.len() * 64
    }
}

/// A print file as the mirror holds it for `state`. A non-YAML failure (bad UTF-8, an
/// impossible date) escapes as the call's error, as it does in the reference.
pub fn load(cx: &Ctx, path: &Path) -> R<Loaded> {
    if cx.strict && !cx.state.unchanged_on_disk(path) {
        return Err(super::stale(path));
    }
    let Some(hash) = cx.state.hashes.get(path) else {
        return Ok(Loaded::Absent);
    };
    let key = Key::new(
        "parsed print file",
        [path.as_os_str().as_encoded_bytes(), hash.as_bytes()],
    );
    let read = || {
        Ok(match cx.state.parsed(path)? {
            Some(Parsed::Yaml(v)) => Loaded::Yaml(Arc::new(v)),
            Some(Parsed::YamlError(m)) => Loaded::YamlError(m),
            Some(Parsed::OtherError(m)) => return Err(QueryError::Other(m)),
            _ => Loaded::Absent,
        })
    };
    if cx.bulk {
        return match cx.state.cache().peek::<Loaded>(&key) {
            Some(kept) => Ok((*kept).clone()),
            None => read(),
        };
    }
    let parsed = cx.state.cache().get_or_build(key, loaded_weight, read)?;
    Ok((*parsed).clone())
}

fn loaded_weight(loaded: &Loaded) -> usize {
    match loaded {
        Loaded::Yaml(v) => value_weight(v),
        Loaded::YamlError(m) => m.len(),
        Loaded::Absent => 1,
    }
}

/// `_load_artifact`: the mapping, or why a present file is unreadable.
pub fn load_mapping(cx: &Ctx, path: &Path) -> R<(Option<Arc<Value>>, Option<String>)> {
    Ok(match load(cx, path)? {
        Loaded::Absent => (None, None),
        Loaded::YamlError(m) => (None, Some(m)),
        Loaded::Yaml(v) if matches!(*v, Value::Map(_)) => (Some(v), None),
        Loaded::Yaml(_) => (None, Some("parses, but is not a mapping".into())),
    })
}

/// `load_annotations`: the admitted body, or why the file is unusable.
pub fn load_annotations(cx: &Ctx, path: &Path, kind: Kind) -> R<(Option<Value>, Option<String>)> {
    let (data, reason) = load_mapping(cx, path)?;
    let Some(data) = data else {
        return Ok((None, reason));
    };
    if let Some(problem) = authored::malformation(kind, &data) {
        return Ok((
            None,
            Some(format!("does not match its schema (SPEC 2.7): {problem}")),
        ));
    }
    Ok((authored::admitted(kind, &data), None))
}

/// `_relationship_annotation_entries`: the mapping entries of `refers_to`, when a list.
pub fn annotation_entries(mapping: Option<&Value>) -> Option<Vec<Value>> {
    let entries = mapping?.get("refers_to")?.as_seq()?;
    Some(
        entries
            .iter()
            .filter(|e| matches!(e, Value::Map(_)))
            .cloned()
            .collect(),
    )
}

/// An entry a human added: no verdict, and every address field set.
fn is_authored_edge(entry: &Value) -> bool {
    entry.get("verdict").is_none()
        && ["column", "target_table", "target_column"]
            .iter()
            .all(|k| entry.get(k).is_some_and(Value::truthy))
}

/// The state's overlay: built once per content of the manifest and the relationships
/// annotation files, so a state that changed only other files shares its predecessor's.
pub fn overlay(cx: &Ctx) -> R<Arc<Overlay>> {
    let state = cx.state;
    let key = Key::new("context overlay", [key_parts(state).as_slice()]);
    state
        .cache()
        .get_or_build(key, Overlay::weight, || build(cx))
}

/// A digest of what the overlay is built from: the print's root, the manifest's content
/// and every relationships annotation file's.
pub fn key_parts(state: &Snapshot) -> [u8; 32] {
    let manifest = state.version_of(&state.manifest_path());
    let authored = state.versions.named(RELATIONSHIPS_ANNOTATIONS);
    let mut h = blake3::Hasher::new();
    for part in [
        state.config.print_root.as_os_str().as_encoded_bytes(),
        manifest.as_bytes(),
        authored.as_slice(),
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    *h.finalize().as_bytes()
}

fn build(cx: &Ctx) -> R<Overlay> {
    let mut ix = Overlay::default();
    let state = cx.state;
    let Ok(Some(manifest)) = state.manifest_or_error() else {
        return Ok(ix);
    };
    let root = &state.config.print_root;
    if let Some(entries) = manifest.get("tables").and_then(Value::as_map) {
        for (key, entry) in entries {
            let fqn = compat::py::str_of(key);
            let table = Table {
                dir: root.join(walk::table_path(&fqn, entry)),
                artifacts: walk::declared_artifacts(entry),
                entry: entry.clone(),
            };
            ix.tables.insert(fqn, table);
        }
    }
    let mut names: Vec<&String> = ix.tables.keys().collect();
    names.sort();
    let mut authored = BTreeMap::new();
    let mut paths = Vec::new();
    for fqn in names {
        let Some(path) = ix.tables[fqn].artifact(Artifact::RelationshipsAnnotations) else {
            continue;
        };
        let (admitted, _) = load_annotations(cx, &path, Kind::Relationships)?;
        authored.insert(fqn.clone(), annotation_entries(admitted.as_ref()));
        paths.push(path);
    }
    for (referencer, entries) in &authored {
        for entry in entries.iter().flatten().filter(|e| is_authored_edge(e)) {
            if let Some(target) = entry.get("target_table").and_then(Value::as_str) {
                ix.human_into
                    .entry(target.to_string())
                    .or_default()
                    .push((referencer.clone(), entry.clone()));
            }
        }
    }
    ix.authored = authored;
    ix.author_paths = paths;
    Ok(ix)
}

/// The own edges a table's file adds, and every human edge pointing into it.
pub fn authored_edges_of<'a>(ix: &'a Overlay, fqn: &str) -> Vec<&'a Value> {
    ix.authored
        .get(fqn)
        .and_then(Option::as_ref)
        .map(|entries| entries.iter().filter(|e| is_authored_edge(e)).collect())
        .unwrap_or_default()
}
