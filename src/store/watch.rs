//! The watcher: the change feed's record of what moved below every served print root and
//! the served pz project, turned into a closed set of daemon events. Events are hints
//! only: `Changed` re-reads just the files it names (`Store::refresh_files`: re-stat,
//! re-hash what moved, re-parse what changed), falling back to a whole-connection
//! reconcile for what a per-file update cannot settle (the manifest, an untracked path);
//! `Rescan` (the feed cannot name what moved: a directory made or removed, a lost event)
//! and the periodic `Tick` reconcile every file; `CatchUp`, once the feed watches every
//! directory, `stat`s every file a connection tracks and re-reads what moved before it
//! did (`Store::catch_up`); `ProjectChanged` scans the pz project
//! again (`Store::refresh_project`: every file pz reads `stat`ed, what moved re-read).
//! While a private index stands in, the loop also tries the configured location again
//! (`Store::return_to_shared_index`) and, once it is back on it, reconciles everything.
//!
//! One watch for the whole daemon: the feed that lets calls skip their stat sweeps
//! (`changes`) is the one this loop reads, so every directory is watched once, and only
//! for writes (a recursive notify watch would also report every open, a flood that
//! overflows the kernel's queue on a large print).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::store::changes::Since;
use crate::store::Store;

/// How often the loop looks at the feed (each look is a wake-up, which is what idling
/// costs): a change is acted on within this of its write, then re-read and re-indexed in
/// ~20-50 ms on a 2,000-table print.
const LOOK_EVERY: Duration = Duration::from_millis(20);
/// How often everything is reconciled while the feed cannot vouch for the print (not set
/// up yet, or not every directory watched). Calls do not depend on it: each checks the
/// files its answer reads.
const RECONCILE_EVERY: Duration = Duration::from_secs(60);

/// Every trigger of work in the daemon loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DaemonEvent {
    /// Files below a connection's print root changed (hint).
    Changed {
        connection: String,
        paths: Vec<PathBuf>,
    },
    /// The feed cannot name what changed: reconcile the connection from scratch.
    Rescan { connection: String },
    /// The feed watches every directory now; what moved before it did (after the start's
    /// scan) is found by a `stat` of every file the connection tracks, and read again.
    CatchUp { connection: String },
    /// A file pz reads, or a directory that may hold some, moved below the served pz
    /// project (or the feed cannot say what moved): scan the project again.
    ProjectChanged,
    /// Periodic reconcile of every served connection and the project.
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

/// What the feed says moved, as daemon events: one per touched connection, then one for
/// the pz project at `project` (if one is served) when what moved concerns it.
pub fn classify(
    roots: &[(String, PathBuf)],
    project: Option<&Path>,
    since: Since,
) -> Vec<DaemonEvent> {
    let paths = match since {
        Since::Nothing => return Vec::new(),
        Since::Unknown => {
            return roots
                .iter()
                .map(|(c, _)| DaemonEvent::Rescan {
                    connection: c.clone(),
                })
                .chain(project.map(|_| DaemonEvent::ProjectChanged))
                .collect()
        }
        Since::Files(paths) => paths,
    };
    let mut out: Vec<DaemonEvent> = Vec::new();
    let mut project_changed = false;
    for path in paths {
        if is_temporary(&path) {
            continue;
        }
        project_changed |= project.is_some_and(|root| super::pz_project::concerns(root, &path));
        let Some(connection) = connection_of(roots, &path) else {
            continue;
        };
        match out
            .iter_mut()
            .find(|e| matches!(e, DaemonEvent::Changed { connection: c, .. } if *c == connection))
        {
            Some(DaemonEvent::Changed { paths, .. }) => paths.push(path),
            _ => out.push(DaemonEvent::Changed {
                connection,
                paths: vec![path],
            }),
        }
    }
    if project_changed {
        out.push(DaemonEvent::ProjectChanged);
    }
    out
}

/// Keep the store's mirror reconciled with what the change feed reports, on a thread of
/// its own, for the life of the process.
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
    let project = store.project_root().map(Path::to_path_buf);
    // The feed starts after the store's first scan, and vouches for a directory only once
    // it watches it. A change made before then is not in what the feed reports: once the
    // feed is complete, every connection catches up once (a `stat` of every file it
    // tracks, the manifest's declared but absent files included), so that such a change
    // is not missed for as long as the process runs.
    let mut seen: Option<u64> = None;
    let mut caught_up = false;
    let mut last_tick = Instant::now();
    loop {
        std::thread::sleep(LOOK_EVERY);
        let feed = store.change_feed();
        let mut events = match (feed, seen) {
            (Some(feed), Some(epoch)) if feed.stirred() => {
                let now = feed.poll();
                let since = feed.since(epoch);
                seen = Some(now);
                classify(&roots, project.as_deref(), since)
            }
            (Some(feed), None) => {
                seen = Some(feed.poll());
                Vec::new()
            }
            _ => Vec::new(),
        };
        if !caught_up && seen.is_some() && feed.is_some_and(|f| f.complete()) {
            caught_up = true;
            events.extend(roots.iter().map(|(connection, _)| DaemonEvent::CatchUp {
                connection: connection.clone(),
            }));
            events.extend(project.as_ref().map(|_| DaemonEvent::ProjectChanged));
        }
        // A private index stood in (the location was locked, removed mid-way or
        // unusable): go back to the location once it can be used, without waiting for a
        // write, and bring it up to date.
        if store.index_is_private() && store.return_to_shared_index() {
            events.extend(roots.iter().map(|(connection, _)| DaemonEvent::Rescan {
                connection: connection.clone(),
            }));
            events.extend(project.as_ref().map(|_| DaemonEvent::ProjectChanged));
        }
        if last_tick.elapsed() >= RECONCILE_EVERY {
            last_tick = Instant::now();
            // A feed that misses directories (or none at all) vouches for nothing there.
            if feed.is_some_and(|f| f.complete()) {
                compact(&store);
            } else {
                events.push(DaemonEvent::Tick);
            }
        }
        for event in events {
            handle(&store, &event);
        }
    }
}

fn compact(store: &Store) {
    if let Err(e) = store.compact_index() {
        tracing::warn!("compacting the search index failed: {e}");
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
        DaemonEvent::CatchUp { connection } => {
            if let Err(e) = store.catch_up(connection) {
                tracing::warn!("catching up with {connection} failed: {e}");
            }
        }
        DaemonEvent::ProjectChanged => refresh_project(store),
        DaemonEvent::Tick => {
            reconcile(store, None);
            refresh_project(store);
            compact(store);
        }
    }
    tracing::debug!(?event, elapsed = ?started.elapsed(), "handled");
}

/// Scan the served pz project again, if there is one; a failure is reported.
fn refresh_project(store: &Store) {
    if store.project_root().is_none() {
        return;
    }
    if let Err(e) = store.refresh_project() {
        tracing::warn!("refreshing the pz project failed: {e}");
    }
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

    #[test]
    fn the_feed_s_answers_become_daemon_events() {
        let roots = vec![
            ("a".to_string(), PathBuf::from("/p/a")),
            ("b".to_string(), PathBuf::from("/p/b")),
        ];
        assert_eq!(classify(&roots, None, Since::Nothing), Vec::new());
        assert_eq!(
            classify(&roots, None, Since::Unknown),
            vec![
                DaemonEvent::Rescan {
                    connection: "a".into()
                },
                DaemonEvent::Rescan {
                    connection: "b".into()
                },
            ]
        );
        let files = Since::Files(vec![
            PathBuf::from("/p/b/t/statistics.yaml"),
            PathBuf::from("/p/a/manifest.yaml"),
            PathBuf::from("/p/b/t/.statistics.yaml.tmp1"),
            PathBuf::from("/p/b/t/ddl.sql"),
            PathBuf::from("/elsewhere/x"),
        ]);
        assert_eq!(
            classify(&roots, None, files),
            vec![
                DaemonEvent::Changed {
                    connection: "b".into(),
                    paths: vec![
                        PathBuf::from("/p/b/t/statistics.yaml"),
                        PathBuf::from("/p/b/t/ddl.sql")
                    ],
                },
                DaemonEvent::Changed {
                    connection: "a".into(),
                    paths: vec![PathBuf::from("/p/a/manifest.yaml")],
                },
            ]
        );
    }

    #[test]
    fn a_change_pz_reads_becomes_one_project_event() {
        let roots = vec![("a".to_string(), PathBuf::from("/p/prints/a"))];
        let project = Some(Path::new("/p"));
        let files = Since::Files(vec![
            PathBuf::from("/p/data/orders.csv"),
            PathBuf::from("/p/pipelines/a.sql"),
            PathBuf::from("/p/prints/a/manifest.yaml"),
            PathBuf::from("/p/project.yml"),
        ]);
        assert_eq!(
            classify(&roots, project, files),
            vec![
                DaemonEvent::Changed {
                    connection: "a".into(),
                    paths: vec![PathBuf::from("/p/prints/a/manifest.yaml")],
                },
                DaemonEvent::ProjectChanged,
            ]
        );
        let unread = Since::Files(vec![PathBuf::from("/p/data/orders.csv")]);
        assert_eq!(classify(&[], project, unread), Vec::new());
        assert_eq!(
            classify(&[], project, Since::Unknown),
            vec![DaemonEvent::ProjectChanged]
        );
    }
}
