//! resolve_value: one column's (or part's) answer to a phrase, read off the index record
//! ingest derived from the table's statistics and annotation files (spec §4.7).

use std::path::Path;

use super::list_tables::absent_table;
use super::pins::Pins;
use super::value_resolution::{resolve, value_notes};
use crate::error::{internal, QueryError};
use crate::store::search::records::{FileState, Resolve, ValuesState};
use crate::store::Snapshot;
use compat::py::repr_str;
use compat::value::Value;

pub struct Request<'a> {
    pub table: &'a str,
    pub column: &'a str,
    pub part: Option<&'a str>,
    pub text: &'a str,
}

/// The answer's fields in reply order (`table`, `column`, `part`?, `text`, then what
/// `value_resolution::resolve` found), and the files it read.
pub struct Resolution {
    pub fields: Vec<(String, Value)>,
    pub pins: Pins,
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn unavailable_reason(column: &str, r: &Resolve, scope_read_nothing: bool) -> Option<String> {
    match &r.values {
        ValuesState::Unmeasured(cause) => Some(format!(
            "column {} values are unmeasured: {cause}",
            repr_str(column)
        )),
        ValuesState::Missing(cause) => Some(format!(
            "column {} publishes no values: {cause}",
            repr_str(column)
        )),
        ValuesState::Present => {
            if let Some(redaction) = &r.redaction {
                Some(format!(
                    "column {} is redacted ({redaction}), so its values are withheld",
                    repr_str(column)
                ))
            } else if scope_read_nothing {
                Some(
                    "the scan read no rows, so there is no value list to match the phrase against"
                        .to_string(),
                )
            } else {
                None
            }
        }
    }
}

/// The statistics file (and the annotations file, when the table declares one) as the
/// index found them: an error for one that cannot be read.
fn readable(
    stats: &FileState,
    stats_path: &Path,
    annotations: Option<(&FileState, &Path)>,
) -> Result<(), QueryError> {
    match stats {
        FileState::Absent | FileState::Undeclared => {
            return Err(QueryError::MissingFile {
                artifact: "statistics.yaml".into(),
                path: shown(stats_path),
            })
        }
        FileState::ParseError(message) => {
            return Err(QueryError::YamlParse {
                path: shown(stats_path),
                message: message.clone(),
            })
        }
        FileState::OtherError(message) => return Err(QueryError::Other(message.clone())),
        FileState::Ok | FileState::Malformed(_) => {}
    }
    let Some((state, ann_path)) = annotations else {
        return Ok(());
    };
    match state {
        FileState::ParseError(message) => Err(QueryError::YamlParse {
            path: shown(ann_path),
            message: message.clone(),
        }),
        FileState::OtherError(message) => Err(QueryError::Other(message.clone())),
        FileState::Malformed(reason) => Err(QueryError::Malformed {
            path: shown(ann_path),
            reason: reason.clone(),
        }),
        _ => Ok(()),
    }
}

pub fn answer(state: &Snapshot, req: &Request) -> Result<Resolution, QueryError> {
    let manifest = state.manifest_or_error()?;
    let snap = &state.search;
    let rank = manifest
        .and_then(|_| snap.table_rank(req.table))
        .ok_or_else(|| absent_table(req.table, &state.config.name, manifest))?;
    let entry = &snap.tables[rank];
    let manifest_path = state.manifest_path();
    let mut files = vec![(shown(&manifest_path), state.version_of(&manifest_path))];
    let mut head: Vec<(String, Value)> = vec![
        ("table".into(), Value::Str(req.table.into())),
        ("column".into(), Value::Str(req.column.into())),
    ];

    let Some(stats_path) = &entry.stats else {
        head.push(("text".into(), Value::Str(req.text.into())));
        head.extend(resolve(
            req.text,
            &[],
            &Default::default(),
            Value::Null,
            false,
            None,
            Some(format!(
                "table {} declares no statistics artifact",
                repr_str(req.table)
            )),
        ));
        return Ok(Resolution {
            fields: head,
            pins: Pins::of(&files),
        });
    };
    let table = snap
        .table_record(rank, true)
        .map_err(internal)?
        .ok_or_else(|| internal("the search index lost a table"))?;
    let annotations = entry
        .annotations
        .as_deref()
        .map(|p| (&table.annotations, p));
    readable(&table.stats, stats_path, annotations)?;
    if !table.stats_columns.iter().any(|c| c == req.column) {
        return Err(QueryError::UnknownColumn {
            column: req.column.into(),
            table: req.table.into(),
            columns: table.stats_columns.clone(),
        });
    }
    let record = snap
        .column_by_name(rank, req.column)
        .map_err(internal)?
        .ok_or_else(|| internal("the search index lost a column"))?;
    let resolution = record
        .resolve
        .as_ref()
        .ok_or_else(|| internal("the search index lost a column's values"))?;
    if let Some(crash) = &resolution.crash {
        return Err(QueryError::Other(crash.clone()));
    }
    let target = match req.part {
        None => resolution.own.as_ref(),
        Some(part) => {
            let found = resolution
                .parts
                .iter()
                .find(|(path, _)| path == part)
                .map(|(_, r)| r);
            if found.is_none() {
                return Err(QueryError::UnknownPart {
                    part: part.into(),
                    column: req.column.into(),
                    table: req.table.into(),
                    parts: resolution.part_names.clone(),
                    switched_off: table.parts_off,
                });
            }
            found
        }
    }
    .ok_or_else(|| internal("the search index lost a column's values"))?;

    let scope = table.scope.as_ref();
    let reason = unavailable_reason(req.column, target, scope.is_some_and(|s| s.read_no_rows()));
    let notes = value_notes(&record.value_notes);
    if let Some(part) = req.part {
        head.push(("part".into(), Value::Str(part.into())));
    }
    head.push(("text".into(), Value::Str(req.text.into())));
    head.extend(resolve(
        req.text,
        &target.listed,
        &notes,
        target.coverage.clone(),
        target.complete,
        scope,
        reason,
    ));
    files.push((shown(stats_path), state.version_of(stats_path)));
    if let Some(ann_path) = &entry.annotations {
        files.push((shown(ann_path), state.version_of(ann_path)));
    }
    Ok(Resolution {
        fields: head,
        pins: Pins::of(&files),
    })
}
