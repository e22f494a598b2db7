//! The option-block readers pz shares between its YAML surfaces and the `source()`/`sink()`
//! call sites (`ProjectLoader.ParseSyncMode`/`ParseRetry`/`ParseRateLimit`/
//! `ParseMaxConcurrency`, `WriteOptionsLoader`, `DurationParser`), with their exact texts.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::query::pz_project::model::{file_error, SyncMode, WriteOptions};

/// `DurationParser.TryParse`: `<digits><ms|s|m|h|d>`, as milliseconds.
pub fn parse_duration_ms(text: &str) -> Option<i128> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    if digits.is_empty() {
        return None;
    }
    let n: i128 = digits.parse().ok()?;
    if n > i64::MAX as i128 {
        return None;
    }
    let ms = match unit {
        "ms" => n,
        "s" => n * 1_000,
        "m" => n * 60_000,
        "h" => n * 3_600_000,
        "d" => n * 86_400_000,
        _ => return None,
    };
    // TimeSpan.MaxValue is about 10.6 million days.
    (ms <= 922_337_203_685_477).then_some(ms)
}

const SYNC_HINT: &str = "sync:\n  mode: incremental\n  cursor: <column>";

/// `ProjectLoader.ParseSyncMode`.
pub fn parse_sync_mode(
    block: &PzMap,
    dataset: &str,
    rel: &str,
    errors: &mut Vec<PzError>,
) -> Option<SyncMode> {
    let value = block.get("sync")?;
    if matches!(value, PzValue::Null) {
        return None;
    }
    let Some(sync) = value.as_map() else {
        errors.push(file_error(
            PzCode::SyncModeInvalid,
            format!("{rel}: dataset '{dataset}' field 'sync' must be a mapping with a 'mode' key."),
            rel,
            SYNC_HINT,
        ));
        return None;
    };
    match sync.get_string("mode").as_deref() {
        Some("incremental") => {
            let Some(cursor) = sync.get_string("cursor").filter(|c| !c.is_empty()) else {
                errors.push(file_error(
                    PzCode::SyncModeInvalid,
                    format!(
                        "{rel}: dataset '{dataset}': sync mode 'incremental' requires 'cursor'."
                    ),
                    rel,
                    SYNC_HINT,
                ));
                return None;
            };
            refuse_sync_keys(
                sync,
                &["mode", "cursor", "max_window", "initial", "until"],
                dataset,
                rel,
                errors,
            );
            let mut scalar = |key: &str| incremental_scalar(sync, key, dataset, rel, errors);
            let max_window = scalar("max_window");
            let initial = scalar("initial");
            let until = scalar("until");
            Some(SyncMode::Incremental {
                cursor,
                max_window,
                initial,
                until,
            })
        }
        Some("cdc") => {
            refuse_sync_keys(sync, &["mode", "slot"], dataset, rel, errors);
            if let Some(PzValue::List(_) | PzValue::Map(_)) = sync.get("slot") {
                errors.push(file_error(
                    PzCode::SyncModeInvalid,
                    format!("{rel}: dataset '{dataset}' field 'sync.slot' must be a scalar value."),
                    rel,
                    "sync:\n  mode: cdc\n  slot: <name>",
                ));
            }
            Some(SyncMode::Cdc)
        }
        Some("auto") => {
            refuse_sync_keys(sync, &["mode"], dataset, rel, errors);
            Some(SyncMode::Auto)
        }
        None => {
            errors.push(file_error(
                PzCode::SyncModeInvalid,
                format!(
                    "{rel}: dataset '{dataset}': 'sync' is missing required field 'mode' (a bare marker sync block is retired \u{2014} connector-managed feeds need no sync block at all: delete it)."
                ),
                rel,
                SYNC_HINT,
            ));
            None
        }
        Some(other) => {
            errors.push(file_error(
                PzCode::SyncModeInvalid,
                format!("{rel}: dataset '{dataset}': unknown sync mode '{other}' (accepted: incremental, cdc, auto)."),
                rel,
                SYNC_HINT,
            ));
            None
        }
    }
}

fn refuse_sync_keys(
    sync: &PzMap,
    allowed: &[&str],
    dataset: &str,
    rel: &str,
    errors: &mut Vec<PzError>,
) {
    let mut stray: Vec<&str> = sync.keys().filter(|k| !allowed.contains(k)).collect();
    stray.sort_by(|a, b| compat::dotnet::ordinal_cmp(a, b));
    for key in stray {
        let detail = if allowed.len() == 1 {
            "mode 'auto' accepts no other keys".to_string()
        } else {
            format!("unknown 'sync' key '{key}'")
        };
        errors.push(file_error(
            PzCode::SyncModeInvalid,
            format!("{rel}: dataset '{dataset}': {detail}."),
            rel,
            SYNC_HINT,
        ));
    }
}

fn incremental_scalar(
    sync: &PzMap,
    key: &str,
    dataset: &str,
    rel: &str,
    errors: &mut Vec<PzError>,
) -> Option<String> {
    match sync.get(key)? {
        PzValue::Null => None,
        PzValue::List(_) | PzValue::Map(_) => {
            errors.push(file_error(
                PzCode::SyncModeInvalid,
                format!("{rel}: dataset '{dataset}' field 'sync.{key}' must be a scalar value."),
                rel,
                format!("sync:\n  mode: incremental\n  cursor: <column>\n  {key}: <value>"),
            ));
            None
        }
        // Convert.ToString(value, InvariantCulture): a bool reads "True".
        v => v.to_dotnet_string(),
    }
}

/// `ProjectLoader.ParseRetry`: validity only (the policy itself is an engine concern).
pub fn parse_retry(block: &PzMap, rel: &str, errors: &mut Vec<PzError>, context: &str) {
    let Some(value) = block.get("retry") else {
        return;
    };
    if matches!(value, PzValue::Null) {
        return;
    }
    const HINT: &str = "retry:\n  max_attempts: 8\n  base_delay: 2s\n  max_delay: 5m";
    let Some(retry) = value.as_map() else {
        errors.push(file_error(
            PzCode::RetryConfigInvalid,
            format!(
                "{rel}: {context}'retry' must be a mapping with max_attempts/base_delay/max_delay."
            ),
            rel,
            HINT,
        ));
        return;
    };
    if let Some(raw) = retry.given("max_attempts") {
        if retry.get_int("max_attempts").is_none_or(|n| n < 1) {
            errors.push(file_error(
                PzCode::RetryConfigInvalid,
                format!(
                    "{rel}: {context}retry.max_attempts must be an integer >= 1 (got '{}').",
                    raw.interpolated()
                ),
                rel,
                HINT,
            ));
        }
    }
    let mut delay = |key: &str| {
        positive_delay(retry, key, |raw| {
            errors.push(file_error(
                PzCode::RetryConfigInvalid,
                format!(
                    "{rel}: {context}retry.{key} must be a positive duration like 500ms, 2s, 5m, 1h, or 1d (got '{}').",
                    raw.interpolated()
                ),
                rel,
                HINT,
            ))
        })
    };
    let base = delay("base_delay");
    let max = delay("max_delay");
    if let (Some(b), Some(m)) = (base, max) {
        if m < b {
            errors.push(file_error(
                PzCode::RetryConfigInvalid,
                format!("{rel}: {context}retry.max_delay must be >= retry.base_delay."),
                rel,
                HINT,
            ));
        }
    }
}

/// A retry delay: absent or null is none; anything but a positive duration is reported.
pub fn positive_delay(block: &PzMap, key: &str, report: impl FnOnce(&PzValue)) -> Option<i128> {
    let raw = block.given(key)?;
    let parsed = raw
        .to_dotnet_string()
        .and_then(|t| parse_duration_ms(&t))
        .filter(|ms| *ms > 0);
    if parsed.is_none() {
        report(raw);
    }
    parsed
}

/// `ProjectLoader.ParseRateLimit`.
pub fn parse_rate_limit(block: &PzMap, rel: &str, errors: &mut Vec<PzError>) {
    const CODE: PzCode = PzCode::RateLimitConfigInvalid;
    const HINT: &str = "rate_limit:\n  requests_per_minute: 60\n  burst: 10";
    let Some(value) = block.given("rate_limit") else {
        return;
    };
    let Some(limit) = value.as_map() else {
        errors.push(file_error(
            CODE,
            format!("{rel}: 'rate_limit' must be a mapping with requests_per_minute (and optional burst)."),
            rel,
            HINT,
        ));
        return;
    };
    let in_range = |key: &str| {
        limit
            .get_int(key)
            .is_some_and(|n| (1..=1_000_000).contains(&n))
    };
    match limit.given("requests_per_minute") {
        Some(raw) if !in_range("requests_per_minute") => errors.push(file_error(
            CODE,
            format!(
                "{rel}: rate_limit.requests_per_minute must be an integer in 1..1000000 (got '{}').",
                raw.interpolated()
            ),
            rel,
            HINT,
        )),
        Some(_) => {}
        None => errors.push(file_error(
            CODE,
            format!("{rel}: rate_limit.requests_per_minute is required."),
            rel,
            HINT,
        )),
    }
    if let Some(raw) = limit.given("burst") {
        if !in_range("burst") {
            errors.push(file_error(
                CODE,
                format!(
                    "{rel}: rate_limit.burst must be an integer in 1..1000000 (got '{}').",
                    raw.interpolated()
                ),
                rel,
                HINT,
            ));
        }
    }
}

/// `ProjectLoader.ParseMaxConcurrency`.
pub fn parse_max_concurrency(block: &PzMap, rel: &str, errors: &mut Vec<PzError>) {
    let Some(raw) = block.given("max_concurrency") else {
        return;
    };
    if block.get_int("max_concurrency").is_none_or(|n| n < 1) {
        errors.push(file_error(
            PzCode::ConcurrencyConfigInvalid,
            format!(
                "{rel}: 'max_concurrency' must be an integer >= 1 (got '{}').",
                raw.interpolated()
            ),
            rel,
            "max_concurrency: 2",
        ));
    }
}

/// `ProjectLoader.ParseAllowUnsignedExtensions`.
pub fn parse_allow_unsigned(block: &PzMap, rel: &str, connection: &str, errors: &mut Vec<PzError>) {
    let Some(raw) = block
        .get("allow_unsigned_extensions")
        .filter(|v| !v.is_blank())
    else {
        return;
    };
    if !matches!(raw, PzValue::Bool(_)) {
        errors.push(file_error(
            PzCode::YamlShape,
            format!(
                "{rel}: connection '{connection}' allow_unsigned_extensions must be true or false (got '{}').",
                raw.interpolated()
            ),
            rel,
            "allow_unsigned_extensions: true",
        ));
    }
}

/// `WriteOptionsLoader.Parse`: an `entities: <e>: write:` block; `None` when malformed.
pub fn parse_yaml_write(
    value: &PzValue,
    where_: &str,
    errors: &mut Vec<PzError>,
) -> Option<WriteOptions> {
    const FILE: &str = "connections.yml";
    if value.is_blank() {
        return Some(WriteOptions::default_append());
    }
    let Some(write) = value.as_map() else {
        errors.push(file_error(
            PzCode::YamlShape,
            format!("{FILE}: {where_}: 'write' must be a mapping of options, or empty."),
            FILE,
            "write:\n      strategy: merge\n      keys: [id]",
        ));
        return None;
    };
    let mut valid = true;
    let mut error = |code: PzCode, message: String, hint: String| {
        errors.push(file_error(
            code,
            format!("{FILE}: {where_} write: {message}."),
            FILE,
            hint,
        ));
    };
    let present = |key: &str| write.given(key);
    let mut mode = "append".to_string();
    if let Some(v) = present("strategy") {
        match v.as_str() {
            Some(s @ ("replace" | "append" | "merge")) => mode = s.to_string(),
            _ => {
                error(
                    PzCode::SyncModeInvalid,
                    format!(
                        "'strategy' must be one of: replace, append, merge (got '{}')",
                        v.interpolated()
                    ),
                    "strategy: merge".into(),
                );
                valid = false;
            }
        }
    }
    let mut keys = Vec::new();
    if let Some(v) = present("keys") {
        match v {
            PzValue::List(items) if items.iter().all(|i| matches!(i, PzValue::Str(_))) => {
                keys = items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect();
            }
            _ => {
                error(
                    PzCode::YamlShape,
                    "'keys' must be a list of strings".into(),
                    "keys: [id]".into(),
                );
                valid = false;
            }
        }
    }
    let mut accept_duplicates = false;
    if let Some(v) = present("duplicates") {
        if v.as_str() == Some("accept") {
            accept_duplicates = true;
        } else {
            error(
                PzCode::SyncModeInvalid,
                format!(
                    "'duplicates' must be the literal 'accept' (got '{}')",
                    v.interpolated()
                ),
                "strategy: append\n      duplicates: accept".into(),
            );
            valid = false;
        }
    }
    let mut on_delete = None;
    if let Some(v) = present("on_delete") {
        match yaml_on_delete(v, &mode) {
            Ok(s) => on_delete = Some(s),
            Err((message, hint)) => {
                error(PzCode::SyncModeInvalid, message, hint);
                valid = false;
            }
        }
    }
    let mut schema_policy = "fail_on_change".to_string();
    if let Some(v) = present("schema_policy") {
        match yaml_schema_policy(v) {
            Ok(p) => schema_policy = p,
            Err((message, hint)) => {
                error(PzCode::SyncModeInvalid, message, hint);
                valid = false;
            }
        }
    }
    parse_retry(write, FILE, errors, &format!("{where_} write "));
    let mut options = PzMap::new();
    options.exact = write.exact;
    for (k, v) in &write.entries {
        if !matches!(
            k.as_str(),
            "strategy" | "keys" | "duplicates" | "on_delete" | "schema_policy" | "retry"
        ) {
            options.set(k.clone(), v.clone());
        }
    }
    sort_map(&mut options);
    valid.then_some(WriteOptions {
        mode,
        keys,
        schema_policy,
        accept_duplicates,
        on_delete,
        options,
    })
}

/// A write block's `on_delete:` (merge only), or PZ0334's message and hint.
fn yaml_on_delete(v: &PzValue, mode: &str) -> Result<String, (String, String)> {
    match v.as_str() {
        Some(s @ ("delete" | "soft" | "ignore")) if mode == "merge" => Ok(s.to_string()),
        Some(s @ ("delete" | "soft" | "ignore")) => Err((
            "'on_delete' requires strategy: merge".into(),
            format!("strategy: merge\n      keys: [id]\n      on_delete: {s}"),
        )),
        _ => Err((
            format!(
                "'on_delete' must be one of: delete, soft, ignore (got '{}')",
                v.interpolated()
            ),
            "strategy: merge\n      keys: [id]\n      on_delete: delete".into(),
        )),
    }
}

/// A write block's `schema_policy:`, or PZ0334's message (with the nearest policy) and hint.
fn yaml_schema_policy(v: &PzValue) -> Result<String, (String, String)> {
    const POLICIES: [&str; 3] = ["fail_on_change", "additive", "evolve"];
    match v.as_str() {
        Some(p) if POLICIES.contains(&p) => Ok(p.to_string()),
        other => {
            let near = other.and_then(|bad| near_miss(&POLICIES, bad));
            let suffix = near
                .map(|n| format!(" -- did you mean '{n}'"))
                .unwrap_or_default();
            Err((
                format!(
                    "'schema_policy' must be one of: fail_on_change, additive, evolve (got '{}'){suffix}",
                    v.interpolated()
                ),
                "schema_policy: fail_on_change".into(),
            ))
        }
    }
}

/// Orders a mapping's keys ordinally, as pz's `OrderBy(k, Ordinal).ToDictionary` does.
pub fn sort_map(map: &mut PzMap) {
    map.entries
        .sort_by(|a, b| compat::dotnet::ordinal_cmp(&a.0, &b.0));
}

/// `ScriptKwargs.NearMiss`: the known name one edit (or a case difference) away.
pub fn near_miss<'a>(known: &[&'a str], option: &str) -> Option<&'a str> {
    known
        .iter()
        .copied()
        .find(|k| option != *k && (option.eq_ignore_ascii_case(k) || within_one_edit(option, k)))
}

fn within_one_edit(a: &str, b: &str) -> bool {
    if a.len().abs_diff(b.len()) > 1 && a.is_ascii() && b.is_ascii() {
        return false;
    }
    let a: Vec<u16> = a.encode_utf16().collect();
    let b: Vec<u16> = b.encode_utf16().collect();
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (mut i, mut j, mut edits) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        edits += 1;
        if edits > 1 {
            return false;
        }
        match a.len().cmp(&b.len()) {
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    edits + (a.len() - i) + (b.len() - j) <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_near_misses() {
        assert_eq!(parse_duration_ms("2s"), Some(2000));
        assert_eq!(parse_duration_ms("24h"), Some(86_400_000));
        assert_eq!(parse_duration_ms("5m2s"), None);
        assert_eq!(parse_duration_ms("1.5s"), None);
        assert_eq!(parse_duration_ms("s"), None);
        assert_eq!(
            near_miss(&["strategy", "keys"], "strategyy"),
            Some("strategy")
        );
        assert_eq!(near_miss(&["strategy", "keys"], "Keys"), Some("keys"));
        assert_eq!(near_miss(&["strategy", "keys"], "format"), None);
        assert_eq!(near_miss(&["keys"], "keys"), None);
    }
}
