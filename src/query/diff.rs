//! get_diff: the connection's diff.yaml less its events about edges people rejected
//! (`edges::diff_without_rejected`, the one implementation the diff resource shares), its
//! `changes` narrowed by `table` and `kind`, in file order, beside every other key.
//!
//! The withheld document is kept in memory between calls: a diff runs to megabytes
//! (16,000 events on a 2,000-table print), and rebuilding it per call would cost more
//! than answering. A kept copy is used only while the manifest it was built over (its
//! content and walkable tables) is current and every file that decided it (diff.yaml,
//! and the annotation and relationships files its verdicts read) still has the identity
//! it had before it was read, the same test the mirror trusts.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::edges::{self, Content, Files};
use super::pins::Pins;
use crate::error::QueryError;
use crate::ingest::{file_identity, walk, FileIdentity, ManifestRead, DIFF_FILENAME};
use crate::store::cache::{value_weight, Key};
use crate::store::files::Check;
use crate::store::Snapshot;
use compat::value::Value;

/// The event kinds of the packaged diff.schema.json (`$defs.Kind.enum`), in its order:
/// the `kind` argument's enum.
pub const KINDS: [&str; 24] = [
    "table_added",
    "table_removed",
    "table_type_changed",
    "external_changed",
    "column_added",
    "column_removed",
    "column_type_changed",
    "column_nullable_changed",
    "column_default_changed",
    "column_physical_name_changed",
    "column_collation_changed",
    "statistic_changed",
    "table_row_count_changed",
    "grain_changed",
    "physical_layout_changed",
    "merging_changed",
    "depends_on_changed",
    "relationship_added",
    "relationship_removed",
    "relationship_modified",
    "index_added",
    "index_removed",
    "index_modified",
    "comment_changed",
];

/// The fields a `table` filter reads: relationship events name their two tables in
/// `source_table`/`target_table`, every other event in `table`.
const TABLE_FIELDS: [&str; 3] = ["table", "source_table", "target_table"];

pub struct Request<'a> {
    pub table: Option<&'a str>,
    pub kind: Option<&'a str>,
}

/// The diff a call shows.
#[derive(Debug)]
pub enum Diff {
    /// diff.yaml parses to something other than a mapping: the reply is `{}`.
    NotMapping,
    Events(Events),
}

/// The kept events a call's filters match, over the prepared diff (nothing copied: a page
/// takes only its own events).
pub struct Events {
    kept: Arc<Kept>,
    matched: Arc<Vec<u32>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("total", &self.total())
            .finish()
    }
}

impl Events {
    /// Top-level entries other than `changes`, in file order (summary adjusted).
    pub fn header(&self) -> &[(Value, Value)] {
        match &self.kept.prepared {
            Prepared::Diff { header, .. } => header,
            Prepared::NotMapping => &[],
        }
    }

    /// How many kept events the filters match.
    pub fn total(&self) -> usize {
        self.matched.len()
    }

    /// The `i`-th matching event, in file order.
    pub fn change(&self, i: usize) -> &Value {
        match &self.kept.prepared {
            Prepared::Diff { changes, .. } => &changes[self.matched[i] as usize],
            Prepared::NotMapping => &Value::Null,
        }
    }

    /// diff.yaml and every file that decided it.
    pub fn pins(&self) -> Pins {
        match &self.kept.prepared {
            Prepared::Diff { pins, .. } => pins.clone(),
            Prepared::NotMapping => Pins::of(&[]),
        }
    }
}

/// The diff as every call over the same files sees it.
#[derive(Debug)]
enum Prepared {
    /// diff.yaml parses to something other than a mapping: the reply is `{}`.
    NotMapping,
    Diff {
        /// Top-level entries other than `changes`, in file order (summary adjusted).
        header: Vec<(Value, Value)>,
        /// The dict events kept, in file order.
        changes: Vec<Value>,
        /// Where `changes` stands among the top-level keys (`None`: absent).
        changes_at: Option<usize>,
        /// How many events about rejected edges were withheld.
        dropped: usize,
        /// diff.yaml and every file that decided it.
        pins: Pins,
    },
}

/// Each deciding file with its identity taken before it was read (`None`: absent).
type Identities = Vec<(PathBuf, Option<FileIdentity>)>;

/// A prepared diff and what decided it, as the cache holds it.
struct Kept {
    identities: Identities,
    prepared: Prepared,
}

impl Kept {
    /// Whether every deciding file still has the identity it had when it was read.
    fn current(&self) -> bool {
        // Stats only: a print may have hundreds of deciding files.
        self.identities
            .iter()
            .all(|(p, id)| file_identity(p) == *id)
    }

    fn weight(&self) -> usize {
        let Prepared::Diff {
            header, changes, ..
        } = &self.prepared
        else {
            return 1;
        };
        let header: usize = header
            .iter()
            .map(|(k, v)| value_weight(k) + value_weight(v))
            .sum();
        header + changes.iter().map(value_weight).sum::<usize>()
    }
}

/// diff.yaml's document less its withheld events, for the diff resource.
pub struct Withheld {
    kept: Arc<Kept>,
}

impl Withheld {
    /// diff.yaml and every file that decided the document: its version.
    pub fn pins(&self) -> Pins {
        match &self.kept.prepared {
            Prepared::Diff { pins, .. } => pins.clone(),
            Prepared::NotMapping => Pins::none(),
        }
    }

    /// The whole document as shown: the header's keys with `changes` in its own place.
    pub fn document(&self) -> Value {
        let Prepared::Diff {
            header,
            changes,
            changes_at,
            ..
        } = &self.kept.prepared
        else {
            return Value::map(Vec::new());
        };
        let mut pairs = header.clone();
        if let Some(at) = *changes_at {
            pairs.insert(
                at.min(pairs.len()),
                (Value::Str("changes".into()), Value::seq(changes.clone())),
            );
        }
        Value::map(pairs)
    }
}

/// What the diff resource at `path` shows beyond the file itself: `None` when the file is
/// shown as it is (nothing withheld, or not a mapping), else the document less the
/// withheld events. Shares get_diff's kept diff, so a read costs what a get_diff does.
pub fn withheld(state: &Snapshot, path: &Path) -> Result<Option<Withheld>, QueryError> {
    let kept = prepared(state, path)?;
    match &kept.prepared {
        Prepared::Diff { dropped, .. } if *dropped > 0 => Ok(Some(Withheld { kept })),
        _ => Ok(None),
    }
}

/// Build the connection's diff ahead of its first call (serve runs this in the background
/// at startup): the first build of a large diff reads megabytes from the mirror, which a
/// call should not wait for.
pub fn warm(state: &Snapshot) {
    let root = &state.config.print_root;
    let path = root.join(DIFF_FILENAME);
    if path.is_file() && walk::contained(root, &path) {
        // A failure here is the first call's to report, in its own words.
        let _ = prepared(state, &path);
    }
}

/// A path as Python's `str(Path)` spells it: repeated separators and `.` folded.
fn shown(path: &Path) -> String {
    path.components().collect::<PathBuf>().display().to_string()
}

pub fn answer(state: &Snapshot, req: &Request) -> Result<Diff, QueryError> {
    let root = &state.config.print_root;
    let path = root.join(DIFF_FILENAME);
    if !path.is_file() || !walk::contained(root, &path) {
        return Err(QueryError::NoDiff(shown(&path)));
    }
    let kept = prepared(state, &path)?;
    let Prepared::Diff { changes, pins, .. } = &kept.prepared else {
        return Ok(Diff::NotMapping);
    };
    // The filters' matches, once per prepared content and filter pair.
    let key = Key::new(
        "diff matches",
        [
            pins.digest().as_bytes(),
            path.as_os_str().as_encoded_bytes(),
            req.table.unwrap_or("\0").as_bytes(),
            req.kind.unwrap_or("\0").as_bytes(),
        ],
    );
    let matched = state.cache().get_or_build(
        key,
        |m: &Vec<u32>| 4 * m.len() + 16,
        || -> Result<Vec<u32>, QueryError> {
            Ok(changes
                .iter()
                .enumerate()
                .filter(|(_, c)| matches(c, req.table, req.kind))
                .map(|(i, _)| i as u32)
                .collect())
        },
    )?;
    Ok(Diff::Events(Events { kept, matched }))
}

/// One event against the `kind` and `table` filters, both optional and ANDed.
fn matches(change: &Value, table: Option<&str>, kind: Option<&str>) -> bool {
    if let Some(kind) = kind {
        if change.get("kind").and_then(Value::as_str) != Some(kind) {
            return false;
        }
    }
    match table {
        None => true,
        Some(table) => TABLE_FIELDS
            .iter()
            .any(|f| change.get(f).and_then(Value::as_str) == Some(table)),
    }
}

/// The diff as built over this state's manifest, kept while every file that decided it is
/// unchanged: the key names the walkable tables (the manifest's content and what links
/// dropped) and diff.yaml; the files the verdicts read are found only while building, so
/// a kept diff is checked against their identities.
fn prepared(state: &Snapshot, path: &Path) -> Result<Arc<Kept>, QueryError> {
    let manifest_version = state.version_of(&state.manifest_path());
    let dropped = match &state.manifest {
        ManifestRead::Ok { dropped, .. } => dropped.join("\0"),
        _ => String::new(),
    };
    let key = Key::new(
        "prepared diff",
        [
            state.config.name.as_bytes(),
            path.as_os_str().as_encoded_bytes(),
            state.manifest.state().as_bytes(),
            manifest_version.as_bytes(),
            dropped.as_bytes(),
        ],
    );
    state
        .cache()
        .get_valid_or_build(key, Kept::current, Kept::weight, || build(state, path))
}

/// Read diff.yaml from the mirror (parsing it only when its identity moved since ingest)
/// and withhold the events about rejected edges.
fn build(state: &Snapshot, path: &Path) -> Result<Kept, QueryError> {
    let tracked = TrackedFiles {
        state,
        seen: RefCell::new(Vec::new()),
    };
    let before = file_identity(path);
    let fresh = state.current_file(path, None, "diff", false)?;
    let data = match &fresh.check {
        Check::Yaml => state.current_value(&fresh)?,
        Check::YamlError(m) => {
            return Err(QueryError::YamlParse {
                path: shown(path),
                message: m.clone(),
            })
        }
        Check::OtherError(m) => return Err(QueryError::Other(m.clone())),
        // Gone since the check above: the reference's open fails the same way.
        Check::Absent | Check::Text => None,
    };
    let Some(data) = data else {
        return Err(QueryError::NoDiff(shown(path)));
    };
    let mut identities = vec![(path.to_path_buf(), before)];
    if !matches!(data, Value::Map(_)) {
        return Ok(Kept {
            identities,
            prepared: Prepared::NotMapping,
        });
    }
    let filtered = edges::diff_without_rejected_in(state, &data, &tracked)?;
    let mut files = vec![(
        path.display().to_string(),
        fresh.hash.clone().unwrap_or_else(|| "absent".into()),
    )];
    for consulted in &filtered.consulted {
        let (identity, hash) = tracked.version(consulted)?;
        identities.push((consulted.clone(), identity));
        files.push((consulted.display().to_string(), hash));
    }
    let (header, changes, changes_at) = split(filtered.shown);
    Ok(Kept {
        identities,
        prepared: Prepared::Diff {
            header,
            changes,
            changes_at,
            dropped: filtered.dropped,
            pins: Pins::of(&files),
        },
    })
}

/// The shown document as its header entries, its `changes` (`{**data, "changes": kept}`:
/// a list) and where `changes` stood among the keys.
fn split(shown: Value) -> (Vec<(Value, Value)>, Vec<Value>, Option<usize>) {
    let Value::Map(pairs) = shown else {
        return (Vec::new(), Vec::new(), None);
    };
    let mut header = Vec::with_capacity(pairs.len());
    let mut changes = Vec::new();
    let mut changes_at = None;
    for (k, v) in std::sync::Arc::unwrap_or_clone(pairs) {
        if k.as_str() == Some("changes") {
            changes_at = Some(header.len());
            if let Value::Seq(items) = v {
                changes = std::sync::Arc::unwrap_or_clone(items);
            }
        } else {
            header.push((k, v));
        }
    }
    (header, changes, changes_at)
}

/// What one read of a deciding file saw.
struct Seen {
    path: PathBuf,
    identity: Option<FileIdentity>,
    hash: Option<String>,
    content: Content,
}

/// The files a verdict reads, each once, through the mirror; each remembers the
/// identity it had before the read, so a kept diff can tell when it went stale.
struct TrackedFiles<'a> {
    state: &'a Snapshot,
    seen: RefCell<Vec<Seen>>,
}

impl TrackedFiles<'_> {
    fn record(&self, path: &Path) -> Result<usize, QueryError> {
        if let Some(i) = self.seen.borrow().iter().position(|s| s.path == path) {
            return Ok(i);
        }
        let identity = file_identity(path);
        let kind = walk::ARTIFACT_FILENAMES
            .iter()
            .find(|(_, f)| path.file_name().and_then(|n| n.to_str()) == Some(*f))
            .map(|(k, _)| *k)
            .unwrap_or("relationships");
        let fresh = self.state.current_file(path, None, kind, false)?;
        let content = Content::of(self.state, &fresh)?;
        let mut seen = self.seen.borrow_mut();
        seen.push(Seen {
            path: path.to_path_buf(),
            identity,
            hash: fresh.hash,
            content,
        });
        Ok(seen.len() - 1)
    }

    /// A deciding file's identity before it was read and its content version.
    fn version(&self, path: &Path) -> Result<(Option<FileIdentity>, String), QueryError> {
        let i = self.record(path)?;
        let seen = self.seen.borrow();
        let s = &seen[i];
        Ok((
            s.identity,
            s.hash.clone().unwrap_or_else(|| "absent".into()),
        ))
    }
}

impl Files for TrackedFiles<'_> {
    fn read(&self, path: &Path) -> Result<Content, QueryError> {
        let i = self.record(path)?;
        Ok(self.seen.borrow()[i].content.clone())
    }
}

#[cfg(test)]
mod tests;
