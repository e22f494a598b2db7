//! pz_docs_search latency: the n-gram index against pz's own per-query scan, on the real pz
//! docs (../shared/pz-docs, 83 pages, ~0.8 MB; the fixture when absent) and on a large
//! corpus generated from it (2,000 pages, ~20 MB), over the seed's queries.jsonl.
//!
//!   cargo bench --bench pz_docs
//!   PZ_BENCH_WRITE_CORPUS=/tmp/pz-large cargo bench --bench pz_docs   # also write the large corpus
//!
//! Besides criterion's figures it prints, per corpus, the median and p95 of single-query
//! latency over the query set (each query timed on its own, best of several runs).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::pz_docs::{search, search_scan};
use printdex::store::pz_docs::Catalog;

const LARGE_PAGES: usize = 2_000;
const LARGE_BYTES: usize = 20 * 1024 * 1024;

fn seed_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let real = root.join("../shared/pz-docs");
    if real.join("llms-full.txt").exists() {
        real
    } else {
        root.join("fixtures/pz-docs")
    }
}

fn read(dir: &Path, f: &str) -> String {
    String::from_utf8_lossy(&std::fs::read(dir.join(f)).expect("seed corpus file")).into_owned()
}

/// (query, limit) pairs of the seed's queries.jsonl.
fn queries(dir: &Path) -> Vec<(Option<String>, i64)> {
    read(dir, "queries.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("query line");
            (
                v["query"].as_str().map(str::to_string),
                v["limit"].as_i64().unwrap_or(10),
            )
        })
        .collect()
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The large corpus in the site's formats: pages whose bodies are runs of consecutive lines
/// taken from the seed's pages (so headings, fences, tables and prose keep their shares),
/// with sizes drawn from a long-tailed distribution (mean ~10 KB, up to ~60 KB).
pub fn generate_large(seed: &Catalog, pages: usize, bytes: usize) -> (String, String) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let sources: Vec<Vec<&str>> = seed
        .pages
        .iter()
        .map(|p| seed.body(p).split('\n').collect::<Vec<_>>())
        .filter(|l| l.len() > 4)
        .collect();
    let mean = bytes / pages;
    let mut index = String::from("# PipelineZ (pz) generated\n\n> A large benchmark corpus.\n\n");
    let mut full = String::from("# PipelineZ (pz) generated - complete documentation\n\n");
    let mut group = usize::MAX;
    for k in 0..pages {
        let g = k * 8 / pages;
        if g != group {
            group = g;
            index.push_str(&format!("\n## Group {g}\n\n"));
        }
        let template = &seed.pages[rng.below(seed.pages.len())];
        let slug = format!("gen/{}-{k}", template.slug.replace('/', "-"));
        let url = format!("https://pipelinez.dev/{slug}/");
        index.push_str(&format!(
            "- [{} ({k})]({url}): {}\n",
            template.title.replace(']', ""),
            template.description
        ));
        // Exponential tail around the mean, at least 1 KB, capped at 6x the mean.
        let size =
            (-(1.0 - rng.unit()).ln() * mean as f64).clamp(1024.0, 6.0 * mean as f64) as usize;
        let mut body = format!("# {}\n", template.title);
        while body.len() < size {
            let src = &sources[rng.below(sources.len())];
            let start = rng.below(src.len());
            let run = 5 + rng.below(35);
            for line in src.iter().skip(start).take(run) {
                body.push_str(line);
                body.push('\n');
            }
        }
        full.push_str(&format!("===== pz-doc: {slug} | {url} =====\n\n{body}\n"));
    }
    index.push_str(
        "\n## Full text\n\n- [All pages, full markdown](https://pipelinez.dev/llms-full.txt)\n",
    );
    (index, full)
}

/// Median and p95 over queries of each query's best-of-`runs` latency (the best run is the
/// one least disturbed by other work on the machine); the slowest queries go to stderr.
fn per_query(
    catalog: &Catalog,
    qs: &[(Option<String>, i64)],
    scan: bool,
    runs: usize,
) -> (Duration, Duration) {
    let timed: Vec<Duration> = qs
        .iter()
        .map(|(q, limit)| {
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    let r = if scan {
                        search_scan(catalog, q.as_deref(), *limit)
                    } else {
                        search(catalog, q.as_deref(), *limit)
                    };
                    std::hint::black_box(r.map(|h| h.len()).unwrap_or(0));
                    t.elapsed()
                })
                .min()
                .unwrap_or_default()
        })
        .collect();
    let mut slowest: Vec<(Duration, &Option<String>)> =
        timed.iter().copied().zip(qs.iter().map(|q| &q.0)).collect();
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    for (d, q) in slowest.iter().take(3) {
        eprintln!("    slow: {d:?} {q:?}");
    }
    let mut each = timed;
    each.sort();
    let at = |f: f64| each[((each.len() as f64 - 1.0) * f).round() as usize];
    (at(0.5), at(0.95))
}

fn bench(c: &mut Criterion) {
    let dir = seed_dir();
    let qs = queries(&dir);
    let tmp = tempfile::tempdir().expect("tempdir");
    let built = |name: &str, index: &str, full: String| {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        let t = Instant::now();
        let cat = Catalog::build(index, full, "https://pipelinez.dev", Some(&d)).expect("builds");
        eprintln!(
            "pz_docs[{name}]: {} pages, {:.1} MB, {} lines indexed in {:.2} s",
            cat.pages.len(),
            cat.full.len() as f64 / 1e6,
            cat.lines(),
            t.elapsed().as_secs_f64()
        );
        cat
    };
    let seed = built("seed", &read(&dir, "llms.txt"), read(&dir, "llms-full.txt"));
    let (index, full) = generate_large(&seed, LARGE_PAGES, LARGE_BYTES);
    if let Some(out) = std::env::var_os("PZ_BENCH_WRITE_CORPUS") {
        let out = PathBuf::from(out);
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("llms.txt"), &index).unwrap();
        std::fs::write(out.join("llms-full.txt"), &full).unwrap();
    }
    let large = built("large", &index, full);

    for (name, cat, scan_runs) in [("seed", &seed, 5), ("large", &large, 1)] {
        let (m, p) = per_query(cat, &qs, false, 20);
        eprintln!(
            "pz_docs[{name}] index: median {m:?}, p95 {p:?} per query ({} queries)",
            qs.len()
        );
        let (m, p) = per_query(cat, &qs, true, scan_runs);
        eprintln!("pz_docs[{name}] scan:  median {m:?}, p95 {p:?} per query");
    }

    let mut group = c.benchmark_group("pz_docs_search");
    group.sample_size(20);
    for (name, cat) in [("seed", &seed), ("large", &large)] {
        group.bench_function(format!("{name}/index/all_queries"), |b| {
            b.iter(|| {
                for (q, limit) in &qs {
                    std::hint::black_box(search(cat, q.as_deref(), *limit).ok());
                }
            })
        });
        for q in ["PZ0214", "connections.yml entities read write", "watermark"] {
            group.bench_function(format!("{name}/index/{q}"), |b| {
                b.iter(|| search(cat, Some(q), 10).unwrap())
            });
        }
    }
    group.sample_size(10);
    group.bench_function("seed/scan/all_queries", |b| {
        b.iter(|| {
            for (q, limit) in &qs {
                std::hint::black_box(search_scan(&seed, q.as_deref(), *limit).ok());
            }
        })
    });
    group.bench_function("large/scan/PZ0214", |b| {
        b.iter(|| search_scan(&large, Some("PZ0214"), 10).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
