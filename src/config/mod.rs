//! `.dbprint.yaml`: project discovery, connections, print roots and the
//! freshness-threshold cascade, read with YAML 1.1 semantics as dbprint reads it.

pub mod git;
pub mod reference;
pub mod remote;

use std::path::{Path, PathBuf};

use compat::py::Glob;
use compat::value::Value;
use compat::yaml;

pub const CONFIG_FILENAME: &str = ".dbprint.yaml";
/// dbprint's built-in `profile.freshness.max_age_days`.
const DEFAULT_MAX_AGE_DAYS: f64 = 7.0;
const DEFAULT_OUTPUT: &str = "prints";

/// A startup failure; the text is what dbprint prints after `error: ` (or bare, see `bare`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    pub message: String,
}

fn config_error(message: String) -> ConfigError {
    ConfigError { message }
}

/// One rule's part in the threshold cascade.
#[derive(Debug, Clone)]
pub struct Rule {
    tables: Vec<Glob>,
    exclude: Vec<Glob>,
    has_min_rows: bool,
    max_age_days: Option<f64>,
}

impl Rule {
    /// `selectors.match`: an include glob admits the FQN and no exclude does; patterns lowercased.
    fn matches_name(&self, fqn: &str) -> bool {
        self.tables.iter().any(|g| g.matches(fqn)) && !self.exclude.iter().any(|g| g.matches(fqn))
    }
}

#[derive(Debug, Clone)]
pub struct ConnectionConfig {
    pub name: String,
    pub adapter: String,
    pub auto: bool,
    /// `<output>/<name>`, absolute.
    pub print_root: PathBuf,
    /// The connection's own threshold (defaults merged under it).
    max_age_days: f64,
    rules: Vec<Rule>,
}

impl ConnectionConfig {
    /// The threshold the rules give `fqn` offline: rules carrying `min_rows` never apply.
    pub fn max_age_days_for(&self, fqn: &str) -> f64 {
        let mut threshold = self.max_age_days;
        for rule in &self.rules {
            if !rule.has_min_rows && rule.matches_name(fqn) {
                if let Some(days) = rule.max_age_days {
                    threshold = days;
                }
            }
        }
        threshold
    }

    /// Whether a rule selecting `fqn` by name carries `min_rows` (which offline cannot apply).
    pub fn min_rows_conditions_name(&self, fqn: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.has_min_rows && r.matches_name(fqn))
    }
}

#[derive(Debug, Clone)]
pub struct ProjectConfig {
    pub project_root: PathBuf,
    pub config_path: PathBuf,
    /// In declaration order.
    pub connections: Vec<ConnectionConfig>,
}

impl ProjectConfig {
    pub fn connection(&self, name: &str) -> Option<&ConnectionConfig> {
        self.connections.iter().find(|c| c.name == name)
    }

    pub fn names_sorted(&self) -> Vec<String> {
        let mut names: Vec<String> = self.connections.iter().map(|c| c.name.clone()).collect();
        names.sort();
        names
    }
}

/// printdex's directory in the user's cache: `$XDG_CACHE_HOME/printdex`, else
/// `~/.cache/printdex` (on Windows `%LOCALAPPDATA%\printdex`). Indexes, git checkouts and
/// the pz docs live here; nothing printdex writes goes into a user's tree.
pub fn cache_root() -> PathBuf {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let cache = from_env("XDG_CACHE_HOME")
        .or_else(|| {
            if cfg!(windows) {
                from_env("LOCALAPPDATA")
            } else {
                None
            }
        })
        .or_else(|| from_env("HOME").map(|h| h.join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("printdex")
}

/// The default index directory of a project: `<cache root>/<hash of its root>`.
pub fn default_index_dir(project_root: &Path) -> PathBuf {
    let key = blake3::hash(project_root.to_string_lossy().as_bytes()).to_hex();
    cache_root().join(&key[..16])
}

/// The first executable named `name` in a directory of PATH (`name.exe` and the other
/// PATHEXT forms too on Windows), as `shutil.which` finds it. The crate's one PATH lookup.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    on_path(name)
        .into_iter()
        .find(|candidate| is_executable(candidate))
}

/// Every file named `name` (or a PATHEXT form of it on Windows) in PATH's directories, in
/// PATH's order, executable or not.
pub fn on_path(name: &str) -> Vec<PathBuf> {
    let suffixes = if cfg!(windows) {
        executable_suffixes(std::env::var("PATHEXT").ok().as_deref())
    } else {
        vec![String::new()]
    };
    files_named(
        &std::env::var_os("PATH").unwrap_or_default(),
        name,
        &suffixes,
    )
}

/// The files `name` + each suffix in each directory of the PATH value `path`.
fn files_named(path: &std::ffi::OsStr, name: &str, suffixes: &[String]) -> Vec<PathBuf> {
    std::env::split_paths(path)
        .flat_map(|dir| suffixes.iter().map(move |s| dir.join(format!("{name}{s}"))))
        .filter(|candidate| candidate.is_file())
        .collect()
}

/// The suffixes a Windows command name may carry: none first (a name given whole), then
/// each of PATHEXT's (`.COM;.EXE;.BAT;.CMD` when it is unset).
fn executable_suffixes(pathext: Option<&str>) -> Vec<String> {
    let exts = pathext.unwrap_or(".COM;.EXE;.BAT;.CMD");
    std::iter::once(String::new())
        .chain(exts.split(';').filter(|e| !e.is_empty()).map(String::from))
        .collect()
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Walk up from `start` to the first directory holding `.dbprint.yaml`.
pub fn discover(start: &Path) -> Result<ProjectConfig, ConfigError> {
    let cwd = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let mut dir = Some(cwd.as_path());
    while let Some(d) = dir {
        let candidate = d.join(CONFIG_FILENAME);
        if candidate.is_file() {
            return load_file(&candidate);
        }
        dir = d.parent();
    }
    Err(config_error(format!(
        "no .dbprint.yaml found in {} or any parent directory. Run `dbprint init` in the project root to create one.",
        cwd.display()
    )))
}

/// `--project X`: the config file itself or the directory directly holding it; no walk.
pub fn load_at(locator: &str) -> Result<ProjectConfig, ConfigError> {
    load_at_path(&expand_user(locator))
}

/// [`load_at`] for a path already expanded (a git checkout's directory).
pub fn load_at_path(path: &Path) -> Result<ProjectConfig, ConfigError> {
    let mut path = path.to_path_buf();
    if !path.is_absolute() {
        path = absolute_resolved(&path);
    }
    let config_path = if path.file_name().and_then(|n| n.to_str()) == Some(CONFIG_FILENAME) {
        path
    } else {
        path.join(CONFIG_FILENAME)
    };
    if !config_path.is_file() {
        return Err(config_error(format!(
            "no .dbprint.yaml at {}. --project names an exact location - the config file itself, or the directory that directly contains it. No upward walk, no downward scan.",
            config_path.display()
        )));
    }
    load_file(&config_path)
}

fn expand_user(text: &str) -> PathBuf {
    if let Some(rest) = text.strip_prefix('~') {
        if rest.is_empty() || rest.starts_with('/') {
            if let Some(home) = std::env::var_os("HOME") {
                return PathBuf::from(format!("{}{}", home.to_string_lossy(), rest));
            }
        }
    }
    PathBuf::from(text)
}

/// Python's `Path.resolve()` (non-strict): absolute, symlinks of the existing prefix resolved.
pub fn absolute_resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    if let Ok(p) = std::fs::canonicalize(&absolute) {
        return p;
    }
    // Resolve the longest existing ancestor, then append the rest lexically.
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    let mut cur = absolute.clone();
    loop {
        if let Ok(p) = std::fs::canonicalize(&cur) {
            let mut out = p;
            for part in tail.iter().rev() {
                if part == ".." {
                    out.pop();
                } else if part != "." {
                    out.push(part);
                }
            }
            return out;
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                cur = parent.to_path_buf();
            }
            _ => return absolute,
        }
    }
}

fn load_file(config_path: &Path) -> Result<ProjectConfig, ConfigError> {
    let text = std::fs::read_to_string(config_path)
        .map_err(|e| config_error(format!("{}: cannot be read - {e}", config_path.display())))?;
    let data = yaml::load(&text)
        .map_err(|e| config_error(format!("{}: invalid YAML - {e}", config_path.display())))?;
    let project_root = config_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    parse_project(&data, &project_root, config_path)
}

fn invalid(config_path: &Path, what: &str) -> ConfigError {
    config_error(format!("{}: {what}", config_path.display()))
}

fn parse_project(
    data: &Value,
    project_root: &Path,
    config_path: &Path,
) -> Result<ProjectConfig, ConfigError> {
    let Some(_) = data.as_map() else {
        return Err(invalid(config_path, "the configuration must be a mapping"));
    };
    let defaults = data.get("defaults");
    let default_output = defaults
        .and_then(|d| d.get("output"))
        .and_then(Value::as_str);
    let default_max_age = defaults.and_then(max_age_of_profile_owner);
    let mut connections = Vec::new();
    if let Some(map) = data.get("connections").and_then(Value::as_map) {
        for (key, conn) in map {
            let Some(name) = key.as_str() else {
                return Err(invalid(config_path, "connection names must be strings"));
            };
            if conn.as_map().is_none() {
                return Err(invalid(
                    config_path,
                    &format!("connections.{name} must be a mapping"),
                ));
            }
            let adapter = conn
                .get("adapter")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let auto = matches!(conn.get("auto"), Some(Value::Bool(true)));
            let output = conn
                .get("output")
                .and_then(Value::as_str)
                .or(default_output)
                .unwrap_or(DEFAULT_OUTPUT);
            let output_path = resolve_project_path(project_root, output);
            let max_age_days = max_age_of_profile_owner(conn)
                .or(default_max_age)
                .unwrap_or(DEFAULT_MAX_AGE_DAYS);
            let rules = conn
                .get("rules")
                .and_then(Value::as_seq)
                .map(|rules| rules.iter().map(parse_rule).collect())
                .unwrap_or_default();
            connections.push(ConnectionConfig {
                name: name.to_string(),
                adapter,
                auto,
                print_root: output_path.join(name),
                max_age_days,
                rules,
            });
        }
    }
    Ok(ProjectConfig {
        project_root: project_root.to_path_buf(),
        config_path: config_path.to_path_buf(),
        connections,
    })
}

/// `profile.freshness.max_age_days` of a connection or `defaults` block, when numeric.
fn max_age_of_profile_owner(owner: &Value) -> Option<f64> {
    number(
        owner
            .get("profile")?
            .get("freshness")?
            .get("max_age_days")?,
    )
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::BigInt(s) => s.parse().ok(),
        _ => None,
    }
}

fn globs(v: Option<&Value>) -> Vec<Glob> {
    v.and_then(Value::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|p| Glob::new(&compat::py::lower(p)))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_rule(rule: &Value) -> Rule {
    let matcher = rule.get("match");
    Rule {
        tables: globs(matcher.and_then(|m| m.get("tables"))),
        exclude: globs(matcher.and_then(|m| m.get("exclude"))),
        has_min_rows: matcher
            .and_then(|m| m.get("min_rows"))
            .is_some_and(|v| !matches!(v, Value::Null)),
        max_age_days: max_age_of_profile_owner(rule),
    }
}

/// dbprint's `resolve_project_path`: `~` expanded; relative anchored at the project and resolved.
fn resolve_project_path(project_root: &Path, text: &str) -> PathBuf {
    let path = expand_user(text);
    if path.is_absolute() {
        path
    } else {
        absolute_resolved(&project_root.join(path))
    }
}

/// The served set and default of `serve [CONNECTION]` (spec §5.1).
#[derive(Debug, Clone)]
pub struct Served {
    /// Served connections in declaration order.
    pub connections: Vec<ConnectionConfig>,
    pub default: Option<String>,
    /// Every configured name, served or not.
    pub configured: Vec<String>,
}

impl Served {
    pub fn resolve(project: &ProjectConfig, conn_arg: Option<&str>) -> Result<Served, ConfigError> {
        let configured = project.names_sorted();
        let all = &project.connections;
        if all.is_empty() {
            return Err(config_error(
                ".dbprint.yaml defines no connections. Add at least one under `connections:`."
                    .into(),
            ));
        }
        let known = crate::error::repr_str_list(&configured);
        if let Some(name) = conn_arg {
            let Some(conn) = project.connection(name) else {
                return Err(config_error(format!(
                    "unknown connection {}. Known: {known}.",
                    compat::py::repr_str(name)
                )));
            };
            return Ok(Served {
                connections: vec![conn.clone()],
                default: Some(name.to_string()),
                configured,
            });
        }
        let autos: Vec<ConnectionConfig> = all.iter().filter(|c| c.auto).cloned().collect();
        if !autos.is_empty() {
            let default = (autos.len() == 1).then(|| autos[0].name.clone());
            return Ok(Served {
                connections: autos,
                default,
                configured,
            });
        }
        if all.len() == 1 {
            return Ok(Served {
                connections: all.clone(),
                default: Some(all[0].name.clone()),
                configured,
            });
        }
        Err(config_error(format!(
            "no CONNECTION supplied and multiple connections defined: {known}. Pass one as the positional argument, or mark one or more with `auto: true`."
        )))
    }

    pub fn served_names_sorted(&self) -> Vec<String> {
        let mut names: Vec<String> = self.connections.iter().map(|c| c.name.clone()).collect();
        names.sort();
        names
    }

    /// Spec §5.2: the connection a call means, or the exact error.
    pub fn pick(
        &self,
        requested: Option<&str>,
    ) -> Result<&ConnectionConfig, crate::error::QueryError> {
        use crate::error::QueryError;
        match requested {
            Some(name) => match self.connections.iter().find(|c| c.name == name) {
                Some(c) => Ok(c),
                None if self.configured.iter().any(|c| c == name) => {
                    Err(QueryError::UnservedConnection {
                        connection: name.to_string(),
                        served: self.served_names_sorted(),
                    })
                }
                None => Err(QueryError::UnknownConnection {
                    connection: name.to_string(),
                    configured: self.configured.clone(),
                }),
            },
            None => match &self.default {
                Some(d) => Ok(self
                    .connections
                    .iter()
                    .find(|c| &c.name == d)
                    .expect("default is served")),
                None => Err(QueryError::NoDefaultConnection {
                    served: self.served_names_sorted(),
                }),
            },
        }
    }
}

#[cfg(test)]
mod path_tests {
    use super::*;

    #[test]
    fn windows_suffixes_come_from_pathext_after_the_bare_name() {
        assert_eq!(
            executable_suffixes(Some(".EXE;.CMD;")),
            ["", ".EXE", ".CMD"]
        );
        assert_eq!(
            executable_suffixes(None),
            ["", ".COM", ".EXE", ".BAT", ".CMD"]
        );
    }

    #[test]
    fn a_command_is_found_under_its_executable_suffix_in_path_order() {
        let tmp = tempfile::tempdir().unwrap();
        let (first, second) = (tmp.path().join("a"), tmp.path().join("b"));
        for dir in [&first, &second] {
            std::fs::create_dir_all(dir).unwrap();
        }
        // A directory named like the command is not a command.
        std::fs::create_dir_all(first.join("pz")).unwrap();
        std::fs::write(second.join("pz.exe"), "").unwrap();
        std::fs::write(second.join("pz.txt"), "").unwrap();
        let path = std::env::join_paths([&first, &second]).unwrap();
        let suffixes = executable_suffixes(Some(".exe"));
        assert_eq!(files_named(&path, "pz", &suffixes), [second.join("pz.exe")]);
        assert!(files_named(&path, "pz", &[String::new()]).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_file_without_execute_permission_is_listed_but_not_run() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let plain = tmp.path().join("pz");
        std::fs::write(&plain, "").unwrap();
        assert!(!is_executable(&plain));
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(is_executable(&plain));
    }
}
