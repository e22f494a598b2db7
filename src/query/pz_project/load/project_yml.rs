//! project.yml as `ProjectLoader.LoadProjectFile` reads it: required `name`/`version`,
//! the known keys only, `vars` (with `${VAR}` interpolation), `engine`, `retention`,
//! `state` (with its `PZ_STATE_*` environment counterparts) and `on_source_drift`.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::ingest::pz_project::yaml_doc::YamlDoc;
use crate::query::pz_project::model::{file_error, StateConfig};
use crate::query::pz_project::Env;

use super::interpolate::interpolate_tree;
use super::options::parse_duration_ms;
use super::LoadIssue;

const FILE: &str = "project.yml";

pub struct ProjectFile {
    pub name: String,
    pub version: String,
    pub vars: PzMap,
    pub check_samples: bool,
    pub state: StateConfig,
    /// `state.connection` and the environment's connection string, for the PZ0125 check.
    pub state_connection: Option<String>,
    pub state_connection_string: Option<String>,
    pub state_url: Option<String>,
}

fn default_state() -> StateConfig {
    StateConfig {
        backend: "local".into(),
        artifacts: false,
    }
}

pub fn load_project_file(doc: Option<&YamlDoc>, env: &Env, issues: &mut LoadIssue) -> ProjectFile {
    let mut out = ProjectFile {
        name: String::new(),
        version: String::new(),
        vars: PzMap::new(),
        check_samples: true,
        state: default_state(),
        state_connection: None,
        state_connection_string: None,
        state_url: None,
    };
    let errors = &mut issues.errors;
    let yaml = match doc {
        None => {
            errors.push(file_error(
                PzCode::YamlShape,
                "project.yml is missing.",
                FILE,
                "run this from a pz project directory (or pass --project <dir>); to start a new project, run 'pz init <name>'",
            ));
            return out;
        }
        Some(Err(diag)) => {
            issues.push_diag(diag);
            return out;
        }
        Some(Ok(map)) => map,
    };
    let errors = &mut issues.errors;
    for (key, slot) in [("name", &mut out.name), ("version", &mut out.version)] {
        match yaml.get_string(key) {
            Some(v) => *slot = v,
            None => errors.push(file_error(
                PzCode::YamlShape,
                format!("project.yml is missing required field '{key}'."),
                FILE,
                "create project.yml with name: and version:",
            )),
        }
    }
    if present_but_not(yaml, "connectors", |v| matches!(v, PzValue::List(_))) {
        errors.push(file_error(
            PzCode::YamlShape,
            "project.yml: 'connectors' must be a list of package/version mappings.",
            FILE,
            "connectors:\n  - package: Pz.Connector.LocalFiles\n    version: 0.1.0",
        ));
    }
    if let Some(PzValue::List(entries)) = yaml.get("connectors") {
        for entry in entries {
            if entry.as_map().is_none() {
                errors.push(file_error(
                    PzCode::YamlShape,
                    format!(
                        "project.yml: connectors entry '{}' must be a package/version mapping.",
                        entry.interpolated()
                    ),
                    FILE,
                    "- package: Pz.Connector.LocalFiles\n    version: 0.1.0",
                ));
            }
        }
    }
    if yaml.contains("feeds") {
        errors.push(file_error(
            PzCode::FeedsRemoved,
            "project.yml field 'feeds' was removed; feeds are host configuration now.",
            FILE,
            "set PZ_FEEDS or pass --feeds to pz restore",
        ));
    }
    refuse_unknown_keys(yaml, errors);
    if present_but_not(yaml, "vars", |v| v.as_map().is_some()) {
        errors.push(file_error(
            PzCode::VarsInvalid,
            "project.yml: 'vars' must be a mapping of name to value.",
            FILE,
            "vars:\n  min_amount: 10",
        ));
    }
    out.vars = match interpolate_tree(&PzValue::Map(yaml.get_map("vars")), env, FILE, errors) {
        PzValue::Map(m) => m,
        _ => PzMap::new(),
    };
    if present_but_not(yaml, "engine", |v| v.as_map().is_some()) {
        errors.push(file_error(
            PzCode::InvalidEngineConfig,
            "project.yml: 'engine' must be a mapping of engine options.",
            FILE,
            "engine:\n  threads: 4",
        ));
    }
    out.check_samples = parse_engine(&yaml.get_map("engine"), errors);
    parse_retention(yaml, errors);
    let state = parse_state(yaml, env, errors);
    out.state = state.0;
    out.state_connection = state.1;
    out.state_connection_string = state.2;
    out.state_url = state.3;
    if let Some(raw) = yaml.get_string("on_source_drift") {
        if !matches!(raw.as_str(), "ignore" | "warn" | "fail") {
            errors.push(file_error(
                PzCode::DriftPolicyInvalid,
                format!("{FILE}: on_source_drift must be ignore, warn, or fail (got '{raw}')."),
                FILE,
                "write `on_source_drift: warn` (or fail), or remove the key",
            ));
        }
    }
    out
}

/// `PresentButNot<T>`: present, not null or empty, and not of the shape.
fn present_but_not(map: &PzMap, key: &str, is_shape: impl Fn(&PzValue) -> bool) -> bool {
    map.get(key).is_some_and(|v| !v.is_blank() && !is_shape(v))
}

const KNOWN_KEYS: [&str; 10] = [
    "name",
    "version",
    "pz",
    "connectors",
    "vars",
    "engine",
    "retention",
    "state",
    "on_source_drift",
    "feeds",
];

fn refuse_unknown_keys(yaml: &PzMap, errors: &mut Vec<PzError>) {
    let mut unknown: Vec<&str> = yaml.keys().filter(|k| !KNOWN_KEYS.contains(k)).collect();
    unknown.sort_by(|a, b| compat::dotnet::ordinal_cmp(a, b));
    for key in unknown {
        if key == "outputs" {
            errors.push(file_error(
                PzCode::RetiredOutputsBlock,
                "project.yml: the 'outputs' block is retired -- there are no per-target output profiles.",
                FILE,
                "declare each place as a top-level connection in connections.yml",
            ));
        } else {
            errors.push(file_error(
                PzCode::YamlShape,
                format!("project.yml: unknown key '{key}'."),
                FILE,
                "project.yml holds name, version, connectors, vars, engine, retention, state, and on_source_drift",
            ));
        }
    }
}

/// `ParseEngineConfig`; returns `check_samples`, the one engine value an answer reads.
fn parse_engine(engine: &PzMap, errors: &mut Vec<PzError>) -> bool {
    let unreadable =
        |map: &PzMap, key: &str, readable: bool, expected: &str, errors: &mut Vec<PzError>| {
            if let Some(raw) = map.get(key).filter(|v| !v.is_blank()) {
                if !readable {
                    errors.push(file_error(
                        PzCode::InvalidEngineConfig,
                        format!(
                            "{FILE}: engine.{key} must be {expected} (got '{}').",
                            raw.interpolated()
                        ),
                        FILE,
                        format!("engine.{key} must be {expected}"),
                    ));
                }
            }
        };
    let threads = engine.get_int("threads");
    unreadable(engine, "threads", threads.is_some(), "an integer", errors);
    let threads = threads.unwrap_or(4);
    if threads <= 0 {
        errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!("{FILE}: engine.threads must be >= 1 (got {threads})."),
            FILE,
            "threads must be >= 1",
        ));
    }
    match engine.get("duckdb") {
        Some(PzValue::Map(duck)) => unreadable(
            duck,
            "threads",
            duck.get_int("threads").is_some(),
            "an integer",
            errors,
        ),
        Some(v) if !v.is_blank() => errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!(
                "{FILE}: engine.duckdb must be a mapping of DuckDB options (got '{}').",
                v.interpolated()
            ),
            FILE,
            "duckdb:\n    memory_limit: 1GiB",
        )),
        _ => {}
    }
    let force = engine.get_bool("force_universal");
    unreadable(
        engine,
        "force_universal",
        force.is_some(),
        "true or false",
        errors,
    );
    let batch = engine.get_int("batch_bytes");
    unreadable(
        engine,
        "batch_bytes",
        batch.is_some(),
        "an integer number of bytes",
        errors,
    );
    const MIN: i32 = 1024 * 1024;
    const MAX: i32 = 512 * 1024 * 1024;
    if let Some(bytes) = batch.filter(|b| !(MIN..=MAX).contains(b)) {
        errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!(
                "{FILE}: engine.batch_bytes must be between {MIN} and {MAX} bytes (got {bytes})."
            ),
            FILE,
            format!("batch_bytes must be between {MIN} and {MAX} bytes"),
        ));
    }
    let samples = engine.get_bool("check_samples");
    unreadable(
        engine,
        "check_samples",
        samples.is_some(),
        "true or false",
        errors,
    );
    parse_breaker(engine, errors);
    samples.unwrap_or(true)
}

fn parse_breaker(engine: &PzMap, errors: &mut Vec<PzError>) {
    const HINT: &str = "breaker:\n  failure_threshold: 5\n  cool_down: 2m";
    let Some(value) = engine.given("breaker") else {
        return;
    };
    let Some(breaker) = value.as_map() else {
        errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!("{FILE}: engine.breaker must be a mapping with failure_threshold/cool_down."),
            FILE,
            HINT,
        ));
        return;
    };
    match breaker.get("failure_threshold") {
        Some(PzValue::Long(n)) if (1..=i32::MAX as i64).contains(n) => {}
        None | Some(PzValue::Null) => errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!("{FILE}: engine.breaker.failure_threshold is missing."),
            FILE,
            HINT,
        )),
        Some(raw) => errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!(
                "{FILE}: engine.breaker.failure_threshold must be between 1 and {} (got '{}').",
                i32::MAX,
                raw.interpolated()
            ),
            FILE,
            HINT,
        )),
    }
    match breaker.get("cool_down") {
        None | Some(PzValue::Null) => errors.push(file_error(
            PzCode::InvalidEngineConfig,
            format!("{FILE}: engine.breaker.cool_down is missing."),
            FILE,
            HINT,
        )),
        Some(raw) => {
            let ok = raw
                .to_dotnet_string()
                .and_then(|t| parse_duration_ms(&t))
                .is_some_and(|ms| ms > 0);
            if !ok {
                errors.push(file_error(
                    PzCode::InvalidEngineConfig,
                    format!(
                        "{FILE}: engine.breaker.cool_down must be a positive duration like 500ms, 2s, 5m, 1h, or 1d (got '{}').",
                        raw.interpolated()
                    ),
                    FILE,
                    HINT,
                ));
            }
        }
    }
}

fn parse_retention(yaml: &PzMap, errors: &mut Vec<PzError>) {
    const CODE: PzCode = PzCode::RetentionConfigInvalid;
    let Some(value) = yaml.get("retention") else {
        return;
    };
    if matches!(value, PzValue::Bool(false))
        || value.as_str().is_some_and(|t| {
            ["off", "false", "no"]
                .iter()
                .any(|o| o.eq_ignore_ascii_case(t))
        })
    {
        return;
    }
    let Some(retention) = value.as_map() else {
        errors.push(file_error(
            CODE,
            format!(
                "{FILE}: retention must be either `off` or a mapping with keep_last (got '{}').",
                value.interpolated()
            ),
            FILE,
            "write `retention: off`, or `retention:` with a `keep_last:` >= 1",
        ));
        return;
    };
    if retention.get_int("keep_last").is_none_or(|n| n < 1) {
        let got = retention
            .get("keep_last")
            .map_or("nothing".to_string(), |raw| {
                format!("'{}'", raw.interpolated())
            });
        errors.push(file_error(
            CODE,
            format!(
                "{FILE}: retention.keep_last must be an integer >= 1 (got {got}). Use `retention: off` to disable automatic cleanup."
            ),
            FILE,
            "set keep_last to 1 or more, or write `retention: off`",
        ));
    }
}

type StateParts = (StateConfig, Option<String>, Option<String>, Option<String>);

/// `ParseStateConfig`: per key, project.yml wins, then the environment, then the default.
fn parse_state(yaml: &PzMap, env: &Env, errors: &mut Vec<PzError>) -> StateParts {
    let fallback = (default_state(), None, None, None);
    let mut state = PzMap::new();
    let mut declared = false;
    if let Some(value) = yaml.given("state") {
        let Some(map) = value.as_map() else {
            errors.push(file_error(
                PzCode::StateBackendConfigInvalid,
                format!("{FILE}: state must be a mapping."),
                FILE,
                "state:\n  backend: sqlserver\n  connection: ops",
            ));
            return fallback;
        };
        state = map.clone();
        declared = true;
    }
    let resolve = |key: Option<&str>, var: Option<&str>| -> Option<String> {
        if let Some(v) = key.and_then(|k| state.get_string(k)) {
            return Some(v);
        }
        var.and_then(|v| env.get(v))
            .filter(|v| !v.trim().is_empty())
            .cloned()
    };
    let backend =
        resolve(Some("backend"), Some("PZ_STATE_BACKEND")).unwrap_or_else(|| "local".into());
    if !matches!(backend.as_str(), "local" | "sqlserver" | "http") {
        errors.push(file_error(
            PzCode::StateBackendConfigInvalid,
            format!("{FILE}: unknown state backend '{backend}'."),
            FILE,
            "use one of: local, sqlserver, http",
        ));
        return fallback;
    }
    if declared {
        if let Some(e) = stray_state_keys(&state, &backend) {
            errors.push(e);
            return fallback;
        }
    }
    let is_local = backend == "local";
    let is_http = backend == "http";
    let connection = resolve(Some("connection"), None);
    let connection_string = resolve(None, Some("PZ_STATE_CONNECTION_STRING"));
    let url = resolve(Some("url"), Some("PZ_STATE_URL"));
    let mut bool_of = |key: &str, var: &str| state_bool(&state, env, key, var, errors);
    let artifacts = bool_of("artifacts", "PZ_STATE_ARTIFACTS").unwrap_or(!is_local && !is_http);
    let events = bool_of("events", "PZ_STATE_EVENTS").unwrap_or(false);
    if is_http {
        for (key, requested) in [("artifacts", artifacts), ("events", events)] {
            if requested {
                errors.push(file_error(
                    PzCode::StateBackendConfigInvalid,
                    format!(
                        "{FILE}: state.{key}: true is not supported under `backend: http` \u{2014} this backend stores watermarks and sync-state only; run artifacts and events stay where they already live."
                    ),
                    FILE,
                    format!(
                        "set {key}: false (its default here; check PZ_STATE_{} too)",
                        key.to_ascii_uppercase()
                    ),
                ));
            }
        }
    }
    if !is_local && !is_http && events && !artifacts {
        errors.push(file_error(
            PzCode::StateBackendConfigInvalid,
            format!(
                "{FILE}: state.events: true requires state.artifacts: true \u{2014} without the runs header row, a truncated event stream cannot be reported (events_dropped) and run_events rows are never swept by retention or pz clean."
            ),
            FILE,
            "set artifacts: true (its default on a non-local backend; check PZ_STATE_ARTIFACTS too), or set events: false",
        ));
    }
    (
        StateConfig { backend, artifacts },
        connection,
        connection_string,
        url,
    )
}

/// The keys a `state:` block holds that mean nothing under its backend, as an error.
fn stray_state_keys(state: &PzMap, backend: &str) -> Option<PzError> {
    let allowed: &[&str] = match backend {
        "local" => &["backend"],
        "sqlserver" => &["backend", "connection", "schema", "artifacts", "events"],
        _ => &["backend", "url", "artifacts", "events"],
    };
    let mut stray: Vec<&str> = state.keys().filter(|k| !allowed.contains(k)).collect();
    if stray.is_empty() {
        return None;
    }
    let next = if stray.contains(&"token") {
        "state.token does not exist -- a bearer token is a credential, so it comes from PZ_STATE_TOKEN only; remove any other stray key too".to_string()
    } else {
        "remove the key(s), or use a backend where they apply (local, sqlserver, http)".to_string()
    };
    stray.sort_by(|a, b| compat::dotnet::ordinal_cmp(a, b));
    Some(file_error(
        PzCode::StateBackendConfigInvalid,
        format!(
            "{FILE}: state key(s) {} have no meaning under `backend: {backend}`.",
            stray.join(", ")
        ),
        FILE,
        next,
    ))
}

/// A boolean state setting: `state.<key>` if written (it must be a YAML boolean), else
/// `var` from the environment as `bool.TryParse` reads it, else `None`.
fn state_bool(
    state: &PzMap,
    env: &Env,
    key: &str,
    var: &str,
    errors: &mut Vec<PzError>,
) -> Option<bool> {
    if let Some(raw) = state.given(key) {
        if let PzValue::Bool(b) = raw {
            return Some(*b);
        }
        errors.push(file_error(
            PzCode::StateBackendConfigInvalid,
            format!(
                "{FILE}: state.{key} must be true or false (got '{}').",
                raw.interpolated()
            ),
            FILE,
            format!("{key}: true"),
        ));
        return None;
    }
    let raw = env.get(var)?;
    // bool.TryParse: "true"/"false" in any case, surrounding white space allowed.
    match raw.trim().to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => {
            errors.push(file_error(
                PzCode::StateBackendConfigInvalid,
                format!("{var} must be true or false (got '{raw}')."),
                FILE,
                format!("set {var}=true or {var}=false, or unset it"),
            ));
            None
        }
    }
}
