//! `printdex pz serve --project DIR` end to end over stdio: every fixture project under
//! `fixtures/pz-projects/` answered byte for byte as its committed expectations say
//! (every read-side tool, every error code, corrupt state, stale and foreign manifests),
//! the tool list with and without `--allow-run`, an edit while serving, and delegation to
//! a fake `pz` (`fixtures/fake-pz/pz`, first on PATH): pz's list, forwarded calls, the
//! edit a forwarded author tool makes, absent tools without pz, and a crashing child.

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::util::{copy_dir, fixtures, relative_files, PzClient};

/// The instant fixture files are dated at unless `case.json` says otherwise.
const DEFAULT_MTIME_NS: u64 = 1_700_000_000_000_000_000;

/// Tools printdex answers itself, in pz's order (pz_run_results only under --allow-run).
const OWN_TOOLS: [&str; 7] = [
    "pz_project_overview",
    "pz_state",
    "pz_entity_schema",
    "pz_compile",
    "pz_docs_list",
    "pz_docs_search",
    "pz_docs_get",
];

fn cases() -> PathBuf {
    fixtures().join("pz-projects")
}

fn fake_pz_dir() -> PathBuf {
    fixtures().join("fake-pz")
}

/// A PATH without any `pz` (python3 for nothing; printdex needs no PATH).
fn path_without_pz() -> String {
    let dir = std::env::temp_dir().join("printdex-no-pz-on-path");
    std::fs::create_dir_all(&dir).expect("empty PATH dir");
    dir.display().to_string()
}

/// PATH with the fake pz first (and python3's directory after it).
fn path_with_fake_pz() -> String {
    format!("{}:/usr/local/bin:/usr/bin:/bin", fake_pz_dir().display())
}

fn set_mtime(path: &Path, ns: u64) {
    let when = UNIX_EPOCH + Duration::from_nanos(ns);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(when))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The case's project laid out in `into` as `case.json` describes it: its project (or
/// another case's), files overlaid and removed, every file dated as the case says.
fn lay_out(case_dir: &Path, case: &Value, into: &Path) {
    let project = case["project"].as_str().unwrap_or("project");
    copy_dir(&case_dir.join(project), into);
    if let Some(overlay) = case["files"].as_object() {
        for (rel, source) in overlay {
            let target = into.join(rel);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(case_dir.join(source.as_str().unwrap()), &target).unwrap();
        }
    }
    if let Some(remove) = case["remove"].as_array() {
        for rel in remove {
            std::fs::remove_file(into.join(rel.as_str().unwrap())).unwrap();
        }
    }
    for rel in relative_files(into) {
        let key = rel.to_string_lossy().replace('\\', "/");
        let ns = case["mtimes"][&key].as_u64().unwrap_or(DEFAULT_MTIME_NS);
        set_mtime(&into.join(&rel), ns);
    }
}

fn case_env(case: &Value, path: &str) -> Vec<(String, String)> {
    let mut env = vec![("PATH".to_string(), path.to_string())];
    env.push(("PZ_BIN".into(), String::new()));
    if let Some(vars) = case["env"].as_object() {
        for (k, v) in vars {
            env.push((k.clone(), v.as_str().unwrap_or_default().to_string()));
        }
    }
    env
}

fn serve(cache: &Path, project: &Path, extra: &[&str], env: &[(String, String)]) -> PzClient {
    let mut args = vec![
        "--project",
        project.to_str().unwrap(),
        "--docs-max-age",
        "never",
    ];
    args.extend_from_slice(extra);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    PzClient::start(cache, &args, &env)
}

fn names(tools: &Value) -> Vec<String> {
    tools["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool_call(c: &mut PzClient, call: &Value) -> (String, bool) {
    let mut args = json!({});
    for key in ["connection", "entity", "run_id"] {
        if let Some(v) = call.get(key) {
            args[key] = v.clone();
        }
    }
    c.call(call["tool"].as_str().unwrap(), args)
}

#[test]
fn every_fixture_project_answers_over_stdio_as_expected() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases())
        .expect("fixtures/pz-projects")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("case.json").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "the fixture set: {} cases", dirs.len());
    let mut failures = Vec::new();
    let mut calls = 0;
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap())
                .unwrap_or_else(|e| panic!("{name}/case.json: {e}"));
        let work = tempfile::tempdir().unwrap();
        let project = work.path().join("project");
        lay_out(dir, &case, &project);
        let cache = work.path().join("cache");
        let mut c = serve(
            &cache,
            &project,
            &["--allow-run"],
            &case_env(&case, &path_without_pz()),
        );
        for call in case["calls"].as_array().unwrap() {
            calls += 1;
            let expect = call["expect"].as_str().unwrap();
            let want = std::fs::read_to_string(dir.join("expected").join(expect)).unwrap();
            let (got, is_error) = tool_call(&mut c, call);
            if is_error || got != want.trim_end_matches('\n') {
                failures.push(format!(
                    "{name}/{expect} (isError {is_error}):\n  want {}\n  got  {got}",
                    want.trim_end()
                ));
            }
        }
        assert!(c.close().success(), "{name}: exit status");
    }
    assert!(calls >= 60, "the fixture calls: {calls}");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A temp copy of the `sample` fixture, dated as its case says.
fn sample_copy(work: &Path) -> PathBuf {
    fixture_copy(work, "sample")
}

/// A temp copy of a fixture case's project, dated as its case says.
fn fixture_copy(work: &Path, name: &str) -> PathBuf {
    let dir = cases().join(name);
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let project = work.join("project");
    lay_out(&dir, &case, &project);
    project
}

fn no_pz_env() -> Vec<(String, String)> {
    vec![
        ("PATH".into(), path_without_pz()),
        ("PZ_BIN".into(), String::new()),
    ]
}

#[test]
fn without_pz_the_list_is_printdexs_and_other_tools_are_absent() {
    let work = tempfile::tempdir().unwrap();
    let project = sample_copy(work.path());
    let cache = work.path().join("cache");
    let mut c = serve(&cache, &project, &[], &no_pz_env());
    let listed = c.request("tools/list", json!({}));
    assert_eq!(names(&listed), OWN_TOOLS);
    let schema = &listed["result"]["tools"][2]["inputSchema"];
    assert_eq!(schema["required"], json!(["connection", "entity"]));
    // Absent, not refusing: an unknown tool at the protocol level.
    for tool in ["pz_validate", "pz_write_pipeline", "pz_run_results"] {
        let r = c.call_raw(tool, json!({}));
        assert_eq!(r["error"]["code"], json!(-32602), "{tool}: {r}");
        assert_eq!(
            r["error"]["message"],
            json!(format!("Unknown tool: '{tool}'"))
        );
    }
    assert!(c.close().success());

    let mut gated = serve(&cache, &project, &["--allow-run"], &no_pz_env());
    let mut want: Vec<&str> = OWN_TOOLS.to_vec();
    want.push("pz_run_results");
    assert_eq!(names(&gated.request("tools/list", json!({}))), want);
    let r = gated.call_raw("pz_run", json!({}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    // Offline, a contract-less entity's schema names what it needs.
    let env = gated.envelope(
        "pz_entity_schema",
        json!({"connection": "crm", "entity": "customers"}),
    );
    assert_eq!(env["ok"], json!(false));
    assert!(
        env["errors"][0]["next_step"]
            .as_str()
            .unwrap()
            .contains("make pz available"),
        "{env}"
    );
    assert!(gated.close().success());
}

#[test]
fn an_edit_while_serving_is_seen_by_the_next_call() {
    let work = tempfile::tempdir().unwrap();
    let project = sample_copy(work.path());
    let cache = work.path().join("cache");
    let mut c = serve(&cache, &project, &["--allow-run"], &no_pz_env());
    let before = c.envelope("pz_project_overview", json!({}));
    let pipelines = |env: &Value| -> Vec<String> {
        env["result"]["pipelines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!pipelines(&before).contains(&"zz_new".to_string()));

    // A new pipeline, then at once the next call: no wait for the watcher.
    std::fs::write(
        project.join("pipelines/zz_new.sql"),
        "select id from {{ ref('stg_orders') }}\n",
    )
    .unwrap();
    let after = c.envelope("pz_project_overview", json!({}));
    assert!(pipelines(&after).contains(&"zz_new".to_string()), "{after}");
    let compiled = c.envelope("pz_compile", json!({}));
    let warnings = compiled["result"]["warnings"].to_string();
    assert!(warnings.contains("zz_new"), "a dead leaf warns: {compiled}");

    // A broken edit is answered as broken, and its repair as repaired.
    std::fs::write(
        project.join("pipelines/zz_new.sql"),
        "select 1 from {{ source('nope', 'x') }}\n",
    )
    .unwrap();
    let broken = c.envelope("pz_compile", json!({}));
    assert_eq!(broken["ok"], json!(false));
    assert_eq!(broken["errors"][0]["code"], json!("PZ0201"), "{broken}");
    std::fs::remove_file(project.join("pipelines/zz_new.sql")).unwrap();
    assert_eq!(c.envelope("pz_compile", json!({}))["ok"], json!(true));

    // State appears, then turns corrupt.
    std::fs::create_dir_all(project.join(".pz/state")).unwrap();
    std::fs::write(
        project.join(".pz/state/watermarks.json"),
        r#"{"version":1,"watermarks":{"crm.orders":{"cursor":"id","type":"bigint","value":"7","runId":"r1"}}}"#,
    )
    .unwrap();
    let state = c.envelope("pz_state", json!({}));
    assert_eq!(
        state["result"]["watermarks"]["entries"][0]["key"],
        json!("crm.orders"),
        "{state}"
    );
    std::fs::write(project.join(".pz/state/watermarks.json"), "{not json").unwrap();
    let state = c.envelope("pz_state", json!({}));
    assert_eq!(
        state["result"]["watermarks"],
        json!({"corrupt": true, "entries": []})
    );

    // A run appears.
    std::fs::create_dir_all(project.join(".pz/runs/20990101T000000000Z-zz")).unwrap();
    std::fs::write(
        project.join(".pz/runs/20990101T000000000Z-zz/run_results.json"),
        r#"{"version":1,"runId":"20990101T000000000Z-zz","status":"success","nodes":[{"id":"a","kind":"Pipeline","name":"p","status":"success","rows":3}]}"#,
    )
    .unwrap();
    let run = c.envelope("pz_run_results", json!({}));
    assert_eq!(
        run["result"]["run_id"],
        json!("20990101T000000000Z-zz"),
        "{run}"
    );
    assert!(c.close().success());
}

#[test]
fn a_restart_answers_from_the_mirror_and_sees_what_moved_meanwhile() {
    let work = tempfile::tempdir().unwrap();
    let project = sample_copy(work.path());
    let cache = work.path().join("cache");
    let mut c = serve(&cache, &project, &[], &no_pz_env());
    let first = c.call("pz_compile", json!({})).0;
    assert!(c.close().success());
    // The mirror sits in printdex's cache, owned by the project (for index list / prune).
    let indexes: Vec<PathBuf> = std::fs::read_dir(cache.join("printdex"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| d.join("mirror.sqlite").is_file())
        .collect();
    assert_eq!(indexes.len(), 1, "{indexes:?}");
    let owner: Value =
        serde_json::from_slice(&std::fs::read(indexes[0].join("project.json")).unwrap()).unwrap();
    assert_eq!(owner["config"], json!(project.join("project.yml")));
    std::fs::write(project.join("pipelines/zz_new.sql"), "select 1\n").unwrap();
    let mut again = serve(&cache, &project, &[], &no_pz_env());
    let second = again.call("pz_compile", json!({})).0;
    assert_ne!(first, second);
    assert!(second.contains("zz_new"), "{second}");
    assert!(again.close().success());
}

/// The fake pz's log: one JSON object per line.
fn log_of(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("log line"))
        .collect()
}

fn calls_of<'a>(log: &'a [Value], tool: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|e| e["method"] == "tools/call" && e["tool"] == tool)
        .collect()
}

fn fake_env(log: &Path, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = vec![
        ("PATH".to_string(), path_with_fake_pz()),
        ("PZ_BIN".into(), String::new()),
        ("FAKE_PZ_LOG".into(), log.display().to_string()),
    ];
    for (k, v) in extra {
        env.push((k.to_string(), v.to_string()));
    }
    env
}

#[test]
fn with_pz_on_path_its_list_is_served_and_what_printdex_cannot_answer_is_forwarded() {
    let work = tempfile::tempdir().unwrap();
    // Every node id of this project is computable offline: its reads are printdex's.
    let project = fixture_copy(work.path(), "passthrough");
    let cache = work.path().join("cache");
    let log = work.path().join("pz.log");
    let mut c = serve(&cache, &project, &["--allow-run"], &fake_env(&log, &[]));
    let listed = c.request("tools/list", json!({}));
    let tools = names(&listed);
    assert_eq!(
        tools.len(),
        22,
        "pz's full list under --allow-run: {tools:?}"
    );
    assert_eq!(tools[0], "pz_project_overview");
    assert!(tools.contains(&"pz_validate".to_string()) && tools.contains(&"pz_run".to_string()));
    assert_eq!(
        listed["result"]["tools"][8]["description"],
        json!("fake pz: pz_validate"),
        "schemas come from pz"
    );
    let started = log_of(&log);
    assert_eq!(
        started[0]["argv"],
        json!(["mcp", "--project", project.to_str().unwrap(), "--allow-run"])
    );

    // Forwarded verbatim.
    let (text, is_error) = c.call("pz_validate", json!({"connect": false}));
    assert!(!is_error);
    let validated: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(validated["result"]["pipelines"], json!(4), "{text}");
    assert_eq!(
        calls_of(&log_of(&log), "pz_validate")[0]["arguments"],
        json!({"connect": false})
    );
    let plan = c.envelope("pz_plan", json!({}));
    assert_eq!(plan["result"]["answered_by"], json!("fake pz"));
    // pz's own argument refusal is passed on as the JSON-RPC error it is.
    let r = c.call_raw("pz_plan", json!({"bogus": 1}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("bogus"));

    // Exact answers stay printdex's; a contract-less entity is pz's live probe.
    let state = c.envelope("pz_state", json!({}));
    assert_eq!(state["ok"], json!(true));
    let compiled = c.envelope("pz_compile", json!({}));
    assert_eq!(compiled["ok"], json!(true), "{compiled}");
    let fetched = c.envelope(
        "pz_entity_schema",
        json!({"connection": "raw", "entity": "customers"}),
    );
    assert_eq!(fetched["result"]["source"], json!("fetched"), "{fetched}");
    let log_now = log_of(&log);
    assert!(calls_of(&log_now, "pz_state").is_empty());
    assert!(calls_of(&log_now, "pz_compile").is_empty());
    assert_eq!(calls_of(&log_now, "pz_entity_schema").len(), 1);

    // An author tool's edit is seen by the next read.
    let wrote = c.envelope(
        "pz_write_pipeline",
        json!({"name": "zz_from_pz", "sql": "select 1"}),
    );
    assert_eq!(wrote["applied"], json!(true));
    let overview = c.envelope("pz_project_overview", json!({}));
    assert!(overview.to_string().contains("zz_from_pz"), "{overview}");
    assert!(calls_of(&log_of(&log), "pz_project_overview").is_empty());
    let starts = log_of(&log)
        .iter()
        .filter(|e| e.get("argv").is_some())
        .count();
    assert_eq!(starts, 1, "one pz child for the session");
    assert!(c.close().success());
}

#[test]
fn an_answer_printdex_can_only_approximate_is_pzs_when_pz_is_there() {
    let work = tempfile::tempdir().unwrap();
    // The sample's two read-hint ids come from its manifest; an edit makes it stale.
    let project = sample_copy(work.path());
    let cache = work.path().join("cache");
    let log = work.path().join("pz.log");
    let mut c = serve(&cache, &project, &[], &fake_env(&log, &[]));
    assert!(c.envelope("pz_compile", json!({}))["result"]["nodes"].is_array());
    assert!(
        calls_of(&log_of(&log), "pz_compile").is_empty(),
        "exact: printdex's"
    );
    std::fs::write(project.join("pipelines/zz.sql"), "select 1\n").unwrap();
    let compiled = c.envelope("pz_compile", json!({}));
    assert_eq!(
        compiled["result"]["answered_by"],
        json!("fake pz"),
        "{compiled}"
    );
    assert_eq!(calls_of(&log_of(&log), "pz_compile").len(), 1);
    assert!(c.close().success());
}

#[test]
fn pz_bin_names_pz_when_it_is_not_on_path() {
    let work = tempfile::tempdir().unwrap();
    let project = sample_copy(work.path());
    let cache = work.path().join("cache");
    let log = work.path().join("pz.log");
    let mut env = fake_env(&log, &[]);
    env[0].1 = "/usr/local/bin:/usr/bin:/bin".into();
    env[1].1 = fake_pz_dir().join("pz").display().to_string();
    let mut c = serve(&cache, &project, &[], &env);
    let tools = names(&c.request("tools/list", json!({})));
    assert_eq!(tools.len(), 19, "pz's list without --allow-run: {tools:?}");
    assert!(!tools.contains(&"pz_run_results".to_string()));
    assert_eq!(c.envelope("pz_plan", json!({}))["ok"], json!(true));
    assert!(c.close().success());
}

#[test]
fn a_crashing_pz_is_restarted_once_and_its_failure_is_an_error_envelope() {
    let work = tempfile::tempdir().unwrap();
    let project = sample_copy(work.path());
    let cache = work.path().join("cache");

    // Dies on the first call: restarted, and the (read-only) call asked again.
    let log = work.path().join("once.log");
    let marker = work.path().join("crashed-once");
    let env = fake_env(&log, &[("FAKE_PZ_CRASH_ONCE", marker.to_str().unwrap())]);
    let mut c = serve(&cache, &project, &[], &env);
    let validated = c.envelope("pz_validate", json!({}));
    assert_eq!(validated["ok"], json!(true), "{validated}");
    let log_now = log_of(&log);
    assert_eq!(calls_of(&log_now, "pz_validate").len(), 2);
    let pids: std::collections::HashSet<i64> =
        log_now.iter().filter_map(|e| e["pid"].as_i64()).collect();
    assert_eq!(pids.len(), 2, "a second pz process");
    assert!(c.close().success());

    // Dies on every call of one tool: an error envelope, and the next call still works.
    let log = work.path().join("always.log");
    let env = fake_env(&log, &[("FAKE_PZ_CRASH", "pz_plan")]);
    let mut c = serve(&cache, &project, &[], &env);
    let (text, is_error) = c.call("pz_plan", json!({}));
    assert!(is_error, "{text}");
    let failed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(failed["ok"], json!(false));
    assert_eq!(failed["errors"][0]["code"], json!("PZ0609"));
    assert!(
        failed["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("PzChildError"),
        "{text}"
    );
    assert_eq!(
        calls_of(&log_of(&log), "pz_plan").len(),
        2,
        "asked twice at most"
    );
    assert_eq!(c.envelope("pz_validate", json!({}))["ok"], json!(true));
    assert!(c.close().success());

    // A write is never sent twice, even when pz dies answering it.
    let log = work.path().join("write.log");
    let env = fake_env(&log, &[("FAKE_PZ_CRASH", "pz_write_pipeline")]);
    let mut c = serve(&cache, &project, &[], &env);
    let (text, is_error) = c.call("pz_write_pipeline", json!({"name": "x", "sql": "select 1"}));
    assert!(is_error, "{text}");
    assert_eq!(calls_of(&log_of(&log), "pz_write_pipeline").len(), 1);
    assert!(c.close().success());
}
