//! Pipelines and their sidecars as `ProjectLoader.LoadPipelines`/`ApplySidecars` read them:
//! every `pipelines/**/*.sql` outside a `configs` directory, by path (ordinal), named by
//! file stem (a repeated stem is PZ0110), then `pipelines/configs/*.yml` applied in order
//! (`materialization`, `tags`, `checks`; an unknown `pipeline:` is PZ0111).

use crate::error::pz::PzCode;
use crate::ingest::pz_project::template::PipelineSource;
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::ingest::pz_project::yaml_doc::YamlDoc;
use crate::query::pz_project::model::{file_error, Check, Pipeline};

use super::checks::validate_checks;
use super::LoadIssue;

pub fn load_pipelines(
    sources: &[PipelineSource],
    sidecars: &[(String, YamlDoc)],
    issues: &mut LoadIssue,
) -> Vec<Pipeline> {
    let mut pipelines: Vec<Pipeline> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for source in sources {
        if source.rel.split('/').any(|segment| segment == "configs") {
            continue;
        }
        let file_name = source.rel.rsplit('/').next().unwrap_or(&source.rel);
        let name = file_name
            .strip_suffix(".sql")
            .unwrap_or(file_name)
            .to_string();
        if let Some(first) = seen.get(&name).map(|i| &pipelines[*i]) {
            issues.errors.push(file_error(
                PzCode::DuplicateName,
                format!(
                    "Duplicate pipeline name '{name}' defined in {} and {}.",
                    first.file, source.rel
                ),
                &source.rel,
                "rename one of the pipelines so names are unique within the project.",
            ));
            continue;
        }
        seen.insert(name.clone(), pipelines.len());
        pipelines.push(Pipeline {
            name,
            file: source.rel.clone(),
            template: source.template.clone(),
            materialization: "table".into(),
            tags: Vec::new(),
            checks: Vec::new(),
        });
    }
    for (rel, doc) in sidecars {
        let yaml = match doc {
            Ok(map) => map,
            Err(diag) => {
                issues.push_diag(diag);
                continue;
            }
        };
        apply_sidecar(rel, yaml, &mut pipelines, issues);
    }
    pipelines
}

fn apply_sidecar(rel: &str, yaml: &PzMap, pipelines: &mut [Pipeline], issues: &mut LoadIssue) {
    let name = yaml.get_string("pipeline").unwrap_or_default();
    let Some(pipeline) = pipelines.iter_mut().find(|p| p.name == name) else {
        issues.errors.push(file_error(
            PzCode::SidecarUnknownPipeline,
            format!("Sidecar config {rel} references unknown pipeline '{name}'."),
            rel,
            "fix the pipeline: key or remove the sidecar.",
        ));
        return;
    };
    let materialization = yaml
        .get_string("materialization")
        .unwrap_or_else(|| "table".into());
    let tags = match yaml.get("tags") {
        Some(PzValue::List(items)) => items.iter().map(PzValue::interpolated).collect(),
        _ => Vec::new(),
    };
    let mut checks = Vec::new();
    let mut column_shape_errors = Vec::new();
    let errors = &mut issues.errors;
    let entries = match yaml.get("checks") {
        Some(PzValue::List(items)) => items.as_slice(),
        _ => &[],
    };
    let mut exact = true;
    for entry in entries {
        let Some(dict) = entry.as_map().filter(|m| !m.entries.is_empty()) else {
            errors.push(file_error(
                PzCode::InvalidCheck,
                format!(
                    "pipeline '{name}': check entry must be a mapping like `- not_null: [id]`."
                ),
                rel,
                "each check is a single-key mapping: `- <type>: <options>`",
            ));
            continue;
        };
        if dict.entries.len() > 1 {
            let mut keys: Vec<&str> = dict.keys().collect();
            keys.sort_by(|a, b| compat::dotnet::ordinal_cmp(a, b));
            errors.push(file_error(
                PzCode::InvalidCheck,
                format!(
                    "pipeline '{name}': one check per list item, got keys: {}.",
                    keys.join(", ")
                ),
                rel,
                "split into separate list items",
            ));
            continue;
        }
        exact &= dict.exact;
        let (check_type, value) = &dict.entries[0];
        let value_map = value.as_map();
        let list_texts =
            |items: &[PzValue]| items.iter().map(PzValue::interpolated).collect::<Vec<_>>();
        let mut columns = match (value, value_map.and_then(|m| m.get("columns"))) {
            (PzValue::List(items), _) => list_texts(items),
            (_, Some(PzValue::List(items))) => list_texts(items),
            _ => Vec::new(),
        };
        if let Some(column) = value_map.and_then(|m| m.get("column")) {
            if !columns.is_empty() {
                errors.push(file_error(
                    PzCode::InvalidCheck,
                    format!("pipeline '{name}': {check_type} check declares both 'column' and 'columns'."),
                    rel,
                    "keep exactly one of the two keys.",
                ));
            } else if let Some(single) = column.as_str().filter(|s| !s.is_empty()) {
                columns = vec![single.to_string()];
            } else {
                errors.push(file_error(
                    PzCode::InvalidCheck,
                    format!("pipeline '{name}': {check_type} check field 'column' must be a single column name."),
                    rel,
                    "'column' must be a single column name, e.g. `column: updated_at`",
                ));
                column_shape_errors.push(checks.len());
            }
        }
        let mut options = PzMap::new();
        if let Some(m) = value_map {
            for (k, v) in &m.entries {
                if !matches!(k.as_str(), "column" | "columns" | "sample_values") {
                    options.set(k.clone(), v.clone());
                }
            }
        }
        checks.push(Check {
            check_type: check_type.clone(),
            columns,
            options,
        });
    }
    validate_checks(&checks, &name, rel, errors, &column_shape_errors);
    pipeline.materialization = materialization;
    pipeline.tags = tags;
    pipeline.checks = checks;
    if !exact {
        issues.inexact_checks.push(name);
    }
}
