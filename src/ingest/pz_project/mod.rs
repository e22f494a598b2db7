//! Ingest for pz (PipelineZ) projects: each file pz's read-side tools consult, parsed from
//! its bytes into what the answers are computed from. One parser per file kind; the
//! project-wide rules (which errors a project has, the DAG) are the query stage's.
//!
//! The parsers read a [`ProjectFiles`] view (path -> bytes + mtime); only [`walk`] touches
//! the disk.

pub mod files;
pub mod json;
pub mod manifest;
pub mod runs;
pub mod scan;
pub mod state;
pub mod template;
pub mod value;
pub mod walk;
pub mod yaml_doc;

pub use files::{ProjectFile, ProjectFiles};

use std::path::PathBuf;

use crate::error::pz::PzCode;
use compat::dotnet::ordinal_cmp;
use manifest::{parse_manifest, CompiledManifest, MANIFEST_PATH};
use runs::{parse_run_results, run_id_of, RunRecord};
use state::{read_schemas, read_sync_state, read_watermarks, StateFiles};
use template::{parse_pipeline, PipelineSource};
use yaml_doc::{load_yaml, YamlDoc};

/// A finding in pz's error shape (code, message, file?, line?, hint?). `exact` is false
/// when the text is this loader's rather than pz's (a YAML syntax error's wording).
#[derive(Debug, Clone, PartialEq)]
pub struct Diag {
    pub code: PzCode,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub hint: Option<String>,
    pub exact: bool,
}

/// One run directory's `run_results.json`: parsed, or `None` when pz's reader skips it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDir {
    pub run_id: String,
    pub run: Option<RunRecord>,
}

/// Everything the read-side answers are computed from, parsed.
#[derive(Debug, Clone)]
pub struct ParsedProject {
    pub root: PathBuf,
    /// `None` when the file does not exist.
    pub project_yml: Option<YamlDoc>,
    pub connections_yml: Option<YamlDoc>,
    /// Every `.sql` file under `pipelines/`, by relative path (ordinal); the loader drops
    /// the ones under a `configs` directory.
    pub pipelines: Vec<PipelineSource>,
    /// `pipelines/configs/*.yml`, by relative path.
    pub sidecars: Vec<(String, YamlDoc)>,
    /// Leftover `sources/*.yml` and `sinks/*.yml` (pz refuses them, PZ0346).
    pub retired: Vec<(String, YamlDoc)>,
    pub state: StateFiles,
    /// Run directories holding a `run_results.json`, newest (greatest id) first.
    pub runs: Vec<RunDir>,
    pub manifest: Option<CompiledManifest>,
    /// The newest mtime among the files `pz compile` reads (0 when there are none).
    pub newest_input_mtime_ns: i64,
}

/// Parses every file of the view.
pub fn parse_project(files: &ProjectFiles) -> ParsedProject {
    parse_with(files, None)
}

/// Parses the view, taking the pipelines, sidecars and runs `unchanged` names (same
/// path, same bytes) from `previous` instead of parsing them again: an edit of one
/// pipeline parses one pipeline.
pub fn parse_project_reusing(
    files: &ProjectFiles,
    previous: &ParsedProject,
    unchanged: &dyn Fn(&str) -> bool,
) -> ParsedProject {
    parse_with(files, Some((previous, unchanged)))
}

/// An earlier parse, and which paths hold the bytes it parsed.
type Reuse<'a> = (&'a ParsedProject, &'a dyn Fn(&str) -> bool);

fn parse_with(files: &ProjectFiles, reuse: Option<Reuse<'_>>) -> ParsedProject {
    let old = |rel: &str| {
        reuse
            .filter(|(_, unchanged)| unchanged(rel))
            .map(|(p, _)| p)
    };
    let old_pipelines: std::collections::HashMap<&str, &PipelineSource> = reuse
        .map(|(p, _)| p.pipelines.iter().map(|s| (s.rel.as_str(), s)).collect())
        .unwrap_or_default();
    let old_sidecars: std::collections::HashMap<&str, &YamlDoc> = reuse
        .map(|(p, _)| p.sidecars.iter().map(|(r, d)| (r.as_str(), d)).collect())
        .unwrap_or_default();
    let old_runs: std::collections::HashMap<&str, &RunDir> = reuse
        .map(|(p, _)| p.runs.iter().map(|r| (r.run_id.as_str(), r)).collect())
        .unwrap_or_default();
    let yaml = |rel: &str| files.get(rel).map(|f| load_yaml(&f.bytes, rel));
    let mut pipelines = Vec::new();
    let mut sidecars = Vec::new();
    let mut retired = Vec::new();
    let mut runs = Vec::new();
    let mut newest = 0i64;
    for (rel, file) in &files.files {
        if files::is_compile_input(rel) {
            newest = newest.max(file.mtime_ns);
        }
        if let Some(rest) = rel.strip_prefix("pipelines/") {
            if rest.ends_with(".sql") {
                pipelines.push(match old(rel).and(old_pipelines.get(rel.as_str())) {
                    Some(kept) => (*kept).clone(),
                    None => parse_pipeline(rel, &file.bytes),
                });
            } else if rest
                .strip_prefix("configs/")
                .is_some_and(|name| name.ends_with(".yml") && !name.contains('/'))
            {
                let doc = match old(rel).and(old_sidecars.get(rel.as_str())) {
                    Some(kept) => (*kept).clone(),
                    None => load_yaml(&file.bytes, rel),
                };
                sidecars.push((rel.clone(), doc));
            }
        } else if (rel.starts_with("sources/") || rel.starts_with("sinks/"))
            && rel.ends_with(".yml")
        {
            retired.push((rel.clone(), load_yaml(&file.bytes, rel)));
        } else if let Some(id) = run_id_of(rel) {
            runs.push(match old(rel).and(old_runs.get(id)) {
                Some(kept) => (*kept).clone(),
                None => RunDir {
                    run_id: id.to_string(),
                    run: parse_run_results(id, &file.bytes),
                },
            });
        }
    }
    pipelines.sort_by(|a, b| ordinal_cmp(&a.rel, &b.rel));
    sidecars.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
    retired.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
    runs.sort_by(|a, b| ordinal_cmp(&b.run_id, &a.run_id));
    let bytes = |rel: &str| files.get(rel).map(|f| &f.bytes[..]);
    ParsedProject {
        root: files.root.clone(),
        project_yml: yaml("project.yml"),
        connections_yml: yaml("connections.yml"),
        pipelines,
        sidecars,
        retired,
        state: StateFiles {
            watermarks: read_watermarks(bytes(state::WATERMARKS_PATH)),
            sync_state: read_sync_state(bytes(state::SYNC_STATE_PATH)),
            schemas: read_schemas(bytes(state::SCHEMAS_PATH)),
        },
        runs,
        manifest: files
            .get(MANIFEST_PATH)
            .and_then(|f| parse_manifest(&f.bytes, f.mtime_ns)),
        newest_input_mtime_ns: newest,
    }
}
