//! Where a host listens: `<runtime dir>/<name>.sock`, with its lock, pid and log files
//! beside it. The name is a digest of the session's *key* (everything that decides its
//! answers: the index, the project, the connections served, the reference documents, the
//! environment serving reads) and of the binary's version, so a session attaches only to
//! a host that would answer exactly as it would itself, and a newer binary starts its own.

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::RUNTIME_DIR_ENV;

/// One host's socket and the files beside it.
#[derive(Debug, Clone)]
pub struct Address {
    /// Digest of what decides a session's answers.
    pub key: String,
    /// The binary's version (its package version and a stamp of the executable).
    pub version: String,
    /// The socket the host listens on.
    pub socket: PathBuf,
    /// Held exclusively by the one host serving this address.
    pub lock: PathBuf,
    /// The host's process id, for people (and tests) to find it.
    pub pid: PathBuf,
    /// The host's stderr.
    pub log: PathBuf,
}

/// Environment variables that change what a server answers or how it reads, folded into
/// the key (besides every `PRINTDEX_` variable but the log filter and sharing's own).
const KEYED_ENV: [&str; 3] = ["PATH", "XDG_CACHE_HOME", "HOME"];

impl Address {
    /// The address of the host for `parts` (what the caller knows decides the answers),
    /// in the user's runtime directory, made owner-only when absent. Fails when that
    /// directory cannot be made or is not this user's alone.
    pub fn new(parts: &[&OsStr]) -> io::Result<Address> {
        let dir = runtime_dir()?;
        let key = key_of(parts, std::env::vars_os());
        let version = version();
        let name = {
            let mut digest = blake3::Hasher::new();
            digest.update(key.as_bytes());
            digest.update(b"\0");
            digest.update(version.as_bytes());
            digest.finalize().to_hex()[..20].to_string()
        };
        Ok(Address {
            socket: dir.join(format!("{name}.sock")),
            lock: dir.join(format!("{name}.lock")),
            pid: dir.join(format!("{name}.pid")),
            log: dir.join(format!("{name}.log")),
            key,
            version,
        })
    }
}

/// The digest of `parts` and of the keyed environment.
fn key_of(
    parts: &[&OsStr],
    env: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
) -> String {
    let mut digest = blake3::Hasher::new();
    let mut field = |bytes: &[u8]| {
        digest.update(&(bytes.len() as u64).to_le_bytes());
        digest.update(bytes);
    };
    for part in parts {
        field(part.as_bytes());
    }
    let mut keyed: Vec<(Vec<u8>, Vec<u8>)> = env
        .filter(|(name, _)| {
            let name = name.as_bytes();
            KEYED_ENV.iter().any(|k| k.as_bytes() == name)
                || (name.starts_with(b"PRINTDEX_")
                    && name != b"PRINTDEX_LOG"
                    && !name.starts_with(b"PRINTDEX_SHARED")
                    && name != RUNTIME_DIR_ENV.as_bytes())
        })
        .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect();
    keyed.sort();
    for (name, value) in keyed {
        field(&name);
        field(&value);
    }
    digest.finalize().to_hex()[..32].to_string()
}

/// This binary's version: its package version and a stamp of the executable file (its
/// size and modification time), so two builds of one version do not share a host.
pub fn version() -> String {
    let stamp = std::env::current_exe()
        .and_then(|exe| exe.metadata())
        .map(|m| {
            let mut digest = blake3::Hasher::new();
            digest.update(&m.len().to_le_bytes());
            digest.update(&m.mtime().to_le_bytes());
            digest.update(&m.mtime_nsec().to_le_bytes());
            digest.finalize().to_hex()[..12].to_string()
        })
        .unwrap_or_else(|_| "unknown".into());
    format!("{}+{stamp}", env!("CARGO_PKG_VERSION"))
}

/// The directory hosts keep their sockets in: `PRINTDEX_RUNTIME_DIR`, else
/// `$XDG_RUNTIME_DIR/printdex`, else `<temp>/printdex-<uid>`; made mode 0700 when absent,
/// and refused unless it is a directory this user owns that no one else can enter.
fn runtime_dir() -> io::Result<PathBuf> {
    let dir = match std::env::var_os(RUNTIME_DIR_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
            Some(runtime) => Path::new(&runtime).join("printdex"),
            None => std::env::temp_dir().join(format!("printdex-{}", user())),
        },
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    owner_only(&dir)?;
    Ok(dir)
}

/// `Ok` when `dir` (not followed if a link) is a directory of this user's that no one
/// else may enter: its mode is 0700 and a file this process makes in it has its owner.
fn owner_only(dir: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(dir)?;
    let refuse = |why: &str| {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{}: {why}", dir.display()),
        ))
    };
    if !meta.is_dir() {
        return refuse("not a directory");
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return refuse("others may enter it (its mode is not 0700)");
    }
    let probe = dir.join(format!(".owner-{}", std::process::id()));
    let made = std::fs::File::create(&probe).and_then(|f| f.metadata());
    let _ = std::fs::remove_file(&probe);
    if made?.uid() != meta.uid() {
        return refuse("owned by another user");
    }
    Ok(())
}

/// This user's login name, for the temporary directory's name (its owner is checked).
fn user() -> String {
    ["USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok())
        .filter(|u| {
            !u.is_empty()
                && u.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        })
        .unwrap_or_else(|| "user".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn env(pairs: &[(&str, &str)]) -> impl Iterator<Item = (OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_key_follows_what_decides_answers_and_not_the_log_filter() {
        let parts = [OsStr::new("/idx"), OsStr::new("/p/.dbprint.yaml")];
        let base = key_of(&parts, env(&[("PATH", "/bin")]));
        assert_eq!(
            base,
            key_of(
                &parts,
                env(&[
                    ("PATH", "/bin"),
                    ("PRINTDEX_LOG", "debug"),
                    ("PRINTDEX_SHARED_IDLE_SECS", "1"),
                    ("EDITOR", "vi")
                ])
            )
        );
        assert_ne!(
            base,
            key_of(
                &parts,
                env(&[("PATH", "/bin"), ("PRINTDEX_CHANGE_FEED", "portable")])
            )
        );
        assert_ne!(base, key_of(&parts, env(&[("PATH", "/usr/bin")])));
        assert_ne!(base, key_of(&parts[..1], env(&[("PATH", "/bin")])));
        // Parts are length-prefixed: moving a byte between two parts is another key.
        let moved = [OsStr::new("/idx/"), OsStr::new("p/.dbprint.yaml")];
        assert_ne!(
            key_of(&[OsStr::new("/idx"), OsStr::new("/p")], env(&[])),
            key_of(&moved[..], env(&[]))
        );
    }

    #[test]
    fn a_socket_directory_others_may_enter_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(owner_only(&open).is_err());
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(owner_only(&open).is_ok());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&open, &link).unwrap();
        assert!(owner_only(&link).is_err(), "a link is not followed");
    }
}
