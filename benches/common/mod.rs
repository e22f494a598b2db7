//! What the criterion benches share: the project they measure. Each bench is a crate of
//! its own and uses what it needs of this.
#![allow(dead_code)]

use std::path::PathBuf;

use printdex::config::{self, Served};

/// The project a bench measures: `PRINTDEX_BENCH_PROJECT` (a scale print), or the library
/// fixture.
pub fn project() -> PathBuf {
    std::env::var_os("PRINTDEX_BENCH_PROJECT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/library"))
}

/// The project's default connection, as `serve` would serve it.
pub fn served() -> Served {
    let project = config::load_at(&project().to_string_lossy()).expect("bench project loads");
    Served::resolve(&project, None).expect("bench project has a default connection")
}

/// Where a bench keeps its index: `PRINTDEX_BENCH_INDEX` (kept between runs, so a large
/// print is indexed once), or a temporary directory made for the run (held by the first).
pub fn index_dir() -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("PRINTDEX_BENCH_INDEX") {
        Some(dir) => (None, PathBuf::from(dir)),
        None => {
            let dir = tempfile::tempdir().expect("a temporary index directory");
            let path = dir.path().to_path_buf();
            (Some(dir), path)
        }
    }
}
