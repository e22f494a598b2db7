//! get_table_context: one table's context for an LLM prompt, answered from the mirror.
//! `load` reads the table's artifacts (each unreadable one degrading only its section) and
//! lays people's verdicts and added edges over its relationships from per-state indexes
//! (`index`); `markdown` and `structured` render the two purposes; `page` and the shared
//! paging cut the reply into pages whose cursors pin every file the reply read.

mod load;
mod markdown;
mod notes;
mod overlay;
mod page;
mod read;
mod spell;
mod structured;
mod terms;

pub use load::Joins;
pub use overlay::Overlay;

use crate::error::QueryError;
use crate::render::cursor::{files_digest, Call};
use crate::render::paging::Unit;
use crate::store::cache::Key;
use crate::store::Snapshot;
use compat::value::Value;

/// What the caller asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub query: bool,
    pub include_description: bool,
    pub include_annotations: bool,
    pub include_stats: bool,
    pub include_relationships: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Md,
    Json,
    Yaml,
}

pub struct Request<'a> {
    pub table: &'a str,
    pub format: Format,
    pub options: Options,
    pub cursor: Option<&'a str>,
    /// The validated arguments, which the cursor pins.
    pub arguments: &'a Value,
}

/// A page: a JSON dict, or finished text (Markdown, YAML).
pub enum Answer {
    Dict(Value),
    Text(String),
}

/// What one call reads through: the state it answers from, and whether a file that moved
/// since the state was built must send the call back to the store (`QueryError::Stale`).
pub struct Ctx<'a> {
    pub state: &'a Snapshot,
    pub strict: bool,
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

/// The names `failed_tables` lists.
fn failed_tables(manifest: &Value) -> Vec<String> {
    super::list_tables::failed_tables(Some(manifest))
}

/// Build the connection's overlay ahead of its first call (serve runs this in the
/// background at startup): on a large print it reads every relationships annotation file
/// once, which a call should not wait for.
pub fn warm(state: &Snapshot) {
    let cx = Ctx {
        state,
        strict: false,
    };
    // A failure here is the first call's to report, in its own words.
    let _ = overlay::overlay(&cx);
}

/// Every table's joins as get_table_context's Joins list reads them (people's rejections
/// withheld, their added edges included) and the edges its own annotation file rejects, in
/// FQN order. Read from the mirror through the cache; a table whose files cannot be read
/// has no joins.
pub fn joins_by_table(state: &Snapshot) -> Result<Vec<(String, Joins)>, QueryError> {
    let cx = Ctx {
        state,
        strict: false,
    };
    let ix = overlay::overlay(&cx)?;
    let mut names: Vec<&String> = ix.tables.keys().collect();
    names.sort();
    Ok(names
        .into_iter()
        .map(|fqn| {
            let joins = load::joins_of(&cx, &ix, fqn).unwrap_or_default();
            (fqn.clone(), joins)
        })
        .collect())
}

/// The answer from `state`. `strict`: a file found moved since `state` was built fails
/// the call with `QueryError::Stale`, for the store to re-read it and ask again.
pub fn answer(state: &Snapshot, req: &Request, strict: bool) -> Result<Answer, QueryError> {
    let manifest = state.manifest_or_error()?;
    let known = manifest
        .and_then(|m| m.get("tables"))
        .and_then(|t| t.get(req.table))
        .is_some_and(|e| *e != Value::Null);
    let Some(manifest) = manifest.filter(|_| known) else {
        let failed = manifest.map(failed_tables).unwrap_or_default();
        return Err(if failed.iter().any(|f| f == req.table) {
            QueryError::UnprofiledTable {
                table: req.table.to_string(),
            }
        } else {
            QueryError::UnknownTable {
                table: req.table.to_string(),
                connection: state.config.name.clone(),
            }
        });
    };
    let cx = Ctx { state, strict };
    let ix = overlay::overlay(&cx)?;
    // The table's own files and the connection notes are checked here; the other tables'
    // annotation files this answer depends on are checked where the overlay reads them
    // (a file that never touches this table is left to the manifest stat and the watcher).
    for path in load::own_files(state, &ix, req.table) {
        ensure_current(&cx, &path)?;
    }
    // Pinned as the reference pins them: the manifest, the table's declared artifacts,
    // every relationships annotation file, the connection notes. Digested once per content.
    let key = Key::new(
        "context cursor pins",
        [state.versions.all().as_slice(), req.table.as_bytes()],
    );
    let digest =
        state
            .cache()
            .get_or_build(key, String::len, || -> Result<String, QueryError> {
                let files: Vec<(String, String)> = load::pinned(state, &ix, req.table)
                    .iter()
                    .map(|p| (p.display().to_string(), state.version_of(p)))
                    .collect();
                Ok(files_digest(&files))
            })?;
    let digest = (*digest).clone();
    let call = Call::with_files_digest("get_table_context", req.arguments, digest);
    let a = load::load_table(&cx, &ix, req.table, &failed_tables(manifest))?;

    if req.format == Format::Md {
        let sections = markdown::sections(&a, &req.options, manifest)?;
        return page::legend_text_page(&call, &sections, req.cursor).map(Answer::Text);
    }
    let head = structured::header(&a, &req.options);
    let candidates = structured::candidates(&a, &req.options)?;
    let items = structured::units(&head, candidates);
    let yaml = req.format == Format::Yaml;
    let render = |run: &[Unit], _first: bool, next: Option<&str>| -> Value {
        let mut reply = structured::nested(run);
        if yaml {
            let text = compat::yaml::emit::safe_dump(&reply);
            return Value::Str(match next {
                Some(c) => format!("{text}# next_cursor: {c}\n"),
                None => text,
            });
        }
        if let Some(c) = next {
            crate::render::set(&mut reply, "next_cursor", Value::Str(c.to_string()));
        }
        reply
    };
    match page::guided_page(&call, items, &render, req.cursor)? {
        Value::Str(text) => Ok(Answer::Text(text)),
        dict => Ok(Answer::Dict(dict)),
    }
}
