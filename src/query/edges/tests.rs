use std::collections::HashMap;

use super::*;
use crate::ingest::ManifestTables;

// --- A diff's document less its withheld events, as get_diff and the diff resource
// assemble it from `EventFilter` and `shown_header` ------------------------------------

/// A diff without its relationship events about an edge its source table rejected.
#[derive(Debug, Clone)]
struct FilteredDiff {
    /// `{**data, "changes": kept}`, with `summary.relationships_changed` counting the kept
    /// events when some were dropped.
    shown: Value,
    /// How many dict events were dropped.
    dropped: usize,
    /// The annotation and relationships files read to decide.
    consulted: Vec<PathBuf>,
}

/// `{**data, "changes": kept}` over every dict event `EventFilter` keeps; `print` is `None`
/// when the connection has no readable manifest.
fn diff_without_rejected(data: &Value, print: Option<&Print>) -> Result<FilteredDiff, QueryError> {
    let iterated;
    let listed: &[Value] = match data.get("changes") {
        Some(Value::Seq(items)) => items,
        other => {
            iterated = iterate(other)?;
            &iterated
        }
    };
    let mut filter = EventFilter::new(print);
    let mut kept = Vec::with_capacity(listed.len());
    let mut dropped = 0;
    for change in listed.iter().filter(|c| matches!(c, Value::Map(_))) {
        if filter.keeps(change)? {
            kept.push(change.clone());
        } else {
            dropped += 1;
        }
    }
    let (header, at) = shown_header(data, dropped);
    let shown = match header {
        Some(mut pairs) => {
            pairs.insert(at, (Value::Str("changes".into()), Value::seq(kept)));
            Value::map(pairs)
        }
        None => data.clone(),
    };
    Ok(FilteredDiff {
        shown,
        dropped,
        consulted: filter.consulted,
    })
}

fn s(text: &str) -> Value {
    Value::Str(text.to_string())
}

fn seq(items: &[&str]) -> Value {
    Value::seq(items.iter().map(|i| s(i)).collect())
}

fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::map(pairs.into_iter().map(|(k, v)| (s(k), v)).collect())
}

fn edge(column: &str, target: &str, target_column: &str, detection: &str) -> Value {
    map(vec![
        ("column", seq(&[column])),
        ("target_table", s(target)),
        ("target_column", seq(&[target_column])),
        ("detection", s(detection)),
    ])
}

fn incoming(column: &str, referencer: &str, referencer_column: &str, detection: &str) -> Value {
    map(vec![
        ("column", seq(&[column])),
        ("referencer_table", s(referencer)),
        ("referencer_column", seq(&[referencer_column])),
        ("detection", s(detection)),
    ])
}

fn rejection(column: &str, target: &str, target_column: &str) -> Value {
    map(vec![
        ("column", seq(&[column])),
        ("target_table", s(target)),
        ("target_column", seq(&[target_column])),
        ("verdict", s("rejected")),
    ])
}

fn annotations(entries: Vec<Value>) -> Value {
    map(vec![
        ("format_version", Value::Int(1)),
        ("refers_to", Value::seq(entries)),
    ])
}

#[derive(Default)]
struct Disk(HashMap<PathBuf, Content>);

impl Files for Disk {
    fn read(&self, path: &Path) -> Result<Content, QueryError> {
        Ok(self.0.get(path).cloned().unwrap_or(Content::Absent))
    }
}

fn table_entry(with_annotations: bool) -> Value {
    let mut artifacts = vec![("relationships", s("relationships.yaml"))];
    if with_annotations {
        artifacts.push((
            "relationships_annotations",
            s("relationships.annotations.yaml"),
        ));
    }
    map(vec![("artifacts", map(artifacts))])
}

const ROOT: &str = "/p";

fn tables() -> ManifestTables {
    ManifestTables::from_entries(&[
        (s("db.events"), table_entry(true)),
        (s("db.customers"), table_entry(true)),
        (s("db.orders"), table_entry(false)),
    ])
}

fn annotation_path(fqn: &str) -> PathBuf {
    Path::new(ROOT)
        .join(fqn.replace('.', "/"))
        .join("relationships.annotations.yaml")
}

/// A print whose only file is `owner`'s relationships annotations rejecting one edge
/// (column, target table, target column).
fn rejecting(owner: &str, edge: (&str, &str, &str)) -> Disk {
    let mut disk = Disk::default();
    disk.0.insert(
        annotation_path(owner),
        Content::Yaml(annotations(vec![rejection(edge.0, edge.1, edge.2)])),
    );
    disk
}

/// A relationships document with no outgoing edge and these incoming ones.
fn referenced_by(edges: Vec<Value>) -> Value {
    map(vec![
        ("refers_to", Value::seq(vec![])),
        ("referenced_by", Value::seq(edges)),
    ])
}

#[test]
fn own_rejection_withholds_an_inferred_edge_but_never_a_declared_one() {
    let mut disk = Disk::default();
    disk.0.insert(
        annotation_path("db.events"),
        Content::Yaml(annotations(vec![
            rejection("customer_id", "db.customers", "customer_id"),
            rejection("order_id", "db.orders", "id"),
        ])),
    );
    let rels = map(vec![
        (
            "refers_to",
            Value::seq(vec![
                edge("customer_id", "db.customers", "customer_id", "inferred"),
                edge("order_id", "db.orders", "id", "declared"),
            ]),
        ),
        ("referenced_by", Value::seq(vec![])),
    ]);
    let path = annotation_path("db.events");
    let own = own_rejections(&disk, Some(&path), rels.get("refers_to")).unwrap();
    assert_eq!(own.entries.len(), 1);
    let shown = withhold_rejected(&rels, &own, &IncomingRejections::default(), "db.events")
        .unwrap()
        .expect("something withheld");
    assert_eq!(
        shown.get("refers_to"),
        Some(&Value::seq(vec![edge(
            "order_id",
            "db.orders",
            "id",
            "declared"
        )]))
    );
    assert_eq!(shown.get("referenced_by"), Some(&Value::seq(vec![])));
}

#[test]
fn an_edge_without_detection_reads_inferred_and_is_rejectable() {
    let e = map(vec![
        ("column", seq(&["a"])),
        ("target_table", s("t")),
        ("target_column", seq(&["b"])),
    ]);
    let keyed = vec![(edge_key(&e).unwrap(), e)];
    let got = rejected_edges(&[rejection("a", "t", "b")], &keyed).unwrap();
    assert_eq!(got.entries.len(), 1);
}

#[test]
fn the_referencers_file_withholds_the_incoming_row() {
    let disk = rejecting("db.events", ("customer_id", "db.customers", "customer_id"));
    let tables = tables();
    let print = Print::new(Path::new(ROOT), &tables, &disk);
    let rels = referenced_by(vec![
        incoming("customer_id", "db.events", "customer_id", "inferred"),
        incoming("customer_id", "db.orders", "customer_id", "declared"),
    ]);
    let (rejected, consulted) = incoming_rejections(&print, "db.customers", &rels).unwrap();
    assert_eq!(consulted, vec![annotation_path("db.events")]);
    let shown = withhold_rejected(&rels, &Rejections::default(), &rejected, "db.customers")
        .unwrap()
        .expect("withheld");
    assert_eq!(
        shown.get("referenced_by"),
        Some(&Value::seq(vec![incoming(
            "customer_id",
            "db.orders",
            "customer_id",
            "declared"
        )]))
    );
}

#[test]
fn a_rejection_written_on_the_target_side_binds_nothing() {
    // customers' own file names the incoming edge as if it were its own: no such
    // outgoing edge, and the referencer (events) wrote nothing.
    let disk = rejecting("db.customers", ("customer_id", "db.events", "customer_id"));
    let tables = tables();
    let print = Print::new(Path::new(ROOT), &tables, &disk);
    let rels = referenced_by(vec![incoming(
        "customer_id",
        "db.events",
        "customer_id",
        "inferred",
    )]);
    let (rejected, _) = incoming_rejections(&print, "db.customers", &rels).unwrap();
    let path = annotation_path("db.customers");
    let own = own_rejections(&disk, Some(&path), rels.get("refers_to")).unwrap();
    assert!(withhold_rejected(&rels, &own, &rejected, "db.customers")
        .unwrap()
        .is_none());
}

#[test]
fn an_inadmissible_or_unparseable_file_rejects_nothing() {
    let mut disk = Disk::default();
    let path = annotation_path("db.events");
    let refers = Value::seq(vec![edge("a", "t", "b", "inferred")]);
    // `format_version` missing: not admitted.
    disk.0.insert(
        path.clone(),
        Content::Yaml(map(vec![(
            "refers_to",
            Value::seq(vec![rejection("a", "t", "b")]),
        )])),
    );
    assert!(own_rejections(&disk, Some(&path), Some(&refers))
        .unwrap()
        .is_empty());
    disk.0
        .insert(path.clone(), Content::YamlError("bad".into()));
    assert!(own_rejections(&disk, Some(&path), Some(&refers))
        .unwrap()
        .is_empty());
    disk.0.insert(
        path.clone(),
        Content::Yaml(annotations(vec![rejection("a", "t", "b")])),
    );
    assert_eq!(
        own_rejections(&disk, Some(&path), Some(&refers))
            .unwrap()
            .entries
            .len(),
        1
    );
}

#[test]
fn nothing_withheld_keeps_the_document() {
    let rels = map(vec![(
        "refers_to",
        Value::seq(vec![edge("a", "t", "b", "inferred")]),
    )]);
    assert!(withhold_rejected(
        &rels,
        &Rejections::default(),
        &IncomingRejections::default(),
        "x"
    )
    .unwrap()
    .is_none());
    assert!(withhold_rejected(
        &Value::Null,
        &Rejections::default(),
        &IncomingRejections::default(),
        "x"
    )
    .unwrap()
    .is_none());
}

#[test]
fn a_non_iterable_column_raises_as_python_does() {
    let e = map(vec![("column", Value::Int(3)), ("target_table", s("t"))]);
    assert_eq!(
        edge_key(&e).unwrap_err(),
        QueryError::Other("'int' object is not iterable".into())
    );
    // A string column iterates its characters.
    let e = map(vec![("column", s("ab"))]);
    assert_eq!(edge_key(&e).unwrap().column, vec![s("a"), s("b")]);
}

fn event(kind: &str, source: &str, column: &str, target: &str, target_column: &str) -> Value {
    map(vec![
        ("kind", s(kind)),
        ("source_table", s(source)),
        ("source_column", seq(&[column])),
        ("target_table", s(target)),
        ("target_column", seq(&[target_column])),
    ])
}

#[test]
fn the_diff_drops_rejected_relationship_events_and_recounts() {
    let mut disk = rejecting("db.events", ("customer_id", "db.customers", "customer_id"));
    let rels_path = Path::new(ROOT).join("db/events/relationships.yaml");
    disk.0.insert(
        rels_path.clone(),
        Content::Yaml(map(vec![(
            "refers_to",
            Value::seq(vec![edge(
                "customer_id",
                "db.customers",
                "customer_id",
                "inferred",
            )]),
        )])),
    );
    let tables = tables();
    let print = Print::new(Path::new(ROOT), &tables, &disk);
    let diff = map(vec![
        (
            "summary",
            map(vec![
                ("tables_added", Value::Int(0)),
                ("relationships_changed", Value::Int(3)),
            ]),
        ),
        (
            "changes",
            Value::seq(vec![
                event(
                    "relationship_added",
                    "db.events",
                    "customer_id",
                    "db.customers",
                    "customer_id",
                ),
                event(
                    "relationship_removed",
                    "db.orders",
                    "customer_id",
                    "db.customers",
                    "customer_id",
                ),
                event(
                    "column_added",
                    "db.events",
                    "customer_id",
                    "db.customers",
                    "customer_id",
                ),
                s("not a mapping"),
            ]),
        ),
    ]);
    let filtered = diff_without_rejected(&diff, Some(&print)).unwrap();
    assert_eq!(filtered.dropped, 1);
    assert_eq!(
        filtered.consulted,
        vec![annotation_path("db.events"), rels_path]
    );
    let changes = filtered
        .shown
        .get("changes")
        .and_then(Value::as_seq)
        .unwrap();
    assert_eq!(changes.len(), 2);
    assert_eq!(
        filtered.shown.get("summary"),
        Some(&map(vec![
            ("tables_added", Value::Int(0)),
            ("relationships_changed", Value::Int(2))
        ]))
    );
    // Without a manifest nothing can be decided.
    let none = diff_without_rejected(&diff, None).unwrap();
    assert_eq!(none.dropped, 0);
}
