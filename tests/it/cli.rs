//! The command line as a client config written for `dbprint serve` uses it: every flag
//! dbprint accepts, refused or accepted as dbprint does; help for every option.

use std::process::{Command, Stdio};

use serde_json::json;

use crate::util::{bin, fixtures, session, tool_call};

/// `printdex ARGS` in an empty directory (no project to walk up to), stdin closed.
fn run_in_empty_dir(args: &[&str]) -> std::process::Output {
    let cwd = tempfile::tempdir().unwrap();
    Command::new(bin())
        .args(args)
        .current_dir(cwd.path())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn no_read_only_is_refused_as_dbprint_refuses_it_before_anything_else() {
    for args in [
        &["serve", "--no-read-only"][..],
        &["serve", "--read-only", "--no-read-only"],
        &["serve", "--no-read-only", "--transport", "http"],
        &[
            "serve",
            "nosuch",
            "--no-read-only",
            "--project",
            "/nonexistent",
        ],
    ] {
        let out = run_in_empty_dir(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "Only --read-only is supported.\n",
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// A session over the library fixture with `extra` arguments (`serve` among them).
fn list_tables_with(extra: &[&str]) -> crate::util::Session {
    let index = tempfile::tempdir().unwrap();
    let mut command = Command::new(bin());
    command
        .args(extra)
        .arg("--project")
        .arg(fixtures().join("library"))
        .arg("--index-dir")
        .arg(index.path());
    session(command, &[tool_call("list_tables", json!({}))])
}

#[test]
fn read_only_and_dbprints_root_debug_flag_are_accepted() {
    for extra in [
        &["serve", "--read-only"][..],
        &["serve", "--read-only", "--read-only"],
        &["serve", "--no-read-only", "--read-only"],
        &["--debug", "serve", "--read-only"],
    ] {
        let s = list_tables_with(extra);
        assert!(s.status.success(), "{extra:?}: {}", s.stderr);
        let (text, is_error) = s.call(1);
        assert!(!is_error, "{extra:?}: {text}");
        assert!(text.contains("\"total\": 11"), "{extra:?}: {text}");
    }
}

#[test]
fn port_and_host_on_stdio_are_warned_about_not_silently_ignored() {
    let s = list_tables_with(&["serve", "--port", "8765", "--host", "0.0.0.0"]);
    assert!(s.status.success(), "{}", s.stderr);
    assert!(!s.call(1).1);
    let warnings: Vec<&str> = s
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: --port applies only to --transport http; serving over stdio, it is ignored.",
            "warning: --host applies only to --transport http; serving over stdio, it is ignored.",
        ]
    );
    // Without them, no warning.
    let s = list_tables_with(&["serve"]);
    assert!(!s.stderr.contains("warning: "), "{}", s.stderr);
}

/// `printdex ARGS --help`, as text.
fn help(args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The entries of one `Name:` section of a help text: (entry line, has help text).
fn entries(text: &str, section: &str) -> Vec<(String, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| *l == section) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let body: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| l.starts_with(' '))
        .copied()
        .collect();
    for (i, line) in body.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        // An entry starts within a few columns; deeper lines continue a help text.
        if indent > 8 {
            continue;
        }
        let entry = line.trim_start();
        let inline = entry
            .split_once("  ")
            .is_some_and(|(_, h)| !h.trim().is_empty());
        let below = body
            .get(i + 1)
            .is_some_and(|next| next.len() - next.trim_start().len() > 8);
        out.push((entry.to_string(), inline || below));
    }
    out
}

#[test]
fn every_option_and_argument_of_every_command_has_help() {
    let mut commands: Vec<Vec<String>> = vec![vec![]];
    let mut checked = 0;
    let mut i = 0;
    while i < commands.len() {
        let command = commands[i].clone();
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let text = help(&args);
        for section in ["Options:", "Arguments:"] {
            for (entry, has_help) in entries(&text, section) {
                assert!(has_help, "printdex {command:?}: `{entry}` has no help");
                checked += 1;
            }
        }
        for (entry, _) in entries(&text, "Commands:") {
            let name = entry.split_whitespace().next().unwrap().to_string();
            if name != "help" {
                let mut sub = command.clone();
                sub.push(name);
                commands.push(sub);
            }
        }
        i += 1;
    }
    let names: Vec<String> = commands.iter().map(|c| c.join(" ")).collect();
    for expected in [
        "serve",
        "index rebuild",
        "index status",
        "index list",
        "index prune",
        "pz serve",
        "pz docs sync",
        "pz docs status",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
    }
    assert!(checked > 30, "only {checked} entries seen");
    // The options dbprint serve has: a git address is a --project.
    let serve = help(&["serve"]);
    for flag in [
        "--read-only",
        "--no-read-only",
        "--host",
        "--port",
        "--transport",
    ] {
        assert!(serve.contains(flag), "{flag}");
    }
    assert!(serve.contains("<git-url>#<ref>:<subpath>"));
}

#[test]
fn a_project_beginning_with_a_dash_is_a_path_as_dbprint_reads_it() {
    let out = run_in_empty_dir(&["serve", "--project", "-x"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: no .dbprint.yaml at ")
            && stderr.contains("/-x/.dbprint.yaml. --project names an exact location"),
        "{stderr}"
    );
}

#[test]
fn the_readme_states_the_minimum_rust_and_every_environment_variable_serve_reads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("the workspace declares rust-version");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust toolchain ({version} or newer")),
        "README does not state rust-version {version}"
    );
    let serve = help(&["serve"]);
    let environment = serve
        .split("Environment:\n")
        .nth(1)
        .expect("serve --help lists the environment");
    for line in environment.lines().filter(|l| !l.trim().is_empty()) {
        let var = line.split_whitespace().next().unwrap();
        assert!(readme.contains(&format!("`{var}`")), "README lacks {var}");
    }
}
