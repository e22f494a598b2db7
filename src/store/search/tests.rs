//! The index on its own: sync keeps one table's documents per key, and the candidate
//! search and lookups agree with the records.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::lookup::Filters;
use super::*;
use compat::yaml;

/// Table `fqn` with its statistics at content version `version`; its path names the
/// version too, so that `load` can answer it.
fn entry(fqn: &str, version: u64) -> TableEntry {
    let stats = PathBuf::from(format!("/p/{fqn}/v{version}/statistics.yaml"));
    let key = table_key(
        "c",
        fqn,
        [Some((&stats, &version.to_string())), None, None, None],
    );
    TableEntry {
        fqn: fqn.to_string(),
        key,
        stats: Some(stats.into()),
        annotations: None,
        description: None,
        relationship_notes: None,
        identities: [None; 4],
        row_count: None,
    }
}

fn stats_for(path: &Path) -> Parsed {
    let text = if path.to_string_lossy().contains("/s.b/") {
        // A plain key is at most 1024 characters: spell the long one as an explicit key.
        format!(
            "columns:\n  ? {}\n  : {{sql_type: INT, classification: numeric}}\n  short: {{sql_type: INT}}\n",
            "L".repeat(2000)
        )
    } else {
        "columns:\n  email: {sql_type: VARCHAR, classification: text, inferred: {looks_like: email}}\n  id: {sql_type: INT, classification: numeric, values: [{value: 1, count: 1}], values_coverage: 1.0}\n".to_string()
    };
    Parsed::Yaml(yaml::load(&text).unwrap())
}

/// A statistics file as `entry` placed it: its parse, and the version its path names.
fn load(path: &Path) -> Loaded<'static> {
    let version = path
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix('v'))
        .expect("a path made by `entry`")
        .to_string();
    Loaded {
        parsed: Cow::Owned(stats_for(path)),
        version,
    }
}

fn search(snap: &SearchView, filters: Filters) -> Vec<String> {
    snap.search(&filters)
        .unwrap()
        .hits
        .into_sorted()
        .iter()
        .map(|h| {
            let r = snap.column(h.address).unwrap();
            format!("{}.{}", snap.tables[h.table].fqn, r.label)
        })
        .collect()
}

#[test]
fn sync_indexes_changed_tables_and_drops_gone_ones() {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let snap = index
        .sync("c", vec![entry("s.b", 2), entry("s.a", 1)], &load)
        .unwrap();
    let long = format!("s.b.{}", "L".repeat(2000));
    assert_eq!(
        search(&snap, Filters::default()),
        ["s.a.email", "s.a.id", &long, "s.b.short"]
    );
    // Globs decide exactly, over long values too.
    assert_eq!(
        search(
            &snap,
            Filters {
                pattern: Some("L*"),
                ..Default::default()
            }
        ),
        [long]
    );
    assert_eq!(
        search(
            &snap,
            Filters {
                looks_like: Some("e?ail"),
                ..Default::default()
            }
        ),
        ["s.a.email"]
    );
    let rank = snap.table_rank("s.b").unwrap();
    let record = snap
        .column_by_name(rank, &"L".repeat(2000))
        .unwrap()
        .unwrap();
    assert!(record.resolve.is_some());
    let rank = snap.table_rank("s.a").unwrap();
    let id = snap.column_by_name(rank, "id").unwrap().unwrap();
    assert_eq!(id.resolve.unwrap().own.unwrap().listed.len(), 1);
    assert_eq!(
        snap.table_record(rank, true)
            .unwrap()
            .unwrap()
            .stats_columns,
        ["email", "id"]
    );
    // A new key replaces the table's documents; a table gone loses them.
    let snap = index.sync("c", vec![entry("s.a", 3)], &load).unwrap();
    assert_eq!(search(&snap, Filters::default()), ["s.a.email", "s.a.id"]);
    // A reopened index knows what it holds: nothing to redo.
    drop(index);
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let counting = |p: &Path| {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        load(p)
    };
    let snap = index.sync("c", vec![entry("s.a", 3)], &counting).unwrap();
    assert_eq!(calls.into_inner(), 0);
    assert_eq!(search(&snap, Filters::default()).len(), 2);
}

#[test]
fn small_syncs_leave_segments_that_compact_merges_without_losing_a_document() {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let n = MAX_SEGMENTS + 3;
    let names: Vec<String> = (0..n).map(|i| format!("s.t{i:02}")).collect();
    let tables = |changed: usize| -> Vec<TableEntry> {
        names
            .iter()
            .enumerate()
            // Keys are unique per table and version, as content hashes are.
            .map(|(i, name)| entry(name, 10 * i as u64 + if i < changed { 2 } else { 1 }))
            .collect()
    };
    let mut snap = index.sync("c", tables(0), &load).unwrap();
    // One table after another changing, as under a watcher: a segment per change.
    for changed in 1..=n {
        snap = index.sync("c", tables(changed), &load).unwrap();
    }
    let before = index.index.searchable_segment_ids().unwrap().len();
    assert!(before > MAX_SEGMENTS, "{before} segments");
    assert!(index.compact().unwrap());
    assert_eq!(index.index.searchable_segment_ids().unwrap().len(), 1);
    assert!(!index.compact().unwrap(), "nothing left to merge");
    let expected: Vec<String> = names
        .iter()
        .flat_map(|t| [format!("{t}.email"), format!("{t}.id")])
        .collect();
    // The snapshot taken before the merge still reads; a new one sees the same.
    assert_eq!(search(&snap, Filters::default()), expected);
    let again = index.sync("c", tables(n), &load).unwrap();
    assert_eq!(search(&again, Filters::default()), expected);
}

#[test]
fn documents_are_never_stored_under_a_key_their_contents_do_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    // The view says version 2; the file read is version 1 (the mirror holds another row
    // than the writer's view knows): nothing is indexed, and the sync says why.
    let mut stale = entry("s.a", 2);
    stale.stats = entry("s.a", 1).stats;
    match index.sync("c", vec![stale], &load) {
        Err(IndexError::Outdated(fqn)) => assert_eq!(fqn, "s.a"),
        other => panic!("{other:?}"),
    }
    assert_eq!(index.count("table").unwrap(), 0);
    let snap = index.sync("c", vec![entry("s.a", 1)], &load).unwrap();
    assert_eq!(search(&snap, Filters::default()), ["s.a.email", "s.a.id"]);
}

/// Tables s.a and s.b, each at version 1.
fn a_and_b() -> Vec<TableEntry> {
    vec![entry("s.a", 1), entry("s.b", 1)]
}

/// An index holding s.a and s.b as connection `c`.
fn indexed_a_and_b() -> (tempfile::TempDir, SearchIndex) {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    index.sync("c", a_and_b(), &load).unwrap();
    (dir, index)
}

/// s.a and s.b synced by `syncing`: `index` (the same directory) holds each once, and a
/// search finds each one's two columns once.
fn synced_once(syncing: &SearchIndex, index: &SearchIndex) {
    let snap = syncing.sync("c", a_and_b(), &load).unwrap();
    assert_eq!(index.count("table").unwrap(), 2);
    assert_eq!(search(&snap, Filters::default()).len(), 4);
}

#[test]
fn a_sync_that_only_drops_tables_commits_the_drop() {
    let (dir, index) = indexed_a_and_b();
    // s.b leaves and nothing is added: its documents go all the same.
    let snap = index.sync("c", vec![entry("s.a", 1)], &load).unwrap();
    assert_eq!(search(&snap, Filters::default()), ["s.a.email", "s.a.id"]);
    assert_eq!(index.count("table").unwrap(), 1);
    // It comes back: through another process sharing the index, then through this one
    // (which must not add what the other added again).
    let other = SearchIndex::open(dir.path(), false).unwrap();
    other.sync("c", a_and_b(), &load).unwrap();
    synced_once(&index, &index);
}

#[test]
fn a_sync_that_fails_before_it_commits_leaves_no_table_held_twice() {
    let (_dir, index) = indexed_a_and_b();
    // s.b's new version cannot be indexed (its file is still the old one): nothing is
    // committed, its old documents included.
    let mut outdated = entry("s.b", 2);
    outdated.stats = entry("s.b", 1).stats;
    let failed = index.sync("c", vec![entry("s.a", 1), outdated], &load);
    assert!(matches!(failed, Err(IndexError::Outdated(_))), "{failed:?}");
    synced_once(&index, &index);
}

#[test]
fn a_table_found_held_twice_is_no_view_and_is_indexed_again_once() {
    let (dir, index) = indexed_a_and_b();
    // s.b's documents added a second time, as printdex before index version 13 could
    // (its indexes are rebuilt; this is the check behind that).
    let docs = index.table_docs("c", &entry("s.b", 1), &load).unwrap();
    let mut writer: IndexWriter<TantivyDocument> =
        index.index.writer_with_num_threads(1, WRITER_HEAP).unwrap();
    for doc in docs.search.into_iter().chain(docs.find) {
        writer.add_document(doc).unwrap();
    }
    writer.commit().unwrap();
    drop(writer);
    assert_eq!(index.count("table").unwrap(), 3);
    // A reader does not answer from it; a writer replaces the doubled table's documents.
    let other = SearchIndex::open(dir.path(), false).unwrap();
    assert!(other.view("c", a_and_b()).unwrap().is_none());
    synced_once(&other, &index);
    assert!(index.view("c", a_and_b()).unwrap().is_some());
}

/// search_columns' filters keep to column and part documents without a kind clause
/// (`lookup::search`): only those documents hold the fields they filter on.
#[test]
fn only_column_and_part_documents_hold_the_fields_search_columns_filters_on() {
    use tantivy::collector::Count;
    use tantivy::query::{BooleanQuery, Occur, Query, TermSetQuery};
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    // Tables with columns, value lists (their own documents) and find's documents.
    let snap = index
        .sync("c", vec![entry("s.a", 1), entry("s.b", 1)], &load)
        .unwrap();
    let f = &snap.fields;
    let searcher = &snap.searcher;
    let column_or_part = || -> Box<dyn Query> {
        let kinds = ["column", "part"].map(|kind| Term::from_field_text(f.kind, kind));
        Box::new(TermSetQuery::new(kinds))
    };
    let filtered = [
        f.name,
        f.classification,
        f.sql_type,
        f.sensitivity,
        f.looks_like,
        f.redacted,
        f.candidate_key,
        f.text,
    ];
    let mut fields_seen = 0;
    for field in filtered {
        let mut terms = Vec::new();
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(field).unwrap();
            let mut stream = inverted.terms().stream().unwrap();
            while stream.advance() {
                terms.push(Term::from_field_bytes(field, stream.key()));
            }
        }
        if terms.is_empty() {
            continue;
        }
        fields_seen += 1;
        let holding = || -> Box<dyn Query> { Box::new(TermSetQuery::new(terms.clone())) };
        let elsewhere = BooleanQuery::new(vec![
            (Occur::Must, holding()),
            (Occur::MustNot, column_or_part()),
        ]);
        assert!(searcher.search(&*holding(), &Count).unwrap() > 0);
        assert_eq!(
            searcher.search(&elsewhere, &Count).unwrap(),
            0,
            "{:?} is held by a document that is neither a column nor a part",
            searcher.schema().get_field_name(field)
        );
    }
    assert!(fields_seen >= 4, "{fields_seen} filtered fields hold terms");
}

#[test]
fn a_kept_view_is_taken_while_the_index_holds_what_it_held_and_refused_after_a_commit() {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let tables = || vec![entry("s.a", 1), entry("s.b", 2)];
    let synced = index.sync("c", tables(), &load).unwrap();
    let stamp = synced.stamp();
    // Another process opening the same index reads what this one committed.
    let other = SearchIndex::open(dir.path(), false).unwrap();
    let kept = other
        .kept_view("c", tables(), &stamp)
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(
        search(&kept, Filters::default()),
        search(&synced, Filters::default())
    );
    assert_eq!(kept.table_rank("s.b"), synced.table_rank("s.b"));
    // A commit since (a table's new version) moves what the index holds.
    index
        .sync("c", vec![entry("s.a", 1), entry("s.b", 3)], &load)
        .unwrap();
    let refused = other.kept_view("c", tables(), &stamp).unwrap();
    assert_eq!(refused.err().map(|t| t.len()), Some(2));
}

/// The index decides a `text` needle on its own: the needle's trigrams at their offsets,
/// inside one of a column's strings (its name, its note, one of its value notes),
/// casefolded.
#[test]
fn a_text_needle_is_matched_exactly_inside_one_string() {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let stats = PathBuf::from("/p/s.t/v1/statistics.yaml");
    let notes = PathBuf::from("/p/s.t/v1/statistics.annotations.yaml");
    let key = table_key(
        "c",
        "s.t",
        [Some((&stats, "1")), Some((&notes, "1")), None, None],
    );
    let table = TableEntry {
        fqn: "s.t".into(),
        key,
        stats: Some(stats.into()),
        annotations: Some(notes.into()),
        description: None,
        relationship_notes: None,
        identities: [None; 4],
        row_count: None,
    };
    let load = |path: &Path| -> Loaded<'static> {
        let text = if path.ends_with("statistics.yaml") {
            "columns:\n  stat_atus: {sql_type: INT}\n  status_code: {sql_type: INT}\n  xsta: {sql_type: INT}\n  code: {sql_type: INT}\n  baaab: {sql_type: INT}\n  xaaaay: {sql_type: INT}\n  Straße: {sql_type: INT}\n  pair: {sql_type: INT}\n"
        } else {
            "format_version: 1\ncolumns:\n  xsta: {note: ztus here}\n  code: {values: [{value: A, note: Old STATUS code}, {value: B, note: new}]}\n  pair: {note: xxabc, values: [{value: 1, note: zdef}]}\n"
        };
        Loaded {
            parsed: Cow::Owned(Parsed::Yaml(yaml::load(text).unwrap())),
            version: "1".into(),
        }
    };
    let snap = index.sync("c", vec![table], &load).unwrap();
    let text = |needle| {
        search(
            &snap,
            Filters {
                text: Some(needle),
                ..Default::default()
            },
        )
    };
    // `stat_atus` holds every trigram of `status`, not in a row; `xsta` and its note
    // `ztus here` would spell it only across the two strings (`sta` and `tus`, the two
    // trigrams asked for, stand three apart there but for the gap between strings).
    assert_eq!(text("status"), ["s.t.code", "s.t.status_code"]);
    // A trigram twice in a row: `baaab` holds `aaa` once.
    assert_eq!(text("AAAA"), ["s.t.xaaaay"]);
    assert_eq!(text("strasse"), ["s.t.Straße"]);
    assert_eq!(
        text("sta"),
        ["s.t.code", "s.t.stat_atus", "s.t.status_code", "s.t.xsta"]
    );
    assert_eq!(text("here"), ["s.t.xsta"]);
    assert_eq!(text("status code"), ["s.t.code"]);
    assert!(text("code status").is_empty());
    // `abc` ends one string and `def` stands second in the next: one empty position
    // between them would put the two trigrams three apart.
    assert_eq!(text("abc"), ["s.t.pair"]);
    assert_eq!(text("zdef"), ["s.t.pair"]);
    assert!(text("abcdef").is_empty());
    // Under three characters, candidates the records confirm.
    let short = snap
        .search(&Filters {
            text: Some("ta"),
            ..Default::default()
        })
        .unwrap();
    assert!(short.verify);
    assert!(
        !snap
            .search(&Filters {
                text: Some("tat"),
                ..Default::default()
            })
            .unwrap()
            .verify
    );
}

/// Hits are placed in reply order as far as they are read, and every read order gives
/// the order sorting them all gives.
#[test]
fn hits_placed_as_they_are_read_are_in_reply_order() {
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let tables: Vec<TableEntry> = (0..150).map(|i| entry(&format!("s.t{i:03}"), 1)).collect();
    let snap = index.sync("c", tables, &load).unwrap();
    let all = snap.search(&Filters::default()).unwrap().hits.into_sorted();
    assert_eq!(all.len(), 300);
    assert!(all.windows(2).all(|w| w[0] < w[1]));
    for start in [0, 1, 63, 64, 65, 130, 299] {
        let mut hits = snap.search(&Filters::default()).unwrap().hits;
        assert_eq!(hits.len(), 300);
        let read: Vec<_> = (start..300).map(|i| hits.get(i).unwrap()).collect();
        assert_eq!(read, all[start..]);
        assert_eq!(hits.get(300), None);
        assert_eq!(hits.get(0), Some(all[0]));
    }
}

#[test]
fn stores_mapped_apart_read_the_searchers_documents_until_dropped() {
    // Several segments (one table changed per sync), read through the searcher and
    // through stores mapped apart: the same documents at the same addresses.
    let dir = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(dir.path(), false).unwrap();
    let names = ["s.a", "s.b", "s.c"];
    let mut view = None;
    for changed in 0..names.len() {
        let tables = names
            .iter()
            .enumerate()
            .map(|(i, n)| entry(n, 10 * i as u64 + u64::from(i <= changed)))
            .collect();
        view = Some(index.sync("c", tables, &load).unwrap());
    }
    let view = view.unwrap();
    assert!(view.searcher.segment_readers().len() > 1);
    let mut apart = directory::StoresApart::new(&view.dir, &view.searcher);
    let mut read = 0;
    for (ord, segment) in view.searcher.segment_readers().iter().enumerate() {
        assert!(apart.maps(ord as u32));
        for doc_id in 0..segment.max_doc() {
            let address = tantivy::DocAddress::new(ord as u32, doc_id);
            let through: TantivyDocument = view.searcher.doc(address).unwrap();
            assert_eq!(apart.doc(address).unwrap(), through);
            read += 1;
        }
    }
    assert!(read > 0);
    let mut records = Vec::new();
    view.each_catalog_record(&|_| true, &mut |rank, record| records.push((rank, record)))
        .unwrap();
    // Handed over in the index's order, each table once.
    let mut ranks: Vec<usize> = records.iter().map(|(rank, _)| *rank).collect();
    ranks.sort_unstable();
    assert_eq!(ranks, [0, 1, 2]);
    // Read again out of address order: each segment mapped again as the read comes back
    // to it, the same documents.
    let segments = view.searcher.segment_readers().len() as u32;
    for ord in (0..segments).rev() {
        let address = tantivy::DocAddress::new(ord, 0);
        let through: TantivyDocument = view.searcher.doc(address).unwrap();
        assert_eq!(apart.doc(address).unwrap(), through);
    }
    // A segment gone from the directory: that segment is not mapped apart, and the
    // catalog's read goes through the searcher's own mappings for it.
    let gone = format!(
        "{}.store",
        view.searcher.segment_readers()[0]
            .segment_id()
            .uuid_string()
    );
    std::fs::remove_file(dir.path().join(gone)).unwrap();
    let apart = directory::StoresApart::new(&view.dir, &view.searcher);
    assert!(!apart.maps(0));
    assert!(apart.maps(1));
    let mut again = 0;
    view.each_catalog_record(&|_| true, &mut |_, _| again += 1)
        .unwrap();
    assert_eq!(again, 3);
}
