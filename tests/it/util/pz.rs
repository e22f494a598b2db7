//! `printdex pz serve` on the one stdio harness, started as pz's tests start it: a clean
//! docs environment (no inherited `PZ_DOCS_URL`, the cache in a directory of the test's).

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::process::{Command, ExitStatus};

use super::process::bin;
use super::stdio::Server;

/// The protocol version pz's clients initialize with.
pub const PZ_PROTOCOL_VERSION: &str = "2025-06-18";

/// A printdex command with a clean docs environment: no inherited PZ_DOCS_URL, the user
/// cache in `cache`, then `env`.
pub fn pz_command(cache: &Path, env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(bin());
    c.env_remove("PZ_DOCS_URL")
        .env("XDG_CACHE_HOME", cache)
        .env("PRINTDEX_LOG", "info");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// A running `printdex pz serve`: a [`Server`] (every method of it) started by pz's rules.
pub struct PzClient(Server);

impl PzClient {
    /// `printdex pz serve ARGS...`, initialized.
    pub fn start(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> PzClient {
        let mut client = PzClient::spawn(cache, args, env);
        client.initialize(PZ_PROTOCOL_VERSION);
        client
    }

    /// A running `printdex pz serve` that has been sent nothing yet.
    pub fn spawn(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> PzClient {
        let mut command = pz_command(cache, env);
        command.arg("pz").arg("serve").args(args);
        PzClient(Server::spawn(command))
    }

    /// Wait for the exit status, stdin left open.
    pub fn wait(self) -> ExitStatus {
        self.0.wait()
    }

    /// Close stdin and wait for the exit status.
    pub fn close(self) -> ExitStatus {
        self.0.close()
    }
}

impl Deref for PzClient {
    type Target = Server;

    fn deref(&self) -> &Server {
        &self.0
    }
}

impl DerefMut for PzClient {
    fn deref_mut(&mut self) -> &mut Server {
        &mut self.0
    }
}
