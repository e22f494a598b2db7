//! Fixture files and private copies of them.

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Copy a directory tree (files and directories; symlinks are not followed).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_dir(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A private copy of the fixture project `fixtures/<name>`, safe to change.
pub fn fixture_copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixtures().join(name), dir.path());
    dir
}

/// A private copy of the library fixture project.
pub fn library() -> tempfile::TempDir {
    fixture_copy("library")
}

/// Every file under `root`, relative to it, sorted.
pub fn relative_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                out.push(entry.path().strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Write `content` over `path` the way an atomic writer does: a temp name, then a rename.
pub fn write_atomically(path: &Path, content: &str) {
    let tmp = path.with_file_name(format!(
        ".{}.tmp{}",
        path.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, content).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A project of one duckdb connection `c` whose manifest lists `n` bare tables.
pub fn bare_project(dir: &Path, n: usize) {
    std::fs::write(
        dir.join(".dbprint.yaml"),
        "connections:\n  c:\n    adapter: duckdb\n",
    )
    .unwrap();
    let root = dir.join("prints/c");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("manifest.yaml"), bare_manifest(n)).unwrap();
}

/// A manifest of `n` tables (`s.t000000`...) with nothing but their type.
pub fn bare_manifest(n: usize) -> String {
    let mut text = String::from("format_version: 1\ntables:\n");
    for i in 0..n {
        text.push_str(&format!("  s.t{i:06}:\n    type: table\n"));
    }
    text
}

/// Every `.rs` file under `dir`, at any depth, appended to `out` (the source checks read
/// the crate's own code with it).
pub fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
