//! list_tables: the walkable tables matching a glob, bare or with their manifest
//! projection and freshness verdict, and the `failed_tables` the glob matches.

use super::freshness;
use super::pins::Pins;
use crate::error::QueryError;
use crate::store::Snapshot;
use compat::py::Glob;
use compat::value::Value;

pub struct Request<'a> {
    pub pattern: Option<&'a str>,
    pub detail: bool,
}

/// The matched tables, in FQN order.
pub struct Tables {
    pub connection: String,
    /// The `failed_tables` names the glob matches, in file order.
    pub failed: Vec<String>,
    pub tables: Vec<Table>,
    pub pins: Pins,
}

pub struct Table {
    pub fqn: String,
    /// The bare name, or with `detail` the manifest projection and freshness verdict.
    pub entry: Value,
    /// Whether a rule carrying `match.min_rows` could not apply to it (no row count).
    pub size_gated: bool,
}

/// The names `failed_tables` lists that are strings, in file order.
pub fn failed_tables(manifest: Option<&Value>) -> Vec<String> {
    manifest
        .and_then(|m| m.get("failed_tables"))
        .and_then(Value::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The error for a table a call names that the manifest does not hold: unprofiled when the
/// last run listed it as failed, else unknown to `connection`.
pub fn absent_table(table: &str, connection: &str, manifest: Option<&Value>) -> QueryError {
    if failed_tables(manifest).iter().any(|f| f == table) {
        QueryError::UnprofiledTable {
            table: table.to_string(),
        }
    } else {
        QueryError::UnknownTable {
            table: table.to_string(),
            connection: connection.to_string(),
        }
    }
}

pub fn answer(state: &Snapshot, req: &Request) -> Result<Tables, QueryError> {
    let manifest = state.manifest_or_error()?;
    let glob = Glob::new(req.pattern.unwrap_or("*"));
    let mut matched: Vec<(String, &Value)> = manifest
        .and_then(|m| m.get("tables"))
        .and_then(Value::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (compat::py::str_of(k), v))
        .filter(|(fqn, _)| glob.matches(fqn))
        .collect();
    matched.sort_by(|a, b| a.0.cmp(&b.0));
    let failed: Vec<String> = failed_tables(manifest)
        .into_iter()
        .filter(|f| glob.matches(f))
        .collect();

    let now = freshness::now_micros();
    let tables = matched
        .into_iter()
        .map(|(fqn, entry)| {
            if !req.detail {
                return Table {
                    entry: Value::Str(fqn.clone()),
                    fqn,
                    size_gated: false,
                };
            }
            let mut pairs = vec![(Value::Str("table".into()), Value::Str(fqn.clone()))];
            for key in ["type", "row_count", "columns", "profiled_at"] {
                pairs.push((
                    Value::Str(key.into()),
                    entry.get(key).cloned().unwrap_or(Value::Null),
                ));
            }
            let (verdict, size_gated) = freshness::verdict(&state.config, &fqn, entry, now);
            pairs.extend(verdict);
            Table {
                fqn,
                entry: Value::Map(pairs),
                size_gated,
            }
        })
        .collect();
    Ok(Tables {
        connection: state.config.name.clone(),
        failed,
        tables,
        pins: manifest_pins(state),
    })
}

/// The manifest at its content version: all list_tables and get_manifest read.
pub fn manifest_pins(state: &Snapshot) -> Pins {
    let path = state.manifest_path();
    Pins::of(&[(path.display().to_string(), state.version_of(&path))])
}
