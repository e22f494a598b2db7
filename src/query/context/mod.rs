//! get_table_context: one table's context for an LLM prompt, answered from the mirror.
//! `load` reads the table's artifacts (each unreadable one degrading only its section) and
//! lays people's verdicts and added edges over its relationships from per-state indexes
//! (`index`); `markdown` and `structured` render the two purposes; `page` and the shared
//! paging cut the reply into pages whose cursors pin every file the reply read.

mod index;
mod load;
mod markdown;
mod notes;
mod page;
mod read;
mod spell;
mod structured;
mod terms;

pub use index::Index;

use std::sync::Arc;

use super::{ConnectionState, Engine};
use crate::error::QueryError;
use crate::render::cursor::{files_digest, Call};
use crate::render::paging::Unit;
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
    pub connection: Option<&'a str>,
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

/// What one call reads through: the engine, the state it answers from, and whether a file
/// that moved since the state was built must send the call back to re-ingest.
pub struct Ctx<'a> {
    pub engine: &'a Engine,
    pub state: &'a ConnectionState,
    pub strict: bool,
}

/// Raised (inside this module only) when a file moved under the mirror mid-call; the
/// file's path follows the marker.
const STALE: &str = "\u{0}get_table_context: a print file changed under the mirror: ";

/// The path a stale-file error names, if `e` is one.
fn stale_path(e: &QueryError) -> Option<std::path::PathBuf> {
    match e {
        QueryError::Internal(m) => m.strip_prefix(STALE).map(std::path::PathBuf::from),
        _ => None,
    }
}

fn stale(path: &std::path::Path) -> QueryError {
    QueryError::Internal(format!("{STALE}{}", path.display()))
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

/// Build every served connection's overlay index ahead of its first call (serve runs this
/// in the background at startup): on a large print it reads every relationships annotation
/// file once, which a call should not wait for.
pub fn warm(engine: &Engine) {
    for name in engine.served.served_names_sorted() {
        if let Ok(state) = engine.connection(Some(&name)) {
            let cx = Ctx {
                engine,
                state: &state,
                strict: false,
            };
            // A failure here is the first call's to report, in its own words.
            let _ = index::index(&cx);
        }
    }
}

pub fn answer(engine: &Engine, req: &Request) -> Result<Answer, QueryError> {
    // A file that moved since the mirror read it is re-ingested and the call answered again;
    // a print changing on every attempt is answered from the last state read.
    let mut state = engine.connection(req.connection)?;
    for attempt in 0..3 {
        let strict = attempt < 2;
        match answer_from(engine, &state, req, strict) {
            Err(e) => match stale_path(&e) {
                // Only the moved file is read again (or the connection, if need be).
                Some(path) => {
                    state = engine
                        .refresh_files(&state.config.name, &[path])
                        .map_err(|e| QueryError::Internal(e.to_string()))?;
                }
                None => return Err(e),
            },
            other => return other,
        }
    }
    answer_from(engine, &state, req, false)
}

fn answer_from(
    engine: &Engine,
    state: &Arc<ConnectionState>,
    req: &Request,
    strict: bool,
) -> Result<Answer, QueryError> {
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
    let cx = Ctx {
        engine,
        state,
        strict,
    };
    let ix = index::index(&cx)?;
    // The table's own files and the connection notes are checked here; the other tables'
    // annotation files this answer depends on are checked where the overlay reads them
    // (a file that never touches this table is left to the manifest stat and the watcher).
    for path in load::own_files(state, &ix, req.table) {
        ensure_current(&cx, &path)?;
    }
    let digest = {
        let mut known = ix.digests.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(req.table.to_string())
            .or_insert_with(|| {
                // Pinned as the reference pins them: the manifest, the table's declared
                // artifacts, every relationships annotation file, the connection notes.
                let files: Vec<(String, String)> = load::pinned(state, &ix, req.table)
                    .iter()
                    .map(|p| (p.display().to_string(), state.version_of(p)))
                    .collect();
                files_digest(&files)
            })
            .clone()
    };
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
