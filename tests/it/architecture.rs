//! The stage order ARCHITECTURE.md draws, held by the imports themselves: a stage may use
//! its own modules and the stages below it, never one above. Every `crate::<stage>` path
//! in every source file counts (a `use` line or a path written inline).

use std::path::{Path, PathBuf};

/// Bottom to top. `compat` is the workspace crate below all of these (see its own
/// layering test); `cli` is the binary's edge (`cli.rs`, `cli/`, `main.rs`, `lib.rs`).
const STAGES: [&str; 8] = [
    "error", "config", "ingest", "store", "query", "render", "mcp", "cli",
];

fn rank(stage: &str) -> Option<usize> {
    STAGES.iter().position(|s| *s == stage)
}

/// The stage a source file belongs to: its first component under `src/`.
fn stage_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    let name = first.trim_end_matches(".rs");
    match name {
        "main" | "lib" => "cli".to_string(),
        other => other.to_string(),
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every stage a file's code names through `crate::<stage>`, with its line number.
/// Comments are skipped (a doc comment may mention a stage above).
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` groups: each item is a stage.
            if name.is_empty() && after.starts_with('{') {
                let group = after[1..].split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let item: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !item.is_empty() {
                        out.push((n + 1, item));
                    }
                }
            } else if !name.is_empty() {
                out.push((n + 1, name));
            }
            rest = after;
        }
    }
    out
}

#[test]
fn imports_only_go_down_the_stage_order() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "read only {} files", files.len());
    let mut wrong = Vec::new();
    let mut seen_stages = std::collections::BTreeSet::new();
    for file in &files {
        let stage = stage_of(&src, file);
        let Some(own) = rank(&stage) else {
            wrong.push(format!(
                "{}: a top-level module outside the stage order ({stage}); add it to ARCHITECTURE.md and STAGES",
                file.display()
            ));
            continue;
        };
        seen_stages.insert(stage.clone());
        let text = std::fs::read_to_string(file).unwrap();
        for (line, used) in imports(&text) {
            match rank(&used) {
                Some(r) if r <= own => {}
                Some(_) => wrong.push(format!(
                    "{}:{line}: {stage} imports {used}, a stage above it",
                    file.display()
                )),
                None => wrong.push(format!(
                    "{}:{line}: crate::{used} is not a stage",
                    file.display()
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every stage exists: a stage renamed without this list would let the test pass idle.
    let missing: Vec<&str> = STAGES
        .iter()
        .filter(|s| !seen_stages.contains(**s))
        .copied()
        .collect();
    assert!(missing.is_empty(), "no source files for {missing:?}");
}

#[test]
fn the_import_reader_sees_paths_groups_and_skips_comments() {
    let text = "use crate::store::Snapshot;\nuse crate::{config, error::QueryError};\n// crate::mcp is mentioned here\nlet x = crate::render::paging::page(); // crate::cli\n";
    let found: Vec<String> = imports(text).into_iter().map(|(_, s)| s).collect();
    assert_eq!(found, ["store", "config", "error", "render"]);
}
