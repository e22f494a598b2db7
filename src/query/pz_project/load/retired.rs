//! `RetiredConnectionDirectories`: each leftover `sources/*.yml` or `sinks/*.yml` is PZ0346,
//! its hint the connections.yml block the file becomes.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::PzValue;
use crate::ingest::pz_project::yaml_doc::YamlDoc;
use crate::query::pz_project::model::file_error;

pub fn refuse(files: &[(String, YamlDoc)], errors: &mut Vec<PzError>) {
    for (directory, name_key, entity_key, direction) in [
        ("sources", "source", "datasets", "read"),
        ("sinks", "sink", "outputs", "write"),
    ] {
        for (rel, doc) in files
            .iter()
            .filter(|(rel, _)| rel.starts_with(&format!("{directory}/")))
        {
            let block = reconstruct(doc, name_key, entity_key, direction);
            errors.push(file_error(
                PzCode::RetiredConnectionDirectory,
                format!("{rel}: `{directory}/` is retired -- every connection lives in connections.yml."),
                rel,
                format!("delete {directory}/ and put this in connections.yml:\n{block}"),
            ));
        }
    }
}

fn reconstruct(doc: &YamlDoc, name_key: &str, entity_key: &str, direction: &str) -> String {
    let Ok(yaml) = doc else {
        return "  <name>:\n    connector: <connector>".into();
    };
    let name = yaml.get_string(name_key).unwrap_or_else(|| "<name>".into());
    let mut lines = vec![format!("  {name}:")];
    for (key, value) in &yaml.entries {
        if key == name_key || key == entity_key || key == "connection" {
            continue;
        }
        render(key, value, 2, &mut lines);
    }
    for (key, value) in &yaml.get_map("connection").entries {
        render(key, value, 2, &mut lines);
    }
    let entities = yaml.get_map(entity_key);
    if !entities.entries.is_empty() {
        lines.push("    entities:".into());
        for (entity, value) in &entities.entries {
            lines.push(format!("      {entity}:"));
            lines.push(format!("        {direction}:"));
            if let PzValue::Map(body) = value {
                for (key, inner) in &body.entries {
                    render(key, inner, 5, &mut lines);
                }
            }
        }
    }
    lines.join("\n")
}

fn render(key: &str, value: &PzValue, indent: usize, lines: &mut Vec<String>) {
    let pad = " ".repeat(indent * 2);
    match value {
        PzValue::Map(map) => {
            lines.push(format!("{pad}{key}:"));
            for (k, v) in &map.entries {
                render(k, v, indent + 1, lines);
            }
        }
        PzValue::List(items) => {
            let items: Vec<String> = items.iter().map(scalar).collect();
            lines.push(format!("{pad}{key}: [{}]", items.join(", ")));
        }
        other => lines.push(format!("{pad}{key}: {}", scalar(other))),
    }
}

fn scalar(value: &PzValue) -> String {
    match value {
        PzValue::Bool(b) => b.to_string(),
        other => other.interpolated(),
    }
}
