//! The file map at a large print's size: filling it with every tracked path and looking
//! each up again, as a start's reconcile does several times over (409,094 paths at
//! 100,000 tables), beside a map keyed by `Arc<Path>` with the standard hasher, as the
//! file map was keyed before (`Path`'s own hash goes component by component).
//!
//!   cargo bench --bench file_map

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use printdex::ingest::FileIdentity;
use printdex::store::file_map::{FileMap, Tracked};

/// Paths shaped as a scaled print's: four files in each table's directory.
fn paths(tables: usize) -> Vec<PathBuf> {
    let root = Path::new("/tmp/printdex-scale-100000/prints/library/stacks");
    let files = [
        "statistics.yaml",
        "statistics.annotations.yaml",
        "relationships.yaml",
        "description.md",
    ];
    (0..tables)
        .flat_map(|t| {
            let dir = root
                .join(format!("lending_c{:04}", t / 25))
                .join(format!("loans_{t}"));
            files.map(|f| dir.join(f))
        })
        .collect()
}

fn identity(n: usize) -> FileIdentity {
    FileIdentity {
        mtime_ns: n as i64,
        size: 100,
        inode: n as u64,
        settled: true,
    }
}

fn bench(c: &mut Criterion) {
    let paths = paths(100_000);
    let mut group = c.benchmark_group("file_map");
    group.sample_size(10);
    group.bench_function("fill_and_look_up_400k", |b| {
        b.iter(|| {
            let mut map = FileMap::with_capacity(paths.len());
            for (i, p) in paths.iter().enumerate() {
                map.set(p, Some(identity(i)), None);
            }
            paths.iter().filter(|p| map.identity(p).is_some()).count()
        })
    });
    group.bench_function("fill_and_look_up_400k_path_hashed", |b| {
        b.iter(|| {
            let mut map: HashMap<Arc<Path>, Tracked> = HashMap::with_capacity(paths.len());
            for (i, p) in paths.iter().enumerate() {
                let tracked = Tracked {
                    identity: Some(identity(i)),
                    hash: None,
                };
                map.insert(Arc::from(p.as_path()), tracked);
            }
            paths
                .iter()
                .filter(|p| map.contains_key(p.as_path()))
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
