//! The overlay: what a get_table_context call needs from other tables, built once per
//! content so a call never opens every table's annotation file: the walkable entries by
//! FQN, the human-added edges by the table they point at, and the pins of every
//! relationships annotation file. A table's own admitted `relationships.annotations.yaml`
//! entries are read when asked for: one call reads a few, and a read of every table
//! (validate_sql's catalog) reads them all once. Parsed files come through the store's
//! cache keyed by path and blake3, so a changed file is never served stale.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::Ctx;
use super::R;
use crate::error::QueryError;
use crate::ingest::reading::authored::{self, Kind};
use crate::ingest::walk::{self, Artifact};
use crate::ingest::{ManifestTables, Parsed};
use crate::query::pins::Pins;
use crate::store::cache::{value_weight, Key};
use crate::store::derived::{self, HeldBytes, HeldTexts, HeldWords, Kept};
use crate::store::Snapshot;
use compat::value::{packed, Value};
use serde::{Deserialize, Serialize};

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
#[derive(Debug)]
pub struct Overlay {
    root: PathBuf,
    /// The manifest's `tables` entries (shared with the snapshot's manifest, not copied),
    /// looked up by FQN as `str()` spells each key: a table is made when asked for, not
    /// for every table of a large print up front.
    entries: ManifestTables,
    /// Kept beside the index: a start reads it instead of every annotation file.
    edges: Arc<AuthoredEdges>,
    /// Every declaring table's admitted entries, read when a read of every table first
    /// asks (the cache holds it under its own key too).
    whole: OnceLock<Arc<Authored>>,
}

/// What the overlay reads from every relationships annotation file: kept on disk beside
/// the index (`store::derived`), since on a large print it is tens of thousands of files.
#[derive(Debug, Serialize, Deserialize)]
pub struct Authored {
    /// Every walkable table declaring `relationships_annotations`, FQN-sorted: its admitted
    /// `refers_to` mapping entries (`None`: absent, unreadable or not admitted).
    #[serde(with = "entries_text")]
    pub by_table: BTreeMap<String, Option<Vec<Value>>>,
    /// Each declaring table's annotation file at its content version, as every
    /// get_table_context cursor pins them: made once with the reads (sorting tens of
    /// thousands of paths as Python does took a new process most of its first call).
    pub pins: Pins,
    /// What each entry of `by_table` was read from, for the read after an edit to take
    /// the entries of the files that did not move.
    read_from: ReadFrom,
}

/// The manifest the annotation files were found through (so the declaring tables and
/// their files are the same while it holds), and each file's content hash and path, in
/// `by_table`'s order (hash `None`: absent).
#[derive(Debug, Default, Serialize, Deserialize)]
struct ReadFrom {
    manifest: String,
    hashes: Vec<Option<[u8; 32]>>,
    /// Empty when a path is not text.
    paths: Vec<String>,
}

impl ReadFrom {
    /// Whether a read under `manifest` may take `entries` entries read from these files.
    fn holds(&self, manifest: &str, entries: usize) -> bool {
        self.manifest == manifest && self.hashes.len() == entries && self.paths.len() == entries
    }
}

impl Default for Authored {
    fn default() -> Authored {
        Authored {
            by_table: BTreeMap::new(),
            pins: Pins::none(),
            read_from: ReadFrom::default(),
        }
    }
}

impl Kept for Authored {
    /// 5: what each entry was read from. 6: with each file's path.
    const ENCODING: u32 = 6;
}

/// What every relationships annotation file adds to other tables' answers: the edges
/// people added, by the table they point at, and the files' pins. Small beside
/// [`Authored`], and looked up by table, so a call about one table decodes one table's
/// edges. Its texts and numbers are kept as runs, which a session reading it back
/// borrows from the kept file (`derived::HeldTexts`) rather than copies.
#[derive(Debug, Serialize, Deserialize)]
pub struct AuthoredEdges {
    /// The tables some added edge points at, FQN-sorted.
    targets: HeldTexts,
    /// Where each target's adding tables start in `referencers`, and where the last end.
    firsts: HeldWords,
    /// The adding tables, target by target: one per edge (a table may add two), each
    /// target's sorted.
    referencers: HeldTexts,
    /// Each target's entries, one per referencer, as one packed list (decoded when asked
    /// for), one list after another.
    entries: HeldBytes,
    /// Where each target's list ends in `entries`.
    entry_ends: HeldWords,
    pins: Pins,
}

impl Kept for AuthoredEdges {
    /// 2: texts and lists kept as runs.
    const ENCODING: u32 = 2;
}

impl AuthoredEdges {
    /// No edges, pinning `pins`.
    fn none(pins: Pins) -> AuthoredEdges {
        AuthoredEdges {
            targets: HeldTexts::default(),
            firsts: HeldWords::of(&[0]),
            referencers: HeldTexts::default(),
            entries: HeldBytes::default(),
            entry_ends: HeldWords::default(),
            pins,
        }
    }

    fn of(authored: &Authored) -> AuthoredEdges {
        let mut into: BTreeMap<&str, (Vec<&str>, Vec<Value>)> = BTreeMap::new();
        for (referencer, entries) in &authored.by_table {
            for entry in entries.iter().flatten().filter(|e| is_authored_edge(e)) {
                if let Some(target) = entry.get("target_table").and_then(Value::as_str) {
                    let (referencers, entries) = into.entry(target).or_default();
                    referencers.push(referencer);
                    entries.push(entry.clone());
                }
            }
        }
        let (mut targets, mut adding) = (derived::Texts::default(), derived::Texts::default());
        let (mut firsts, mut packed, mut entry_ends) = (vec![0], Vec::new(), Vec::new());
        for (target, (referencers, entries)) in into {
            // Fewer than 2^32 tables and bytes: a print's annotation files hold less.
            targets.push(target);
            referencers.iter().for_each(|r| {
                adding.push(r);
            });
            firsts.push(adding.len() as u32);
            packed.extend_from_slice(&packed::to_bytes(&Value::seq(entries)));
            entry_ends.push(packed.len() as u32);
        }
        AuthoredEdges {
            targets: HeldTexts::of(&targets),
            firsts: HeldWords::of(&firsts),
            referencers: HeldTexts::of(&adding),
            entries: HeldBytes::Own(packed.into_boxed_slice()),
            entry_ends: HeldWords::of(&entry_ends),
            pins: authored.pins.clone(),
        }
    }

    /// `fqn`'s place among the targets.
    fn find(&self, fqn: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.targets.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.targets.get(mid) {
                Some(t) if t < fqn => low = mid + 1,
                _ => high = mid,
            }
        }
        (self.targets.get(low) == Some(fqn)).then_some(low)
    }

    /// The tables adding the edges into the target at `at`, in order.
    fn referencers_of(&self, at: usize) -> impl Iterator<Item = &str> {
        let from = self.firsts.get(at).unwrap_or(0) as usize;
        let to = self.firsts.get(at + 1).unwrap_or(0) as usize;
        (from..to).filter_map(|i| self.referencers.get(i))
    }

    /// The packed list of the edges into the target at `at`.
    fn entries_of(&self, at: usize) -> &[u8] {
        let from = match at {
            0 => 0,
            _ => self.entry_ends.get(at - 1).unwrap_or(0) as usize,
        };
        let to = self.entry_ends.get(at).unwrap_or(0) as usize;
        self.entries.get(from..to).unwrap_or_default()
    }

    fn weight(&self) -> usize {
        self.targets.weight()
            + self.referencers.weight()
            + self.entries.len()
            + 4 * (self.firsts.len() + self.entry_ends.len())
    }
}

/// The entries kept as the mirror keeps values (`packed::bytes`), as one mapping of
/// FQN to its list (`None` as null).
mod entries_text {
    use std::collections::BTreeMap;

    use compat::value::{packed, Value};
    use serde::{Deserializer, Serializer};

    type Entries = BTreeMap<String, Option<Vec<Value>>>;

    pub fn serialize<S: Serializer>(entries: &Entries, s: S) -> Result<S::Ok, S::Error> {
        let as_value = Value::map(
            entries
                .iter()
                .map(|(k, v)| {
                    let v = v.as_ref().map_or(Value::Null, |l| Value::seq(l.clone()));
                    (Value::Str(k.clone()), v)
                })
                .collect(),
        );
        packed::bytes::serialize(&as_value, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        let value = packed::bytes::deserialize(d)?;
        Ok(value
            .as_map()
            .unwrap_or_default()
            .iter()
            .filter_map(|(k, v)| {
                let entries = match v {
                    Value::Null => None,
                    v => Some(v.as_seq()?.to_vec()),
                };
                Some((k.as_str()?.to_string(), entries))
            })
            .collect())
    }
}

impl Overlay {
    /// The walkable table `fqn`, as its manifest entry declares it.
    pub fn table(&self, fqn: &str) -> Option<Table> {
        let at = self.entries.position_by_text(fqn)?;
        let entry = self.entries.entry(at);
        Some(Table {
            dir: self.root.join(walk::table_path(fqn, &entry)),
            artifacts: walk::declared_artifacts(&entry),
            entry,
        })
    }

    /// Whether the manifest lists `fqn`.
    pub fn has_table(&self, fqn: &str) -> bool {
        self.entries.position_by_text(fqn).is_some()
    }

    /// Every table's FQN, sorted.
    pub fn fqns(&self) -> Vec<std::borrow::Cow<'_, str>> {
        let mut names: Vec<_> = self.entries.key_texts().collect();
        names.sort();
        names.dedup();
        names
    }

    /// `fqn`'s admitted relationships annotation entries when it declares the file
    /// (`Some(None)`: absent, unreadable or not admitted), `None` when it does not. Read
    /// from the table's file, or from the whole read once one was made.
    pub fn authored_of(&self, cx: &Ctx, fqn: &str) -> R<Option<Option<Vec<Value>>>> {
        if cx.bulk || self.whole.get().is_some() {
            return Ok(self.whole(cx)?.by_table.get(fqn).cloned());
        }
        let Some(path) = self
            .table(fqn)
            .and_then(|t| t.artifact(Artifact::RelationshipsAnnotations))
        else {
            return Ok(None);
        };
        let (admitted, _) = load_annotations(cx, &path, Kind::Relationships)?;
        Ok(Some(annotation_entries(admitted.as_ref())))
    }

    /// Every declaring table's admitted entries, read once (kept beside the index).
    fn whole(&self, cx: &Ctx) -> R<Arc<Authored>> {
        if let Some(whole) = self.whole.get() {
            return Ok(whole.clone());
        }
        let (scope, key) = authored_keys(cx.state);
        let whole = cx.state.kept(
            scope,
            key,
            |_| true,
            || {
                // The read before an edit, this process's or the one kept on disk.
                let before = cx.state.kept_in_scope::<Authored>(&scope);
                read_authored(cx, self, before.as_deref())
            },
        )?;
        Ok(self.whole.get_or_init(|| whole).clone())
    }

    /// The edges people added into `fqn`: (referencer, entry), referencers sorted.
    pub fn human_into(&self, fqn: &str) -> Vec<(String, Value)> {
        let Some(at) = self.edges.find(fqn) else {
            return Vec::new();
        };
        let entries = packed::from_bytes(self.edges.entries_of(at))
            .ok()
            .and_then(|v| v.as_seq().map(<[Value]>::to_vec))
            .unwrap_or_default();
        let referencers = self.edges.referencers_of(at).map(str::to_string);
        referencers.zip(entries).collect()
    }

    /// The tables whose annotation files added an edge into `fqn`, sorted (one per edge).
    pub fn adding_tables(&self, fqn: &str) -> impl Iterator<Item = &str> {
        let at = self.edges.find(fqn);
        at.into_iter().flat_map(|at| self.edges.referencers_of(at))
    }

    /// Every declaring table's annotation file at its content version.
    pub fn author_pins(&self) -> &Pins {
        &self.edges.pins
    }

    /// Roughly what the overlay holds beyond what it shares, in bytes, for the cache's
    /// budget.
    fn weight(&self) -> usize {
        self.entries.len() * 8 + self.edges.weight()
    }
}

/// A print file as the mirror holds it for `state`. A non-YAML failure (bad UTF-8, an
/// impossible date) escapes as the call's error, as it does in the reference.
pub fn load(cx: &Ctx, path: &Path) -> R<Loaded> {
    super::ensure_current(cx, path)?;
    let Some(hash) = cx.state.hash_of(path) else {
        return Ok(Loaded::Absent);
    };
    let key = Key::new(
        "parsed print file",
        [path.as_os_str().as_encoded_bytes(), hash.hex().as_bytes()],
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

/// The kept annotation reads' scope (the connection's print) and key (the overlay's).
fn authored_keys(state: &Snapshot) -> (Key, Key) {
    kept_keys(
        state,
        "context overlay authored",
        "context overlay authored of",
    )
}

/// The kept added edges' scope and key, as [`authored_keys`].
fn edges_keys(state: &Snapshot) -> (Key, Key) {
    kept_keys(
        state,
        "context overlay added edges",
        "context overlay added edges of",
    )
}

/// A value the overlay keeps: its scope (the connection's print) and key (the overlay's).
fn kept_keys(state: &Snapshot, kind: &'static str, scope_kind: &'static str) -> (Key, Key) {
    let key = Key::new(kind, [key_parts(state).as_slice()]);
    let scope = Key::new(
        scope_kind,
        [state.config.print_root.as_os_str().as_encoded_bytes()],
    );
    (scope, key)
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
    let started = std::time::Instant::now();
    let state = cx.state;
    let root = state.config.print_root.clone();
    let entries = match state.manifest_or_error() {
        Ok(Some(manifest)) => manifest.tables().clone(),
        _ => ManifestTables::from_entries(&[]),
    };
    let mut ix = Overlay {
        root,
        entries,
        edges: Arc::new(AuthoredEdges::none(Pins::none())),
        whole: OnceLock::new(),
    };
    let (scope, key) = edges_keys(state);
    ix.edges = state.kept(
        scope,
        key,
        |_| true,
        || Ok::<_, QueryError>(AuthoredEdges::of(&*ix.whole(cx)?)),
    )?;
    tracing::debug!(elapsed = ?started.elapsed(), "context overlay built");
    Ok(ix)
}

/// Every declaring table's relationships annotation file, read through the mirror. Under
/// the manifest `before` was read under, the declaring tables and their files are the ones
/// it found, and a file whose content did not move is taken from it: after an edit to one
/// file while serving, the read walked every table's manifest entry and read every file
/// again (half a second at 100,000 tables).
fn read_authored(cx: &Ctx, ix: &Overlay, before: Option<&Authored>) -> R<Authored> {
    type Before<'b> = Option<(&'b Option<Vec<Value>>, Option<[u8; 32]>)>;
    let state = cx.state;
    let manifest = state.version_of(&state.manifest_path());
    let files: Vec<(String, PathBuf, Before<'_>)> =
        match before.filter(|b| b.read_from.holds(&manifest, b.by_table.len())) {
            Some(b) => (b.by_table.iter().zip(&b.read_from.hashes))
                .zip(&b.read_from.paths)
                .map(|(((fqn, entries), hash), path)| {
                    (fqn.clone(), PathBuf::from(path), Some((entries, *hash)))
                })
                .collect(),
            None => (ix.fqns().iter())
                .filter_map(|fqn| {
                    let path = ix
                        .table(fqn)?
                        .artifact(Artifact::RelationshipsAnnotations)?;
                    Some((fqn.to_string(), path, None))
                })
                .collect(),
        };
    let mut authored = Authored::default();
    let mut pinned = Vec::with_capacity(files.len());
    let mut read_from = ReadFrom {
        manifest,
        hashes: Vec::with_capacity(files.len()),
        paths: Vec::with_capacity(files.len()),
    };
    let mut every_path_text = true;
    let (mut taken, mut read_again) = (0usize, 0usize);
    for (fqn, path, before) in files {
        let hash = state.hash_of(&path).map(|h| *h.as_bytes());
        let entries = match before {
            Some((entries, read)) if read.is_some() && read == hash => {
                // As a read of it would: a file moved on disk since the snapshot is
                // stale to a strict call.
                super::ensure_current(cx, &path)?;
                taken += 1;
                entries.clone()
            }
            _ => {
                read_again += 1;
                let (admitted, _) = load_annotations(cx, &path, Kind::Relationships)?;
                annotation_entries(admitted.as_ref())
            }
        };
        match path.to_str() {
            Some(text) => read_from.paths.push(text.to_string()),
            None => every_path_text = false,
        }
        pinned.push((path.display().to_string(), state.version_of(&path)));
        // The manifest's tables are FQN-sorted and each once, as `by_table` iterates.
        authored.by_table.insert(fqn, entries);
        read_from.hashes.push(hash);
    }
    if !every_path_text {
        // Kept as text only: the next read walks the manifest's entries again.
        read_from.paths.clear();
    }
    authored.pins = Pins::of(&pinned);
    authored.read_from = read_from;
    tracing::debug!(taken, read_again, "relationships annotation files read");
    Ok(authored)
}

/// The edges a table's own annotation file adds.
pub fn authored_edges_of(cx: &Ctx, ix: &Overlay, fqn: &str) -> R<Vec<Value>> {
    Ok(ix
        .authored_of(cx, fqn)?
        .flatten()
        .map(|entries| entries.into_iter().filter(is_authored_edge).collect())
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(yaml: &str) -> Option<Vec<Value>> {
        annotation_entries(Some(&compat::yaml::load(yaml).unwrap()))
    }

    #[test]
    fn added_edges_are_kept_by_the_table_they_point_at_and_decoded_alone() {
        let mut authored = Authored::default();
        authored.by_table.insert(
            "db.b".into(),
            entries(
                "refers_to:\n- {column: [x], target_table: db.t, target_column: [id], note: from b}\n\
                 - {column: [y], target_table: db.t, target_column: [id], verdict: rejected}\n",
            ),
        );
        authored.by_table.insert(
            "db.a".into(),
            entries(
                "refers_to:\n- {column: [x], target_table: db.t, target_column: [id]}\n\
                 - {column: [z], target_table: db.u, target_column: [id]}\n\
                 - {column: [w], target_table: db.u}\n",
            ),
        );
        authored.by_table.insert("db.c".into(), None);
        authored.pins = Pins::of(&[("a".into(), "1".into())]);
        let edges = AuthoredEdges::of(&authored);
        // Targets sorted; a verdict or a missing address field is no added edge.
        let targets: Vec<_> = (0..3).map(|i| edges.targets.get(i)).collect();
        assert_eq!(targets, [Some("db.t"), Some("db.u"), None]);
        let t = edges.find("db.t").unwrap();
        assert_eq!(
            edges.referencers_of(t).collect::<Vec<_>>(),
            ["db.a", "db.b"]
        );
        assert_eq!(edges.find("db.u"), Some(1));
        for absent in ["db.a", "db.s", "db.v", ""] {
            assert!(edges.find(absent).is_none(), "{absent}");
        }
        assert_eq!(edges.pins.digest(), authored.pins.digest());

        // Read back as a later process reads it.
        let bytes = postcard::to_stdvec(&edges).unwrap();
        let back: AuthoredEdges = postcard::from_bytes(&bytes).unwrap();
        let u = back.find("db.u").unwrap();
        assert_eq!(back.referencers_of(u).collect::<Vec<_>>(), ["db.a"]);
        let into_t = back.find("db.t").unwrap();
        let decoded = packed::from_bytes(back.entries_of(into_t)).unwrap();
        let decoded = decoded.as_seq().unwrap();
        assert_eq!(decoded.len(), 2);
        assert_eq!(
            decoded[0].get("column"),
            authored.by_table["db.a"].as_ref().unwrap()[0].get("column")
        );
        assert_eq!(
            decoded[1].get("note").and_then(Value::as_str),
            Some("from b")
        );
    }
}
