//! The sink and entity stages of the compiler: the INSERT-form prefix (1b, PZ0208), the
//! outputs and call-site datasets synthesized per connection (1c/1d, PZ0341), and each
//! output's one claimant (5: PZ0201 unknown sink, PZ0206, near-miss kwarg warnings).

use std::collections::{HashMap, HashSet};

use crate::error::pz::{PzCode, PzError};
use crate::query::pz_project::load::options::near_miss;
use crate::query::pz_project::model::{Dataset, PzWarning, WriteOptions};
use crate::query::pz_project::render::{sink_marker, Dep};
use compat::dotnet::ordinal_cmp;

use super::sql::extract_insert_prefix;
use super::{Claim, EffectiveConnection, Work};

const INSERT_FORM_HINT: &str =
    "bind the sink inline as the pipeline's leading statement: INSERT INTO {{ sink('<sink>', '<output>') }} <query>";

fn pipeline_error(code: PzCode, message: String, file: &str, hint: Option<&str>) -> PzError {
    PzError {
        code,
        message,
        file: Some(file.to_string()),
        line: None,
        next_step: hint.map(str::to_string),
    }
}

/// Stage 1b: a pipeline's sink() calls must be its leading `INSERT INTO` statement.
pub fn extract_sink_prefixes(work: &mut Work) -> Result<(), Vec<PzError>> {
    let mut errors = Vec::new();
    for (i, pipeline) in work.project.pipelines.iter().enumerate() {
        let result = &work.rendered[i];
        let Some(first) = result.bindings.first() else {
            continue;
        };
        let (name, file) = (&pipeline.name, pipeline.file.as_str());
        if pipeline.is_ephemeral() {
            errors.push(pipeline_error(
                PzCode::InvalidSinkCall,
                format!(
                    "pipeline '{name}' is ephemeral but calls sink('{}', '{}') \u{2014} ephemeral pipelines produce no node for a sink to depend on",
                    first.sink, first.output
                ),
                file,
                Some(INSERT_FORM_HINT),
            ));
            continue;
        }
        // GroupBy keeps first-appearance order, so the first repeated pair is the one reported.
        let duplicate = result.bindings.iter().find(|b| {
            result
                .bindings
                .iter()
                .filter(|o| o.sink == b.sink && o.output == b.output)
                .count()
                > 1
        });
        if let Some(b) = duplicate {
            errors.push(pipeline_error(
                PzCode::InvalidSinkCall,
                format!(
                    "pipeline '{name}' binds sink('{}', '{}') more than once \u{2014} list each sink output at most once",
                    b.sink, b.output
                ),
                file,
                Some(INSERT_FORM_HINT),
            ));
            continue;
        }
        let markers: Vec<String> = result
            .bindings
            .iter()
            .map(|b| sink_marker(&b.sink, &b.output))
            .collect();
        match extract_insert_prefix(&result.sql, &markers) {
            Some(sql) => work.rendered[i].sql = sql,
            None => errors.push(pipeline_error(
                PzCode::InvalidSinkCall,
                format!(
                    "pipeline '{name}' calls sink('{}', '{}') but not as the pipeline's leading INSERT INTO {{{{ sink(...) }}}} statement",
                    first.sink, first.output
                ),
                file,
                Some(INSERT_FORM_HINT),
            )),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Stages 1c/1d: outputs from sink() calls, datasets from source() calls naming an entity
/// the connection does not declare; both surfaces at once is PZ0341.
pub fn synthesize_connections(work: &mut Work) -> Result<(), Vec<PzError>> {
    let project = work.project;
    let mut by_name: Vec<usize> = (0..project.pipelines.len()).collect();
    by_name.sort_by(|a, b| ordinal_cmp(&project.pipelines[*a].name, &project.pipelines[*b].name));
    let mut errors = Vec::new();
    let mut outputs: Vec<(String, String, WriteOptions)> = Vec::new();
    let mut bound: HashSet<(String, String)> = HashSet::new();
    for &i in by_name
        .iter()
        .filter(|i| !project.pipelines[**i].is_ephemeral())
    {
        let pipeline = &project.pipelines[i];
        for b in &work.rendered[i].bindings {
            let Some(conn) = project.connection(&b.sink) else {
                continue;
            };
            let yaml = conn.entity_write(&b.output);
            if yaml.is_some() && b.declared {
                errors.push(pipeline_error(
                    PzCode::WriteSurfaceSplit,
                    format!(
                        "sink '{}.{}' declares write options in connections.yml AND at its sink() call site.",
                        b.sink, b.output
                    ),
                    &pipeline.file,
                    Some("declare in one place: drop the kwargs, or drop the `write:` block"),
                ));
                continue;
            }
            if bound.insert((b.sink.clone(), b.output.clone())) {
                let write = yaml.cloned().unwrap_or_else(|| b.write.clone());
                outputs.push((b.sink.clone(), b.output.clone(), write));
            }
        }
    }
    let mut reads: Vec<(String, Dataset)> = Vec::new();
    let mut read_keys: HashSet<(String, String)> = HashSet::new();
    for &i in &by_name {
        let pipeline = &project.pipelines[i];
        let mut deps: Vec<_> = work.rendered[i]
            .deps
            .iter()
            .filter_map(|d| match d {
                Dep::Source(s) => Some(s),
                Dep::Pipeline(_) => None,
            })
            .collect();
        deps.sort_by(|a, b| ordinal_cmp(&a.entity, &b.entity));
        for dep in deps {
            let Some(conn) = project.connection(&dep.conn) else {
                continue;
            };
            let in_yaml = conn.datasets.iter().any(|d| d.name == dep.entity);
            if in_yaml && dep.declared {
                errors.push(pipeline_error(
                    PzCode::WriteSurfaceSplit,
                    format!(
                        "source '{}.{}' declares read options in connections.yml AND at its source() call site.",
                        dep.conn, dep.entity
                    ),
                    &pipeline.file,
                    Some("declare in one place: drop the kwargs, or drop the `read:` block"),
                ));
                continue;
            }
            if in_yaml || !read_keys.insert((dep.conn.clone(), dep.entity.clone())) {
                continue;
            }
            reads.push((
                dep.conn.clone(),
                Dataset {
                    name: dep.entity.clone(),
                    options: dep.read.options.clone(),
                    columns: dep.read.columns.clone(),
                    sync: dep.read.sync.clone(),
                    exact: true,
                },
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    work.connections = project
        .connections
        .iter()
        .map(|c| {
            let mut own: Vec<(String, WriteOptions)> = outputs
                .iter()
                .filter(|(s, _, _)| *s == c.name)
                .map(|(_, o, w)| (o.clone(), w.clone()))
                .collect();
            own.sort_by(|a, b| ordinal_cmp(&a.0, &b.0));
            let mut extra: Vec<Dataset> = reads
                .iter()
                .filter(|(conn, _)| *conn == c.name)
                .map(|(_, d)| d.clone())
                .collect();
            extra.sort_by(|a, b| ordinal_cmp(&a.name, &b.name));
            let mut datasets = c.datasets.clone();
            datasets.extend(extra);
            EffectiveConnection {
                name: c.name.clone(),
                connector: c.connector.clone(),
                datasets,
                outputs: own,
                entity_writes: c.entity_writes.iter().map(|(e, _)| e.clone()).collect(),
            }
        })
        .collect();
    Ok(())
}

/// Stage 5: every output's single claimant pipeline, by (connection, output).
pub fn resolve_sinks(work: &mut Work) -> Result<Vec<Claim>, Vec<PzError>> {
    const KNOWN: [&str; 6] = [
        "strategy",
        "keys",
        "duplicates",
        "on_delete",
        "schema_policy",
        "retry",
    ];
    let project = work.project;
    let mut errors = Vec::new();
    let mut claims: HashMap<(String, String), (Vec<String>, String)> = HashMap::new();
    for (i, pipeline) in project.pipelines.iter().enumerate() {
        if pipeline.is_ephemeral() {
            continue;
        }
        for b in &work.rendered[i].bindings {
            let mut keys: Vec<&str> = b.write.options.keys().collect();
            keys.sort_by(|x, y| ordinal_cmp(x, y));
            for option in keys {
                if let Some(near) = near_miss(&KNOWN, option) {
                    let connector = work
                        .connection(&b.sink)
                        .map(|c| c.connector.as_str())
                        .unwrap_or("");
                    work.warnings.push(PzWarning {
                        code: PzCode::InvalidSinkCall,
                        message: format!(
                            "pipeline '{}' passes sink('{}', '{}', {option}: ...), which pz does not recognize \u{2014} it is being sent to the connector as a write option. Did you mean '{near}'?",
                            pipeline.name, b.sink, b.output
                        ),
                        file: Some(pipeline.file.clone()),
                        line: None,
                        hint: Some(format!(
                            "rename it to '{near}', or ignore this if '{option}' really is an option of the '{connector}' connector"
                        )),
                    });
                }
            }
            if work.connection(&b.sink).is_none() {
                errors.push(pipeline_error(
                    PzCode::UnresolvedRef,
                    format!(
                        "pipeline '{}' calls sink('{}', '{}') but no sink named '{}' exists",
                        pipeline.name, b.sink, b.output, b.sink
                    ),
                    &pipeline.file,
                    None,
                ));
                continue;
            }
            let key = (b.sink.clone(), b.output.clone());
            match claims.get_mut(&key) {
                Some((names, _)) => names.push(pipeline.name.clone()),
                None => {
                    claims.insert(key, (vec![pipeline.name.clone()], pipeline.file.clone()));
                }
            }
        }
    }
    let mut resolved = Vec::new();
    for conn in &work.connections {
        for (output, _) in &conn.outputs {
            let key = (conn.name.clone(), output.clone());
            let Some((names, file)) = claims.get(&key) else {
                continue;
            };
            let mut names = names.clone();
            names.sort_by(|a, b| ordinal_cmp(a, b));
            if names.len() > 1 {
                errors.push(pipeline_error(
                    PzCode::SinkBindingConflict,
                    format!(
                        "sink '{}.{}' is claimed by multiple pipelines' sink() calls: {}",
                        conn.name,
                        output,
                        names.join(", ")
                    ),
                    file,
                    Some("only one pipeline may bind a given sink output via sink()"),
                ));
                continue;
            }
            resolved.push((key, names.remove(0)));
        }
    }
    if errors.is_empty() {
        Ok(resolved)
    } else {
        Err(errors)
    }
}
