//! Several `printdex serve` processes on one index: whatever order their watchers and
//! calls write in, none leaves the index holding an older state than another stored, so
//! every server (and one started later over the same index) answers as a server over a
//! fresh index does.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{all_pages, copy_dir, fixtures, Server};

const TABLE_DIR: &str = "prints/library/stacks/lending/loans";

/// A private copy of the library fixture project.
fn library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("library"), dir.path());
    dir
}

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
