//! The keyword arguments of `source()` and `sink()`, bound as pz's `SourceFunction` and
//! `SinkFunction` bind them: pz-owned kwargs lifted out and checked, retired or
//! instance-level ones refused, everything else a connector option.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::template::{Lit, NamedArg};
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::query::pz_project::load::options::{
    parse_retry, parse_sync_mode, positive_delay, sort_map,
};
use crate::query::pz_project::model::{SyncMode, WriteOptions};

/// `ScriptKwargs.Convert`: Scriban literals in the loader's shapes.
pub fn lit_value(lit: &Lit) -> PzValue {
    match lit {
        Lit::Null => PzValue::Null,
        Lit::Bool(b) => PzValue::Bool(*b),
        Lit::Int(i) => PzValue::Long(*i),
        Lit::Double(d) => PzValue::Double(*d),
        Lit::Str(s) => PzValue::Str(s.clone()),
        Lit::Array(items) => PzValue::List(items.iter().map(lit_value).collect()),
        Lit::Object(members) => {
            let mut map = PzMap::new();
            for (k, v) in members {
                map.set(k.clone(), lit_value(v));
            }
            PzValue::Map(map)
        }
    }
}

/// One call's kwargs by name, first occurrence winning, with their lines.
pub struct Kwargs {
    pub items: Vec<(String, PzValue, u32)>,
}

impl Kwargs {
    /// Reads the named arguments; a repeated name is reported through `dup`.
    pub fn read(named: &[NamedArg], mut dup: impl FnMut(&str, u32)) -> Kwargs {
        let mut items: Vec<(String, PzValue, u32)> = Vec::new();
        for arg in named {
            if items.iter().any(|(n, _, _)| *n == arg.name) {
                dup(&arg.name, arg.line);
                continue;
            }
            items.push((arg.name.clone(), lit_value(&arg.value), arg.line));
        }
        Kwargs { items }
    }

    pub fn take(&mut self, name: &str) -> Option<(PzValue, u32)> {
        let at = self.items.iter().position(|(n, _, _)| n == name)?;
        let (_, v, l) = self.items.remove(at);
        Some((v, l))
    }

    pub fn get(&self, name: &str) -> Option<&(String, PzValue, u32)> {
        self.items.iter().find(|(n, _, _)| n == name)
    }

    fn as_map(&self) -> PzMap {
        let mut map = PzMap::new();
        for (k, v, _) in &self.items {
            map.set(k.clone(), v.clone());
        }
        map
    }
}

/// `SinkFunction.Show`.
pub fn show(value: &PzValue) -> String {
    match value {
        PzValue::Null => "null".into(),
        PzValue::List(items) => format!(
            "[{}]",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        PzValue::Map(m) => format!(
            "{{{}}}",
            m.entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", show(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.interpolated(),
    }
}

/// Errors of one call site: `"{file}: {message}."` at the given line.
pub struct CallErrors<'a> {
    pub file: &'a str,
    pub hint: &'static str,
    pub errors: &'a mut Vec<PzError>,
}

impl CallErrors<'_> {
    pub fn add(&mut self, code: PzCode, line: u32, message: String, hint: Option<String>) {
        self.errors.push(PzError {
            code,
            message: format!("{}: {message}.", self.file),
            file: Some(self.file.to_string()),
            line: Some(line),
            next_step: Some(hint.unwrap_or_else(|| self.hint.to_string())),
        });
    }
}

/// `RefuseMovedKwargs`: names pz owns elsewhere, each refused with its code and hint;
/// `message` holds `{}` for the name.
fn refuse(
    kwargs: &mut Kwargs,
    table: &[(&str, PzCode, &str)],
    message: &str,
    out: &mut CallErrors,
) {
    for (name, code, hint) in table {
        if let Some((_, l)) = kwargs.take(name) {
            out.add(
                *code,
                l,
                message.replacen("{}", name, 1),
                Some(hint.to_string()),
            );
        }
    }
}

pub const SOURCE_HINT: &str =
    "source('<connection>', '<entity>', partitions: 8, sync: { mode: 'incremental', cursor: '<column>' })";
pub const SINK_HINT: &str =
    "sink('<connection>', '<entity>', strategy: 'merge', keys: ['<column>'])";

/// What a `source()` call declared (`SourceReadOptions`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    pub columns: Option<Vec<(String, String)>>,
    pub sync: Option<SyncMode>,
    pub options: PzMap,
}

/// The keyword arguments a `source()` call may not pass, each with its code and hint.
const SOURCE_MOVED: &[(&str, PzCode, &str)] = &[
    (
        "rate_limit",
        PzCode::RateLimitConfigInvalid,
        "rate_limit is instance-level; declare it on the connection in connections.yml",
    ),
    (
        "max_concurrency",
        PzCode::RateLimitConfigInvalid,
        "max_concurrency is instance-level; declare it on the connection in connections.yml",
    ),
    (
        "table",
        PzCode::RetiredEntityQualifier,
        "the entity name is the table: source('<connection>', 'schema.table')",
    ),
    (
        "schema",
        PzCode::RetiredEntityQualifier,
        "the entity name carries the schema: source('<connection>', 'schema.table')",
    ),
    (
        "incremental",
        PzCode::RetiredReadSurface,
        "sync: { mode: 'incremental', cursor: '<column>' }",
    ),
];

/// `SourceFunction.ParseReadOptions`; returns the options and whether any kwarg was given.
pub fn source_kwargs(
    named: &[NamedArg],
    conn: &str,
    entity: &str,
    line: u32,
    out: &mut CallErrors,
) -> (ReadOptions, bool) {
    let call = format!("source('{conn}', '{entity}')");
    let mut kwargs = Kwargs::read(named, |name, l| {
        out.add(
            PzCode::UnresolvedRef,
            l,
            format!("{call} passes '{name}' more than once"),
            None,
        );
    });
    let declared = !kwargs.items.is_empty();
    refuse(
        &mut kwargs,
        SOURCE_MOVED,
        &format!("{call}: '{{}}' is not a source() keyword argument"),
        out,
    );
    let plain = kwargs.as_map();
    let mut sub = Vec::new();
    let sync = parse_sync_mode(&plain, entity, out.file, &mut sub);
    parse_retry(&plain, out.file, &mut sub, &format!("{call} "));
    for mut e in sub {
        e.line = Some(line);
        out.errors.push(e);
    }
    let columns = match kwargs.get("columns") {
        None => None,
        Some((_, PzValue::Map(map), _)) => Some(
            map.entries
                .iter()
                .map(|(k, v)| (k.clone(), v.interpolated()))
                .collect(),
        ),
        Some((_, _, l)) => {
            out.add(
                PzCode::YamlShape,
                *l,
                format!("{call}: 'columns' must be a mapping of column to type"),
                Some("columns: { id: 'bigint', email: 'varchar' }".into()),
            );
            None
        }
    };
    let mut options = PzMap::new();
    for (k, v, _) in &kwargs.items {
        if !matches!(k.as_str(), "columns" | "sync" | "retry") {
            options.set(k.clone(), v.clone());
        }
    }
    sort_map(&mut options);
    if !declared {
        return (
            ReadOptions {
                columns: None,
                sync: None,
                options: PzMap::new(),
            },
            false,
        );
    }
    (
        ReadOptions {
            columns,
            sync,
            options,
        },
        true,
    )
}

/// The keyword arguments a `sink()` call may not pass, each with its code and hint.
const SINK_MOVED: &[(&str, PzCode, &str)] = &[
    ("mode", PzCode::RetiredWriteSurface, "strategy: 'merge'"),
    (
        "accept_duplicates",
        PzCode::RetiredWriteSurface,
        "duplicates: 'accept'",
    ),
    (
        "write",
        PzCode::RetiredWriteSurface,
        "pass the write options directly: strategy: 'merge', keys: ['<column>']",
    ),
    (
        "rate_limit",
        PzCode::RateLimitConfigInvalid,
        "rate_limit is instance-level; declare it on the connection in connections.yml",
    ),
    (
        "max_concurrency",
        PzCode::ConcurrencyConfigInvalid,
        "max_concurrency is instance-level; declare it on the connection in connections.yml",
    ),
    (
        "input",
        PzCode::RemovedInputField,
        "the pipeline carrying this sink() call IS the input",
    ),
    (
        "table",
        PzCode::RetiredEntityQualifier,
        "the entity name is the table: sink('<connection>', 'schema.table')",
    ),
    (
        "schema",
        PzCode::RetiredEntityQualifier,
        "the entity name carries the schema: sink('<connection>', 'schema.table')",
    ),
];

/// `SinkFunction.ParseWriteOptions`; returns the options and whether any kwarg was given.
pub fn sink_kwargs(
    named: &[NamedArg],
    sink: &str,
    output: &str,
    out: &mut CallErrors,
) -> (WriteOptions, bool) {
    let call = format!("sink('{sink}', '{output}')");
    let mut kwargs = Kwargs::read(named, |name, l| {
        out.add(
            PzCode::InvalidSinkCall,
            l,
            format!("{call} passes '{name}' more than once"),
            None,
        );
    });
    let declared = !kwargs.items.is_empty();
    refuse(
        &mut kwargs,
        SINK_MOVED,
        &format!("{call}: '{{}}' is not a sink() keyword argument"),
        out,
    );
    let mut write = WriteOptions::default_append();
    if let Some((v, l)) = kwargs.take("strategy") {
        match v.as_str() {
            Some(s @ ("replace" | "append" | "merge")) => write.mode = s.to_string(),
            _ => out.add(
                PzCode::SyncModeInvalid,
                l,
                format!(
                    "{call}: 'strategy' must be one of: replace, append, merge (got '{}')",
                    show(&v)
                ),
                None,
            ),
        }
    }
    if let Some((v, l)) = kwargs.take("keys") {
        match &v {
            PzValue::List(items) if items.iter().all(|i| matches!(i, PzValue::Str(_))) => {
                write.keys = items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect();
            }
            _ => out.add(
                PzCode::YamlShape,
                l,
                format!(
                    "{call}: 'keys' must be a list of strings (got '{}')",
                    show(&v)
                ),
                Some("keys: ['<column>']".into()),
            ),
        }
    }
    if let Some((v, l)) = kwargs.take("duplicates") {
        if v.as_str() == Some("accept") {
            write.accept_duplicates = true;
        } else {
            out.add(
                PzCode::SyncModeInvalid,
                l,
                format!(
                    "{call}: 'duplicates' must be the literal 'accept' (got '{}')",
                    show(&v)
                ),
                Some("strategy: 'append', duplicates: 'accept'".into()),
            );
        }
    }
    if let Some((v, l)) = kwargs.take("on_delete") {
        match v.as_str() {
            Some(d @ ("delete" | "soft" | "ignore")) if write.mode == "merge" => {
                write.on_delete = Some(d.into())
            }
            Some(d @ ("delete" | "soft" | "ignore")) => out.add(
                PzCode::SyncModeInvalid,
                l,
                format!("{call}: 'on_delete' requires strategy: 'merge'"),
                Some(format!(
                    "strategy: 'merge', keys: ['<column>'], on_delete: '{d}'"
                )),
            ),
            _ => out.add(
                PzCode::SyncModeInvalid,
                l,
                format!(
                    "{call}: 'on_delete' must be one of: delete, soft, ignore (got '{}')",
                    show(&v)
                ),
                Some("strategy: 'merge', keys: ['<column>'], on_delete: 'delete'".into()),
            ),
        }
    }
    if let Some((v, l)) = kwargs.take("retry") {
        sink_retry(&v, l, &call, out);
    }
    if let Some((v, l)) = kwargs.take("schema_policy") {
        sink_schema_policy(&v, l, &call, &mut write, out);
    }
    for (k, v, _) in &kwargs.items {
        write.options.set(k.clone(), v.clone());
    }
    sort_map(&mut write.options);
    (write, declared)
}

/// `schema_policy:`: one of pz's three policies, or PZ0334 with the nearest.
fn sink_schema_policy(
    v: &PzValue,
    l: u32,
    call: &str,
    write: &mut WriteOptions,
    out: &mut CallErrors,
) {
    const POLICIES: [&str; 3] = ["fail_on_change", "additive", "evolve"];
    match v.as_str() {
        Some(p) if POLICIES.contains(&p) => write.schema_policy = p.to_string(),
        other => {
            let near = other
                .and_then(|bad| crate::query::pz_project::load::options::near_miss(&POLICIES, bad));
            let suffix = near
                .map(|n| format!(" -- did you mean '{n}'"))
                .unwrap_or_default();
            out.add(
                PzCode::SyncModeInvalid,
                l,
                format!(
                    "{call}: 'schema_policy' must be one of: fail_on_change, additive, evolve (got '{}'){suffix}",
                    show(v)
                ),
                None,
            );
        }
    }
}

/// `SinkFunction.ParseRetry`: the loader's rules with a call-site hint.
fn sink_retry(value: &PzValue, line: u32, call: &str, out: &mut CallErrors) {
    let hint = || Some("retry: { max_attempts: 8, base_delay: '2s', max_delay: '5m' }".to_string());
    let Some(retry) = value.as_map() else {
        out.add(
            PzCode::RetryConfigInvalid,
            line,
            format!("{call}: 'retry' must be a mapping with max_attempts/base_delay/max_delay"),
            hint(),
        );
        return;
    };
    if let Some(raw) = retry.given("max_attempts") {
        if retry.get_int("max_attempts").is_none_or(|n| n < 1) {
            out.add(
                PzCode::RetryConfigInvalid,
                line,
                format!(
                    "{call}: retry.max_attempts must be an integer >= 1 (got '{}')",
                    show(raw)
                ),
                hint(),
            );
        }
    }
    let mut delay = |key: &str| {
        positive_delay(retry, key, |raw| {
            out.add(
                PzCode::RetryConfigInvalid,
                line,
                format!(
                    "{call}: retry.{key} must be a positive duration like 500ms, 2s, 5m, 1h, or 1d (got '{}')",
                    show(raw)
                ),
                hint(),
            )
        })
    };
    let base = delay("base_delay");
    let max = delay("max_delay");
    if let (Some(b), Some(m)) = (base, max) {
        if m < b {
            out.add(
                PzCode::RetryConfigInvalid,
                line,
                format!("{call}: retry.max_delay must be >= retry.base_delay"),
                hint(),
            );
        }
    }
    let mut unknown: Vec<&str> = retry
        .keys()
        .filter(|k| !matches!(*k, "max_attempts" | "base_delay" | "max_delay"))
        .collect();
    unknown.sort_by(|a, b| compat::dotnet::ordinal_cmp(a, b));
    for key in unknown {
        out.add(
            PzCode::RetryConfigInvalid,
            line,
            format!("{call}: unknown retry key '{key}'"),
            hint(),
        );
    }
}
