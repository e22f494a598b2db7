//! get_table_context over a print: the bundled fixture by default, or a scaled print made by
//! `benches/make_scale_print.sh` when PRINTDEX_BENCH_PROJECT names it. Each benchmark is one
//! page of one call on a warm store (index built, parsed files cached), the way a server
//! answers after its first call.
//!
//!   cargo bench --bench context
//!   PRINTDEX_BENCH_PROJECT=/tmp/printdex-scale-2000 cargo bench --bench context

use compat::value::Value;
mod common;
use common::{index_dir, served};
use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::context;
use printdex::render::context::{self as reply, Format, Options};
use printdex::store::{Connection, Reads, Store};

/// The scaled print renames schemas `<schema>_c<jjjj>`; the fixture keeps them bare.
fn table(short: &str) -> String {
    let scaled = std::env::var_os("PRINTDEX_BENCH_PROJECT").is_some();
    let (schema, name) = short.split_once('.').unwrap_or(("", short));
    if scaled {
        format!("stacks.{schema}_c0001.{name}")
    } else {
        format!("stacks.{schema}.{name}")
    }
}

fn bench(c: &mut Criterion) {
    let (_temporary, index) = index_dir();
    let store = Store::open(served(), &index).unwrap();
    let mut group = c.benchmark_group("get_table_context");
    group.sample_size(20);
    for short in ["catalog.books", "members.patrons", "lending.v_open_loans"] {
        let fqn = table(short);
        for query in [false, true] {
            for (format, name) in [
                (Format::Md, "md"),
                (Format::Json, "json"),
                (Format::Yaml, "yaml"),
            ] {
                let purpose = if query { "query" } else { "profile" };
                let args = Value::map(vec![
                    (Value::Str("table".into()), Value::Str(fqn.clone())),
                    (Value::Str("purpose".into()), Value::Str(purpose.into())),
                    (Value::Str("format".into()), Value::Str(name.into())),
                ]);
                let options = Options {
                    query,
                    include_description: true,
                    include_annotations: true,
                    include_stats: true,
                    include_relationships: true,
                };
                let call = || {
                    let context = store
                        .answer(Connection(None), Reads::CheckedAsRead, |s, strict| {
                            context::answer(s, &fqn, strict)
                        })
                        .unwrap();
                    reply::page(&context, format, &options, &args, None).unwrap()
                };
                call();
                group.bench_function(format!("{short}/{purpose}/{name}"), |b| b.iter(call));
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
