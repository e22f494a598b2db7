//! The watcher keeps the mirror in step with the disk without any request arriving.

use std::sync::Arc;
use std::time::{Duration, Instant};

use printdex::config::{self, Served};
use printdex::query::Engine;

fn project(dir: &std::path::Path) {
    std::fs::write(
        dir.join(".dbprint.yaml"),
        "connections:\n  c:\n    adapter: duckdb\n",
    )
    .unwrap();
    let table = dir.join("prints/c/db/t");
    std::fs::create_dir_all(&table).unwrap();
    std::fs::write(
        dir.join("prints/c/manifest.yaml"),
        "format_version: 1\ntables:\n  db.t:\n    type: table\n    path: db/t\n    artifacts:\n      statistics: statistics.yaml\n",
    )
    .unwrap();
    std::fs::write(table.join("statistics.yaml"), "row_count: 1\n").unwrap();
}

fn stored_hash(engine: &Engine, suffix: &str) -> Option<String> {
    engine
        .mirror()
        .files("c")
        .unwrap()
        .into_iter()
        .find(|f| f.path.ends_with(suffix))
        .and_then(|f| f.hash)
}

#[test]
fn an_edited_artifact_is_reingested_without_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    project(dir.path());
    let project = config::load_at(&dir.path().to_string_lossy()).unwrap();
    let engine =
        Arc::new(Engine::open(Served::resolve(&project, None).unwrap(), index.path()).unwrap());
    let before = stored_hash(&engine, "db/t/statistics.yaml").expect("ingested");
    let _watcher = printdex::watch::spawn(engine.clone());
    std::thread::sleep(Duration::from_millis(300));
    // An atomic write, as generate and editors do it: a temp name renamed over the file.
    let stats = dir.path().join("prints/c/db/t/statistics.yaml");
    let tmp = dir.path().join("prints/c/db/t/.statistics.yaml.tmp42");
    std::fs::write(&tmp, "row_count: 2\n").unwrap();
    std::fs::rename(&tmp, &stats).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = stored_hash(&engine, "db/t/statistics.yaml");
        if now.as_deref() != Some(before.as_str()) {
            assert_eq!(
                now,
                Some(blake3::hash(b"row_count: 2\n").to_hex().to_string())
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the watcher did not re-ingest within 10 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The temporary name never became a mirror row.
    assert!(stored_hash(&engine, ".statistics.yaml.tmp42").is_none());
}
