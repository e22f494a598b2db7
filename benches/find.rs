//! find over a print: the bundled library fixture by default, or a scaled print made by
//! `benches/make_scale_print.sh` when PRINTDEX_BENCH_PROJECT names it. Each call is a
//! whole reply, fresh-state check included (`Reads::EveryTableFile`), as a client sees it;
//! `answer_only` leaves the check out.
//!
//!   cargo bench --bench find
//!   PRINTDEX_BENCH_PROJECT=/tmp/printdex-scale-10000 cargo bench --bench find
//!
//! `PRINTDEX_BENCH_INDEX` names an index directory to keep between runs (a 100,000-table
//! print is then indexed once, by the first run or by `printdex index rebuild`).

use std::sync::Arc;

mod common;
use common::{index_dir, served};
use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::find::{self, Request};
use printdex::render::find::{reply, Format};
use printdex::store::search::find::FindKind;
use printdex::store::{Connection, Reads, Store};

fn bench(c: &mut Criterion) {
    let (_temporary, index) = index_dir();
    let store = Arc::new(Store::open(served(), &index).unwrap());
    let mut group = c.benchmark_group("find");
    group.sample_size(50);
    let long = "overdue loans ".repeat(720);
    let cases: [(&str, &str, Vec<FindKind>, usize, Format); 5] = [
        ("words", "overdue loans", vec![], 10, Format::Md),
        ("misspelling", "patrn emial adress", vec![], 10, Format::Md),
        ("value", "suspended", vec![FindKind::Value], 10, Format::Md),
        ("json_50", "fines balance", vec![], 50, Format::Json),
        ("query_10000_chars", long.as_str(), vec![], 10, Format::Md),
    ];
    for (name, query, kinds, limit, format) in &cases {
        let request = Request {
            query: query.to_string(),
            kinds: kinds.clone(),
            limit: *limit,
        };
        group.bench_function(*name, |b| {
            b.iter(|| {
                let state = store
                    .fresh(Connection(None), Reads::EveryTableFile)
                    .unwrap();
                reply(&find::answer(&state, &request).unwrap(), *format)
            })
        });
    }
    let request = Request {
        query: "overdue loans".to_string(),
        kinds: vec![],
        limit: 10,
    };
    group.bench_function("words_answer_only", |b| {
        let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
        b.iter(|| reply(&find::answer(&state, &request).unwrap(), Format::Md))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
