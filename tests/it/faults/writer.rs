//! The writer lock held by another process. A live writer (one that beats: a start's
//! reconcile, a rebuild) is read around or waited for, never stood in for: sessions
//! started while it writes answer from the shared index and build no private one. A
//! stopped writer (SIGSTOP) still costs a private index, within the bounded wait.
//!
//! The writer is a real one: this test binary run again as a child process for
//! `a_writer_holding_the_lock` alone, which rebuilds the project's index with
//! `Store::rebuild` and, from its progress callback (so under the lock, its beat going
//! on), holds the lock as the parent test says.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::index::{answers, edit_print, fresh, shows_the_edit, warm};
use crate::util::{library, Process, Server, NO_HANDSHAKE, PROTOCOL_VERSION};

/// The environment the child writer reads: the project, the index, the directory the
/// two processes signal through (`holding`, `release`, `released`), and the least it
/// holds the lock for, in seconds.
const PROJECT_VAR: &str = "PRINTDEX_IT_WRITER_PROJECT";
const INDEX_VAR: &str = "PRINTDEX_IT_WRITER_INDEX";
const SIGNALS_VAR: &str = "PRINTDEX_IT_WRITER_SIGNALS";
const HOLD_VAR: &str = "PRINTDEX_IT_WRITER_HOLD_SECS";
/// The child lets go after this long even when never told to (a failed parent).
const HOLD_AT_MOST: Duration = Duration::from_secs(90);
/// Longer than a beat stays believed after the writer stopped beating.
#[cfg(unix)]
const BEAT_GOES_STALE: Duration = Duration::from_millis(2500);
const PRIVATE_PREFIX: &str = "printdex-private-index-";

#[test]
#[ignore = "not a test on its own: the writer the tests of this module start as a child process, with their environment"]
fn a_writer_holding_the_lock() {
    let var = |name: &str| -> PathBuf {
        std::env::var_os(name)
            .unwrap_or_else(|| panic!("{name} is unset: run only by this module's tests"))
            .into()
    };
    let (project, index, signals) = (var(PROJECT_VAR), var(INDEX_VAR), var(SIGNALS_VAR));
    let at_least = Duration::from_secs(
        std::env::var(HOLD_VAR)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
    );
    let config = printdex::config::load_at(&project.to_string_lossy()).unwrap();
    let served = printdex::config::Served::resolve(&config, None).unwrap();
    let held = std::sync::Once::new();
    let store = printdex::store::Store::rebuild(served, &index, &|_, _, _| {
        held.call_once(|| hold(&signals, at_least));
    })
    .unwrap();
    assert!(
        !store.index_is_private(),
        "the writer wrote a private index"
    );
    store.close();
    std::fs::write(signals.join("released"), "").unwrap();
}

/// Say the lock is held, then keep it for `at_least` and until the parent says `release`.
fn hold(signals: &Path, at_least: Duration) {
    std::fs::write(signals.join("holding"), "").unwrap();
    let started = Instant::now();
    while started.elapsed() < HOLD_AT_MOST
        && (started.elapsed() < at_least || !signals.join("release").exists())
    {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The child writer, holding the lock of `index` by the time this returns.
struct Writer {
    process: Process,
    signals: tempfile::TempDir,
}

impl Writer {
    fn start(project: &Path, index: &Path, at_least: Duration) -> Writer {
        let signals = tempfile::tempdir().unwrap();
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "faults::writer::a_writer_holding_the_lock",
                "--exact",
                "--ignored",
            ])
            .env(PROJECT_VAR, project)
            .env(INDEX_VAR, index)
            .env(SIGNALS_VAR, signals.path())
            .env(HOLD_VAR, at_least.as_secs().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut writer = Writer {
            process: Process::spawn(&mut command),
            signals,
        };
        let started = Instant::now();
        while !writer.signalled("holding") {
            assert!(
                writer.process.alive(),
                "the writer exited before it held the lock"
            );
            assert!(
                started.elapsed() < HOLD_AT_MOST,
                "the writer never held the lock"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        writer
    }

    fn signalled(&self, name: &str) -> bool {
        self.signals.path().join(name).exists()
    }

    /// Whether it still holds the lock: running, and not done.
    fn holding(&mut self) -> bool {
        self.process.alive() && !self.signalled("released")
    }

    /// Let it finish its rebuild; it must succeed.
    fn release(mut self) {
        std::fs::write(self.signals.path().join("release"), "").unwrap();
        assert!(self.process.wait().success(), "the writer failed");
        assert!(self.signalled("released"));
    }
}

/// A server on `index` with its temporary directory in `tmp` (where a private index
/// would go), started at once: initialize is sent later.
pub(super) fn start_server(project: &Path, index: &Path, tmp: &Path) -> Server {
    Server::start_with(project.as_os_str(), &[NO_HANDSHAKE], Some(index), |c| {
        c.env("TMPDIR", tmp);
    })
}

/// The private indexes servers made in `tmp`.
pub(super) fn private_indexes(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(PRIVATE_PREFIX))
        .collect()
}

#[test]
fn five_sessions_started_while_a_live_writer_holds_the_lock_answer_from_the_shared_index() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    let expected = fresh(project.path());
    let mut writer = Writer::start(project.path(), index.path(), Duration::from_secs(10));
    let mut servers: Vec<Server> = (0..5)
        .map(|_| start_server(project.path(), index.path(), tmp.path()))
        .collect();
    for (i, server) in servers.iter_mut().enumerate() {
        server.initialize(PROTOCOL_VERSION);
        assert_eq!(answers(server), expected, "session {i}");
    }
    // Answered while the writer held the lock: read around it, not waited for.
    assert!(writer.holding(), "the sessions waited for the writer");
    assert_eq!(private_indexes(tmp.path()), Vec::<String>::new());
    writer.release();
    // And once it has written and let go, as a fresh index answers still.
    for (i, server) in servers.iter_mut().enumerate() {
        assert_eq!(answers(server), expected, "session {i} after the writer");
    }
    assert_eq!(private_indexes(tmp.path()), Vec::<String>::new());
}

#[test]
fn a_session_started_beside_a_live_writer_over_an_edited_print_waits_for_it_and_answers_the_edit() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    // Edited while no server ran: the index no longer matches the print, so a start
    // cannot read around the writer.
    edit_print(project.path());
    let expected = fresh(project.path());
    shows_the_edit(&expected);
    let writer = Writer::start(project.path(), index.path(), Duration::ZERO);
    let mut server = start_server(project.path(), index.path(), tmp.path());
    // Longer than a wait for a stopped writer lasts: this one beats, so it is waited for.
    std::thread::sleep(Duration::from_secs(5));
    writer.release();
    server.initialize(PROTOCOL_VERSION);
    assert_eq!(answers(&mut server), expected);
    assert_eq!(private_indexes(tmp.path()), Vec::<String>::new());
}

#[cfg(unix)]
#[test]
fn a_session_started_while_a_stopped_writer_holds_the_lock_answers_from_a_private_index() {
    let project = library();
    let index = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    let expected = fresh(project.path());
    let mut writer = Writer::start(project.path(), index.path(), Duration::ZERO);
    writer.process.signal("-STOP");
    // Its beat stands still from now on; once it is older than a beat is believed for,
    // the holder is a stopped one.
    std::thread::sleep(BEAT_GOES_STALE);
    let mut server = start_server(project.path(), index.path(), tmp.path());
    let answered = server.within(super::index::WITHIN, |s| {
        s.initialize(PROTOCOL_VERSION);
        answers(s)
    });
    assert_eq!(answered, expected);
    assert_eq!(private_indexes(tmp.path()).len(), 1, "no private index");
    assert!(writer.holding(), "the stopped writer let go");
    writer.process.signal("-CONT");
    writer.release();
}
