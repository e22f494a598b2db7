//! The in-memory view of a pz project that every parser reads: project-relative paths
//! (forward slashes) to bytes and mtimes. The store fills it from its mirror, `walk` from
//! disk; no parser looks at the filesystem itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One file's bytes and modification time (ns since the epoch).
#[derive(Debug, Clone)]
pub struct ProjectFile {
    pub bytes: Arc<[u8]>,
    pub mtime_ns: i64,
}

/// A pz project's files, keyed by project-relative path (`pipelines/a/b.sql`).
#[derive(Debug, Clone, Default)]
pub struct ProjectFiles {
    /// The project directory, absolute; only `pz mcp`'s path guard reads it.
    pub root: PathBuf,
    pub files: BTreeMap<String, ProjectFile>,
}

impl ProjectFiles {
    pub fn new(root: impl Into<PathBuf>) -> ProjectFiles {
        ProjectFiles {
            root: root.into(),
            files: BTreeMap::new(),
        }
    }

    pub fn insert(&mut self, rel: impl Into<String>, bytes: impl Into<Arc<[u8]>>, mtime_ns: i64) {
        self.files.insert(
            rel.into(),
            ProjectFile {
                bytes: bytes.into(),
                mtime_ns,
            },
        );
    }

    pub fn get(&self, rel: &str) -> Option<&ProjectFile> {
        self.files.get(rel)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Which of a project's files pz reads, by relative path: the answer to "does this path
/// belong in the view", shared by the walk and by whoever mirrors the files.
pub fn is_project_path(rel: &str) -> bool {
    match rel {
        "project.yml" | "connections.yml" | ".pz/target/manifest.json" => return true,
        ".pz/state/watermarks.json" | ".pz/state/sync-state.json" | ".pz/state/schemas.json" => {
            return true
        }
        _ => {}
    }
    if let Some(rest) = rel.strip_prefix("pipelines/") {
        if rest.ends_with(".sql") {
            return true;
        }
        if let Some(name) = rest.strip_prefix("configs/") {
            return name.ends_with(".yml") && !name.contains('/');
        }
        return false;
    }
    for dir in ["sources/", "sinks/"] {
        if let Some(name) = rel.strip_prefix(dir) {
            return name.ends_with(".yml") && !name.contains('/');
        }
    }
    if let Some(rest) = rel.strip_prefix(".pz/runs/") {
        return matches!(rest.split_once('/'), Some((id, "run_results.json")) if !id.is_empty());
    }
    false
}

/// The files whose change makes a compiled manifest stale: the ones `pz compile` reads.
pub fn is_compile_input(rel: &str) -> bool {
    is_project_path(rel) && !rel.starts_with(".pz/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_paths_are_pz_inputs() {
        for yes in [
            "project.yml",
            "pipelines/a.sql",
            "pipelines/x/y/b.sql",
            "pipelines/configs/a.yml",
            "sources/old.yml",
            ".pz/runs/20260101T000000000Z-ab12/run_results.json",
            ".pz/state/schemas.json",
        ] {
            assert!(is_project_path(yes), "{yes}");
        }
        for no in [
            "pipelines/configs/x/a.yml",
            "pipelines/readme.md",
            ".pz/runs/x/run_results.json.tmp",
            ".pz/runs//run_results.json",
            "data/orders.csv",
            "sources/x/a.yml",
        ] {
            assert!(!is_project_path(no), "{no}");
        }
        assert!(!is_compile_input(".pz/target/manifest.json"));
        assert!(is_compile_input("connections.yml"));
    }
}
