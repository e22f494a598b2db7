//! The watcher keeps the mirror in step with the disk without any request arriving.

use std::sync::Arc;
use std::time::{Duration, Instant};

use printdex::config::{self, Served};
use printdex::store::{Connection, Reads, Store};

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

fn stored_hash(store: &Store, suffix: &str) -> Option<String> {
    store
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
    let store =
        Arc::new(Store::open(Served::resolve(&project, None).unwrap(), index.path()).unwrap());
    let before = stored_hash(&store, "db/t/statistics.yaml").expect("ingested");
    let _watcher = printdex::store::watch::spawn(store.clone());
    std::thread::sleep(Duration::from_millis(300));
    // An atomic write, as generate and editors do it: a temp name renamed over the file.
    let stats = dir.path().join("prints/c/db/t/statistics.yaml");
    let tmp = dir.path().join("prints/c/db/t/.statistics.yaml.tmp42");
    std::fs::write(&tmp, "row_count: 2\n").unwrap();
    std::fs::rename(&tmp, &stats).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = stored_hash(&store, "db/t/statistics.yaml");
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
    assert!(stored_hash(&store, ".statistics.yaml.tmp42").is_none());
}

#[test]
fn refreshing_one_file_updates_the_state_the_mirror_and_the_search_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    project(dir.path());
    let stats = dir.path().join("prints/c/db/t/statistics.yaml");
    std::fs::write(
        &stats,
        "row_count: 1\ncolumns:\n  alpha:\n    sql_type: INTEGER\n",
    )
    .unwrap();
    let project = config::load_at(&dir.path().to_string_lossy()).unwrap();
    let store = Store::open(Served::resolve(&project, None).unwrap(), index.path()).unwrap();
    let before = store.fresh(Connection(None), Reads::Manifest).unwrap();
    std::fs::write(
        &stats,
        "row_count: 2\ncolumns:\n  omega:\n    sql_type: INTEGER\n",
    )
    .unwrap();
    // Written a minute ago: its identity is settled, so a second look need not read it.
    std::fs::File::options()
        .write(true)
        .open(&stats)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(60))
        .unwrap();
    let after = store
        .refresh_files("c", std::slice::from_ref(&stats))
        .unwrap();
    let expected = blake3::hash(b"row_count: 2\ncolumns:\n  omega:\n    sql_type: INTEGER\n")
        .to_hex()
        .to_string();
    assert_eq!(
        after.files.hash(&stats).map(|h| h.to_string()),
        Some(expected.clone())
    );
    assert_ne!(before.search.tables[0].key, after.search.tables[0].key);
    assert_eq!(stored_hash(&store, "db/t/statistics.yaml"), Some(expected));
    // The next call answers from the refreshed state, without another read.
    assert!(Arc::ptr_eq(
        &after,
        &store.fresh(Connection(None), Reads::Manifest).unwrap()
    ));
    // Nothing moved: the same state.
    let again = store
        .refresh_files("c", std::slice::from_ref(&stats))
        .unwrap();
    assert!(Arc::ptr_eq(&after, &again));
}

#[test]
fn refreshing_a_path_the_print_does_not_track_reconciles_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    project(dir.path());
    let project = config::load_at(&dir.path().to_string_lossy()).unwrap();
    let store = Store::open(Served::resolve(&project, None).unwrap(), index.path()).unwrap();
    // A new table: its directory and files appear, then the manifest names it; the event
    // names only the new directory.
    let table = dir.path().join("prints/c/db/u");
    std::fs::create_dir_all(&table).unwrap();
    std::fs::write(table.join("statistics.yaml"), "row_count: 5\n").unwrap();
    std::fs::write(
        dir.path().join("prints/c/manifest.yaml"),
        "format_version: 1\ntables:\n  db.t:\n    type: table\n    path: db/t\n    artifacts:\n      statistics: statistics.yaml\n  db.u:\n    type: table\n    path: db/u\n    artifacts:\n      statistics: statistics.yaml\n",
    )
    .unwrap();
    let state = store
        .refresh_files("c", std::slice::from_ref(&table))
        .unwrap();
    let names: Vec<&str> = state.search.tables.iter().map(|t| t.fqn.as_str()).collect();
    assert_eq!(names, ["db.t", "db.u"]);
    assert!(stored_hash(&store, "db/u/statistics.yaml").is_some());
}

#[test]
fn same_bytes_as_this_process_knew_but_another_stored_since_are_read_again() {
    // Two engines on one index, as two `printdex serve` processes: A knows v1; B stores
    // v2; the file goes back to v1. A must not take the row for its own (it holds v2).
    let dir = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    project(dir.path());
    let stats = dir.path().join("prints/c/db/t/statistics.yaml");
    let project = config::load_at(&dir.path().to_string_lossy()).unwrap();
    let served = || Served::resolve(&project, None).unwrap();
    let a = Store::open(served(), index.path()).unwrap();
    let b = Store::open(served(), index.path()).unwrap();
    let one = std::slice::from_ref(&stats);
    std::fs::write(&stats, "row_count: 2\n").unwrap();
    b.refresh_files("c", one).unwrap();
    assert_eq!(
        stored_hash(&b, "db/t/statistics.yaml"),
        Some(blake3::hash(b"row_count: 2\n").to_hex().to_string())
    );
    std::fs::write(&stats, "row_count: 1\n").unwrap();
    a.refresh_files("c", one).unwrap();
    let v1 = blake3::hash(b"row_count: 1\n").to_hex().to_string();
    assert_eq!(stored_hash(&a, "db/t/statistics.yaml"), Some(v1.clone()));
    match a.mirror().parsed(&stats).unwrap() {
        Some(printdex::ingest::Parsed::Yaml(v)) => {
            assert_eq!(v.get("row_count"), Some(&compat::value::Value::Int(1)))
        }
        other => panic!("{other:?}"),
    }
    // And the whole-connection path: B goes back to v2 through a reconcile of A.
    std::fs::write(&stats, "row_count: 2\n").unwrap();
    b.refresh_files("c", one).unwrap();
    std::fs::write(&stats, "row_count: 1\n").unwrap();
    a.reconcile(&served().connections[0]).unwrap();
    assert_eq!(stored_hash(&a, "db/t/statistics.yaml"), Some(v1));
}
