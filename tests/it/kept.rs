//! Derived values kept between sessions (`<index>/derived/`): a session reads back what an
//! earlier one built instead of building it again, an edit made while no server ran is
//! answered as a fresh index answers it, and a damaged kept file costs a build, never a
//! wrong answer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::util::{bin, copy_dir, fixtures, run, serve_debug_logged, Server, PROTOCOL_VERSION};

/// A print whose diff withholds events about an edge a person rejected.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("edge/diff-rejected"), dir.path());
    // Directories settle: a walk keeps what it saw (and a start's head is kept) only then.
    std::thread::sleep(std::time::Duration::from_millis(200));
    dir
}

const SQL: &str = "SELECT l.loan_id, l.patron_idd, f.amount\nFROM lending.loans l\nJOIN lending.fines f ON f.loan_id = l.loan_id\nWHERE l.status = 'lost'";

/// What a session answers from the kept values: the prepared diff (whole and filtered),
/// validate_sql's catalog, get_table_context's overlay and plan_joins' graph.
fn answers(server: &mut Server) -> Vec<String> {
    let calls = [
        ("get_diff", json!({"connection": "library"})),
        (
            "get_diff",
            json!({"connection": "library", "table": "stacks.lending.activity_log"}),
        ),
        (
            "validate_sql",
            json!({"connection": "library", "sql": SQL, "format": "json"}),
        ),
        (
            "plan_joins",
            json!({"connection": "library", "tables": ["loans", "fines"], "format": "json"}),
        ),
        // loans' own file adds an edge; fines refers to loans without a file of its own.
        (
            "get_table_context",
            json!({"connection": "library", "table": "stacks.lending.loans", "purpose": "query"}),
        ),
        (
            "get_table_context",
            json!({"connection": "library", "table": "stacks.lending.fines", "purpose": "profile"}),
        ),
    ];
    calls
        .into_iter()
        .map(|(tool, arguments)| {
            let (text, is_error) = server.call(tool, arguments.clone());
            assert!(!is_error, "{tool} {arguments}: {text}");
            text
        })
        .collect()
}

/// A session's answers on a fresh index of `project`.
fn fresh_answers(project: &Path) -> Vec<String> {
    answers(&mut Server::start(project, &[]))
}

/// The kept files, by name, with their inodes (a value built again is renamed into
/// place: a new inode).
fn kept_files(index: &Path) -> BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(index.join("derived"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    (name, e.metadata().unwrap().ino())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A server of `project` on `index` whose debug log goes to a file.
struct Logged {
    server: Server,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Logged {
    fn start(project: &Path, index: &Path) -> Logged {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("serve.log");
        let stderr = std::fs::File::create(&log).unwrap();
        let mut server = Server::spawn_to(serve_debug_logged(project, index), stderr.into());
        server.initialize(PROTOCOL_VERSION);
        Logged {
            server,
            log,
            _dir: dir,
        }
    }

    /// Wait until the log has a line holding each of `words`.
    fn wait_for_line(&self, words: &[&str]) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            if text.lines().any(|l| words.iter().all(|w| l.contains(w))) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no line with {words:?} in: {text}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Serve `project` on `index`, answer, and stop once the server's warm-up is done (what
/// it keeps then does not hang on how soon the calls ended).
fn session(project: &Path, index: &Path) -> Vec<String> {
    session_logged(project, index).0
}

/// As `session`, with the server's debug log.
fn session_logged(project: &Path, index: &Path) -> (Vec<String>, String) {
    let mut logged = Logged::start(project, index);
    let got = answers(&mut logged.server);
    logged.wait_for_line(&["the warm-up is done"]);
    drop(logged.server);
    (got, std::fs::read_to_string(&logged.log).unwrap())
}

/// The kind of each value the log says was kept, by its file's name.
fn kinds_kept(log: &str) -> BTreeMap<String, String> {
    let field = |line: &str, name: &str| -> Option<String> {
        let at = line.find(&format!(" {name}="))? + name.len() + 2;
        let rest = &line[at..];
        let value = match rest.strip_prefix('"') {
            Some(quoted) => &quoted[..quoted.find('"')?],
            None => rest.split(' ').next()?,
        };
        Some(value.to_string())
    };
    log.lines()
        .filter(|l| l.contains("a derived value kept"))
        .filter_map(|l| {
            let path = PathBuf::from(field(l, "path")?);
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some((name, field(l, "kind")?))
        })
        .collect()
}

#[test]
fn a_second_session_reads_back_what_the_first_built_and_answers_the_same() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let first = session(project.path(), index.path());
    let kept = kept_files(index.path());
    // For each of the three connections, what its warm-up and the calls made: the
    // annotation files' reads and the edges people added in them, the catalog and the joins its build read, the graph, the
    // prepared diff (one of the three diffs is not worth keeping), and its head (its
    // walkable manifest), image (what its start made of the mirror), the image's
    // digests (which let the next start's head answer a table's context) and its tables'
    // searched files (which a search during the next start sweeps beside it).
    assert_eq!(kept.len(), 29, "{kept:?}");

    let second = session(project.path(), index.path());
    assert_eq!(second, first);
    let again = kept_files(index.path());
    assert_eq!(
        again.keys().collect::<Vec<_>>(),
        kept.keys().collect::<Vec<_>>(),
        "the second session kept nothing new"
    );
    // The connections share one index: a start whose view was synced before another
    // connection's commit syncs it again, and keeps the view it synced beside its image's
    // digests (a file rewritten). From then on nothing is written again.
    let third = session(project.path(), index.path());
    assert_eq!(third, first);
    assert_eq!(
        kept_files(index.path()),
        again,
        "the third session read the kept values back instead of building them again"
    );
    assert_eq!(first, fresh_answers(project.path()));
}

/// What a server's warm-up and its first calls would otherwise build, which `index
/// rebuild` keeps.
const KEPT_BY_A_REBUILD: [&str; 7] = [
    "prepared diff",
    "context overlay authored",
    "context overlay added edges",
    "validate_sql catalog",
    "validate_sql joins read",
    "plan_joins graph",
    "resource listing",
];

#[test]
fn a_rebuild_keeps_what_the_first_session_after_it_would_build() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let rebuilt = run(std::process::Command::new(bin())
        .args(["index", "rebuild", "--project"])
        .arg(project.path())
        .arg("--index-dir")
        .arg(index.path())
        .env("PRINTDEX_LOG", "printdex=debug"));
    assert!(rebuilt.ok(), "{}", rebuilt.stderr);
    let kept = kinds_kept(&rebuilt.stderr);
    for kind in KEPT_BY_A_REBUILD {
        assert!(
            kept.values().any(|k| k == kind),
            "{kind} not kept: {kept:?}"
        );
    }
    let files = kept_files(index.path());
    // The first session after it reads them back: it builds none of them again, and
    // answers as a fresh index does.
    let (answers, log) = session_logged(project.path(), index.path());
    let built: Vec<String> = kinds_kept(&log).into_values().collect();
    for kind in KEPT_BY_A_REBUILD {
        assert!(
            !built.iter().any(|k| k == kind),
            "{kind} built again: {built:?}"
        );
    }
    let again = kept_files(index.path());
    for (name, kind) in &kept {
        if KEPT_BY_A_REBUILD.contains(&kind.as_str()) {
            assert!(files.contains_key(name), "{kind}: {name} not in derived/");
            assert_eq!(
                again.get(name),
                files.get(name),
                "{kind}: {name} written again"
            );
        }
    }
    assert_eq!(answers, fresh_answers(project.path()));
}

#[test]
fn a_session_reads_back_the_kept_catalog_and_diff_before_a_call_asks_for_them() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let first = session(project.path(), index.path());
    let mut logged = Logged::start(project.path(), index.path());
    let (_, is_error) = logged
        .server
        .call("list_tables", json!({"connection": "library"}));
    assert!(!is_error);
    // No call asked for them: the server reads them back by itself, below the calls.
    logged.wait_for_line(&["a kept value read back", "validate_sql catalog"]);
    logged.wait_for_line(&["a kept value read back", "prepared diff"]);
    assert_eq!(answers(&mut logged.server), first);
}

#[test]
fn edits_made_while_no_server_ran_are_answered_not_the_kept_values() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let before = session(project.path(), index.path());
    let root: PathBuf = project.path().join("prints/library");

    // The verdict that withheld two diff events is withdrawn, a column of loans is
    // renamed in its statistics.
    std::fs::write(
        root.join("stacks/lending/activity_log/relationships.annotations.yaml"),
        "format_version: 1\nrefers_to: []\n",
    )
    .unwrap();
    let stats = root.join("stacks/lending/loans/statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    assert!(text.contains("\n  status:\n"), "loans has a status column");
    std::fs::write(&stats, text.replace("\n  status:\n", "\n  state:\n")).unwrap();

    let after = session(project.path(), index.path());
    assert_ne!(
        after[0], before[0],
        "the withdrawn verdict shows in get_diff"
    );
    assert_ne!(
        after[2], before[2],
        "the renamed column shows in validate_sql"
    );
    assert_eq!(after, fresh_answers(project.path()));
}

#[test]
fn a_damaged_kept_file_is_built_again_and_never_answered() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let (first, log) = session_logged(project.path(), index.path());
    let kinds = kinds_kept(&log);
    let kept = kept_files(index.path());
    assert_eq!(
        kinds.keys().collect::<Vec<_>>(),
        kept.keys().collect::<Vec<_>>()
    );
    let mut damaged = BTreeMap::new();
    for name in kept.keys() {
        let path = index.path().join("derived").join(name);
        let whole = std::fs::read(&path).unwrap();
        let mut bytes = whole;
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        damaged.insert(name.clone(), bytes);
    }
    assert_eq!(session(project.path(), index.path()), first);
    let rebuilt = kept_files(index.path());
    assert_eq!(
        rebuilt.keys().collect::<Vec<_>>(),
        kept.keys().collect::<Vec<_>>()
    );
    // Every value the session read was found damaged and built again (each catalog's
    // build read its damaged joins and read every table's joins instead). What it never
    // read stays as it was until a call reads it: the join graphs of the two connections
    // the calls leave alone, which no warm-up reads back.
    let mut left: Vec<&str> = Vec::new();
    for (name, bytes) in &damaged {
        let now = std::fs::read(index.path().join("derived").join(name)).unwrap();
        if &now == bytes {
            left.push(&kinds[name]);
        }
    }
    assert_eq!(left, ["plan_joins graph"; 2]);
    // Written whole: the next session reads them back instead of building them again.
    assert_eq!(session(project.path(), index.path()), first);
    assert_eq!(kept_files(index.path()), rebuilt);

    // A file in the directory's place: the values are built in memory, every time.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("derived"), b"not a directory").unwrap();
    assert_eq!(session(project.path(), other.path()), first);
}

#[test]
fn a_catalog_read_back_is_built_again_after_an_edit_from_the_joins_its_build_kept() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    session(project.path(), index.path());
    let root: PathBuf = project.path().join("prints/library/stacks/lending");

    // A session that read its catalog back: an edit to one table's statistics moves no
    // file the joins are read from, so the catalog before it is taken whole but for
    // that table's columns.
    let mut logged = Logged::start(project.path(), index.path());
    logged.wait_for_line(&["the warm-up is done"]);
    let stats = root.join("loans/statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(&stats, text.replace("\n  status:\n", "\n  state:\n")).unwrap();
    let sql = json!({"connection": "library", "sql": SQL, "format": "json"});
    let (renamed, _) = logged.server.call("validate_sql", sql.clone());
    logged.wait_for_line(&[
        "catalog built from the one before, its joins unchanged",
        "moved=1",
    ]);

    // One table's relationships file edited: only its joins are read again.
    let joins = root.join("fines/relationships.yaml");
    let text = std::fs::read_to_string(&joins).unwrap();
    std::fs::write(&joins, format!("{text}# read again\n")).unwrap();
    let (edited, _) = logged.server.call("validate_sql", sql.clone());
    logged.wait_for_line(&["validate_sql catalog built", "joins_reread=1"]);

    // A person's annotation file edited: its table's joins are read again, and those of
    // the tables it decides (it refers to them, so it may reject or add an edge into
    // them), not every table's.
    let verdicts = root.join("loans/relationships.annotations.yaml");
    let text = std::fs::read_to_string(&verdicts).unwrap();
    std::fs::write(&verdicts, format!("{text}# read again\n")).unwrap();
    let (annotated, _) = logged.server.call("validate_sql", sql);
    logged.wait_for_line(&["validate_sql catalog built", "joins_reread=1"]);

    // A person adds an edge from activity_log into fines: both tables' joins are read
    // again, and the join is known as a fresh index knows it.
    let added = root.join("activity_log/relationships.annotations.yaml");
    let text = std::fs::read_to_string(&added).unwrap();
    std::fs::write(
        &added,
        format!("{text}- column: [event_id]\n  target_table: stacks.lending.fines\n  target_column: [fine_id]\n"),
    )
    .unwrap();
    let across = json!({
        "connection": "library",
        "sql": "SELECT f.amount FROM lending.activity_log a JOIN lending.fines f ON f.fine_id = a.event_id",
        "format": "json",
    });
    let (joined, _) = logged.server.call("validate_sql", across.clone());
    logged.wait_for_line(&["validate_sql catalog built", "joins_reread=2"]);
    drop(logged.server);
    let log = std::fs::read_to_string(&logged.log).unwrap();
    let built: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("validate_sql catalog built"))
        .collect();
    // No build read every table's joins (the print has three tables), and only the
    // statistics edit was built from the catalog before it whole.
    assert!(
        built.iter().all(|l| !l.contains("joins_reread=3")),
        "{built:?}"
    );
    let whole = built.iter().filter(|l| l.contains("its joins unchanged"));
    assert_eq!(whole.count(), 1, "{built:?}");
    let mut fresh_server = Server::start(project.path(), &[]);
    assert_eq!(joined, fresh_server.call("validate_sql", across).0);
    let before_the_edge = {
        std::fs::write(&added, &text).unwrap();
        let (text, _) = Server::start(project.path(), &[]).call(
            "validate_sql",
            json!({
                "connection": "library",
                "sql": "SELECT f.amount FROM lending.activity_log a JOIN lending.fines f ON f.fine_id = a.event_id",
                "format": "json",
            }),
        );
        text
    };
    assert_ne!(joined, before_the_edge, "the added edge is a known join");
    let fresh = fresh_answers(project.path());
    assert_eq!(edited, fresh[2]);
    assert_eq!(renamed, edited, "the comment changes no join");
    assert_eq!(annotated, edited, "nor does this one");
    assert!(renamed.contains("state"), "{renamed}");
}

#[test]
fn an_edit_while_serving_leaves_the_next_session_an_image_to_start_from() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    session(project.path(), index.path());
    let loans =
        json!({"connection": "library", "table": "stacks.lending.loans", "purpose": "query"});

    // A table's statistics edited while a session serves: its next call reads the edit.
    let mut serving = Logged::start(project.path(), index.path());
    serving.wait_for_line(&["the warm-up is done"]);
    let stats = project
        .path()
        .join("prints/library/stacks/lending/loans/statistics.yaml");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(&stats, text.replace("\n  status:\n", "\n  state:\n")).unwrap();
    let (edited, _) = serving.server.call("get_table_context", loans.clone());
    assert!(edited.contains("state"), "{edited}");
    let log = serving.log.clone();
    serving.server.close();
    let closing = std::fs::read_to_string(&log).unwrap();
    assert!(closing.contains("the image kept at close"), "{closing}");

    // The next session starts from the image kept at close, not a scan of the print,
    // and answers as a fresh index does.
    let mut next = Logged::start(project.path(), index.path());
    next.wait_for_line(&["start ended"]);
    let started = std::fs::read_to_string(&next.log).unwrap();
    assert!(
        started.contains("ingested from the start's image"),
        "{started}"
    );
    let (again, _) = next.server.call("get_table_context", loans.clone());
    let fresh = Server::start(project.path(), &[])
        .call("get_table_context", loans)
        .0;
    assert_eq!(again, fresh);
    assert_eq!(again, edited);
}

/// get_table_context of `stacks.lending.fines` (which the edges people add point at).
fn fines() -> serde_json::Value {
    json!({"connection": "library", "table": "stacks.lending.fines", "purpose": "query"})
}

/// `fines()`'s answer from `logged`, once its warm-up is done.
fn fines_context(logged: &mut Logged) -> String {
    let (text, is_error) = logged.server.call("get_table_context", fines());
    assert!(!is_error, "{text}");
    logged.wait_for_line(&["the warm-up is done"]);
    text
}

/// `fines()`'s answer on a fresh index of `project`.
fn fresh_fines(project: &Path) -> String {
    Server::start(project, &[])
        .call("get_table_context", fines())
        .0
}

/// The line of the debug log at `log` that says how a read of every annotation file went.
fn annotation_files_read(log: &Path) -> String {
    let log = std::fs::read_to_string(log).unwrap();
    log.lines()
        .find(|l| l.contains("relationships annotation files read"))
        .unwrap_or_else(|| panic!("{log}"))
        .to_string()
}

#[test]
fn the_edges_people_added_into_a_table_are_read_back_by_the_next_session_and_follow_an_edit() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let added = project
        .path()
        .join("prints/library/stacks/lending/activity_log/relationships.annotations.yaml");
    let before = std::fs::read_to_string(&added).unwrap();
    std::fs::write(
        &added,
        format!("{before}- column: [event_id]\n  target_table: stacks.lending.fines\n  target_column: [fine_id]\n  note: Added by a person for this test.\n"),
    )
    .unwrap();

    let mut first = Logged::start(project.path(), index.path());
    let built = fines_context(&mut first);
    drop(first.server);
    assert!(
        built.contains("Added by a person for this test."),
        "{built}"
    );

    // The next session reads the added edges back, and answers as a fresh index does.
    let mut second = Logged::start(project.path(), index.path());
    let read_back = fines_context(&mut second);
    drop(second.server);
    let log = std::fs::read_to_string(&second.log).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("a kept value read back")
                && l.contains("context overlay added edges")),
        "{log}"
    );
    assert_eq!(read_back, built);
    assert_eq!(read_back, fresh_fines(project.path()));

    // The edge taken out while no server runs: the next session no longer shows it.
    std::fs::write(&added, &before).unwrap();
    let mut third = Logged::start(project.path(), index.path());
    let edited = fines_context(&mut third);
    drop(third.server);
    assert!(
        !edited.contains("Added by a person for this test."),
        "{edited}"
    );
    // Of every table's annotation file, only the edited one was read again: the others'
    // entries were taken from the read the first session kept.
    let read = annotation_files_read(&third.log);
    assert!(read.contains(" read_again=1"), "{read}");
    assert!(!read.contains(" taken=0"), "{read}");
    assert_eq!(edited, fresh_fines(project.path()));
}

#[test]
fn after_a_manifest_edit_every_annotation_file_is_read_again_and_answered_as_fresh() {
    let project = project();
    let index = tempfile::tempdir().unwrap();
    let mut first = Logged::start(project.path(), index.path());
    fines_context(&mut first);
    drop(first.server);

    // The manifest edited while no server runs: the tables and their files are found
    // through it again, not taken from the read before, and every file is read again.
    let manifest = project.path().join("prints/library/manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}# edited while no server ran\n")).unwrap();
    let mut second = Logged::start(project.path(), index.path());
    let answered = fines_context(&mut second);
    drop(second.server);
    let read = annotation_files_read(&second.log);
    assert!(read.contains(" taken=0 "), "{read}");
    assert!(!read.contains(" read_again=0"), "{read}");
    assert_eq!(answered, fresh_fines(project.path()));
}

/// A print of `n` tables (the library's `authors`, each a table of its own), each but the
/// first referring to the one before it by `author_id`, at `project`.
fn chained_print(project: &Path, n: usize) {
    std::fs::write(
        project.join(".dbprint.yaml"),
        "connections:\n  c:\n    adapter: duckdb\n",
    )
    .unwrap();
    let source = fixtures().join("library/prints/library/stacks/catalog/authors");
    let stats = std::fs::read_to_string(source.join("statistics.yaml")).unwrap();
    let ddl = std::fs::read_to_string(source.join("ddl.sql")).unwrap();
    let root = project.join("prints/c");
    let mut manifest = String::from("format_version: 1\nadapter: duckdb\ntables:\n");
    for i in 0..n {
        let name = format!("s.t{i:04}");
        let dir = root.join(format!("s/t{i:04}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("statistics.yaml"),
            stats.replace("stacks.catalog.authors", &name),
        )
        .unwrap();
        std::fs::write(dir.join("ddl.sql"), &ddl).unwrap();
        let refers = match i {
            0 => "[]\n".to_string(),
            _ => format!(
                "\n- column: [author_id]\n  target_table: s.t{:04}\n  target_column: [author_id]\n  detection: declared\n",
                i - 1
            ),
        };
        std::fs::write(
            dir.join("relationships.yaml"),
            format!("format_version: 1\ntable: {name}\nrefers_to: {refers}referenced_by: []\n"),
        )
        .unwrap();
        manifest.push_str(&format!(
            "  {name}:\n    type: table\n    path: s/t{i:04}\n    artifacts:\n      ddl: ddl.sql\n      statistics: statistics.yaml\n      relationships: relationships.yaml\n"
        ));
    }
    std::fs::write(root.join("manifest.yaml"), manifest).unwrap();
    // Directories settle: a walk keeps what it saw only then.
    std::thread::sleep(std::time::Duration::from_millis(200));
}

#[test]
fn a_few_tables_joins_read_again_leave_the_kept_joins_as_they_are_and_answer_as_fresh() {
    let project = tempfile::tempdir().unwrap();
    chained_print(project.path(), 130);
    let index = tempfile::tempdir().unwrap();
    let sql = json!({
        "sql": "SELECT a.author_id FROM s.t0006 a JOIN s.t0005 b ON b.author_id = a.author_id",
        "format": "json",
    });
    let mut logged = Logged::start(project.path(), index.path());
    let (whole, is_error) = logged.server.call("validate_sql", sql.clone());
    assert!(!is_error, "{whole}");
    logged.wait_for_line(&["the warm-up is done"]);
    let memo_writes = |logged: &Logged| {
        let log = std::fs::read_to_string(&logged.log).unwrap();
        log.lines()
            .filter(|l| l.contains("a derived value kept") && l.contains("validate_sql joins read"))
            .count()
    };
    assert_eq!(memo_writes(&logged), 1, "the whole build keeps its joins");

    // One table's relationships edited: its joins are read again, and the kept joins,
    // which still hold for the other 129 tables, are not written again.
    let edit = |i: usize| {
        let path = project
            .path()
            .join(format!("prints/c/s/t{i:04}/relationships.yaml"));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}# read again\n")).unwrap();
    };
    edit(6);
    let (first, _) = logged.server.call("validate_sql", sql.clone());
    logged.wait_for_line(&["validate_sql catalog built", "joins_reread=1"]);
    assert_eq!(memo_writes(&logged), 1, "the kept joins were written again");
    // Another: the first edited table's joins, which the kept ones no longer hold, are
    // read again beside it.
    edit(5);
    let (second, _) = logged.server.call("validate_sql", sql.clone());
    logged.wait_for_line(&["validate_sql catalog built", "joins_reread=2"]);
    drop(logged.server);
    for (answer, name) in [(&first, "first"), (&second, "second")] {
        assert_eq!(answer, &whole, "the {name} edit's answer");
    }
    assert_eq!(
        second,
        Server::start(project.path(), &[])
            .call("validate_sql", sql)
            .0
    );
}
