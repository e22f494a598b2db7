//! The one place that lists a pz project's files from disk (the store calls it; the
//! parsers never walk). Follows symlinks as .NET's `File.Exists`/`Directory.Enumerate*` do,
//! keeps only regular files, and reads each once.

use std::io;
use std::path::Path;

use super::files::{is_project_path, ProjectFiles};
use crate::ingest::{clock_ns, FileIdentity};

/// The project-relative paths of the files pz reads at `root` that exist as regular files
/// now (see [`is_project_path`]), in ordinal order. A missing directory is simply absent.
pub fn project_paths(root: &Path) -> io::Result<Vec<String>> {
    let mut rels = vec!["project.yml".to_string(), "connections.yml".to_string()];
    collect(root, "pipelines", true, &mut rels)?;
    for dir in ["sources", "sinks"] {
        collect(root, dir, false, &mut rels)?;
    }
    for name in ["watermarks.json", "sync-state.json", "schemas.json"] {
        rels.push(format!(".pz/state/{name}"));
    }
    rels.push(".pz/target/manifest.json".to_string());
    if let Ok(entries) = std::fs::read_dir(root.join(".pz/runs")) {
        for entry in entries.flatten() {
            if let Some(id) = entry.file_name().to_str() {
                rels.push(format!(".pz/runs/{id}/run_results.json"));
            }
        }
    }
    rels.retain(|rel| is_project_path(rel));
    rels.sort();
    rels.dedup();
    Ok(rels)
}

/// Every file of the project at `root` that pz reads, read once. An unreadable file is an
/// error; one that vanishes while the walk runs is absent.
pub fn read_project_dir(root: &Path) -> io::Result<ProjectFiles> {
    let mut out = ProjectFiles::new(root);
    for rel in project_paths(root)? {
        let path = root.join(&rel);
        let before = clock_ns();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        // The portable identity every reader of a file uses (`ingest::FileIdentity`).
        let identity = FileIdentity::from_metadata(&meta, before);
        out.insert(rel, bytes, identity.mtime_ns);
    }
    Ok(out)
}

/// Relative paths of the files under `root/dir` (recursively when `deep`).
fn collect(root: &Path, dir: &str, deep: bool, out: &mut Vec<String>) -> io::Result<()> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let rel = format!("{dir}/{name}");
        let is_dir = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir());
        if is_dir {
            if deep {
                collect(root, &rel, deep, out)?;
            }
        } else {
            out.push(rel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_lists_only_what_pz_reads() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, text) in [
            ("project.yml", "name: x\n"),
            ("pipelines/a.sql", "select 1"),
            ("pipelines/sub/b.sql", "select 2"),
            ("pipelines/configs/a.yml", "pipeline: a\n"),
            ("pipelines/notes.md", "no"),
            ("data/x.csv", "no"),
            (".pz/runs/r1/run_results.json", "{}"),
            (".pz/runs/r2/run_results.json.tmp", "{}"),
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let files = read_project_dir(root).unwrap();
        let rels: Vec<&str> = files.files.keys().map(String::as_str).collect();
        assert_eq!(
            rels,
            [
                ".pz/runs/r1/run_results.json",
                "pipelines/a.sql",
                "pipelines/configs/a.yml",
                "pipelines/sub/b.sql",
                "project.yml"
            ]
        );
        assert!(files.get("project.yml").unwrap().mtime_ns > 0);
    }
}
