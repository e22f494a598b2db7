//! Ingest and list_tables over a print: the bundled fixture by default, or a scaled
//! print made by `benches/make_scale_print.sh` when PRINTDEX_BENCH_PROJECT names it.
//!
//!   cargo bench --bench mirror
//!   PRINTDEX_BENCH_PROJECT=/tmp/printdex-scale-2000 cargo bench --bench mirror

use std::sync::Arc;

use compat::value::Value;
mod common;
use common::served;
use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::list_tables;
use printdex::render;
use printdex::store::{Connection, Reads, Store};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("mirror");
    group.sample_size(10);
    group.bench_function("ingest_cold", |b| {
        b.iter(|| {
            let dir = tempfile::tempdir().unwrap();
            Store::open(served(), dir.path()).unwrap()
        })
    });
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(served(), dir.path()).unwrap());
    group.bench_function("open_warm", |b| {
        b.iter(|| Store::open(served(), dir.path()).unwrap())
    });
    let store = Arc::new(Store::open(served(), dir.path()).unwrap());
    for detail in [false, true] {
        let args = Value::map(vec![(Value::Str("detail".into()), Value::Bool(detail))]);
        group.bench_function(format!("list_tables_detail_{detail}"), |b| {
            b.iter(|| {
                let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
                let request = list_tables::Request {
                    pattern: None,
                    detail,
                };
                let tables = list_tables::answer(&state, &request).unwrap();
                render::list_tables::page(&tables, &args, None).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
