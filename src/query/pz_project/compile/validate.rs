//! The compiler's checks, each where pz runs it: the independent stages (0: merge keys,
//! cursors; 2: PZ0201 ref/source; 3: PZ0205; 4: PZ0204), one reader per source (6, PZ0349),
//! the read x write pairing matrices (10b, PZ0335/PZ0214/PZ0336/PZ0337), dead leaves
//! (10c, PZ0223) and the effectively-once notices (12).

use std::collections::VecDeque;

use crate::error::pz::{PzCode, PzError};
use crate::query::pz_project::model::{Dataset, PzWarning, SyncMode};
use crate::query::pz_project::render::Dep;
use compat::dotnet::ordinal_cmp;

use super::nodes::Built;
use super::{Claim, Node, NodeKind, Work};

const CONNECTIONS: &str = "connections.yml";
const CURSOR_TYPES: [&str; 5] = ["int", "bigint", "decimal", "date", "timestamp"];

fn error(code: PzCode, message: String, file: &str, hint: Option<String>) -> PzError {
    PzError {
        code,
        message,
        file: Some(file.to_string()),
        line: None,
        next_step: hint,
    }
}

/// `EffectiveDependencies`: a pipeline's reads with each ephemeral it refs replaced by the
/// ephemeral's own (one level: chains are refused earlier).
pub fn effective_deps<'w>(work: &'w Work, index: usize) -> Vec<&'w Dep> {
    let mut out = Vec::new();
    for dep in &work.rendered[index].deps {
        match dep {
            Dep::Pipeline(name) if work.is_ephemeral(name) => {
                if let Some(at) = work.project.pipeline_position(name) {
                    out.extend(work.rendered[at].deps.iter());
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Stages 0, 2, 3 and 4, reported together.
pub fn independent_stages(work: &mut Work) -> Result<(), Vec<PzError>> {
    let mut errors = incremental_stage(work);
    let project = work.project;
    for (i, pipeline) in project.pipelines.iter().enumerate() {
        let mut deps: Vec<(String, &Dep)> = work.rendered[i]
            .deps
            .iter()
            .map(|d| match d {
                Dep::Pipeline(n) => (format!("pipeline:{n}"), d),
                Dep::Source(s) => (format!("source:{}.{}", s.conn, s.entity), d),
            })
            .collect();
        deps.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
        for (_, dep) in deps {
            match dep {
                Dep::Pipeline(n) if project.pipeline(n).is_none() => errors.push(error(
                    PzCode::UnresolvedRef,
                    format!("pipeline '{}' calls ref('{n}') but no pipeline named '{n}' exists", pipeline.name),
                    &pipeline.file,
                    None,
                )),
                Dep::Source(s) if work.connection(&s.conn).is_none() => errors.push(error(
                    PzCode::UnresolvedRef,
                    format!(
                        "pipeline '{}' calls source('{}', '{}') but no connection named '{}' exists",
                        pipeline.name, s.conn, s.entity, s.conn
                    ),
                    &pipeline.file,
                    Some(format!("declare it in connections.yml:\n  {}:\n    connector: <connector>", s.conn)),
                )),
                _ => {}
            }
        }
    }
    for pipeline in project
        .pipelines
        .iter()
        .filter(|p| p.is_ephemeral() && !p.checks.is_empty())
    {
        errors.push(error(
            PzCode::ChecksOnEphemeral,
            format!(
                "pipeline '{}' is ephemeral but declares {} check(s) \u{2014} ephemeral pipelines produce no node for checks to depend on",
                pipeline.name,
                pipeline.checks.len()
            ),
            &pipeline.file,
            Some("materialize the pipeline as table/view, or remove its checks".into()),
        ));
    }
    for (i, pipeline) in project
        .pipelines
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_ephemeral())
    {
        let mut refs: Vec<&str> = work.rendered[i]
            .deps
            .iter()
            .filter_map(|d| match d {
                Dep::Pipeline(n) => Some(n.as_str()),
                Dep::Source(_) => None,
            })
            .collect();
        refs.sort_by(|a, b| ordinal_cmp(a, b));
        for name in refs {
            match project.pipeline(name) {
                Some(target) if target.is_ephemeral() => errors.push(error(
                    PzCode::EphemeralChain,
                    format!(
                        "ephemeral pipeline '{}' references another ephemeral pipeline '{name}' \u{2014} ephemeral chains are not allowed",
                        pipeline.name
                    ),
                    &pipeline.file,
                    None,
                )),
                Some(_) => {}
                // pz looks the name up unguarded here and fails with an exception (PZ0609).
                None => work
                    .inexact
                    .push(format!("ephemeral pipeline '{}' refs an unknown pipeline; pz fails on it", pipeline.name)),
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Stage 0: merge keys and incremental cursors, plus the cursor notices.
fn incremental_stage(work: &mut Work) -> Vec<PzError> {
    let mut errors = Vec::new();
    for conn in &work.connections {
        for (output, write) in &conn.outputs {
            let name = &conn.name;
            if write.mode == "merge" && write.keys.is_empty() {
                errors.push(error(
                    PzCode::MergeRequiresKeys,
                    format!(
                        "sink '{name}.{output}' has strategy: 'merge' but declares no keys -- merge needs at least one key column to match rows by"
                    ),
                    CONNECTIONS,
                    Some(format!("sink('{name}', '{output}', strategy: 'merge', keys: ['<column>'])")),
                ));
            } else if write.mode != "merge" && !write.keys.is_empty() {
                errors.push(error(
                    PzCode::KeysWithoutMerge,
                    format!(
                        "sink '{name}.{output}' declares keys: [{}] but strategy is '{}', not merge -- keys only applies to strategy: 'merge'",
                        write.keys.join(", "),
                        write.mode
                    ),
                    CONNECTIONS,
                    Some(format!(
                        "sink('{name}', '{output}', strategy: 'merge', keys: ['{}']), or drop keys",
                        write.keys.join("', '")
                    )),
                ));
            }
            let path = write.options.get_string("path").unwrap_or_default();
            if write.options.contains("partition_by") || path.contains('{') {
                work.inexact.push(format!(
                    "output '{name}.{output}': partition_by/templated paths are checked by pz"
                ));
            }
        }
        for d in &conn.datasets {
            let where_ = format!("source '{}.{}'", conn.name, d.name);
            if matches!(d.sync, Some(SyncMode::Incremental { .. })) {
                incremental_cursor(
                    &where_,
                    d,
                    &mut errors,
                    &mut work.notices,
                    &mut work.inexact,
                );
            }
            if d.options
                .get_string("path")
                .is_some_and(|p| p.contains('{'))
            {
                work.inexact.push(format!(
                    "{where_}: a templated path is checked by pz's PathTemplate"
                ));
            }
            if let Some(raw) = d
                .options
                .get("files_per_partition")
                .filter(|v| !matches!(v, crate::ingest::pz_project::value::PzValue::Null))
            {
                use crate::ingest::pz_project::value::PzValue;
                let positive = match raw {
                    PzValue::Long(l) => (1..=i32::MAX as i64).contains(l),
                    PzValue::Str(s) => s.trim().parse::<i32>().is_ok_and(|n| n > 0),
                    _ => false,
                };
                if !positive {
                    errors.push(error(
                        PzCode::FilesPerPartitionInvalid,
                        format!(
                            "{where_} in {CONNECTIONS}: files_per_partition '{}' must be a positive integer",
                            raw.interpolated()
                        ),
                        CONNECTIONS,
                        Some("set files_per_partition to a positive integer, or remove it".into()),
                    ));
                }
            }
        }
    }
    errors
}

/// An incremental read's cursor: in the dataset's columns with a cursor type (PZ0212),
/// `max_pages` only on an ascending feed (PZ0229), and what only pz can check, noted.
fn incremental_cursor(
    where_: &str,
    d: &Dataset,
    errors: &mut Vec<PzError>,
    notices: &mut Vec<String>,
    inexact: &mut Vec<String>,
) {
    let Some(SyncMode::Incremental {
        cursor,
        max_window,
        initial,
        until,
    }) = &d.sync
    else {
        return;
    };
    let allowed = CURSOR_TYPES.join(", ");
    if d.options.contains("max_pages") {
        match d.options.get_string("cursor_order").as_deref() {
                Some("desc") => errors.push(error(
                    PzCode::DescendingCursorTruncatable,
                    format!(
                        "{where_}: 'max_pages' on a descending incremental feed (cursor_order: desc) \u{2014} a truncated crawl would advance the watermark past unfetched rows"
                    ),
                    CONNECTIONS,
                    Some("remove max_pages so slices run to completion, or point at an ascending endpoint".into()),
                )),
                None => notices.push(format!(
                    "{where_}: 'max_pages' with undeclared cursor ordering \u{2014} a descending feed fails at run time if a crawl truncates; declare cursor_order to check this at compile time"
                )),
                Some(_) => {}
            }
    }
    match d.columns.as_deref().filter(|c| !c.is_empty()) {
            None => notices.push(format!("{where_}: cursor '{cursor}' unverified until --connect / first run")),
            Some(cols) => match cols.iter().find(|(k, _)| k == cursor) {
                None if max_window.is_none() => errors.push(error(
                    PzCode::CursorInvalid,
                    format!(
                        "{where_} declares incremental cursor '{cursor}' but it is not in the dataset's columns: contract -- allowed cursor types: {allowed}"
                    ),
                    CONNECTIONS,
                    Some(format!(
                        "add '{cursor}' to columns: with one of the allowed cursor types ({allowed})"
                    )),
                )),
                Some((_, ty)) if !CURSOR_TYPES.contains(&ty.as_str()) && max_window.is_none() => {
                    errors.push(error(
                        PzCode::CursorInvalid,
                        format!(
                            "{where_} declares incremental cursor '{cursor}' as '{ty}', which cannot be used as a cursor -- allowed cursor types: {allowed}"
                        ),
                        CONNECTIONS,
                        Some(format!("declare '{cursor}' as one of the allowed cursor types ({allowed})")),
                    ))
                }
                _ => {}
            },
        }
    if max_window.is_some() || initial.is_some() || until.is_some() {
        inexact.push(format!(
            "{where_}: bounded-window rules are checked by pz's WindowMath"
        ));
    }
}

/// Stage 6: a source dataset is read by exactly one pipeline (PZ0349). Returns the reader
/// of each read dataset, keyed `(conn, entity)`, in first-read order.
pub fn single_readers(work: &Work) -> Result<Vec<Claim>, Vec<PzError>> {
    let project = work.project;
    let mut readers: Vec<((String, String), Vec<String>)> = Vec::new();
    let mut at: std::collections::HashMap<(String, String), usize> =
        std::collections::HashMap::new();
    for (i, pipeline) in project.pipelines.iter().enumerate() {
        if pipeline.is_ephemeral() {
            continue;
        }
        for dep in effective_deps(work, i) {
            let Dep::Source(s) = dep else { continue };
            let key = (s.conn.clone(), s.entity.clone());
            match at.get(&key) {
                Some(&i) if readers[i].1.contains(&pipeline.name) => {}
                Some(&i) => readers[i].1.push(pipeline.name.clone()),
                None => {
                    at.insert(key.clone(), readers.len());
                    readers.push((key, vec![pipeline.name.clone()]));
                }
            }
        }
    }
    let mut multi: Vec<&((String, String), Vec<String>)> =
        readers.iter().filter(|(_, r)| r.len() > 1).collect();
    multi.sort_by(|a, b| ordinal_cmp(&a.0 .0, &b.0 .0).then_with(|| ordinal_cmp(&a.0 .1, &b.0 .1)));
    let mut errors = Vec::new();
    for ((source, dataset), names) in multi {
        let mut sorted = names.clone();
        sorted.sort_by(|a, b| ordinal_cmp(a, b));
        let staged = format!("stg_{source}_{dataset}").replace('.', "_");
        let file = project
            .pipeline(&sorted[0])
            .map(|p| p.file.clone())
            .unwrap_or_default();
        errors.push(error(
            PzCode::SourceReadByMultiplePipelines,
            format!("source '{source}.{dataset}' is read by {} pipelines: {}", sorted.len(), sorted.join(", ")),
            &file,
            Some(format!(
                "a source dataset is read by exactly one pipeline -- read it once and ref() that pipeline:\n  -- pipelines/{staged}.sql\n  select * from {{{{ source('{source}', '{dataset}') }}}}\nthen replace each source('{source}', '{dataset}') with ref('{staged}')"
            )),
        ));
    }
    if errors.is_empty() {
        Ok(readers
            .into_iter()
            .map(|(k, mut r)| (k, r.remove(0)))
            .collect())
    } else {
        Err(errors)
    }
}

/// Stage 6b: `watermark()` reads. pz analyses each comparison with DuckDB's parser (whose
/// PZ0224/0225/0227/0351 findings are not reproduced); a recognized one makes its dataset
/// incremental. Returns those datasets.
pub fn watermark_inference(work: &mut Work) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, pipeline) in work.project.pipelines.iter().enumerate() {
        if pipeline.is_ephemeral() {
            continue;
        }
        let mut refs = work.rendered[i].watermarks.clone();
        for dep in &work.rendered[i].deps {
            if let Dep::Pipeline(n) = dep {
                if let Some(at) = work
                    .project
                    .pipeline_position(n)
                    .filter(|_| work.is_ephemeral(n))
                {
                    refs.extend(work.rendered[at].watermarks.iter().cloned());
                }
            }
        }
        for r in refs {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    if !out.is_empty() {
        work.inexact
            .push("watermark() comparisons are analysed by pz with DuckDB's SQL parser".into());
    }
    out
}

/// Stages 10b/10b2: incremental and cdc reads paired with the sinks they reach.
pub fn pairing_matrices(work: &Work, built: &Built) -> Result<(), Vec<PzError>> {
    let nodes = &built.nodes;
    let mut delivery = Vec::new();
    let mut cdc = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if node.kind != NodeKind::SinkWrite {
            continue;
        }
        let Some((conn, output, write)) = built.sink_of(work, i) else {
            continue;
        };
        let target = format!("{conn}.{output}");
        let upstream = upstream_sources(nodes, i);
        let append_check = write.mode == "append" && !write.accept_duplicates;
        let replace_check = write.mode == "replace";
        if append_check || replace_check {
            for &s in &upstream {
                if !built.is_incremental_source(s) {
                    continue;
                }
                let src = nodes[s].dataset_ref().unwrap_or_default();
                delivery.push(if replace_check {
                    error(
                        PzCode::IncompatiblePair,
                        format!(
                            "output '{target}': write.strategy 'replace' fed by incremental dataset '{src}' would discard previously loaded rows each run."
                        ),
                        CONNECTIONS,
                        Some("use write.strategy: merge (effectively-once), or remove the dataset's sync block for a full re-read".into()),
                    )
                } else {
                    error(
                        PzCode::IncrementalAppendUnacknowledged,
                        format!(
                            "sink '{target}' has write.strategy: append and is fed by incremental dataset '{src}' -- delivery is at-least-once, so a retried or replayed slice can duplicate rows"
                        ),
                        CONNECTIONS,
                        Some("use write.strategy: merge (with keys:) or write.strategy: replace, or set\nwrite:\n  strategy: append\n  duplicates: accept\non the output to accept at-least-once delivery".into()),
                    )
                });
            }
        }
        let mut cdc_sources: Vec<String> = upstream
            .iter()
            .filter(|s| built.is_cdc_source(**s))
            .filter_map(|s| nodes[*s].dataset_ref())
            .collect();
        cdc_sources.sort_by(|a, b| ordinal_cmp(a, b));
        let names = cdc_sources.join(", ");
        if !cdc_sources.is_empty() && (write.mode == "replace" || write.mode == "append") {
            let reason = if write.mode == "replace" {
                "would discard previously applied change events each run (cdc x replace)"
            } else {
                "cdc delivery is change events, not rows -- append would land raw events as duplicate rows (cdc x append)"
            };
            cdc.push(error(
                PzCode::IncompatiblePair,
                format!("output '{target}': write.strategy '{}' fed by cdc dataset(s) '{names}' -- {reason}.", write.mode),
                CONNECTIONS,
                Some("use write.strategy: merge with on_delete".into()),
            ));
        }
        if !cdc_sources.is_empty() && write.mode == "merge" && write.on_delete.is_none() {
            cdc.push(error(
                PzCode::CdcConsentMissing,
                format!(
                    "output '{target}': write.strategy merge fed by cdc dataset(s) '{names}' has not declared write.on_delete -- deletes on the source table need an explicit routing choice."
                ),
                CONNECTIONS,
                Some("declare write.on_delete: delete, soft, or ignore".into()),
            ));
        }
        match &write.on_delete {
            Some(d) if cdc_sources.is_empty() => cdc.push(error(
                PzCode::CdcDeleteRouteInvalid,
                format!(
                    "output '{target}': write.on_delete '{d}' is declared but no upstream dataset declares sync: {{mode: cdc}} -- on_delete requires a cdc-fed input."
                ),
                CONNECTIONS,
                Some("remove write.on_delete, or feed this output from a sync: {mode: cdc} dataset".into()),
            )),
            Some(d) if (d == "delete" || d == "soft") && upstream.len() > 1 => {
                let all: Vec<String> = upstream.iter().filter_map(|s| nodes[*s].dataset_ref()).collect();
                cdc.push(error(
                    PzCode::CdcDeleteRouteInvalid,
                    format!(
                        "output '{target}': write.on_delete '{d}' fed by a multi-source pipeline ('{}') -- delete keys cannot be routed through a multi-source pipeline.",
                        all.join(", ")
                    ),
                    CONNECTIONS,
                    Some("route on_delete: delete/soft through a single-source pipeline reading only the cdc dataset, or use on_delete: ignore".into()),
                ));
            }
            _ => {}
        }
    }
    delivery.append(&mut cdc);
    if delivery.is_empty() {
        Ok(())
    } else {
        Err(delivery)
    }
}

/// The SourceLoads a node's ancestry reaches, breadth first along `depends_on`.
fn upstream_sources(nodes: &[Node], from: usize) -> Vec<usize> {
    let mut seen = vec![false; nodes.len()];
    let mut queue: VecDeque<usize> = nodes[from].depends_on.iter().copied().collect();
    let mut out = Vec::new();
    while let Some(at) = queue.pop_front() {
        if std::mem::replace(&mut seen[at], true) {
            continue;
        }
        if nodes[at].kind == NodeKind::SourceLoad {
            out.push(at);
        }
        queue.extend(nodes[at].depends_on.iter().copied());
    }
    out
}

/// Stage 10c: a table pipeline nothing consumes (PZ0223).
pub fn dead_leaves(work: &mut Work, built: &Built) {
    let consumed: Vec<bool> = {
        let mut c = vec![false; built.nodes.len()];
        for n in &built.nodes {
            for &d in &n.depends_on {
                c[d] = true;
            }
        }
        c
    };
    for pipeline in work.project.pipelines.iter().filter(|p| !p.is_ephemeral()) {
        if built
            .pipeline_node(&pipeline.name)
            .is_some_and(|i| !consumed[i])
        {
            work.warnings.push(PzWarning {
                code: PzCode::DeadLeafPipeline,
                message: format!(
                    "pipeline '{}' computes a result nothing consumes \u{2014} no sink loads it and no ref() reads it",
                    pipeline.name
                ),
                file: Some(pipeline.file.clone()),
                line: None,
                hint: Some(
                    "add an `INSERT INTO {{ sink(...) }}` load or a ref() consumer, or leave it if this is temporary".into(),
                ),
            });
        }
    }
}

/// Stage 12: an explicit `sync: {mode: auto}` read reaching a non-merge sink.
pub fn effectively_once_notices(
    work: &mut Work,
    nodes: &[Node],
    auto_sources: &[(String, String)],
) {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &d in &n.depends_on {
            children[d].push(i);
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        if node.kind != NodeKind::SourceLoad
            || !node
                .dataset
                .as_ref()
                .is_some_and(|d| auto_sources.contains(d))
        {
            continue;
        }
        let mut seen = vec![false; nodes.len()];
        let mut queue: VecDeque<usize> = children[i].iter().copied().collect();
        while let Some(at) = queue.pop_front() {
            if std::mem::replace(&mut seen[at], true) {
                continue;
            }
            queue.extend(children[at].iter().copied());
            if nodes[at].kind != NodeKind::SinkWrite {
                continue;
            }
            let Some((c, o)) = &nodes[at].dataset else {
                continue;
            };
            let write = work
                .connection(c)
                .and_then(|conn| conn.outputs.iter().find(|(n, _)| n == o))
                .map(|(_, w)| w);
            let Some(write) = write else { continue };
            if write.mode == "merge" || write.accept_duplicates {
                continue;
            }
            let target = format!("{c}.{o}");
            let source = node.dataset_ref().unwrap_or_default();
            work.notices.push(format!(
                "incremental/sync dataset '{source}' feeds non-merge sink '{target}' (mode: {}); effectively-once is not guaranteed -- a crash or retry may duplicate rows. Use write.strategy: merge for idempotency.",
                write.mode
            ));
        }
    }
}
