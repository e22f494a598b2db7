//! The indexes as a user looks after them: `index status` naming what is absent (and not
//! what is optional), `index rebuild`'s progress agreeing with its summary, and
//! `index list` / `index prune` over every index in printdex's cache.

use std::path::Path;
use std::process::Command;

use crate::util::{bin, copy_dir, fixtures, run, session};

/// `printdex ARGS` with printdex's cache in `cache`: (success, stdout, stderr).
fn printdex(cache: &Path, args: &[&str]) -> (bool, String, String) {
    let out = run(Command::new(bin()).args(args).env("XDG_CACHE_HOME", cache));
    (out.ok(), out.stdout, out.stderr)
}

/// A private copy of the library fixture project at `dir`.
fn library_at(dir: &Path) {
    copy_dir(&fixtures().join("library"), dir);
}

#[test]
fn index_status_names_absent_files_and_leaves_optional_ones_out() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("library");
    library_at(&project);
    let root = project.join("prints/library");
    // A required file gone, and two optional (human-written) ones.
    std::fs::remove_file(root.join("stacks/catalog/series/ddl.sql")).unwrap();
    std::fs::remove_file(root.join("stacks/members/patrons/description.md")).unwrap();
    std::fs::remove_file(root.join("manifest.annotations.yaml")).unwrap();
    let cache = tmp.path().join("cache");
    let p = project.to_str().unwrap();
    let (ok, _, err) = printdex(&cache, &["index", "rebuild", "--project", p]);
    assert!(ok, "{err}");
    let (ok, out, _) = printdex(&cache, &["index", "status", "--project", p]);
    assert!(ok);
    assert!(
        out.contains(
            "library: 49 files (0 unparseable, 1 absent: stacks/catalog/series/ddl.sql), print "
        ),
        "{out}"
    );
    // Put back, it is not absent any more.
    copy_dir(&fixtures().join("library/prints"), &project.join("prints"));
    let (ok, _, err) = printdex(&cache, &["index", "rebuild", "--project", p]);
    assert!(ok, "{err}");
    let (_, out, _) = printdex(&cache, &["index", "status", "--project", p]);
    assert!(
        out.contains("library: 49 files (0 unparseable, none absent), print "),
        "{out}"
    );
}

#[test]
fn rebuild_progress_counts_agree_with_the_summary_line_and_the_status() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let project = fixtures().join("edge/multi-auto");
    let p = project.to_str().unwrap();
    let (ok, _, err) = printdex(&cache, &["index", "rebuild", "--project", p]);
    assert!(ok, "{err}");
    // Off a terminal, the bar's final count of each connection is a line.
    let counts: Vec<(String, usize)> = err
        .lines()
        .filter_map(|l| l.strip_prefix("indexing "))
        .map(|l| {
            let (name, rest) = l.split_once(": ").unwrap();
            let (done, total) = rest
                .strip_suffix(" files")
                .unwrap()
                .split_once('/')
                .unwrap();
            assert_eq!(done, total, "{l}");
            (name.to_string(), total.parse().unwrap())
        })
        .collect();
    let mut names: Vec<&str> = counts.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    assert_eq!(names, ["archive", "north", "south"], "{err}");
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    assert!(
        err.contains("indexed 3 connection(s): ")
            && err.contains(&format!(" columns, {total} files, ")),
        "{err}"
    );
    let (_, out, _) = printdex(&cache, &["index", "status", "--project", p]);
    assert!(out.contains(&format!("files: {total}  ")), "{out}");
    for (name, n) in &counts {
        assert!(out.contains(&format!("{name}: {n} files (")), "{out}");
    }
}

/// Serve `project` once (EOF at once) with its index in the default place in `cache`.
fn serve_once(cache: &Path, project: &Path) {
    let mut command = Command::new(bin());
    command
        .env("XDG_CACHE_HOME", cache)
        .arg("serve")
        .arg("--project")
        .arg(project);
    let s = session(command, &[]);
    assert!(s.status.success(), "{}", s.stderr);
}

#[test]
fn index_list_shows_every_index_and_prune_removes_only_those_of_gone_projects() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let (kept, gone) = (tmp.path().join("kept"), tmp.path().join("gone"));
    library_at(&kept);
    library_at(&gone);
    serve_once(&cache, &kept);
    serve_once(&cache, &gone);
    let printdex_cache = cache.join("printdex");
    // Things in the cache that are not indexes of known projects: an index an older
    // printdex wrote (no owner), git checkouts, the pz docs.
    let older = printdex_cache.join("00000000deadbeef");
    std::fs::create_dir_all(&older).unwrap();
    std::fs::write(older.join("mirror.sqlite"), b"").unwrap();
    std::fs::create_dir_all(printdex_cache.join("git/0123/checkout")).unwrap();
    std::fs::create_dir_all(printdex_cache.join("pz-docs")).unwrap();

    let (ok, out, _) = printdex(&cache, &["index", "list"]);
    assert!(ok);
    assert!(
        out.starts_with(&format!("3 index(es) in {}:\n", printdex_cache.display())),
        "{out}"
    );
    let line_of = |out: &str, what: &str| -> String {
        out.lines()
            .find(|l| l.ends_with(what))
            .unwrap_or_else(|| panic!("no line for {what}: {out}"))
            .to_string()
    };
    for project in [&kept, &gone] {
        let line = line_of(&out, &format!("project exists  {}", project.display()));
        assert!(
            line.contains(" MiB  last used ") && line.contains(" s ago"),
            "{line}"
        );
    }
    line_of(
        &out,
        "unknown project (an index from before printdex recorded it)",
    );

    std::fs::remove_dir_all(&gone).unwrap();
    let (_, out, _) = printdex(&cache, &["index", "list"]);
    line_of(&out, &format!("project gone    {}", gone.display()));
    let gone_dir = printdex_cache.join(
        line_of(&out, &format!("project gone    {}", gone.display()))
            .split_whitespace()
            .next()
            .unwrap(),
    );
    assert!(gone_dir.join("mirror.sqlite").is_file());

    let (ok, out, _) = printdex(&cache, &["index", "prune", "--dry-run"]);
    assert!(ok);
    assert!(
        out.starts_with(&format!("would remove {} (", gone_dir.display()))
            && out.contains(&format!(", project {} is gone)\n", gone.display()))
            && out.ends_with(" MiB\n")
            && out.contains("would prune 1 index(es), "),
        "{out}"
    );
    assert!(gone_dir.is_dir(), "a dry run removes nothing");

    let (ok, out, _) = printdex(&cache, &["index", "prune"]);
    assert!(ok);
    assert!(
        out.starts_with(&format!("removed {} (", gone_dir.display()))
            && out.contains("pruned 1 index(es), "),
        "{out}"
    );
    assert!(!gone_dir.exists());
    // Nothing else went: the live project's index, the unknown one, checkouts, docs.
    let (_, out, _) = printdex(&cache, &["index", "list"]);
    assert!(out.starts_with("2 index(es) in "), "{out}");
    line_of(&out, &format!("project exists  {}", kept.display()));
    assert!(older.join("mirror.sqlite").is_file());
    assert!(printdex_cache.join("git/0123/checkout").is_dir());
    assert!(printdex_cache.join("pz-docs").is_dir());
    let (_, out, _) = printdex(&cache, &["index", "prune"]);
    assert_eq!(
        out,
        format!("nothing to prune in {}\n", printdex_cache.display())
    );
}
