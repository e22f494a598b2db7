//! The mirror's row operations, each against a real SQLite file in a temporary directory:
//! what is stored reads back as stored, a write conditioned on a hash writes only over
//! those bytes, split lists keep their items under their hash, a walk's memo and a pz
//! project's rows round-trip, and a mirror of another version is replaced.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;
use crate::ingest::pz_project::scan::{KnownFile, ScannedFile};
use crate::ingest::walk::WalkMemo;
use crate::ingest::Stored;

fn identity(mtime_ns: i64, size: u64, inode: u64) -> FileIdentity {
    FileIdentity {
        mtime_ns,
        size,
        inode,
        settled: true,
    }
}

fn record(path: &str, kind: &str, hash: &str, parsed: Parsed) -> FileRecord {
    FileRecord {
        path: PathBuf::from(path),
        connection: "c".into(),
        fqn: Some("db.t".into()),
        kind: kind.into(),
        identity: Some(identity(1_000, 10, 7)),
        hash: Some(hash.into()),
        scanned: Scanned::Read(parsed),
    }
}

fn yaml(n: i64) -> Value {
    Value::map(vec![(Value::Str("row_count".into()), Value::Int(n))])
}

fn open() -> (tempfile::TempDir, Mirror) {
    let dir = tempfile::tempdir().unwrap();
    let mirror = Mirror::open(dir.path()).unwrap();
    (dir, mirror)
}

/// A mirror holding connection `c` (rooted at `/p`, no files), for what is kept beside its row.
fn open_with_connection_c() -> (tempfile::TempDir, Mirror) {
    let (dir, mirror) = open();
    mirror
        .apply("c", Path::new("/p"), &scan(Vec::new()))
        .unwrap();
    (dir, mirror)
}

fn scan(files: Vec<FileRecord>) -> ConnectionScan {
    ConnectionScan {
        manifest: ManifestRead::Ok {
            doc: crate::ingest::Manifest::new(&Value::Null, &[]),
            dropped: Vec::new(),
        },
        files,
        tables: vec![("db.t".into(), PathBuf::from("/p/db/t"), Value::Null)],
        walk: None,
        walk_outcome: None,
        spilled: 0,
    }
}

#[test]
fn a_stored_file_reads_back_with_its_identity_hash_and_parse() {
    let (_dir, mirror) = open();
    let stored = record(
        "/p/db/t/statistics.yaml",
        "statistics",
        "h1",
        Parsed::Yaml(yaml(4)),
    );
    assert!(mirror.upsert_file(&stored).unwrap());
    let status = mirror
        .status(Path::new("/p/db/t/statistics.yaml"))
        .unwrap()
        .unwrap();
    assert_eq!(status.identity, Some(identity(1_000, 10, 7)));
    assert_eq!(status.hash.as_deref(), Some("h1"));
    assert_eq!(status.parse_status, ParseStatus::Ok);
    assert_eq!(status.fqn.as_deref(), Some("db.t"));
    assert_eq!(status.kind, "statistics");
    assert_eq!(
        mirror.parsed(Path::new("/p/db/t/statistics.yaml")).unwrap(),
        Some(Parsed::Yaml(yaml(4)))
    );
    let rows = mirror.files("c").unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].path, PathBuf::from("/p/db/t/statistics.yaml"));
    assert!(mirror.files("other").unwrap().is_empty());
    assert!(mirror.status(Path::new("/p/nowhere")).unwrap().is_none());
}

#[test]
fn every_parse_outcome_reads_back_as_it_was_stored() {
    let (_dir, mirror) = open();
    let outcomes = [
        (
            "a.yaml",
            Parsed::YamlError("mapping values are not allowed here".into()),
            "yaml_error",
        ),
        (
            "b.yaml",
            Parsed::OtherError("'utf-8' codec can't decode".into()),
            "other_error",
        ),
        ("c.sql", Parsed::Text, "text"),
        ("d.yaml", Parsed::Absent, "absent"),
    ];
    for (path, parsed, _) in &outcomes {
        mirror
            .upsert_file(&record(path, "statistics", "h", parsed.clone()))
            .unwrap();
    }
    for (path, parsed, status) in outcomes {
        assert_eq!(
            mirror.parsed(Path::new(path)).unwrap(),
            Some(parsed),
            "{path}"
        );
        assert_eq!(
            mirror
                .status(Path::new(path))
                .unwrap()
                .unwrap()
                .parse_status
                .as_str(),
            status
        );
    }
}

#[test]
fn a_parse_is_read_only_while_the_row_holds_the_bytes_the_caller_hashed() {
    let (_dir, mirror) = open();
    let path = Path::new("/p/db/t/statistics.yaml");
    mirror
        .upsert_file(&record(
            "/p/db/t/statistics.yaml",
            "statistics",
            "h1",
            Parsed::Yaml(yaml(1)),
        ))
        .unwrap();
    assert_eq!(
        mirror.parsed_as(path, "h1").unwrap(),
        Some(Parsed::Yaml(yaml(1)))
    );
    // Rewritten since the caller learned h1: no answer from the other bytes.
    mirror
        .upsert_file(&record(
            "/p/db/t/statistics.yaml",
            "statistics",
            "h2",
            Parsed::Yaml(yaml(2)),
        ))
        .unwrap();
    assert_eq!(mirror.parsed_as(path, "h1").unwrap(), None);
    assert_eq!(
        mirror.parsed_as(path, "h2").unwrap(),
        Some(Parsed::Yaml(yaml(2)))
    );
}

#[test]
fn a_touch_moves_the_identity_only_over_the_same_bytes() {
    let (_dir, mirror) = open();
    let path = "/p/db/t/statistics.yaml";
    mirror
        .upsert_file(&record(path, "statistics", "h1", Parsed::Yaml(yaml(1))))
        .unwrap();
    let mut touched = record(path, "statistics", "h1", Parsed::Absent);
    touched.scanned = Scanned::Touched;
    touched.identity = Some(identity(2_000, 10, 7));
    assert!(mirror.upsert_files(&[touched.clone()]).unwrap().is_empty());
    let status = mirror.status(Path::new(path)).unwrap().unwrap();
    assert_eq!(status.identity, Some(identity(2_000, 10, 7)));
    // The parse stands: a touch carries none.
    assert_eq!(
        mirror.parsed(Path::new(path)).unwrap(),
        Some(Parsed::Yaml(yaml(1)))
    );

    // Another process stored other bytes meanwhile: nothing is written, and the path is
    // reported for a full read.
    let mut stale = touched;
    stale.hash = Some("h-old".into());
    stale.identity = Some(identity(3_000, 10, 7));
    assert_eq!(
        mirror.upsert_files(&[stale]).unwrap(),
        [PathBuf::from(path)]
    );
    let status = mirror.status(Path::new(path)).unwrap().unwrap();
    assert_eq!(status.identity, Some(identity(2_000, 10, 7)));
}

#[test]
fn a_split_list_is_stored_by_item_under_its_hash_and_read_back_whole_or_by_position() {
    let (_dir, mirror) = open();
    let items: Vec<Value> = (0..5).map(yaml).collect();
    mirror.store_items("d1", 0, &items[..3]).unwrap();
    mirror.store_items("d1", 3, &items[3..]).unwrap();
    let header = Value::map(vec![
        (Value::Str("format_version".into()), Value::Int(1)),
        (Value::Str(ingest::SPLIT_KEY.into()), Value::seq(Vec::new())),
    ]);
    mirror
        .upsert_file(&record(
            "/p/diff.yaml",
            "diff",
            "d1",
            Parsed::Split(header.clone()),
        ))
        .unwrap();
    assert_eq!(
        mirror
            .split_header(Path::new("/p/diff.yaml"), "d1")
            .unwrap(),
        Some(header)
    );
    assert_eq!(
        mirror
            .split_header(Path::new("/p/diff.yaml"), "d0")
            .unwrap(),
        None
    );
    // Read whole: the header with its list filled in.
    let whole = Value::map(vec![
        (Value::Str("format_version".into()), Value::Int(1)),
        (
            Value::Str(ingest::SPLIT_KEY.into()),
            Value::seq(items.clone()),
        ),
    ]);
    assert_eq!(
        mirror.parsed(Path::new("/p/diff.yaml")).unwrap(),
        Some(Parsed::Yaml(whole))
    );
    // By position, in the order asked; a position past the end is None.
    assert_eq!(
        mirror.items_at("d1", &[4, 0, 9]).unwrap(),
        [Some(items[4].clone()), Some(items[0].clone()), None]
    );
    // In order, stopping where the callback says.
    let mut seen = Vec::new();
    let stopped = mirror
        .each_item("d1", |ord, item| {
            seen.push((ord, item));
            if ord == 2 {
                Err("enough")
            } else {
                Ok(())
            }
        })
        .unwrap();
    assert_eq!(stopped, Err("enough"));
    assert_eq!(seen.iter().map(|(o, _)| *o).collect::<Vec<_>>(), [0, 1, 2]);
}

#[test]
fn rewriting_a_split_file_drops_the_items_of_its_old_bytes() {
    let (_dir, mirror) = open();
    mirror.store_items("d1", 0, &[yaml(1)]).unwrap();
    let header = Value::map(vec![(
        Value::Str(ingest::SPLIT_KEY.into()),
        Value::seq(Vec::new()),
    )]);
    mirror
        .upsert_file(&record(
            "/p/diff.yaml",
            "diff",
            "d1",
            Parsed::Split(header.clone()),
        ))
        .unwrap();
    mirror.store_items("d2", 0, &[yaml(2)]).unwrap();
    mirror
        .upsert_file(&record("/p/diff.yaml", "diff", "d2", Parsed::Split(header)))
        .unwrap();
    assert_eq!(mirror.items_at("d1", &[0]).unwrap(), [None]);
    assert_eq!(mirror.items_at("d2", &[0]).unwrap(), [Some(yaml(2))]);
}

#[test]
fn applying_a_scan_stores_its_files_and_tables_and_forgets_files_it_no_longer_names() {
    let (_dir, mirror) = open();
    let a = record(
        "/p/db/t/statistics.yaml",
        "statistics",
        "ha",
        Parsed::Yaml(yaml(1)),
    );
    let b = record("/p/db/t/ddl.sql", "ddl", "hb", Parsed::Text);
    let first = scan(vec![a.clone(), b.clone()]);
    assert!(mirror
        .apply("c", Path::new("/p"), &first)
        .unwrap()
        .is_empty());
    assert_eq!(mirror.files("c").unwrap().len(), 2);
    assert_eq!(mirror.counts().unwrap().1, 1, "one table");

    // The same files, nothing read again: the scan changes nothing but identities.
    let mut same = scan(vec![a.clone(), b.clone()]);
    for f in &mut same.files {
        f.scanned = Scanned::Unchanged;
    }
    assert!(mirror.unchanged("c", &same).unwrap());

    // The second file is gone from the print.
    let mut fewer = scan(vec![a]);
    fewer.files[0].scanned = Scanned::Unchanged;
    assert!(!mirror.unchanged("c", &fewer).unwrap());
    mirror.apply("c", Path::new("/p"), &fewer).unwrap();
    let rows = mirror.files("c").unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].path, PathBuf::from("/p/db/t/statistics.yaml"));
    // The unchanged file kept its stored parse.
    assert_eq!(
        mirror.parsed(Path::new("/p/db/t/statistics.yaml")).unwrap(),
        Some(Parsed::Yaml(yaml(1)))
    );
}

#[test]
fn applying_a_touch_over_other_bytes_reports_the_file_for_a_full_read() {
    let (_dir, mirror) = open();
    let a = record(
        "/p/db/t/statistics.yaml",
        "statistics",
        "ha",
        Parsed::Yaml(yaml(1)),
    );
    mirror
        .apply("c", Path::new("/p"), &scan(vec![a.clone()]))
        .unwrap();
    let mut touched = a;
    touched.scanned = Scanned::Touched;
    touched.hash = Some("h-other".into());
    let mismatched = mirror
        .apply("c", Path::new("/p"), &scan(vec![touched]))
        .unwrap();
    assert_eq!(mismatched, [PathBuf::from("/p/db/t/statistics.yaml")]);
}

#[test]
fn stored_identities_come_back_by_path_with_absent_files_apart() {
    let (_dir, mirror) = open();
    let ha = blake3::hash(b"a").to_hex().to_string();
    let present = record("/p/a.yaml", "statistics", &ha, Parsed::Yaml(yaml(1)));
    let mut absent = record("/p/b.yaml", "statistics", "hb", Parsed::Absent);
    absent.identity = None;
    absent.hash = None;
    // A row whose hash does not read back (a damaged row) is kept without one.
    let damaged = record("/p/c.yaml", "statistics", "not hex", Parsed::Yaml(yaml(1)));
    mirror.upsert_files(&[present, absent, damaged]).unwrap();
    let files = mirror.stored("c").unwrap().into_files();
    assert_eq!(
        files.identity(Path::new("/p/a.yaml")),
        Some(identity(1_000, 10, 7))
    );
    assert_eq!(
        files.hash(Path::new("/p/a.yaml")).map(|h| h.to_string()),
        Some(ha.clone())
    );
    assert!(files.is_absent(Path::new("/p/b.yaml")));
    assert_eq!(files.identity(Path::new("/p/b.yaml")), None);
    assert!(files.tracks(Path::new("/p/c.yaml")) && !files.has_content(Path::new("/p/c.yaml")));
    let lookup = RowLookup(&mirror);
    assert!(lookup.absent(Path::new("/p/b.yaml")));
    assert_eq!(lookup.hash(Path::new("/p/a.yaml")), Some(ha));
}

#[test]
fn a_walk_memo_round_trips_with_settled_directory_identities() {
    let (_dir, mirror) = open_with_connection_c();
    assert!(mirror.walk_memo("c").is_none(), "nothing kept yet");
    let memo = WalkMemo {
        found: vec!["db/t".into()],
        symlinks_seen: 1,
        dirs: vec![(PathBuf::from("/p/db"), identity(5, 4096, 9))],
        links: vec![(PathBuf::from("/p/db/l"), PathBuf::from("/p/db/t"))],
    };
    mirror.store_walk("c", &memo).unwrap();
    let back = mirror.walk_memo("c").unwrap();
    assert_eq!(back.found, memo.found);
    assert_eq!(back.symlinks_seen, 1);
    assert_eq!(back.dirs, memo.dirs);
    assert_eq!(back.links, memo.links);
    assert!(mirror.walk_memo("other").is_none());
}

#[test]
fn a_walk_memo_an_earlier_version_kept_or_one_damaged_is_walked_again() {
    let (_dir, mirror) = open_with_connection_c();
    let dirs = vec![
        (PathBuf::from("/p/db"), identity(5, 4096, 9)),
        (PathBuf::from("/p/db/é"), identity(6, 4096, 10)),
    ];
    // Paths sharing part of a character (é and è share their first byte), a shorter path
    // after a longer one, and one sharing nothing.
    let mut shapes = dirs.clone();
    for (i, path) in ["/p/db/è", "/p/d", "/p/d/x/y", "/q", "/p/db/è/é"]
        .iter()
        .enumerate()
    {
        shapes.push((PathBuf::from(path), identity(7 + i as i64, 4096, 11)));
    }
    // Kept, then read back as it was.
    let round_trip = |dirs: &Vec<(PathBuf, FileIdentity)>| {
        let memo = WalkMemo {
            found: Vec::new(),
            symlinks_seen: 0,
            dirs: dirs.clone(),
            links: Vec::new(),
        };
        mirror.store_walk("c", &memo).unwrap();
        assert_eq!(&mirror.walk_memo("c").unwrap().dirs, dirs);
    };
    round_trip(&shapes);
    round_trip(&dirs);
    let kept: Vec<u8> = mirror
        .db()
        .query_row("SELECT walk FROM connections WHERE name = 'c'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let set = |walk: rusqlite::types::Value| {
        mirror
            .db()
            .execute("UPDATE connections SET walk = ?1 WHERE name = 'c'", [walk])
            .unwrap();
    };
    // The JSON text an earlier version kept.
    set(rusqlite::types::Value::Text(
        r#"{"found":[],"symlinks_seen":0,"dirs":[["/p/db",5,4096,9]],"links":[]}"#.into(),
    ));
    assert!(mirror.walk_memo("c").is_none());
    // Cut short, and cut inside the path's last character (its end moved back a byte).
    set(rusqlite::types::Value::Blob(
        kept[..kept.len() - 3].to_vec(),
    ));
    assert!(mirror.walk_memo("c").is_none());
    // The second path is kept as the 5 bytes it shares with the first, and `/é`.
    let text = "/p/db/é".as_bytes();
    let at = kept.windows(text.len()).position(|w| w == text).unwrap();
    let mut inside = kept.clone();
    // After the text: how many ends, then each end (a byte each here).
    let second_end = at + text.len() + 2;
    assert_eq!(inside[second_end] as usize, text.len());
    inside[second_end] -= 1;
    set(rusqlite::types::Value::Blob(inside));
    assert!(mirror.walk_memo("c").is_none());
    set(rusqlite::types::Value::Blob(kept));
    assert_eq!(mirror.walk_memo("c").unwrap().dirs, dirs);
}

fn pz_file(rel: &str, bytes: &[u8], hash: &str) -> ScannedFile {
    ScannedFile {
        rel: rel.into(),
        file: KnownFile {
            identity: identity(42, bytes.len() as u64, 3),
            hash: hash.into(),
            bytes: Arc::from(bytes),
        },
        changed: true,
        moved: true,
    }
}

#[test]
fn a_pz_projects_rows_are_written_replaced_and_deleted_per_project() {
    let (_dir, mirror) = open();
    let (one, two) = (Path::new("/projects/one"), Path::new("/projects/two"));
    let yml = pz_file("project.yml", b"name: one\n", "p1");
    let sql = pz_file("pipelines/a.sql", b"select 1", "a1");
    mirror.store_pz_files(one, &[&yml, &sql], &[]).unwrap();
    mirror
        .store_pz_files(two, &[&pz_file("project.yml", b"name: two\n", "p2")], &[])
        .unwrap();
    let mut rows = mirror.pz_files(one).unwrap();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, "pipelines/a.sql");
    assert_eq!(&rows[0].1.bytes[..], b"select 1");
    assert_eq!(rows[1].1.identity, identity(42, 10, 3));

    // A file rewritten and one gone, in one write.
    let edited = pz_file("project.yml", b"name: uno\n", "p3");
    mirror
        .store_pz_files(one, &[&edited], &["pipelines/a.sql"])
        .unwrap();
    let rows = mirror.pz_files(one).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].1.hash.as_str(), &rows[0].1.bytes[..]),
        ("p3", &b"name: uno\n"[..])
    );
    // The other project is untouched.
    assert_eq!(mirror.pz_files(two).unwrap()[0].1.hash, "p2");
}

#[test]
fn a_mirror_of_another_schema_version_is_replaced_and_this_ones_is_reused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mirror = Mirror::open(dir.path()).unwrap();
        assert_eq!(mirror.opened(), crate::store::Opened::Created);
        mirror
            .upsert_file(&record("/p/a.yaml", "statistics", "h", Parsed::Text))
            .unwrap();
    }
    {
        let mirror = Mirror::open(dir.path()).unwrap();
        assert_eq!(mirror.opened(), crate::store::Opened::Reused);
        assert_eq!(mirror.files("c").unwrap().len(), 1);
        mirror
            .db()
            .execute(
                "UPDATE meta SET value = 'old' WHERE key = 'schema_version'",
                [],
            )
            .unwrap();
    }
    let mirror = Mirror::open(dir.path()).unwrap();
    assert_eq!(mirror.opened(), crate::store::Opened::Replaced);
    assert!(mirror.files("c").unwrap().is_empty());
}

#[test]
fn a_directory_where_the_mirror_file_belongs_is_damage_not_a_mirror() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(MIRROR_FILE)).unwrap();
    let err = Mirror::open(dir.path()).err().expect("not a file");
    assert!(matches!(err, MirrorError::Damaged(_)), "{err}");
    assert!(!err.unusable_location());
}

#[test]
fn inspection_reports_absent_required_files_unparseable_ones_and_the_last_reconcile() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        Mirror::inspect(dir.path()).unwrap().is_none(),
        "no mirror yet"
    );
    let mirror = Mirror::open(dir.path()).unwrap();
    let mut ddl = record("/p/db/t/ddl.sql", "ddl", "h", Parsed::Absent);
    ddl.identity = None;
    let mut description = record("/p/db/t/description.md", "description", "h", Parsed::Absent);
    description.identity = None;
    let broken = record(
        "/p/db/t/statistics.yaml",
        "statistics",
        "h",
        Parsed::YamlError("x".into()),
    );
    mirror
        .apply("c", Path::new("/p"), &scan(vec![ddl, description, broken]))
        .unwrap();
    mirror
        .record_reconcile("c", 3, 1, std::time::Duration::from_millis(5))
        .unwrap();
    drop(mirror);
    let seen = Mirror::inspect(dir.path()).unwrap().unwrap();
    assert!(seen.current && seen.damage.is_none());
    assert_eq!(seen.tables, 1);
    let c = &seen.connections[0];
    assert_eq!((c.name.as_str(), c.files, c.unparseable), ("c", 3, 1));
    // description.md is optional: never reported absent.
    assert_eq!(c.absent, [PathBuf::from("/p/db/t/ddl.sql")]);
    let last = c.last_reconcile.as_ref().unwrap();
    assert_eq!(
        (last["files"].as_u64(), last["reread"].as_u64()),
        (Some(3), Some(1))
    );
}

#[test]
fn an_index_failure_inside_a_write_keeps_whether_the_location_is_unusable() {
    use crate::store::search::IndexError;
    let failed = |kind| {
        MirrorError::Index(IndexError::Io {
            path: PathBuf::from("/index"),
            source: std::io::Error::from(kind),
        })
    };
    assert!(failed(std::io::ErrorKind::PermissionDenied).unusable_location());
    assert!(failed(std::io::ErrorKind::StorageFull).unusable_location());
    assert!(!failed(std::io::ErrorKind::InvalidData).unusable_location());
    assert!(!MirrorError::Index(IndexError::Checksum("f".into())).unusable_location());
    // The text is the index error's own, as it was when only the text was kept.
    assert_eq!(
        failed(std::io::ErrorKind::PermissionDenied).to_string(),
        "search index directory /index: permission denied"
    );
}

#[test]
fn a_point_read_is_answered_beside_the_writer_and_sees_what_it_committed() {
    let (_dir, mirror) = open();
    let path = Path::new("/p/db/t/statistics.yaml");
    let store = |hash: &str, n: i64| {
        let statistics = record(
            path.to_str().unwrap(),
            "statistics",
            hash,
            Parsed::Yaml(yaml(n)),
        );
        assert!(mirror.upsert_file(&statistics).unwrap());
    };
    store("h1", 4);
    // The writer's connection busy (a start reading every row holds it for seconds):
    // a call's reads of one file go through a connection of their own.
    let writer = mirror.db();
    let (sent, got) = std::sync::mpsc::channel();
    let beside = std::thread::scope(|scope| {
        scope.spawn(|| {
            let status = mirror.status(path).unwrap().unwrap();
            let parsed = mirror.parsed_as(path, "h1").unwrap();
            let _ = sent.send((status.hash, parsed));
        });
        let beside = got.recv_timeout(std::time::Duration::from_secs(5));
        // Let a read that queued behind the writer finish, for the assertion to say so.
        drop(writer);
        beside
    });
    let (hash, parsed) = beside.expect("the read waited for the writer's connection");
    assert_eq!(hash.as_deref(), Some("h1"));
    assert_eq!(parsed, Some(Parsed::Yaml(yaml(4))));
    // A row the writer rewrites is read as it left it, by a reader opened before.
    store("h2", 5);
    assert_eq!(
        mirror.status(path).unwrap().unwrap().hash.as_deref(),
        Some("h2")
    );
    assert_eq!(mirror.parsed_as(path, "h1").unwrap(), None);
    assert!(
        !mirror.readers.lock().unwrap().is_empty(),
        "the read-only connection was kept for the next read"
    );
}

#[test]
fn a_mirror_keeps_its_instance_across_opens_and_one_made_again_has_another() {
    let (dir, mirror) = open();
    let first = mirror
        .instance()
        .expect("an instance is made with the mirror");
    drop(mirror);
    let reopened = Mirror::open(dir.path()).unwrap();
    assert_eq!(reopened.instance().as_deref(), Some(first.as_str()));
    let path = reopened.path().to_path_buf();
    drop(reopened);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let made_again = Mirror::open(dir.path()).unwrap();
    let second = made_again.instance().unwrap();
    assert_ne!(
        second, first,
        "a generation of the old mirror names nothing in this one"
    );
}
