//! Stdio sessions sharing one server per index (`mcp::shared`): later sessions attach to
//! the host the first one started and answer as an in-process server does; a host killed
//! under a session, a stopped one, one of another version, an idle one, edits between
//! sessions and an unsafe socket directory each cost at most an in-process server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::{bin, copy_dir, fixtures, send_signal, Server};

/// A runtime directory for hosts, and the environment that turns sharing on with it.
struct Hosts {
    dir: tempfile::TempDir,
    idle_secs: &'static str,
}

impl Hosts {
    fn new(idle_secs: &'static str) -> Hosts {
        let parent = tempfile::tempdir().unwrap();
        let hosts = Hosts {
            dir: parent,
            idle_secs,
        };
        std::fs::create_dir(hosts.runtime()).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(hosts.runtime(), std::fs::Permissions::from_mode(0o700)).unwrap();
        hosts
    }

    fn runtime(&self) -> PathBuf {
        self.dir.path().join("run")
    }

    fn share(&self, command: &mut Command) {
        command
            .env("PRINTDEX_SHARED", "on")
            .env("PRINTDEX_RUNTIME_DIR", self.runtime())
            .env("PRINTDEX_SHARED_IDLE_SECS", self.idle_secs);
    }

    /// A session on `project` and `index`, initialized, attached when it can be.
    fn session(&self, project: &Path, index: &Path) -> Server {
        Server::start_with(project.as_os_str(), &[], Some(index), |c| self.share(c))
    }

    /// The same, run by another copy of the binary (`exe`).
    fn session_of(&self, exe: &Path, project: &Path, index: &Path) -> Server {
        Server::start_with(project.as_os_str(), &[], Some(index), |c| {
            *c = Command::new(exe);
            self.share(c);
        })
    }

    /// The hosts' process ids, from their pid files.
    fn pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = files_ending(&self.runtime(), ".pid")
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok()?.trim().parse().ok())
            .collect();
        pids.sort();
        pids
    }

    fn sockets(&self) -> Vec<PathBuf> {
        files_ending(&self.runtime(), ".sock")
    }
}

impl Drop for Hosts {
    /// No host outlives its test.
    fn drop(&mut self) {
        for pid in self.pids() {
            // One already gone is no failure here.
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(pid.to_string())
                .status();
        }
    }
}

fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect()
        })
        .unwrap_or_default()
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split(' ').nth(2) == Some("Z"))
}

/// Wait (bounded) until `done` holds.
fn eventually(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let since = Instant::now();
    while !done() {
        assert!(since.elapsed() < within, "not within {within:?}: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Hosts with this idle limit, a copy of the library project, and an index directory.
fn set_up(idle_secs: &'static str) -> (Hosts, tempfile::TempDir, tempfile::TempDir) {
    let index = tempfile::tempdir().unwrap();
    (Hosts::new(idle_secs), library(), index)
}

fn library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("library"), dir.path());
    dir
}

/// What a session answers: tools/list, list_tables, a table's context, a search, SQL
/// checked, a page of the diff.
fn answers(server: &mut Server) -> Vec<String> {
    let mut got = vec![server.request("tools/list", json!({}))["result"].to_string()];
    for (tool, arguments) in [
        ("list_tables", json!({})),
        (
            "get_table_context",
            json!({"table": "stacks.lending.loans", "format": "json"}),
        ),
        ("search_columns", json!({"text": "status"})),
        (
            "validate_sql",
            json!({"sql": "SELECT status FROM lending.loans", "format": "json"}),
        ),
        ("get_diff", json!({})),
    ] {
        got.push(server.call(tool, arguments).0);
    }
    got
}

/// The same answers from an in-process server on a fresh index.
fn in_process_answers(project: &Path) -> Vec<String> {
    answers(&mut Server::start(project, &[]))
}

#[test]
fn sessions_on_one_index_attach_to_the_one_shared_server_and_answer_as_in_process() {
    let (hosts, project, index) = set_up("60");
    let expected = in_process_answers(project.path());

    let mut first = hosts.session(project.path(), index.path());
    let mut second = hosts.session(project.path(), index.path());
    let mut third = hosts.session(project.path(), index.path());
    let pids = hosts.pids();
    assert_eq!(pids.len(), 1, "one host for one index: {pids:?}");
    assert!(alive(pids[0]));
    for server in [&mut first, &mut second, &mut third] {
        assert_ne!(
            server.pid(),
            pids[0],
            "the session relays to a host of its own"
        );
        assert_eq!(answers(server), expected);
    }
    // Another index is another host.
    let other = tempfile::tempdir().unwrap();
    let mut elsewhere = hosts.session(project.path(), other.path());
    assert_eq!(answers(&mut elsewhere), expected);
    assert_eq!(hosts.pids().len(), 2);
}

#[test]
fn five_sessions_started_at_once_share_one_server() {
    let (hosts, project, index) = set_up("60");
    let expected = in_process_answers(project.path());
    let answered: Vec<Vec<String>> = std::thread::scope(|scope| {
        let started: Vec<_> = (0..5)
            .map(|_| scope.spawn(|| answers(&mut hosts.session(project.path(), index.path()))))
            .collect();
        started.into_iter().map(|s| s.join().unwrap()).collect()
    });
    for got in answered {
        assert_eq!(got, expected);
    }
    assert_eq!(
        hosts.pids().len(),
        1,
        "the race to start a host has one winner"
    );
}

#[test]
fn a_session_whose_shared_server_is_killed_keeps_answering_in_process() {
    let (hosts, project, index) = set_up("60");
    let expected = in_process_answers(project.path());
    let mut server = hosts.session(project.path(), index.path());
    assert_eq!(answers(&mut server), expected);
    let host = hosts.pids()[0];

    // A call under way when the host dies is answered once, by whichever server.
    server.send_line(
        &json!({"jsonrpc": "2.0", "id": 9001, "method": "tools/call",
                "params": {"name": "get_diff", "arguments": {}}})
        .to_string(),
    );
    send_signal(host, "-KILL");
    let answer: serde_json::Value = serde_json::from_str(&server.next_line()).unwrap();
    assert_eq!(answer["id"], 9001, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"].as_str(),
        Some(expected[5].as_str())
    );
    // The session goes on without a new handshake, and answers as before.
    assert_eq!(answers(&mut server), expected);
    assert!(server.alive(), "the session outlived its host");
}

#[test]
fn a_stopped_shared_server_costs_a_new_session_an_in_process_server_within_seconds() {
    let (hosts, project, index) = set_up("60");
    let expected = in_process_answers(project.path());
    drop(hosts.session(project.path(), index.path()));
    let host = hosts.pids()[0];
    send_signal(host, "-STOP");
    let since = Instant::now();
    let mut server = hosts.session(project.path(), index.path());
    let waited = since.elapsed();
    send_signal(host, "-CONT");
    assert!(
        waited < Duration::from_secs(30),
        "a stopped host is given up on after its silence, not waited for: {waited:?}"
    );
    assert_eq!(answers(&mut server), expected);
}

#[test]
fn a_binary_of_another_version_neither_attaches_nor_is_attached_to() {
    let (hosts, project, index) = set_up("60");
    let expected = in_process_answers(project.path());
    // A copy of the binary is another build: another size or modification time.
    let copies = tempfile::tempdir().unwrap();
    let other = copies.path().join("printdex-other");
    std::fs::copy(bin(), &other).unwrap();

    let mut ours = hosts.session(project.path(), index.path());
    let mut theirs = hosts.session_of(&other, project.path(), index.path());
    assert_eq!(hosts.pids().len(), 2, "each version has its own host");
    assert_eq!(answers(&mut ours), expected);
    assert_eq!(answers(&mut theirs), expected);

    // A hello in another version is refused by the host, in words.
    let socket = hosts.sockets().into_iter().next().unwrap();
    let mut stream = std::os::unix::net::UnixStream::connect(socket).unwrap();
    use std::io::{BufRead, Write};
    writeln!(
        stream,
        "{}",
        json!({"printdex_attach": 1, "version": "0.0.0+old", "key": "k"})
    )
    .unwrap();
    let mut reply = String::new();
    std::io::BufReader::new(stream)
        .read_line(&mut reply)
        .unwrap();
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let reason = reply["refused"]["reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("version 0.0.0+old asked"), "{reply}");
}

#[test]
fn an_idle_shared_server_exits_and_edits_between_sessions_are_answered() {
    let (hosts, project, index) = set_up("5");
    let stats = project
        .path()
        .join("prints/library/stacks/lending/loans/statistics.yaml");
    let rename = |from: &str, to: &str| {
        let text = std::fs::read_to_string(&stats).unwrap();
        assert!(text.contains(from), "loans has {from}");
        std::fs::write(&stats, text.replace(from, to)).unwrap();
    };

    drop(hosts.session(project.path(), index.path()));
    let host = hosts.pids()[0];
    // An edit while the host serves no session: the next session, on the same host,
    // answers it.
    rename("\n  status:\n", "\n  state:\n");
    let mut server = hosts.session(project.path(), index.path());
    assert_eq!(hosts.pids(), vec![host], "the same host");
    assert_eq!(answers(&mut server), in_process_answers(project.path()));
    drop(server);

    eventually("the idle host exits", Duration::from_secs(60), || {
        !alive(host)
    });
    assert!(hosts.sockets().is_empty(), "its socket went with it");
    // An edit while no server runs: the next session starts a host that answers it.
    rename("\n  state:\n", "\n  standing:\n");
    let mut server = hosts.session(project.path(), index.path());
    assert_ne!(hosts.pids(), vec![host], "a new host");
    assert_eq!(answers(&mut server), in_process_answers(project.path()));
}

#[test]
fn a_socket_directory_others_may_enter_costs_an_in_process_server() {
    let (hosts, project, index) = set_up("60");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(hosts.runtime(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut server = hosts.session(project.path(), index.path());
    assert_eq!(answers(&mut server), in_process_answers(project.path()));
    assert!(
        hosts.pids().is_empty(),
        "no host listens where others may enter"
    );
}

#[test]
fn an_attached_session_answers_bad_lines_byte_for_byte_as_in_process() {
    let (hosts, project, index) = set_up("60");
    let mut invalid_utf8 = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_tables","arguments":{"pattern":"catalog"#.to_vec();
    invalid_utf8.extend_from_slice(b"\xff\xfe*\"}}}");
    let pad = "a".repeat(17 * 1024 * 1024);
    let lines: Vec<Vec<u8>> = vec![
        b"hello".to_vec(),
        br#"{"jsonrpc":"2.0","id":9,"method":"pi"#.to_vec(),
        invalid_utf8,
        br#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":"x","method":"no/such"}"#.to_vec(),
        br#"[{"jsonrpc":"2.0","id":30,"method":"ping"}]"#.to_vec(),
        format!(r#"{{"jsonrpc":"2.0","id":22,"method":"ping","params":{{"s":"{pad}"}}}}"#)
            .into_bytes(),
        br#"{"jsonrpc":"2.0","id":"still","method":"ping"}"#.to_vec(),
    ];
    let answers = |server: &mut Server| -> Vec<String> {
        lines
            .iter()
            .map(|line| {
                server.send_bytes(line);
                server.next_line()
            })
            .collect()
    };
    let in_process = answers(&mut Server::start(project.path(), &[]));
    let mut attached = hosts.session(project.path(), index.path());
    assert_eq!(hosts.pids().len(), 1, "attached to a host");
    assert_eq!(answers(&mut attached), in_process);
    assert!(attached.alive());
}

#[test]
fn a_signalled_session_ends_and_its_shared_server_serves_the_others() {
    let (hosts, project, index) = set_up("60");
    let expected = in_process_answers(project.path());
    let first = hosts.session(project.path(), index.path());
    let mut second = hosts.session(project.path(), index.path());
    let host = hosts.pids()[0];
    first.signal("-TERM");
    let status = first.wait();
    assert!(status.success(), "{status:?}");
    assert!(alive(host), "the host outlives a session's command");
    assert_eq!(answers(&mut second), expected);
}

#[test]
fn a_shared_server_reads_back_what_is_kept_before_its_sessions_ask() {
    let (hosts, project, index) = set_up("1");
    let logged = |c: &mut Command| {
        hosts.share(c);
        c.env("PRINTDEX_LOG", "printdex=debug");
    };
    let session =
        || Server::start_with(project.path().as_os_str(), &[], Some(index.path()), logged);
    // The first host builds validate_sql's catalog and keeps it, then exits when idle.
    let mut first = session();
    first.call("validate_sql", json!({"sql": "SELECT 1"}));
    drop(first);
    let host = hosts.pids()[0];
    eventually("the idle host exits", Duration::from_secs(60), || {
        !alive(host)
    });

    // The next host reads it back in its warm-up, before any call asks for it.
    let _second = session();
    let log = files_ending(&hosts.runtime(), ".log")
        .pop()
        .expect("the host's log");
    eventually(
        "the catalog read back without a call",
        Duration::from_secs(60),
        || {
            std::fs::read_to_string(&log).is_ok_and(|text| {
                text.lines().any(|l| {
                    l.contains("a kept value read back") && l.contains("validate_sql catalog")
                })
            })
        },
    );
}
