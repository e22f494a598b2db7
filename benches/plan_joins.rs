//! plan_joins' planner on a synthetic 10,000-table join graph shaped like a warehouse:
//! 100 subject areas of 100 tables, each area a few hub dimensions that most of its
//! tables refer to, chains of facts, and a few edges from each area to another area's
//! hubs, some inferred with weak evidence. Plans of 4 and 12 tables are made with the
//! graph built, as every call after the first meets it (the graph is kept per content).
//! The fixture print's own graph is planned too.
//!
//!   cargo bench --bench plan_joins

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::plan_joins::graph::Graph;
use printdex::query::plan_joins::{plan, Request, DEFAULT_MAX_HOPS};
use printdex::query::validate_sql::catalog::{Catalog, Column, Edge, Observed, Table};
use printdex::query::validate_sql::dialect::Adapter;

const AREAS: usize = 100;
const PER_AREA: usize = 100;

/// A deterministic pseudo-random sequence (no dependency for a bench's shape).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % below
    }
}

fn name(area: usize, t: usize) -> String {
    format!("wh.area{area:03}.t{t:03}")
}

fn warehouse() -> (Arc<Graph>, Arc<Catalog>) {
    let mut rng = Lcg(7);
    let column = |n: &str| Column {
        name: n.to_string(),
        stored: n.to_string(),
        sql_type: Some("BIGINT".into()),
        listed: false,
    };
    let mut tables = Vec::with_capacity(AREAS * PER_AREA);
    for a in 0..AREAS {
        for t in 0..PER_AREA {
            let cols = vec![
                column("id"),
                column("hub_id"),
                column("parent_id"),
                column("other_id"),
            ];
            tables.push(Table::new(
                Adapter::Postgres,
                &name(a, t),
                "table",
                Some(cols),
            ));
        }
    }
    let at = |a: usize, t: usize| a * PER_AREA + t;
    let edge =
        |from: usize, fc: &str, to: usize, detection: &str, observed: Option<Observed>| Edge {
            from,
            from_columns: vec![fc.to_string()],
            to,
            to_columns: vec!["id".to_string()],
            detection: detection.to_string(),
            note: None,
            observed,
            confirmed: false,
        };
    let weak = Some(Observed {
        fanout_avg: Some(12.0),
        fanout_max: Some(90.0),
        target_coverage: Some(0.4),
        containment: Some(0.8),
        coherent: Some(true),
        scope_compatible: Some(true),
    });
    let mut edges = Vec::new();
    for a in 0..AREAS {
        // Tables 0..5 are the area's hubs; every other table refers to one of them, and
        // to a parent fact before it.
        for t in 5..PER_AREA {
            edges.push(edge(
                at(a, t),
                "hub_id",
                at(a, rng.next(5)),
                "declared",
                None,
            ));
            if t > 10 {
                edges.push(edge(
                    at(a, t),
                    "parent_id",
                    at(a, 5 + rng.next(t - 5)),
                    "declared",
                    None,
                ));
            }
        }
        for _ in 0..3 {
            let other = rng.next(AREAS);
            edges.push(edge(
                at(a, 5 + rng.next(PER_AREA - 5)),
                "other_id",
                at(other, rng.next(5)),
                "inferred",
                weak,
            ));
        }
    }
    let cat = Catalog::new(Adapter::Postgres, tables, edges);
    (Arc::new(Graph::of(&cat)), Arc::new(cat))
}

fn request(tables: Vec<String>) -> Request {
    Request {
        tables,
        columns: Vec::new(),
        avoid: Vec::new(),
        max_hops: DEFAULT_MAX_HOPS,
    }
}

fn bench(c: &mut Criterion) {
    let started = std::time::Instant::now();
    let (graph, cat) = warehouse();
    eprintln!(
        "synthetic graph: {} tables, {} edges, built in {:.1} ms",
        graph.len(),
        graph.edges.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    let four = request(vec![name(3, 40), name(3, 77), name(3, 2), name(3, 95)]);
    let twelve = request((0..12).map(|i| name(3, 8 + i * 7)).collect());
    for (label, req) in [
        ("plan_joins 4 tables", &four),
        ("plan_joins 12 tables", &twelve),
    ] {
        let p = plan(graph.clone(), Some(cat.clone()), "wh", req).expect("the bench plans");
        eprintln!(
            "{label}: {} joins, {}, {} alternatives",
            p.best.hops.len(),
            p.method.name(),
            p.alternatives.len()
        );
        c.bench_function(label, |b| {
            b.iter(|| black_box(plan(graph.clone(), Some(cat.clone()), "wh", req).unwrap()))
        });
    }
    c.bench_function("plan_joins graph of 10,000 tables", |b| {
        b.iter(|| black_box(Graph::of(&cat)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).sample_size(30);
    targets = bench
}
criterion_main!(benches);
