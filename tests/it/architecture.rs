//! The stage order ARCHITECTURE.md draws, held by the imports themselves: a stage may use
//! its own modules and the stages below it, never one above. Every `crate::<stage>` path
//! in every source file counts (a `use` line or a path written inline), and so does a
//! `super::` path that climbs to the crate root and names a stage from there. And the map
//! is whole: every source file is named in ARCHITECTURE.md.

use std::path::Path;

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
    crate::util::rust_sources(&src, &mut files);
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

/// The module path of a source file below `src/`: `store/mirror/rows.rs` is
/// `[store, mirror, rows]`, `store/mirror/mod.rs` is `[store, mirror]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    match last.trim_end_matches(".rs") {
        "mod" | "lib" | "main" => {}
        name => parts.push(name.to_string()),
    }
    parts
}

/// Every stage a file's code names by climbing to the crate root with `super::`, with its
/// line number. Test code (after the first `#[cfg(test)]`) is left out: an inline test
/// module is one level deeper than the file, which a line reader cannot see.
fn super_imports(module: &[String], text: &str) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("super::") {
            // Only the start of a path: `a::super::` is not one.
            let before = &rest[..at];
            let chained = before.ends_with("::");
            let mut after = &rest[at..];
            let mut climbs = 0;
            while let Some(next) = after.strip_prefix("super::") {
                climbs += 1;
                after = next;
            }
            if !chained && climbs >= module.len() {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push((n + 1, name));
                }
            }
            rest = after;
        }
    }
    out
}

#[test]
fn super_paths_do_not_climb_out_of_a_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    crate::util::rust_sources(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let Some(own) = rank(&stage_of(&src, file)) else {
            continue;
        };
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        for (line, used) in super_imports(&module, &text) {
            if rank(&used).is_none_or(|r| r > own) {
                wrong.push(format!(
                    "{}:{line}: `super::` climbs to the crate root and names {used}",
                    file.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_super_reader_counts_climbs_from_the_file_s_module() {
    let module: Vec<String> = ["query", "context"].map(String::from).to_vec();
    let text = "use super::facts;\nuse super::super::store::Snapshot;\nlet x = a::super::b;\n#[cfg(test)]\nuse super::super::mcp;\n";
    assert_eq!(super_imports(&module, text), [(2, "store".to_string())]);
    assert_eq!(
        module_of(Path::new("/s"), Path::new("/s/store/mirror/mod.rs")),
        ["store", "mirror"]
    );
    assert_eq!(module_of(Path::new("/s"), Path::new("/s/cli.rs")), ["cli"]);
}

/// Whether `file` (a path below `src/`) is a unit-test module: those are named once, by
/// the rule that unit tests sit beside the code.
fn is_unit_test(rel: &str) -> bool {
    rel.ends_with("/tests.rs")
        || rel.ends_with("_tests.rs")
        || rel.contains("/tests/")
        || rel == "tests.rs"
}

/// The ways ARCHITECTURE.md may name `rel` (a path below `src/`, `/`-separated): that
/// path, or the same below its stage's folder (`mirror/rows.rs` in the store's paragraph);
/// a `mod.rs` by its folder (`mirror/`).
fn spellings(rel: &str) -> Vec<String> {
    let named = match rel.strip_suffix("mod.rs") {
        Some(folder) => folder.to_string(),
        None => rel.to_string(),
    };
    let mut out = vec![named.clone()];
    if let Some((_, below)) = named.split_once('/') {
        if !below.is_empty() {
            out.push(below.to_string());
        }
    }
    out
}

/// Whether `text` holds `word` as a path of its own: not the tail of a longer name
/// (`clock.rs` does not name `lock.rs`), though a longer path may lead to it.
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
    })
}

#[test]
fn every_source_file_is_named_in_the_architecture_document() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    crate::util::rust_sources(&src, &mut files);
    let mut unnamed = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if is_unit_test(&rel) {
            continue;
        }
        if !spellings(&rel).iter().any(|s| names(&doc, s)) {
            unnamed.push(rel);
        }
    }
    unnamed.sort();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md names no {} source file(s): {}",
        unnamed.len(),
        unnamed.join(", ")
    );
}

#[test]
fn a_file_is_named_by_its_path_or_its_folder() {
    assert_eq!(
        spellings("store/mirror/rows.rs"),
        ["store/mirror/rows.rs", "mirror/rows.rs"]
    );
    assert_eq!(
        spellings("store/mirror/mod.rs"),
        ["store/mirror/", "mirror/"]
    );
    assert_eq!(spellings("cli.rs"), ["cli.rs"]);
    assert!(names("(`lock.rs`, the writer)", "lock.rs"));
    assert!(!names("`clock.rs`", "lock.rs"));
    assert!(names("`store/lock.rs`", "lock.rs"));
    assert!(is_unit_test("query/pz_project/tests/load.rs") && !is_unit_test("store/fresh.rs"));
}

#[test]
fn the_import_reader_sees_paths_groups_and_skips_comments() {
    let text = "use crate::store::Snapshot;\nuse crate::{config, error::QueryError};\n// crate::mcp is mentioned here\nlet x = crate::render::paging::page(); // crate::cli\n";
    let found: Vec<String> = imports(text).into_iter().map(|(_, s)| s).collect();
    assert_eq!(found, ["store", "config", "error", "render"]);
}
