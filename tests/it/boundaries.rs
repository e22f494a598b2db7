//! What two stages promise beyond the import order `architecture` checks: `query` opens no
//! file itself (every byte it reads comes through the store, checked against what the
//! snapshot knows), and `render` never touches the store (its inputs are models; what it
//! would cache, the caller keeps). Read from the sources, outside test code.

use std::path::{Path, PathBuf};

/// Each non-test source file of `stage` with its code before any `#[cfg(test)]`.
fn code_of(stage: &str) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    crate::util::rust_sources(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(stage),
        &mut files,
    );
    assert!(!files.is_empty(), "no sources under src/{stage}");
    files
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name != "tests.rs" && !name.ends_with("_tests.rs")
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let code = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .to_string();
            (p, code)
        })
        .collect()
}

fn offending(stage: &str, forbidden: &[&str]) -> Vec<String> {
    code_of(stage)
        .into_iter()
        .flat_map(|(path, code)| {
            code.lines()
                .enumerate()
                .filter(|(_, line)| !line.trim_start().starts_with("//"))
                .filter(|(_, line)| forbidden.iter().any(|f| line.contains(f)))
                .map(|(n, line)| format!("{}:{}: {}", path.display(), n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn query_opens_no_file_itself() {
    let found = offending(
        "query",
        &["std::fs", "fs::read", "File::open", "OpenOptions"],
    );
    assert!(
        found.is_empty(),
        "query reads the disk itself:\n{}",
        found.join("\n")
    );
}

#[test]
fn render_never_touches_the_store() {
    let found = offending("render", &["crate::store", "std::fs", "File::open"]);
    assert!(
        found.is_empty(),
        "render reaches past its model:\n{}",
        found.join("\n")
    );
}
