//! A start's head (`store::head`): a server started on a warm index answers the calls that
//! read the manifest alone, or the manifest and files read as they are now (get_diff,
//! resources/read), from the walkable manifest the last reconcile kept, while its own
//! reconcile runs; every answer is the one a fresh index gives, and a manifest edited
//! while no server ran is never answered from the head kept before the edit. That
//! reconcile takes the image the last one kept (`store::image`) when the mirror's rows
//! are as they were then: a table file edited while no server ran is still seen, and a
//! start after the rows moved reads them.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::util::{
    bin, first_difference, library, run as run_command, serve_debug_logged, session, tool_call,
    without_age_days, write_atomically, Session,
};

/// The calls of one session: the manifest alone first (list_tables, get_manifest), then
/// calls that read a table's files, the diff and resources (which a head answers too,
/// reading each file as it is now), every table, and the resource list.
fn requests() -> Vec<(&'static str, Value)> {
    vec![
        tool_call("list_tables", json!({"detail": true})),
        tool_call("get_manifest", json!({})),
        tool_call(
            "get_table_context",
            json!({"table": "stacks.catalog.books"}),
        ),
        tool_call("get_diff", json!({})),
        (
            "resources/read",
            json!({"uri": "dbprint://library/stacks.catalog.books/relationships"}),
        ),
        ("resources/read", json!({"uri": "dbprint://library/diff"})),
        tool_call("search_columns", json!({"text": "title"})),
        ("resources/list", json!({})),
        tool_call("list_tables", json!({})),
    ]
}

/// One session on `index` (a fresh one without), its debug log kept.
fn run(project: &Path, index: &Path) -> Session {
    let ran = session(serve_debug_logged(project, index), &requests());
    assert!(ran.status.success(), "{}", ran.stderr);
    ran
}

/// Every answer of a session, in order (text and isError alike, the resource list whole).
fn answers(ran: &Session) -> Vec<String> {
    (1..=requests().len() as u64)
        .map(|id| match ran.responses.get(&id) {
            // The clock moves between the sessions compared.
            Some(r) => without_age_days(&r["result"].to_string()),
            None => panic!("no response {id}; stderr: {}", ran.stderr),
        })
        .collect()
}

fn fresh(project: &Path) -> Vec<String> {
    let index = tempfile::tempdir().unwrap();
    answers(&run(project, index.path()))
}

/// `got` is `expected`, or the first answer that differs is shown where it differs.
fn same_answers(got: &[String], expected: &[String]) {
    if let Some((i, difference)) = first_difference(got, expected) {
        let (method, params) = &requests()[i];
        let name = params["name"].as_str().unwrap_or(method);
        panic!("{name}: {difference}");
    }
}

fn answered_from_head(ran: &Session) -> bool {
    ran.stderr.lines().any(|l| l.contains("head read back"))
}

fn ingested_from_image(ran: &Session) -> bool {
    ran.stderr
        .lines()
        .any(|l| l.contains("ingested from the start's image"))
}

/// The library fixture with its directories settled (a walk keeps what it saw, and a
/// start's head is kept, only then), and an empty index directory.
fn settled_library() -> (tempfile::TempDir, tempfile::TempDir) {
    let project = library();
    std::thread::sleep(std::time::Duration::from_millis(200));
    (project, tempfile::tempdir().unwrap())
}

/// `ran` answered from its head (or not, `from_head`), and as a fresh index answers. A
/// start with a head takes the image kept with it here: nothing wrote the rows between.
fn answered(ran: &Session, from_head: bool, expected: &[String]) {
    assert_eq!(answered_from_head(ran), from_head, "{}", ran.stderr);
    assert_eq!(ingested_from_image(ran), from_head, "{}", ran.stderr);
    same_answers(&answers(ran), expected);
}

#[test]
fn a_warm_start_answers_from_its_head_as_a_fresh_index_does() {
    let (project, index) = settled_library();
    let expected = fresh(project.path());
    // A new index has no head; the next start answers from the one the first kept.
    answered(&run(project.path(), index.path()), false, &expected);
    let ran = run(project.path(), index.path());
    answered(&ran, true, &expected);
    // Nothing committed to the search index since the first start: its view is kept.
    assert!(
        ran.stderr.lines().any(|l| l.contains("search view kept")),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_manifest_edited_while_no_server_ran_is_not_answered_from_the_old_head() {
    let (project, index) = settled_library();
    run(project.path(), index.path());
    let manifest = project.path().join("prints/library/manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let edited = text.replacen("row_count: ", "row_count: 9", 1);
    assert_ne!(edited, text);
    write_atomically(&manifest, &edited);
    // Settled, so the stored identity can vouch for it at the next start.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let expected = fresh(project.path());
    answered(&run(project.path(), index.path()), false, &expected);
    // That start kept the edited manifest's head, which the next one answers from.
    answered(&run(project.path(), index.path()), true, &expected);
}

#[test]
fn the_first_start_after_an_index_rebuild_answers_from_its_head() {
    let (project, index) = settled_library();
    let rebuilt = run_command(
        Command::new(bin())
            .args(["index", "rebuild", "--project"])
            .arg(project.path())
            .arg("--index-dir")
            .arg(index.path()),
    );
    assert!(rebuilt.ok(), "{}", rebuilt.stderr);
    let expected = fresh(project.path());
    let first = run(project.path(), index.path());
    answered(&first, true, &expected);
    // The rebuild's image holds no view, but the rebuild's own start on it (which keeps
    // what a first session reads) synced one and kept it beside the image: the first
    // start after the rebuild takes that view without syncing, and so does the next.
    let kept = |ran: &Session| ran.stderr.lines().any(|l| l.contains("search view kept"));
    assert!(kept(&first), "{}", first.stderr);
    let second = run(project.path(), index.path());
    answered(&second, true, &expected);
    assert!(kept(&second), "{}", second.stderr);
}

#[test]
fn a_start_from_its_image_sees_a_table_file_edited_while_no_server_ran_and_one_after_the_rows_moved_reads_them(
) {
    let (project, index) = settled_library();
    answered(
        &run(project.path(), index.path()),
        false,
        &fresh(project.path()),
    );
    let stats = project
        .path()
        .join("prints/library/stacks/catalog/books/statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    let edited = text.replacen("row_count: 1500", "row_count: 1501", 1);
    assert_ne!(edited, text);
    // In place: a rename would move the directory's mtime, and a start whose walk no
    // longer holds has no head (nor image) to take.
    std::fs::write(&stats, &edited).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let expected = fresh(project.path());
    // The rows are as the image holds them: it is taken, and the calls that read the
    // edited file check it and read it again.
    let ran = run(project.path(), index.path());
    assert!(ingested_from_image(&ran), "{}", ran.stderr);
    same_answers(&answers(&ran), &expected);
    // That session stored the edit, and kept the image of the rows it left at close: the
    // next start takes it.
    let ran = run(project.path(), index.path());
    assert!(answered_from_head(&ran), "{}", ran.stderr);
    assert!(ingested_from_image(&ran), "{}", ran.stderr);
    same_answers(&answers(&ran), &expected);
    answered(&run(project.path(), index.path()), true, &expected);
}
