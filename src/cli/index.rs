//! `printdex index rebuild|status|list|prune`: one project's index, and every index in
//! printdex's cache.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use super::{locate_project, refuse, IndexAction, IndexTarget, Located};
use crate::config::git::Checkouts;
use crate::config::{self, ProjectConfig, Served};
use crate::error::Recover;
use crate::store::owner::{self, Listed};
use crate::store::Store;

pub fn run(action: IndexAction) -> anyhow::Result<ExitCode> {
    match action {
        IndexAction::Rebuild(target) => rebuild(target),
        IndexAction::Status(target) => status(target),
        IndexAction::List => list(),
        IndexAction::Prune { dry_run } => prune(dry_run),
    }
}

/// The project and index directory a command works on, or the refusal to print.
fn target(target: &IndexTarget) -> Result<(Located, PathBuf), ExitCode> {
    let located = locate_project(target.project.as_deref(), &Checkouts::from_env())
        .map_err(|e| refuse(&format!("error: {e}")))?;
    let dir = target
        .index_dir
        .clone()
        .unwrap_or_else(|| config::default_index_dir(&located.project.project_root));
    Ok((located, dir))
}

/// Every configured connection, for the index commands.
fn all_connections(project: &ProjectConfig) -> Served {
    Served {
        connections: project.connections.clone(),
        default: None,
        configured: project.names_sorted(),
    }
}

/// Files counted as the progress bar counts them, per connection.
#[derive(Default)]
struct Counted {
    /// (connection, files) in the order the connections were read.
    connections: Vec<(String, usize)>,
}

impl Counted {
    /// Note `(connection, total)`; returns the files of the connections read before it.
    fn note(&mut self, connection: &str, total: usize) -> usize {
        match self.connections.iter().position(|(c, _)| c == connection) {
            Some(i) => {
                self.connections[i].1 = total;
                self.connections[..i].iter().map(|(_, n)| n).sum()
            }
            None => {
                let before = self.files();
                self.connections.push((connection.to_string(), total));
                before
            }
        }
    }

    fn files(&self) -> usize {
        self.connections.iter().map(|(_, n)| n).sum()
    }
}

fn rebuild(args: IndexTarget) -> anyhow::Result<ExitCode> {
    let (located, dir) = match target(&args) {
        Ok(t) => t,
        Err(code) => return Ok(code),
    };
    let project = located.project;
    let _ = std::fs::remove_dir_all(&dir);
    let started = std::time::Instant::now();
    // One bar over every connection: its last count is the summary's file count.
    let progress = indicatif::ProgressBar::new(0);
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} files ({per_sec}, {eta} left)",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let counted = Mutex::new(Counted::default());
    let store = Store::rebuild(
        all_connections(&project),
        &dir,
        &|connection, done, total| {
            let before = counted.lock().recover().note(connection, total);
            progress.set_message(format!("indexing {connection}"));
            progress.set_length((before + total) as u64);
            progress.set_position((before + done) as u64);
        },
    )?;
    progress.finish_and_clear();
    if store.index_is_private() {
        // Serving falls back to a private index; a rebuild that cannot write the one it
        // was asked for has nothing to leave behind.
        store.close();
        return Ok(refuse(&format!(
            "error: cannot rebuild the index at {}: it cannot be used (see the warning above)",
            dir.display()
        )));
    }
    let locator = args.project.as_deref().filter(|_| located.remote.is_some());
    owner::record(&dir, &owner::Owner::now(&project.config_path, locator))?;
    let (_, tables, bytes) = store.counts()?;
    let columns = store.indexed_columns()?;
    store.close();
    drop(store);
    crate::store::memory::release_freed();
    keep_first_calls(all_connections(&project), &dir);
    let counted = counted.into_inner().recover();
    // The bar is drawn on a terminal only; elsewhere (a CI log) its final counts are lines.
    if !std::io::stderr().is_terminal() {
        for (connection, files) in &counted.connections {
            eprintln!("indexing {connection}: {files}/{files} files");
        }
    }
    eprintln!(
        "indexed {} connection(s): {tables} tables, {columns} columns, {} files, {:.1} MiB in {:.2} s -> {}",
        project.connections.len(),
        counted.files(),
        bytes as f64 / 1_048_576.0,
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Start on the rebuilt index as the next server will, and make what its first calls
/// would otherwise wait for (get_diff's prepared diff, get_table_context's overlay,
/// validate_sql's catalog, plan_joins' graph, the resource listing), kept in the index for
/// every session after. A rebuild keeps no snapshot, so this is a start of its own, from
/// the head and image the rebuild kept. Nothing here is needed to serve: a failure is
/// said, and the first session makes them instead.
fn keep_first_calls(served: Served, dir: &Path) {
    let started = std::time::Instant::now();
    tracing::debug!("keeping what a session's first calls read");
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.set_message("keeping what a session's first calls read");
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    match Store::open_started(served, dir) {
        Ok(store) => {
            super::serve::make_unkept(&store, crate::query::Warm::Everything);
            store.close();
        }
        Err(e) => spinner
            .suspend(|| eprintln!("warning: cannot keep what a session's first calls read: {e}")),
    }
    spinner.finish_and_clear();
    tracing::debug!(elapsed = ?started.elapsed(), "kept what a session's first calls read");
}

/// At most this many absent files are named per connection.
const NAMED_AT_MOST: usize = 10;

fn status(args: IndexTarget) -> anyhow::Result<ExitCode> {
    let (located, dir) = match target(&args) {
        Ok(t) => t,
        Err(code) => return Ok(code),
    };
    let project = located.project;
    // Read only: reporting never reconciles, rebuilds or resets anything.
    let Some(mirror) = crate::store::mirror::Mirror::inspect(&dir)? else {
        println!("index: none at {} (built at the next start)", dir.display());
        return Ok(ExitCode::SUCCESS);
    };
    println!("index: {}", mirror.path.display());
    if !mirror.current {
        println!("format: older than this printdex; rebuilt at the next start");
        return Ok(ExitCode::SUCCESS);
    }
    // What is reported is verified first: a damaged part is named, never counted.
    let search = crate::store::search::inspect(&dir.join("search"));
    for (part, damage) in [("mirror", &mirror.damage), ("search index", &search)] {
        if let Some(damage) = damage {
            println!("{part}: damaged ({damage}); set aside and rebuilt at the next start");
        }
    }
    if mirror.damage.is_some() {
        return Ok(ExitCode::SUCCESS);
    }
    if search.is_none() {
        println!("checked: mirror and search index intact");
    }
    let files: i64 = mirror.connections.iter().map(|c| c.files).sum();
    println!(
        "files: {files}  tables: {}  size: {:.1} MiB",
        mirror.tables,
        mirror.bytes as f64 / 1_048_576.0
    );
    let now = now_secs();
    for conn in &project.connections {
        let Some(c) = mirror.connections.iter().find(|c| c.name == conn.name) else {
            println!(
                "{}: not indexed yet, print {}",
                conn.name,
                conn.print_root.display()
            );
            continue;
        };
        println!(
            "{}: {} files ({} unparseable, {}), print {}",
            c.name,
            c.files,
            c.unparseable,
            absent_list(&c.absent, &conn.print_root),
            conn.print_root.display()
        );
        if let Some(last) = &c.last_reconcile {
            let field = |k: &str| last.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
            println!(
                "  last reconcile: {} s ago, {} files checked, {} read again, {} ms",
                now.saturating_sub(field("at")),
                field("files"),
                field("reread"),
                field("ms")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `none absent`, or `2 absent: diff.yaml, reading.md` (relative to the print root).
fn absent_list(absent: &[PathBuf], root: &Path) -> String {
    if absent.is_empty() {
        return "none absent".into();
    }
    let mut names: Vec<String> = absent
        .iter()
        .take(NAMED_AT_MOST)
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    if absent.len() > NAMED_AT_MOST {
        names.push(format!("and {} more", absent.len() - NAMED_AT_MOST));
    }
    format!("{} absent: {}", absent.len(), names.join(", "))
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `12 s ago`, `5 min ago`, `3 h ago`, `2 days ago`.
fn ago(seconds: u64) -> String {
    match seconds {
        s if s < 120 => format!("{s} s ago"),
        s if s < 2 * 3600 => format!("{} min ago", s / 60),
        s if s < 2 * 86400 => format!("{} h ago", s / 3600),
        s => format!("{} days ago", s / 86400),
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

/// Who an index belongs to, as `list` and `prune` name it.
fn project_of(listed: &Listed) -> String {
    match &listed.owner {
        None => "unknown project (an index from before printdex recorded it)".into(),
        Some(o) => match &o.address {
            Some(address) => address.clone(),
            None => o.config.parent().unwrap_or(&o.config).display().to_string(),
        },
    }
}

fn list() -> anyhow::Result<ExitCode> {
    let root = config::cache_root();
    let indexes = owner::list(&root);
    if indexes.is_empty() {
        println!("no indexes in {}", root.display());
        return Ok(ExitCode::SUCCESS);
    }
    println!("{} index(es) in {}:", indexes.len(), root.display());
    let now = now_secs();
    for listed in &indexes {
        let name = listed.dir.file_name().unwrap_or_default().to_string_lossy();
        let (last_use, state) = match &listed.owner {
            Some(o) => (
                ago(now.saturating_sub(o.last_used)),
                if o.project_exists() { "exists" } else { "gone" },
            ),
            None => ("unknown".into(), "unknown"),
        };
        println!(
            "{name}  {:>9}  last used {last_use:<12}  project {state:<7} {}",
            mib(listed.bytes),
            project_of(listed)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn prune(dry_run: bool) -> anyhow::Result<ExitCode> {
    let root = config::cache_root();
    let mut freed = 0u64;
    let mut removed = 0usize;
    let mut failed = 0usize;
    for listed in owner::list(&root).iter().filter(|l| l.project_gone()) {
        let what = format!(
            "{} ({}, project {} is gone)",
            listed.dir.display(),
            mib(listed.bytes),
            project_of(listed)
        );
        if listed.in_use() {
            println!("kept {what}: a server is writing it");
            continue;
        }
        if dry_run {
            println!("would remove {what}");
        } else if let Err(e) = std::fs::remove_dir_all(&listed.dir) {
            // Another index may still go; this one is said and left (exit 1 at the end).
            eprintln!("error: cannot remove {what}: {e}");
            failed += 1;
            continue;
        } else {
            println!("removed {what}");
        }
        freed += listed.bytes;
        removed += 1;
    }
    match (removed, dry_run) {
        (0, _) => println!("nothing to prune in {}", root.display()),
        (n, true) => println!("would prune {n} index(es), {}", mib(freed)),
        (n, false) => println!("pruned {n} index(es), {} freed", mib(freed)),
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_count_on_from_the_ones_before() {
        let mut counted = Counted::default();
        assert_eq!(counted.note("a", 4), 0);
        assert_eq!(counted.note("a", 49), 0);
        assert_eq!(counted.note("b", 10), 49);
        assert_eq!(counted.note("b", 12), 49);
        assert_eq!(counted.files(), 61);
    }

    #[test]
    fn absent_files_are_named_relative_to_the_print() {
        let root = Path::new("/p/prints/c");
        assert_eq!(absent_list(&[], root), "none absent");
        assert_eq!(
            absent_list(&[root.join("diff.yaml"), root.join("a/b/ddl.sql")], root),
            "2 absent: diff.yaml, a/b/ddl.sql"
        );
        let many: Vec<PathBuf> = (0..12).map(|i| root.join(format!("{i}.sql"))).collect();
        assert!(absent_list(&many, root).ends_with(", 9.sql, and 2 more"));
    }
}
