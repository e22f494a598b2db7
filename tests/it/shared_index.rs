//! Several `printdex serve` processes on one index: whatever order their watchers and
//! calls write in, none leaves the index holding an older state than another stored, so
//! every server (and one started later over the same index) answers as a server over a
//! fresh index does.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{all_pages, library, Server};

const TABLE_DIR: &str = "prints/library/stacks/lending/loans";

/// search_columns `{"text": "loan"}`, every page, cursors left out: the loans table's
/// columns are among the matches while its directory is in the print.
fn loan_columns(server: &mut Server) -> Vec<Value> {
    all_pages(server, "search_columns", json!({"text": "loan"}))
        .into_iter()
        .map(|mut page| {
            if let Some(page) = page.as_object_mut() {
                page.remove("next_cursor");
            }
            page
        })
        .collect()
}

/// What a server over a fresh index answers for the project now.
fn fresh_loan_columns(project: &Path) -> Vec<Value> {
    loan_columns(&mut Server::start(project, &[]))
}

fn servers_on(project: &Path, index: &Path, n: usize) -> Vec<Server> {
    (0..n)
        .map(|_| Server::start_in(project, &[], Some(index)))
        .collect()
}

/// Every server, and one started over the same index afterwards, answers as a fresh
/// index does.
fn assert_all_answer_as_fresh(project: &Path, index: &Path, servers: &mut [Server]) {
    let expected = fresh_loan_columns(project);
    assert!(
        expected[0].to_string().contains("stacks.lending.loans"),
        "the fixture's loans table matches: {}",
        expected[0]
    );
    for (i, server) in servers.iter_mut().enumerate() {
        assert_eq!(loan_columns(server), expected, "server {i}");
    }
    let mut late = Server::start_in(project, &[], Some(index));
    assert_eq!(
        loan_columns(&mut late),
        expected,
        "a server started afterwards"
    );
}

#[test]
fn three_servers_keep_a_table_directory_moved_out_and_back_in_search() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let aside = tempfile::tempdir().unwrap();
    let dir = project.path().join(TABLE_DIR);
    let out = aside.path().join("loans");
    let mut servers = servers_on(project.path(), index.path(), 3);
    std::thread::sleep(Duration::from_secs(1));
    // Out and back, a pause, out again; one call while it is out; back, a pause.
    std::fs::rename(&dir, &out).unwrap();
    std::fs::rename(&out, &dir).unwrap();
    std::thread::sleep(Duration::from_secs(3));
    std::fs::rename(&dir, &out).unwrap();
    let (text, is_error) = servers[0].call("search_columns", json!({"text": "loan"}));
    assert!(!is_error, "{text}");
    assert!(
        !text.contains("stacks.lending.loans"),
        "answered from a table directory moved out: {text}"
    );
    std::fs::rename(&out, &dir).unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert_all_answer_as_fresh(project.path(), index.path(), &mut servers);
    // And later, once every watcher has long settled.
    std::thread::sleep(Duration::from_secs(2));
    assert_all_answer_as_fresh(project.path(), index.path(), &mut servers);
}

/// The same race made certain: one server is stopped (SIGSTOP) before a table directory
/// goes, and resumed only after it is back and while the server that stored its absence
/// is stopped in turn, so the resumed one writes first over the other's newer rows with
/// a view that never saw the directory go.
#[cfg(unix)]
#[test]
fn a_server_that_slept_through_a_move_does_not_undo_what_another_stored() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let aside = tempfile::tempdir().unwrap();
    let dir = project.path().join(TABLE_DIR);
    let out = aside.path().join("loans");
    let mut servers = servers_on(project.path(), index.path(), 3);
    // Every watcher done with its start (each reconciles once its feed is complete), so
    // that none is stopped while it holds the writer lock.
    std::thread::sleep(Duration::from_secs(2));
    for server in &servers[1..] {
        server.signal("-STOP");
    }
    std::fs::rename(&dir, &out).unwrap();
    // Server 0 stores the table's files as absent.
    let (text, _) = servers[0].call("search_columns", json!({"text": "loan"}));
    assert!(!text.contains("stacks.lending.loans"), "{text}");
    std::thread::sleep(Duration::from_millis(500));
    servers[0].signal("-STOP");
    std::fs::rename(&out, &dir).unwrap();
    // Server 1 wakes to the files as it last knew them, over rows that say they are gone.
    servers[1].signal("-CONT");
    std::thread::sleep(Duration::from_secs(2));
    servers[0].signal("-CONT");
    servers[2].signal("-CONT");
    std::thread::sleep(Duration::from_secs(2));
    assert_all_answer_as_fresh(project.path(), index.path(), &mut servers);
}

/// Two stores on one index in one process stand for two servers: each keeps its own view
/// and takes the same cross-process writer lock (a file lock per opened file).
mod writers {
    use std::path::Path;

    use printdex::config::{self, Served};
    use printdex::store::search::lookup::Filters;
    use printdex::store::{Snapshot, Store};

    use super::{library, TABLE_DIR};

    fn open(project: &Path, index: &Path) -> Store {
        let project = config::load_at(&project.to_string_lossy()).unwrap();
        Store::open(Served::resolve(&project, None).unwrap(), index).unwrap()
    }

    /// The columns the snapshot's search view finds for `text`, as `table.column`.
    fn found(state: &Snapshot, text: &str) -> Vec<String> {
        let filters = Filters {
            text: Some(text),
            ..Default::default()
        };
        let view = &state.search;
        let mut out = Vec::new();
        for hit in view.search(&filters).unwrap().hits.into_sorted() {
            let record = view.column(hit.address).unwrap();
            let needle = text.to_lowercase();
            if record
                .text_sources()
                .iter()
                .any(|s| s.to_lowercase().contains(&needle))
            {
                out.push(format!("{}.{}", view.tables[hit.table].fqn, record.label));
            }
        }
        out
    }

    fn loans_columns(state: &Snapshot) -> Vec<String> {
        found(state, "loan")
            .into_iter()
            .filter(|c| c.starts_with("stacks.lending.loans."))
            .collect()
    }

    fn stored_hash(store: &Store, path: &Path) -> Option<String> {
        store.mirror().status(path).unwrap().and_then(|s| s.hash)
    }

    #[test]
    fn a_writer_whose_view_is_older_than_the_mirror_stores_the_disk_not_its_view() {
        let project = library();
        let index = tempfile::tempdir().unwrap();
        let aside = tempfile::tempdir().unwrap();
        let dir = project.path().join(TABLE_DIR);
        let stats = dir.join("statistics.yaml");
        let a = open(project.path(), index.path());
        let b = open(project.path(), index.path());
        let conn = a.served.connections[0].clone();
        let present = stored_hash(&a, &stats).expect("stored");
        assert!(!loans_columns(&a.reconcile(&conn).unwrap()).is_empty());
        // B stores the table's files as gone; the directory comes back with the same
        // identities, which are what A's view still holds.
        std::fs::rename(&dir, aside.path().join("loans")).unwrap();
        b.reconcile(&conn).unwrap();
        assert_eq!(stored_hash(&b, &stats), None);
        std::fs::rename(aside.path().join("loans"), &dir).unwrap();
        let state = a.reconcile(&conn).unwrap();
        assert_eq!(stored_hash(&a, &stats), Some(present));
        assert!(!loans_columns(&state).is_empty(), "A's search view");
        // B, behind A now, and a store opened later find them too.
        assert_eq!(
            loans_columns(&b.reconcile(&conn).unwrap()),
            loans_columns(&state)
        );
        let c = open(project.path(), index.path());
        assert_eq!(
            loans_columns(&c.reconcile(&conn).unwrap()),
            loans_columns(&state)
        );
    }

    #[test]
    fn a_refresh_takes_what_another_writer_stored_since_and_checks_it_against_the_disk() {
        let project = library();
        let index = tempfile::tempdir().unwrap();
        let dir = project.path().join(TABLE_DIR);
        let notes = dir.join("statistics.annotations.yaml");
        let stats = dir.join("statistics.yaml");
        let a = open(project.path(), index.path());
        let b = open(project.path(), index.path());
        let name = a.served.connections[0].name.clone();
        let original = std::fs::read_to_string(&notes).unwrap();
        let edited = original.replacen("Loan state;", "Soaked loan state;", 1);
        assert_ne!(edited, original);
        // B stores an edit A never hears of; then A refreshes another file.
        std::fs::write(&notes, &edited).unwrap();
        b.refresh_files(&name, std::slice::from_ref(&notes))
            .unwrap();
        let rows = std::fs::read_to_string(&stats).unwrap();
        std::fs::write(
            &stats,
            rows.replacen("row_count: 4500", "row_count: 4501", 1),
        )
        .unwrap();
        let state = a
            .refresh_files(&name, std::slice::from_ref(&stats))
            .unwrap();
        assert_eq!(
            state.files.hash(&notes).map(|h| h.to_string()),
            stored_hash(&a, &notes)
        );
        assert!(found(&state, "soaked").contains(&"stacks.lending.loans.status".to_string()));
        // B stored a version the disk no longer holds by the time A catches up: A checks
        // the row against the disk and stores what is there.
        std::fs::write(&notes, edited.replacen("Soaked", "Dried", 1)).unwrap();
        b.refresh_files(&name, std::slice::from_ref(&notes))
            .unwrap();
        std::fs::write(&notes, &original).unwrap();
        let state = a
            .refresh_files(&name, std::slice::from_ref(&stats))
            .unwrap();
        let on_disk = blake3::hash(original.as_bytes()).to_hex().to_string();
        assert_eq!(stored_hash(&a, &notes).as_deref(), Some(on_disk.as_str()));
        assert_eq!(
            state.files.hash(&notes).map(|h| h.to_string()),
            Some(on_disk)
        );
        assert!(found(&state, "soaked").is_empty() && found(&state, "dried").is_empty());
    }
}
