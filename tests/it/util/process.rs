//! A child process of the binary under test: started, signalled, waited for within a
//! bound, and killed when dropped, so no test leaves a server behind or hangs on one.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a process that was told to stop may take to exit before the test fails.
pub const EXIT_WITHIN: Duration = Duration::from_secs(60);

/// The binary under test; `PRINTDEX_BIN` overrides it (a copy taken right after the build,
/// when a shared target directory may be rebuilt from another tree meanwhile).
///
/// Its stdio sessions serve in-process (`PRINTDEX_SHARED=off`, set once for every child
/// of this test binary): most tests hold one server process to what it does with its
/// own index, its locks and its signals, and a shared server outliving a test would
/// outlive its temporary files. `shared_server.rs` turns sharing on for its own.
pub fn bin() -> PathBuf {
    static SHARING_OFF: std::sync::Once = std::sync::Once::new();
    SHARING_OFF.call_once(|| {
        if std::env::var_os("PRINTDEX_SHARED").is_none() {
            std::env::set_var("PRINTDEX_SHARED", "off");
        }
    });
    std::env::var_os("PRINTDEX_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_printdex")))
}

/// `printdex serve` of `project` on `index`, with its debug log on (to its stderr), for a
/// test that reads what the server did.
pub fn serve_debug_logged(project: &Path, index: &Path) -> Command {
    let mut command = Command::new(bin());
    command
        .args(["serve", "--project"])
        .arg(project)
        .arg("--index-dir")
        .arg(index)
        .env("PRINTDEX_LOG", "printdex=debug");
    command
}

/// This binary run inside a user and mount namespace of its own, after `setup` (a shell
/// line; `$D` is `dir`): the command a test stages a mount fault with (a read-only or full
/// index directory). The arguments a `Server` adds go after it, to the binary. Fails where
/// this system lets no unprivileged process make such a namespace: the fault cannot be
/// staged then.
pub fn in_own_mount_namespace(dir: &Path, setup: &str) -> Command {
    let probe = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "true"])
        .status();
    assert!(
        probe.is_ok_and(|s| s.success()),
        "this fault needs `unshare --user --map-root-user --mount` (util-linux and \
         unprivileged user namespaces), which this system refuses"
    );
    let script = format!("set -e; D=\"$1\"; B=\"$2\"; shift 2; {setup}; exec \"$B\" \"$@\"");
    let mut command = Command::new("unshare");
    command
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(script)
        .arg("sh")
        .arg(dir)
        .arg(bin());
    command
}

/// A one-shot command's outcome, its output as text.
#[derive(Debug)]
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn ok(&self) -> bool {
        self.status.success()
    }
}

/// Run `command` (stdin closed) to its end.
pub fn run(command: &mut Command) -> Ran {
    let out = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {command:?}: {e}"));
    Ran {
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A running child, killed and reaped on drop.
pub struct Process {
    child: Child,
}

impl Process {
    pub fn spawn(command: &mut Command) -> Process {
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
        Process { child }
    }

    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `signal` (`-TERM`, `-INT`, `-KILL`) with kill(1).
    pub fn signal(&self, signal: &str) {
        send_signal(self.pid(), signal);
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// The exit status, waited for at most [`EXIT_WITHIN`] (then the test fails).
    pub fn wait(&mut self) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                started.elapsed() < EXIT_WITHIN,
                "the server did not exit within {EXIT_WITHIN:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// kill(1) `signal` to `pid`; the signal must be delivered.
pub fn send_signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {signal} {pid}");
}
