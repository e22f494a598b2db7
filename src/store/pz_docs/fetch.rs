//! Fetching the site's two files, from HTTP(S) or a local mirror directory (`file://` URL or
//! plain path), with pz's rules: a 25 MiB cap per file (PZ0610) and every other failure —
//! refused connection, timeout, non-2xx status, missing file — PZ0607 naming the URL.
//! Both files share one deadline, so a fetch never blocks longer than its timeout.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::pz::DocsError;

pub const DEFAULT_BASE: &str = "https://pipelinez.dev";
/// `DocsCatalog.DefaultMaxResponseBytes`.
pub const MAX_BYTES: u64 = 25 * 1024 * 1024;
/// pz's `HttpClient` timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
pub const INDEX_FILE: &str = "llms.txt";
pub const FULL_FILE: &str = "llms-full.txt";

/// Both files as fetched.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The base URL, trailing slashes trimmed.
    pub base: String,
    pub index: Vec<u8>,
    pub full: Vec<u8>,
}

/// The base URL for `--from`: a URL as given, or a directory as a `file://` URL.
pub fn base_from_arg(from: &str) -> String {
    if has_scheme(from) {
        return from.trim_end_matches('/').to_string();
    }
    let path = Path::new(from);
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    });
    file_url(&abs)
}

fn has_scheme(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    ["http://", "https://", "file:"]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// A directory as a `file://` URL (percent-encoding what a URL path cannot hold).
pub fn file_url(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.trim_end_matches('/').to_string()
}

/// The directory a `file:` base URL names.
fn file_dir(base: &str) -> Option<PathBuf> {
    let rest = base
        .get(..5)
        .filter(|s| s.eq_ignore_ascii_case("file:"))
        .map(|_| &base[5..])?;
    let path = match rest.strip_prefix("//") {
        Some(r) => {
            let slash = r.find('/').unwrap_or(r.len());
            let host = &r[..slash];
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            &r[slash..]
        }
        None => rest,
    };
    let path = if path.is_empty() { "/" } else { path };
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    Some(PathBuf::from(decoded.into_owned()))
}

/// Fetch `<base>/llms.txt` then `<base>/llms-full.txt` within `timeout` all told.
pub fn fetch(base: &str, timeout: Duration) -> Result<Fetched, DocsError> {
    let base = base.trim_end_matches('/').to_string();
    let deadline = Instant::now() + timeout;
    let index = fetch_one(&base, INDEX_FILE, deadline)?;
    let full = fetch_one(&base, FULL_FILE, deadline)?;
    Ok(Fetched { base, index, full })
}

fn fetch_one(base: &str, file: &str, deadline: Instant) -> Result<Vec<u8>, DocsError> {
    let url = format!("{base}/{file}");
    let unreachable = |cause: String| DocsError::Unreachable {
        url: url.clone(),
        cause,
    };
    if base.len() >= 5 && base[..5].eq_ignore_ascii_case("file:") {
        let dir = file_dir(base).ok_or_else(|| {
            unreachable(
                "a file: URL names a local directory (file:///path or file://localhost/path)"
                    .into(),
            )
        })?;
        return read_file(&dir, file, &url);
    }
    let lower = base.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(unreachable(
            "not a URL printdex fetches (http, https or file) nor a directory".into(),
        ));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(unreachable("the time allowed (--timeout) ran out".into()));
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(left))
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = agent.get(&url).call().map_err(|e| {
        tracing::debug!("fetch {url}: {e}");
        unreachable(http_cause(&e, &url))
    })?;
    if !response.status().is_success() {
        let status = response.status();
        tracing::debug!("fetch {url}: status {status}");
        return Err(unreachable(format!(
            "the server answered HTTP {}{}",
            status.as_u16(),
            status
                .canonical_reason()
                .map(|r| format!(" {r}"))
                .unwrap_or_default()
        )));
    }
    if let Some(declared) = response.body().content_length() {
        if declared > MAX_BYTES {
            return Err(DocsError::TooLarge {
                url,
                limit: MAX_BYTES,
                size: declared,
            });
        }
    }
    let reader = response.body_mut().as_reader();
    read_capped(reader, &url)
}

/// The host (and port) of an http(s) URL, for a cause's wording.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// Why an HTTP request got no answer, in a person's words.
fn http_cause(e: &ureq::Error, url: &str) -> String {
    let host = host_of(url);
    match e {
        ureq::Error::HostNotFound => {
            format!("the name {host} could not be resolved (DNS; is this machine offline?)")
        }
        // What the resolver says (std words a getaddrinfo failure this way).
        ureq::Error::Io(io) if io.to_string().contains("failed to lookup address") => {
            format!("the name {host} could not be resolved (DNS: {io}; is this machine offline?)")
        }
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("{host} refused the connection (nothing listens there)")
        }
        ureq::Error::ConnectionFailed => format!("could not connect to {host}"),
        ureq::Error::Timeout(_) => format!("{host} did not answer in time (--timeout)"),
        other => other.to_string(),
    }
}

fn read_file(dir: &Path, name: &str, url: &str) -> Result<Vec<u8>, DocsError> {
    let unreachable = |cause: String| DocsError::Unreachable {
        url: url.to_string(),
        cause,
    };
    if !dir.is_dir() {
        return Err(unreachable(format!(
            "the directory {} does not exist",
            dir.display()
        )));
    }
    let path = dir.join(name);
    let file = std::fs::File::open(&path)
        .map_err(|e| unreachable(format!("{} cannot be read: {e}", path.display())))?;
    let meta = file
        .metadata()
        .map_err(|e| unreachable(format!("{} cannot be read: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(unreachable(format!("{} is not a file", path.display())));
    }
    if meta.len() > MAX_BYTES {
        return Err(DocsError::TooLarge {
            url: url.to_string(),
            limit: MAX_BYTES,
            size: meta.len(),
        });
    }
    read_capped(file, url)
}

/// Read to the end, refusing past the cap (a length that was not declared is counted).
fn read_capped(reader: impl Read, url: &str) -> Result<Vec<u8>, DocsError> {
    let mut buf = Vec::new();
    let mut limited = reader.take(MAX_BYTES + 1);
    limited.read_to_end(&mut buf).map_err(|e| {
        tracing::debug!("read {url}: {e}");
        DocsError::Unreachable {
            url: url.to_string(),
            cause: format!("reading it failed: {e}"),
        }
    })?;
    if buf.len() as u64 > MAX_BYTES {
        return Err(DocsError::TooLarge {
            url: url.to_string(),
            limit: MAX_BYTES,
            size: buf.len() as u64,
        });
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_round_trip() {
        let url = file_url(Path::new("/tmp/a b/docs/"));
        assert_eq!(url, "file:///tmp/a%20b/docs");
        assert_eq!(file_dir(&url), Some(PathBuf::from("/tmp/a b/docs")));
        assert_eq!(file_dir("file://localhost/x"), Some(PathBuf::from("/x")));
        assert_eq!(file_dir("file://elsewhere/x"), None);
        assert_eq!(
            base_from_arg("https://m.internal/docs/"),
            "https://m.internal/docs"
        );
    }

    #[test]
    fn missing_and_oversized_files() {
        let dir = tempfile::tempdir().unwrap();
        let base = file_url(dir.path());
        match fetch(&base, Duration::from_secs(1)) {
            Err(DocsError::Unreachable { url, cause }) => {
                assert_eq!(url, format!("{base}/llms.txt"));
                assert!(
                    cause.ends_with(
                        "llms.txt cannot be read: No such file or directory (os error 2)"
                    ),
                    "{cause}"
                );
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(dir.path().join(INDEX_FILE), "x").unwrap();
        let big = std::fs::File::create(dir.path().join(FULL_FILE)).unwrap();
        big.set_len(MAX_BYTES + 1).unwrap();
        match fetch(&base, Duration::from_secs(1)) {
            Err(DocsError::TooLarge { url, size, .. }) => {
                assert_eq!(url, format!("{base}/llms-full.txt"));
                assert_eq!(size, MAX_BYTES + 1);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            fetch("ftp://x", Duration::from_secs(1)),
            Err(DocsError::Unreachable { .. })
        ));
    }
}
