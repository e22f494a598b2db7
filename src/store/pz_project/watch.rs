//! The pz project's watcher: notify's debounced events below the project directory, and a
//! periodic tick, each refreshing the store off the request path (so a call after an edit
//! usually finds the new snapshot parsed and its answers warmed). Events are hints: a call
//! checks freshness itself.

use std::path::Path;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{new_debouncer, DebounceEventResult};

use super::ProjectStore;
use crate::ingest::pz_project::files::is_project_path;
use crate::store::watch::is_temporary;

const DEBOUNCE: Duration = Duration::from_millis(20);
/// The safety net for events the kernel never sent, as for prints.
const REFRESH_EVERY: Duration = Duration::from_secs(60);

/// Whether an event at `path` may change what pz reads: a project file, or a directory
/// that holds some (a rename of `pipelines/sub/` moves its files without an event each).
pub fn concerns(root: &Path, path: &Path) -> bool {
    if is_temporary(path) {
        return false;
    }
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let rel = rel.to_string_lossy();
    rel.is_empty()
        || is_project_path(&rel)
        || rel == "pipelines"
        || rel.starts_with("pipelines/") && !rel.ends_with(".sql") && !rel.contains('.')
        || matches!(
            rel.as_ref(),
            "sources" | "sinks" | ".pz" | ".pz/state" | ".pz/runs" | ".pz/target"
        )
        || rel
            .strip_prefix(".pz/runs/")
            .is_some_and(|rest| !rest.contains('/'))
}

/// Watch the project for the life of the process, on a thread of its own.
pub fn spawn(store: Arc<ProjectStore>) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("printdex-pz-watch".into())
        .spawn(move || run(&store))
        .expect("spawn the pz watcher thread")
}

fn run(store: &ProjectStore) {
    let (tx, rx) = channel();
    let debouncer = new_debouncer(DEBOUNCE, Some(DEBOUNCE), move |r: DebounceEventResult| {
        let _ = tx.send(r);
    });
    let _debouncer = match debouncer {
        Ok(mut d) => {
            if let Err(e) = d.watch(store.root(), RecursiveMode::Recursive) {
                tracing::warn!("cannot watch pz project {}: {e}", store.root().display());
            }
            Some(d)
        }
        Err(e) => {
            tracing::warn!("file watching unavailable ({e}); refreshing every {REFRESH_EVERY:?}");
            None
        }
    };
    loop {
        let wanted = match rx.recv_timeout(REFRESH_EVERY) {
            Ok(Ok(events)) => events
                .iter()
                .any(|e| e.paths.iter().any(|p| concerns(store.root(), p))),
            // Lost events, or the periodic tick.
            Ok(Err(_)) | Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(REFRESH_EVERY);
                true
            }
        };
        if wanted {
            if let Err(e) = store.refresh() {
                tracing::warn!(
                    "refreshing pz project {} failed: {e}",
                    store.root().display()
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_pz_reads_wakes_the_watcher() {
        let root = Path::new("/p");
        for yes in [
            "/p/project.yml",
            "/p/pipelines/a.sql",
            "/p/pipelines/sub",
            "/p/pipelines/configs/a.yml",
            "/p/.pz/runs/r1",
            "/p/.pz/runs/r1/run_results.json",
            "/p/.pz/state/watermarks.json",
        ] {
            assert!(concerns(root, Path::new(yes)), "{yes}");
        }
        for no in [
            "/p/data/orders.csv",
            "/p/out/x.parquet",
            "/p/.pz/runs/r1/staging.duckdb",
            "/p/.pz/runs/r1/run_results.json.tmp",
            "/p/pipelines/notes.md",
            "/q/project.yml",
        ] {
            assert!(!concerns(root, Path::new(no)), "{no}");
        }
    }
}
