use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project of `files` in a temp dir, a store serving it, and the index's directory.
fn opened(files: &[(&str, &str)]) -> (tempfile::TempDir, tempfile::TempDir, Store) {
    let (project, index) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (rel, text) in files {
        write(project.path(), rel, text);
    }
    let store = Store::open_project(project.path(), index.path()).unwrap();
    (project, index, store)
}

fn wait_for_the_feed(store: &Store) {
    let started = std::time::Instant::now();
    while !store.watching() {
        assert!(started.elapsed().as_secs() < 20, "no change feed");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn an_edit_is_seen_by_the_next_snapshot_and_a_restart_reads_the_mirror() {
    let (project, index, store) = opened(&[
        ("project.yml", "name: a\nversion: '1'\n"),
        ("pipelines/a.sql", "select 1"),
    ]);
    let root = project.path();
    let first = store.project_snapshot().unwrap();
    assert_eq!(first.file_count(), 2);
    assert_eq!(first.parsed.pipelines.len(), 1);
    // Nothing moved: the same snapshot.
    let again = store.project_snapshot().unwrap();
    assert_eq!(again.version, first.version);

    write(root, "pipelines/b.sql", "select 2");
    let edited = store.project_snapshot().unwrap();
    assert_ne!(edited.version, first.version);
    assert_eq!(edited.parsed.pipelines.len(), 2);
    // Only the new file was parsed: a.sql's parse is the one from before.
    assert!(Arc::ptr_eq(
        &edited.parsed.pipelines[0].template,
        &first.parsed.pipelines[0].template
    ));
    write(root, "pipelines/a.sql", "select 10");
    let rewritten = store.project_snapshot().unwrap();
    assert!(!Arc::ptr_eq(
        &rewritten.parsed.pipelines[0].template,
        &first.parsed.pipelines[0].template
    ));
    assert!(Arc::ptr_eq(
        &rewritten.parsed.pipelines[1].template,
        &edited.parsed.pipelines[1].template
    ));

    std::fs::remove_file(root.join("pipelines/a.sql")).unwrap();
    let removed = store.project_snapshot().unwrap();
    assert_eq!(removed.parsed.pipelines.len(), 1);
    let stored = store
        .mirror()
        .pz_files(store.project_root().unwrap())
        .unwrap();
    assert_eq!(stored.len(), 2, "the mirror holds project.yml and b.sql");
    store.close();
    drop(store);

    // A restart serves the mirror's bytes for what did not move.
    let reopened = Store::open_project(root, index.path()).unwrap();
    assert_eq!(
        reopened.project_snapshot().unwrap().version,
        removed.version
    );
}

#[test]
fn a_hook_sees_each_new_content_once() {
    let (project, _index, store) = opened(&[("project.yml", "name: a\n")]);
    let root = project.path();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    store.on_project_publish(Box::new(move |s| log.lock().unwrap().push(s.version)));
    store.refresh_project().unwrap();
    write(root, "project.yml", "name: b\n");
    store.invalidate_project();
    let after = store.project_snapshot().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "the current snapshot, then the edit");
    assert_eq!(seen[1], after.version);
}

#[test]
fn a_change_to_what_pz_does_not_read_costs_no_scan() {
    let (project, _index, store) =
        opened(&[("project.yml", "name: a\n"), ("data/orders.csv", "id\n1\n")]);
    let root = project.path();
    wait_for_the_feed(&store);
    let verified = store.refresh_project().unwrap();
    write(root, "data/orders.csv", "id\n1\n2\n");
    write(root, "pipelines_notes.txt", "x");
    let after = store.project_snapshot().unwrap();
    assert!(
        Arc::ptr_eq(&verified, &after),
        "the same snapshot, not a re-scan"
    );
    write(root, "project.yml", "name: b\n");
    let edited = store.project_snapshot().unwrap();
    assert_ne!(edited.version, verified.version);
}

#[test]
fn a_snapshot_once_published_never_changes() {
    let (project, _index, store) = opened(&[("project.yml", "name: a\n")]);
    wait_for_the_feed(&store);
    let first = store.project_snapshot().unwrap();
    let (version, files) = (first.version, first.file_count());
    write(project.path(), "pipelines/b.sql", "select 2");
    let second = store.project_snapshot().unwrap();
    assert_ne!(second.version, version);
    assert_eq!((first.version, first.file_count()), (version, files));
}

#[test]
fn a_location_replaced_under_the_store_is_given_every_file() {
    let (project, index, store) = opened(&[
        ("project.yml", "name: a\n"),
        ("pipelines/a.sql", "select 1"),
    ]);
    let before = store.project_snapshot().unwrap();
    std::fs::remove_dir_all(index.path()).unwrap();
    write(project.path(), "pipelines/b.sql", "select 2");
    store.invalidate_project();
    let after = store.project_snapshot().unwrap();
    assert_ne!(after.version, before.version);
    assert!(index.path().join("mirror.sqlite").is_file(), "made again");
    let stored = store
        .mirror()
        .pz_files(store.project_root().unwrap())
        .unwrap();
    let mut rels: Vec<String> = stored.into_iter().map(|(rel, _)| rel).collect();
    rels.sort();
    assert_eq!(rels, ["pipelines/a.sql", "pipelines/b.sql", "project.yml"]);
}

#[test]
fn only_what_pz_reads_concerns_the_project() {
    let root = Path::new("/p");
    for yes in [
        "/p/project.yml",
        "/p/pipelines/a.sql",
        "/p/pipelines/sub",
        "/p/pipelines/configs/a.yml",
        "/p/.pz/runs/r1",
        "/p/.pz/runs/r1/run_results.json",
        "/p/.pz/state/watermarks.json",
    ] {
        assert!(concerns(root, Path::new(yes)), "{yes}");
    }
    for no in [
        "/p/data/orders.csv",
        "/p/out/x.parquet",
        "/p/.pz/runs/r1/staging.duckdb",
        "/p/.pz/runs/r1/run_results.json.tmp",
        "/p/pipelines/notes.md",
        "/q/project.yml",
    ] {
        assert!(!concerns(root, Path::new(no)), "{no}");
    }
}
