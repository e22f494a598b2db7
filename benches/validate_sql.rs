//! validate_sql over a print: the bundled fixture by default, or a scaled print made by
//! `benches/make_scale_print.sh` when PRINTDEX_BENCH_PROJECT names it. A 40-line query
//! (three CTE-fed joins, a correlated EXISTS, value and type filters) is checked with the
//! catalog built, as every call after the first (or after serve's warm-up) meets it.
//!
//!   cargo bench --bench validate_sql
//!   PRINTDEX_BENCH_PROJECT=/tmp/printdex-scale-2000 cargo bench --bench validate_sql
//!
//! `*_cpu` repeats a case timing the thread's CPU clock instead of the wall clock: on a
//! shared machine the wall time counts the waits for a core, the CPU time only the work.
//!
//! The scaled prints clone every table as `<db>.<schema>_c<jjjj>.<table>`; the query reads
//! clone 0001 there (the fixture's own schemas otherwise).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

mod common;
use common::served;
use criterion::{criterion_group, criterion_main, Criterion};
use printdex::query::validate_sql;
use printdex::render::validate_sql as render;
use printdex::store::{Connection, Reads, Store};

/// 40 lines; `{c}` is the schema suffix of the clone read.
const QUERY: &str = "WITH recent_loans AS (
    SELECT l.loan_id, l.patron_id, l.book_id, l.copy_no, l.status,
           l.loaned_at, l.due_date, l.returned_on
    FROM lending{c}.loans l
    WHERE l.loaned_at >= TIMESTAMP '2024-01-01'
      AND l.status IN ('out', 'overdue', 'returned')
),
fines_per_loan AS (
    SELECT f.loan_id, sum(f.amount) AS total_fines, count(*) AS n_fines
    FROM lending{c}.fines f
    WHERE f.paid = FALSE
    GROUP BY f.loan_id
)
SELECT
    p.patron_id,
    p.full_name,
    p.status AS patron_status,
    br.name AS branch_name,
    b.title,
    a.display_name AS author,
    r.loan_id,
    r.due_date,
    coalesce(fl.total_fines, 0) AS fines,
    CASE WHEN r.returned_on IS NULL AND r.due_date < current_date
         THEN 'late' ELSE 'ok' END AS state
FROM recent_loans r
JOIN members{c}.patrons p ON p.patron_id = r.patron_id
JOIN lending{c}.copies c ON c.book_id = r.book_id AND c.copy_no = r.copy_no
JOIN catalog{c}.books b ON b.book_id = c.book_id
JOIN catalog{c}.authors a ON a.author_id = b.author_id
JOIN members{c}.branches br ON br.branch_id = c.branch_id
LEFT JOIN fines_per_loan fl ON fl.loan_id = r.loan_id
WHERE p.status IN ('active', 'Active')
  AND b.language = 'en'
  AND c.condition <> 'W'
  AND p.joined_on < DATE '2024-06-01'
  AND EXISTS (SELECT 1 FROM lending{c}.holds h
              WHERE h.patron_id = p.patron_id AND h.state = 'waiting')
ORDER BY fines DESC, p.full_name
LIMIT 100";

/// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Elsewhere the time since the first call: wall time, which counts waits too.
#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(served(), dir.path()).unwrap());
    let suffix = if std::env::var_os("PRINTDEX_BENCH_PROJECT").is_some() {
        "_c0001"
    } else {
        ""
    };
    let valid = QUERY.replace("{c}", suffix);
    assert_eq!(valid.lines().count(), 40);
    // The same query with a misspelt column, a join on no edge and a misspelt value.
    let mistakes = valid
        .replace("b.title,", "b.titel,")
        .replace("br.branch_id = c.branch_id", "br.branch_id = p.patron_id")
        .replace("h.state = 'waiting'", "h.state = 'waitng'");
    let state = store.fresh(Connection(None), Reads::Manifest).unwrap();
    // The catalog is built once per print content; every later call reuses it.
    let started = std::time::Instant::now();
    let catalog = validate_sql::catalog::catalog(&state).unwrap();
    eprintln!(
        "validate_sql catalog: {} tables, {} edges, built in {:?}",
        catalog.tables.len(),
        catalog.edges().count(),
        started.elapsed()
    );
    let checked = validate_sql::answer(&state, &valid).unwrap();
    assert!(checked.ok(), "{:?}", checked.findings);
    let found = validate_sql::answer(&state, &mistakes).unwrap();
    assert_eq!(found.findings.len(), 3, "{:?}", found.findings);

    let mut group = c.benchmark_group("validate_sql");
    group.sample_size(100);
    group.bench_function("valid_40_lines", |b| {
        b.iter(|| validate_sql::answer(&state, &valid).unwrap())
    });
    group.bench_function("valid_40_lines_cpu", |b| {
        b.iter_custom(|iters| {
            let started = thread_cpu();
            for _ in 0..iters {
                black_box(validate_sql::answer(&state, &valid).unwrap());
            }
            thread_cpu() - started
        })
    });
    group.bench_function("three_findings_40_lines", |b| {
        b.iter(|| validate_sql::answer(&state, &mistakes).unwrap())
    });
    // As the tool runs it: the connection's freshness check, the answer, the Markdown.
    group.bench_function("tool_call_40_lines", |b| {
        b.iter(|| {
            let state = store
                .fresh(Connection(None), Reads::EveryTableStatistics)
                .unwrap();
            render::markdown(&validate_sql::answer(&state, &mistakes).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
