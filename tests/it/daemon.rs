//! The long-running daemon: every call answers from the files as they are on disk
//! when it arrives, however they were changed underneath the server, and a server killed
//! at any moment leaves an index the next one serves correctly.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::util::{
    bare_manifest, bare_project, bin, copy_dir, first_difference, fixtures, library,
    relative_files, run, write_atomically, Server, NO_HANDSHAKE,
};

const TABLE: &str = "stacks.catalog.series";
const TABLE_DIR: &str = "prints/library/stacks/catalog/series";

/// The fixture's statistics.yaml for TABLE with its `row_count: 40` replaced by `rows`.
/// Four-digit counts keep the file's size, so only the mtime can tell two versions apart.
fn statistics_with(rows: u32) -> String {
    let original = std::fs::read_to_string(
        fixtures()
            .join("library")
            .join(TABLE_DIR)
            .join("statistics.yaml"),
    )
    .unwrap();
    assert!(original.contains("\nrow_count: 40\n"));
    original.replace("\nrow_count: 40\n", &format!("\nrow_count: {rows}\n"))
}

/// `statistics.row_count` as get_table_context answers it now.
fn answered_rows(server: &mut Server) -> Value {
    let (text, is_error) = server.call(
        "get_table_context",
        json!({"table": TABLE, "format": "json"}),
    );
    assert!(!is_error, "{text}");
    let page: Value = serde_json::from_str(&text).unwrap();
    page["statistics"]["row_count"].clone()
}

/// `rounds` times: `change_then_ask(round, rows)` puts version `rows` (1000 + round) on
/// disk and returns the row count the server then answers. None may be stale.
fn assert_never_stale(rounds: u32, mut change_then_ask: impl FnMut(u32, u32) -> Value) {
    let stale: Vec<(u32, Value)> = (0..rounds)
        .filter_map(|round| {
            let rows = 1000 + round;
            let answered = change_then_ask(round, rows);
            (answered != json!(rows)).then_some((rows, answered))
        })
        .collect();
    assert!(
        stale.is_empty(),
        "{} stale answers: {:?}",
        stale.len(),
        &stale[..stale.len().min(5)]
    );
}

#[test]
fn statistics_rewritten_in_place_within_one_timestamp_tick_is_never_answered_stale() {
    let project = library();
    let stats = project.path().join(TABLE_DIR).join("statistics.yaml");
    let mut server = Server::start(project.path(), &[]);
    assert_eq!(answered_rows(&mut server), json!(40));
    // Every version keeps one mtime, as writes within one timestamp tick do (or a copy that
    // preserves times, or a clock ahead of this one): a time still to come, so that no
    // load on the machine can make the test's writes fall in different ticks.
    let mtime = std::time::SystemTime::now() + std::time::Duration::from_secs(600);
    assert_never_stale(1000, |_, rows| {
        // Truncate and write the same inode, same size, same mtime: the file's identity
        // does not move at all; only its bytes tell the versions apart.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&stats)
            .unwrap();
        std::io::Write::write_all(&mut file, statistics_with(rows).as_bytes()).unwrap();
        file.set_modified(mtime).unwrap();
        drop(file);
        answered_rows(&mut server)
    });
}

#[test]
fn statistics_replaced_by_rename_is_never_answered_stale_by_the_tool_or_the_resource() {
    let project = library();
    let stats = project.path().join(TABLE_DIR).join("statistics.yaml");
    let mut server = Server::start(project.path(), &[]);
    assert_never_stale(1000, |round, rows| {
        write_atomically(&stats, &statistics_with(rows));
        // Alternate the two readers of the file: the tool and the resource.
        if round % 2 == 0 {
            answered_rows(&mut server)
        } else {
            let r = server.request(
                "resources/read",
                json!({"uri": format!("dbprint://library/{TABLE}/statistics")}),
            );
            let text = r["result"]["contents"][0]["text"]
                .as_str()
                .unwrap_or_default();
            json!(text
                .lines()
                .find_map(|l| l.strip_prefix("row_count: "))
                .and_then(|n| n.parse::<u32>().ok()))
        }
    });
}

#[test]
fn a_table_directory_removed_and_copied_back_is_never_answered_stale() {
    let project = library();
    let dir = project.path().join(TABLE_DIR);
    let staging = tempfile::tempdir().unwrap();
    let mut server = Server::start(project.path(), &[]);
    assert_never_stale(200, |i, rows| {
        // A fresh copy of the whole table directory, then `rm -rf` and copy it in.
        let source = staging.path().join(format!("v{i}"));
        copy_dir(&fixtures().join("library").join(TABLE_DIR), &source);
        std::fs::write(source.join("statistics.yaml"), statistics_with(rows)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        if i % 10 == 0 {
            // Asked while the directory is gone: the reference's answer for a missing file.
            let (text, _) = server.call(
                "get_table_context",
                json!({"table": TABLE, "format": "json"}),
            );
            assert!(
                !text.contains("\"row_count\": 1"),
                "answered from a removed file: {text}"
            );
        }
        copy_dir(&source, &dir);
        answered_rows(&mut server)
    });
}

#[test]
fn a_whole_print_rewritten_as_generate_does_is_never_answered_stale() {
    // generate rewrites every file of the print (each by a rename) and the manifest last.
    // Two generations alternate: the fixture as made, and one whose every table gained
    // rows; list_tables (the manifest) and get_table_context (a table's files) must each
    // answer from the generation on disk.
    let project = library();
    let root = project.path().join("prints/library");
    let original = fixtures().join("library/prints/library");
    let files = relative_files(&original);
    let generation = |n: u32| -> Vec<(PathBuf, String)> {
        files
            .iter()
            .map(|rel| {
                let text = std::fs::read_to_string(original.join(rel)).unwrap();
                let text = if n == 0 {
                    text
                } else {
                    // `row_count: N` lines (manifest entries and statistics alike).
                    text.lines()
                        .map(|l| match l.trim_start().strip_prefix("row_count: ") {
                            Some(v) if v.parse::<u64>().is_ok() => {
                                let indent = &l[..l.len() - l.trim_start().len()];
                                format!(
                                    "{indent}row_count: {}",
                                    v.parse::<u64>().unwrap() + n as u64
                                )
                            }
                            _ => l.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                        + if text.ends_with('\n') { "\n" } else { "" }
                };
                (rel.clone(), text)
            })
            .collect()
    };
    let mut server = Server::start(project.path(), &[]);
    for round in 0..20u32 {
        let n = if round % 2 == 0 { 1000 + round } else { 0 };
        let mut files = generation(n);
        // The manifest last, as generate commits it.
        files.sort_by_key(|(rel, _)| rel == Path::new("manifest.yaml"));
        for (rel, text) in &files {
            write_atomically(&root.join(rel), text);
        }
        assert_eq!(answered_rows(&mut server), json!(40 + n), "round {round}");
        let (text, is_error) = server.call(
            "list_tables",
            json!({"detail": true, "pattern": "*.series"}),
        );
        assert!(!is_error, "{text}");
        let listed: Value = serde_json::from_str(&text).unwrap();
        let row = listed["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["table"] == json!(TABLE))
            .unwrap_or_else(|| panic!("{TABLE} listed: {text}"))
            .clone();
        assert_eq!(row["row_count"], json!(40 + n), "round {round}: {row}");
    }
}

#[test]
fn stdio_answers_requests_before_initialize_and_ignores_early_notifications() {
    // The reference's stdio session does both; rmcp's handshake would exit on the first.
    let mut server = Server::start(&fixtures().join("library"), &[NO_HANDSHAKE]);
    server.notify("notifications/initialized", json!({}));
    let early = server.request(
        "tools/call",
        json!({"name": "list_tables", "arguments": {"pattern": "*.series"}}),
    );
    let text = early["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(TABLE), "{early}");
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}),
    );
    assert_eq!(
        init["result"]["protocolVersion"],
        json!("2025-06-18"),
        "{init}"
    );
    server.notify("notifications/initialized", json!({}));
    let (text, is_error) = server.call(
        "get_table_context",
        json!({"table": TABLE, "format": "json"}),
    );
    assert!(!is_error, "{text}");
    assert_eq!(server.close().code(), Some(0));
}

/// Start a call that has a 10,000-table manifest to ingest first, then end the session
/// with `stop`: the call still answers in full, and the process exits 0.
fn call_under_way_survives(stop: impl FnOnce(&mut Server)) {
    let dir = tempfile::tempdir().unwrap();
    bare_project(dir.path(), 1);
    let mut server = Server::start(dir.path(), &[]);
    std::fs::write(
        dir.path().join("prints/c/manifest.yaml"),
        bare_manifest(10_000),
    )
    .unwrap();
    server.send_line(
        &json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
                "params": {"name": "list_tables", "arguments": {"pattern": "s.t00000*"}}})
        .to_string(),
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    stop(&mut server);
    let reply = server.read_response(77);
    let text: Value =
        serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["total"], json!(10), "{reply}");
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn sigterm_lets_a_stdio_call_under_way_answer() {
    call_under_way_survives(|server| server.signal("-TERM"));
}

#[test]
fn sigint_lets_a_stdio_call_under_way_answer() {
    call_under_way_survives(|server| server.signal("-INT"));
}

#[test]
fn eof_lets_a_stdio_call_under_way_answer() {
    call_under_way_survives(|server| server.close_stdin());
}

/// A print of `n` tables made from the library fixture's tables, each under a new name
/// (`s.t000000`...), with its statistics, DDL and relationships.
fn scaled_print(project: &Path, n: usize, rows: u64) {
    std::fs::write(
        project.join(".dbprint.yaml"),
        "connections:\n  c:\n    adapter: duckdb\n",
    )
    .unwrap();
    let source = fixtures().join("library/prints/library/stacks/catalog");
    let templates: Vec<(String, String, String)> = ["authors", "books", "series"]
        .iter()
        .map(|t| {
            let read = |f: &str| std::fs::read_to_string(source.join(t).join(f)).unwrap();
            (
                read("statistics.yaml").replace(&format!("stacks.catalog.{t}"), "{TABLE}"),
                read("ddl.sql"),
                t.to_string(),
            )
        })
        .collect();
    let root = project.join("prints/c");
    let mut manifest = String::from("format_version: 1\ntables:\n");
    for i in 0..n {
        let (stats, ddl, _) = &templates[i % templates.len()];
        let name = format!("s.t{i:06}");
        let dir = root.join(format!("s/t{i:06}"));
        std::fs::create_dir_all(&dir).unwrap();
        let stats = stats.replace("{TABLE}", &name).replacen(
            "\nrow_count: ",
            &format!("\nrow_count: {rows}\nold_row_count: "),
            1,
        );
        std::fs::write(dir.join("statistics.yaml"), stats).unwrap();
        std::fs::write(dir.join("ddl.sql"), ddl).unwrap();
        manifest.push_str(&format!(
            "  {name}:\n    type: table\n    path: s/t{i:06}\n    artifacts:\n      ddl: ddl.sql\n      statistics: statistics.yaml\n    row_count: {rows}\n"
        ));
    }
    std::fs::write(root.join("manifest.yaml"), manifest).unwrap();
}

/// What a handful of calls answer: whole-print reads, single-table reads and search.
fn answers(server: &mut Server, n: usize) -> Vec<String> {
    // A table's age moves with the clock: everything else must match.
    let mut listed: Value =
        serde_json::from_str(&server.call("list_tables", json!({"detail": true})).0).unwrap();
    for table in listed["tables"].as_array_mut().into_iter().flatten() {
        table.as_object_mut().unwrap().remove("age_days");
    }
    let mut out = vec![
        serde_json::to_string_pretty(&listed).unwrap(),
        server.call("get_manifest", json!({})).0,
        server.call("search_columns", json!({"text": "name"})).0,
        server.call("search_columns", json!({"text": "birth"})).0,
    ];
    for i in [0, n / 2, n - 1] {
        out.push(
            server
                .call("get_table_context", json!({"table": format!("s.t{i:06}")}))
                .0,
        );
    }
    out.push(server.request("resources/list", json!({}))["result"].to_string());
    out
}

/// The answers a server on a fresh index gives for this project.
fn fresh_answers_of(project: &Path, n: usize) -> Vec<String> {
    let mut server = Server::start(project, &[]);
    answers(&mut server, n)
}

/// `fresh_answers_of` on the 300-table prints, checked to be real answers.
fn fresh_answers(project: &Path, n: usize) -> Vec<String> {
    let answers = fresh_answers_of(project, n);
    // Real answers, not errors: the comparison would prove nothing otherwise.
    assert!(answers[0].contains("\"total\": 300"), "{}", answers[0]);
    assert!(answers[2].contains("s.t000000"), "{}", answers[2]);
    assert!(
        answers[4].starts_with("# Table: s.t000000"),
        "{}",
        answers[4]
    );
    answers
}

#[test]
fn a_table_dropped_from_the_manifest_and_listed_again_is_searched_once() {
    let project = tempfile::tempdir().unwrap();
    // Six tables, the last of them a series table, whose `name` column a search finds.
    const N: usize = 6;
    scaled_print(project.path(), N, 7);
    let index = tempfile::tempdir().unwrap();
    let mut server = Server::start_in(project.path(), &[], Some(index.path()));
    let search = |server: &mut Server| server.call("search_columns", json!({"text": "name"})).0;
    let expected = search(&mut server);
    assert!(expected.contains("\"table\": \"s.t000005\""), "{expected}");
    // The manifest without the last table: this update of the search index only drops.
    let manifest_path = project.path().join("prints/c/manifest.yaml");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let (without_last, _) = manifest.split_once("  s.t000005:").unwrap();
    write_atomically(&manifest_path, without_last);
    let dropped = search(&mut server);
    assert!(!dropped.contains("s.t000005"), "{dropped}");
    // Listed again, its documents are added once, beside no others of it.
    write_atomically(&manifest_path, &manifest);
    assert_eq!(search(&mut server), expected);
    // And a later server on the same index finds the same.
    drop(server);
    let mut later = Server::start_in(project.path(), &[], Some(index.path()));
    assert_eq!(search(&mut later), expected);
}

#[test]
fn kill_9_during_index_rebuild_leaves_an_index_the_next_start_serves_correctly() {
    let project = tempfile::tempdir().unwrap();
    const N: usize = 300;
    scaled_print(project.path(), N, 7);
    let expected = fresh_answers(project.path(), N);
    let index = tempfile::tempdir().unwrap();
    // Time a whole rebuild, then kill one at points spread over that time.
    let started = std::time::Instant::now();
    let status = Command::new(bin())
        .args(["index", "rebuild", "--project"])
        .arg(project.path())
        .arg("--index-dir")
        .arg(index.path())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let whole = started.elapsed();
    eprintln!("a whole rebuild of {N} tables takes {whole:?}");
    for fraction in [0.05, 0.2, 0.4, 0.6, 0.8, 0.95] {
        let mut rebuild = Command::new(bin())
            .args(["index", "rebuild", "--project"])
            .arg(project.path())
            .arg("--index-dir")
            .arg(index.path())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(whole.mul_f64(fraction));
        rebuild.kill().unwrap(); // SIGKILL
        rebuild.wait().unwrap();
        let mut server = Server::start_in(project.path(), &[], Some(index.path()));
        if let Some((_, difference)) = first_difference(&answers(&mut server, N), &expected) {
            panic!("after a rebuild killed at {fraction} of {whole:?}, {difference}");
        }
    }
}

#[test]
fn kill_9_during_ingest_of_a_change_leaves_an_index_the_next_start_serves_correctly() {
    let project = tempfile::tempdir().unwrap();
    const N: usize = 300;
    scaled_print(project.path(), N, 7);
    let index = tempfile::tempdir().unwrap();
    {
        // Warm the index on the first generation.
        let mut server = Server::start_in(project.path(), &[], Some(index.path()));
        answers(&mut server, N);
    }
    for (round, delay_ms) in [5u64, 40, 120, 300, 600].into_iter().enumerate() {
        let mut server = Server::start_in(project.path(), &[], Some(index.path()));
        // A new generation of every file, then a call that ingests it: killed mid-way.
        scaled_print(project.path(), N, 100 + round as u64);
        server.send_line(
            &json!({"jsonrpc": "2.0", "id": 500, "method": "tools/call",
                    "params": {"name": "search_columns", "arguments": {"text": "name"}}})
            .to_string(),
        );
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        server.signal("-KILL");
        server.wait();
        let expected = fresh_answers(project.path(), N);
        let mut next = Server::start_in(project.path(), &[], Some(index.path()));
        if let Some((_, difference)) = first_difference(&answers(&mut next, N), &expected) {
            panic!("after an ingest killed {delay_ms} ms in, {difference}");
        }
    }
}

#[test]
fn two_then_eight_servers_share_an_index_and_survive_one_killed_mid_ingest() {
    let project = tempfile::tempdir().unwrap();
    const N: usize = 300;
    scaled_print(project.path(), N, 7);
    let index = tempfile::tempdir().unwrap();
    for count in [2usize, 8] {
        let generation = 1000 + count as u64;
        let mut servers: Vec<Server> = (0..count)
            .map(|_| Server::start_in(project.path(), &[], Some(index.path())))
            .collect();
        // A new generation under all of them; every server is asked at once, and the
        // first is killed while it ingests.
        scaled_print(project.path(), N, generation);
        for server in servers.iter_mut() {
            server.send_line(
                &json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
                        "params": {"name": "search_columns", "arguments": {"text": "name"}}})
                .to_string(),
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(150));
        let victim = servers.remove(0);
        victim.signal("-KILL");
        victim.wait();
        let expected = fresh_answers(project.path(), N);
        assert!(expected[0].contains(&format!("\"row_count\": {generation}")));
        for (i, server) in servers.iter_mut().enumerate() {
            let first = server.read_response(900);
            assert_eq!(
                first["result"]["isError"],
                json!(false),
                "server {i}: {first}"
            );
            if let Some((_, difference)) = first_difference(&answers(server, N), &expected) {
                panic!("server {} of {count} after the kill: {difference}", i + 1);
            }
        }
        // And a server started after the kill, on the index the victim left.
        let mut late = Server::start_in(project.path(), &[], Some(index.path()));
        if let Some((_, difference)) = first_difference(&answers(&mut late, N), &expected) {
            panic!("a late server of {count}: {difference}");
        }
    }
}

fn printdex(args: &[&str], project: &Path, index: &Path) -> (bool, String, String) {
    let out = run(Command::new(bin())
        .args(args)
        .arg("--project")
        .arg(project)
        .arg("--index-dir")
        .arg(index));
    (out.ok(), out.stdout, out.stderr)
}

/// The value of `field=` on each of the debug log's `scanned` lines, in order.
fn scanned_field(log: &str, field: &str) -> Vec<usize> {
    let lines = log
        .lines()
        .filter(|l| l.contains(" printdex::ingest: scanned "));
    lines
        .filter_map(|line| {
            let (_, rest) = line.split_once(&format!(" {field}="))?;
            rest.split(' ').next()?.parse().ok()
        })
        .collect()
}

#[test]
fn index_rebuild_names_every_table_file_to_the_kernel_before_reading_it() {
    let project = tempfile::tempdir().unwrap();
    scaled_print(project.path(), 20, 7);
    let index = tempfile::tempdir().unwrap();
    let (ok, _, err) = printdex(
        &["index", "rebuild", "--debug"],
        project.path(),
        index.path(),
    );
    assert!(ok, "{err}");
    // The rebuild's scan, then its own start on what it built (which keeps what a first
    // session reads). 44 files each: the manifest, diff.yaml, reading.md and
    // manifest.annotations.yaml are read before the tables. The rebuild reads every file,
    // and names each of the tables' 40 to the kernel ahead of its read; the start over a
    // mirror that holds them names none.
    assert_eq!(scanned_field(&err, "files"), [44, 44], "{err}");
    assert_eq!(scanned_field(&err, "named_ahead"), [40, 0], "{err}");
}

#[test]
fn index_rebuild_summarizes_and_status_reports_the_last_reconcile() {
    let project = tempfile::tempdir().unwrap();
    scaled_print(project.path(), 20, 7);
    // Written a minute ago: identities read now are settled (see FileIdentity).
    let back = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for rel in relative_files(&project.path().join("prints/c")) {
        let path = project.path().join("prints/c").join(rel);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(back).unwrap();
    }
    let index = tempfile::tempdir().unwrap();
    let (ok, out, _) = printdex(&["index", "status"], project.path(), index.path());
    assert!(ok);
    assert!(out.starts_with("index: none at "), "{out}");
    let (ok, _, err) = printdex(&["index", "rebuild"], project.path(), index.path());
    assert!(ok, "{err}");
    // The summary: connections, tables, columns (7 x 5 + 7 x 12 + 6 x 3), files, size, seconds.
    assert!(
        err.contains("indexed 1 connection(s): 20 tables, 137 columns, 44 files, "),
        "{err}"
    );
    let (ok, out, _) = printdex(&["index", "status"], project.path(), index.path());
    assert!(ok);
    assert!(out.contains("files: 44  tables: 20"), "{out}");
    // diff.yaml, reading.md and manifest.annotations.yaml are looked for, not there; the
    // last is optional (human-written), so it is not reported absent.
    assert!(
        out.contains("c: 44 files (0 unparseable, 2 absent: diff.yaml, reading.md)"),
        "{out}"
    );
    // The last reconcile is the rebuild's own start on the index it built (which keeps
    // what a first session reads): every file checked, none read again.
    assert!(
        out.contains("  last reconcile: ") && out.contains(" 44 files checked, 0 read again,"),
        "{out}"
    );
    // A warm start reads nothing again, absent files included (they stay absent).
    assert!(Server::start_in(project.path(), &[], Some(index.path()))
        .close()
        .success());
    let (_, out, _) = printdex(&["index", "status"], project.path(), index.path());
    assert!(out.contains(" 44 files checked, 0 read again,"), "{out}");
    // One of them appearing is read.
    std::fs::write(project.path().join("prints/c/diff.yaml"), "changes: []\n").unwrap();
    assert!(Server::start_in(project.path(), &[], Some(index.path()))
        .close()
        .success());
    let (_, out, _) = printdex(&["index", "status"], project.path(), index.path());
    assert!(
        out.contains("(0 unparseable, 1 absent: reading.md)") && out.contains(" 1 read again,"),
        "{out}"
    );
    // An index of another format is reported, not touched.
    let old = tempfile::tempdir().unwrap();
    let conn = foreign_mirror(old.path());
    let (ok, out, _) = printdex(&["index", "status"], project.path(), old.path());
    assert!(ok);
    assert!(out.contains("rebuilt at the next start"), "{out}");
    assert_eq!(
        std::fs::read(old.path().join("mirror.sqlite")).unwrap(),
        conn
    );
}

/// A mirror file written by "another version": any bytes that are not this schema.
fn foreign_mirror(dir: &Path) -> Vec<u8> {
    let bytes = b"not a mirror of this printdex".to_vec();
    std::fs::write(dir.join("mirror.sqlite"), &bytes).unwrap();
    bytes
}

#[test]
fn a_corrupt_or_foreign_index_is_rebuilt_not_served() {
    let project = tempfile::tempdir().unwrap();
    const N: usize = 12;
    scaled_print(project.path(), N, 7);
    let expected = fresh_answers_of(project.path(), N);
    let index = tempfile::tempdir().unwrap();
    {
        let mut server = Server::start_in(project.path(), &[], Some(index.path()));
        answers(&mut server, N);
    }
    // Garbage where the mirror and the search index's metadata were.
    std::fs::write(index.path().join("mirror.sqlite"), b"garbage, not SQLite").unwrap();
    let _ = std::fs::remove_file(index.path().join("mirror.sqlite-wal"));
    std::fs::write(index.path().join("search/meta.json"), b"{ not json").unwrap();
    let mut server = Server::start_in(project.path(), &[], Some(index.path()));
    assert!(answers(&mut server, N) == expected);
}
