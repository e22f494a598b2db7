//! connections.yml as `ConnectionsLoader` reads it: top-level connection names, a required
//! `connector`, reserved keys, flat connector config (the only place `${VAR}` is
//! substituted), and `entities: <e>: {read, write}`.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::ingest::pz_project::yaml_doc::YamlDoc;
use crate::query::pz_project::model::{file_error, Connection, Dataset, PzWarning};
use crate::query::pz_project::Env;
use compat::dotnet::ordinal_cmp;

use super::interpolate::{contains_reference, interpolate};
use super::options::{
    parse_allow_unsigned, parse_max_concurrency, parse_rate_limit, parse_retry, parse_sync_mode,
    parse_yaml_write,
};
use super::LoadIssue;

pub const FILE: &str = "connections.yml";

const RESERVED: [&str; 6] = [
    "connector",
    "entities",
    "max_concurrency",
    "rate_limit",
    "retry",
    "allow_unsigned_extensions",
];

pub fn load_connections(
    doc: Option<&YamlDoc>,
    env: &Env,
    issues: &mut LoadIssue,
) -> Vec<Connection> {
    let yaml = match doc {
        None => return Vec::new(),
        Some(Err(diag)) => {
            issues.push_diag(diag);
            return Vec::new();
        }
        Some(Ok(map)) => interpolate_document(map, env, &mut issues.errors, &mut issues.warnings),
    };
    let errors = &mut issues.errors;
    let mut out = Vec::new();
    for (name, value) in &yaml.entries {
        if name == "outputs" {
            errors.push(file_error(
                PzCode::RetiredOutputsBlock,
                format!("{FILE}: the 'outputs' block is retired -- there are no per-target output profiles."),
                FILE,
                "declare each place as a top-level connection instead",
            ));
            continue;
        }
        let Some(block) = value.as_map() else {
            errors.push(file_error(
                PzCode::YamlShape,
                format!("{FILE}: connection '{name}' must be a mapping."),
                FILE,
                format!("{name}:\n  connector: <connector>"),
            ));
            continue;
        };
        let Some(connector) = block.get_string("connector").filter(|c| !c.is_empty()) else {
            errors.push(file_error(
                PzCode::YamlShape,
                format!("{FILE}: connection '{name}' is missing required field 'connector'."),
                FILE,
                format!("{name}:\n  connector: postgres"),
            ));
            continue;
        };
        let mut config = PzMap::new();
        for (k, v) in &block.entries {
            if !RESERVED.contains(&k.as_str()) {
                config.set(k.clone(), v.clone());
            }
        }
        let (datasets, entity_writes) = load_entities(block, name, errors);
        parse_retry(block, FILE, errors, &format!("connection '{name}' "));
        parse_max_concurrency(block, FILE, errors);
        parse_rate_limit(block, FILE, errors);
        parse_allow_unsigned(block, FILE, name, errors);
        out.push(Connection {
            name: name.clone(),
            connector,
            config,
            datasets,
            entity_writes,
        });
    }
    out
}

/// The document with every connection's flat config interpolated, in document order, and
/// PZ0133 for a reference under `entities:` (never interpolated).
fn interpolate_document(
    map: &PzMap,
    env: &Env,
    errors: &mut Vec<PzError>,
    warnings: &mut Vec<PzWarning>,
) -> PzMap {
    let mut out = map.clone();
    for (conn, value) in out.entries.iter_mut() {
        let PzValue::Map(block) = value else {
            continue;
        };
        for (key, v) in block.entries.iter_mut() {
            if key == "entities" {
                let mut path = Vec::new();
                warn_entities(v, conn, &mut path, warnings);
            } else if !RESERVED.contains(&key.as_str()) {
                substitute(v, env, errors);
            }
        }
    }
    out
}

fn substitute(v: &mut PzValue, env: &Env, errors: &mut Vec<PzError>) {
    match v {
        PzValue::Str(s) => *s = interpolate(s, env, FILE, errors),
        PzValue::List(items) => items.iter_mut().for_each(|i| substitute(i, env, errors)),
        PzValue::Map(m) => m
            .entries
            .iter_mut()
            .for_each(|(_, i)| substitute(i, env, errors)),
        _ => {}
    }
}

fn warn_entities(v: &PzValue, conn: &str, path: &mut Vec<String>, warnings: &mut Vec<PzWarning>) {
    match v {
        PzValue::Str(text) if contains_reference(text) => warnings.push(PzWarning {
            code: PzCode::UninterpolatedEntityOption,
            message: format!(
                "{FILE}: connection '{conn}' entity option '{}' is '{text}' -- entities: options are never interpolated, so this reaches the connector as literal, un-substituted text.",
                path.join(".")
            ),
            file: Some(FILE.into()),
            line: None,
            hint: Some(
                "move the value to the connection's own top-level config, where ${VAR} IS substituted".into(),
            ),
        }),
        PzValue::List(items) => items.iter().for_each(|i| warn_entities(i, conn, path, warnings)),
        PzValue::Map(m) => {
            for (k, i) in &m.entries {
                path.push(k.clone());
                warn_entities(i, conn, path, warnings);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `EntityName.Problem`.
pub fn entity_name_problem(name: &str) -> Option<&'static str> {
    if name.chars().all(char::is_whitespace) {
        return Some("is empty");
    }
    if name.chars().any(char::is_whitespace) {
        return Some("contains whitespace");
    }
    name.split('.')
        .any(str::is_empty)
        .then_some("has an empty dotted segment")
}

type Entities = (
    Vec<Dataset>,
    Vec<(String, crate::query::pz_project::model::WriteOptions)>,
);

fn load_entities(block: &PzMap, connection: &str, errors: &mut Vec<PzError>) -> Entities {
    let mut datasets = Vec::new();
    let mut writes = Vec::new();
    for (entity, value) in &block.get_map("entities").entries {
        let where_ = format!("connection '{connection}' entity '{entity}'");
        if let Some(problem) = entity_name_problem(entity) {
            errors.push(file_error(
                PzCode::EntityNameInvalid,
                format!("{FILE}: {where_}: name {problem}."),
                FILE,
                "name the entity exactly as the remote system spells it, e.g. 'dbo.orders'",
            ));
            continue;
        }
        let Some(entity_block) = value.as_map().filter(|m| !m.entries.is_empty()) else {
            errors.push(file_error(
                PzCode::YamlShape,
                format!("{FILE}: {where_} declares no direction."),
                FILE,
                format!("{entity}:\n    read:\n      <read options>\n    write:\n      strategy: 'merge'"),
            ));
            continue;
        };
        let mut unknown: Vec<&str> = entity_block
            .keys()
            .filter(|k| *k != "read" && *k != "write")
            .collect();
        unknown.sort_by(|a, b| ordinal_cmp(a, b));
        for key in unknown {
            errors.push(file_error(
                PzCode::YamlShape,
                format!("{FILE}: {where_}: unknown key '{key}'."),
                FILE,
                "an entity holds 'read:' and/or 'write:', nothing else",
            ));
        }
        if let Some(read) = entity_block.get("read") {
            if let Some(dataset) = read_dataset(read, entity, &where_, errors) {
                datasets.push(dataset);
            }
        }
        if let Some(write) = entity_block.get("write") {
            if let Some(options) = parse_yaml_write(write, &where_, errors) {
                match writes.iter_mut().find(|(e, _)| e == entity) {
                    Some(slot) => slot.1 = options,
                    None => writes.push((entity.clone(), options)),
                }
            }
        }
    }
    (datasets, writes)
}

fn read_dataset(
    value: &PzValue,
    entity: &str,
    where_: &str,
    errors: &mut Vec<PzError>,
) -> Option<Dataset> {
    if value.is_blank() {
        return Some(Dataset {
            name: entity.to_string(),
            options: PzMap::new(),
            columns: None,
            sync: None,
            exact: true,
        });
    }
    let Some(read) = value.as_map() else {
        errors.push(file_error(
            PzCode::YamlShape,
            format!("{FILE}: {where_}: 'read' must be a mapping of options, or empty."),
            FILE,
            "read:\n      partitions: 4",
        ));
        return None;
    };
    let mut columns = None;
    if let Some(cols) = read.get("columns").filter(|v| !v.is_blank()) {
        match cols.as_map() {
            None => errors.push(file_error(
                PzCode::YamlShape,
                format!("{FILE}: {where_}: 'columns' must be a mapping of column name to type."),
                FILE,
                "columns:\n          id: bigint",
            )),
            Some(map) => {
                let nested = map
                    .entries
                    .iter()
                    .find(|(_, v)| matches!(v, PzValue::Map(_) | PzValue::List(_)));
                match nested {
                    Some((key, _)) => errors.push(file_error(
                        PzCode::YamlShape,
                        format!("{FILE}: {where_}: column '{key}' must map to a type name, not a nested structure."),
                        FILE,
                        format!("{key}: bigint"),
                    )),
                    None => {
                        columns = Some(
                            map.entries
                                .iter()
                                .map(|(k, v)| (k.clone(), v.interpolated()))
                                .collect(),
                        )
                    }
                }
            }
        }
    }
    if let Some(old) = read.given("incremental") {
        let cursor = old
            .as_map()
            .and_then(|m| m.get_string("cursor"))
            .unwrap_or_else(|| "<column>".into());
        errors.push(file_error(
            PzCode::RetiredReadSurface,
            format!("{FILE}: {where_}: the 'incremental:' block was replaced by the unified 'sync:' block."),
            FILE,
            format!("sync:\n          mode: incremental\n          cursor: {cursor}"),
        ));
    }
    let qualifier = read.get_string("schema");
    let qualified = read.get_string("table");
    if qualifier.is_some() || qualified.is_some() {
        let replacement = match (&qualifier, &qualified) {
            (None, Some(t)) => t.clone(),
            (Some(s), t) => format!("{s}.{}", t.as_deref().unwrap_or(entity)),
            (None, None) => unreachable!("one of the two is present"),
        };
        let hint = if replacement == entity {
            format!("delete those keys -- the entity name '{entity}' already names the object")
        } else {
            format!("rename the entity to '{replacement}' and delete those keys")
        };
        errors.push(file_error(
            PzCode::RetiredEntityQualifier,
            format!("{FILE}: {where_}: 'schema'/'table' are retired -- the entity name is the object name."),
            FILE,
            hint,
        ));
    }
    if read.contains("rate_limit") {
        errors.push(file_error(
            PzCode::RateLimitConfigInvalid,
            format!(
                "{FILE}: {where_}: 'rate_limit' is instance-level; declare it on the connection."
            ),
            FILE,
            "move rate_limit up to the connection mapping",
        ));
    }
    let mut options = PzMap::new();
    options.exact = read.exact;
    for (k, v) in &read.entries {
        if !matches!(
            k.as_str(),
            "columns" | "incremental" | "retry" | "sync" | "rate_limit" | "schema" | "table"
        ) {
            options.set(k.clone(), v.clone());
        }
    }
    let sync = parse_sync_mode(read, entity, FILE, errors);
    parse_retry(read, FILE, errors, &format!("{where_} read "));
    Some(Dataset {
        name: entity.to_string(),
        options,
        columns,
        sync,
        exact: read.exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_names_are_checked() {
        assert_eq!(entity_name_problem(""), Some("is empty"));
        assert_eq!(entity_name_problem("a b"), Some("contains whitespace"));
        assert_eq!(
            entity_name_problem("a..b"),
            Some("has an empty dotted segment")
        );
        assert_eq!(entity_name_problem("dbo.orders"), None);
    }
}
