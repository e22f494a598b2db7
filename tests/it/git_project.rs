//! `--project` as a git address (dbprint 0.15.0's forms), over `file://` bare repositories
//! each test makes: cloned into printdex's cache on first use, refreshed at most once per
//! interval (never for a pinned commit), the cached copy served when a refresh fails, a
//! served project following new commits; unsafe addresses refused with dbprint's texts.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{bin, copy_dir, fixtures, session, tool_call, Server, Session};

const TABLE: &str = "stacks.catalog.series";
const STATISTICS: &str = "proj/prints/library/stacks/catalog/series/statistics.yaml";

/// `git ARGS` in `dir`, with an identity of its own; panics on failure.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=it", "-c", "user.email=it@example.invalid"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A bare repository holding the library fixture under `proj/`, a work tree to commit
/// from, and a cache directory for printdex, all in one temp dir.
pub(crate) struct Remote {
    tmp: tempfile::TempDir,
}

impl Remote {
    pub(crate) fn new() -> Remote {
        let tmp = tempfile::tempdir().unwrap();
        let remote = Remote { tmp };
        std::fs::create_dir_all(remote.bare()).unwrap();
        git(&remote.bare(), &["init", "--quiet", "--bare", "-b", "main"]);
        std::fs::create_dir_all(remote.work()).unwrap();
        git(&remote.work(), &["init", "--quiet", "-b", "main"]);
        copy_dir(&fixtures().join("library"), &remote.work().join("proj"));
        remote.commit("the library print");
        git(&remote.work(), &["remote", "add", "origin", &remote.url()]);
        git(&remote.work(), &["push", "--quiet", "origin", "main"]);
        remote
    }

    fn bare(&self) -> PathBuf {
        self.tmp.path().join("remote.git")
    }

    fn work(&self) -> PathBuf {
        self.tmp.path().join("work")
    }

    pub(crate) fn cache(&self) -> PathBuf {
        self.tmp.path().join("cache")
    }

    fn url(&self) -> String {
        format!("file://{}", self.bare().display())
    }

    /// `<url>#<reference>:proj`.
    pub(crate) fn address(&self, reference: &str) -> String {
        format!("{}#{reference}:proj", self.url())
    }

    fn commit(&self, message: &str) -> String {
        git(&self.work(), &["add", "-A"]);
        git(&self.work(), &["commit", "--quiet", "-m", message]);
        git(&self.work(), &["rev-parse", "HEAD"])
    }

    /// Commit (and push) TABLE's statistics with `row_count: rows`.
    fn push_rows(&self, rows: u32) {
        let path = self.work().join(STATISTICS);
        let text = std::fs::read_to_string(&path).unwrap();
        let at = text.find("\nrow_count: ").unwrap() + 1;
        let end = at + text[at..].find('\n').unwrap();
        let changed = format!("{}row_count: {rows}{}", &text[..at], &text[end..]);
        std::fs::write(&path, changed).unwrap();
        self.commit(&format!("{rows} rows"));
        git(&self.work(), &["push", "--quiet", "origin", "main"]);
    }

    /// A printdex command with the cache here, refreshing every `refresh` seconds.
    fn printdex(&self, refresh: u64) -> Command {
        let mut command = Command::new(bin());
        self.environment(&mut command, refresh);
        command
    }

    fn environment(&self, command: &mut Command, refresh: u64) {
        command
            .env("XDG_CACHE_HOME", self.cache())
            .env("PRINTDEX_GIT_REFRESH_SECS", refresh.to_string())
            .current_dir(self.tmp.path());
    }

    /// One session serving `project` (a git address) with an index of its own.
    fn serve(&self, project: &str, refresh: u64, requests: &[(&str, Value)]) -> Session {
        let index = tempfile::tempdir().unwrap();
        let mut command = self.printdex(refresh);
        command
            .args(["serve", "--project", project, "--index-dir"])
            .arg(index.path());
        session(command, requests)
    }
}

fn row_count_request() -> (&'static str, Value) {
    tool_call(
        "get_table_context",
        json!({"table": TABLE, "format": "json"}),
    )
}

fn rows_of(text: &str) -> Value {
    let page: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{text}"));
    page["statistics"]["row_count"].clone()
}

/// The checkouts printdex made: `<cache>/printdex/git/<key>/checkout`.
fn checkouts(cache: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(cache.join("printdex/git")) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path().join("checkout"))
        .filter(|p| p.is_dir())
        .collect()
}

#[test]
fn a_git_address_is_cloned_into_printdexs_cache_and_served() {
    let remote = Remote::new();
    let s = remote.serve(
        &remote.address("main"),
        900,
        &[tool_call("list_tables", json!({})), row_count_request()],
    );
    assert!(s.status.success(), "{}", s.stderr);
    let (text, is_error) = s.call(1);
    assert!(!is_error && text.contains("\"total\": 11"), "{text}");
    assert_eq!(rows_of(&s.call(2).0), json!(40));
    let clones = checkouts(&remote.cache());
    assert_eq!(clones.len(), 1, "{clones:?}");
    assert!(clones[0].join("proj/.dbprint.yaml").is_file());
    // Nothing printdex keeps is written beside the repository or in the working directory.
    let mut names: Vec<String> = std::fs::read_dir(remote.tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["cache", "remote.git", "work"]);
    // The startup line names the address and where it is checked out.
    assert!(
        s.stderr.contains(&format!(
            "printdex: serving {} (checked out at {}) over stdio: library (11 tables); index built at ",
            remote.address("main"),
            clones[0].join("proj").display()
        )),
        "{}",
        s.stderr
    );
    // The default branch at the root, and a forge-style locator, are addresses too: the
    // explicit form with an empty subpath is the repository's root (no .dbprint.yaml).
    let s = remote.serve(&format!("{}#main:", remote.url()), 900, &[]);
    assert_eq!(s.status.code(), Some(1));
    assert!(
        s.stderr.starts_with("error: no .dbprint.yaml at ") && s.stderr.contains("/checkout/"),
        "{}",
        s.stderr
    );
}

/// The content hash the index's mirror holds for TABLE's statistics.
fn stored_hash(index: &Path) -> String {
    let db = rusqlite::Connection::open_with_flags(
        index.join("mirror.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    db.query_row(
        "SELECT hash FROM files WHERE path LIKE '%/stacks/catalog/series/statistics.yaml'",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn a_served_git_project_sees_a_new_commit_after_a_refresh() {
    let remote = Remote::new();
    let index = tempfile::tempdir().unwrap();
    let address = remote.address("main");
    let mut server = Server::start_with(
        std::ffi::OsStr::new(&address),
        &[],
        Some(index.path()),
        |c| remote.environment(c, 1),
    );
    let ask = |server: &mut Server| {
        let (text, is_error) = server.call(
            "get_table_context",
            json!({"table": TABLE, "format": "json"}),
        );
        assert!(!is_error, "{text}");
        rows_of(&text)
    };
    assert_eq!(ask(&mut server), json!(40));
    let before = stored_hash(index.path());
    remote.push_rows(4321);
    // No call is made meanwhile: the background refresh resets the checkout in place and
    // the watcher, seeing the files replaced, re-reads them into the mirror.
    let deadline = Instant::now() + Duration::from_secs(30);
    while stored_hash(index.path()) == before {
        assert!(
            Instant::now() < deadline,
            "the new commit did not reach the index within 30 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(ask(&mut server), json!(4321));
    // The checkout in the cache moved onto it, in place.
    let clones = checkouts(&remote.cache());
    assert_eq!(clones.len(), 1);
    let served = std::fs::read_to_string(clones[0].join(STATISTICS)).unwrap();
    assert!(served.contains("\nrow_count: 4321\n"));
}

#[test]
fn within_the_interval_nothing_is_fetched_and_after_it_a_failed_fetch_serves_the_cache() {
    let remote = Remote::new();
    let address = remote.address("main");
    let first = remote.serve(&address, 900, &[row_count_request()]);
    assert_eq!(rows_of(&first.call(1).0), json!(40), "{}", first.stderr);
    remote.push_rows(1111);
    // Inside the 15 minutes: the copy already fetched is served, without a fetch.
    let within = remote.serve(&address, 900, &[row_count_request()]);
    assert_eq!(rows_of(&within.call(1).0), json!(40));
    assert!(!within.stderr.contains("warning:"), "{}", within.stderr);
    // Past the interval: fetched.
    let past = remote.serve(&address, 0, &[row_count_request()]);
    assert_eq!(rows_of(&past.call(1).0), json!(1111), "{}", past.stderr);
    // The remote gone: a warning, and the cached copy is served.
    std::fs::rename(remote.bare(), remote.tmp.path().join("moved.git")).unwrap();
    let degraded = remote.serve(&address, 0, &[row_count_request()]);
    assert!(degraded.status.success(), "{}", degraded.stderr);
    assert_eq!(rows_of(&degraded.call(1).0), json!(1111));
    let warning = format!(
        "warning: could not refresh the cached clone of {}: git failed: fatal: '{}' does not appear to be a git repository",
        remote.url(),
        remote.bare().display()
    );
    assert!(degraded.stderr.starts_with(&warning), "{}", degraded.stderr);
    // git's whole message, then how old the copy served is.
    assert!(
        degraded
            .stderr
            .contains("and the repository exists.; reading the copy fetched 0 minutes ago\n"),
        "{}",
        degraded.stderr
    );
}

#[test]
fn a_pinned_commit_is_checked_out_and_never_fetched_again() {
    let remote = Remote::new();
    let pinned = git(&remote.work(), &["rev-parse", "HEAD"]);
    remote.push_rows(2222);
    let address = remote.address(&pinned);
    let first = remote.serve(&address, 0, &[row_count_request()]);
    assert_eq!(rows_of(&first.call(1).0), json!(40), "{}", first.stderr);
    // Refreshing always, yet with the remote gone nothing is fetched, so nothing fails.
    std::fs::rename(remote.bare(), remote.tmp.path().join("moved.git")).unwrap();
    let again = remote.serve(&address, 0, &[row_count_request()]);
    assert_eq!(rows_of(&again.call(1).0), json!(40));
    assert!(!again.stderr.contains("warning:"), "{}", again.stderr);
}

#[test]
fn unsafe_or_unresolvable_addresses_are_refused_with_dbprints_texts() {
    let remote = Remote::new();
    let url = remote.url();
    for (project, stderr) in [
        (
            "-x#main:sub".to_string(),
            "error: --project '-x#main:sub': a remote may not begin with '-'\n".to_string(),
        ),
        (
            format!("{url}#-r:proj"),
            format!("error: --project '{url}#-r:proj': a ref may not begin with '-'\n"),
        ),
        (
            format!("{url}#main:../up"),
            format!("error: --project '{url}#main:../up': the subpath '../up' must be relative and stay inside the repository\n"),
        ),
        (
            format!("{url}#main:/abs"),
            format!("error: --project '{url}#main:/abs': the subpath '/abs' must be relative and stay inside the repository\n"),
        ),
        (
            "https://github.com/acme/wh/blob/main/a/../../x".to_string(),
            "error: --project 'https://github.com/acme/wh/blob/main/a/../../x': the subpath 'a/../../x' must be relative and stay inside the repository\n".to_string(),
        ),
    ] {
        let s = remote.serve(&project, 900, &[]);
        assert_eq!(s.status.code(), Some(1), "{project}");
        assert_eq!(s.stderr, stderr, "{project}");
        assert!(s.responses.is_empty());
    }
    // Refused before any clone.
    assert!(checkouts(&remote.cache()).is_empty());

    // A ref the repository does not have: the half-made checkout goes with the failure.
    let s = remote.serve(&remote.address("nosuch"), 900, &[]);
    assert_eq!(s.status.code(), Some(1));
    assert!(
        s.stderr.starts_with(&format!(
            "error: ref 'nosuch' could not be resolved in {url}: git failed: "
        )),
        "{}",
        s.stderr
    );
    assert!(checkouts(&remote.cache()).is_empty());
}

#[cfg(unix)]
#[test]
fn a_subpath_leaving_the_clone_through_a_symlink_is_refused() {
    let remote = Remote::new();
    std::os::unix::fs::symlink("../..", remote.work().join("escape")).unwrap();
    remote.commit("a link out");
    git(&remote.work(), &["push", "--quiet", "origin", "main"]);
    let s = remote.serve(
        &remote.address("main").replace(":proj", ":escape"),
        900,
        &[],
    );
    assert_eq!(s.status.code(), Some(1));
    assert_eq!(
        s.stderr,
        format!(
            "error: the subpath 'escape' resolves outside the cloned repository {}\n",
            remote.url()
        )
    );
}

#[test]
fn without_git_on_path_a_git_address_says_how_to_install_it() {
    let remote = Remote::new();
    let empty = tempfile::tempdir().unwrap();
    let mut command = remote.printdex(900);
    command
        .env("PATH", empty.path())
        .args(["serve", "--project", &remote.address("main")]);
    let s = session(command, &[]);
    assert_eq!(s.status.code(), Some(1));
    assert_eq!(
        s.stderr,
        "error: git binary not found on PATH. A remote --project locator needs it (Debian/Ubuntu: `apt install git`; macOS: `brew install git`).\n"
    );
}

#[test]
fn index_commands_take_a_git_address_too() {
    let remote = Remote::new();
    let mut command = remote.printdex(900);
    command.args(["index", "rebuild", "--project", &remote.address("main")]);
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut command = remote.printdex(900);
    command.args(["index", "list"]);
    let out = command.output().unwrap();
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(
        listed.contains(&format!("project exists  {}", remote.address("main"))),
        "{listed}"
    );
}
