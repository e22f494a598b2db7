//! search_columns and resolve_value over a print: the bundled fixture by default, or a
//! scaled print made by `benches/make_scale_print.sh` when PRINTDEX_BENCH_PROJECT names it.
//! Each call is a whole first page, fresh-state check included, as a client sees it.
//!
//!   cargo bench --bench search
//!   PRINTDEX_BENCH_PROJECT=/tmp/printdex-scale-2000 cargo bench --bench search
//!
//! The scaled prints clone every table as `<db>.<schema>_c<jjjj>.<table>`; resolve_value
//! asks `members_c0001.patrons.status` there (`members.patrons.status` in the fixture).

use std::sync::Arc;

use compat::value::Value;
mod common;
use common::{index_dir, served};
use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::{resolve_value, search_columns};
use printdex::render;
use printdex::store::search::lookup::Filters;
use printdex::store::search::Indexed;
use printdex::store::{Connection, Reads, Store};

fn args(pairs: &[(&str, &str)]) -> Value {
    Value::map(
        pairs
            .iter()
            .map(|(k, v)| (Value::Str(k.to_string()), Value::Str(v.to_string())))
            .collect(),
    )
}

fn bench(c: &mut Criterion) {
    let (_temporary, index) = index_dir();
    let store = Arc::new(Store::open(served(), &index).unwrap());
    let mut group = c.benchmark_group("search");
    group.sample_size(50);
    let searches: [(&str, Filters); 3] = [
        (
            "pattern",
            Filters {
                pattern: Some("*email*"),
                ..Default::default()
            },
        ),
        (
            "text",
            Filters {
                text: Some("legacy"),
                ..Default::default()
            },
        ),
        (
            "looks_like",
            Filters {
                looks_like: Some("email"),
                ..Default::default()
            },
        ),
    ];
    for (name, filters) in searches {
        let arguments = match name {
            "pattern" => args(&[("pattern", "*email*")]),
            "text" => args(&[("text", "legacy")]),
            _ => args(&[("looks_like", "email")]),
        };
        group.bench_function(format!("search_columns_{name}"), |b| {
            b.iter(|| {
                // As the tool does: every table's searched files are checked against the disk.
                let state = store
                    .fresh(Connection(None), Reads::EveryTableStatistics)
                    .unwrap();
                let mut matches =
                    search_columns::answer(&state, &search_columns::Request { filters }).unwrap();
                render::search_columns::page(&mut matches, &arguments, None).unwrap()
            })
        });
    }
    // The parts of one call: the stat sweep of the searched files, and the answer alone.
    group.bench_function("freshness_sweep", |b| {
        let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
        b.iter(|| state.search.moved_paths(Indexed::Statistics))
    });
    let arguments = args(&[("pattern", "*email*")]);
    group.bench_function("search_columns_pattern_answer_only", |b| {
        let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
        b.iter(|| {
            let request = search_columns::Request {
                filters: Filters {
                    pattern: Some("*email*"),
                    ..Default::default()
                },
            };
            let mut matches = search_columns::answer(&state, &request).unwrap();
            render::search_columns::page(&mut matches, &arguments, None).unwrap()
        })
    });
    let scaled = std::env::var_os("PRINTDEX_BENCH_PROJECT").is_some();
    let table = if scaled {
        "stacks.members_c0001.patrons"
    } else {
        "stacks.members.patrons"
    };
    let arguments = args(&[("table", table), ("column", "status"), ("text", "Active")]);
    group.bench_function("resolve_value", |b| {
        b.iter(|| {
            let state = store
                .fresh(Connection(None), Reads::TableStatistics(table))
                .unwrap();
            let resolution = resolve_value::answer(
                &state,
                &resolve_value::Request {
                    table,
                    column: "status",
                    part: None,
                    text: "Active",
                },
            )
            .unwrap();
            render::resolve_value::page(&resolution, &arguments, None).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
