//! The search index: a tantivy index beside the SQLite mirror holding what search_columns
//! and resolve_value read, one document per table, column and part. Ingest writes it (in
//! batched commits, the reader reloaded after each) from the parses it already made; a
//! request reads the [`SearchView`] taken when its connection state was built, so the
//! index and the mirror it was built from never disagree within one call.
//!
//! Globs are decided in Rust with `fnmatchcase` over the field's own term dictionary (exact
//! values, stored raw), and a `text` needle by the index itself: the trigrams of the
//! casefolded strings at their positions, which hold the needle exactly where they hold its
//! trigrams at the needle's offsets. A needle under three characters, or a glob where a value
//! was too long to be a term, finds candidates that the stored record confirms. So an answer
//! is the reference's, never an approximation.

pub mod abbreviations;
mod batches;
pub mod directory;
mod entries;
pub mod find;
mod kept;
pub mod lookup;
pub mod records;
pub mod tokens;
pub mod words;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use tantivy::query::TermQuery;
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::{Executor, Index, IndexReader, IndexWriter, Searcher, TantivyDocument, Term};

use crate::error::Recover;
use crate::ingest::{FileIdentity, Parsed};
use records::{ColumnRecord, Input, TableRecord};

use entries::ByTableKey;
use entries::{entry_key, version_of};
pub use entries::{table_entries, table_key, Indexed, SweptPaths, TableEntry, INDEXED_KINDS};

/// Bump when the schema or the derivation of records changes: an index of another
/// version is discarded and rebuilt (it is a cache).
pub const INDEX_VERSION: &str = "13";
const VERSION_FILE: &str = "printdex-index-version";
const WRITER_HEAP: usize = 50_000_000;
/// A document's first reservation, beside its table id: the fields every document has.
const BASE_DOC_BYTES: usize = 64;
/// A sync of at most this many tables commits without merging.
const SMALL_SYNC: usize = 16;
/// `compact` merges once the index holds more segments than this.
const MAX_SEGMENTS: usize = 8;
/// Threads that search one query's segments side by side, at most.
const MAX_SEARCH_THREADS: usize = 4;
/// A raw value longer than this is indexed as [`LONG`] and checked on the stored record.
const MAX_RAW: usize = 1024;
/// Raw terms carry this prefix, so an empty value is a term too.
const RAW: &str = "=";
const LONG: &str = "\u{1}long";

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("search index read: {0}")]
    Read(#[from] std::io::Error),
    #[error("search index record: {0}")]
    Encoding(#[from] serde_json::Error),
    #[error("search index directory {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Files whose checksums do not match what tantivy wrote.
    #[error("search index damaged: checksum mismatch in {0}")]
    Checksum(String),
    /// A table's files as the mirror holds them are not the contents its key names: the
    /// writer's view is older than the mirror's rows, and nothing is indexed from it.
    #[error("search index: {0} is keyed by contents the mirror no longer holds")]
    Outdated(String),
}

impl IndexError {
    /// Whether the failure says the directory cannot be written (full, read-only, not
    /// permitted), rather than that what it holds is damaged.
    pub fn unusable_location(&self) -> bool {
        use std::io::ErrorKind as K;
        let kind = match self {
            IndexError::Tantivy(tantivy::TantivyError::IoError(e)) => Some(e.kind()),
            IndexError::Tantivy(tantivy::TantivyError::OpenWriteError(
                tantivy::directory::error::OpenWriteError::IoError { io_error, .. },
            )) => Some(io_error.kind()),
            IndexError::Tantivy(tantivy::TantivyError::OpenDirectoryError(_)) => Some(K::NotFound),
            IndexError::Read(e) | IndexError::Io { source: e, .. } => Some(e.kind()),
            _ => None,
        };
        kind.is_some_and(|k| {
            matches!(
                k,
                K::StorageFull
                    | K::ReadOnlyFilesystem
                    | K::PermissionDenied
                    | K::QuotaExceeded
                    | K::NotADirectory
                    | K::AlreadyExists
            )
        })
    }
}

/// What is wrong with the search index in `dir`, read without changing anything: `None`
/// when it opens, reads and verifies (or there is none, or it is of another version and
/// replaced at the next start anyway).
pub fn inspect(dir: &Path) -> Option<String> {
    let current = std::fs::read_to_string(dir.join(VERSION_FILE)).ok();
    if current.as_deref() != Some(INDEX_VERSION) {
        return None;
    }
    let (schema, fields) = schema();
    match SearchIndex::open_existing(dir, &schema, fields, true) {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// The schema's fields.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    kind: Field,
    conn: Field,
    table_id: Field,
    table_key: Field,
    col_rank: Field,
    part_rank: Field,
    name: Field,
    column: Field,
    classification: Field,
    sql_type: Field,
    sensitivity: Field,
    looks_like: Field,
    redacted: Field,
    candidate_key: Field,
    text: Field,
    flags: Field,
    payload: Field,
    /// resolve_value's part of a record: a column's values, a table's column names.
    resolve: Field,
    /// find's documents (`find`).
    find_kind: Field,
    find_name: Field,
    find_text: Field,
    find_word: Field,
    find_exact: Field,
    find_hit: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    // Positions: a needle is its trigrams at their offsets (`tokens::needle_trigrams`), so
    // the index alone decides a `text` match and counts a broad one without reading records.
    let trigrams = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokens::TRIGRAMS_TOKENIZER)
            .set_fieldnorms(false)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    // BM25 reads term frequencies and field lengths.
    let scored = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(words::TERMS_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    // Frequencies on every field find scores; a misspelled word's weight is scaled from
    // the term's score (`find::near_words`), so lengths are not needed for it.
    let listed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(words::PLAIN_TOKENIZER)
            .set_fieldnorms(false)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let exact = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("raw")
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        kind: b.add_text_field("kind", STRING),
        conn: b.add_text_field("conn", STRING),
        // FAST: a start reads which tables the index holds from the column, not the store.
        table_id: b.add_text_field("table_id", STRING | STORED | FAST),
        table_key: b.add_u64_field("table_key", INDEXED | FAST),
        col_rank: b.add_u64_field("col_rank", FAST),
        part_rank: b.add_u64_field("part_rank", FAST),
        name: b.add_text_field("name", STRING),
        column: b.add_text_field("column", STRING),
        classification: b.add_text_field("classification", STRING),
        sql_type: b.add_text_field("sql_type", STRING),
        sensitivity: b.add_text_field("sensitivity", STRING),
        looks_like: b.add_text_field("looks_like", STRING),
        redacted: b.add_text_field("redacted", STRING),
        candidate_key: b.add_text_field("candidate_key", STRING),
        text: b.add_text_field("text", trigrams),
        flags: b.add_text_field("flags", STRING),
        payload: b.add_bytes_field("payload", STORED),
        resolve: b.add_bytes_field("resolve", STORED),
        find_kind: b.add_text_field("find_kind", STRING),
        find_name: b.add_text_field("find_name", scored.clone()),
        find_text: b.add_text_field("find_text", scored),
        find_word: b.add_text_field("find_word", listed),
        find_exact: b.add_text_field("find_exact", exact),
        find_hit: b.add_bytes_field("find_hit", STORED),
    };
    (b.build(), fields)
}

/// A declared file as a sync indexes it: its parse, and the content version (blake3, or
/// `absent`) the parse was made from, which the table's key must name.
pub struct Loaded<'a> {
    pub parsed: Cow<'a, Parsed>,
    pub version: String,
}

/// What a sync reads a declared file's parse with.
pub type Load<'a> = dyn Fn(&Path) -> Loaded<'a> + Sync + 'a;

pub use crate::ingest::file_identity;

/// The index as one connection state reads it: a searcher fixed at the state's build,
/// and the state's walkable tables in FQN order.
#[derive(Clone)]
pub struct SearchView {
    pub(crate) searcher: Searcher,
    /// The index's directory (see `SearchIndex::dir`).
    pub(crate) dir: Arc<Path>,
    pub(crate) fields: Fields,
    pub(crate) conn: String,
    /// Walkable tables, sorted by FQN.
    pub tables: Arc<Vec<TableEntry>>,
    /// Table key -> position in `tables`.
    pub(crate) rank: Arc<ByTableKey<usize>>,
}

impl std::fmt::Debug for SearchView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchView")
            .field("conn", &self.conn)
            .field("tables", &self.tables.len())
            .finish()
    }
}

impl SearchView {
    /// Every walkable table's files of `which` that moved on disk since ingest read them:
    /// one `stat` per declared file, spread over the cores. `None` when a part of the
    /// sweep failed. The sweep a search makes alone (the store shares one between the
    /// searches arriving while it runs: `store::shared_sweep`); the benchmarks measure it.
    pub fn moved_paths(&self, which: Indexed) -> Option<Vec<PathBuf>> {
        let (chunks, sweep) = super::shared_sweep::of_tables(self.tables.clone(), which);
        super::shared_sweep::swept_alone(chunks, &sweep)
    }

    /// The position of `fqn` among the walkable tables.
    pub fn table_rank(&self, fqn: &str) -> Option<usize> {
        self.tables
            .binary_search_by(|t| t.fqn.as_str().cmp(fqn))
            .ok()
    }
}

pub struct SearchIndex {
    index: Index,
    /// Where the index lives: a bulk read maps its stores apart (`directory::StoresApart`).
    dir: Arc<Path>,
    reader: IndexReader,
    fields: Fields,
    /// Per connection: the key each indexed table was derived under, as of the index
    /// commit (opstamp) it was read at or this process last made.
    known: Mutex<Known>,
    /// What opening found in the directory.
    opened: super::Opened,
}

#[derive(Default)]
struct Known {
    /// The commit `tables` is what the index holds at (`None`: not to be trusted; read
    /// the index again).
    opstamp: Option<u64>,
    /// A table whose documents the index holds more than once (an earlier printdex could
    /// add them again) is left out: to a reader it is not held as any state wants it, and
    /// a writer replaces its documents.
    tables: HashMap<String, HashMap<String, u64>>,
}

/// `dir` as the index's directory (see `directory`).
fn open_directory(dir: &Path) -> Result<directory::BoundedLocks, IndexError> {
    directory::BoundedLocks::open(dir).map_err(|e| IndexError::from(tantivy::TantivyError::from(e)))
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl SearchIndex {
    /// Open (or create) the index in `dir`; one of another version is discarded. One that
    /// fails to open or read (or, when `verify`, to match its checksums) is an error, for
    /// the caller to set aside (see `store::location`).
    pub fn open(dir: &Path, verify: bool) -> Result<SearchIndex, IndexError> {
        let (schema, fields) = schema();
        let current = std::fs::read_to_string(dir.join(VERSION_FILE)).ok();
        if current.as_deref() == Some(INDEX_VERSION) {
            if let Some(this) = SearchIndex::open_existing(dir, &schema, fields, verify)? {
                return Ok(this);
            }
        }
        let found = if dir.exists() {
            super::Opened::Replaced
        } else {
            super::Opened::Created
        };
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io_err(dir))?;
        }
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let index = Index::create(
            open_directory(dir)?,
            schema,
            tantivy::IndexSettings::default(),
        )?;
        std::fs::write(dir.join(VERSION_FILE), INDEX_VERSION).map_err(io_err(dir))?;
        SearchIndex::with_reader(index, dir, fields, found)
    }

    /// The index in `dir` while another process holds the writer lock and works on it:
    /// nothing is made, replaced or checked. `None` unless an index of this version is
    /// there to read beside it.
    pub fn open_beside_writer(dir: &Path) -> Result<Option<SearchIndex>, IndexError> {
        let (schema, fields) = schema();
        let current = std::fs::read_to_string(dir.join(VERSION_FILE)).ok();
        if current.as_deref() != Some(INDEX_VERSION) {
            return Ok(None);
        }
        SearchIndex::open_existing(dir, &schema, fields, false)
    }

    /// The index of this version in `dir`, read through once (and its checksums checked
    /// when `verify`); `None` when its schema is another.
    fn open_existing(
        dir: &Path,
        schema: &Schema,
        fields: Fields,
        verify: bool,
    ) -> Result<Option<SearchIndex>, IndexError> {
        let index = Index::open(open_directory(dir)?)?;
        if index.schema() != *schema {
            return Ok(None);
        }
        if verify {
            let failed = index.validate_checksum()?;
            if !failed.is_empty() {
                let mut names: Vec<String> =
                    failed.iter().map(|p| p.display().to_string()).collect();
                names.sort();
                return Err(IndexError::Checksum(names.join(", ")));
            }
        }
        SearchIndex::with_reader(index, dir, fields, super::Opened::Reused).map(Some)
    }

    fn with_reader(
        index: Index,
        dir: &Path,
        fields: Fields,
        opened: super::Opened,
    ) -> Result<SearchIndex, IndexError> {
        let started = std::time::Instant::now();
        // search_columns' text and find's fields are analyzed by the index itself (see
        // `tokens` and `words`), in every process that writes it.
        index
            .tokenizers()
            .register(words::TERMS_TOKENIZER, words::Terms);
        index
            .tokenizers()
            .register(words::PLAIN_TOKENIZER, words::Plain);
        index
            .tokenizers()
            .register(tokens::TRIGRAMS_TOKENIZER, tokens::Trigrams);
        let reader = directory::reader(&index)?;
        let read = started.elapsed();
        let this = SearchIndex {
            index,
            dir: Arc::from(dir),
            reader,
            fields,
            // Read at the first sync, which reads it again whenever the index's opstamp is
            // not the one it was read at (none yet). A start that answers from its head
            // need not wait for it.
            known: Mutex::new(Known::default()),
            opened,
        };
        tracing::debug!(?read, total = ?started.elapsed(), "search index read");
        Ok(this)
    }

    /// Check every file's checksum and read the index through again: what a call that
    /// failed reading it asks before the location is repaired.
    pub fn verify(&self) -> Result<(), IndexError> {
        let failed = self.index.validate_checksum()?;
        if !failed.is_empty() {
            let names: Vec<String> = failed.iter().map(|p| p.display().to_string()).collect();
            return Err(IndexError::Checksum(names.join(", ")));
        }
        self.load_known().map(|_| ())
    }

    /// A writer of the index: one indexing thread and one merging thread. Merges run one
    /// after another: each maps the segments it reads, and with tantivy's four at once the
    /// pages of every merge's segments were held together (a large sync's peak).
    fn writer(&self) -> Result<IndexWriter<TantivyDocument>, IndexError> {
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .num_worker_threads(1)
            .num_merge_threads(1)
            .memory_budget_per_thread(WRITER_HEAP)
            .build();
        Ok(self.index.writer_with_options(options)?)
    }

    /// Whether opening created, reused or replaced the index.
    pub fn opened(&self) -> super::Opened {
        self.opened
    }

    /// Merge the index's segments into one when there are more than `MAX_SEGMENTS` (small
    /// syncs leave one each). The caller holds the writer lock.
    pub fn compact(&self) -> Result<bool, IndexError> {
        let segments = self.index.searchable_segment_ids()?;
        if segments.len() <= MAX_SEGMENTS {
            return Ok(false);
        }
        let mut writer: IndexWriter<TantivyDocument> = self.writer()?;
        writer.merge(&segments).wait()?;
        writer.wait_merging_threads()?;
        directory::reload(&self.reader)?;
        Ok(true)
    }

    /// How many documents of `kind` (`table`, `column`, `part`) the index holds now.
    pub fn count(&self, kind: &str) -> Result<usize, IndexError> {
        directory::reload(&self.reader)?;
        let query = TermQuery::new(
            Term::from_field_text(self.fields.kind, kind),
            IndexRecordOption::Basic,
        );
        Ok(self
            .reader
            .searcher()
            .search(&query, &tantivy::collector::Count)?)
    }

    /// Read back which tables the index holds, and under which keys.
    fn load_known(&self) -> Result<Known, IndexError> {
        let started = std::time::Instant::now();
        let opstamp = self.index.load_metas()?.opstamp;
        directory::reload(&self.reader)?;
        let mut known = self.known_in(&self.reader.searcher())?;
        known.opstamp = Some(opstamp);
        tracing::debug!(elapsed = ?started.elapsed(), "the index's table keys read");
        Ok(known)
    }

    /// Which tables `searcher` holds once, and under which keys (its opstamp unset).
    fn known_in(&self, searcher: &Searcher) -> Result<Known, IndexError> {
        use tantivy::{DocSet, TERMINATED};
        let table = Term::from_field_text(self.fields.kind, "table");
        let mut known = Known::default();
        let mut twice: Vec<(String, String)> = Vec::new();
        // Per segment: its table documents straight from the term's postings (in doc
        // order, no set of addresses made), its table ids in term order (the column's
        // ordinals) read as one stream, then each document's key and id from the two
        // columns, opened once.
        for segment in searcher.segment_readers() {
            let Some(mut docs) = segment
                .inverted_index(self.fields.kind)?
                .read_postings(&table, IndexRecordOption::Basic)?
            else {
                continue;
            };
            let columns = segment.fast_fields();
            let keys = columns.u64("table_key")?;
            let Some(ids) = columns.str("table_id")? else {
                continue;
            };
            let mut names = Vec::new();
            let mut stream = ids.dictionary().stream()?;
            while stream.advance() {
                names.push(String::from_utf8_lossy(stream.key()).into_owned());
            }
            let alive = segment.alive_bitset();
            let mut doc = docs.doc();
            while doc != TERMINATED {
                let id = ids
                    .ords()
                    .first(doc)
                    .and_then(|ord| names.get(ord as usize));
                let live = alive.is_none_or(|a| a.is_alive(doc));
                if let (true, Some(key), Some(id)) = (live, keys.first(doc), id) {
                    if let Some((conn, fqn)) = id.split_once('\0') {
                        // Looked up before it is owned: a connection's tables are many.
                        let tables = match known.tables.get_mut(conn) {
                            Some(tables) => tables,
                            None => known.tables.entry(conn.to_string()).or_default(),
                        };
                        if tables.insert(fqn.to_string(), key).is_some() {
                            twice.push((conn.to_string(), fqn.to_string()));
                        }
                    }
                }
                doc = docs.advance();
            }
        }
        for (conn, fqn) in twice {
            if let Some(tables) = known.tables.get_mut(&conn) {
                tables.remove(&fqn);
            }
        }
        Ok(known)
    }

    /// The snapshot a connection state of these walkable `tables` reads, taken without
    /// writing (another process holds the writer lock): `None` unless the index holds
    /// exactly these tables of the connection under these keys, so that every search
    /// answers from documents derived from the contents the state names.
    pub fn view(
        &self,
        conn: &str,
        mut tables: Vec<TableEntry>,
    ) -> Result<Option<SearchView>, IndexError> {
        directory::reload(&self.reader)?;
        let searcher = self.reader.searcher();
        let held = self
            .known_in(&searcher)?
            .tables
            .remove(conn)
            .unwrap_or_default();
        let matches =
            held.len() == tables.len() && tables.iter().all(|t| held.get(&t.fqn) == Some(&t.key));
        if !matches {
            return Ok(None);
        }
        tables.sort_by(|a, b| a.fqn.cmp(&b.fqn));
        Ok(Some(self.view_over(searcher, conn, tables)))
    }

    /// `conn`'s view through `searcher` over `tables`, sorted by FQN.
    fn view_over(&self, searcher: Searcher, conn: &str, tables: Vec<TableEntry>) -> SearchView {
        let rank = tables.iter().enumerate().map(|(i, t)| (t.key, i)).collect();
        SearchView {
            searcher,
            dir: self.dir.clone(),
            fields: self.fields,
            conn: conn.to_string(),
            tables: Arc::new(tables),
            rank: Arc::new(rank),
        }
    }

    /// A view of no tables, for a state that answers from its manifest alone (a start's
    /// head, `store::head`): it searches nothing.
    pub fn empty_view(&self, conn: &str) -> SearchView {
        SearchView {
            searcher: self.reader.searcher(),
            dir: self.dir.clone(),
            fields: self.fields,
            conn: conn.to_string(),
            tables: Arc::default(),
            rank: Arc::default(),
        }
    }

    /// Bring one connection's documents in line with its walkable tables, and take the
    /// snapshot its new state reads. `load` returns a declared file's parse (from the scan
    /// that just read it, or the mirror) with the version it was parsed from: a table's
    /// documents are only ever stored under the key of what they were derived from.
    pub fn sync<'a>(
        &self,
        conn: &str,
        mut tables: Vec<TableEntry>,
        load: &Load<'a>,
    ) -> Result<SearchView, IndexError> {
        tables.sort_by(|a, b| a.fqn.cmp(&b.fqn));
        let mut known_all = self.known.lock().recover();
        // Another process sharing the index directory may have committed since: then
        // what the index holds is read again rather than trusted.
        if Some(self.index.load_metas()?.opstamp) != known_all.opstamp {
            *known_all = self.load_known()?;
        }
        let known_all = &mut *known_all;
        let known = known_all.tables.entry(conn.to_string()).or_default();
        let wanted: HashMap<&str, u64> = tables.iter().map(|t| (t.fqn.as_str(), t.key)).collect();
        let stale: Vec<String> = known
            .iter()
            .filter(|(fqn, key)| wanted.get(fqn.as_str()) != Some(key))
            .map(|(fqn, _)| fqn.clone())
            .collect();
        let fresh: Vec<&TableEntry> = tables
            .iter()
            .filter(|t| known.get(&t.fqn) != Some(&t.key))
            .collect();
        if !stale.is_empty() || !fresh.is_empty() {
            // Until this sync's commits land, what is known is not what the index holds:
            // a sync that fails on the way leaves the next one to read the index again.
            known_all.opstamp = None;
            let mut writer: IndexWriter<TantivyDocument> = self.writer()?;
            if fresh.len() + stale.len() <= SMALL_SYNC {
                // A few tables (the watcher's usual work): commit without waiting on a
                // merge, which can take longer than the change itself; `compact` merges
                // the small segments this leaves, off the path of any change.
                writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
            }
            // Every table whose documents go or are replaced loses whatever the index holds
            // of it, known or not: a delete reaches only what was added before it, so a
            // table's documents are never held twice.
            // An index holding no documents (a rebuild's) has none to lose: each delete
            // would be held (a query's weight each) until the first commit.
            let holds_none = self.index.searchable_segment_ids()?.is_empty();
            let replaced = fresh.iter().map(|t| t.fqn.as_str()).filter(|_| !holds_none);
            for fqn in stale.iter().map(String::as_str).chain(replaced) {
                writer.delete_term(Term::from_field_text(
                    self.fields.table_id,
                    &table_id(conn, fqn),
                ));
            }
            for fqn in &stale {
                known.remove(fqn);
            }
            let started = std::time::Instant::now();
            let (committed, building, written) =
                self.index_batches(conn, &fresh, load, &mut writer);
            known.extend(committed);
            written?;
            if fresh.is_empty() {
                // Tables only went: no batch committed their deletes.
                writer.commit()?;
            }
            tracing::debug!(connection = conn, tables = fresh.len(), ?building, total = ?started.elapsed(), "indexed");
            writer.wait_merging_threads()?;
            directory::reload(&self.reader)?;
            known_all.opstamp = Some(self.index.load_metas()?.opstamp);
        }
        Ok(self.view_over(self.reader.searcher(), conn, tables))
    }

    /// A table's documents: its own, then one per column and part; and find's.
    fn table_docs<'a>(
        &self,
        conn: &str,
        table: &TableEntry,
        load: &Load<'a>,
    ) -> Result<TableDocs, IndexError> {
        let loaded: Vec<Option<Loaded<'a>>> = table.indexed().iter().map(|p| p.map(load)).collect();
        let versions: Vec<Option<(&Path, &str)>> = table
            .indexed()
            .iter()
            .zip(&loaded)
            .map(|(p, l)| p.zip(l.as_ref().map(|l| l.version.as_str())))
            .collect();
        let derived_from = table_key(
            conn,
            &table.fqn,
            [versions[0], versions[1], versions[2], versions[3]],
        );
        if derived_from != table.key {
            return Err(IndexError::Outdated(table.fqn.clone()));
        }
        let (stats, annotations) = (loaded[0].as_ref(), loaded[1].as_ref());
        let derived = records::derive(
            &table.fqn,
            input(stats.as_ref().map(|l| l.parsed.as_ref())),
            input(annotations.as_ref().map(|l| l.parsed.as_ref())),
        );
        let f = &self.fields;
        let id = table_id(conn, &derived.table.fqn);
        let base = |kind: &str| {
            // Sized for what `base` adds, grown by what follows: tantivy's `new` reserves a
            // kilobyte, four times a find value's document, and a large sync holds hundreds
            // of thousands of documents at once while the writer catches up.
            let mut doc = TantivyDocument::with_capacity(BASE_DOC_BYTES + id.len());
            doc.add_text(f.kind, kind);
            doc.add_text(f.conn, conn);
            doc.add_text(f.table_id, &id);
            doc.add_u64(f.table_key, table.key);
            doc
        };
        let mut doc = base("table");
        let t: &TableRecord = &derived.table;
        for (flag, on) in [
            ("unreadable", t.unreadable),
            ("looks_like_off", t.looks_like_off),
            ("error", t.search_error.is_some()),
        ] {
            if on {
                doc.add_text(f.flags, flag);
            }
        }
        doc.add_bytes(f.payload, &serde_json::to_vec(t)?);
        // What only resolve_value and validate_sql's catalog read lives in documents of its
        // own, so fetching a search match never reads (or decompresses) a value list.
        let mut columns = base("table_columns");
        let catalog = records::CatalogTable::of(&derived);
        columns.add_bytes(f.resolve, &serde_json::to_vec(&catalog)?);
        let mut docs = vec![doc, columns];
        let description = match loaded[2].as_ref().map(|l| l.parsed.as_ref()) {
            Some(Parsed::Prose(text)) => Some(text.as_str()),
            _ => None,
        };
        let relationship_notes = match loaded[3].as_ref().map(|l| l.parsed.as_ref()) {
            Some(Parsed::Yaml(v)) => Some(v),
            _ => None,
        };
        let find = find::documents(f, &base, &derived, description, relationship_notes)?;
        for c in &derived.columns {
            let kind = if c.part.is_some() { "part" } else { "column" };
            docs.push(self.column_doc(base(kind), c)?);
            if let Some(resolve) = &c.resolve {
                let mut values = base("values");
                add_raw(&mut values, f.column, Some(&c.column));
                values.add_bytes(f.resolve, &serde_json::to_vec(resolve)?);
                docs.push(values);
            }
        }
        Ok(TableDocs { search: docs, find })
    }

    fn column_doc(
        &self,
        mut doc: TantivyDocument,
        c: &ColumnRecord,
    ) -> Result<TantivyDocument, IndexError> {
        let f = &self.fields;
        doc.add_u64(f.col_rank, c.col_rank);
        doc.add_u64(f.part_rank, c.part_rank);
        add_raw(&mut doc, f.name, Some(&c.label));
        if c.part.is_none() {
            add_raw(&mut doc, f.column, Some(&c.column));
        }
        add_raw(&mut doc, f.classification, c.classification.as_deref());
        add_raw(&mut doc, f.sql_type, c.sql_type.as_deref());
        add_raw(&mut doc, f.sensitivity, c.sensitivity.as_deref());
        add_raw(&mut doc, f.looks_like, c.looks_like.as_deref());
        add_raw(&mut doc, f.redacted, c.redacted.as_deref());
        if let Some(ck) = c.candidate_key {
            doc.add_text(f.candidate_key, if ck { "true" } else { "false" });
        }
        for source in c.text_sources() {
            doc.add_text(f.text, source);
        }
        doc.add_bytes(f.payload, &serde_json::to_vec(c)?);
        Ok(doc)
    }
}

fn table_id(conn: &str, fqn: &str) -> String {
    format!("{conn}\0{fqn}")
}

/// A raw term: the value behind [`RAW`], or [`LONG`] for one too long to be a term.
fn add_raw(doc: &mut TantivyDocument, field: Field, value: Option<&str>) {
    if let Some(v) = value {
        if v.len() > MAX_RAW {
            doc.add_text(field, LONG);
        } else {
            doc.add_text(field, format!("{RAW}{v}"));
        }
    }
}

fn worker_panicked() -> IndexError {
    IndexError::Io {
        path: PathBuf::new(),
        source: std::io::Error::other("index worker panicked"),
    }
}

/// Documents derived from tables: those search_columns and resolve_value read, and find's,
/// kept apart so a batch writes each group together.
#[derive(Default)]
struct TableDocs {
    search: Vec<TantivyDocument>,
    find: Vec<TantivyDocument>,
}

fn input(parsed: Option<&Parsed>) -> Input<'_> {
    match parsed {
        None => Input::Undeclared,
        Some(Parsed::Yaml(v)) => Input::Yaml(v),
        Some(Parsed::YamlError(m)) => Input::YamlError(m),
        Some(Parsed::OtherError(m)) => Input::OtherError(m),
        Some(
            Parsed::Absent
            | Parsed::Text
            | Parsed::Prose(_)
            // `parse_of` reads these from the mirror.
            | Parsed::Split(_),
        ) => Input::Absent,
    }
}

/// A declared file's parse: from the records just read when they carry it, else the
/// mirror's; with the content version it was parsed from.
fn parse_of<'a>(
    fresh: &HashMap<&Path, &'a crate::ingest::FileRecord>,
    mirror: &crate::store::mirror::Mirror,
    path: &Path,
) -> Loaded<'a> {
    let read = fresh
        .get(path)
        .and_then(|record| Some((record.scanned.read()?, record)));
    match read {
        Some((parsed, record)) if !matches!(parsed, Parsed::Split(_)) => Loaded {
            parsed: Cow::Borrowed(parsed),
            version: version_of(record.hash.as_deref()),
        },
        _ => stored_parse(mirror, path),
    }
}

/// A declared file's parse as the mirror holds it, with the version it was parsed from.
/// A row that cannot be read counts as absent (and its version as `absent`).
fn stored_parse<'a>(mirror: &crate::store::mirror::Mirror, path: &Path) -> Loaded<'a> {
    let (parsed, hash) = mirror
        .parsed_with_hash(path)
        .unwrap_or((Parsed::Absent, None));
    Loaded {
        parsed: Cow::Owned(parsed),
        version: version_of(hash.as_deref()),
    }
}

/// Bring the index up to date after a few of a connection's files changed, its manifest
/// not: `snapshot`'s tables, those whose searched files are among `moved` (each with its
/// identity now; `None`: absent) re-keyed by `tracked` and re-indexed, the rest untouched.
/// `records` are the files this writer just read (their parses are used as they are;
/// every other parse comes from the mirror); the moved ones were checked against the disk
/// under the writer lock.
pub fn sync_changed(
    index: &SearchIndex,
    mirror: &crate::store::mirror::Mirror,
    conn: &str,
    snapshot: &SearchView,
    moved: &HashMap<PathBuf, Option<FileIdentity>>,
    records: &[crate::ingest::FileRecord],
    tracked: &crate::store::file_map::FileMap,
) -> Result<SearchView, IndexError> {
    let fresh: HashMap<&Path, &crate::ingest::FileRecord> =
        records.iter().map(|f| (f.path.as_path(), f)).collect();
    let touched = |p: &Option<&Path>| p.is_some_and(|p| moved.contains_key(p));
    let tables: Vec<TableEntry> = snapshot
        .tables
        .iter()
        .map(|t| {
            if !t.indexed().iter().any(touched) {
                return t.clone();
            }
            let mut t = t.clone();
            t.key = entry_key(conn, &t.fqn, t.indexed(), tracked);
            let paths: Vec<Option<PathBuf>> = t
                .indexed()
                .iter()
                .map(|p| p.map(Path::to_path_buf))
                .collect();
            for (slot, path) in t.identities.iter_mut().zip(paths) {
                if let Some(identity) = path.as_deref().and_then(|p| moved.get(p)) {
                    *slot = *identity;
                }
            }
            t
        })
        .collect();
    let load = |p: &Path| parse_of(&fresh, mirror, p);
    index.sync(conn, tables, &load)
}

/// The process's one pool that searches a query's segments side by side (tantivy
/// collects each segment apart and merges the results, so the answer is the same). A
/// large print's index is a few segments of millions of documents each (four at 100,000
/// tables after a rebuild), and a broad find counts every document its words match (and
/// scores each one when kinds or connections narrow it): it then costs the largest
/// segment's time rather than the sum of all of them. Only find
/// uses it: a search_columns page runs several small searches, which a hand-off to the
/// pool made slower (at 100,000 tables, pattern and looks_like 4.4-5.8 ms instead of
/// 2.5-3.3 ms). On one core the calling thread searches the segments in turn.
fn search_executor() -> &'static Executor {
    static POOL: OnceLock<Executor> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_SEARCH_THREADS);
        if threads < 2 {
            return Executor::single_thread();
        }
        Executor::multi_thread(threads, "printdex-search-").unwrap_or(Executor::single_thread())
    })
}

/// The index's view of one connection after a whole scan: (re)index the tables whose key
/// moved. Every parse is in the mirror by then; nothing is parsed here.
pub fn sync_connection(
    index: &SearchIndex,
    mirror: &crate::store::mirror::Mirror,
    conn: &str,
    tables: Vec<TableEntry>,
) -> Result<SearchView, IndexError> {
    let load = |p: &Path| stored_parse(mirror, p);
    index.sync(conn, tables, &load)
}

#[cfg(test)]
mod tests;
