//! Where dbprint's packaged reference documents are, wherever dbprint is installed:
//! `--reference-dir`, then `$PRINTDEX_REFERENCE_DIR`, then the package beside each
//! `dbprint` executable on PATH, the package `python3` / `python` on PATH imports, a pipx
//! venv and a uv tool environment. Discovery only; the store loads what is found.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Environment variable naming the dbprint package directory, after `--reference-dir`.
pub const REFERENCE_DIR_ENV: &str = "PRINTDEX_REFERENCE_DIR";

/// One of the documents get_reference serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    Spec,
    Assertions,
    Guide,
}

impl Document {
    pub const ALL: [Document; 3] = [Document::Spec, Document::Assertions, Document::Guide];

    /// The name the tool's `document` argument and the error texts use.
    pub fn name(self) -> &'static str {
        match self {
            Document::Spec => "spec",
            Document::Assertions => "assertions",
            Document::Guide => "guide",
        }
    }

    pub fn from_name(name: &str) -> Option<Document> {
        Document::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Where the file sits inside the installed `dbprint` package directory.
    pub fn package_path(self) -> &'static str {
        match self {
            Document::Spec => "spec/v1/SPEC.md",
            Document::Assertions => "assertions/ASSERTIONS.md",
            Document::Guide => "engine/reading_guide.md",
        }
    }

    /// Where a source checkout keeps it, relative to the package directory
    /// (`<repo>/src/dbprint`): an editable install has no packaged copy of the two specs.
    pub fn source_tree_path(self) -> Option<&'static str> {
        match self {
            Document::Spec => Some("../../docs/format/v1/SPEC.md"),
            Document::Assertions => Some("../../docs/ASSERTIONS.md"),
            Document::Guide => None,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// Numbered documents are addressed by section number; the guide by heading text.
    pub fn by_number(self) -> bool {
        self != Document::Guide
    }
}

/// The file for `document`: the first candidate package directory carrying it,
/// packaged copy before a source checkout's. Sources are tried in order and lazily: the
/// Python interpreters are asked only when nothing before them has the document.
pub fn locate(explicit: Option<&Path>, document: Document) -> Option<PathBuf> {
    let carries = |dir: &PathBuf| {
        std::iter::once(document.package_path())
            .chain(document.source_tree_path())
            .map(|rel| dir.join(rel))
            .find(|p| p.is_file())
    };
    let sources: [&dyn Fn() -> Vec<PathBuf>; 6] = [
        &|| explicit.map(Path::to_path_buf).into_iter().collect(),
        &|| env_dir(REFERENCE_DIR_ENV).into_iter().collect(),
        &beside_dbprint_on_path,
        &imported_by_python,
        &pipx_venv,
        &uv_tool,
    ];
    sources
        .iter()
        .find_map(|source| source().iter().find_map(carries))
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn home() -> Option<PathBuf> {
    env_dir("HOME").or_else(|| env_dir("USERPROFILE"))
}

/// The package beside each `dbprint` executable on PATH (its venv's site-packages).
fn beside_dbprint_on_path() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut seen = Vec::new();
    for launcher in super::on_path("dbprint") {
        let Some(bin) = launcher.parent().map(Path::to_path_buf) else {
            continue;
        };
        if seen.contains(&bin) {
            continue;
        }
        seen.push(bin.clone());
        // A symlinked launcher (pipx, ~/.local/bin) lives apart from its venv.
        let mut bins = vec![bin.clone()];
        if let Some(real) = launcher
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
        {
            if real != bin {
                bins.push(real);
            }
        }
        for b in bins {
            if let Some(prefix) = b.parent() {
                dirs.extend(site_packages_dbprint(prefix));
            }
        }
    }
    dirs
}

/// How long a Python interpreter may take to say where it imports dbprint from.
const PYTHON_TIMEOUT: Duration = Duration::from_secs(2);

/// Where `python3` (then `python`) on PATH imports the `dbprint` package from, each asked
/// once per process. `find_spec` finds the package without running it (the same
/// directory as `dirname(dbprint.__file__)`).
fn imported_by_python() -> Vec<PathBuf> {
    static FOUND: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let mut asked = Vec::new();
            let mut found = Vec::new();
            for name in ["python3", "python"] {
                let Some(exe) = super::find_on_path(name) else {
                    continue;
                };
                let real = exe.canonicalize().unwrap_or_else(|_| exe.clone());
                if asked.contains(&real) {
                    continue;
                }
                asked.push(real);
                found.extend(ask_python(&exe));
            }
            found
        })
        .clone()
}

const FIND_DBPRINT: &str = "import importlib.util as u\ns = u.find_spec('dbprint')\nprint(next(iter(s.submodule_search_locations or []), '') if s else '')";

fn ask_python(exe: &Path) -> Option<PathBuf> {
    let mut child = std::process::Command::new(exe)
        .args(["-c", FIND_DBPRINT])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + PYTHON_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    let dir = out.trim();
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

/// pipx's venv: `$PIPX_HOME`, else `~/.local/pipx` (pipx before 1.3) and the data
/// directory newer pipx uses (`$XDG_DATA_HOME/pipx`, `~/.local/share/pipx`; `~/pipx` on
/// Windows).
fn pipx_venv() -> Vec<PathBuf> {
    let homes: Vec<PathBuf> = match env_dir("PIPX_HOME") {
        Some(dir) => vec![dir],
        None => {
            let mut homes: Vec<PathBuf> = home()
                .map(|h| {
                    vec![
                        h.join(".local/pipx"),
                        h.join(".local/share/pipx"),
                        h.join("pipx"),
                    ]
                })
                .unwrap_or_default();
            homes.extend(env_dir("XDG_DATA_HOME").map(|d| d.join("pipx")));
            homes
        }
    };
    homes
        .iter()
        .flat_map(|h| site_packages_dbprint(&h.join("venvs/dbprint")))
        .collect()
}

/// uv's tool environment: `$UV_TOOL_DIR`, else `$XDG_DATA_HOME/uv/tools`, else
/// `~/.local/share/uv/tools` (`%APPDATA%\uv\data\tools` on Windows).
fn uv_tool() -> Vec<PathBuf> {
    let tools: Vec<PathBuf> = match env_dir("UV_TOOL_DIR") {
        Some(dir) => vec![dir],
        None => env_dir("XDG_DATA_HOME")
            .map(|d| d.join("uv/tools"))
            .into_iter()
            .chain(home().map(|h| h.join(".local/share/uv/tools")))
            .chain(env_dir("APPDATA").map(|d| d.join("uv/data/tools")))
            .collect(),
    };
    tools
        .iter()
        .flat_map(|t| site_packages_dbprint(&t.join("dbprint")))
        .collect()
}

/// The dbprint package of the environment at `prefix`: `lib/python3*/site-packages`
/// (newest Python first, `dist-packages` too) or, on Windows, `Lib/site-packages`.
fn site_packages_dbprint(prefix: &Path) -> Vec<PathBuf> {
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(prefix.join("lib"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    pythons.sort();
    pythons.reverse();
    pythons
        .into_iter()
        .flat_map(|p| ["site-packages", "dist-packages"].map(|s| p.join(s).join("dbprint")))
        .chain(std::iter::once(prefix.join("Lib/site-packages/dbprint")))
        .filter(|p| p.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environments_keep_their_package_under_lib_python3() {
        let tmp = tempfile::tempdir().unwrap();
        let env = tmp.path();
        for rel in [
            "lib/python3.11/site-packages/dbprint",
            "lib/python3.13/site-packages/dbprint",
            "lib/python2.7/site-packages/dbprint",
            "Lib/site-packages/dbprint",
        ] {
            std::fs::create_dir_all(env.join(rel)).unwrap();
        }
        let found = site_packages_dbprint(env);
        let rel: Vec<String> = found
            .iter()
            .map(|p| {
                p.strip_prefix(env)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        // The Windows layout is looked for last; a case-insensitive filesystem may show
        // `Lib` as `lib` too.
        assert_eq!(
            &rel[..2],
            [
                "lib/python3.13/site-packages/dbprint",
                "lib/python3.11/site-packages/dbprint",
            ]
        );
        assert!(rel.contains(&"Lib/site-packages/dbprint".to_string()));
    }
}
