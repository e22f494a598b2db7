//! The crate's own import order, checked on its sources: `value` < `py` < `yaml`, and
//! `dotnet` apart from all three.

use std::path::Path;

/// Every non-comment line of the `.rs` files below `dir` that names one of `forbidden`.
fn offending_lines(dir: &Path, forbidden: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            out.extend(offending_lines(&path, forbidden));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if forbidden.iter().any(|f| code.contains(f)) {
                out.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    out
}

#[test]
fn imports_only_go_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rules: [(&str, &[&str]); 3] = [
        ("value", &["crate::py", "crate::yaml", "crate::dotnet"]),
        ("py", &["crate::yaml", "crate::dotnet"]),
        ("dotnet", &["crate::value", "crate::py", "crate::yaml"]),
    ];
    for (module, forbidden) in rules {
        let bad = offending_lines(&src.join(module), forbidden);
        assert!(
            bad.is_empty(),
            "{module}/ imports upward:\n{}",
            bad.join("\n")
        );
    }
}
