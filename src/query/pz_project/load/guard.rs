//! The two things `pz mcp` adds to a load (`ProjectPhases`): hints that name a CLI verb
//! rewritten for an agent, and the lexical path guard (PZ0606) over path-scoped connectors.

use std::path::{Component, Path, PathBuf};

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::value::{PzMap, PzValue};
use crate::query::pz_project::model::{file_error, Project};

/// `ProjectPhases.RewriteHint`.
pub fn rewrite_hint(mut error: PzError) -> PzError {
    let Some(hint) = &error.next_step else {
        return error;
    };
    if hint.contains("pz init") {
        error.next_step = Some(
            "this directory is not a pz project -- call pz_init_project to scaffold one here, or ask the user to point the server at an existing project directory".into(),
        );
    } else if error.code == PzCode::UndeclaredEnvVar {
        error.next_step = Some(format!(
            "{hint} An MCP server reads the environment of the process it was launched in, so ask the user to set it and restart the pz MCP server -- setting it elsewhere will not reach this server."
        ));
    }
    error
}

const PATH_KEYS: [&str; 4] = ["path", "root", "base_dir", "data_path"];

/// `PathGuard.FindEscapes` over the loaded project: connection blocks and entity reads (the
/// loader has no outputs yet).
pub fn find_escapes(project: &Project, root: &Path) -> Vec<PzError> {
    let mut errors = Vec::new();
    for c in &project.connections {
        if !matches!(
            c.connector.as_str(),
            "localfiles" | "sqlite" | "duckdb" | "ducklake" | "iceberg"
        ) {
            continue;
        }
        check(
            &c.config,
            &c.connector,
            &format!("connection '{}'", c.name),
            root,
            &mut errors,
        );
        for d in &c.datasets {
            check(
                &d.options,
                &c.connector,
                &format!("'{}.{}'", c.name, d.name),
                root,
                &mut errors,
            );
        }
    }
    errors
}

fn check(options: &PzMap, connector: &str, subject: &str, root: &Path, errors: &mut Vec<PzError>) {
    for key in PATH_KEYS {
        let Some(PzValue::Str(value)) = options.get(key) else {
            continue;
        };
        let may_name_store = key == "data_path" || (connector == "iceberg" && key == "root");
        if may_name_store && value.contains("://") {
            continue;
        }
        if escapes(root, value) {
            errors.push(file_error(
                PzCode::McpPathEscapesProject,
                format!("{subject}: {connector} {key} '{value}' resolves outside the project directory"),
                "connections.yml",
                "pz mcp only operates on files inside the project; use a path under the project root, or run the pz CLI directly if reading outside the project is intended",
            ));
        }
    }
}

/// `Path.GetFullPath(Path.Combine(root, value))` outside `root`, lexically (ordinal, as on
/// Linux). A value with a NUL is unresolvable and not this guard's finding.
fn escapes(root: &Path, value: &str) -> bool {
    if value.contains('\0') {
        return false;
    }
    let root = normalize(root);
    let resolved = normalize(&root.join(value));
    resolved != root && !resolved.starts_with(&root)
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_escape_lexically() {
        let root = Path::new("/work/proj");
        assert!(!escapes(root, "data/x.csv"));
        assert!(!escapes(root, "./out/../data"));
        assert!(escapes(root, "../other"));
        assert!(escapes(root, "/etc/passwd"));
        assert!(escapes(root, "data/../../x"));
        assert!(!escapes(root, "."));
        assert!(escapes(Path::new("/work/proj"), "../proj2"));
    }
}
