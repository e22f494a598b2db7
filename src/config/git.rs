//! Checkouts of a git `--project` (see `remote`), kept where printdex keeps its caches
//! (`<cache root>/git/<key>/checkout`), never in a user's tree. As dbprint does: clone on
//! first use, then fetch at most once per refresh interval (15 minutes; never for a pinned
//! commit), and when a fetch fails serve the copy already there, with a warning. A refresh
//! resets the checkout in place, so the files of the served directory are replaced where
//! the watcher sees them. Only the `git` executable is used, and no argument can be read
//! as an option: a remote or ref beginning with `-` is refused before git runs (`remote`),
//! paths follow `--` or the flag that takes them; git never reads the server's stdin.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use super::remote::RemoteAddress;
use super::{config_error, ConfigError};

/// Seconds between refreshes of a checkout (default 900), for tests and impatient users.
pub const REFRESH_ENV: &str = "PRINTDEX_GIT_REFRESH_SECS";
pub const DEFAULT_REFRESH: Duration = Duration::from_secs(15 * 60);
/// dbprint's bound on one git command.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);
/// The background refresher never loops faster than this, whatever the interval says.
const MIN_BACKGROUND_PAUSE: Duration = Duration::from_secs(1);

/// Where checkouts live and how often they are refreshed.
#[derive(Debug, Clone)]
pub struct Checkouts {
    root: PathBuf,
    refresh_every: Duration,
}

/// One address's place in the cache.
struct Entry {
    /// The clone itself (work tree and `.git`): nothing else is written into it.
    checkout: PathBuf,
    /// Touched at every fetch attempt: bounds attempts to one per interval.
    attempted: PathBuf,
    /// Touched when a fetch landed: how old the content is.
    fetched: PathBuf,
    /// Held while cloning or refreshing, so two servers never write one checkout at once.
    lock: PathBuf,
}

impl Checkouts {
    pub fn new(root: PathBuf, refresh_every: Duration) -> Checkouts {
        Checkouts {
            root,
            refresh_every,
        }
    }

    /// `<cache root>/git`, refreshed every `$PRINTDEX_GIT_REFRESH_SECS` seconds (else 15 min).
    pub fn from_env() -> Checkouts {
        let refresh_every = std::env::var(REFRESH_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs)
            .unwrap_or(DEFAULT_REFRESH);
        Checkouts::new(super::cache_root().join("git"), refresh_every)
    }

    pub fn refresh_every(&self) -> Duration {
        self.refresh_every
    }

    /// One entry per (remote, ref): distinct subpaths of one clone share it.
    fn entry(&self, address: &RemoteAddress) -> Entry {
        use sha2::Digest;
        let source = format!(
            "{}#{}",
            address.remote,
            address.reference.as_deref().unwrap_or("HEAD")
        );
        let digest = sha2::Sha256::digest(source.as_bytes());
        let key: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let dir = self.root.join(&key[..20]);
        Entry {
            checkout: dir.join("checkout"),
            attempted: dir.join("attempted"),
            fetched: dir.join("fetched"),
            lock: dir.join("lock"),
        }
    }

    /// Clone or refresh `address`; the directory to load the project from.
    /// `degraded` hears of a refresh that failed over a checkout still servable.
    pub fn materialize(
        &self,
        address: &RemoteAddress,
        degraded: &dyn Fn(&str),
    ) -> Result<PathBuf, ConfigError> {
        let git = Git::find()?;
        let entry = self.entry(address);
        let dir = entry.lock.parent().unwrap_or(&self.root).to_path_buf();
        std::fs::create_dir_all(&dir)
            .map_err(|e| config_error(format!("cannot create {}: {e}", dir.display())))?;
        // Held to the end of this call: closing the file releases the lock. Where the
        // filesystem has no locks, none.
        let _lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&entry.lock)
            .ok()
            .filter(|f| f.lock().is_ok());
        if entry.checkout.is_dir() && entry.attempted.is_file() {
            let age = modified_age(&entry.attempted).unwrap_or(Duration::MAX);
            if age >= self.refresh_every && !git.is_pinned(&entry.checkout, address) {
                refresh_or_degrade(&git, &entry, address, degraded)?;
                // On either outcome: a failure must not retry (and wait on git) every start.
                touch(&entry.attempted);
            }
        } else {
            replace_clone(&git, &entry, address)?;
            touch(&entry.attempted);
            touch(&entry.fetched);
        }
        let Some(subpath) = &address.subpath else {
            return Ok(entry.checkout);
        };
        let local = entry.checkout.join(subpath);
        let inside = super::absolute_resolved(&entry.checkout);
        if !super::absolute_resolved(&local).starts_with(&inside) {
            return Err(config_error(format!(
                "the subpath {} resolves outside the cloned repository {}",
                compat::py::repr_str(subpath),
                address.remote
            )));
        }
        Ok(local)
    }

    /// Refresh `address` once per interval for the life of the process, on a thread of its
    /// own (a pinned commit never moves: no thread). Every problem goes to `warn`; the
    /// checkout in place keeps being served.
    pub fn keep_fresh(
        &self,
        address: RemoteAddress,
        warn: impl Fn(&str) + Send + 'static,
    ) -> Option<std::thread::JoinHandle<()>> {
        let git = Git::find().ok()?;
        if git.is_pinned(&self.entry(&address).checkout, &address) {
            return None;
        }
        let this = self.clone();
        let pause = self.refresh_every.max(MIN_BACKGROUND_PAUSE);
        std::thread::Builder::new()
            .name("printdex-git".into())
            .spawn(move || loop {
                std::thread::sleep(pause);
                if let Err(e) = this.materialize(&address, &warn) {
                    warn(&e.message);
                }
            })
            .ok()
    }
}

/// Fetch the ref and reset onto it; when that fails, keep serving the checkout if it can
/// still answer, else clone again (and fail if that fails).
fn refresh_or_degrade(
    git: &Git,
    entry: &Entry,
    address: &RemoteAddress,
    degraded: &dyn Fn(&str),
) -> Result<(), ConfigError> {
    match refresh(git, &entry.checkout, address) {
        Ok(()) => {
            touch(&entry.fetched);
            Ok(())
        }
        Err(e) if git.can_be_read(&entry.checkout) => {
            degraded(&format!(
                "could not refresh the cached clone of {}: {}; reading the copy fetched {}",
                address.remote,
                e.message,
                content_age(&entry.fetched)
            ));
            Ok(())
        }
        Err(_) => {
            replace_clone(git, entry, address)?;
            touch(&entry.fetched);
            Ok(())
        }
    }
}

/// Fetch the address's ref (or the remote's HEAD) and move the checkout onto it, whatever
/// happened upstream. Safe because nothing ever writes into a checkout but this module.
/// `reset --hard` rewrites the changed files where they are, so the watcher on the served
/// print sees each one.
fn refresh(git: &Git, checkout: &Path, address: &RemoteAddress) -> Result<(), ConfigError> {
    let reference = address.reference.as_deref().unwrap_or("HEAD");
    git.run_in(checkout, &["fetch", "--quiet", "--", "origin", reference])?;
    git.run_in(checkout, &["reset", "--hard", "--quiet", "FETCH_HEAD"])?;
    Ok(())
}

/// Discard whatever is at the checkout and clone afresh; a failed clone is an error.
fn replace_clone(git: &Git, entry: &Entry, address: &RemoteAddress) -> Result<(), ConfigError> {
    if entry.checkout.exists() {
        std::fs::remove_dir_all(&entry.checkout).map_err(|e| {
            config_error(format!("cannot remove {}: {e}", entry.checkout.display()))
        })?;
    }
    git.run(&[
        OsStr::new("clone"),
        OsStr::new("--quiet"),
        OsStr::new("--"),
        OsStr::new(&address.remote),
        entry.checkout.as_os_str(),
    ])?;
    let Some(reference) = &address.reference else {
        return Ok(());
    };
    // A commit id is no ref name, so `clone --branch` cannot take it: check out after.
    // The trailing `--` keeps a ref that names a path from being read as a pathspec.
    if let Err(e) = git.run_in(&entry.checkout, &["checkout", "--quiet", reference, "--"]) {
        // A checkout on the wrong commit would be served at every later start.
        let _ = std::fs::remove_dir_all(&entry.checkout);
        return Err(config_error(format!(
            "ref {} could not be resolved in {}: {}",
            compat::py::repr_str(reference),
            address.remote,
            e.message
        )));
    }
    Ok(())
}

/// How old the checkout's content is, from the last fetch that landed.
fn content_age(fetched: &Path) -> String {
    match modified_age(fetched) {
        Some(age) => format!("{} minutes ago", age.as_secs() / 60),
        None => "at an unknown time".into(),
    }
}

fn modified_age(path: &Path) -> Option<Duration> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(
        SystemTime::now()
            .duration_since(modified)
            .unwrap_or(Duration::ZERO),
    )
}

/// Create `path` or move its mtime to now.
fn touch(path: &Path) {
    if let Ok(file) = std::fs::File::create(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// The `git` executable found on PATH.
struct Git {
    exe: PathBuf,
}

impl Git {
    fn find() -> Result<Git, ConfigError> {
        super::find_on_path("git").map(|exe| Git { exe }).ok_or_else(|| {
            config_error(
                "git binary not found on PATH. A remote --project locator needs it (Debian/Ubuntu: `apt install git`; macOS: `brew install git`).".into(),
            )
        })
    }

    /// Whether the address names a commit rather than a ref that moves: git decides
    /// (`--symbolic-full-name` names a branch or tag, and prints nothing for a commit id).
    fn is_pinned(&self, checkout: &Path, address: &RemoteAddress) -> bool {
        match &address.reference {
            None => false,
            Some(reference) => self
                .run_in(checkout, &["rev-parse", "--symbolic-full-name", reference])
                .is_ok_and(|named| named.is_empty()),
        }
    }

    /// Whether the checkout still resolves a commit (local, no network).
    fn can_be_read(&self, checkout: &Path) -> bool {
        self.run_in(checkout, &["rev-parse", "--verify", "HEAD"])
            .is_ok()
    }

    /// A command pinned to the checkout's own repository: `-C` would let git find an
    /// enclosing repository and act on that one.
    fn run_in(&self, checkout: &Path, args: &[&str]) -> Result<String, ConfigError> {
        let mut all: Vec<OsString> = vec![
            "--git-dir".into(),
            checkout.join(".git").into(),
            "--work-tree".into(),
            checkout.into(),
        ];
        all.extend(args.iter().map(OsString::from));
        let all: Vec<&OsStr> = all.iter().map(OsString::as_os_str).collect();
        self.run(&all)
    }

    /// Run git to its end (or its timeout); its trimmed stdout, or why it failed.
    fn run(&self, args: &[&OsStr]) -> Result<String, ConfigError> {
        let mut command = Command::new(&self.exe);
        command
            .args(args)
            // Never the server's stdin (the MCP stream), never a password prompt.
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("GIT_TERMINAL_PROMPT", "0");
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            const CREATE_NO_WINDOW: u32 = 0x0800_0000;
            command.creation_flags(CREATE_NO_WINDOW);
        }
        let shown = || {
            std::iter::once("git".to_string())
                .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut child = command
            .spawn()
            .map_err(|e| config_error(format!("git failed: {e}")))?;
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut out = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut out);
                }
                String::from_utf8_lossy(&out).into_owned()
            })
        };
        let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
        let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
        let deadline = Instant::now() + GIT_TIMEOUT;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(config_error(format!(
                        "git timed out after {}s: {}",
                        GIT_TIMEOUT.as_secs(),
                        shown()
                    )));
                }
                Err(e) => return Err(config_error(format!("git failed: {e}"))),
            }
        };
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        if status.success() {
            return Ok(stdout.trim().to_string());
        }
        let detail = match stderr.trim() {
            "" => format!("{} exited with {status}", shown()),
            text => text.to_string(),
        };
        Err(config_error(format!("git failed: {detail}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_remote_and_ref_whatever_the_subpath() {
        let checkouts = Checkouts::new(PathBuf::from("/c/git"), DEFAULT_REFRESH);
        let at = |reference: Option<&str>, subpath: Option<&str>| {
            checkouts
                .entry(&RemoteAddress {
                    remote: "file:///r.git".into(),
                    reference: reference.map(Into::into),
                    subpath: subpath.map(Into::into),
                })
                .checkout
        };
        assert_eq!(at(Some("main"), Some("a")), at(Some("main"), Some("b")));
        assert_ne!(at(Some("main"), None), at(Some("v1"), None));
        assert_ne!(at(None, None), at(Some("main"), None));
        let dir = at(None, None);
        assert!(dir.starts_with("/c/git"), "{}", dir.display());
        assert_eq!(dir.file_name(), Some(OsStr::new("checkout")));
        let key = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
        assert_eq!(key.len(), 20);
    }

    #[test]
    fn content_age_is_in_whole_minutes_or_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = dir.path().join("fetched");
        assert_eq!(content_age(&stamp), "at an unknown time");
        touch(&stamp);
        assert_eq!(content_age(&stamp), "0 minutes ago");
        let file = std::fs::File::options().write(true).open(&stamp).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(185))
            .unwrap();
        assert_eq!(content_age(&stamp), "3 minutes ago");
    }
}
