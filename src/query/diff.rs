//! get_diff: the connection's diff.yaml less its events about edges people rejected
//! (decided an event at a time by `edges::EventFilter`; the diff resource shows the same
//! document through [`withheld`]), its `changes` narrowed by `table` and `kind`, in file
//! order, beside every other key.
//!
//! What the withheld document keeps is held between calls: a diff runs to hundreds of
//! megabytes (800,000 events on a 100,000-table print), and deciding it per call would
//! cost more than answering. Only the header and, per kept event, its place in the list
//! and what the filters compare are held; the events stay in the mirror (ingest stores
//! diff.yaml's list an item at a time) and a page reads its own. A kept diff is used only
//! while the manifest it was built over (its content and walkable tables) is current and
//! every file that decided it (diff.yaml, and the annotation and relationships files its
//! verdicts read) still has the identity it had before it was read, the same test the
//! mirror trusts.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::edges::{self, Content, EventFilter, Files};
use super::pins::Pins;
use crate::error::QueryError;
use crate::ingest::{file_identity, walk, FileIdentity, ManifestRead, DIFF_FILENAME};
use crate::store::cache::Key;
use crate::store::derived::{self, HeldWords};
use crate::store::files::Check;
use crate::store::snapshot::SplitItems;
use crate::store::Snapshot;
use compat::value::Value;
use serde::{Deserialize, Serialize};

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
/// reads only its own events).
pub struct Events {
    kept: Arc<Kept>,
    matched: Arc<Vec<u32>>,
    items: SplitItems,
    /// The matching events read so far, from the `usize`-th on: a page reads its events
    /// from the mirror a window at a time, not one query each.
    window: RefCell<(usize, Vec<Value>)>,
}

/// Matching events a page reads from the mirror at once.
const WINDOW: usize = 64;

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

    /// The `i`-th matching event, in file order (`QueryError::Stale` when diff.yaml was
    /// rewritten since this diff was prepared and its events went from the mirror).
    pub fn change(&self, i: usize) -> Result<Value, QueryError> {
        let Prepared::Diff { changes, .. } = &self.kept.prepared else {
            return Ok(Value::Null);
        };
        if i >= self.matched.len() {
            return Err(QueryError::Internal("a diff event past the matches".into()));
        }
        let mut window = self.window.borrow_mut();
        let (from, read) = &mut *window;
        if i < *from || i >= *from + read.len() {
            let to = (i + WINDOW).min(self.matched.len());
            *read = changes.events(&self.items, &self.matched[i..to])?;
            *from = i;
        }
        Ok(read[i - *from].clone())
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
#[derive(Debug, Serialize, Deserialize)]
enum Prepared {
    /// diff.yaml parses to something other than a mapping: the reply is `{}`.
    NotMapping,
    Diff {
        /// Top-level entries other than `changes`, in file order (summary adjusted).
        #[serde(with = "header_text")]
        header: Vec<(Value, Value)>,
        /// The dict events kept, in file order.
        changes: Box<KeptChanges>,
        /// Where `changes` stands among the top-level keys.
        changes_at: usize,
        /// How many events about rejected edges were withheld.
        dropped: usize,
        /// diff.yaml and every file that decided it.
        pins: Pins,
    },
}

/// The header kept as the mirror keeps values (`packed::bytes`), as one mapping.
mod header_text {
    use compat::value::{packed, Value};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(header: &[(Value, Value)], s: S) -> Result<S::Ok, S::Error> {
        packed::bytes::serialize(&Value::map(header.to_vec()), s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Value, Value)>, D::Error> {
        let value = packed::bytes::deserialize(d)?;
        Ok(value.as_map().map(<[_]>::to_vec).unwrap_or_default())
    }
}

/// A name no event field holds: an absent field, or one that is not a string.
const NO_NAME: u32 = u32::MAX;

/// The kept events by their place in diff.yaml's list, with what the filters compare:
/// each event's kind, and the events that name each table, so a `table` filter reads its
/// table's few events rather than every event's fields (800,000 of them at 100,000
/// tables). Its runs of numbers are lent by the kept file a session reads it back from
/// (`derived::HeldWords`), not copied.
#[derive(Debug, Default, Serialize, Deserialize)]
struct KeptChanges {
    /// Where the events themselves are.
    source: Source,
    /// Each kept event's position in diff.yaml's `changes`.
    ords: HeldWords,
    /// Each kept event's `kind`, as a number from `names`.
    kinds: HeldWords,
    /// Where each name's run of `naming` starts, by the name's number, and where the
    /// last ends.
    naming_starts: HeldWords,
    /// Name by name, the kept events (by their number among the kept, in file order)
    /// that hold the name in one of their [`TABLE_FIELDS`].
    naming: HeldWords,
    names: Names,
}

/// A kept diff while it is built: the names each event holds are noted, and put in
/// runs by name once every event is in.
#[derive(Default)]
struct ChangesBuilder {
    /// The source and the names; its runs are made by `finish`.
    kept: KeptChanges,
    ords: Vec<u32>,
    kinds: Vec<u32>,
    /// Each (name, event) pair a table field makes, in file order.
    named: Vec<(u32, u32)>,
}

impl ChangesBuilder {
    /// Keep the event at `ord` of the list (held here when the list is held whole).
    fn keep(&mut self, ord: u32, change: &Value) {
        let kept = &mut self.kept;
        if let Source::Memory(held) = &mut kept.source {
            held.push(change.clone());
        }
        let event = self.ords.len() as u32;
        let kind = kept.name(change.get("kind"));
        let tables = TABLE_FIELDS.map(|field| kept.name(change.get(field)));
        self.ords.push(ord);
        self.kinds.push(kind);
        for (i, &name) in tables.iter().enumerate() {
            // An event naming a table twice (a join of a table to itself) is one match.
            if name != NO_NAME && !tables[..i].contains(&name) {
                self.named.push((name, event));
            }
        }
    }

    /// The kept diff, each name's events in one run (a counting sort: file order holds
    /// within a name).
    fn finish(self) -> KeptChanges {
        let ChangesBuilder {
            mut kept,
            ords,
            kinds,
            named,
        } = self;
        let names = kept.names.texts.len();
        let mut starts = vec![0u32; names + 1];
        for &(name, _) in &named {
            starts[name as usize + 1] += 1;
        }
        for i in 0..names {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut naming = vec![0u32; named.len()];
        for &(name, event) in &named {
            let at = &mut next[name as usize];
            naming[*at as usize] = event;
            *at += 1;
        }
        kept.ords = HeldWords::of(&ords);
        kept.kinds = HeldWords::of(&kinds);
        kept.naming_starts = HeldWords::of(&starts);
        kept.naming = HeldWords::of(&naming);
        kept
    }
}

/// The names the filters compare, kept as one text and where each ends, so a kept diff
/// reads back without a string or a map entry per table. A call looks a filter's name up
/// once, by going through them; only the build numbers names by a map.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Names {
    /// Every name, in number order.
    texts: derived::Texts,
    /// The numbers given so far, while the diff is built.
    #[serde(skip)]
    numbered: HashMap<Box<str>, u32>,
}

impl Names {
    /// `name`'s number, given it now when it has none.
    fn number(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.numbered.get(name) {
            return n;
        }
        // A diff names fewer than 2^32 tables and columns in under 4 GB of text.
        let n = self.texts.push(name).unwrap_or(NO_NAME);
        self.numbered.insert(name.into(), n);
        n
    }

    /// `name`'s number (`None`: no event holds it).
    fn find(&self, name: &str) -> Option<u32> {
        let n = self.texts.iter().position(|t| t == Some(name))?;
        u32::try_from(n).ok()
    }
}

#[derive(Debug, Serialize, Deserialize)]
enum Source {
    /// diff.yaml as ingest stored it, its list an item at a time, under its content hash.
    Mirror { path: PathBuf, hash: String },
    /// diff.yaml as this call parsed it whole (it moved since ingest): the kept events.
    Memory(Vec<Value>),
}

impl Default for Source {
    fn default() -> Source {
        Source::Memory(Vec::new())
    }
}

impl KeptChanges {
    fn name(&mut self, v: Option<&Value>) -> u32 {
        match v.and_then(Value::as_str) {
            Some(s) => self.names.number(s),
            None => NO_NAME,
        }
    }

    /// The kept events the filters match, by their number among the kept.
    fn matching(&self, table: Option<&str>, kind: Option<&str>) -> Vec<u32> {
        // A name no event holds matches nothing.
        let id = |name: Option<&str>| match name {
            None => Ok(None),
            Some(n) => self.names.find(n).map(Some).ok_or(()),
        };
        let (Ok(kind), Ok(table)) = (id(kind), id(table)) else {
            return Vec::new();
        };
        let kept = |&i: &u32| {
            (i as usize) < self.ords.len()
                && kind.is_none_or(|k| self.kinds.get(i as usize) == Some(k))
        };
        match table {
            Some(name) => self.naming_of(name).filter(kept).collect(),
            None => (0..self.ords.len() as u32).filter(kept).collect(),
        }
    }

    /// The kept events that name `name` in a table field, in file order.
    fn naming_of(&self, name: u32) -> impl Iterator<Item = u32> + '_ {
        let at = name as usize;
        let (from, to) = match (self.naming_starts.get(at), self.naming_starts.get(at + 1)) {
            (Some(from), Some(to)) => (from as usize, to as usize),
            _ => (0, 0),
        };
        self.naming.range(from, to)
    }

    /// The kept events numbered `kept`, in that order.
    fn events(&self, items: &SplitItems, kept: &[u32]) -> Result<Vec<Value>, QueryError> {
        match &self.source {
            Source::Mirror { path, hash } => {
                let ords = kept
                    .iter()
                    .map(|&k| self.ords.get(k as usize))
                    .collect::<Option<Vec<u32>>>()
                    .ok_or_else(|| QueryError::Internal("a diff event past the kept".into()))?;
                items.at(path, hash, &ords)
            }
            Source::Memory(held) => Ok(kept.iter().map(|&k| held[k as usize].clone()).collect()),
        }
    }

    /// Every kept event, in file order.
    fn all(&self, items: &SplitItems) -> Result<Vec<Value>, QueryError> {
        match &self.source {
            Source::Memory(held) => Ok(held.clone()),
            Source::Mirror { path, hash } => {
                let mut all = Vec::with_capacity(self.ords.len());
                let mut wanted = self.ords.iter().peekable();
                items.each(hash, |ord, item| {
                    if wanted.next_if_eq(&ord).is_some() {
                        all.push(item);
                    }
                    Ok(())
                })?;
                // Fewer items than kept: the file was rewritten and its items went.
                if all.len() < self.ords.len() {
                    return Err(QueryError::Stale(path.clone()));
                }
                Ok(all)
            }
        }
    }
}

/// Each deciding file with its identity taken before it was read (`None`: absent).
type Identities = Vec<(PathBuf, Option<FileIdentity>)>;

/// A prepared diff and what decided it, as the cache holds it (and `derived/` keeps it).
#[derive(Serialize, Deserialize)]
struct Kept {
    identities: Identities,
    prepared: Prepared,
}

impl derived::Kept for Kept {
    /// 4: each kept event's kind, and the events naming each table, instead of every
    /// event's four fields.
    const ENCODING: u32 = 4;

    /// A diff that moved since ingest is held whole in memory: only a diff whose events
    /// the mirror holds is small enough to keep.
    fn worth_keeping(&self) -> bool {
        match &self.prepared {
            Prepared::Diff { changes, .. } => matches!(changes.source, Source::Mirror { .. }),
            Prepared::NotMapping => true,
        }
    }
}

impl Kept {
    /// Whether every deciding file still has the identity it had when it was read.
    fn current(&self) -> bool {
        // Stats only: a print may have hundreds of deciding files.
        self.identities
            .iter()
            .all(|(p, id)| file_identity(p) == *id)
    }
}

/// diff.yaml's document less its withheld events, for the diff resource.
pub struct Withheld {
    kept: Arc<Kept>,
    items: SplitItems,
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
    pub fn document(&self) -> Result<Value, QueryError> {
        let Prepared::Diff {
            header,
            changes,
            changes_at,
            ..
        } = &self.kept.prepared
        else {
            return Ok(Value::map(Vec::new()));
        };
        let mut pairs = header.clone();
        pairs.insert(
            (*changes_at).min(pairs.len()),
            (
                Value::Str("changes".into()),
                Value::seq(changes.all(&self.items)?),
            ),
        );
        Ok(Value::map(pairs))
    }
}

/// What the diff resource at `path` shows beyond the file itself: `None` when the file is
/// shown as it is (nothing withheld, or not a mapping), else the document less the
/// withheld events. Shares get_diff's kept diff, so a read costs what a get_diff does.
pub fn withheld(state: &Snapshot, path: &Path) -> Result<Option<Withheld>, QueryError> {
    let kept = prepared(state, path)?;
    match &kept.prepared {
        Prepared::Diff { dropped, .. } if *dropped > 0 => Ok(Some(Withheld {
            kept,
            items: state.split_items(),
        })),
        _ => Ok(None),
    }
}

/// Build the connection's diff ahead of its first call (serve runs this in the background
/// at startup): the first build of a large diff reads megabytes from the mirror, which a
/// call should not wait for.
pub fn warm(state: &Snapshot, warm: crate::query::Warm) {
    let root = &state.config.print_root;
    let path = root.join(DIFF_FILENAME);
    let (scope, key) = prepared_keys(state, &path);
    if path.is_file() && walk::contained(root, &path) && warm.makes(|| state.is_kept(&scope, &key))
    {
        // A failure here is the first call's to report, in its own words.
        let _ = prepared(state, &path);
    }
}

/// Read back the prepared diff an earlier process kept (or build it), ahead of the first
/// call.
pub fn read_back(state: &Snapshot) {
    warm(state, crate::query::Warm::Everything);
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
        || -> Result<Vec<u32>, QueryError> { Ok(changes.matching(req.table, req.kind)) },
    )?;
    Ok(Diff::Events(Events {
        kept,
        matched,
        items: state.split_items(),
        window: RefCell::new((0, Vec::new())),
    }))
}

/// The diff as built over this state's manifest, kept while every file that decided it is
/// unchanged: the key names the walkable tables (the manifest's content and what links
/// dropped) and diff.yaml; the files the verdicts read are found only while building, so
/// a kept diff is checked against their identities.
fn prepared(state: &Snapshot, path: &Path) -> Result<Arc<Kept>, QueryError> {
    let (scope, key) = prepared_keys(state, path);
    state.kept(scope, key, Kept::current, || build(state, path))
}

/// The prepared diff's scope (the connection's diff.yaml) and key (the walkable tables).
fn prepared_keys(state: &Snapshot, path: &Path) -> (Key, Key) {
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
    // One prepared diff per connection is held whatever else the cache evicts: a large
    // print's takes seconds to prepare, and what it keeps is small (places, kinds and each table's events).
    let scope = Key::new(
        "prepared diff of",
        [
            state.config.name.as_bytes(),
            path.as_os_str().as_encoded_bytes(),
        ],
    );
    (scope, key)
}

/// Read diff.yaml from the mirror (parsing it only when its identity moved since ingest)
/// and withhold the events about rejected edges, an event at a time.
fn build(state: &Snapshot, path: &Path) -> Result<Kept, QueryError> {
    let started = std::time::Instant::now();
    let built = build_kept(state, path);
    tracing::debug!(elapsed = ?started.elapsed(), "diff prepared");
    built
}

fn build_kept(state: &Snapshot, path: &Path) -> Result<Kept, QueryError> {
    let tracked = TrackedFiles {
        state,
        seen: RefCell::new(HashMap::new()),
    };
    let before = file_identity(path);
    let fresh = state.current_file(path, None, "diff", false)?;
    let (data, split) = match &fresh.check {
        Check::Yaml => match (state.split_header(&fresh)?, &fresh.hash) {
            (Some(header), Some(hash)) => (Some(header), Some(hash.clone())),
            _ => (state.current_value(&fresh)?, None),
        },
        Check::YamlError(m) => {
            return Err(QueryError::YamlParse {
                path: shown(path),
                message: m.clone(),
            })
        }
        Check::OtherError(m) => return Err(QueryError::Other(m.clone())),
        // Gone since the check above: the reference's open fails the same way.
        Check::Absent | Check::Text => (None, None),
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
    let print = edges::verdict_print(state, &tracked)?;
    let mut filter = EventFilter::new(print.as_ref());
    let mut changes = ChangesBuilder::default();
    // Set before the events are read: events read from the mirror are read again there
    // by a page, never held (a large print's diff holds hundreds of thousands).
    if let Some(hash) = &split {
        changes.kept.source = Source::Mirror {
            path: path.to_path_buf(),
            hash: hash.clone(),
        };
    }
    let mut dropped = 0;
    let mut decide = |ord: u32, change: &Value| -> Result<(), QueryError> {
        if !matches!(change, Value::Map(_)) {
            return Ok(());
        }
        if filter.keeps(change)? {
            changes.keep(ord, change);
        } else {
            dropped += 1;
        }
        Ok(())
    };
    match &split {
        Some(hash) => {
            state
                .split_items()
                .each(hash, |ord, change| decide(ord, &change))?;
        }
        None => {
            // `for change in data.get("changes") or []`, as Python iterates it.
            let iterated;
            let listed: &[Value] = match data.get("changes") {
                Some(Value::Seq(items)) => items,
                other => {
                    iterated = edges::iterate(other)?;
                    &iterated
                }
            };
            for (ord, change) in listed.iter().enumerate() {
                decide(ord as u32, change)?;
            }
        }
    }
    let consulted = std::mem::take(&mut filter.consulted);
    drop(filter);
    let mut files = vec![(
        path.display().to_string(),
        fresh.hash.clone().unwrap_or_else(|| "absent".into()),
    )];
    for consulted in &consulted {
        let (identity, hash) = tracked.version(consulted)?;
        identities.push((consulted.clone(), identity));
        files.push((consulted.display().to_string(), hash));
    }
    let (header, changes_at) = edges::shown_header(&data, dropped);
    Ok(Kept {
        identities,
        prepared: Prepared::Diff {
            header: header.unwrap_or_default(),
            changes: Box::new(changes.finish()),
            changes_at,
            dropped,
            pins: Pins::of(&files),
        },
    })
}

/// What the first read of a deciding file saw: its identity before the read and its
/// content version. Not its content: a verdict reads each file once, and a diff of a
/// large print consults tens of thousands of them, which held parsed would be gigabytes.
struct Seen {
    identity: Option<FileIdentity>,
    hash: Option<String>,
}

/// The files a verdict reads, through the mirror; each remembers the identity it had
/// before its first read, so a kept diff can tell when it went stale.
struct TrackedFiles<'a> {
    state: &'a Snapshot,
    seen: RefCell<HashMap<PathBuf, Seen>>,
}

impl TrackedFiles<'_> {
    /// `path` read now, its first read's identity and version noted.
    fn read_noting(&self, path: &Path) -> Result<Content, QueryError> {
        let identity = file_identity(path);
        let kind = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(walk::Artifact::of_file)
            .unwrap_or(walk::Artifact::Relationships)
            .name();
        let fresh = self.state.current_file(path, None, kind, false)?;
        let content = Content::of(self.state, &fresh)?;
        self.seen
            .borrow_mut()
            .entry(path.to_path_buf())
            .or_insert(Seen {
                identity,
                hash: fresh.hash,
            });
        Ok(content)
    }

    /// A deciding file's identity before it was first read and its content version.
    fn version(&self, path: &Path) -> Result<(Option<FileIdentity>, String), QueryError> {
        if !self.seen.borrow().contains_key(path) {
            self.read_noting(path)?;
        }
        let seen = self.seen.borrow();
        let s = &seen[path];
        Ok((
            s.identity,
            s.hash.clone().unwrap_or_else(|| "absent".into()),
        ))
    }
}

impl Files for TrackedFiles<'_> {
    fn read(&self, path: &Path) -> Result<Content, QueryError> {
        self.read_noting(path)
    }
}

#[cfg(test)]
mod tests;
