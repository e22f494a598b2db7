//! get_reference out of the box: dbprint's packaged documents found wherever dbprint is
//! installed (beside a `dbprint` on PATH, the package python imports, pipx, uv), and,
//! when none is, an error naming `--reference-dir` and `PRINTDEX_REFERENCE_DIR` and one
//! startup line saying get_reference is unavailable. The package is the synthetic one in
//! fixtures/reference-docs, copied into each layout.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::util::{bin, copy_dir, fixtures, session, tool_call, Session};

const TOC_START: &str = "- Widget print format - v1\n";
const UNAVAILABLE: &str = "printdex: get_reference is unavailable";

fn package() -> PathBuf {
    fixtures().join("reference-docs/dbprint")
}

/// Serve the reference-docs project with nothing of the caller's environment that could
/// point at a dbprint: HOME and PATH as given, every other variable consulted removed.
fn serve(
    home: &Path,
    path: &Path,
    env: &[(&str, &Path)],
    requests: &[(&str, serde_json::Value)],
) -> Session {
    let index = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut command = Command::new(bin());
    for var in [
        "PIPX_HOME",
        "UV_TOOL_DIR",
        "XDG_DATA_HOME",
        "APPDATA",
        "USERPROFILE",
        "PRINTDEX_REFERENCE_DIR",
        "PYTHONPATH",
    ] {
        command.env_remove(var);
    }
    command
        .env("HOME", home)
        .env("PATH", path)
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .current_dir(cwd.path())
        .args(["serve", "--project"])
        .arg(fixtures().join("reference-docs/project"))
        .arg("--index-dir")
        .arg(index.path());
    session(command, requests)
}

fn spec_toc() -> (&'static str, serde_json::Value) {
    tool_call("get_reference", json!({"document": "spec"}))
}

/// An environment at `prefix` holding the fixture package as pip installs it.
fn install_into(prefix: &Path) {
    copy_dir(
        &package(),
        &prefix.join("lib/python3.12/site-packages/dbprint"),
    );
}

#[test]
fn get_reference_finds_dbprint_beside_its_executable_in_pipx_and_in_uv() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let empty = root.join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    struct Layout {
        name: &'static str,
        prefix: &'static str,
        home: bool,
        path: Option<&'static str>,
        env: Option<(&'static str, &'static str)>,
    }
    let layouts = [
        Layout {
            name: "a venv whose bin is on PATH",
            prefix: "venv",
            home: false,
            path: Some("venv/bin"),
            env: None,
        },
        Layout {
            name: "pipx under PIPX_HOME",
            prefix: "pipx-home/venvs/dbprint",
            home: false,
            path: None,
            env: Some(("PIPX_HOME", "pipx-home")),
        },
        Layout {
            name: "pipx's older default, ~/.local/pipx",
            prefix: ".local/pipx/venvs/dbprint",
            home: true,
            path: None,
            env: None,
        },
        Layout {
            name: "pipx's newer default, ~/.local/share/pipx",
            prefix: ".local/share/pipx/venvs/dbprint",
            home: true,
            path: None,
            env: None,
        },
        Layout {
            name: "uv under UV_TOOL_DIR",
            prefix: "uv-tools/dbprint",
            home: false,
            path: None,
            env: Some(("UV_TOOL_DIR", "uv-tools")),
        },
        Layout {
            name: "uv's default, ~/.local/share/uv/tools",
            prefix: ".local/share/uv/tools/dbprint",
            home: true,
            path: None,
            env: None,
        },
    ];
    for (i, layout) in layouts.iter().enumerate() {
        let base = root.join(format!("case{i}"));
        let home = base.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let under = if layout.home { &home } else { &base };
        install_into(&under.join(layout.prefix));
        let path = match layout.path {
            Some(bin_dir) => {
                let dir = base.join(bin_dir);
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("dbprint"), "#!/bin/sh\n").unwrap();
                dir
            }
            None => empty.clone(),
        };
        let env_dir = layout.env.map(|(k, v)| (k, base.join(v)));
        let env: Vec<(&str, &Path)> = env_dir.iter().map(|(k, v)| (*k, v.as_path())).collect();
        let s = serve(&home, &path, &env, &[spec_toc()]);
        let (text, is_error) = s.call(1);
        assert!(!is_error, "{}: {text}", layout.name);
        assert!(text.starts_with(TOC_START), "{}: {text}", layout.name);
        assert!(
            !s.stderr.contains(UNAVAILABLE),
            "{}: {}",
            layout.name,
            s.stderr
        );
    }
}

/// The interpreter `python3` on this machine's PATH runs; the test needs one.
#[cfg(unix)]
fn real_python() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("this test needs a python3 on PATH");
    let exe = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(
        out.status.success() && !exe.is_empty(),
        "python3 on PATH does not run"
    );
    PathBuf::from(exe)
}

#[cfg(unix)]
#[test]
fn get_reference_finds_the_package_python3_imports_asking_it_once() {
    let python = real_python();
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let log = tmp.path().join("asked.log");
    // A python3 that notes each time it is run, then runs the real one.
    let wrapper = bin_dir.join("python3");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho asked >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            python.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // The fixture's `dbprint` directory is importable from here (a namespace package).
    let importable = fixtures().join("reference-docs");
    let s = serve(
        &home,
        &bin_dir,
        &[("PYTHONPATH", importable.as_path())],
        &[
            spec_toc(),
            tool_call("get_reference", json!({"document": "guide"})),
            tool_call("get_reference", json!({"document": "assertions"})),
        ],
    );
    for id in 1..=3 {
        let (text, is_error) = s.call(id);
        assert!(!is_error, "{id}: {text}");
    }
    assert!(s.call(1).0.starts_with(TOC_START));
    assert!(!s.stderr.contains(UNAVAILABLE), "{}", s.stderr);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "asked\n");
}

#[test]
fn without_dbprint_anywhere_the_error_names_the_flag_and_the_variable_and_startup_says_so_once() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let empty = tmp.path().join("bin");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&empty).unwrap();
    let s = serve(
        &home,
        &empty,
        &[],
        &[
            spec_toc(),
            tool_call("get_reference", json!({"document": "guide"})),
            (
                "resources/read",
                json!({"uri": "dbprint:///reference/spec"}),
            ),
        ],
    );
    let (text, is_error) = s.call(1);
    assert!(is_error);
    assert_eq!(
        text,
        "no spec reference document available - neither the installed package nor the source \
         tree carries it. Point printdex at an installed dbprint package directory with \
         --reference-dir or the PRINTDEX_REFERENCE_DIR environment variable."
    );
    assert!(s
        .call(2)
        .0
        .starts_with("no guide reference document available"));
    let resource = &s.responses[&3];
    assert!(
        resource
            .to_string()
            .contains("--reference-dir or the PRINTDEX_REFERENCE_DIR"),
        "{resource}"
    );
    let said: Vec<&str> = s
        .stderr
        .lines()
        .filter(|l| l.contains("get_reference"))
        .collect();
    assert_eq!(said.len(), 1, "{}", s.stderr);
    // Looked for off the startup path, and said after the startup line.
    let line_of = |start: &str| s.stderr.lines().position(|l| l.starts_with(start));
    assert!(
        line_of("printdex: serving ") < line_of(UNAVAILABLE)
            && line_of("printdex: serving ").is_some(),
        "{}",
        s.stderr
    );
    assert!(
        said[0].starts_with(UNAVAILABLE)
            && said[0].ends_with("pass --reference-dir or set PRINTDEX_REFERENCE_DIR"),
        "{}",
        said[0]
    );
}
