//! The scan's unit tests: identities, reads, spills and split diffs.

use super::*;
use std::time::{Duration, SystemTime};

fn set_mtime(path: &Path, at: SystemTime) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(at).unwrap();
}

#[test]
fn an_identity_taken_within_a_tick_of_the_write_proves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("statistics.yaml");
    std::fs::write(&path, "row_count: 1000\n").unwrap();
    let first = file_identity(&path).unwrap();
    assert!(!first.settled);
    // Rewritten in place within the same tick: nothing in the stat moves.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, "row_count: 1001\n").unwrap();
    set_mtime(&path, mtime);
    let second = file_identity(&path).unwrap();
    assert!(first.same_stat(&second));
    assert_ne!(first, second, "an unsettled identity never matches");
    assert_ne!(first, first);
}

#[test]
fn an_identity_taken_well_after_the_write_is_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("statistics.yaml");
    std::fs::write(&path, "row_count: 1000\n").unwrap();
    set_mtime(&path, SystemTime::now() - Duration::from_secs(5));
    let first = file_identity(&path).unwrap();
    assert!(first.settled);
    assert_eq!(first, file_identity(&path).unwrap());
    // Whole-second timestamps (no sub-millisecond digits) settle only after 2 s.
    let whole = SystemTime::UNIX_EPOCH
        + Duration::from_secs(
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                - 1,
        );
    set_mtime(&path, whole);
    assert!(!file_identity(&path).unwrap().settled);
    assert!(file_identity(Path::new("/nonexistent/x")).is_none());
    assert!(
        file_identity(dir.path()).is_none(),
        "a directory is not a file"
    );
}

#[test]
fn the_same_bytes_under_a_new_identity_are_not_parsed_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("statistics.yaml");
    std::fs::write(&path, "row_count: 1000\n").unwrap();
    let first = read_file(&path, "c", Some("t"), "statistics");
    assert!(matches!(first.scanned, Scanned::Read(Parsed::Yaml(_))));
    let reread = || {
        read_file_unless(
            &path,
            "c",
            Some("t"),
            "statistics",
            first.hash.as_deref(),
            None,
        )
    };
    assert_eq!(reread().scanned, Scanned::Touched);
    std::fs::write(&path, "row_count: 1001\n").unwrap();
    assert!(matches!(reread().scanned, Scanned::Read(Parsed::Yaml(_))));
}

/// A stash that keeps what it is handed.
#[derive(Default)]
struct Kept {
    items: std::sync::Mutex<Vec<(String, u64, Value)>>,
    refuse_items: bool,
}

impl Stash for Kept {
    fn records(&self, _: &[FileRecord]) -> bool {
        false
    }
    fn items(&self, hash: &str, first: u64, items: &[Value]) -> bool {
        let mut kept = self.items.lock().unwrap();
        for (i, v) in items.iter().enumerate() {
            kept.push((hash.to_string(), first + i as u64, v.clone()));
        }
        !self.refuse_items
    }
}

fn a_diff(events: usize) -> String {
    let mut text = String::from("format_version: 1\nsummary:\n  tables_added: 0\nchanges:\n");
    for i in 0..events {
        text.push_str(&format!(
            "- kind: column_added\n  table: main.t{i}\n  column: c\n"
        ));
    }
    text
}

/// A stash that takes every batch of records, noting each batch's paths.
#[derive(Default)]
struct Batches(std::sync::Mutex<Vec<Vec<PathBuf>>>);

impl Stash for Batches {
    fn records(&self, records: &[FileRecord]) -> bool {
        let paths = records.iter().map(|r| r.path.clone()).collect();
        self.0.lock().unwrap().push(paths);
        true
    }
    fn items(&self, _: &str, _: u64, _: &[Value]) -> bool {
        false
    }
}

#[test]
fn every_declared_file_is_read_once_in_table_order_and_spilled_in_batches() {
    // Enough tables for several parts; every fifth declares its statistics only, and
    // every third's ddl is not on disk (read as absent).
    let dir = tempfile::tempdir().unwrap();
    let (mut tables, mut declared, mut expected) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..300 {
        let table_dir = dir.path().join(format!("s/t{n:03}"));
        std::fs::create_dir_all(&table_dir).unwrap();
        std::fs::write(table_dir.join("statistics.yaml"), format!("rows: {n}\n")).unwrap();
        if n % 3 != 0 {
            std::fs::write(table_dir.join("ddl.sql"), "create table t (a int);\n").unwrap();
        }
        let text = if n % 5 == 0 {
            "artifacts:\n  statistics: statistics.yaml\n"
        } else {
            "artifacts:\n  statistics: statistics.yaml\n  ddl: ddl.sql\n"
        };
        let entry = yaml::load(text).unwrap();
        let files = walk::declared_artifacts(&entry);
        let fqn = format!("s.t{n:03}");
        expected.extend(files.iter().map(|(_, f)| (table_dir.join(f), fqn.clone())));
        declared.push(files.len());
        tables.push((fqn, table_dir, entry));
    }
    let stash = Batches::default();
    let ReadAll {
        parts,
        spilled,
        named_ahead,
    } = read_all((&tables, &declared), "c", &Cold, &|_, _| {}, Some(&stash));
    // A cold scan names every file it reads to the kernel ahead (those not on disk too).
    assert_eq!(named_ahead, expected.len());
    for part in &parts {
        assert_eq!(part.len(), part.capacity(), "each part is held at its size");
    }
    let records: Vec<FileRecord> = parts.into_iter().flatten().collect();
    let read: Vec<(PathBuf, String)> = records
        .iter()
        .map(|r| (r.path.clone(), r.fqn.clone().unwrap()))
        .collect();
    assert_eq!(read, expected, "every declared file once, in table order");
    assert!(records.iter().all(|r| r.scanned == Scanned::Stored));
    assert_eq!(spilled, expected.len());
    let batches = stash.0.into_inner().unwrap();
    assert!(batches
        .iter()
        .all(|b| !b.is_empty() && b.len() <= SPILL_BATCH));
    let mut stashed: Vec<PathBuf> = batches.into_iter().flatten().collect();
    stashed.sort();
    let mut paths: Vec<PathBuf> = expected.into_iter().map(|(p, _)| p).collect();
    paths.sort();
    assert_eq!(stashed, paths, "each record handed to the stash once");
}

/// A store that holds something, though not these files: each is read, as by a warm
/// reconcile that finds them new.
struct HoldsOthers;

impl Stored for HoldsOthers {
    fn identity(&self, _: &Path) -> Option<FileIdentity> {
        None
    }
    fn parsed(&self, _: &Path) -> Option<Parsed> {
        None
    }
}

/// `n` tables below `root` that each declare a statistics file, which `write(i, path)`
/// makes for table `i`, as `read_all` takes them (tables, and how many files each declares).
fn statistics_tables(
    root: &Path,
    n: usize,
    write: impl Fn(usize, &Path),
) -> (Vec<(String, PathBuf, Value)>, Vec<usize>) {
    let (mut tables, mut declared) = (Vec::new(), Vec::new());
    for i in 0..n {
        let table_dir = root.join(format!("s/t{i:03}"));
        std::fs::create_dir_all(&table_dir).unwrap();
        write(i, &table_dir.join("statistics.yaml"));
        let entry = yaml::load("artifacts:\n  statistics: statistics.yaml\n").unwrap();
        declared.push(walk::declared_artifacts(&entry).len());
        tables.push((format!("s.t{i:03}"), table_dir, entry));
    }
    (tables, declared)
}

#[test]
fn only_a_scan_that_reads_every_file_names_them_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let (tables, declared) = statistics_tables(dir.path(), 100, |n, stats| {
        std::fs::write(stats, format!("rows: {n}\n")).unwrap();
    });
    let cold = read_all((&tables, &declared), "c", &Cold, &|_, _| {}, None);
    let warm = read_all((&tables, &declared), "c", &HoldsOthers, &|_, _| {}, None);
    assert_eq!((cold.named_ahead, warm.named_ahead), (100, 0));
    // Named ahead or not, the same records.
    let parsed = |read: ReadAll| -> Vec<(PathBuf, Scanned)> {
        let records = read.parts.into_iter().flatten();
        records.map(|r| (r.path, r.scanned)).collect()
    };
    let (cold, warm) = (parsed(cold), parsed(warm));
    assert_eq!(cold.len(), 100);
    assert_eq!(cold, warm);
}

#[cfg(unix)]
#[test]
fn a_cold_scan_over_a_fifo_where_a_file_should_be_neither_waits_nor_reads_it() {
    // A table's statistics.yaml is a FIFO no one writes to: opened to be named ahead, it
    // would wait for a writer for ever.
    let dir = tempfile::tempdir().unwrap();
    let (tables, declared) = statistics_tables(dir.path(), 3, |n, stats| {
        if n == 1 {
            let made = std::process::Command::new("mkfifo").arg(stats).status();
            assert!(made.unwrap().success());
        } else {
            std::fs::write(stats, format!("rows: {n}\n")).unwrap();
        }
    });
    let (sent, got) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let read = read_all((&tables, &declared), "c", &Cold, &|_, _| {}, None);
        let scanned: Vec<Scanned> = read
            .parts
            .into_iter()
            .flatten()
            .map(|r| r.scanned)
            .collect();
        let _ = sent.send((read.named_ahead, scanned));
    });
    let (named, scanned) = got
        .recv_timeout(Duration::from_secs(20))
        .expect("the scan ended");
    assert_eq!(
        named, 3,
        "each file asked for, the FIFO's asking being nothing"
    );
    assert_eq!(
        scanned[1],
        Scanned::Read(Parsed::Absent),
        "not a file: not read"
    );
    assert!(matches!(scanned[0], Scanned::Read(Parsed::Yaml(_))));
}

#[test]
fn a_diff_read_with_a_stash_is_split_into_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diff.yaml");
    let text = a_diff(ITEM_BATCH * 2 + 3);
    std::fs::write(&path, &text).unwrap();
    let stash = Kept::default();
    let record = read_file_unless(&path, "c", None, "diff", None, Some(&stash));
    let Scanned::Read(Parsed::Split(header)) = &record.scanned else {
        panic!("not split: {:?}", record.scanned);
    };
    assert_eq!(header.get(SPLIT_KEY), Some(&Value::seq(Vec::new())));
    let items = std::mem::take(&mut *stash.items.lock().unwrap());
    assert_eq!(items.len(), ITEM_BATCH * 2 + 3);
    let hash = record.hash.as_deref().unwrap();
    assert!(items
        .iter()
        .enumerate()
        .all(|(i, (h, ord, _))| h == hash && *ord == i as u64));
    let whole = yaml::load(&text).unwrap();
    let listed = whole.get(SPLIT_KEY).and_then(Value::as_seq).unwrap();
    assert!(items
        .iter()
        .zip(listed)
        .all(|((_, _, got), want)| got == want));
    // Without a stash, or for another kind, the file is parsed whole.
    let plain = read_file(&path, "c", None, "diff");
    assert_eq!(plain.scanned, Scanned::Read(Parsed::Yaml(whole.clone())));
    let other = read_file_unless(&path, "c", Some("t"), "statistics", None, Some(&stash));
    assert_eq!(other.scanned, Scanned::Read(Parsed::Yaml(whole)));
}

#[test]
fn a_stash_that_refuses_items_gets_the_file_parsed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diff.yaml");
    std::fs::write(&path, a_diff(ITEM_BATCH + 1)).unwrap();
    let stash = Kept {
        refuse_items: true,
        ..Kept::default()
    };
    let record = read_file_unless(&path, "c", None, "diff", None, Some(&stash));
    assert!(
        matches!(record.scanned, Scanned::Read(Parsed::Yaml(_))),
        "{:?}",
        record.scanned
    );
    // And a diff that does not parse keeps its exact error.
    std::fs::write(&path, "changes:\n- [1\n").unwrap();
    let broken = read_file_unless(&path, "c", None, "diff", None, Some(&Kept::default()));
    assert_eq!(broken.scanned, read_file(&path, "c", None, "diff").scanned);
    assert!(matches!(
        broken.scanned,
        Scanned::Read(Parsed::YamlError(_))
    ));
}
