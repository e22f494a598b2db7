use super::*;
use crate::config::{self, Served};
use crate::store::{Connection, Reads, Store};

fn s(text: &str) -> Value {
    Value::Str(text.to_string())
}

fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::map(pairs.into_iter().map(|(k, v)| (s(k), v)).collect())
}

#[test]
fn the_table_filter_reads_all_three_table_fields_and_ands_with_kind() {
    let column = map(vec![("kind", s("column_added")), ("table", s("a.b.c"))]);
    let edge = map(vec![
        ("kind", s("relationship_added")),
        ("source_table", s("a.b.src")),
        ("target_table", s("a.b.c")),
    ]);
    // Python `==`: a table named by a non-string, or an event with no kind, never matches.
    let odd = map(vec![("table", Value::seq(vec![s("a.b.c")]))]);
    // A join of a table to itself names it twice: one match.
    let own = map(vec![
        ("kind", s("relationship_added")),
        ("source_table", s("a.b.c")),
        ("target_table", s("a.b.c")),
    ]);
    let mut built = ChangesBuilder::default();
    for (ord, event) in [&column, &edge, &odd, &own].into_iter().enumerate() {
        built.keep(ord as u32 * 2, event);
    }
    let kept = built.finish();
    assert_eq!(kept.matching(None, None), vec![0, 1, 2, 3]);
    assert_eq!(kept.matching(Some("a.b.c"), None), vec![0, 1, 3]);
    assert_eq!(kept.matching(Some("a.b.src"), None), vec![1]);
    assert_eq!(kept.matching(Some("a.b"), None), Vec::<u32>::new());
    assert_eq!(
        kept.matching(Some("a.b.c"), Some("relationship_added")),
        vec![1, 3]
    );
    assert_eq!(
        kept.matching(Some("x.y.z"), Some("relationship_added")),
        Vec::<u32>::new()
    );
    assert_eq!(kept.matching(None, Some("column_added")), vec![0]);
    // A filter naming what only another field holds: `relationship_added` is a kind, not a table.
    assert_eq!(
        kept.matching(Some("relationship_added"), None),
        Vec::<u32>::new()
    );
    assert_eq!(kept.matching(None, Some("a.b.c")), Vec::<u32>::new());
}

#[test]
fn the_kind_enum_is_the_schema_enum() {
    assert_eq!(KINDS.len(), 24);
    assert_eq!(
        KINDS
            .iter()
            .filter(|k| k.starts_with("relationship_"))
            .count(),
        3
    );
    let mut sorted = KINDS.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 24);
}

// --- Through the store, over a print on disk --------------------------------------------

const MANIFEST: &str = "format_version: 1\ntables:\n  db.s.events:\n    type: table\n    path: db/s/events\n    artifacts:\n      relationships: relationships.yaml\n      relationships_annotations: relationships.annotations.yaml\n  db.s.customers:\n    type: table\n    path: db/s/customers\n    artifacts:\n      relationships: relationships.yaml\n";

const REJECTING: &str = "format_version: 1\nrefers_to:\n- column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n  verdict: rejected\n";

const DIFF: &str = "format_version: 1\nsummary:\n  relationships_changed: 2\n  statistics_drifted: 1\nchanges:\n- kind: relationship_added\n  source_table: db.s.events\n  source_column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n- kind: relationship_added\n  source_table: db.s.customers\n  source_column: [region]\n  target_table: db.s.events\n  target_column: [region]\n- kind: statistic_changed\n  table: db.s.events\n  column: amount\n";

struct Project {
    dir: tempfile::TempDir,
    index: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let project = Project {
            dir: tempfile::tempdir().unwrap(),
            index: tempfile::tempdir().unwrap(),
        };
        std::fs::write(
            project.dir.path().join(".dbprint.yaml"),
            "connections:\n  demo:\n    adapter: duckdb\n",
        )
        .unwrap();
        project.write("manifest.yaml", MANIFEST);
        project.write(
            "db/s/events/relationships.yaml",
            "refers_to:\n- column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n  detection: inferred\n",
        );
        project.write("db/s/events/relationships.annotations.yaml", REJECTING);
        project.write("db/s/customers/relationships.yaml", "refers_to: []\n");
        project.write("diff.yaml", DIFF);
        project
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join("prints/demo").join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Date every print file a minute back, as files written well before the server
    /// read them are: their identities are then settled, and a kept diff can be reused.
    fn settle(&self) {
        crate::store::snapshot::tests::settle_files(&self.dir.path().join("prints/demo"));
    }

    /// The project, settled, and a store that read it and kept the head a start answers
    /// from (its directories settled too, so the walk kept beside the head holds).
    fn with_head() -> (Project, Arc<Store>) {
        let project = Project::new();
        project.settle();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let store = Arc::new(project.store());
        (project, store)
    }

    fn store(&self) -> Store {
        let project = config::load_at(&self.dir.path().display().to_string()).unwrap();
        let served = Served::resolve(&project, None).unwrap();
        Store::open(served, self.index.path()).unwrap()
    }
}

fn ask(store: &Store, arguments: Value) -> Result<Diff, QueryError> {
    let state = store.fresh(Connection(None), Reads::CheckedAsRead)?;
    let get = |k: &str| arguments.get(k).and_then(Value::as_str);
    answer(
        &state,
        &Request {
            table: get("table"),
            kind: get("kind"),
        },
    )
}

/// A diff's header, its events and its pins.
type Parts = (Vec<(Value, Value)>, Vec<Value>, Pins);

fn parts(diff: &Diff) -> Parts {
    match diff {
        Diff::Events(events) => (
            events.header().to_vec(),
            (0..events.total())
                .map(|i| events.change(i).unwrap())
                .collect(),
            events.pins(),
        ),
        Diff::NotMapping => panic!("not a mapping"),
    }
}

fn events(diff: &Diff) -> Vec<(String, String)> {
    parts(diff)
        .1
        .iter()
        .map(|c| {
            let table = c.get("table").or_else(|| c.get("source_table")).unwrap();
            (
                c.get("kind").and_then(Value::as_str).unwrap().to_string(),
                table.as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn relationships_changed(diff: &Diff) -> Value {
    Value::map(parts(diff).0.to_vec())
        .get("summary")
        .and_then(|s| s.get("relationships_changed"))
        .unwrap()
        .clone()
}

fn total(diff: &Diff) -> usize {
    parts(diff).1.len()
}

#[test]
fn a_rejected_edge_is_withheld_and_counted_out_until_the_verdict_goes() {
    let project = Project::new();
    let store = project.store();
    let reply = ask(&store, Value::map(vec![])).unwrap();
    assert_eq!(
        events(&reply),
        [
            ("relationship_added".into(), "db.s.customers".into()),
            ("statistic_changed".into(), "db.s.events".into()),
        ]
    );
    assert_eq!(relationships_changed(&reply), Value::Int(1));
    assert_eq!(total(&reply), 2);
    let header = parts(&reply).0;
    let keys: Vec<&str> = header.iter().map(|(k, _)| k.as_str().unwrap()).collect();
    assert_eq!(keys, ["format_version", "summary"]);

    // The verdict withdrawn on disk: the next call sees the event again.
    project.write(
        "db/s/events/relationships.annotations.yaml",
        "format_version: 1\nrefers_to: []\n",
    );
    let reply = ask(&store, Value::map(vec![])).unwrap();
    assert_eq!(events(&reply).len(), 3);
    assert_eq!(relationships_changed(&reply), Value::Int(2));

    // A declared edge is never bound by a rejection.
    project.write("db/s/events/relationships.annotations.yaml", REJECTING);
    project.write(
        "db/s/events/relationships.yaml",
        "refers_to:\n- column: [customer_id]\n  target_table: db.s.customers\n  target_column: [id]\n  detection: declared\n  note: a foreign key\n",
    );
    let reply = ask(&store, Value::map(vec![])).unwrap();
    assert_eq!(events(&reply).len(), 3);
}

#[test]
fn filters_run_after_the_withholding() {
    let project = Project::new();
    let store = project.store();
    let by_table = ask(&store, map(vec![("table", s("db.s.events"))])).unwrap();
    // The kept relationship event names db.s.events as its target; the rejected one is gone.
    assert_eq!(
        events(&by_table),
        [
            ("relationship_added".into(), "db.s.customers".into()),
            ("statistic_changed".into(), "db.s.events".into()),
        ]
    );
    let both = ask(
        &store,
        map(vec![
            ("table", s("db.s.events")),
            ("kind", s("statistic_changed")),
        ]),
    )
    .unwrap();
    assert_eq!(total(&both), 1);
    // The summary is the whole diff's, filters or not.
    assert_eq!(relationships_changed(&both), Value::Int(1));
    let none = ask(&store, map(vec![("table", s("no.such.table"))])).unwrap();
    assert_eq!(total(&none), 0);
}

#[test]
fn missing_unparseable_and_non_mapping_diffs() {
    let project = Project::new();
    let store = project.store();
    let path = project.dir.path().join("prints/demo/diff.yaml");
    let shown = crate::config::absolute_resolved(&path)
        .display()
        .to_string();

    project.write("diff.yaml", "- just\n- a list\n");
    assert!(matches!(
        ask(&store, Value::map(vec![])),
        Ok(Diff::NotMapping)
    ));
    // An empty file is None: not a mapping either.
    project.write("diff.yaml", "");
    assert!(matches!(
        ask(&store, Value::map(vec![])),
        Ok(Diff::NotMapping)
    ));

    project.write("diff.yaml", "summary: [unclosed\n");
    match ask(&store, Value::map(vec![])) {
        Err(QueryError::YamlParse { path, .. }) => assert_eq!(path, shown),
        other => panic!("{other:?}"),
    }

    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        ask(&store, Value::map(vec![]))
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err(format!(
            "no diff available at {shown}. Run `dbprint diff` or `dbprint generate` first."
        ))
    );

    project.write("diff.yaml", DIFF);
    assert_eq!(total(&ask(&store, Value::map(vec![])).unwrap()), 2);
}

#[test]
fn the_pins_move_when_a_deciding_file_changes() {
    let project = Project::new();
    let store = project.store();
    let before = ask(&store, Value::map(vec![])).unwrap();
    assert_eq!(
        parts(&ask(&store, Value::map(vec![])).unwrap()).2,
        parts(&before).2
    );
    // The annotation file decides the diff, so editing it moves what a cursor pins.
    project.write(
        "db/s/events/relationships.annotations.yaml",
        "format_version: 1\nrefers_to: []\n",
    );
    let after = ask(&store, Value::map(vec![])).unwrap();
    assert_ne!(parts(&after).2, parts(&before).2);
}

#[test]
fn without_a_usable_manifest_nothing_is_withheld() {
    let project = Project::new();
    project.write("manifest.yaml", "tables: [unclosed\n");
    let store = project.store();
    let reply = ask(&store, Value::map(vec![])).unwrap();
    assert_eq!(events(&reply).len(), 3);
    assert_eq!(relationships_changed(&reply), Value::Int(2));
}

#[test]
fn floats_survive_the_mirror_exactly() {
    let project = Project::new();
    project.write(
        "diff.yaml",
        "changes:\n- kind: statistic_changed\n  table: t\n  delta_pct: 0.13320013320013321\n  big: .inf\n  small: -.inf\n  nan: .nan\n",
    );
    let store = project.store();
    let reply = ask(&store, Value::map(vec![]))
        .map_err(|e| e.to_string())
        .unwrap();
    let change = &parts(&reply).1[0];
    assert_eq!(
        change.get("delta_pct"),
        Some(&Value::Float(0.133_200_133_200_133_21))
    );
    assert_eq!(change.get("big"), Some(&Value::Float(f64::INFINITY)));
    assert_eq!(change.get("small"), Some(&Value::Float(f64::NEG_INFINITY)));
    assert!(matches!(change.get("nan"), Some(Value::Float(f)) if f.is_nan()));
}

#[test]
fn a_reconcile_that_finds_nothing_new_keeps_the_built_diff() {
    let project = Project::new();
    project.settle();
    let store = project.store();
    let state = store.fresh(Connection(None), Reads::CheckedAsRead).unwrap();
    let path = state.config.print_root.join(DIFF_FILENAME);
    let before = prepared(&state, &path).unwrap();
    // A periodic reconcile swaps in a new state with the same manifest.
    let again = store.reconcile(&state.config).unwrap();
    assert!(!Arc::ptr_eq(&state, &again));
    assert!(Arc::ptr_eq(&before, &prepared(&again, &path).unwrap()));
    // A manifest that changed is a new key.
    project.write("manifest.yaml", &format!("{MANIFEST}# touched\n"));
    let changed = store.fresh(Connection(None), Reads::CheckedAsRead).unwrap();
    assert!(!Arc::ptr_eq(&before, &prepared(&changed, &path).unwrap()));
}

#[test]
fn an_ingested_diff_is_read_from_the_mirror_and_answers_as_one_parsed_whole() {
    let project = Project::new();
    project.settle();
    let store = project.store();
    let state = store.fresh(Connection(None), Reads::CheckedAsRead).unwrap();
    let path = state.config.print_root.join(DIFF_FILENAME);
    // Ingest stored the list an item at a time: only places, kinds and each table's events are held.
    let kept = prepared(&state, &path).unwrap();
    let Prepared::Diff { changes, .. } = &kept.prepared else {
        panic!("not a mapping")
    };
    assert!(matches!(&changes.source, Source::Mirror { .. }));
    assert_eq!(changes.ords.iter().collect::<Vec<_>>(), [1, 2]);
    let from_mirror = parts(&ask(&store, Value::map(vec![])).unwrap());

    // Its content parsed whole by a call (the file moved since ingest) answers alike.
    project.write("diff.yaml", &format!("{DIFF}# written again\n"));
    let state = store.fresh(Connection(None), Reads::CheckedAsRead).unwrap();
    let kept = prepared(&state, &path).unwrap();
    let Prepared::Diff { changes, .. } = &kept.prepared else {
        panic!("not a mapping")
    };
    assert!(matches!(&changes.source, Source::Memory(held) if held.len() == 2));
    let parsed_whole = parts(&ask(&store, Value::map(vec![])).unwrap());
    assert_eq!(from_mirror.0, parsed_whole.0);
    assert_eq!(from_mirror.1, parsed_whole.1);
}

#[test]
fn events_whose_items_went_from_the_mirror_are_stale_not_another_diffs() {
    let project = Project::new();
    project.settle();
    let store = project.store();
    let old = ask(&store, Value::map(vec![])).unwrap();
    // Rewritten and ingested again: the old content's items are swept.
    project.write("diff.yaml", &DIFF.replace("amount", "price"));
    let state = store.fresh(Connection(None), Reads::CheckedAsRead).unwrap();
    store.reconcile(&state.config).unwrap();
    let Diff::Events(events) = &old else {
        panic!("not a mapping")
    };
    assert!(matches!(events.change(0), Err(QueryError::Stale(_))));
    let new = ask(&store, Value::map(vec![])).unwrap();
    assert_eq!(parts(&new).1[1].get("column"), Some(&s("price")));
}

#[test]
fn events_read_a_window_at_a_time_are_the_lists_in_any_order_of_asking() {
    let project = Project::new();
    let mut diff = String::from("format_version: 1\nchanges:\n");
    for i in 0..150 {
        diff.push_str(&format!(
            "- kind: statistic_changed\n  table: db.s.events\n  column: c{i}\n"
        ));
    }
    project.write("diff.yaml", &diff);
    project.settle();
    let store = project.store();
    let reply = ask(&store, Value::map(vec![])).unwrap();
    let Diff::Events(events) = &reply else {
        panic!("not a mapping")
    };
    let column = |i: usize| events.change(i).unwrap().get("column").cloned();
    let order: Vec<usize> = (0..150).rev().chain([3, 140, 64, 63, 0, 149]).collect();
    for i in order {
        assert_eq!(column(i), Some(s(&format!("c{i}"))), "event {i}");
    }
    assert!(events.change(150).is_err());
    assert!(events.change(1000).is_err());
}

/// What `ask` answers from `store` on a thread while its start is under way, then the
/// start ended: `None` when the call was still waiting after ten seconds (it waited for
/// the start's reconcile).
fn during_start<T: Send + 'static>(
    store: &Arc<Store>,
    ask: impl FnOnce(&Store) -> T + Send + 'static,
) -> Option<T> {
    let (sent, got) = std::sync::mpsc::channel();
    let asking = {
        let store = store.clone();
        std::thread::spawn(move || {
            let _ = sent.send(ask(&store));
        })
    };
    let answered = got.recv_timeout(std::time::Duration::from_secs(10)).ok();
    store.end_start("demo");
    asking.join().unwrap();
    answered
}

/// Every event of the default connection's diff, asked while `store`'s start is under way
/// as get_diff asks (`Reads::CurrentFiles`); see `during_start`.
fn asked_during_start(store: &Arc<Store>) -> Option<Result<Parts, QueryError>> {
    during_start(store, |store| {
        store.answer(Connection(None), Reads::CurrentFiles, |state, _| {
            let request = Request {
                table: None,
                kind: None,
            };
            Ok(parts(&answer(state, &request)?))
        })
    })
}

#[test]
fn a_start_under_way_answers_get_diff_from_its_head_with_diff_yaml_as_it_is_now() {
    let (project, store) = Project::with_head();
    let before = parts(&ask(&store, Value::map(vec![])).unwrap());
    assert!(store.begin_start("demo"), "the reconcile kept no head");
    // Rewritten while no reconcile has read it: the head's answer reads it as it is now.
    project.write("diff.yaml", &DIFF.replace("amount", "price"));
    let during = asked_during_start(&store)
        .expect("get_diff waited for the start's reconcile")
        .unwrap();
    assert_eq!(during.1[1].get("column"), Some(&s("price")));
    assert_ne!(during.2, before.2, "pinned to the new content");
    // As the published snapshot answers it.
    let after = parts(&ask(&store, Value::map(vec![])).unwrap());
    assert_eq!(during.0, after.0);
    assert_eq!(during.1, after.1);
    assert_eq!(during.2, after.2);

    // A call reading more than the files it finds as they are now still waits.
    assert!(store.begin_start("demo"));
    let waiting = {
        let store = store.clone();
        std::thread::spawn(move || store.fresh(Connection(None), Reads::CheckedAsRead).is_ok())
    };
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!waiting.is_finished(), "answered before the start ended");
    store.end_start("demo");
    assert!(waiting.join().unwrap());
}

#[test]
fn kept_changes_read_back_match_as_they_did_when_built() {
    let mut built = ChangesBuilder::default();
    for i in 0..300u32 {
        let table = s(&format!("db.s.t{}", i % 7));
        let event = if i % 3 == 0 {
            map(vec![("kind", s("column_added")), ("table", table)])
        } else {
            map(vec![
                ("kind", s("relationship_added")),
                ("source_table", table),
                ("target_table", s("db.s.t0")),
            ])
        };
        built.keep(i * 2, &event);
    }
    let mut kept = built.finish();
    // As ingest keeps a diff: its events in the mirror (one held whole is never kept).
    kept.source = Source::Mirror {
        path: PathBuf::from("diff.yaml"),
        hash: "0".repeat(64),
    };
    let bytes = postcard::to_stdvec(&kept).unwrap();
    let back: KeptChanges = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(
        back.ords.iter().collect::<Vec<_>>(),
        kept.ords.iter().collect::<Vec<_>>()
    );
    for (table, kind) in [
        (None, None),
        (Some("db.s.t3"), None),
        (Some("db.s.t0"), Some("relationship_added")),
        (None, Some("column_added")),
        (Some("db.s.t9"), None),
        (Some("db.s"), None),
    ] {
        let built = kept.matching(table, kind);
        assert_eq!(back.matching(table, kind), built, "{table:?} {kind:?}");
    }
    assert!(!kept.matching(Some("db.s.t3"), None).is_empty());
}

/// `uri`'s whole text as resources/read reads it from `store` (as a start's head answers:
/// `Reads::CurrentFiles`), and its version.
fn resource_text(store: &Store, uri: &str) -> Result<(String, String), QueryError> {
    let connection = |name: &str| store.fresh(Connection(Some(name)), Reads::CurrentFiles);
    let sources = crate::query::resources::Sources {
        references: store.references(),
        cache: store.cache(),
        connection: &connection,
    };
    let resource = crate::query::resources::read(uri, &sources)?;
    let text = resource.whole.with_text(str::to_string)?;
    Ok((text, resource.whole.version.clone()))
}

#[test]
fn a_start_under_way_answers_resources_read_from_its_head_with_files_as_they_are_now() {
    let (project, store) = Project::with_head();
    let uri = "dbprint://demo/db.s.events/relationships";
    let (withheld, _) = resource_text(&store, uri).unwrap();
    assert!(
        !withheld.contains("customer_id"),
        "the rejected edge is withheld"
    );
    assert!(store.begin_start("demo"), "the reconcile kept no head");
    // The rejection taken back while no reconcile has read the file: the head's answer
    // reads it as it is now, as the published snapshot's does after the start.
    project.write(
        "db/s/events/relationships.annotations.yaml",
        "format_version: 1\nrefers_to: []\n",
    );
    let (sent, got) = std::sync::mpsc::channel();
    let reading = {
        let store = store.clone();
        std::thread::spawn(move || {
            let _ = sent.send(resource_text(&store, uri));
            let _ = sent.send(resource_text(&store, "dbprint://demo/diff"));
        })
    };
    let during = got.recv_timeout(std::time::Duration::from_secs(10));
    let diff_during = got.recv_timeout(std::time::Duration::from_secs(10));
    store.end_start("demo");
    reading.join().unwrap();
    let during = during
        .expect("resources/read waited for the start's reconcile")
        .unwrap();
    let diff_during = diff_during.expect("the diff resource waited").unwrap();
    assert!(during.0.contains("customer_id"), "{}", during.0);
    assert_eq!(during, resource_text(&store, uri).unwrap());
    assert_eq!(
        diff_during,
        resource_text(&store, "dbprint://demo/diff").unwrap()
    );
}

/// `table`'s context as get_table_context asks it (`Reads::TableArtifacts`): its artifacts
/// as `Debug` spells them, and its pins.
fn context_of(store: &Store, table: &str) -> Result<(String, Pins), QueryError> {
    store.answer(Connection(None), Reads::TableArtifacts, |state, strict| {
        let context = crate::query::context::answer(state, table, strict)?;
        Ok((format!("{:?}", context.artifacts), context.pins))
    })
}

/// `table`'s context asked while `store`'s start is under way; see `during_start`.
fn context_during_start(
    store: &Arc<Store>,
    table: &'static str,
) -> Option<Result<(String, Pins), QueryError>> {
    during_start(store, move |store| context_of(store, table))
}

#[test]
fn a_start_under_way_answers_get_table_context_from_its_head_with_the_images_digests() {
    let (project, store) = Project::with_head();
    let before = context_of(&store, "db.s.events").unwrap();
    assert!(
        !before.0.contains("customer_id"),
        "the rejected edge is withheld"
    );
    assert!(store.begin_start("demo"), "the reconcile kept no head");
    let during = context_during_start(&store, "db.s.events")
        .expect("get_table_context waited for the start's reconcile")
        .unwrap();
    assert_eq!(during, before, "as the published snapshot answers");

    // The table's own file edited while the start is under way: the head's answer finds
    // it moved, reads it again and answers the disk, as a published snapshot does.
    assert!(store.begin_start("demo"));
    project.write(
        "db/s/events/relationships.annotations.yaml",
        "format_version: 1\nrefers_to: []\n",
    );
    let edited = context_during_start(&store, "db.s.events")
        .expect("get_table_context waited for the start's reconcile")
        .unwrap();
    assert!(edited.0.contains("customer_id"), "{}", edited.0);
    assert_ne!(edited.1, before.1, "pinned to the new content");
    assert_eq!(edited, context_of(&store, "db.s.events").unwrap());
}

#[test]
fn a_head_without_the_images_digests_leaves_get_table_context_waiting_for_the_start() {
    let (project, store) = Project::with_head();
    let before = context_of(&store, "db.s.events").unwrap();
    // A connection-level file moved since the image was kept (in place, so the walk still
    // holds and the head is had): the start's reconcile will not take the image, so the
    // head holds no digests to answer a table's context by.
    project.write("diff.yaml", &DIFF.replace("amount", "price"));
    assert!(store.begin_start("demo"), "the reconcile kept no head");
    let waiting = {
        let store = store.clone();
        std::thread::spawn(move || context_of(&store, "db.s.events"))
    };
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!waiting.is_finished(), "answered before the start ended");
    store.end_start("demo");
    assert_eq!(waiting.join().unwrap().unwrap(), before);
}
