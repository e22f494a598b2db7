//! Every fixture project under `fixtures/pz-projects/` answered and compared byte for byte
//! with its committed expectation (`case.json` lists the calls; `expected/` holds the
//! envelopes, derived by hand from pz's rules; see that folder's README). File mtimes come
//! from `case.json` (default: one fixed instant), since a checkout's are arbitrary.

use std::path::{Path, PathBuf};

use crate::ingest::pz_project::walk::read_project_dir;
use crate::ingest::pz_project::{parse_project, ParsedProject};

use crate::query::pz_project::{
    compile_answer, entity_schema, project_overview, run_results, state, Env, Fidelity,
    PreparedProject, PzAnswer,
};

const DEFAULT_MTIME_NS: i64 = 1_700_000_000_000_000_000;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pz-projects")
}

/// The case's project (`project`, default `project/`), with `files` overlaid (relative path
/// -> a file of the case) and `remove` dropped.
fn load_case(dir: &Path, case: &serde_json::Value) -> ParsedProject {
    let project = case
        .get("project")
        .and_then(|p| p.as_str())
        .unwrap_or("project");
    let root = dir.join(project);
    let mut files = read_project_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    if let Some(overlay) = case.get("files").and_then(|f| f.as_object()) {
        for (rel, source) in overlay {
            let path = dir.join(source.as_str().expect("overlay paths are strings"));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            files.insert(rel.clone(), bytes, 0);
        }
    }
    if let Some(remove) = case.get("remove").and_then(|r| r.as_array()) {
        for rel in remove {
            files
                .files
                .remove(rel.as_str().expect("removed paths are strings"));
        }
    }
    let mtimes = case.get("mtimes").and_then(|m| m.as_object());
    for (rel, file) in files.files.iter_mut() {
        file.mtime_ns = mtimes
            .and_then(|m| m.get(rel))
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(DEFAULT_MTIME_NS);
    }
    parse_project(&files)
}

fn call(parsed: &ParsedProject, env: &Env, c: &serde_json::Value) -> PzAnswer {
    let arg = |k: &str| c.get(k).and_then(serde_json::Value::as_str);
    match arg("tool").expect("every call names its tool") {
        "pz_project_overview" => project_overview(parsed, env),
        "pz_compile" => compile_answer(parsed, env),
        "pz_state" => state(parsed, env),
        "pz_entity_schema" => entity_schema(
            parsed,
            env,
            arg("connection").expect("connection"),
            arg("entity").expect("entity"),
        ),
        "pz_run_results" => run_results(parsed, env, arg("run_id")),
        other => panic!("unknown tool {other}"),
    }
}

/// The same call through a [`PreparedProject`] (load once, compile on first need).
fn prepared_call(p: &PreparedProject, c: &serde_json::Value) -> PzAnswer {
    let arg = |k: &str| c.get(k).and_then(serde_json::Value::as_str);
    match arg("tool").expect("every call names its tool") {
        "pz_project_overview" => p.overview().clone(),
        "pz_compile" => p.compile().clone(),
        "pz_state" => p.state().clone(),
        "pz_entity_schema" => p.entity_schema(
            arg("connection").expect("connection"),
            arg("entity").expect("entity"),
        ),
        "pz_run_results" => p.run_results(arg("run_id")),
        other => panic!("unknown tool {other}"),
    }
}

fn fidelity_name(f: &Fidelity) -> &'static str {
    match f {
        Fidelity::Exact => "exact",
        Fidelity::Approximate(_) => "approximate",
        Fidelity::NeedsPz(_) => "needs_pz",
    }
}

#[test]
fn every_fixture_answers_as_expected() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("fixtures/pz-projects must exist")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    let mut calls = 0;
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(dir.join("case.json"))
            .unwrap_or_else(|e| panic!("{name}/case.json: {e}"));
        let case: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}/case.json: {e}"));
        let env: Env = case
            .get("env")
            .and_then(|e| e.as_object())
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let parsed = load_case(dir, &case);
        let prepared = PreparedProject::new(std::sync::Arc::new(parsed.clone()), env.clone());
        let list = case["calls"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: calls[]"));
        assert!(!list.is_empty(), "{name}: no calls");
        for c in list {
            calls += 1;
            let expect = c["expect"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: expect"));
            let want = std::fs::read_to_string(dir.join("expected").join(expect))
                .unwrap_or_else(|e| panic!("{name}/expected/{expect}: {e}"));
            let answer = call(&parsed, &env, c);
            if prepared_call(&prepared, c) != answer {
                failures.push(format!(
                    "{name}/{expect}: the prepared project answers differently"
                ));
            }
            let want_fidelity = c["fidelity"].as_str().unwrap_or("exact");
            let envelope = super::envelope(&answer);
            if envelope != want.trim_end_matches('\n') {
                failures.push(format!(
                    "{name}/{expect}:\n  want {}\n  got  {}",
                    want.trim_end(),
                    envelope
                ));
            }
            if fidelity_name(&answer.fidelity) != want_fidelity {
                failures.push(format!(
                    "{name}/{expect}: fidelity want {want_fidelity}, got {:?}",
                    answer.fidelity
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        dirs.len() >= 15,
        "expected the fixture set, found {} cases",
        dirs.len()
    );
    assert!(calls >= 40, "expected the fixture calls, found {calls}");
}
