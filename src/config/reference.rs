//! Where dbprint's packaged reference documents are: `--reference-dir`, then
//! `$PRINTDEX_REFERENCE_DIR`, then the package beside each `dbprint` executable on PATH.
//! Discovery only; the store loads what is found.

use std::path::{Path, PathBuf};

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
/// packaged copy before a source checkout's.
pub fn locate(explicit: Option<&Path>, document: Document) -> Option<PathBuf> {
    candidate_dirs(explicit).into_iter().find_map(|dir| {
        std::iter::once(document.package_path())
            .chain(document.source_tree_path())
            .map(|rel| dir.join(rel))
            .find(|p| p.is_file())
    })
}

/// Candidate dbprint package directories, in lookup order: the flag, the environment
/// variable, then the package beside each `dbprint` executable on PATH.
fn candidate_dirs(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = explicit.map(Path::to_path_buf).into_iter().collect();
    if let Some(env) = std::env::var_os(REFERENCE_DIR_ENV).filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(env));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for bin in std::env::split_paths(&path) {
            let exe = bin.join("dbprint");
            if !exe.is_file() {
                continue;
            }
            // A symlinked launcher (pipx, ~/.local/bin) lives apart from its venv.
            let mut bins = vec![bin.clone()];
            if let Some(real) = exe
                .canonicalize()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
            {
                if real != bin {
                    bins.push(real);
                }
            }
            for b in bins {
                dirs.extend(site_packages_dbprint(&b));
            }
        }
    }
    dirs
}

/// `<bin>/../lib/python3*/site-packages/dbprint`, newest Python first.
fn site_packages_dbprint(bin: &Path) -> Vec<PathBuf> {
    let Some(prefix) = bin.parent() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(prefix.join("lib")) else {
        return Vec::new();
    };
    let mut pythons: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path())
        .collect();
    pythons.sort();
    pythons.reverse();
    pythons
        .into_iter()
        .flat_map(|p| ["site-packages", "dist-packages"].map(|s| p.join(s).join("dbprint")))
        .filter(|p| p.is_dir())
        .collect()
}
