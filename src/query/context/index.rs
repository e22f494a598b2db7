//! What a get_table_context call needs from other tables, kept per connection state so a
//! call never opens every table's annotation file: the walkable entries by FQN, each
//! declaring table's admitted `relationships.annotations.yaml` edges, and the human-added
//! edges by the table they point at. Parsed files are shared through a small
//! content-addressed cache (path and blake3), so a changed file is never served stale.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::spell::R;
use super::Ctx;
use crate::error::QueryError;
use crate::ingest::{walk, Parsed};
use crate::reading::authored::{self, Kind};
use compat::value::Value;

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
    pub fn artifact(&self, kind: &str) -> Option<PathBuf> {
        self.artifacts
            .iter()
            .find(|(k, _)| k == kind)
            .map(|(_, name)| self.dir.join(name))
    }
}

/// What the overlay needs from every table, derived from the manifest and the annotation
/// files alone, so a new state with the same manifest and annotation files reuses it.
#[derive(Debug, Default)]
pub struct Core {
    pub tables: HashMap<String, Table>,
    /// Every walkable table declaring `relationships_annotations`, FQN-sorted: its admitted
    /// `refers_to` mapping entries (`None`: absent, unreadable or not admitted).
    pub authored: BTreeMap<String, Option<Vec<Value>>>,
    /// Each declaring table's annotation file, for cursor pins.
    pub author_paths: Vec<PathBuf>,
    /// Human-added edges by the table they point at: (referencer, entry), referencers sorted.
    pub human_into: HashMap<String, Vec<(String, Value)>>,
    /// What the core was built from: the walkable manifest and each author file's version.
    manifest: Option<Value>,
    author_versions: Vec<String>,
}

impl Core {
    pub fn table(&self, fqn: &str) -> Option<&Table> {
        self.tables.get(fqn)
    }
}

/// One connection state's index: the shared core, and per-table cursor digests (which
/// also pin the table's own files, so they belong to the state).
#[derive(Debug, Default)]
pub struct Index {
    core: Arc<Core>,
    /// Each table's cursor files digest (the pinned set is fixed per state), once computed.
    pub digests: Mutex<HashMap<String, String>>,
}

impl std::ops::Deref for Index {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

/// The last core built per connection (print root), reused by a later state whose manifest
/// and annotation files are the same (a reconcile that found nothing new, say).
fn built() -> &'static Mutex<HashMap<PathBuf, Arc<Core>>> {
    static BUILT: OnceLock<Mutex<HashMap<PathBuf, Arc<Core>>>> = OnceLock::new();
    BUILT.get_or_init(|| Mutex::new(HashMap::new()))
}

type CacheKey = (PathBuf, String);

/// Parsed YAML by (path, content hash): a hit is the same content, whatever state asks.
fn cache() -> &'static Mutex<HashMap<CacheKey, Arc<Value>>> {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Arc<Value>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Bound on cached parses; the cache is dropped whole when it fills (cheap to refill).
const CACHE_ENTRIES: usize = 256;

fn internal(e: impl std::fmt::Display) -> QueryError {
    QueryError::Internal(e.to_string())
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
    let key = (path.to_path_buf(), hash.clone());
    if let Some(hit) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Loaded::Yaml(hit.clone()));
    }
    match cx.engine.mirror().parsed(path).map_err(internal)? {
        Some(Parsed::Yaml(v)) => {
            let v = Arc::new(v);
            let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
            if c.len() >= CACHE_ENTRIES {
                c.clear();
            }
            c.insert(key, v.clone());
            Ok(Loaded::Yaml(v))
        }
        Some(Parsed::YamlError(m)) => Ok(Loaded::YamlError(m)),
        Some(Parsed::OtherError(m)) => Err(QueryError::Other(m)),
        _ => Ok(Loaded::Absent),
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

/// The state's index, built on first use (or its core reused from the previous state).
pub fn index(cx: &Ctx) -> R<Arc<Index>> {
    if let Some(ix) = cx.state.context.get() {
        return Ok(ix.clone());
    }
    let root = cx.state.config.print_root.clone();
    let manifest = cx.state.manifest_or_error().ok().flatten();
    let previous = built()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&root)
        .cloned();
    let core = match previous.filter(|core| {
        core.manifest.as_ref() == manifest
            && core
                .author_paths
                .iter()
                .zip(&core.author_versions)
                .all(|(p, v)| cx.state.version_of(p) == *v)
    }) {
        Some(core) => core,
        None => {
            let core = Arc::new(build(cx)?);
            built()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(root, core.clone());
            core
        }
    };
    let ix = Arc::new(Index {
        core,
        digests: Mutex::new(HashMap::new()),
    });
    Ok(cx.state.context.get_or_init(|| ix).clone())
}

fn build(cx: &Ctx) -> R<Core> {
    let mut ix = Core::default();
    let state = cx.state;
    let Ok(Some(manifest)) = state.manifest_or_error() else {
        return Ok(ix);
    };
    ix.manifest = Some(manifest.clone());
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
        let Some(path) = ix.tables[fqn].artifact("relationships_annotations") else {
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
    ix.author_versions = paths.iter().map(|p| state.version_of(p)).collect();
    ix.authored = authored;
    ix.author_paths = paths;
    Ok(ix)
}

/// The own edges a table's file adds, and every human edge pointing into it.
pub fn authored_edges_of<'a>(ix: &'a Core, fqn: &str) -> Vec<&'a Value> {
    ix.authored
        .get(fqn)
        .and_then(Option::as_ref)
        .map(|entries| entries.iter().filter(|e| is_authored_edge(e)).collect())
        .unwrap_or_default()
}
