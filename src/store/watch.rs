//! The watcher: notify's debounced events over every served print root, turned into a
//! closed set of daemon events. Events are hints only: `Changed` re-reads just the files
//! it names (`Store::refresh_files`: re-stat, re-hash what moved, re-parse what changed),
//! falling back to a whole-connection reconcile for what a per-file update cannot settle
//! (the manifest, a directory, an untracked path); `Rescan` (events were lost) and the
//! periodic `Tick` reconcile every file, since inotify can miss a file written into a
//! directory created a moment before.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult};

use crate::store::Store;

/// How long events settle before they are acted on, and how often the debouncer looks
/// (each look is a wake-up, which is what idling costs): a change is acted on 20-40 ms
/// after its last event, then re-read and re-indexed in ~20-50 ms on a 2,000-table print.
const DEBOUNCE: Duration = Duration::from_millis(20);
const DEBOUNCE_TICK: Duration = Duration::from_millis(20);
/// How often everything is reconciled regardless of events: a safety net for events the
/// kernel never sent (files written into a directory before its watch existed). Calls do
/// not depend on it: each checks the files its answer reads.
const RECONCILE_EVERY: Duration = Duration::from_secs(60);

/// Every trigger of work in the daemon loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DaemonEvent {
    /// Files below a connection's print root changed (hint).
    Changed {
        connection: String,
        paths: Vec<PathBuf>,
    },
    /// The watcher lost events (queue overflow): reconcile the connection from scratch.
    Rescan { connection: String },
    /// Periodic reconcile of every served connection.
    Tick,
}

/// Editor and atomic-write temporary names: the final rename is what counts.
pub fn is_temporary(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.ends_with('~')
        || name.starts_with(".#")
        || name == "4913"
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || (name.starts_with('.') && name.contains(".tmp"))
        || name.ends_with(".tmp")
}

/// The connection whose print root holds `path`.
fn connection_of(roots: &[(String, PathBuf)], path: &Path) -> Option<String> {
    roots
        .iter()
        .find(|(_, root)| path.starts_with(root))
        .map(|(name, _)| name.clone())
}

/// Turn one debounced batch into daemon events, one per touched connection.
pub fn classify(roots: &[(String, PathBuf)], batch: DebounceEventResult) -> Vec<DaemonEvent> {
    let mut out: Vec<DaemonEvent> = Vec::new();
    let events = match batch {
        Ok(events) => events,
        // Errors (e.g. a queue overflow) mean events were lost: rescan everything.
        Err(_) => {
            return roots
                .iter()
                .map(|(c, _)| DaemonEvent::Rescan {
                    connection: c.clone(),
                })
                .collect()
        }
    };
    for event in events {
        if event.need_rescan() {
            for (c, _) in roots {
                if !out.contains(&DaemonEvent::Rescan {
                    connection: c.clone(),
                }) {
                    out.push(DaemonEvent::Rescan {
                        connection: c.clone(),
                    });
                }
            }
            continue;
        }
        if matches!(event.kind, EventKind::Access(_)) {
            continue;
        }
        for path in &event.paths {
            if is_temporary(path) {
                continue;
            }
            let Some(connection) = connection_of(roots, path) else {
                continue;
            };
            match out.iter_mut().find(
                |e| matches!(e, DaemonEvent::Changed { connection: c, .. } if *c == connection),
            ) {
                Some(DaemonEvent::Changed { paths, .. }) => paths.push(path.clone()),
                _ => out.push(DaemonEvent::Changed {
                    connection,
                    paths: vec![path.clone()],
                }),
            }
        }
    }
    out
}

/// Watch every served print root and keep the store's mirror reconciled, on a thread
/// of its own, for the life of the process. A root that cannot be watched (absent) is
/// covered by the periodic tick and the per-call freshness check.
pub fn spawn(store: Arc<Store>) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("printdex-watch".into())
        .spawn(move || run(store))
        .expect("spawn the watcher thread")
}

fn run(store: Arc<Store>) {
    let roots: Vec<(String, PathBuf)> = store
        .served
        .connections
        .iter()
        .map(|c| (c.name.clone(), c.print_root.clone()))
        .collect();
    let (tx, rx) = channel();
    let mut debouncer = match new_debouncer(
        DEBOUNCE,
        Some(DEBOUNCE_TICK),
        move |r: DebounceEventResult| {
            let _ = tx.send(r);
        },
    ) {
        Ok(d) => Some(d),
        Err(e) => {
            tracing::warn!(
                "file watching unavailable ({e}); reconciling every {RECONCILE_EVERY:?} instead"
            );
            None
        }
    };
    if let Some(d) = debouncer.as_mut() {
        for (name, root) in &roots {
            if let Err(e) = d.watch(root, RecursiveMode::Recursive) {
                tracing::warn!("cannot watch {} for connection {name}: {e}", root.display());
            }
        }
    }
    loop {
        let events = match rx.recv_timeout(RECONCILE_EVERY) {
            Ok(batch) => classify(&roots, batch),
            Err(RecvTimeoutError::Timeout) => vec![DaemonEvent::Tick],
            Err(RecvTimeoutError::Disconnected) => {
                // No watcher: keep the periodic reconcile.
                std::thread::sleep(RECONCILE_EVERY);
                vec![DaemonEvent::Tick]
            }
        };
        for event in events {
            handle(&store, &event);
        }
    }
}

fn handle(store: &Store, event: &DaemonEvent) {
    let started = std::time::Instant::now();
    match event {
        // Only the files named are read again, unless they change what the manifest
        // implies (then the store reconciles the whole connection).
        DaemonEvent::Changed { connection, paths } => {
            if let Err(e) = store.refresh_files(connection, paths) {
                tracing::warn!("re-reading changed files of {connection} failed: {e}");
            }
        }
        DaemonEvent::Rescan { connection } => reconcile(store, Some(connection)),
        DaemonEvent::Tick => {
            reconcile(store, None);
            if let Err(e) = store.compact_index() {
                tracing::warn!("compacting the search index failed: {e}");
            }
        }
    }
    tracing::debug!(?event, elapsed = ?started.elapsed(), "handled");
}

/// Reconcile one served connection, or all of them; a failure is reported and the
/// others still reconciled.
fn reconcile(store: &Store, only: Option<&str>) {
    for conn in &store.served.connections {
        if only.is_some_and(|name| name != conn.name) {
            continue;
        }
        if let Err(e) = store.reconcile(conn) {
            tracing::warn!("reconcile of {} failed: {e}", conn.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_ignored() {
        for name in [
            ".statistics.yaml.tmp123",
            "manifest.yaml~",
            ".#manifest.yaml",
            "4913",
            ".x.swp",
            "a.tmp",
        ] {
            assert!(is_temporary(Path::new(name)), "{name}");
        }
        for name in ["manifest.yaml", "statistics.yaml", "ddl.sql", "tmp"] {
            assert!(!is_temporary(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn paths_map_to_their_connection() {
        let roots = vec![
            ("a".to_string(), PathBuf::from("/p/prints/a")),
            ("ab".to_string(), PathBuf::from("/p/prints/ab")),
        ];
        assert_eq!(
            connection_of(&roots, Path::new("/p/prints/ab/x/statistics.yaml")),
            Some("ab".into())
        );
        assert_eq!(
            connection_of(&roots, Path::new("/p/prints/a/manifest.yaml")),
            Some("a".into())
        );
        assert_eq!(connection_of(&roots, Path::new("/p/other")), None);
    }
}
