//! get_table_context: one table's artifacts as a call reads them, answered from the mirror.
//! `load` reads the table's artifacts (each unreadable one degrading only its section) and
//! lays people's verdicts and added edges over its relationships from the connection's
//! `overlay`; `read` reads fields as every surface of the reference reads them, and `facts`
//! derives what both reply shapes show. `render::context` spells and pages the reply.

pub mod facts;
pub mod load;
mod overlay;
pub mod read;

pub use load::Joins;
pub use overlay::Overlay;

use super::list_tables::{absent_table, failed_tables};
use super::pins::Pins;
use crate::error::QueryError;
use crate::ingest::walk::Artifact;
use crate::store::cache::Key;
use crate::store::Snapshot;
use compat::value::Value;

/// What reading a table's artifacts may fail with: the reference's exception texts.
pub type R<T> = Result<T, QueryError>;

/// One table's context: its artifacts, what the manifest says of the whole connection, and
/// the files a reply over it pins.
pub struct Context {
    pub artifacts: load::Artifacts,
    /// The manifest's `adapter`, when set.
    pub adapter: Option<String>,
    /// The manifest's connection-wide `profile` (a dict; empty when absent).
    pub profile: Value,
    /// The manifest, the table's declared artifacts, every relationships annotation file
    /// and the connection notes.
    pub pins: Pins,
}

/// What one call reads through: the state it answers from, and whether a file that moved
/// since the state was built must send the call back to the store (`QueryError::Stale`).
pub struct Ctx<'a> {
    pub state: &'a Snapshot,
    pub strict: bool,
    /// A read of every table (validate_sql's catalog): the files it parses are not kept in
    /// the cache, which a whole print's files would fill, evicting what calls reuse.
    pub bulk: bool,
}

fn stale(path: &std::path::Path) -> QueryError {
    QueryError::Stale(path.to_path_buf())
}

/// `current` for a caller holding a `Ctx`: an error sends the call back to re-ingest.
fn ensure_current(cx: &Ctx, path: &std::path::Path) -> Result<(), QueryError> {
    if cx.strict && !cx.state.unchanged_on_disk(path) {
        return Err(stale(path));
    }
    Ok(())
}

/// Build the connection's overlay ahead of its first call (serve runs this in the
/// background at startup): on a large print it reads every relationships annotation file
/// once, which a call should not wait for.
pub fn warm(state: &Snapshot) {
    let cx = Ctx {
        state,
        strict: false,
        bulk: false,
    };
    // A failure here is the first call's to report, in its own words.
    let _ = overlay::overlay(&cx);
}

/// What decides one table's joins as read: the other tables whose relationships
/// annotation files may reject an edge of it or added one into it, the files that decide
/// them (its own relationships and annotation files, and those tables' annotation files),
/// and a digest of those files' content.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JoinsDeciders {
    /// Sorted.
    pub tables: Vec<String>,
    /// Below the print's root, so checking them reads no manifest entry.
    pub files: Vec<std::path::PathBuf>,
    pub digest: [u8; 32],
}

impl JoinsDeciders {
    fn of(state: &Snapshot, ix: &Overlay, fqn: &str, tables: Vec<String>) -> JoinsDeciders {
        let own = ix.table(fqn);
        let mut files: Vec<std::path::PathBuf> =
            [Artifact::Relationships, Artifact::RelationshipsAnnotations]
                .into_iter()
                .filter_map(|kind| own.as_ref()?.artifact(kind))
                .collect();
        files.extend(
            tables
                .iter()
                .filter_map(|t| ix.table(t)?.artifact(Artifact::RelationshipsAnnotations)),
        );
        let root = &state.config.print_root;
        let files: Vec<std::path::PathBuf> = files
            .into_iter()
            .map(|p| p.strip_prefix(root).map(|p| p.to_path_buf()).unwrap_or(p))
            .collect();
        JoinsDeciders {
            digest: Self::digest_of(state, &files),
            tables,
            files,
        }
    }

    fn digest_of(state: &Snapshot, files: &[std::path::PathBuf]) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        for file in files {
            match state.hash_of(&state.config.print_root.join(file)) {
                Some(hash) => h.update(&[1]).update(hash.as_bytes()),
                None => h.update(&[0]),
            };
        }
        *h.finalize().as_bytes()
    }

    /// Whether joins read under these deciders hold for `fqn` now: every deciding file
    /// holds what it held, and no other table has since added an edge into it.
    fn hold(&self, state: &Snapshot, ix: &Overlay, fqn: &str) -> bool {
        let known = |t: &str| self.tables.binary_search_by(|d| d.as_str().cmp(t)).is_ok();
        ix.adding_tables(fqn).all(known) && Self::digest_of(state, &self.files) == self.digest
    }
}

/// Every table's joins as get_table_context's Joins list reads them (people's rejections
/// withheld, their added edges included) and the edges its own annotation file rejects,
/// each made by `make` into what the caller holds, with what decides them, one table at a
/// time (a whole print's joins are never held at once), in FQN order. A table whose
/// deciders as `held` gives them still hold is not read: its joins are `None`, for a
/// caller that still holds them. Read from the mirror through the cache, on the cores
/// side by side (each table's read is its own: a whole print's took 4 seconds on one core
/// at 100,000 tables); a table whose files cannot be read has no joins.
pub fn each_tables_joins<'h, T: Send>(
    state: &Snapshot,
    held: &(dyn Fn(&str) -> Option<&'h JoinsDeciders> + Sync),
    make: &(dyn Fn(&str, JoinsDeciders, Option<Joins>) -> T + Sync),
) -> Result<Vec<(String, T)>, QueryError> {
    let cx = Ctx {
        state,
        strict: false,
        bulk: true,
    };
    let ix = overlay::overlay(&cx)?;
    let fqns = ix.fqns();
    let parts = crate::ingest::parts::in_parts(&fqns, JOINS_PART, JOINS_PARTS, |part| {
        let mut made = Vec::with_capacity(part.len());
        for fqn in part {
            let one = match held(fqn).filter(|d| d.hold(state, &ix, fqn)) {
                Some(deciders) => make(fqn, deciders.clone(), None),
                None => {
                    let (joins, tables) = load::joins_of(&cx, &ix, fqn);
                    make(fqn, JoinsDeciders::of(state, &ix, fqn, tables), Some(joins))
                }
            };
            made.push((fqn.to_string(), one));
        }
        made
    });
    Ok(parts.into_iter().flatten().collect())
}

/// The fewest tables a part of `each_tables_joins` reads (fewer are read on the calling
/// thread), and the most parts. The unit tests' small prints are read in several parts.
const JOINS_PART: usize = if cfg!(test) { 2 } else { 2048 };
const JOINS_PARTS: usize = 4;

/// What every table's joins depend on beyond their deciders: the print and its manifest
/// (the tables, and so each one's position).
pub fn joins_scope(state: &Snapshot) -> [u8; 32] {
    let manifest = state.version_of(&state.manifest_path());
    Key::new(
        "joins scope",
        [
            state.config.print_root.as_os_str().as_encoded_bytes(),
            manifest.as_bytes(),
        ],
    )
    .digest()
}

/// `table`'s context from `state`. `strict`: a file found moved since `state` was built
/// fails the call with `QueryError::Stale`, for the store to re-read it and ask again.
pub fn answer(state: &Snapshot, table: &str, strict: bool) -> Result<Context, QueryError> {
    let manifest = state.manifest_or_error()?;
    let known = manifest
        .and_then(|m| m.tables().get(table))
        .is_some_and(|e| e != Value::Null);
    let Some(manifest) = manifest.filter(|_| known) else {
        return Err(absent_table(table, &state.config.name, manifest));
    };
    let cx = Ctx {
        state,
        strict,
        bulk: false,
    };
    let ix = overlay::overlay(&cx)?;
    // The table's own files and the connection notes are checked here; the other tables'
    // annotation files this answer depends on are checked where the overlay reads them
    // (a file that never touches this table is left to the manifest stat and the watcher).
    for path in load::own_files(state, &ix, table) {
        ensure_current(&cx, &path)?;
    }
    // Pinned as the reference pins them (the table's files, the manifest, the connection
    // notes and every relationships annotation file); digested once per content, the
    // annotation files with the overlay's reads of them: a print may hold thousands.
    let pair = |p: &std::path::Path| (p.display().to_string(), state.version_of(p));
    let authored = ix.author_pins();
    let key = Key::new(
        "context cursor pins",
        [state.versions.all().as_slice(), table.as_bytes()],
    );
    let pins = state
        .cache()
        .get_or_build(key, Pins::weight, || -> Result<Pins, QueryError> {
            let mut files: Vec<_> = load::pinned(state, &ix, table)
                .iter()
                .map(|p| pair(p))
                .collect();
            files.push((
                "every relationships annotation file".into(),
                authored.digest().to_string(),
            ));
            Ok(Pins::of(&files))
        })?;
    let artifacts = load::load_table(&cx, &ix, table, &failed_tables(Some(manifest)))?;
    Ok(Context {
        artifacts,
        adapter: manifest
            .field("adapter")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
        profile: match manifest.field("profile") {
            Some(p @ Value::Map(_)) => p.clone(),
            _ => Value::map(Vec::new()),
        },
        pins: (*pins).clone(),
    })
}
