//! What a call pays to know the disk has not moved under the state it answers from
//! (spec §7.1, issue 7), on the bundled fixture or a scaled print
//! (PRINTDEX_BENCH_PROJECT=/tmp/printdex-scale-2000, see benches/make_scale_print.sh):
//!
//! - `drain`: one non-blocking read of the inotify queue over the whole print (what
//!   search_columns pays per call when nothing changed);
//! - `stat table`: the identity check of one table's statistics files (what
//!   resolve_value and get_table_context pay per file they read);
//! - `stat sweep`: every searched file of every table (what a whole-print call would pay
//!   without the queue);
//! - `refresh one file`: a statistics.yaml rewritten, then re-read, stored and re-indexed
//!   alone (what the watcher or the next call does after a single-table change).
//!
//! A Watchman-style cookie (write a file into the watched tree, wait for its event) is not
//! measured: it writes into the user's print, which printdex never does, and it costs a
//! file creation plus a wake-up where the drain costs one `read`.

use std::path::PathBuf;

mod common;
use common::project;
use criterion::{criterion_group, criterion_main, Criterion};
use printdex::config::{self, Served};
use printdex::store::changes::ChangeFeed;
use printdex::store::search::Indexed;
use printdex::store::{Connection, Reads, Store};

/// A copy of the project, so the rewrites below never touch the original.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn bench(c: &mut Criterion) {
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&project(), copy.path());
    let project = config::load_at(&copy.path().to_string_lossy()).expect("bench project loads");
    let served = Served::resolve(&project, None).expect("a default connection");
    let roots: Vec<PathBuf> = served
        .connections
        .iter()
        .map(|c| c.print_root.clone())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(served, dir.path()).unwrap();
    let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
    let no_walk = printdex::store::changes::KnownDirs::default();
    let feed = ChangeFeed::watch(&roots, dir.path(), no_walk).expect("a change feed");
    let tables = &state.search.tables;
    let table = &tables[tables.len() / 2];

    let mut group = c.benchmark_group("freshness");
    group.sample_size(50);
    group.bench_function("drain", |b| b.iter(|| feed.poll()));
    group.bench_function("drain and name", |b| {
        b.iter(|| {
            let epoch = feed.poll();
            feed.since(epoch)
        })
    });
    group.bench_function("stat table", |b| b.iter(|| table.moved()));
    group.bench_function("stat sweep", |b| {
        b.iter(|| state.search.moved_paths(Indexed::Statistics))
    });

    // One table's statistics, rewritten in turn with two contents.
    let stats = table
        .stats
        .as_deref()
        .map(std::path::Path::to_path_buf)
        .expect("a statistics file");
    let original = std::fs::read_to_string(&stats).unwrap();
    let other = format!("{original}# touched\n");
    let name = state.config.name.clone();
    let mut flip = false;
    group.bench_function("refresh one file", |b| {
        b.iter(|| {
            flip = !flip;
            std::fs::write(&stats, if flip { &other } else { &original }).unwrap();
            store
                .refresh_files(&name, std::slice::from_ref(&stats))
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
