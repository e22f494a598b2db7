//! The index-location fault matrix for `printdex pz serve`, as `index` holds it for
//! `printdex serve`: a pz project is stored on the same location machinery, so a damaged
//! mirror, a mirror that is a directory, an index directory that is read-only or a plain
//! file, a writer lock held by a stopped process, and an index directory removed under a
//! running server each cost a rebuild or a private index, never a failed start or a
//! wrong answer. After each fault, pz_project_overview and pz_compile answer what a
//! server on a fresh index answers over the same project, within 10 s (a watchdog that
//! kills the server, so a hang fails the test; not a timing assertion).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::write_atomically;
use crate::util::{copy_dir, fixtures, Server, NO_HANDSHAKE};

/// How soon after a fault the answers must come.
const WITHIN: Duration = Duration::from_secs(10);

/// A private copy of the sample pz project.
pub fn sample_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("pz-projects/sample/project"), dir.path());
    dir
}

/// A directory on no PATH holding no `pz`: the server answers alone, never through pz.
fn no_pz_path() -> PathBuf {
    let dir = std::env::temp_dir().join("printdex-pz-faults-no-pz");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `printdex pz serve --project <project> --index-dir <index>`, not yet initialized, with
/// `configure` setting up its command further.
pub fn start_pz(project: &Path, index: &Path, configure: impl FnOnce(&mut Command)) -> Server {
    Server::start_with(
        project.as_os_str(),
        &[NO_HANDSHAKE],
        Some(index),
        |command| {
            // `Server` adds `serve --project … --index-dir …`: `pz` goes before it.
            command
                .arg("pz")
                .env("PZ_BIN", "")
                .env("PATH", no_pz_path());
            configure(command);
        },
    )
}

/// Kill the server (so its pending read fails the test) unless `f` is done within `limit`.
fn within<T>(server: &mut Server, limit: Duration, f: impl FnOnce(&mut Server) -> T) -> T {
    let done = Arc::new(AtomicBool::new(false));
    let pid = server.pid();
    let watch = {
        let done = done.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            while started.elapsed() < limit && !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
            if !done.load(Ordering::SeqCst) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        })
    };
    let out = f(server);
    done.store(true, Ordering::SeqCst);
    let _ = watch.join();
    out
}

pub fn initialize(server: &mut Server) {
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    server.notify("notifications/initialized", json!({}));
}

/// A pz tool's envelope, which must be a result and not the backstop.
fn envelope(server: &mut Server, tool: &str) -> String {
    let r = server.request("tools/call", json!({"name": tool, "arguments": {}}));
    let result = &r["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool}: no text in {r}"))
        .to_string();
    assert_ne!(result["isError"], json!(true), "{tool}: {text}");
    assert!(!text.contains("PZ0609"), "{tool}: {text}");
    text
}

/// What the matrix compares: pz_project_overview and pz_compile.
pub fn pz_answers(server: &mut Server) -> Vec<String> {
    vec![
        envelope(server, "pz_project_overview"),
        envelope(server, "pz_compile"),
    ]
}

/// What a server on a fresh index answers over `project` as it is now.
pub fn fresh_pz(project: &Path) -> Vec<String> {
    let index = tempfile::tempdir().unwrap();
    let mut server = start_pz(project, index.path(), |_| {});
    initialize(&mut server);
    let out = pz_answers(&mut server);
    let overview: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(overview["ok"], json!(true), "{}", out[0]);
    out
}

/// A server started on `index` answers initialize and both tools within `WITHIN`.
fn answers_after_start(
    project: &Path,
    index: &Path,
    configure: impl FnOnce(&mut Command),
) -> Vec<String> {
    let mut server = start_pz(project, index, configure);
    within(&mut server, WITHIN, |s| {
        initialize(s);
        pz_answers(s)
    })
}

/// A full index of `project` in `index`, left by a clean shutdown.
fn warm(project: &Path, index: &Path) {
    let mut server = start_pz(project, index, |_| {});
    initialize(&mut server);
    pz_answers(&mut server);
    assert!(server.close().success());
    assert!(index.join("mirror.sqlite").is_file());
}

/// An edit pz_project_overview shows: a new pipeline reading an existing one.
fn edit_project(project: &Path) {
    write_atomically(
        &project.join("pipelines/order_count.sql"),
        "select count(*) as n from {{ ref('stg_orders') }}\n",
    );
}

fn shows_the_edit(answers: &[String]) {
    assert!(answers[0].contains("order_count"), "{}", answers[0]);
}

#[test]
fn a_damaged_pz_mirror_is_built_again() {
    let project = sample_project();
    let expected = fresh_pz(project.path());
    let index = tempfile::tempdir().unwrap();
    warm(project.path(), index.path());
    let mirror = index.path().join("mirror.sqlite");
    // Its first page (the header and the schema's root) overwritten with bytes that are
    // no page.
    let mut bytes = std::fs::read(&mirror).unwrap();
    for (i, b) in bytes.iter_mut().take(4096).enumerate() {
        *b = (i as u32).wrapping_mul(2654435761).to_le_bytes()[1];
    }
    std::fs::write(&mirror, bytes).unwrap();
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
    // Made again in place: a database once more.
    let header = std::fs::read(&mirror).unwrap();
    assert!(header.starts_with(b"SQLite format 3\0"), "not rebuilt");
    // What was built in its place serves the next start too.
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
}

#[test]
fn a_pz_mirror_that_is_a_directory_does_not_stop_a_start() {
    let project = sample_project();
    let expected = fresh_pz(project.path());
    let index = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(index.path().join("mirror.sqlite/inside")).unwrap();
    assert_eq!(
        answers_after_start(project.path(), index.path(), |_| {}),
        expected
    );
}

#[test]
fn a_pz_index_dir_that_is_a_plain_file_is_stood_in_for() {
    let project = sample_project();
    let expected = fresh_pz(project.path());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("index");
    std::fs::write(&file, "not a directory").unwrap();
    assert_eq!(answers_after_start(project.path(), &file, |_| {}), expected);
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

/// Run the server inside a user and mount namespace of its own where `index` is a mount
/// made by `mount` (a shell line; `$D` is the index directory). Fails where this system
/// lets no unprivileged process make one: the fault cannot be staged then.
fn in_own_mount(project: &Path, index: &Path, mount: &str) -> Vec<String> {
    // The namespace's shell finds `unshare`'s tools on the outer PATH; the server, only the
    // PATH without pz.
    let setup = format!("{mount}; export PATH='{}'", no_pz_path().display());
    answers_after_start(project, index, |command| {
        let mut wrapped = crate::util::in_own_mount_namespace(index, &setup);
        wrapped.arg("pz").env("PZ_BIN", "");
        *command = wrapped;
    })
}

#[test]
fn a_read_only_pz_index_dir_with_a_full_index_is_read_not_written() {
    let project = sample_project();
    let expected = fresh_pz(project.path());
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

/// A process holding `index`'s writer lock, stopped (SIGSTOP) so it never lets go, as a
/// stopped `index rebuild` or `pz serve` would. Killed when dropped.
struct StoppedHolder(Child);

impl StoppedHolder {
    fn hold(index: &Path) -> StoppedHolder {
        std::fs::create_dir_all(index).unwrap();
        let lock = index.join("writer.lock");
        // `--no-fork`: the process holding the lock is the one stopped and killed here.
        let child = Command::new("flock")
            .arg("--no-fork")
            .arg(&lock)
            .args(["sleep", "600"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("flock(1) runs");
        let holder = StoppedHolder(child);
        // Held once a lock of our own cannot be taken.
        let started = Instant::now();
        loop {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock)
                .unwrap();
            match file.try_lock() {
                Ok(()) => drop(file),
                Err(_) => break,
            }
            assert!(started.elapsed() < WITHIN, "flock never took the lock");
            std::thread::sleep(Duration::from_millis(10));
        }
        let stopped = Command::new("kill")
            .args(["-STOP", &holder.0.id().to_string()])
            .status()
            .unwrap();
        assert!(stopped.success());
        holder
    }
}

impl Drop for StoppedHolder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_pz_writer_lock_held_by_a_stopped_process_does_not_stop_a_start() {
    let project = sample_project();
    let expected = fresh_pz(project.path());
    for warm_first in [false, true] {
        let index = tempfile::tempdir().unwrap();
        if warm_first {
            warm(project.path(), index.path());
        }
        let _held = StoppedHolder::hold(index.path());
        assert_eq!(
            answers_after_start(project.path(), index.path(), |_| {}),
            expected,
            "warm index: {warm_first}"
        );
    }
}

#[test]
fn a_pz_writer_lock_held_by_a_stopped_process_does_not_hang_a_running_server() {
    let project = sample_project();
    let index = tempfile::tempdir().unwrap();
    let mut server = start_pz(project.path(), index.path(), |_| {});
    initialize(&mut server);
    pz_answers(&mut server);
    let _held = StoppedHolder::hold(index.path());
    edit_project(project.path());
    let expected = fresh_pz(project.path());
    let answered = within(&mut server, WITHIN, pz_answers);
    assert_eq!(answered, expected);
    shows_the_edit(&answered);
}

#[test]
fn a_pz_index_dir_removed_under_a_running_server_is_made_again() {
    let project = sample_project();
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let mut server = start_pz(project.path(), &index, |_| {});
    initialize(&mut server);
    pz_answers(&mut server);
    // The server may write into it while it goes: remove until it is gone.
    for tries in 1.. {
        match std::fs::remove_dir_all(&index) {
            Ok(()) => break,
            Err(_) if !index.exists() => break,
            Err(e) => assert!(tries < 50, "{}: {e}", index.display()),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Unchanged: still the right answers.
    let before = fresh_pz(project.path());
    assert_eq!(within(&mut server, WITHIN, pz_answers), before);
    edit_project(project.path());
    let edited = Instant::now();
    let expected = fresh_pz(project.path());
    let answered = within(&mut server, WITHIN, pz_answers);
    assert_eq!(answered, expected);
    shows_the_edit(&answered);
    // The location is made again by the write the edit cost, not left for a restart.
    while !index.join("mirror.sqlite").is_file() {
        assert!(
            edited.elapsed() < WITHIN,
            "{} not made again",
            index.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(server.close().success());
    assert_eq!(
        answers_after_start(project.path(), &index, |_| {}),
        expected
    );
}
