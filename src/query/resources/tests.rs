//! Expectations from the reference (`resources.parse_uri`, `resources._page_query`).

use super::*;

fn table(connection: &str, kind: &'static str, fqn: &str) -> Ref {
    Ref::Resource {
        connection: connection.into(),
        kind,
        fqn: Some(fqn.into()),
    }
}

fn conn(connection: &str, kind: &'static str) -> Ref {
    Ref::Resource {
        connection: connection.into(),
        kind,
        fqn: None,
    }
}

#[test]
fn uris_parse_as_the_reference_parses_them() {
    let ok = [
        ("dbprint://a/manifest", conn("a", "manifest")),
        ("dbprint://a/diff", conn("a", "diff")),
        ("dbprint://a/reading", conn("a", "reading")),
        (
            "dbprint://a/manifest_annotations",
            conn("a", "manifest_annotations"),
        ),
        ("dbprint://a/x.y.z/ddl", table("a", "ddl", "x.y.z")),
        (
            "dbprint://a/x/y/z/statistics",
            table("a", "statistics", "x.y.z"),
        ),
        (
            "dbprint://a/x.y/z/relationships",
            table("a", "relationships", "x.y.z"),
        ),
        ("dbprint://a//ddl", table("a", "ddl", "")),
        (
            "dbprint://a/x//y/description",
            table("a", "description", "x..y"),
        ),
        (
            "dbprint://a/t/statistics_annotations",
            table("a", "statistics_annotations", "t"),
        ),
        (
            "dbprint://a/t/relationships_annotations",
            table("a", "relationships_annotations", "t"),
        ),
        ("dbprint:///reference/spec", Ref::Reference("spec")),
        (
            "dbprint:///reference/assertions",
            Ref::Reference("assertions"),
        ),
        // A connection named `reference` is still a connection.
        (
            "dbprint://reference/manifest",
            conn("reference", "manifest"),
        ),
        // No percent-decoding in the path.
        ("dbprint://%61/manifest", conn("%61", "manifest")),
    ];
    for (uri, want) in ok {
        assert_eq!(parse_uri(uri), Ok(want), "{uri}");
    }
    let malformed = [
        "dbprint://a/t/nonsense",
        "dbprint://a/manifest/",
        "dbprint://a/t/ddl/",
        "dbprint:///reference/guide",
        "dbprint:///reference/",
        "dbprint://reference/spec",
        "dbprint://",
        "dbprint:/a/manifest",
        "DBPRINT://a/manifest",
        "dbprint://a",
        "dbprint://a/",
        "dbprint:////reference/spec",
        "dbprint://a/ddl",
        "dbprint://a/b/manifest",
        "foo",
        "",
    ];
    for uri in malformed {
        let err = parse_uri(uri).unwrap_err();
        assert_eq!(err, QueryError::MalformedUri(uri.into()));
        assert_eq!(
            err.to_string(),
            format!(
                "URI {} does not match the dbprint:// scheme.",
                compat::py::repr_str(uri)
            )
        );
    }
}

fn q(bare: &str, page: &str, version: Option<&str>) -> PageQuery {
    PageQuery {
        bare: bare.into(),
        page: page.into(),
        version: version.map(str::to_string),
    }
}

#[test]
fn queries_parse_as_parse_qs_strict_with_blank_values() {
    let m = "dbprint://a/manifest";
    let ok = [
        ("dbprint://a/manifest", q(m, "1", None)),
        ("dbprint://a/manifest?", q(m, "1", None)),
        ("dbprint://a/manifest?page=2", q(m, "2", None)),
        (
            "dbprint://a/manifest?page=2&version=ab",
            q(m, "2", Some("ab")),
        ),
        (
            "dbprint://a/manifest?version=ab&page=02",
            q(m, "02", Some("ab")),
        ),
        ("dbprint://a/manifest?page=", q(m, "", None)),
        ("dbprint://a/manifest?pa%67e=3", q(m, "3", None)),
        (
            "dbprint://a/manifest?version=a+b%2Bc",
            q(m, "1", Some("a b+c")),
        ),
        (
            "dbprint://a/manifest?version=%zz%4",
            q(m, "1", Some("%zz%4")),
        ),
        (
            "dbprint://a/manifest?version=%ff%C3%A9é",
            q(m, "1", Some("\u{fffd}éé")),
        ),
        ("dbprint://a/manifest?page=1?x=2", q(m, "1?x=2", None)),
        (
            "dbprint://a/manifest?page=1;version=2",
            q(m, "1;version=2", None),
        ),
        ("dbprint://a/manifest?page=%31", q(m, "1", None)),
        ("dbprint://a/manifest?version==x", q(m, "1", Some("=x"))),
    ];
    for (uri, want) in ok {
        assert_eq!(page_query(uri), Ok(want), "{uri}");
    }
    let malformed = [
        "dbprint://a/manifest?page",
        "dbprint://a/manifest?page=1&",
        "dbprint://a/manifest?&page=1",
        "dbprint://a/manifest?page=1&page=1",
        "dbprint://a/manifest?foo=1",
        "dbprint://a/manifest?=1",
    ];
    for uri in malformed {
        assert_eq!(
            page_query(uri),
            Err(QueryError::MalformedUri(uri.into())),
            "{uri}"
        );
    }
}

#[test]
fn page_errors_are_worded_as_the_reference_words_them() {
    let uri = "dbprint://a/manifest?page=9".to_string();
    assert_eq!(
        QueryError::PageOutOfRange {
            uri: uri.clone(),
            pages: 3
        }
        .to_string(),
        "'dbprint://a/manifest?page=9' names no page of this resource: pages run 1 to 3."
    );
    assert_eq!(
        QueryError::MissingPageVersion("dbprint://a/manifest?page=2".into()).to_string(),
        "'dbprint://a/manifest?page=2' asks for a page past the first without `version`. Pass the `version` the first page's `_meta` reported, as `?page=<n>&version=<v>`."
    );
    assert_eq!(
        QueryError::StalePageVersion("dbprint://a/manifest?page=2&version=0f1e".into()).to_string(),
        "'dbprint://a/manifest?page=2&version=0f1e': the file changed on disk since that version was read. Read page 1 again for its current version."
    );
}

/// The descriptions are this server's prose, but each is exactly as long as the reference's
/// for the same names, so resources/list pages break where the reference's do.
#[test]
fn descriptions_measure_as_the_references_do() {
    for doc in ["spec", "assertions", "x"] {
        assert_eq!(reference_description(doc).chars().count(), 70 + doc.len());
    }
    for name in ["shop", "a"] {
        assert_eq!(
            connection_description("manifest", name).len(),
            165 + name.len()
        );
        assert_eq!(connection_description("diff", name).len(), 149 + name.len());
        assert_eq!(connection_description("reading", name).len(), 135);
        assert_eq!(
            connection_description("manifest_annotations", name).len(),
            96
        );
    }
    let lengths = [
        ("ddl", 94),
        ("statistics", 206),
        ("relationships", 208),
        ("description", 74),
        ("statistics_annotations", 109),
        ("relationships_annotations", 143),
    ];
    for (kind, len) in lengths {
        assert_eq!(table_description(kind).len(), len, "{kind}");
        assert!(table_description(kind).is_ascii());
    }
}

#[test]
fn templates_are_the_references_list_then_the_erd() {
    let got: Vec<(String, String, &str)> = templates()
        .into_iter()
        .map(|t| (t.uri_template, t.name, t.mime_type))
        .collect();
    let want = [
        (
            "dbprint:///reference/{document}{?page,version}",
            "reference document",
            "text/markdown",
        ),
        (
            "dbprint://{connection}/manifest{?page,version}",
            "connection manifest",
            "application/yaml",
        ),
        (
            "dbprint://{connection}/diff{?page,version}",
            "connection diff",
            "application/yaml",
        ),
        (
            "dbprint://{connection}/reading{?page,version}",
            "connection reading",
            "text/markdown",
        ),
        (
            "dbprint://{connection}/manifest_annotations{?page,version}",
            "connection manifest_annotations",
            "application/yaml",
        ),
        (
            "dbprint://{connection}/{table}/ddl{?page,version}",
            "table ddl",
            "application/sql",
        ),
        (
            "dbprint://{connection}/{table}/statistics{?page,version}",
            "table statistics",
            "application/yaml",
        ),
        (
            "dbprint://{connection}/{table}/relationships{?page,version}",
            "table relationships",
            "application/yaml",
        ),
        (
            "dbprint://{connection}/{table}/description{?page,version}",
            "table description",
            "text/markdown",
        ),
        (
            "dbprint://{connection}/{table}/statistics_annotations{?page,version}",
            "table statistics_annotations",
            "application/yaml",
        ),
        (
            "dbprint://{connection}/{table}/relationships_annotations{?page,version}",
            "table relationships_annotations",
            "application/yaml",
        ),
        // printdex's own, after the reference's.
        (
            "printdex://{connection}/erd/{table}{?depth}",
            "table erd",
            "text/vnd.mermaid",
        ),
    ];
    let want: Vec<(String, String, &str)> = want
        .into_iter()
        .map(|(u, n, m)| (u.to_string(), n.to_string(), m))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn unquote_plus_matches_python() {
    assert_eq!(unquote_plus("a+b"), "a b");
    assert_eq!(unquote_plus("%41%42"), "AB");
    assert_eq!(unquote_plus("%%41"), "%A");
    assert_eq!(unquote_plus("%4"), "%4");
    assert_eq!(unquote_plus("%e2%82%ac"), "€");
    assert_eq!(unquote_plus("%e2%82"), "\u{fffd}");
    assert_eq!(unquote_plus("é%41"), "éA");
}

/// A file written with a fixed mtime long past, and its settled identity.
fn settled_file(dir: &Path, text: &str) -> (PathBuf, ingest::FileIdentity) {
    let path = dir.join("statistics.yaml");
    std::fs::write(&path, text).unwrap();
    let past = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(past)
        .unwrap();
    let identity = ingest::identity(&path).unwrap();
    assert!(identity.settled);
    (path, identity)
}

#[test]
fn a_file_known_by_content_is_read_a_range_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (path, identity) = settled_file(dir.path(), "columns:\n  a: 1\n  b: 2\n");
    let mut bytes = Vec::new();
    read_as_known(&path, identity, 9..16, &mut bytes).unwrap();
    assert_eq!(bytes, b"  a: 1\n");
    read_as_known(&path, identity, 0..23, &mut bytes).unwrap();
    assert_eq!(bytes, b"columns:\n  a: 1\n  b: 2\n");
}

#[test]
fn a_file_known_by_content_that_moved_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let (path, identity) = settled_file(dir.path(), "columns:\n  a: 1\n");
    let stale = Err(QueryError::Stale(path.clone()));
    let mut bytes = Vec::new();
    // Rewritten in place with bytes of the same length: the mtime moved.
    std::fs::write(&path, "columns:\n  z: 9\n").unwrap();
    assert_eq!(read_as_known(&path, identity, 0..4, &mut bytes), stale);
    // Replaced by another file with the same size and mtime: the inode moved.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let (other, _) = settled_file(&elsewhere, "columns:\n  a: 1\n");
    let (path, identity) = settled_file(dir.path(), "columns:\n  a: 1\n");
    std::fs::rename(&other, &path).unwrap();
    assert_eq!(
        read_as_known(&path, identity, 0..4, &mut bytes),
        Err(QueryError::Stale(path.clone()))
    );
    // Gone, or shorter than the range asked.
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        read_as_known(&path, identity, 0..4, &mut bytes),
        Err(QueryError::Stale(path.clone()))
    );
}

/// A connection's listing as the list shows it: `connection/kind` or `fqn/kind`.
fn shown(listing: &ConnectionListing) -> Vec<String> {
    (0..listing.len())
        .map(|i| match listing.get(i).unwrap() {
            Listed::Connection { connection, kind } => format!("{connection}/{kind}"),
            Listed::Table { fqn, kind, .. } => format!("{fqn}/{kind}"),
            Listed::Reference(doc) => format!("reference/{doc}"),
        })
        .collect()
}

/// [`shown`] up to the first entry that is not there.
fn shown_while_whole(listing: &ConnectionListing) -> Vec<String> {
    (0..listing.len())
        .map_while(|i| listing.get(i))
        .map(|listed| match listed {
            Listed::Connection { connection, kind } => format!("{connection}/{kind}"),
            Listed::Table { fqn, kind, .. } => format!("{fqn}/{kind}"),
            Listed::Reference(doc) => format!("reference/{doc}"),
        })
        .collect()
}

#[test]
fn a_kept_listing_reads_back_entry_by_entry_as_it_was_made() {
    let mut listing = ConnectionListing::new("lib", true);
    listing.push("s.a", 0b000011); // ddl, statistics
    listing.push("s.b", 0); // nothing listed
    listing.push("s.c", 0b100100); // relationships, relationships_annotations
    listing.push("s.d", 0); // nothing listed, last
    let made = [
        "lib/manifest",
        "lib/diff",
        "lib/reading",
        "lib/manifest_annotations",
        "s.a/ddl",
        "s.a/statistics",
        "s.c/relationships",
        "s.c/relationships_annotations",
    ];
    assert_eq!(shown(&listing), made);
    assert!(listing.get(made.len()).is_none());
    // As `derived/` keeps it, and without the notes.
    let kept: ConnectionListing =
        postcard::from_bytes(&postcard::to_stdvec(&listing).unwrap()).unwrap();
    assert_eq!(shown(&kept), made);
    let mut plain = ConnectionListing::new("lib", false);
    plain.push("s.a", 0b000010);
    assert_eq!(
        shown(&plain),
        ["lib/manifest", "lib/diff", "lib/reading", "s.a/statistics"]
    );
    // Read back damaged (its FQNs cut short, or cut inside a character): the entries past
    // what holds are not there, and nothing panics.
    let mut cut: ConnectionListing =
        postcard::from_bytes(&postcard::to_stdvec(&listing).unwrap()).unwrap();
    assert!(listing.holds() && kept.holds() && plain.holds());
    cut.fqns.truncate(4);
    assert!(!cut.holds(), "made again rather than taken");
    assert_eq!(shown_while_whole(&cut), made[..6]);
    let mut accented = ConnectionListing::new("lib", false);
    accented.push("s.é", 0b000010);
    accented.fqn_ends[0] = 3;
    assert!(!accented.holds());
    assert_eq!(shown_while_whole(&accented), made[..3]);
}
