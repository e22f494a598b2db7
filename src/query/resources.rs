//! The resource half of the surface (spec §3): which resources the served prints hold, the
//! URI templates, and reading one resource's whole text with the version naming it (its
//! pages are `render::resource`'s). Knows nothing of MCP: it answers entries, texts and
//! `QueryError`s.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::edges::{self, Content, Files, Print};
use super::list_tables::absent_table;
use super::pins::{self, Pins};
use crate::error::QueryError;
use crate::ingest::{
    self, walk, ManifestRead, DIFF_FILENAME, MANIFEST_ANNOTATIONS_FILENAME, MANIFEST_FILENAME,
    READING_FILENAME,
};
use crate::store::cache::{Cache, Key};
use crate::store::derived::Kept;
use crate::store::files::{self, read_as_known, Check, FreshFile};
use crate::store::references::ReferenceDocs;
use crate::store::Snapshot;
use compat::value::Value;

mod uri;
#[cfg(test)]
use uri::unquote_plus;
pub use uri::{page_query, parse_uri, PageQuery, Ref};

/// The server-global reference documents, in list order.
pub const REFERENCE_DOCUMENTS: [&str; 2] = ["spec", "assertions"];
/// Connection-grain kinds: `dbprint://<connection>/<kind>`.
pub const CONNECTION_KINDS: [&str; 4] = ["manifest", "diff", "reading", "manifest_annotations"];
/// Per-table kinds in list order: `dbprint://<connection>/<table>/<kind>`.
pub const TABLE_KINDS: [&str; 6] = [
    "ddl",
    "statistics",
    "relationships",
    "description",
    "statistics_annotations",
    "relationships_annotations",
];
/// Kinds people write: listed only when present, and "optional" when never declared.
const OPTIONAL_KINDS: [&str; 3] = [
    "description",
    "statistics_annotations",
    "relationships_annotations",
];

/// The files of `OPTIONAL_KINDS`: present or not, they decide what is listed.
const OPTIONAL_FILES: [&str; 3] = [
    "description.md",
    "statistics.annotations.yaml",
    "relationships.annotations.yaml",
];

const REFERENCE_MIME: &str = "text/markdown";

pub fn mime_type(kind: &str) -> &'static str {
    match kind {
        "reading" | "description" => "text/markdown",
        "ddl" => "application/sql",
        _ => "application/yaml",
    }
}

fn is_yaml(kind: &str) -> bool {
    mime_type(kind) == "application/yaml"
}

// Descriptions are this server's own prose. Each is exactly as long as the reference's (for
// every connection, table and document name), so a resources/list page breaks where its do.

fn reference_description(document: &str) -> String {
    format!("The dbprint {document} document, whole: get_reference returns one section of it.")
}

fn connection_description(kind: &str, connection: &str) -> String {
    match kind {
        "manifest" => format!("The table index of connection {connection}'s print as written: each table's directory, artifacts, row count and profile time. list_tables (detail: true) and get_manifest read it"),
        "diff" => format!("Changes between the two latest prints of {connection}, less the events about joins a person rejected. get_diff returns the same events, filtered by table or kind"),
        "reading" => "A guide to this print: what its fields mean, which of them mislead, what to read first. Consult it before you read an unexplained field".into(),
        _ => "Notes that people wrote about the whole database; get_table_context includes them with any table".into(),
    }
}

fn table_description(kind: &str) -> &'static str {
    match kind {
        "ddl" => "The table's DDL, as extracted. get_table_context returns it with its joins and its value lists",
        "statistics" => "The statistics file exactly as written, sketches included. get_table_context returns the same statistics with scope, redaction and unmeasured fields interpreted; read this raw file only to get its sketches.",
        "relationships" => "The joins file, less every join a person rejected in relationships_annotations. get_table_context lists these same joins, each with its detection, under Joins, along with any joins that people added there too",
        "description" => "What people wrote about the table, in free prose; get_table_context has it",
        "statistics_annotations" => "Notes people wrote on columns and values. get_table_context shows them and search_columns `text` matches them",
        _ => "Notes people wrote on joins, including the joins they rejected and the ones they added; nothing else, resource or tool, lists any rejected join",
    }
}

/// One `resources/list` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub uri: String,
    pub name: String,
    pub description: String,
    pub mime_type: &'static str,
}

/// One `resources/templates/list` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub uri_template: String,
    pub name: String,
    pub mime_type: &'static str,
}

/// One template per URI pattern, in its page form.
pub fn templates() -> Vec<Template> {
    let mut out = vec![Template {
        uri_template: "dbprint:///reference/{document}{?page,version}".into(),
        name: "reference document".into(),
        mime_type: REFERENCE_MIME,
    }];
    for kind in CONNECTION_KINDS {
        out.push(Template {
            uri_template: format!("dbprint://{{connection}}/{kind}{{?page,version}}"),
            name: format!("connection {kind}"),
            mime_type: mime_type(kind),
        });
    }
    for kind in TABLE_KINDS {
        out.push(Template {
            uri_template: format!("dbprint://{{connection}}/{{table}}/{kind}{{?page,version}}"),
            name: format!("table {kind}"),
            mime_type: mime_type(kind),
        });
    }
    // printdex's own, after the reference's: a Mermaid diagram around one table.
    out.push(Template {
        uri_template: super::plan_joins::erd::TEMPLATE.into(),
        name: "table erd".into(),
        mime_type: "text/vnd.mermaid",
    });
    out
}

/// A `resources/list` entry before its text is spelled.
pub enum Listed {
    Reference(&'static str),
    Connection {
        connection: Arc<str>,
        kind: &'static str,
    },
    Table {
        connection: Arc<str>,
        fqn: Arc<str>,
        kind: &'static str,
    },
}

impl Listed {
    pub fn entry(&self) -> Entry {
        match self {
            Listed::Reference(doc) => Entry {
                uri: format!("dbprint:///reference/{doc}"),
                name: format!("{doc} reference"),
                description: reference_description(doc),
                mime_type: REFERENCE_MIME,
            },
            Listed::Connection { connection, kind } => Entry {
                uri: format!("dbprint://{connection}/{kind}"),
                name: match *kind {
                    "reading" => format!("{connection} reading guide"),
                    "manifest_annotations" => format!("{connection} connection notes"),
                    _ => format!("{connection} {kind}"),
                },
                description: connection_description(kind, connection),
                mime_type: mime_type(kind),
            },
            Listed::Table {
                connection,
                fqn,
                kind,
            } => Entry {
                uri: format!("dbprint://{connection}/{fqn}/{kind}"),
                name: format!("{fqn} {kind}"),
                description: format!("{fqn}: {}", table_description(kind)),
                mime_type: mime_type(kind),
            },
        }
    }
}

/// Every resource the served prints hold, in list order, and the manifests that decided it.
/// resources/list's entries in order: the reference documents, then each served
/// connection's (made once per content of what decides them, and kept in `derived/`).
pub struct Listing {
    connections: Vec<Arc<ConnectionListing>>,
    len: usize,
    pub pins: Pins,
}

impl Listing {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th entry of the list.
    pub fn get(&self, i: usize) -> Option<Listed> {
        if let Some(doc) = REFERENCE_DOCUMENTS.get(i) {
            return Some(Listed::Reference(doc));
        }
        let mut i = i - REFERENCE_DOCUMENTS.len();
        for connection in &self.connections {
            if i < connection.len() {
                return connection.get(i);
            }
            i -= connection.len();
        }
        None
    }
}

/// One connection's resources/list entries, as `derived/` keeps them: its connection-grain
/// kinds, then each walkable table in FQN order with the kinds listed for it. A session
/// reads it back instead of going through every table's manifest entry (a few hundred
/// milliseconds at 100,000 tables); an entry is spelled when a page shows it. The FQNs
/// are kept end to end in one string, which reads back as one run of bytes: kept one
/// string each, 100,000 of them took a session's first resources/list 16-36 ms to read.
#[derive(Debug, Serialize, Deserialize)]
pub struct ConnectionListing {
    connection: Arc<str>,
    /// Whether the connection's notes (`manifest_annotations`) are listed, after its
    /// manifest, diff and reading guide.
    notes: bool,
    /// Each walkable table's FQN, one after another; `fqn_ends` cuts them.
    fqns: String,
    /// Where each table's FQN ends in `fqns`.
    fqn_ends: Vec<usize>,
    /// Each table's bit for each `TABLE_KINDS` kind listed for it.
    kinds: Vec<u8>,
    /// Where each table's entries start among the tables' entries, and after the last.
    #[serde(skip)]
    starts: OnceLock<Vec<usize>>,
}

impl Kept for ConnectionListing {
    const ENCODING: u32 = 2;
}

impl ConnectionListing {
    /// `connection`'s listing, its tables to come (`push`).
    pub fn new(connection: &str, notes: bool) -> ConnectionListing {
        ConnectionListing {
            connection: Arc::from(connection),
            notes,
            fqns: String::new(),
            fqn_ends: Vec::new(),
            kinds: Vec::new(),
            starts: OnceLock::new(),
        }
    }

    /// The next table in FQN order, with a bit for each `TABLE_KINDS` kind listed for it.
    pub fn push(&mut self, fqn: &str, kinds: u8) {
        self.fqns.push_str(fqn);
        self.fqn_ends.push(self.fqns.len());
        self.kinds.push(kinds);
    }

    /// Whether every table's FQN is whole: one end per table, in order, the last at the
    /// end of `fqns`, each on a character's boundary (a listing read back is taken only
    /// then; otherwise it is made again).
    fn holds(&self) -> bool {
        let ends = &self.fqn_ends;
        self.kinds.len() == ends.len()
            && ends.last().copied().unwrap_or(0) == self.fqns.len()
            && ends.windows(2).all(|w| w[0] <= w[1])
            && ends.iter().all(|&e| self.fqns.is_char_boundary(e))
    }

    /// Table `at`'s FQN (`None` past the end, or for a listing read back damaged).
    fn fqn(&self, at: usize) -> Option<&str> {
        let start = match at {
            0 => 0,
            _ => *self.fqn_ends.get(at - 1)?,
        };
        self.fqns.get(start..*self.fqn_ends.get(at)?)
    }

    /// The connection-grain entries before its tables'.
    fn own(&self) -> usize {
        if self.notes {
            4
        } else {
            3
        }
    }

    fn starts(&self) -> &[usize] {
        self.starts.get_or_init(|| {
            let mut at = 0;
            let mut starts = Vec::with_capacity(self.kinds.len() + 1);
            for kinds in &self.kinds {
                starts.push(at);
                at += kinds.count_ones() as usize;
            }
            starts.push(at);
            starts
        })
    }

    fn len(&self) -> usize {
        self.own() + self.starts().last().copied().unwrap_or(0)
    }

    /// Entry `i` of this connection's.
    fn get(&self, i: usize) -> Option<Listed> {
        let connection = self.connection.clone();
        if i < self.own() {
            let kind = CONNECTION_KINDS[i];
            return Some(Listed::Connection { connection, kind });
        }
        let i = i - self.own();
        let starts = self.starts();
        // The last table starting at or before `i`: tables listing nothing start where
        // the next one does.
        let at = starts[..self.kinds.len()].partition_point(|&s| s <= i);
        let table = at.checked_sub(1)?;
        let (fqn, kinds) = (self.fqn(table)?, self.kinds[table]);
        let nth = i - starts[table];
        let kind = TABLE_KINDS
            .iter()
            .enumerate()
            .filter(|(bit, _)| kinds & (1 << bit) != 0)
            .nth(nth)?
            .1;
        Some(Listed::Table {
            connection,
            fqn: Arc::from(fqn),
            kind,
        })
    }
}

/// `resources/list`: the reference documents, then every served connection in name order.
pub fn list(states: &[Arc<Snapshot>]) -> Result<Listing, QueryError> {
    let mut states: Vec<&Arc<Snapshot>> = states.iter().collect();
    states.sort_by(|a, b| a.config.name.cmp(&b.config.name));
    let mut files = Vec::new();
    let mut connections = Vec::new();
    for state in states {
        let manifest = state.manifest_path();
        files.push((manifest.display().to_string(), state.version_of(&manifest)));
        connections.push(connection_listing(state)?);
    }
    Ok(Listing {
        len: REFERENCE_DOCUMENTS.len() + connections.iter().map(|c| c.len()).sum::<usize>(),
        connections,
        pins: Pins::of(&files),
    })
}

/// One connection's entries, made once per content of the manifest and of the people's
/// files whose presence lists them, and kept.
fn connection_listing(state: &Snapshot) -> Result<Arc<ConnectionListing>, QueryError> {
    let root = &state.config.print_root;
    let notes = root.join(MANIFEST_ANNOTATIONS_FILENAME);
    let notes_listed = notes.is_file() && walk::contained(root, &notes);
    let manifest = state.version_of(&state.manifest_path());
    let dropped = match &state.manifest {
        ManifestRead::Ok { dropped, .. } => dropped.join("\0"),
        _ => String::new(),
    };
    // A person's file is listed when it exists: what it holds does not move the listing.
    let people: Vec<[u8; 32]> = OPTIONAL_FILES
        .iter()
        .map(|name| state.versions.present(name))
        .collect();
    let mut parts: Vec<&[u8]> = vec![
        state.config.name.as_bytes(),
        state.manifest.state().as_bytes(),
        manifest.as_bytes(),
        dropped.as_bytes(),
        if notes_listed { b"notes" } else { b"-" },
    ];
    parts.extend(people.iter().map(|d| d.as_slice()));
    let key = Key::new("resource listing", parts);
    let scope = Key::new(
        "resource listing of",
        [
            root.as_os_str().as_encoded_bytes(),
            state.config.name.as_bytes(),
        ],
    );
    state.kept(scope, key, ConnectionListing::holds, || {
        connection_entries(state, notes_listed)
    })
}

/// One connection's entries: its three connection-grain resources, its notes when present,
/// then every walkable table's declared kinds (people's files only when present).
fn connection_entries(
    state: &Snapshot,
    notes_listed: bool,
) -> Result<ConnectionListing, QueryError> {
    let mut listing = ConnectionListing::new(&state.config.name, notes_listed);
    let root = &state.config.print_root;
    // An unreadable manifest withholds this connection's tables only; reading its
    // manifest resource names the error. A non-YAML failure fails the whole list.
    let manifest = match &state.manifest {
        ManifestRead::Ok { doc, .. } => doc,
        ManifestRead::Failed(m) => return Err(QueryError::Other(m.clone())),
        _ => return Ok(listing),
    };
    let entries = manifest.tables();
    let mut tables: Vec<(String, usize)> = entries
        .keys()
        .iter()
        .enumerate()
        .map(|(i, k)| (compat::py::str_of(k), i))
        .collect();
    tables.sort_by(|a, b| a.0.cmp(&b.0));
    for (fqn, at) in tables {
        // What the listing reads of an entry: its directory and declared files.
        let entry = entries.entry_cut(at, &["path", "artifacts"]);
        let declared = walk::declared_artifacts(&entry);
        let dir = root.join(walk::table_path(&fqn, &entry));
        let mut kinds = 0u8;
        for (bit, kind) in TABLE_KINDS.iter().enumerate() {
            let Some((_, file)) = declared.iter().find(|(k, _)| k == kind) else {
                continue;
            };
            // People's files are listed when present; the mirror, kept fresh by ingest and
            // the watcher, knows without a stat per file.
            if OPTIONAL_KINDS.contains(kind) && !state.has_content(&dir.join(file)) {
                continue;
            }
            kinds |= 1 << bit;
        }
        listing.push(&fqn, kinds);
    }
    Ok(listing)
}

/// A resource's whole served text and the version naming it.
pub struct Whole {
    body: Body,
    pub mime_type: &'static str,
    pub version: String,
}

/// Where a whole text lives.
enum Body {
    Owned(Arc<str>),
    /// A file served as it is: its bytes (valid UTF-8, no `\r`) in this thread's
    /// `READ_BUFFER`, so a large file is neither copied nor freshly allocated per read.
    Buffered,
    /// A file served as it is, known by content and not read yet: its identity vouched for
    /// the content hash the version names, and an earlier read of those bytes found them
    /// plain (valid UTF-8, no `\r`). A page reads only its own bytes, checking the
    /// identity around the read, so a page of a large file costs the page.
    OnDisk {
        path: PathBuf,
        identity: ingest::FileIdentity,
    },
}

thread_local! {
    /// The bytes of the last file `RequestFiles::whole` read on this thread.
    static READ_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer kept past this size is given back after the read.
const KEEP_BUFFER: usize = 64 << 20;

impl Whole {
    fn owned(text: String, mime_type: &'static str, version: String) -> Whole {
        Whole {
            body: Body::Owned(text.into()),
            mime_type,
            version,
        }
    }

    /// Run `f` over the text. A buffered text is the one this thread just read: nothing
    /// reads another file through `whole` before the reply is cut. A text on disk is read
    /// now; `QueryError::Stale` when the file moved since its version was taken.
    pub fn with_text<R>(&self, f: impl FnOnce(&str) -> R) -> Result<R, QueryError> {
        match &self.body {
            Body::Owned(text) => Ok(f(text)),
            Body::Buffered => Ok(READ_BUFFER.with(|buffer| {
                let buffer = buffer.borrow();
                f(std::str::from_utf8(&buffer).unwrap_or_default())
            })),
            Body::OnDisk { path, identity } => READ_BUFFER.with(|buffer| {
                let mut buffer = buffer.borrow_mut();
                let size = usize::try_from(identity.size).unwrap_or(usize::MAX);
                read_as_known(path, *identity, 0..size, &mut buffer)?;
                let text =
                    std::str::from_utf8(&buffer).map_err(|_| QueryError::Stale(path.clone()))?;
                Ok(f(text))
            }),
        }
    }

    /// The text's bytes `range`, which a page cut puts on character boundaries.
    pub fn text_of(&self, range: std::ops::Range<usize>) -> Result<String, QueryError> {
        let cut = |text: &str| text.get(range.clone()).map(str::to_string);
        let missing = || QueryError::Internal("a resource page outside its text".into());
        match &self.body {
            Body::OnDisk { path, identity } => {
                let mut bytes = Vec::new();
                read_as_known(path, *identity, range, &mut bytes)?;
                String::from_utf8(bytes).map_err(|_| QueryError::Stale(path.clone()))
            }
            _ => self.with_text(cut)?.ok_or_else(missing),
        }
    }

    /// The page cut of the text under `cut` (render's line rule), kept in `cache` per
    /// version: a later page, or the same again, never re-measures the text.
    pub fn page_cut(
        &self,
        cache: &Cache,
        cut: impl FnOnce(&str) -> Vec<std::ops::Range<usize>>,
    ) -> Result<Arc<Vec<std::ops::Range<usize>>>, QueryError> {
        let len = (self.len()? as u64).to_le_bytes();
        let key = Key::new("resource page cut", [self.version.as_bytes(), &len]);
        cache.get_or_build(key, |r: &Vec<_>| 16 * r.len(), || self.with_text(cut))
    }

    /// The text's length in bytes.
    pub fn len(&self) -> Result<usize, QueryError> {
        match &self.body {
            Body::OnDisk { identity, .. } => Ok(usize::try_from(identity.size).unwrap_or(0)),
            _ => self.with_text(str::len),
        }
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> Result<bool, QueryError> {
        Ok(self.len()? == 0)
    }
}

impl Drop for Whole {
    /// A buffer grown past `KEEP_BUFFER` by this text is given back once the text is done.
    fn drop(&mut self) {
        if matches!(self.body, Body::Buffered | Body::OnDisk { .. }) {
            READ_BUFFER.with(|buffer| {
                let mut buffer = buffer.borrow_mut();
                if buffer.capacity() > KEEP_BUFFER {
                    *buffer = Vec::new();
                }
            });
        }
    }
}

/// A `resources/read`: the page asked for, and the whole resource it is cut from.
pub struct Resource {
    pub query: PageQuery,
    pub whole: Whole,
}

/// `resources/read` up to its page: the query, the URI, the connection, then reading the
/// whole resource, each failing in the reference's order (the page, a missing version and
/// a stale one come after, as `render::resource::page` checks them).
pub fn read(uri: &str, sources: &Sources) -> Result<Resource, QueryError> {
    let query = page_query(uri)?;
    let whole = read_whole(sources, &query.bare)?;
    Ok(Resource { query, whole })
}

/// What a read may consult beyond the URI: the reference documents, the store's cache,
/// and the snapshot of the connection a URI names (resolved by the caller, which also
/// answers for an unknown or unserved one).
pub struct Sources<'a> {
    pub references: &'a ReferenceDocs,
    pub cache: &'a Cache,
    pub connection: &'a dyn Fn(&str) -> Result<Arc<Snapshot>, QueryError>,
}

fn read_whole(sources: &Sources, bare: &str) -> Result<Whole, QueryError> {
    let (connection, kind, fqn) = match parse_uri(bare)? {
        Ref::Reference(document) => {
            let (text, version) = reference_document(sources, document)?;
            return Ok(Whole {
                body: Body::Owned(text),
                mime_type: REFERENCE_MIME,
                version,
            });
        }
        Ref::Resource {
            connection,
            kind,
            fqn,
        } => (connection, kind, fqn),
    };
    let state = (sources.connection)(&connection)?;
    let root = state.config.print_root.clone();
    let files = RequestFiles::new(&state);
    match (kind, fqn) {
        ("manifest", _) => {
            let path = root.join(MANIFEST_FILENAME);
            if path.is_file() && !walk::contained(&root, &path) {
                return Err(QueryError::Malformed {
                    path: shown(&path),
                    reason: "it resolves outside the connection root".into(),
                });
            }
            files.whole(&path, None, kind)
        }
        ("diff", _) => {
            let path = root.join(DIFF_FILENAME);
            if !path.is_file() || !walk::contained(&root, &path) {
                return Err(QueryError::NoDiff(shown(&path)));
            }
            let whole = files.whole(&path, None, kind)?;
            without_rejected_events(&state, &path, whole)
        }
        ("reading", _) => {
            let path = root.join(READING_FILENAME);
            if !path.is_file() || !walk::contained(&root, &path) {
                return Err(QueryError::NoReadingGuide(shown(&path)));
            }
            files.whole(&path, None, kind)
        }
        ("manifest_annotations", _) => {
            let path = root.join(MANIFEST_ANNOTATIONS_FILENAME);
            if path.is_file() && walk::contained(&root, &path) {
                return files.whole(&path, None, kind);
            }
            // Declared but missing is a broken promise; never declared is licensed.
            let declared = state
                .manifest_or_error()?
                .and_then(|m| m.field("manifest_annotations"))
                .is_some_and(|v| matches!(v, Value::Str(_)));
            if declared {
                return Err(QueryError::MissingFile {
                    artifact: MANIFEST_ANNOTATIONS_FILENAME.into(),
                    path: shown(&path),
                });
            }
            Err(QueryError::OptionalNotAuthoredForConnection {
                artifact: MANIFEST_ANNOTATIONS_FILENAME.into(),
                connection,
            })
        }
        (kind, Some(fqn)) => {
            let Some(manifest) = state.manifest_or_error()? else {
                return Err(QueryError::MissingFile {
                    artifact: MANIFEST_FILENAME.into(),
                    path: shown(&root.join(MANIFEST_FILENAME)),
                });
            };
            let tables = manifest.tables();
            let Some(entry) = tables.get(&fqn) else {
                return Err(absent_table(&fqn, &connection, Some(manifest)));
            };
            let Some((_, file)) = walk::declared_artifacts(&entry)
                .into_iter()
                .find(|(k, _)| k == kind)
            else {
                if OPTIONAL_KINDS.contains(&kind) {
                    return Err(QueryError::OptionalNotAuthored {
                        artifact: walk::canonical_filename(kind).unwrap_or(kind).into(),
                        table: fqn,
                    });
                }
                return Err(QueryError::UndeclaredKind {
                    kind: kind.into(),
                    table: fqn,
                });
            };
            let path = root.join(walk::table_path(&fqn, &entry)).join(&file);
            if !path.is_file() {
                return Err(QueryError::MissingFile {
                    artifact: file,
                    path: shown(&path),
                });
            }
            let whole = files.whole(&path, Some(&fqn), kind)?;
            if kind != "relationships" {
                return Ok(whole);
            }
            let print = Print::new(&root, tables, &files);
            without_rejected_edges(&files, &print, &fqn, &path, whole)
        }
        (_, None) => Err(QueryError::MalformedUri(bare.to_string())),
    }
}

/// A path as Python's `str(Path)` spells it: repeated separators and `.` segments folded.
fn shown(path: &Path) -> String {
    path.components().collect::<PathBuf>().display().to_string()
}

/// A file's parse when it is a mapping: only a mapping has anything to withhold.
fn mapping(files: &RequestFiles, path: &Path) -> Result<Option<Value>, QueryError> {
    Ok(match files.read(path)? {
        Content::Yaml(v @ Value::Map(_)) => Some(v),
        _ => None,
    })
}

/// `relationships.yaml` less the edges people rejected, versioned over every file that
/// decided it; the file itself, with its own version, when nothing is withheld.
fn without_rejected_edges(
    files: &RequestFiles,
    print: &Print,
    fqn: &str,
    path: &Path,
    whole: Whole,
) -> Result<Whole, QueryError> {
    let Some(raw) = mapping(files, path)? else {
        return Ok(whole);
    };
    let own_path = print.artifact(fqn, walk::Artifact::RelationshipsAnnotations);
    let (incoming, consulted) = edges::incoming_rejections(print, fqn, &raw)?;
    let own = edges::own_rejections(files, own_path.as_deref(), raw.get("refers_to"))?;
    let Some(shown) = edges::withhold_rejected(&raw, &own, &incoming, fqn)? else {
        return Ok(whole);
    };
    let mut decided_by = vec![path.to_path_buf()];
    decided_by.extend(own_path);
    decided_by.extend(consulted);
    Ok(Whole::owned(
        dump_yaml(&shown)?,
        whole.mime_type,
        files.version(&decided_by)?,
    ))
}

/// `diff.yaml` less its relationship events about edges people rejected, versioned over
/// the files that decided it; the file itself when nothing is dropped. The verdicts are
/// get_diff's kept diff, and the text is written once per version.
fn without_rejected_events(
    state: &Snapshot,
    path: &Path,
    whole: Whole,
) -> Result<Whole, QueryError> {
    let Some(withheld) = super::diff::withheld(state, path)? else {
        return Ok(whole);
    };
    let version = withheld.pins().digest().to_string();
    let key = Key::new("diff resource text", [version.as_bytes()]);
    let text = state.cache().get_or_build(
        key,
        |text: &Arc<str>| text.len(),
        || dump_yaml(&withheld.document()?).map(Arc::<str>::from),
    )?;
    Ok(Whole {
        body: Body::Owned(Arc::clone(&text)),
        mime_type: whole.mime_type,
        version,
    })
}

/// dbprint's own YAML dumper (block style, width 80, its quoting rules).
fn dump_yaml(value: &Value) -> Result<String, QueryError> {
    // Only a `bytes` value has no spelling; the reference's TypeError escapes as is.
    compat::yaml::emit::try_dbprint_dump(value).map_err(|_| {
        QueryError::Other(
            "a value is bytes, which has no artifact spelling (producer defect; please report)"
                .into(),
        )
    })
}

/// A reference document's whole text and version, from the installed dbprint package.
fn reference_document(sources: &Sources, document: &str) -> Result<(Arc<str>, String), QueryError> {
    let which = super::reference::Document::from_name(document)
        .ok_or_else(|| QueryError::MalformedUri(format!("dbprint:///reference/{document}")))?;
    let doc = super::reference::document(sources.references, sources.cache, which)?;
    Ok((Arc::from(doc.text()), doc.version().to_string()))
}

/// The files one read consults, each looked up once from its current record so every
/// verdict and the version see the same snapshot. Parsed values are fetched only when a
/// verdict reads them (a large statistics file is only parse-checked, never loaded).
struct RequestFiles<'a> {
    state: &'a Snapshot,
    seen: RefCell<HashMap<PathBuf, FreshFile>>,
    values: RefCell<HashMap<PathBuf, Content>>,
}

impl<'a> RequestFiles<'a> {
    fn new(state: &'a Snapshot) -> RequestFiles<'a> {
        RequestFiles {
            state,
            seen: RefCell::new(HashMap::new()),
            values: RefCell::new(HashMap::new()),
        }
    }

    /// The served file as it is on disk now: its text (Python text mode), the version of
    /// those very bytes, and the parse check of a YAML kind from the mirror's record of the
    /// same content. A file rewritten during the read is retried once.
    fn whole(
        &self,
        path: &Path,
        fqn: Option<&str>,
        kind: &'static str,
    ) -> Result<Whole, QueryError> {
        if !path.is_file() {
            return Err(QueryError::MissingFile {
                artifact: file_name(path),
                path: shown(path),
            });
        }
        // Known by content: the identity vouches for a hash whose bytes were found plain.
        let known = self.state.current_file(path, fqn, kind, false)?;
        if let (Some(hash), Some(identity)) = (&known.hash, known.identity) {
            if self
                .state
                .cache()
                .peek::<PlainText>(&plain_key(hash))
                .is_some()
            {
                check_parse(path, kind, &known.check)?;
                let version = pins::digest(&[(path.display().to_string(), hash.clone())]);
                self.seen.borrow_mut().insert(path.to_path_buf(), known);
                return Ok(Whole {
                    body: Body::OnDisk {
                        path: path.to_path_buf(),
                        identity,
                    },
                    mime_type: mime_type(kind),
                    version,
                });
            }
        }
        for attempt in 0..2 {
            let read = READ_BUFFER.with(|buffer| -> Result<_, std::io::Error> {
                let mut buffer = buffer.borrow_mut();
                files::read_whole(path, &mut buffer)?;
                let hash = blake3::hash(&buffer).to_hex().to_string();
                // Python's text mode: strict UTF-8, universal newlines.
                let body = if std::str::from_utf8(&buffer).is_err() || buffer.contains(&b'\r') {
                    Err(ingest::read_text(buffer.to_vec()))
                } else {
                    Ok(())
                };
                Ok((hash, body))
            });
            let (hash, body) = match read {
                Ok(r) => r,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(QueryError::MissingFile {
                        artifact: file_name(path),
                        path: shown(path),
                    })
                }
                Err(e) => return Err(QueryError::Other(os_error(&e, path))),
            };
            let fresh = self.state.current_file(path, fqn, kind, attempt > 0)?;
            if fresh.hash.as_deref() != Some(hash.as_str()) {
                continue;
            }
            let body = match body {
                Ok(()) => {
                    let noted = self.state.cache().get_or_build(
                        plain_key(&hash),
                        |_| 64,
                        || Ok::<_, std::convert::Infallible>(PlainText),
                    );
                    let _ = noted;
                    Body::Buffered
                }
                Err(converted) => Body::Owned(converted.map_err(QueryError::Other)?.into()),
            };
            check_parse(path, kind, &fresh.check)?;
            self.seen.borrow_mut().insert(path.to_path_buf(), fresh);
            return Ok(Whole {
                body,
                mime_type: mime_type(kind),
                version: pins::digest(&[(path.display().to_string(), hash)]),
            });
        }
        Err(QueryError::StalePageVersion(shown(path)))
    }

    /// The file's current record, looked up once per request.
    fn record(&self, path: &Path) -> Result<FreshFile, QueryError> {
        if let Some(hit) = self.seen.borrow().get(path) {
            return Ok(hit.clone());
        }
        let fresh = self.state.current_file(path, None, kind_of(path), false)?;
        self.seen
            .borrow_mut()
            .insert(path.to_path_buf(), fresh.clone());
        Ok(fresh)
    }

    /// The version of a text decided by `paths`: their content hashes (or `absent`).
    fn version(&self, paths: &[PathBuf]) -> Result<String, QueryError> {
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            let hash = self.record(p)?.hash;
            files.push((
                p.display().to_string(),
                hash.unwrap_or_else(|| "absent".into()),
            ));
        }
        Ok(pins::digest(&files))
    }
}

impl Files for RequestFiles<'_> {
    fn read(&self, path: &Path) -> Result<Content, QueryError> {
        if let Some(hit) = self.values.borrow().get(path) {
            return Ok(hit.clone());
        }
        let fresh = self.record(path)?;
        let content = Content::of(self.state, &fresh)?;
        self.values
            .borrow_mut()
            .insert(path.to_path_buf(), content.clone());
        Ok(content)
    }
}

/// What the cache remembers of content whose bytes were read: they are plain text (valid
/// UTF-8, no `\r`), so the file can be served as it is, a page at a time.
struct PlainText;

fn plain_key(hash: &str) -> Key {
    Key::new("resource plain text", [hash.as_bytes()])
}

/// A YAML kind's parse failure, as a read of it answers.
fn check_parse(path: &Path, kind: &str, check: &Check) -> Result<(), QueryError> {
    if is_yaml(kind) {
        match check {
            Check::YamlError(m) => {
                return Err(QueryError::YamlParse {
                    path: shown(path),
                    message: m.clone(),
                })
            }
            Check::OtherError(m) => return Err(QueryError::Other(m.clone())),
            _ => {}
        }
    }
    Ok(())
}

/// The kind a print file's name says it is (used only when the mirror has no row for it).
fn kind_of(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    walk::Artifact::of_file(name)
        .unwrap_or(walk::Artifact::Statistics)
        .name()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// Python's `str(OSError)`: `[Errno N] <strerror>: '<path>'`.
fn os_error(e: &std::io::Error, path: &Path) -> String {
    let text = e.to_string();
    let strerror = text.split(" (os error").next().unwrap_or(&text);
    match e.raw_os_error() {
        Some(n) => format!(
            "[Errno {n}] {strerror}: {}",
            compat::py::repr_str(&shown(path))
        ),
        None => text,
    }
}

#[cfg(test)]
mod tests;
