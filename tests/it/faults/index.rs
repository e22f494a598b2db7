//! A damaged, locked, lost or unusable index location. The index
//! is a cache: after each fault a server must still answer initialize, and list_tables,
//! get_table_context, search_columns and resolve_value must answer what a server on a
//! fresh index answers over the same print, within the bounds below.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::writer::{private_indexes, start_server};
use crate::util::{bin, library, run, write_atomically, Server, NO_HANDSHAKE, PROTOCOL_VERSION};

const TABLE: &str = "stacks.catalog.series";
const STATS: &str = "prints/library/stacks/catalog/series/statistics.yaml";
/// How soon after a fault the answers must come.
pub(super) const WITHIN: Duration = Duration::from_secs(10);
/// How soon after a print edit a server whose index directory was removed answers it.
const WITHIN_REMOVED: Duration = Duration::from_secs(5);

fn answer(server: &mut Server, tool: &str, arguments: Value) -> String {
    let (text, is_error) = server.call(tool, arguments);
    assert!(!is_error, "{tool} failed: {text}");
    text
}

/// The four tools' answers (list_tables without the ages, which move with the clock).
pub(super) fn answers(server: &mut Server) -> Vec<String> {
    let mut listed: Value =
        serde_json::from_str(&answer(server, "list_tables", json!({"detail": true}))).unwrap();
    for table in listed["tables"].as_array_mut().into_iter().flatten() {
        table.as_object_mut().unwrap().remove("age_days");
    }
    vec![
        serde_json::to_string_pretty(&listed).unwrap(),
        answer(server, "get_table_context", json!({"table": TABLE})),
        answer(server, "search_columns", json!({"text": "id"})),
        answer(
            server,
            "resolve_value",
            json!({"table": TABLE, "column": "series_id", "text": "1"}),
        ),
    ]
}

/// What a server on a fresh index answers over `project` as it is now.
pub(super) fn fresh(project: &Path) -> Vec<String> {
    let mut server = Server::start(project, &[]);
    let out = answers(&mut server);
    assert!(
        out[1].starts_with(&format!("# Table: {TABLE}")),
        "{}",
        out[1]
    );
    out
}

/// A full index of `project` in `index`, left by a clean shutdown.
pub(super) fn warm(project: &Path, index: &Path) {
    let mut server = Server::start_in(project, &[], Some(index));
    answers(&mut server);
    assert!(server.close().success());
}

/// A server started on `index` (with `configure` setting up its command) answers
/// initialize and the four tools within `WITHIN`.
fn answers_after_start(
    project: &Path,
    index: &Path,
    configure: impl FnOnce(&mut Command),
) -> Vec<String> {
    let mut server =
        Server::start_with(project.as_os_str(), &[NO_HANDSHAKE], Some(index), configure);
    server.within(WITHIN, |s| {
        s.initialize(PROTOCOL_VERSION);
        answers(s)
    })
}

/// `printdex index status` over `index`: its stdout.
fn status(project: &Path, index: &Path) -> String {
    let out = run(Command::new(bin())
        .args(["index", "status", "--project"])
        .arg(project)
        .arg("--index-dir")
        .arg(index));
    assert!(out.ok(), "{out:?}");
    out.stdout
}

/// The files of the search index's segments, sorted.
fn segment_files(index: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(index.join("search"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.len() > 32 && name.as_bytes()[32] == b'.'
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no segment files in {}", index.display());
    files
}

fn with_extension(index: &Path, ext: &str) -> PathBuf {
    segment_files(index)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == ext))
        .unwrap_or_else(|| panic!("no .{ext} segment file"))
}

/// Put `fault` on a warm index of a fresh library, then check that `index status` no
/// longer calls it healthy and that a new server answers as a fresh index does.
fn damaged_at_rest(fault: impl FnOnce(&Path)) {
    let project = library();
    let expected = fresh(project.path());
    let index = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    let healthy = status(project.path(), index.path());
    assert!(!healthy.contains("damaged"), "{healthy}");
    fault(index.path());
    let reported = status(project.path(), index.path());
    assert!(reported.contains("damaged"), "{reported}");
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
    // The damage was set aside and rebuilt: the index is healthy again.
    let after = status(project.path(), index.path());
    assert!(!after.contains("damaged"), "{after}");
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
}

#[test]
fn a_search_segment_store_file_removed_is_set_aside_and_rebuilt() {
    damaged_at_rest(|index| std::fs::remove_file(with_extension(index, "store")).unwrap());
}

#[test]
fn a_search_segment_term_file_removed_is_set_aside_and_rebuilt() {
    damaged_at_rest(|index| std::fs::remove_file(with_extension(index, "term")).unwrap());
}

#[test]
fn a_byte_flipped_in_search_segment_files_is_set_aside_and_rebuilt() {
    damaged_at_rest(|index| {
        for ext in ["store", "term"] {
            let path = with_extension(index, ext);
            let mut bytes = std::fs::read(&path).unwrap();
            let at = bytes.len() / 2;
            bytes[at] ^= 0xff;
            std::fs::write(&path, bytes).unwrap();
        }
    });
}

#[test]
fn search_meta_json_naming_missing_segments_is_set_aside_and_rebuilt() {
    damaged_at_rest(|index| {
        for file in segment_files(index) {
            std::fs::remove_file(file).unwrap();
        }
    });
}

/// Overwrite 4 KiB of `mirror.sqlite` with bytes that are no page: its fourth page, one
/// of the schema's b-tree pages (a page in the middle may hold nothing a start reads).
fn overwrite_4k(mirror: &Path) {
    use std::io::{Seek, SeekFrom, Write};
    let len = std::fs::metadata(mirror).unwrap().len();
    assert!(len >= 8 * 4096, "mirror of {len} bytes");
    let at = 3 * 4096;
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(mirror)
        .unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&junk).unwrap();
}

#[test]
fn a_mirror_with_4_kib_overwritten_is_set_aside_and_rebuilt() {
    damaged_at_rest(|index| overwrite_4k(&index.join("mirror.sqlite")));
}

/// An edit of the table's statistics: its row count, and a value resolve_value lists.
pub(super) fn edit_print(project: &Path) {
    let path = project.join(STATS);
    let original = std::fs::read_to_string(&path).unwrap();
    assert!(original.contains("\nrow_count: 40\n") && original.contains("\n    - value: 1\n"));
    let edited = original
        .replace("\nrow_count: 40\n", "\nrow_count: 1040\n")
        .replacen("\n    - value: 1\n", "\n    - value: 1040\n", 1);
    write_atomically(&path, &edited);
}

/// `answers` after `edit_print` shows the edit.
pub(super) fn shows_the_edit(answers: &[String]) {
    assert!(answers[3].contains("1040"), "{}", answers[3]);
}

/// The lock file at `path` held by another process that does not let go: this test
/// process holds it (a lock belongs to the open file, so the servers it starts see it
/// held).
fn hold_lock_file(path: &Path) -> std::fs::File {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    file.lock().unwrap();
    file
}

/// `writer.lock` held by a stopped `index rebuild`.
fn hold_writer_lock(index: &Path) -> std::fs::File {
    hold_lock_file(&index.join("writer.lock"))
}

#[test]
fn a_held_writer_lock_does_not_stop_a_new_server() {
    let project = library();
    let expected = fresh(project.path());
    for warm_first in [false, true] {
        let index = tempfile::tempdir().unwrap();
        if warm_first {
            warm(project.path(), index.path());
        }
        let _held = hold_writer_lock(index.path());
        assert_eq!(
            answers_after_start(project.path(), index.path(), |_| {}),
            expected,
            "warm index: {warm_first}"
        );
    }
}

#[test]
fn a_held_writer_lock_does_not_hang_a_running_server() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let mut server = Server::start_in(project.path(), &[], Some(index.path()));
    answers(&mut server);
    let _held = hold_writer_lock(index.path());
    edit_print(project.path());
    let expected = fresh(project.path());
    let answered = server.within(WITHIN, answers);
    assert_eq!(answered, expected);
    shows_the_edit(&answered);
}

/// The search index's meta lock held by a process stopped while it opened a searcher
/// (which every read and every start does).
fn hold_search_meta_lock(index: &Path) -> std::fs::File {
    hold_lock_file(&index.join("search").join(".tantivy-meta.lock"))
}

#[test]
fn a_held_search_meta_lock_neither_stops_a_new_server_nor_hangs_it_and_costs_no_private_index() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    let expected = fresh(project.path());
    let _held = hold_search_meta_lock(index.path());
    let mut server = start_server(project.path(), index.path(), tmp.path());
    let answered = server.within(WITHIN, |s| {
        s.initialize(PROTOCOL_VERSION);
        answers(s)
    });
    assert_eq!(answered, expected);
    // An edit is written to the index and read back while the lock stays held.
    edit_print(project.path());
    let expected = fresh(project.path());
    let answered = server.within(WITHIN, answers);
    assert_eq!(answered, expected);
    shows_the_edit(&answered);
    assert_eq!(private_indexes(tmp.path()), Vec::<String>::new());
}

#[test]
fn the_shared_index_is_used_again_once_its_lock_is_let_go() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let held = hold_writer_lock(index.path());
    let mut server = Server::start_in(project.path(), &[NO_HANDSHAKE], Some(index.path()));
    server.within(WITHIN, |s| {
        s.initialize(PROTOCOL_VERSION);
        answers(s)
    });
    // Answered from a private index: nothing was written to the shared one.
    assert!(!index.path().join("mirror.sqlite").exists());
    drop(held);
    // The server tries the shared location again every few seconds by itself: no call
    // and no edit prompts it.
    let let_go = Instant::now();
    while !index.path().join("mirror.sqlite").is_file() {
        assert!(
            let_go.elapsed() < WITHIN,
            "the shared index was not used again"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    edit_print(project.path());
    let expected = fresh(project.path());
    assert_eq!(server.within(WITHIN, answers), expected);
    assert!(server.close().success());
    // What the server left there is the edited print's index.
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
}

#[test]
fn an_index_directory_removed_under_a_running_server_is_made_again() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let dir = index.path().join("index");
    let mut server = Server::start_in(project.path(), &[], Some(&dir));
    answers(&mut server);
    // The running server may write a file into it while it goes (its writer lock, a
    // background reconcile), as it may under a person's `rm -rf`: remove until it is gone.
    for tries in 1.. {
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => break,
            Err(_) if !dir.exists() => break,
            Err(e) => assert!(tries < 50, "{}: {e}", dir.display()),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    edit_print(project.path());
    let edited = Instant::now();
    let expected = fresh(project.path());
    let answered = server.within(WITHIN_REMOVED, answers);
    assert_eq!(answered, expected);
    shows_the_edit(&answered);
    // The location is made again, not left for a restart.
    while !dir.join("mirror.sqlite").is_file() {
        assert!(
            edited.elapsed() < WITHIN_REMOVED,
            "{} not made again",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // And a warm start on it serves the edit.
    drop(server);
    assert_eq!(answers_after_start(project.path(), &dir, |_| {}), expected);
}

#[test]
fn a_directory_where_the_mirror_should_be_answers_as_a_fresh_index() {
    let project = library();
    let expected = fresh(project.path());
    let index = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(index.path().join("mirror.sqlite/inside")).unwrap();
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
}

#[test]
fn an_index_directory_that_is_a_plain_file_is_left_untouched_and_answers_as_a_fresh_index() {
    let project = library();
    let expected = fresh(project.path());
    let index = tempfile::tempdir().unwrap();
    let file = index.path().join("index");
    std::fs::write(&file, "not a directory").unwrap();
    assert_eq!(answers_after_start(project.path(), &file, |_| {}), expected);
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

/// Run the server inside a mount namespace of its own where `index` is a mount made by
/// `mount` (a shell line; `$D` is the index directory). A system that lets no process of
/// this user make one cannot stage the fault: the test fails saying so.
fn in_own_mount(project: &Path, index: &Path, mount: &str) -> Vec<String> {
    answers_after_start(project, index, |command| {
        *command = crate::util::in_own_mount_namespace(index, mount);
    })
}

#[test]
fn a_read_only_index_directory_with_a_full_index_is_served_and_left_unchanged() {
    let project = library();
    let expected = fresh(project.path());
    let index = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    let before = std::fs::read(index.path().join("mirror.sqlite")).unwrap();
    let answered = in_own_mount(
        project.path(),
        index.path(),
        "mount --bind \"$D\" \"$D\"; mount -o remount,bind,ro \"$D\"",
    );
    assert_eq!(answered, expected);
    assert_eq!(
        std::fs::read(index.path().join("mirror.sqlite")).unwrap(),
        before
    );
}

#[test]
fn a_disk_full_on_a_cold_start_still_answers() {
    let project = library();
    let expected = fresh(project.path());
    let index = tempfile::tempdir().unwrap();
    // Room for the first pages of a mirror, not for a whole index.
    let answered = in_own_mount(
        project.path(),
        index.path(),
        "mount -t tmpfs -o size=48k tmpfs \"$D\"",
    );
    assert_eq!(answered, expected);
}
