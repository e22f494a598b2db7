//! The read side of `pz mcp` on a generated 500-pipeline project. Issue 13's targets:
//! pz_project_overview and pz_compile <= 2 ms per call, pz_state <= 1 ms.
//!
//!   cargo bench --bench pz_project
//!
//! `serve_*` is a call as `printdex pz serve` answers it: the store's freshness check (the
//! change feed, nothing moved), the prepared project from the cache, the envelope written.
//! `per_call_*` is the same answer computed from the parsed files on every call (load,
//! compile, envelope: what pz itself does per call). `refresh_after_edit` is what one
//! edited pipeline costs the store (scan, re-read, parse, load, compile, warm), paid off
//! the request path by the watcher; `ingest_parse` a cold read and parse.
//!
//! The project (in a temp dir): 10 source connections, 250 staging pipelines (half read a
//! YAML entity with a contract, half declare theirs at the call site), 125 marts joining
//! two of them into a sink with checks, 125 reports over the marts; .pz/state with 200
//! watermarks, 50 sync tokens, 100 schema baselines; 20 runs of 500 nodes.

use std::fmt::Write as _;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use printdex::ingest::pz_project::walk::read_project_dir;
use printdex::ingest::pz_project::{parse_project, ParsedProject};
use printdex::query::pz_project::{self, compile_answer, project_overview, state, Env, Fidelity};
use printdex::render::pz_project::envelope;
use printdex::store::{Project, ProjectReads, Store};

const STAGING: usize = 250;
const MARTS: usize = 125;
const REPORTS: usize = 125;
const SOURCES: usize = 10;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn generate(root: &Path) {
    write(
        root,
        "project.yml",
        "name: bench\nversion: \"1.0.0\"\nvars:\n  min_amount: 10\nengine:\n  threads: 4\n",
    );
    let mut conns = String::new();
    for s in 0..SOURCES {
        let _ = writeln!(
            conns,
            "src{s}:\n  connector: localfiles\n  root: data/src{s}\n  entities:"
        );
        for i in (s..STAGING).step_by(SOURCES).filter(|i| i % 2 == 0) {
            let _ = writeln!(
                conns,
                "    e{i}:\n      read:\n        path: e{i}.csv\n        format: csv\n        columns:\n          id: bigint\n          amount: double\n          note: varchar"
            );
        }
    }
    conns.push_str("lake:\n  connector: localfiles\n  root: out\n");
    write(root, "connections.yml", &conns);
    for i in 0..STAGING {
        let s = i % SOURCES;
        let call = if i % 2 == 0 {
            format!("{{{{ source('src{s}', 'e{i}') }}}}")
        } else {
            format!("{{{{ source('src{s}', 'e{i}', path: 'e{i}.csv', format: 'csv', columns: {{ id: 'bigint', amount: 'double' }}) }}}}")
        };
        write(
            root,
            &format!("pipelines/staging/stg_{i}.sql"),
            &format!("select * from {call}\n"),
        );
    }
    for j in 0..MARTS {
        let (a, b) = (2 * j, 2 * j + 1);
        let sql = format!(
            "-- mart {j}\nINSERT INTO {{{{ sink('lake', 'mart_{j}', format: 'parquet', strategy: 'replace') }}}}\nselect a.*, b.id as b_id\nfrom {{{{ ref('stg_{a}') }}}} a\njoin {{{{ ref('stg_{b}') }}}} b on a.id = b.id\nwhere a.amount > {{{{ var('min_amount') }}}}\n"
        );
        write(root, &format!("pipelines/marts/mart_{j}.sql"), &sql);
        if j % 5 != 0 {
            write(
                root,
                &format!("pipelines/configs/mart_{j}.yml"),
                &format!("pipeline: mart_{j}\ntags: [mart]\nchecks:\n  - not_null: [id]\n  - unique: [id]\n"),
            );
        }
    }
    for k in 0..REPORTS {
        let sql = format!(
            "INSERT INTO {{{{ sink('lake', 'report_{k}', format: 'csv') }}}}\nselect count(*) as n from {{{{ ref('mart_{}') }}}}\n",
            k % MARTS
        );
        write(root, &format!("pipelines/reports/report_{k}.sql"), &sql);
    }
    let entries =
        |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(",\n");
    write(
        root,
        ".pz/state/watermarks.json",
        &format!(
            "{{\n  \"version\": 1,\n  \"watermarks\": {{\n{}\n  }}\n}}\n",
            entries(200, &|i| {
                format!(
                "    \"src{}.e{i}\": {{\"cursor\": \"updated_at\", \"type\": \"timestamp\", \"value\": \"2026-07-04 10:00:00\", \"runId\": \"r{i}\"}}",
                i % SOURCES
            )
            })
        ),
    );
    write(
        root,
        ".pz/state/sync-state.json",
        &format!(
            "{{\"version\":1,\"syncState\":{{{}}}}}\n",
            entries(50, &|i| format!(
                "\"api.e{i}\":{{\"token\":\"t{i}\",\"runId\":\"r{i}\"}}"
            ))
        ),
    );
    let columns = (0..10)
        .map(|c| format!("{{\"name\":\"c{c}\",\"type\":\"VARCHAR\"}}"))
        .collect::<Vec<_>>()
        .join(",");
    write(
        root,
        ".pz/state/schemas.json",
        &format!(
            "{{\"version\":1,\"schemas\":{{{}}}}}\n",
            entries(100, &|i| {
                format!(
                "\"src0.e{i}\":{{\"columns\":[{columns}],\"hintsHash\":\"h{i}\",\"runId\":\"r{i}\"}}"
            )
            })
        ),
    );
    for r in 0..20 {
        let nodes = (0..500)
            .map(|n| {
                let status = if n % 50 == 7 { "failed" } else { "success" };
                format!("{{\"id\":\"{n:016x}\",\"kind\":\"Pipeline\",\"name\":\"p{n}\",\"status\":\"{status}\",\"rows\":{n},\"durationMs\":1,\"error\":null}}")
            })
            .collect::<Vec<_>>()
            .join(",");
        write(
            root,
            &format!(".pz/runs/20260101T{r:02}0000000Z-bench/run_results.json"),
            &format!(
                "{{\"version\":1,\"runId\":\"r{r}\",\"status\":\"success\",\"nodes\":[{nodes}]}}"
            ),
        );
    }
}

fn parsed(root: &Path) -> ParsedProject {
    parse_project(&read_project_dir(root).expect("readable project"))
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    generate(dir.path());
    let project = parsed(dir.path());
    let env = Env::new();
    let overview = project_overview(&project, &env);
    assert!(
        !matches!(overview.fidelity, Fidelity::NeedsPz(_)),
        "the generated project compiles offline: {:?}",
        overview.fidelity
    );
    let text = envelope(&overview);
    assert!(
        text.starts_with(r#"{"ok":true,"result""#),
        "{}",
        &text[..200]
    );
    let mut group = c.benchmark_group("pz_project");
    group.bench_function("ingest_parse", |b| b.iter(|| parsed(dir.path())));

    let index = tempfile::tempdir().expect("index dir");
    let store = Store::open_project(dir.path(), index.path()).expect("store");
    let started = std::time::Instant::now();
    while !store.watching() {
        assert!(
            started.elapsed().as_secs() < 30,
            "the change feed never came up"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let serve = |answer: &dyn Fn(&pz_project::PreparedProject) -> String| {
        let snapshot = store
            .fresh(Project, ProjectReads::EveryFile)
            .expect("snapshot");
        answer(&pz_project::prepared(store.cache(), &snapshot, &env))
    };
    assert_eq!(serve(&|p| envelope(p.overview())), text);
    group.bench_function("serve_overview", |b| {
        b.iter(|| serve(&|p| envelope(p.overview())))
    });
    group.bench_function("serve_compile", |b| {
        b.iter(|| serve(&|p| envelope(p.compile())))
    });
    group.bench_function("serve_state", |b| {
        b.iter(|| serve(&|p| envelope(p.state())))
    });

    // What pz does on every call: load, compile, envelope.
    group.bench_function("per_call_overview", |b| {
        b.iter(|| envelope(&project_overview(&project, &env)))
    });
    group.bench_function("per_call_compile", |b| {
        b.iter(|| envelope(&compile_answer(&project, &env)))
    });
    group.bench_function("per_call_state", |b| {
        b.iter(|| envelope(&state(&project, &env)))
    });

    // One pipeline edited, and the store brought up to date with its answers warmed.
    let edited = dir.path().join("pipelines/reports/report_0.sql");
    let original = std::fs::read_to_string(&edited).expect("report_0");
    let mut edits = 0u64;
    group.bench_function("refresh_after_edit", |b| {
        b.iter(|| {
            // New content every time: no version is answered from the cache.
            edits += 1;
            std::fs::write(&edited, format!("-- edit {edits}\n{original}")).expect("edit");
            let snapshot = store.refresh_project().expect("refresh");
            pz_project::prepared(store.cache(), &snapshot, &env).warm();
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
