//! The checks over hand-built catalogs of adapters the fixture prints do not cover: case
//! folding of quoted and unquoted names, default schemas, and their suggestions.

use super::catalog::{Catalog, Column, Edge, Table};
use super::dialect::Adapter;
use super::{check, Kind};

fn column(adapter: Adapter, key: &str, physical: Option<&str>, sql_type: &str) -> Column {
    Column {
        name: key.to_string(),
        stored: adapter.stored_column(key, physical),
        sql_type: Some(sql_type.to_string()),
        listed: false,
    }
}

/// A column as (key, physical name, SQL type).
type ColumnSpec = (&'static str, Option<&'static str>, &'static str);

/// `app.public.people (id, firstname "firstName")` and `app.public.pets (id, owner_id)`,
/// pets.owner_id referring to people.id.
fn catalog(adapter: Adapter) -> Catalog {
    let spec: [(&str, &[ColumnSpec]); 2] = [
        (
            "app.public.people",
            &[
                ("id", None, "INTEGER"),
                ("firstname", Some("firstName"), "VARCHAR"),
            ],
        ),
        (
            "app.public.pets",
            &[("id", None, "INTEGER"), ("owner_id", None, "INTEGER")],
        ),
    ];
    let tables = spec
        .iter()
        .map(|(fqn, columns)| {
            let columns = columns
                .iter()
                .map(|(key, physical, sql_type)| column(adapter, key, *physical, sql_type))
                .collect();
            let mut t = Table::new(adapter, fqn, "table", Some(columns));
            t.joins_known = true;
            t
        })
        .collect();
    let edge = Edge {
        from: 1,
        from_columns: vec!["owner_id".into()],
        to: 0,
        to_columns: vec!["id".into()],
        detection: "declared".into(),
        note: None,
        observed: None,
        confirmed: false,
    };
    Catalog::new(adapter, tables, vec![edge])
}

/// Each case: the adapter, the SQL, and its findings as (kind, text, suggestions).
type Case = (
    Adapter,
    &'static str,
    &'static [(Kind, &'static str, &'static [&'static str])],
);

const CASES: &[Case] = &[
    // PostgreSQL: a mixed-case column is reached only quoted; unquoted names fold down, so
    // a quoted name keeps its case and misses.
    (
        Adapter::Postgres,
        r#"SELECT "firstName", id FROM people"#,
        &[],
    ),
    (
        Adapter::Postgres,
        "SELECT firstName FROM people",
        &[(Kind::UnknownColumn, "firstName", &["\"firstName\""])],
    ),
    (Adapter::Postgres, "SELECT ID FROM PUBLIC.People", &[]),
    (
        Adapter::Postgres,
        r#"SELECT 1 FROM "People""#,
        &[(Kind::UnknownTable, "\"People\"", &["people"])],
    ),
    // Snowflake folds unquoted names up to its catalog's spelling; quoted lowercase misses.
    (
        Adapter::Snowflake,
        r#"SELECT p.id, p."firstName" FROM app.public.people p"#,
        &[],
    ),
    (Adapter::Snowflake, "SELECT OWNER_ID FROM Pets", &[]),
    (
        Adapter::Snowflake,
        r#"SELECT "owner_id" FROM pets"#,
        &[(Kind::UnknownColumn, "\"owner_id\"", &["owner_id"])],
    ),
    // Joins and literals follow the same names.
    (
        Adapter::Postgres,
        "SELECT 1 FROM pets p JOIN people o ON o.id = p.owner_id",
        &[],
    ),
    (
        Adapter::Postgres,
        "SELECT 1 FROM pets p JOIN people o ON o.id = p.id",
        &[(Kind::UnknownJoin, "o.id = p.id", &["p.owner_id = o.id"])],
    ),
    (
        Adapter::Postgres,
        "SELECT 1 FROM pets WHERE owner_id = 'x'",
        &[(Kind::TypeMismatch, "'x'", &[])],
    ),
    // An unknown adapter matches names leniently.
    (Adapter::Generic, "SELECT FIRSTNAME FROM People", &[]),
    (
        Adapter::Generic,
        "SELECT firstname FROM app.public.people",
        &[],
    ),
    (
        Adapter::Generic,
        "SELECT * FROM peeple",
        &[(Kind::UnknownTable, "peeple", &["people"])],
    ),
];

#[test]
fn names_fold_and_resolve_as_each_adapter_does() {
    for (adapter, sql, want) in CASES {
        let got: Vec<(Kind, String, Vec<String>)> = check(&catalog(*adapter), "c", sql)
            .findings
            .into_iter()
            .map(|f| (f.kind, f.text, f.suggestions))
            .collect();
        let want: Vec<(Kind, String, Vec<String>)> = want
            .iter()
            .map(|(k, t, s)| (*k, t.to_string(), s.iter().map(|x| x.to_string()).collect()))
            .collect();
        assert_eq!(got, want, "{adapter:?}: {sql}");
    }
}

/// Each case's findings over `catalog`.
fn findings(catalog: &Catalog, sql: &str) -> Vec<(Kind, String, Vec<String>)> {
    check(catalog, "c", sql)
        .findings
        .into_iter()
        .map(|f| (f.kind, f.text, f.suggestions))
        .collect()
}

#[test]
fn a_catalog_kept_and_read_back_checks_as_the_one_built() {
    for (adapter, sql, _) in CASES {
        let mut built = catalog(*adapter);
        // A table the print lists no columns for stays one.
        built
            .tables
            .push(Table::new(*adapter, "app.public.unprofiled", "table", None));
        let bytes = postcard::to_stdvec(&built).unwrap();
        let back: Catalog = postcard::from_bytes(&bytes).unwrap();
        for (a, b) in built.tables.iter().zip(&back.tables) {
            assert_eq!(a.columns(), b.columns(), "{}", a.fqn);
        }
        assert_eq!(back.tables[2].columns(), None);
        assert_eq!(
            findings(&back, sql),
            findings(&built, sql),
            "{adapter:?}: {sql}"
        );
    }
}

#[test]
fn a_table_is_found_by_its_whole_stored_path_the_last_of_two_alike() {
    let adapter = Adapter::Postgres;
    let fqns = ["db.s.t", "t", "db.x.t", "db.s.t", "s.t", "db.s.u"];
    let tables = fqns
        .iter()
        .map(|fqn| Table::new(adapter, fqn, "table", None))
        .collect();
    let cat = Catalog::new(adapter, tables, Vec::new());
    let path = |fqn: &str| -> Vec<String> { fqn.split('.').map(String::from).collect() };
    assert_eq!(
        cat.table_at(&path("db.s.t")),
        Some(3),
        "the last spelled alike"
    );
    assert_eq!(cat.table_at(&path("t")), Some(1));
    assert_eq!(cat.table_at(&path("db.x.t")), Some(2));
    assert_eq!(
        cat.table_at(&path("s.t")),
        Some(4),
        "same name and parent, shorter"
    );
    assert_eq!(cat.table_at(&path("db.s.u")), Some(5));
    assert_eq!(cat.table_at(&path("other.s.t")), None);
    assert_eq!(cat.table_at(&path("db.s.v")), None);
    assert_eq!(cat.table_at(&[]), None);
}

#[test]
fn the_join_graph_is_read_only_when_a_join_needs_a_planned_path() {
    let adapter = Adapter::Postgres;
    let id = || column(adapter, "id", None, "INTEGER");
    let refers = |key: &str| column(adapter, key, None, "INTEGER");
    let known_joins = |fqn: &str, columns| {
        let mut t = Table::new(adapter, fqn, "table", Some(columns));
        t.joins_known = true;
        t
    };
    let tables = vec![
        known_joins("app.public.a", vec![id(), refers("b_id")]),
        known_joins("app.public.b", vec![id(), refers("c_id")]),
        known_joins("app.public.c", vec![id()]),
    ];
    let to = |from: usize, column: &str, to: usize| Edge {
        from,
        from_columns: vec![column.into()],
        to,
        to_columns: vec!["id".into()],
        detection: "declared".into(),
        note: None,
        observed: None,
        confirmed: false,
    };
    let cat = Catalog::new(adapter, tables, vec![to(0, "b_id", 1), to(1, "c_id", 2)]);
    let reads = std::cell::Cell::new(0);
    let source = || {
        reads.set(reads.get() + 1);
        None
    };
    let known = "SELECT 1 FROM a JOIN b ON b.id = a.b_id";
    let (report, met) = super::check_over(&cat, &super::catalog::NoDomains, &source, "app", known);
    assert!(report.ok(), "{:?}", report.findings);
    assert_eq!(reads.get(), 0, "a join the print lists needs no graph");
    assert_eq!((met.tables, met.graph), (vec![0, 1], false));
    let unplanned = "SELECT 1 FROM a JOIN c ON c.id = a.id";
    let (report, met) =
        super::check_over(&cat, &super::catalog::NoDomains, &source, "app", unplanned);
    assert_eq!((met.tables, met.graph), (vec![0, 2], true));
    assert_eq!(
        reads.get(),
        1,
        "a join with no edge asks for the graph once"
    );
    let suggested = &report.findings[0].suggestions;
    assert!(
        suggested
            .iter()
            .any(|s| s.starts_with("JOIN public.b ON public.b.id = a.b_id")),
        "the path goes through b, planned over the graph built from the catalog: {suggested:?}"
    );
}
