//! Ingest: read a connection's print from disk into records the mirror stores.
//! This is the only stage that parses a print's YAML or walks a print to find its files
//! (the store's change feed and watcher list directories only to watch them; a resource
//! read in `query` copies a file's bytes it already knows, and parses nothing).

mod identity;
pub mod manifest;
pub mod parts;
pub mod pz_docs;
pub mod pz_project;
mod read_ahead;
pub mod reading;
pub mod walk;

use std::path::{Path, PathBuf};

use crate::config::ConnectionConfig;
use compat::value::Value;
use compat::yaml::{self, LoadError};

pub use identity::{clock_ns, file_identity, hash_file, identity, FileIdentity, SETTLE_FINE};
pub use manifest::{KeptManifest, Manifest, ManifestTables};

pub const MANIFEST_FILENAME: &str = "manifest.yaml";
pub const DIFF_FILENAME: &str = "diff.yaml";
pub const READING_FILENAME: &str = "reading.md";
pub const MANIFEST_ANNOTATIONS_FILENAME: &str = "manifest.annotations.yaml";

/// What a file parses as.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// Not a YAML kind: only its identity and hash are kept.
    Text,
    /// A table's `description.md`: its text is kept (find searches it), never parsed.
    Prose(String),
    Yaml(Value),
    /// `yaml.YAMLError`: the message without the path.
    YamlError(String),
    /// Another exception while reading or constructing (`str(exc)`).
    OtherError(String),
    Absent,
    /// YAML read in pieces (see [`SPLIT_KEY`]): the items of its top-level list went to the
    /// spill under the record's hash as they were parsed; this is the rest of the document,
    /// the list left empty in its place.
    Split(Value),
}

/// What a scan did with one file: read it (and what it parsed as), or found that the
/// mirror's row stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Scanned {
    /// Read by this scan.
    Read(Parsed),
    /// Identity unchanged since the mirror stored it: not read again.
    Unchanged,
    /// Identity moved (a touch, a rewrite of the same bytes) but the content hash did not:
    /// the stored parse stands; only the identity is updated.
    Touched,
    /// Read by this scan and already stored by its spill (see `Spill`): the mirror's row is
    /// this record, parse included.
    Stored,
}

impl Scanned {
    /// The parse this scan read, if it read one and still holds it.
    pub fn read(&self) -> Option<&Parsed> {
        match self {
            Scanned::Read(p) => Some(p),
            Scanned::Unchanged | Scanned::Touched | Scanned::Stored => None,
        }
    }
}

/// The top-level list a split kind's file is read in pieces by: diff.yaml's `changes`
/// can run to hundreds of megabytes, which parsed whole would take gigabytes.
pub const SPLIT_KEY: &str = "changes";

/// Kinds read in pieces when a spill can take the pieces.
pub fn is_split_kind(kind: &str) -> bool {
    kind == "diff"
}

/// How many items a split read hands its spill at a time.
const ITEM_BATCH: usize = 256;

/// One file of a print as the mirror keeps it.
#[derive(Debug, Clone)]
pub struct FileRecord {
    pub path: PathBuf,
    pub connection: String,
    pub fqn: Option<String>,
    pub kind: String,
    pub identity: Option<FileIdentity>,
    pub hash: Option<String>,
    pub scanned: Scanned,
}

impl FileRecord {
    /// A file the mirror's row stands for, not read again.
    pub fn unchanged(
        path: &Path,
        connection: &str,
        fqn: Option<&str>,
        kind: &str,
        identity: Option<FileIdentity>,
    ) -> FileRecord {
        FileRecord {
            path: path.to_path_buf(),
            connection: connection.to_string(),
            fqn: fqn.map(str::to_string),
            kind: kind.to_string(),
            identity,
            hash: None,
            scanned: Scanned::Unchanged,
        }
    }
}

/// Python's text-mode read: universal newlines.
pub fn read_text(bytes: Vec<u8>) -> Result<String, String> {
    // Taken by value: a large file is held once, not copied.
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!(
            "'utf-8' codec can't decode byte 0x{:02x} in position {at}: invalid start byte",
            e.as_bytes()[at],
        )
    })?;
    if text.contains('\r') {
        Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Ok(text)
    }
}

/// Kinds a print need not carry: human-written files (`description.md`, the annotation
/// files). Every other file a print declares, or a connection looks for, is expected.
pub fn is_optional_kind(kind: &str) -> bool {
    matches!(
        kind,
        "description"
            | "statistics_annotations"
            | "relationships_annotations"
            | "manifest_annotations"
    )
}

/// Kinds whose text the mirror keeps: a table's description, which find searches.
fn is_prose_kind(kind: &str) -> bool {
    kind == "description"
}

/// A description's text as find reads it: universal newlines, and a byte that is not
/// UTF-8 read as U+FFFD (get_table_context reports such a file; find only searches it).
fn prose(bytes: Vec<u8>) -> String {
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    }
}

fn is_yaml_kind(kind: &str) -> bool {
    !matches!(kind, "reading" | "ddl" | "description")
}

/// What the mirror already holds: a warm start re-reads only what changed.
pub trait Stored {
    /// The identity stored for `path`, if any.
    fn identity(&self, path: &Path) -> Option<FileIdentity>;
    /// The parse stored for `path`, if any.
    fn parsed(&self, path: &Path) -> Option<Parsed>;
    /// The content hash stored for `path`, if any.
    fn hash(&self, _path: &Path) -> Option<String> {
        None
    }
    /// Whether `path` is stored as declared but absent.
    fn absent(&self, _path: &Path) -> bool {
        false
    }
    /// Whether nothing is stored, so that a scan reads every file (a rebuild, a first
    /// start): its workers then name the files they are about to read to the kernel
    /// ahead of reading them (`read_ahead`).
    fn holds_nothing(&self) -> bool {
        false
    }
    /// `Some(stored identity, or None: absent)` for a table's artifact a start's scan takes
    /// as stored without a `stat`, for the calls and the catch-up to check (`Look::Trusting`).
    fn trusted(&self, _path: &Path) -> Option<Option<FileIdentity>> {
        None
    }
}

/// Nothing stored: every file is read.
pub struct Cold;

impl Stored for Cold {
    fn identity(&self, _: &Path) -> Option<FileIdentity> {
        None
    }
    fn holds_nothing(&self) -> bool {
        true
    }
    fn parsed(&self, _: &Path) -> Option<Parsed> {
        None
    }
}

pub type Known<'a> = &'a (dyn Stored + Sync);

/// `read_file`, skipped when the identity on disk is the one already stored.
pub fn refresh_file(
    path: &Path,
    connection: &str,
    fqn: Option<&str>,
    kind: &str,
    known: Known,
    spill: Option<Spill>,
) -> FileRecord {
    let now = file_identity(path);
    if unchanged_in(known, path, now) {
        // Still not there, or the same settled identity: nothing to read or store.
        return FileRecord::unchanged(path, connection, fqn, kind, now);
    }
    // Events and identities are hints; the content hash decides whether to re-parse.
    read_file_unless(
        path,
        connection,
        fqn,
        kind,
        known.hash(path).as_deref(),
        spill,
    )
}

/// Whether `path`, whose identity on disk is `now` (`None`: not there), is as `known`
/// holds it: still absent, or the same settled identity. Anything else is read again, and
/// its content hash decides.
pub fn unchanged_in(known: Known, path: &Path, now: Option<FileIdentity>) -> bool {
    match now {
        None => known.absent(path),
        Some(now) => known.identity(path) == Some(now),
    }
}

/// Read, hash and (for YAML kinds) parse one file, whole.
pub fn read_file(path: &Path, connection: &str, fqn: Option<&str>, kind: &str) -> FileRecord {
    read_file_unless(path, connection, fqn, kind, None, None)
}

/// [`read_file`], except that content hashing to `known_hash` is not parsed again: the
/// record says `Touched` (same bytes under a new identity). With a spill, a split kind is
/// read in pieces (`Parsed::Split`).
pub fn read_file_unless(
    path: &Path,
    connection: &str,
    fqn: Option<&str>,
    kind: &str,
    known_hash: Option<&str>,
    spill: Option<Spill>,
) -> FileRecord {
    let mut record = FileRecord {
        scanned: Scanned::Read(Parsed::Absent),
        ..FileRecord::unchanged(path, connection, fqn, kind, None)
    };
    // Identity before content: a write racing this read shows as a changed identity
    // later, or the identity is unsettled and the next check reads the bytes again.
    let Some(id) = file_identity(path) else {
        return record;
    };
    let Ok(bytes) = std::fs::read(path) else {
        return record;
    };
    record.identity = Some(id);
    let hash = blake3::hash(&bytes).to_hex().to_string();
    if known_hash == Some(hash.as_str()) {
        record.hash = Some(hash);
        record.scanned = Scanned::Touched;
        return record;
    }
    record.scanned = Scanned::Read(if is_prose_kind(kind) {
        Parsed::Prose(prose(bytes))
    } else if !is_yaml_kind(kind) {
        Parsed::Text
    } else {
        match read_text(bytes) {
            Err(e) => Parsed::OtherError(e),
            Ok(text) => spill
                .filter(|_| is_split_kind(kind))
                .and_then(|spill| split_parse(&text, &hash, spill))
                .unwrap_or_else(|| whole_parse(&text, kind)),
        }
    });
    record.hash = Some(hash);
    record
}

fn whole_parse(text: &str, kind: &str) -> Parsed {
    // The manifest's `tables` is most of a large print's largest value: built entry by
    // entry, its parse holds a third of the memory and takes half the time.
    let loaded = if kind == "manifest" {
        yaml::load_keyed(text, "tables")
    } else {
        yaml::load(text)
    };
    match loaded {
        Ok(v) => Parsed::Yaml(v),
        Err(LoadError::Yaml(m)) => Parsed::YamlError(m),
        Err(LoadError::Other(m)) => Parsed::OtherError(m),
    }
}

/// `text` parsed in pieces, its [`SPLIT_KEY`] items handed to `spill` under `hash` a batch
/// at a time; `None` when it does not split (the caller parses it whole; items already
/// handed over are orphans the spill's owner sweeps).
fn split_parse(text: &str, hash: &str, spill: Spill) -> Option<Parsed> {
    let mut batch: Vec<Value> = Vec::with_capacity(ITEM_BATCH);
    let mut first = 0u64;
    let flush = |batch: &mut Vec<Value>, first: &mut u64| {
        let stored = spill.items(hash, *first, batch);
        *first += batch.len() as u64;
        batch.clear();
        stored
    };
    let header = yaml::load_split(text, SPLIT_KEY, &mut |item| {
        batch.push(item);
        batch.len() < ITEM_BATCH || flush(&mut batch, &mut first)
    })?;
    (batch.is_empty() || flush(&mut batch, &mut first)).then_some(Parsed::Split(header))
}

/// How a connection's manifest reads (dbprint's `read_manifest` states).
#[derive(Debug, Clone)]
pub enum ManifestRead {
    Absent,
    Unparseable(String),
    /// Parses, but not as a shape readers walk (or resolves outside the root).
    Malformed(String),
    /// Not a YAML error: Python's `str(exc)`.
    Failed(String),
    /// The manifest with `tables` cut to walkable entries.
    Ok {
        doc: Manifest,
        dropped: Vec<String>,
    },
}

impl ManifestRead {
    pub fn state(&self) -> &'static str {
        match self {
            ManifestRead::Absent => "absent",
            ManifestRead::Unparseable(_) => "unparseable",
            ManifestRead::Malformed(_) => "malformed",
            ManifestRead::Failed(_) => "failed",
            ManifestRead::Ok { .. } => "ok",
        }
    }
}

/// Why a parsed manifest is unusable, or `None` when readers can walk it.
fn manifest_shape_error(data: &Value) -> Option<String> {
    match data {
        Value::Null => Some("the file is empty".into()),
        Value::Map(_) => match data.get("tables") {
            None | Some(Value::Map(_)) => None,
            Some(Value::Null) => {
                Some("`tables` must be a mapping of table name to entry, found nothing".into())
            }
            Some(other) => Some(format!(
                "`tables` must be a mapping of table name to entry, found {}",
                other.py_type_name()
            )),
        },
        other => Some(format!(
            "expected a mapping, found {}",
            other.py_type_name()
        )),
    }
}

/// Everything ingest learned about one connection.
#[derive(Debug, Clone)]
pub struct ConnectionScan {
    pub manifest: ManifestRead,
    pub files: Vec<FileRecord>,
    /// Walkable tables: (fqn, table directory, entry).
    pub tables: Vec<(String, PathBuf, Value)>,
    /// What the walk for symlinks depended on, when it walked now: kept, so a later scan
    /// that finds it still holds need not walk.
    pub walk: Option<walk::WalkMemo>,
    /// [`walk::WalkMemo::outcome`] of the walk a walkable manifest was cut by (`None`
    /// when the manifest is not `Ok` or a directory could not be read).
    pub walk_outcome: Option<[u8; 32]>,
    /// How many of `files` the spill stored during the scan (`Scanned::Stored`).
    pub spilled: usize,
}

impl ConnectionScan {
    /// The identity the manifest under `print_root` had when the scan read it (a write
    /// during the scan then shows as a change to the next call).
    pub fn manifest_identity(&self, print_root: &Path) -> Option<FileIdentity> {
        let manifest_path = print_root.join(MANIFEST_FILENAME);
        self.files
            .iter()
            .find(|f| f.path == manifest_path)
            .and_then(|f| f.identity)
    }
}

/// Scan a connection's print: the manifest, its walkability, and every file it implies.
/// `known` lets a warm start skip files whose identity is unchanged; the manifest is always read.
pub fn scan_connection(
    conn: &ConnectionConfig,
    known: Known,
    memo: &(dyn Fn() -> Option<walk::WalkMemo> + Sync),
    progress: Progress,
    spill: Option<Spill>,
) -> ConnectionScan {
    let head = scan_head(conn, known, memo, spill);
    scan_tables(conn, head, known, progress, spill)
}

/// What a scan reads before the tables: the manifest and its walkability, and the other
/// connection-level files. It needs only a few stored rows, so a warm start runs it
/// beside loading every other file's stored identity.
#[derive(Debug)]
pub struct ScanHead {
    manifest: ManifestRead,
    /// The walkable `tables` entries as values, for the tables' scan (the manifest keeps
    /// them packed).
    entries: Vec<(Value, Value)>,
    files: Vec<FileRecord>,
    walk: Option<walk::WalkMemo>,
    walk_outcome: Option<[u8; 32]>,
    spilled: usize,
    started: std::time::Instant,
    manifest_read: std::time::Duration,
}

impl ScanHead {
    /// Whether any connection-level file was read (not just found unchanged).
    pub fn read_any(&self) -> bool {
        self.files.iter().any(|f| f.scanned != Scanned::Unchanged)
    }
}

/// The first part of [`scan_connection`]. `memo` gives what the last walk for symlinks
/// depended on (asked beside the manifest's read); while it holds, the directories are not
/// read again.
pub fn scan_head(
    conn: &ConnectionConfig,
    known: Known,
    memo: &(dyn Fn() -> Option<walk::WalkMemo> + Sync),
    spill: Option<Spill>,
) -> ScanHead {
    let started = std::time::Instant::now();
    let root = &conn.print_root;
    let name = conn.name.as_str();
    let manifest_path = root.join(MANIFEST_FILENAME);
    // The manifest is the largest value of a print: it is stored as soon as it is read.
    // diff.yaml, often the largest file, is left to `scan_tables`, which reads it beside
    // the tables (see there). The walk for symlinks reads every directory: on a warm start
    // it takes about as long as the manifest's decode, so they run side by side.
    let (manifest_record, (manifest, entries), walk, walk_outcome) = std::thread::scope(|scope| {
        let links = scope.spawn(|| walk::links_of(root, memo()));
        read_manifest(root, &manifest_path, name, known, links)
    });
    head_with(
        conn,
        (manifest_record, manifest, entries),
        (walk, walk_outcome),
        known,
        spill,
        started,
    )
}

/// [`scan_head`] for a walkable manifest already read and cut by a walk whose memo held (a
/// start's head, `store::head`): when the manifest is still as stored, neither it is read
/// again nor the directories walked; `None` otherwise (the caller scans it).
pub fn scan_head_known(
    conn: &ConnectionConfig,
    manifest: &ManifestRead,
    walk_outcome: [u8; 32],
    known: Known,
    spill: Option<Spill>,
) -> Option<ScanHead> {
    let started = std::time::Instant::now();
    let ManifestRead::Ok { doc, .. } = manifest else {
        return None;
    };
    let path = conn.print_root.join(MANIFEST_FILENAME);
    let record = refresh_file(&path, &conn.name, None, "manifest", known, None);
    if record.scanned != Scanned::Unchanged {
        return None;
    }
    let entries = doc.tables().iter().map(|(k, v)| (k.clone(), v)).collect();
    Some(head_with(
        conn,
        (record, manifest.clone(), entries),
        (None, Some(walk_outcome)),
        known,
        spill,
        started,
    ))
}

/// A scan's head from the manifest as read (its record, how it reads, its walkable
/// entries) and the walk it was cut by (a memo to keep, its outcome): the other
/// connection-level files are read here.
fn head_with(
    conn: &ConnectionConfig,
    (manifest_record, manifest, entries): (FileRecord, ManifestRead, Vec<(Value, Value)>),
    (walk, walk_outcome): (Option<walk::WalkMemo>, Option<[u8; 32]>),
    known: Known,
    spill: Option<Spill>,
    started: std::time::Instant,
) -> ScanHead {
    let root = &conn.print_root;
    let name = conn.name.as_str();
    let mut others: Vec<FileRecord> = [
        ("reading", READING_FILENAME),
        ("manifest_annotations", MANIFEST_ANNOTATIONS_FILENAME),
    ]
    .into_iter()
    .map(|(kind, file)| refresh_file(&root.join(file), name, None, kind, known, spill))
    .collect();
    let manifest_read = started.elapsed();
    let mut files = vec![manifest_record];
    let mut spilled = spill_into(&mut files, spill);
    spilled += spill_into(&mut others, spill);
    files.extend(others);
    ScanHead {
        manifest,
        entries,
        files,
        walk,
        walk_outcome,
        spilled,
        started,
        manifest_read,
    }
}

/// The second part of [`scan_connection`]: every file the walkable tables declare.
pub fn scan_tables(
    conn: &ConnectionConfig,
    head: ScanHead,
    known: Known,
    progress: Progress,
    spill: Option<Spill>,
) -> ConnectionScan {
    let ScanHead {
        manifest,
        entries,
        mut files,
        walk,
        walk_outcome,
        mut spilled,
        started,
        manifest_read,
    } = head;
    let root = &conn.print_root;
    let name = conn.name.as_str();
    let mut tables = Vec::with_capacity(entries.len());
    let mut declared = Vec::with_capacity(entries.len());
    for (key, entry) in entries {
        let fqn = compat::py::str_of(&key);
        let dir = root.join(walk::table_path(&fqn, &entry));
        declared.push(walk::declared_artifacts(&entry).len());
        tables.push((fqn, dir, entry));
    }
    let artifacts: usize = declared.iter().sum();
    // Progress counts every file the connection's mirror will hold, these and the diff
    // included.
    let before = files.len();
    let total = before + 1 + artifacts;
    progress(before, total);
    // diff.yaml is parsed on one thread, in pieces stored as they come (`spill`), and can
    // take as long as a fifth of the tables' read: it is read beside them, where the
    // workers leave a core idle while the store writes their batches, rather than before.
    let (diff, read) = std::thread::scope(|scope| {
        let diff = scope.spawn(|| {
            let mut diff = [refresh_file(
                &root.join(DIFF_FILENAME),
                name,
                None,
                "diff",
                known,
                spill,
            )];
            let spilled = spill_into(&mut diff, spill);
            (diff, spilled)
        });
        let read = read_all(
            (&tables, &declared),
            name,
            known,
            &|done, _| progress(before + done, total),
            spill,
        );
        // A panic in reading the diff is the scan's, as it was before it moved here.
        let diff = diff.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (diff, read)
    });
    progress(total, total);
    let ([diff], spilled_diff) = diff;
    // The connection files in their usual order: the manifest (always first), the diff,
    // then the others.
    files.insert(1, diff);
    spilled += spilled_diff + read.spilled;
    // Moved part by part, each let go once moved: the records are never held twice.
    files.reserve_exact(artifacts);
    for part in read.parts {
        files.extend(part);
    }
    let named_ahead = read.named_ahead;
    tracing::debug!(connection = name, ?manifest_read, files = files.len(), spilled, named_ahead, total = ?started.elapsed(), "scanned");
    ConnectionScan {
        manifest,
        files,
        tables,
        walk,
        walk_outcome,
        spilled,
    }
}

/// The manifest's identity, when every connection-level file a scan's head reads (the
/// manifest, reading.md, manifest.annotations.yaml) is as `known` holds it; `None` when
/// one moved. Nothing is read or parsed: for a start whose image says what the rest
/// holds (`store::image`).
pub fn connection_files_unchanged(conn: &ConnectionConfig, known: Known) -> Option<FileIdentity> {
    let root = &conn.print_root;
    let name = conn.name.as_str();
    let mut manifest = None;
    for (kind, file) in [
        ("manifest", MANIFEST_FILENAME),
        ("reading", READING_FILENAME),
        ("manifest_annotations", MANIFEST_ANNOTATIONS_FILENAME),
    ] {
        let path = root.join(file);
        let now = file_identity(&path);
        if !unchanged_in(known, &path, now) {
            tracing::debug!(connection = name, kind, "a connection file moved");
            return None;
        }
        if kind == "manifest" {
            manifest = Some(now?);
        }
    }
    manifest
}

/// Where a scan hands what it has just read, a batch at a time, so that a large print is
/// never held parsed in memory whole.
pub trait Stash: Sync {
    /// Store `records` and answer `true` (their parses are then dropped and the records
    /// marked `Scanned::Stored`), or `false` (the scan keeps them).
    fn records(&self, records: &[FileRecord]) -> bool;
    /// Store the items `first..` of a split file's list (see [`SPLIT_KEY`]) under its
    /// content `hash`; `false`: not stored, the file is parsed whole instead.
    fn items(&self, hash: &str, first: u64, items: &[Value]) -> bool;
}

pub type Spill<'a> = &'a dyn Stash;

/// Records a worker reads before it spills them.
const SPILL_BATCH: usize = 128;

/// Reports `(files done, files in all)` while a scan reads artifacts.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Read every file the walkable `tables` declare (`declared[i]` for table `i`), in order,
/// on as many threads as there are cores: parsing dominates a cold ingest, and files are
/// independent. Each worker makes its tables' paths as it goes (a large print's list of
/// paths is never held whole), holds its records in a list of their exact size and, with
/// a spill, hands them over every `SPILL_BATCH` files; where every file is read, it names
/// each to the kernel a few tables ahead of reading it (`read_ahead`).
fn read_all(
    (tables, declared): (&[(String, PathBuf, Value)], &[usize]),
    connection: &str,
    known: Known,
    progress: Progress,
    spill: Option<Spill>,
) -> ReadAll {
    let total: usize = declared.iter().sum();
    let read_ahead = known.holds_nothing();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let spilled = std::sync::atomic::AtomicUsize::new(0);
    let named_ahead = std::sync::atomic::AtomicUsize::new(0);
    let read_chunk = |part: &[(&(String, PathBuf, Value), usize)]| -> Vec<FileRecord> {
        let mut out = Vec::with_capacity(part.iter().map(|(_, n)| n).sum());
        let hand_over = |batch: &mut [FileRecord]| {
            let n = spill_into(batch, spill);
            spilled.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        let mut unspilled = 0;
        let mut naming = read_ahead::Naming::new(part.len(), !read_ahead);
        for (at, ((fqn, dir, entry), _)) in part.iter().enumerate() {
            naming.reading(part, at);
            for (kind, file) in walk::declared_artifacts(entry) {
                let path = dir.join(&file);
                out.push(match known.trusted(&path) {
                    Some(identity) => {
                        FileRecord::unchanged(&path, connection, Some(fqn), &kind, identity)
                    }
                    None => refresh_file(&path, connection, Some(fqn), &kind, known, None),
                });
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if n.is_multiple_of(64) || n == total {
                    progress(n, total);
                }
                if out.len() - unspilled == SPILL_BATCH {
                    hand_over(&mut out[unspilled..]);
                    unspilled = out.len();
                }
            }
        }
        hand_over(&mut out[unspilled..]);
        named_ahead.fetch_add(naming.named, std::sync::atomic::Ordering::Relaxed);
        out
    };
    let work: Vec<_> = tables.iter().zip(declared.iter().copied()).collect();
    // At most 8 workers, none for fewer than 16 tables (about 64 files).
    let parts = parts::in_parts(&work, 16, 8, read_chunk);
    ReadAll {
        parts,
        spilled: spilled.into_inner(),
        named_ahead: named_ahead.into_inner(),
    }
}

/// What [`read_all`] read: the parts' records in order, how many were spilled, and how
/// many files were named to the kernel ahead of their read.
struct ReadAll {
    parts: Vec<Vec<FileRecord>>,
    spilled: usize,
    named_ahead: usize,
}

/// Hand `records` to `spill` when one holds a fresh parse; when it stores them, drop
/// their parses (`Scanned::Stored`). Returns how many were dropped.
fn spill_into(records: &mut [FileRecord], spill: Option<Spill>) -> usize {
    let fresh = |r: &FileRecord| !matches!(r.scanned, Scanned::Unchanged | Scanned::Touched);
    let Some(spill) = spill.filter(|_| records.iter().any(fresh)) else {
        return 0;
    };
    if !spill.records(records) {
        return 0;
    }
    let mut dropped = 0;
    for r in records.iter_mut().filter(|r| fresh(r)) {
        r.scanned = Scanned::Stored;
        dropped += 1;
    }
    dropped
}

/// The manifest's record and how it reads (with its walkable entries), what the walk for
/// symlinks (`links`, under way) depended on when it walked now, and the outcome of the
/// walk a walkable manifest was cut by.
fn read_manifest(
    root: &Path,
    manifest_path: &Path,
    name: &str,
    known: Known,
    links: std::thread::ScopedJoinHandle<'_, walk::LinkWalk>,
) -> (
    FileRecord,
    Walkable,
    Option<walk::WalkMemo>,
    Option<[u8; 32]>,
) {
    // A panic in the walk is the scan's, as it was before the walk moved.
    let mut links = Some(links);
    let mut join = || {
        links
            .take()
            .map(|l| l.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    };
    let mut memo = None;
    let mut outcome = None;
    let manifest_record = refresh_file(manifest_path, name, None, "manifest", known, None);
    // Borrowed from the record when it was read now: a large print's manifest parse is
    // its largest value, and the record holds it until the spill takes it.
    let manifest_parsed = match manifest_record.scanned.read() {
        Some(read) => std::borrow::Cow::Borrowed(read),
        None => std::borrow::Cow::Owned(known.parsed(manifest_path).unwrap_or(Parsed::Absent)),
    };
    let none = |read| (read, Vec::new());
    let manifest = if !manifest_path.is_file() {
        none(ManifestRead::Absent)
    } else if !walk::contained(root, manifest_path) {
        none(ManifestRead::Malformed(
            "it resolves outside the connection root".into(),
        ))
    } else {
        match &*manifest_parsed {
            Parsed::YamlError(m) => none(ManifestRead::Unparseable(m.clone())),
            Parsed::OtherError(m) => none(ManifestRead::Failed(m.clone())),
            Parsed::Yaml(data) => match manifest_shape_error(data) {
                Some(reason) => none(ManifestRead::Malformed(reason)),
                None => match join() {
                    Some(walked) => {
                        memo = walked.new_memo().cloned();
                        outcome = walked.outcome();
                        walkable_manifest(root, data, walked)
                    }
                    None => none(ManifestRead::Absent),
                },
            },
            Parsed::Text
            | Parsed::Prose(_)
            | Parsed::Absent
            // Only diff.yaml is read in pieces.
            | Parsed::Split(_) => none(ManifestRead::Absent),
        }
    };
    if let Some(walked) = join() {
        memo = walked.new_memo().cloned();
    }
    (manifest_record, manifest, memo, outcome)
}

/// How a manifest reads, and its walkable `tables` entries as values.
type Walkable = (ManifestRead, Vec<(Value, Value)>);

fn walkable_manifest(root: &Path, data: &Value, walked: walk::LinkWalk) -> Walkable {
    let links = walked.escaping(root, Some(data));
    let keep: std::collections::HashSet<String> =
        walk::walkable(data, &links).into_iter().collect();
    let mut dropped = Vec::new();
    let mut kept = Vec::new();
    if let Some(entries) = data.get("tables").and_then(Value::as_map) {
        for (k, v) in entries {
            let fqn = compat::py::str_of(k);
            if keep.contains(&fqn) {
                kept.push((k.clone(), v.clone()));
            } else {
                dropped.push(fqn);
            }
        }
    }
    dropped.sort();
    // `{**data, "tables": walkable}`: a new dict, whose `tables` the manifest holds apart.
    let doc = Manifest::new(data, &kept);
    (ManifestRead::Ok { doc, dropped }, kept)
}

#[cfg(test)]
mod tests;
