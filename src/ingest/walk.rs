//! Which manifest entries a reader can follow (format spec §2.5): entries that are
//! mappings with a string `path`, whose path does not leave the connection root
//! lexically, and whose directories and declared files do not leave it through a
//! symlink. Computed at ingest, never on the request path.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::FileIdentity;
use compat::value::Value;

/// A table's artifact kind, as a manifest entry's `artifacts:` mapping names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Artifact {
    Ddl,
    Statistics,
    Relationships,
    Description,
    StatisticsAnnotations,
    RelationshipsAnnotations,
}

impl Artifact {
    /// Every kind, in manifest order.
    pub const ALL: [Artifact; 6] = [
        Artifact::Ddl,
        Artifact::Statistics,
        Artifact::Relationships,
        Artifact::Description,
        Artifact::StatisticsAnnotations,
        Artifact::RelationshipsAnnotations,
    ];

    /// The kind's key in the manifest (and in resource URIs and file rows).
    pub const fn name(self) -> &'static str {
        match self {
            Artifact::Ddl => "ddl",
            Artifact::Statistics => "statistics",
            Artifact::Relationships => "relationships",
            Artifact::Description => "description",
            Artifact::StatisticsAnnotations => "statistics_annotations",
            Artifact::RelationshipsAnnotations => "relationships_annotations",
        }
    }

    /// The kind's canonical file name.
    pub const fn file_name(self) -> &'static str {
        match self {
            Artifact::Ddl => "ddl.sql",
            Artifact::Statistics => "statistics.yaml",
            Artifact::Relationships => "relationships.yaml",
            Artifact::Description => "description.md",
            Artifact::StatisticsAnnotations => "statistics.annotations.yaml",
            Artifact::RelationshipsAnnotations => "relationships.annotations.yaml",
        }
    }

    /// The kind whose canonical file is named `file`.
    pub fn of_file(file: &str) -> Option<Artifact> {
        Artifact::ALL.into_iter().find(|a| a.file_name() == file)
    }
}

pub fn canonical_filename(kind: &str) -> Option<&'static str> {
    Artifact::ALL
        .into_iter()
        .find(|a| a.name() == kind)
        .map(Artifact::file_name)
}

/// The artifacts an entry declares under their canonical names, in its own order.
pub fn declared_artifacts(entry: &Value) -> Vec<(String, String)> {
    let Some(artifacts) = entry.get("artifacts").and_then(Value::as_map) else {
        return Vec::new();
    };
    artifacts
        .iter()
        .filter_map(|(k, v)| {
            let (kind, name) = (k.as_str()?, v.as_str()?);
            (canonical_filename(kind) == Some(name)).then(|| (kind.to_string(), name.to_string()))
        })
        .collect()
}

/// The path of every artifact table `fqn`'s entry declares, under the connection's `root`,
/// in the entry's order.
pub fn declared_paths(root: &Path, fqn: &str, entry: &Value) -> Vec<PathBuf> {
    let dir = root.join(table_path(fqn, entry));
    declared_artifacts(entry)
        .into_iter()
        .map(|(_, name)| dir.join(name))
        .collect()
}

/// A table's directory relative to the connection root: its `path`, or the FQN's slash form.
pub fn table_path(fqn: &str, entry: &Value) -> String {
    match entry.get("path").and_then(Value::as_str) {
        Some(p) if !p.is_empty() => p.to_string(),
        _ => fqn.replace('.', "/"),
    }
}

/// Absolute, a drive letter, or a `..` segment: forms no consumer follows.
fn leaves_lexically(path: &str) -> bool {
    let b = path.as_bytes();
    if b.first().is_some_and(|c| *c == b'/' || *c == b'\\') {
        return true;
    }
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return true;
    }
    path.split(['/', '\\']).any(|seg| seg == "..")
}

fn parts(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect()
}

/// Each path an entry passes through or opens, keyed as the link set is keyed.
fn opened_paths(fqn: &str, entry: &Value) -> Vec<(String, String)> {
    let path = table_path(fqn, entry);
    let segs = parts(&path);
    let mut out = Vec::new();
    for depth in 1..segs.len() {
        let key = segs[..depth].join("/");
        out.push((key.clone(), key));
    }
    out.push((segs.join("/"), path.clone()));
    for (_, name) in declared_artifacts(entry) {
        let mut key_parts = segs.clone();
        key_parts.push(&name);
        out.push((key_parts.join("/"), format!("{path}/{name}")));
    }
    out
}

/// Entries shaped for reading: a mapping whose `path`, when present, is a string.
fn shaped(manifest: &Value) -> Vec<(&Value, &Value)> {
    let Some(tables) = manifest.get("tables").and_then(Value::as_map) else {
        return Vec::new();
    };
    tables
        .iter()
        .filter(|(_, e)| {
            e.as_map().is_some() && e.get("path").is_none_or(|p| matches!(p, Value::Str(_)))
        })
        .map(|(k, v)| (k, v))
        .collect()
}

fn key_text(k: &Value) -> String {
    compat::py::str_of(k)
}

/// True when `path`, links followed, lies inside `root` (an unresolvable path never does).
pub fn contained(root: &Path, path: &Path) -> bool {
    let root = crate::config::absolute_resolved(root);
    crate::config::absolute_resolved(path).starts_with(&root)
}

/// What a walk of every directory below a root found about its symlinks; the manifest's
/// entries are checked against it afterwards, so the walk can run while the manifest is
/// still being read.
pub struct LinkWalk {
    found: HashSet<String>,
    symlinks_seen: usize,
    /// What the walk depended on, when every directory it met could be read; `fresh` when
    /// it was walked now (so worth keeping), not taken from a memo that still held.
    memo: Option<WalkMemo>,
    fresh: bool,
}

/// What a walk of a root depended on, kept so that a later start can tell without walking
/// again that its outcome still holds: every directory it read, with the identity it had
/// before the read (adding, removing or renaming an entry, a symlink included, moves a
/// directory's mtime), and every symlink it met, with where it resolved (a link may
/// resolve through paths outside the root, which no directory below it shows).
#[derive(Debug, Clone, PartialEq)]
pub struct WalkMemo {
    pub found: Vec<String>,
    pub symlinks_seen: usize,
    pub dirs: Vec<(PathBuf, FileIdentity)>,
    pub links: Vec<(PathBuf, PathBuf)>,
}

impl WalkMemo {
    /// Whether a walk now would find what this one found: every directory has its
    /// (settled) identity still, and every link resolves where it did.
    pub fn holds(&self) -> bool {
        // A `stat` per directory, over 100,000 on a large print, on as many threads as a
        // walk (from a dropped cache, each waits on the disk: 1.9 s on two threads at
        // 100,000 tables).
        let same = |dirs: &[(PathBuf, FileIdentity)]| {
            dirs.iter()
                .all(|(dir, id)| crate::ingest::identity(dir) == Some(*id))
        };
        let dirs_hold = super::parts::in_threads(&self.dirs, 4096, WALK_THREADS, same)
            .into_iter()
            .all(|held| held);
        dirs_hold
            && self
                .links
                .iter()
                .all(|(link, target)| crate::config::absolute_resolved(link) == *target)
    }

    /// A digest of what the walk found (the links resolving outside, how many links it
    /// met, where each resolved): with the manifest's bytes it decides the walkable
    /// entries, so it keys the walkable manifest a start reads back (`store::head`).
    pub fn outcome(&self) -> [u8; 32] {
        let mut found: Vec<&str> = self.found.iter().map(String::as_str).collect();
        found.sort_unstable();
        let mut links: Vec<(&Path, &Path)> = self
            .links
            .iter()
            .map(|(l, t)| (l.as_path(), t.as_path()))
            .collect();
        links.sort_unstable();
        let mut h = blake3::Hasher::new();
        h.update(&(self.symlinks_seen as u64).to_le_bytes());
        for text in found {
            h.update(&(text.len() as u64).to_le_bytes());
            h.update(text.as_bytes());
        }
        for (link, target) in links {
            for path in [link, target] {
                let text = path.to_string_lossy();
                h.update(&(text.len() as u64).to_le_bytes());
                h.update(text.as_bytes());
            }
        }
        *h.finalize().as_bytes()
    }

    /// The walk this memo stands for.
    fn into_walk(self) -> LinkWalk {
        LinkWalk {
            found: self.found.iter().cloned().collect(),
            symlinks_seen: self.symlinks_seen,
            memo: Some(self),
            fresh: false,
        }
    }
}

/// What walking `root` finds, from `memo` when it still holds, else by walking.
pub fn links_of(root: &Path, memo: Option<WalkMemo>) -> LinkWalk {
    match memo {
        Some(memo) if memo.holds() => memo.into_walk(),
        _ => walk_links(root),
    }
}

/// How many threads a walk reads a level's directories on: a walk of a print not in the
/// cache waits on the disk for each directory (at 100,000 tables, one thread took about 11 s
/// of a cold rebuild's start), so more threads than cores keep more reads under way.
const WALK_THREADS: usize = 8;

/// A directory a walk is to read: its path, and the chain of resolved directories that led
/// to it (a link back into the chain is not followed again).
type Pending = (PathBuf, Vec<PathBuf>);

/// What a walk read of some directories of one level: what [`walk_links`] gathers, and the
/// directories of the next level.
#[derive(Default)]
struct Level {
    found: Vec<String>,
    symlinks_seen: usize,
    /// Set once a directory or an entry could not be read or an identity was unsettled
    /// (then no memo is kept).
    incomplete: bool,
    dirs: Vec<(PathBuf, FileIdentity)>,
    links: Vec<(PathBuf, PathBuf)>,
    next: Vec<Pending>,
}

/// Read the directories `part` of one level below `root` (`resolved_root`, resolved).
fn read_level(root: &Path, resolved_root: &Path, part: &[Pending]) -> Level {
    let mut level = Level::default();
    for (dir, chain) in part {
        // Taken before the read: a change during it shows at the next comparison.
        let identity = crate::ingest::identity(dir);
        let Ok(entries) = std::fs::read_dir(dir) else {
            level.incomplete = true;
            continue;
        };
        // Only a settled identity can vouch for the directory later.
        match identity {
            Some(identity) if identity.settled => level.dirs.push((dir.clone(), identity)),
            _ => level.incomplete = true,
        }
        for entry in entries {
            let Ok(entry) = entry else {
                level.incomplete = true;
                continue;
            };
            let path = entry.path();
            let Ok(ft) = entry.file_type() else {
                level.incomplete = true;
                continue;
            };
            if ft.is_symlink() {
                level.symlinks_seen += 1;
                let target = crate::config::absolute_resolved(&path);
                level.links.push((path.clone(), target.clone()));
                if !target.starts_with(resolved_root) {
                    if let Ok(rel) = path.strip_prefix(root) {
                        level.found.push(rel.to_string_lossy().replace('\\', "/"));
                    }
                } else if target.is_dir() && !chain.contains(&target) {
                    let mut next = chain.clone();
                    next.push(target);
                    level.next.push((path, next));
                }
            } else if ft.is_dir() {
                let mut next = chain.clone();
                let last = chain.last().cloned().unwrap_or_default();
                next.push(last.join(entry.file_name()));
                level.next.push((path, next));
            }
        }
    }
    level
}

/// Walk every directory below `root` (links inside it followed once), noting each link
/// that resolves outside it. Level by level, each level's directories read on
/// [`WALK_THREADS`] threads; what it depends on is in the same order whatever the timing
/// (levels in turn, a level's parts in order, a directory's entries as it lists them).
pub fn walk_links(root: &Path) -> LinkWalk {
    let resolved_root = crate::config::absolute_resolved(root);
    let mut found = HashSet::new();
    let mut symlinks_seen = 0usize;
    let mut incomplete = false;
    let (mut dirs, mut links) = (Vec::new(), Vec::new());
    let mut pending: Vec<Pending> = vec![(root.to_path_buf(), vec![resolved_root.clone()])];
    while !pending.is_empty() {
        let read = |part: &[Pending]| read_level(root, &resolved_root, part);
        let parts = super::parts::in_threads(&pending, 64, WALK_THREADS, read);
        let mut next = Vec::new();
        for level in parts {
            found.extend(level.found);
            symlinks_seen += level.symlinks_seen;
            incomplete |= level.incomplete;
            dirs.extend(level.dirs);
            links.extend(level.links);
            next.extend(level.next);
        }
        pending = next;
    }
    let depends = (!incomplete).then_some((dirs, links));
    let memo = depends.map(|(dirs, links)| {
        let mut found: Vec<String> = found.iter().cloned().collect();
        found.sort();
        WalkMemo {
            found,
            symlinks_seen,
            dirs,
            links,
        }
    });
    LinkWalk {
        found,
        symlinks_seen,
        memo,
        fresh: true,
    }
}

impl LinkWalk {
    /// What this walk depended on, when it was walked now and could be kept.
    pub fn new_memo(&self) -> Option<&WalkMemo> {
        self.memo.as_ref().filter(|_| self.fresh)
    }

    /// [`WalkMemo::outcome`] of this walk, when every directory it met could be read.
    pub fn outcome(&self) -> Option<[u8; 32]> {
        self.memo.as_ref().map(WalkMemo::outcome)
    }

    /// The root-relative POSIX paths of links below `root` that resolve outside it: the
    /// links found, with every path an entry of `manifest` opens that leaves `root`.
    pub fn escaping(self, root: &Path, manifest: Option<&Value>) -> HashSet<String> {
        let LinkWalk {
            mut found,
            symlinks_seen,
            ..
        } = self;
        // Paths passing the lexical rule (no `..`, not absolute) can only leave the root
        // through a symlink; with none below the root, resolving each one is wasted work.
        if symlinks_seen == 0 {
            return found;
        }
        let Some(manifest) = manifest else {
            return found;
        };
        for (key, entry) in shaped(manifest) {
            let fqn = key_text(key);
            if leaves_lexically(&table_path(&fqn, entry)) {
                continue;
            }
            for (key, rel) in opened_paths(&fqn, entry) {
                if !contained(root, &root.join(&rel)) {
                    found.insert(key);
                }
            }
        }
        found
    }
}

fn linked_out(path: &str, entry: &Value, links: &HashSet<String>) -> bool {
    if links.is_empty() {
        return false;
    }
    let segs = parts(path);
    for depth in 1..=segs.len() {
        if links.contains(&segs[..depth].join("/")) {
            return true;
        }
    }
    let names: Vec<String> = declared_artifacts(entry)
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    for name in &names {
        let mut key = segs.clone();
        key.push(name);
        if links.contains(&key.join("/")) {
            return true;
        }
    }
    // Some readers join an absent `path` as the connection root itself.
    if !entry.get("path").is_some_and(Value::truthy) {
        return names.iter().any(|n| links.contains(n));
    }
    false
}

/// The FQNs (as text) of the entries a reader can follow, in manifest order.
pub fn walkable(manifest: &Value, links: &HashSet<String>) -> Vec<String> {
    shaped(manifest)
        .into_iter()
        .filter_map(|(k, entry)| {
            let fqn = key_text(k);
            let path = table_path(&fqn, entry);
            (!leaves_lexically(&path) && !linked_out(&path, entry, links)).then_some(fqn)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: Vec<(&str, Value)>) -> Value {
        Value::map(
            pairs
                .into_iter()
                .map(|(k, v)| (Value::Str(k.into()), v))
                .collect(),
        )
    }

    #[test]
    fn lexical_rule_refuses_paths_leaving_the_root() {
        for path in ["/etc", "\\x", "C:/x", "a/../b", "..", "a/.."] {
            assert!(leaves_lexically(path), "{path}");
        }
        for path in ["a/b/c", "a..b/c", "./a", "a/.b"] {
            assert!(!leaves_lexically(path), "{path}");
        }
    }

    #[test]
    fn walkable_keeps_followable_entries_in_manifest_order() {
        let entry = |path: Value| map(vec![("type", Value::Str("table".into())), ("path", path)]);
        let manifest = map(vec![(
            "tables",
            map(vec![
                ("z.ok", entry(Value::Str("z/ok".into()))),
                ("a.up", entry(Value::Str("../../etc".into()))),
                ("a.abs", entry(Value::Str("/etc".into()))),
                ("a.int", entry(Value::Int(42))),
                ("a.scalar", Value::Str("not a mapping".into())),
                ("a.nopath", map(vec![("type", Value::Str("view".into()))])),
            ]),
        )]);
        assert_eq!(
            walkable(&manifest, &HashSet::new()),
            vec!["z.ok".to_string(), "a.nopath".to_string()]
        );
        let links: HashSet<String> = ["z/ok".to_string()].into();
        assert_eq!(walkable(&manifest, &links), vec!["a.nopath".to_string()]);
    }

    #[test]
    fn only_canonical_artifact_names_are_declared() {
        let entry = map(vec![(
            "artifacts",
            map(vec![
                ("ddl", Value::Str("ddl.sql".into())),
                ("statistics", Value::Str("stats.yml".into())),
                ("unknown", Value::Str("x".into())),
            ]),
        )]);
        assert_eq!(
            declared_artifacts(&entry),
            vec![("ddl".to_string(), "ddl.sql".to_string())]
        );
        assert_eq!(table_path("a.b.c", &entry), "a/b/c");
        assert_eq!(
            declared_paths(Path::new("/print"), "a.b.c", &entry),
            vec![PathBuf::from("/print/a/b/c/ddl.sql")]
        );
    }

    /// Set a path's mtime a minute back, so its identity settles at once.
    #[cfg(unix)]
    fn age(path: &Path) {
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let dir = std::fs::File::open(path).unwrap();
        dir.set_modified(past).unwrap();
    }

    /// A root with a/b/c and x/y, every directory settled.
    #[cfg(unix)]
    fn settled_tree() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for dir in ["a/b/c", "x/y"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        for dir in ["a/b/c", "a/b", "a", "x/y", "x", ""] {
            age(&root.path().join(dir));
        }
        root
    }

    #[cfg(unix)]
    #[test]
    fn a_walk_memo_holds_until_a_directory_or_a_link_moves() {
        let root = settled_tree();
        let walked = walk_links(root.path());
        let memo = walked
            .new_memo()
            .cloned()
            .expect("a memo of a readable tree");
        assert_eq!(memo.dirs.len(), 6);
        assert!(memo.holds());
        // The memo stands for the walk it was taken from.
        let again = links_of(root.path(), Some(memo.clone()));
        assert!(again.new_memo().is_none(), "not walked again");
        assert_eq!(again.found, walked.found);

        // A link added below the root changes its directory: walked again, and found.
        std::os::unix::fs::symlink("/etc", root.path().join("a/b/out")).unwrap();
        assert!(!memo.holds());
        let walked = links_of(root.path(), Some(memo));
        assert!(walked.found.contains("a/b/out"), "{:?}", walked.found);
        // Not yet settled: nothing to keep.
        assert!(walked.new_memo().is_none());
        age(&root.path().join("a/b"));
        let walked = walk_links(root.path());
        let memo = walked.new_memo().cloned().expect("settled again");
        assert_eq!(memo.found, vec!["a/b/out".to_string()]);
        assert_eq!(memo.links.len(), 1);
        assert!(memo.holds());
    }

    #[cfg(unix)]
    #[test]
    fn a_walk_memo_fails_when_a_link_resolves_elsewhere_through_an_outside_path() {
        // root/a/in -> outside/hop, and outside/hop -> root/x: the link resolves inside
        // until the hop, outside the root, is pointed elsewhere.
        let root = settled_tree();
        let outside = tempfile::tempdir().unwrap();
        let hop = outside.path().join("hop");
        std::os::unix::fs::symlink(root.path().join("x"), &hop).unwrap();
        std::os::unix::fs::symlink(&hop, root.path().join("a/in")).unwrap();
        age(&root.path().join("a"));
        let walked = walk_links(root.path());
        assert!(walked.found.is_empty());
        let memo = walked.new_memo().cloned().expect("memo");
        assert!(memo.holds());
        std::fs::remove_file(&hop).unwrap();
        std::os::unix::fs::symlink("/etc", &hop).unwrap();
        assert!(!memo.holds());
        assert!(links_of(root.path(), Some(memo)).found.contains("a/in"));
    }

    #[cfg(unix)]
    #[test]
    fn a_walk_memo_fails_when_a_directory_is_gone_or_replaced() {
        let root = settled_tree();
        let memo = walk_links(root.path()).new_memo().cloned().expect("memo");
        // Replaced by a directory of the same name: another inode.
        std::fs::remove_dir(root.path().join("x/y")).unwrap();
        assert!(!memo.holds());
        std::fs::create_dir(root.path().join("x/y")).unwrap();
        age(&root.path().join("x/y"));
        age(&root.path().join("x"));
        assert!(!memo.holds());
        // Replaced by a link to where it was: the walk follows it, and it resolves inside.
        let memo = walk_links(root.path()).new_memo().cloned().expect("memo");
        std::fs::remove_dir(root.path().join("x/y")).unwrap();
        std::os::unix::fs::symlink(root.path().join("a"), root.path().join("x/y")).unwrap();
        age(&root.path().join("x"));
        assert!(!memo.holds());
    }

    #[cfg(unix)]
    #[test]
    fn a_memo_of_many_directories_is_checked_in_parts_and_fails_on_any_one() {
        let root = settled_tree();
        for i in 0..4100 {
            let dir = root.path().join(format!("x/d{i}"));
            std::fs::create_dir(&dir).unwrap();
            age(&dir);
        }
        age(&root.path().join("x"));
        let memo = walk_links(root.path()).new_memo().cloned().expect("memo");
        assert!(memo.dirs.len() > 4096, "checked in parts");
        assert!(memo.holds());
        // The last directory of the last part moves.
        let last = memo.dirs.last().unwrap().0.clone();
        std::fs::create_dir(last.join("new")).unwrap();
        assert!(!memo.holds());
    }

    #[cfg(unix)]
    #[test]
    fn a_wide_walk_on_many_threads_finds_each_link_once_in_the_same_order_every_time() {
        // 600 directories on one level, so that the level is read in several parts, each
        // tenth holding a link out of the root, each hundredth a link back to the root
        // and a directory below it.
        let root = settled_tree();
        let mut outside = Vec::new();
        for i in 0..600 {
            let dir = root.path().join(format!("x/d{i:03}"));
            std::fs::create_dir(&dir).unwrap();
            if i % 10 == 0 {
                std::os::unix::fs::symlink("/etc", dir.join("out")).unwrap();
                outside.push(format!("x/d{i:03}/out"));
            }
            if i % 100 == 0 {
                std::os::unix::fs::symlink(root.path(), dir.join("back")).unwrap();
                std::fs::create_dir(dir.join("below")).unwrap();
                age(&dir.join("below"));
            }
            age(&dir);
        }
        age(&root.path().join("x"));
        let walked = walk_links(root.path());
        let mut found: Vec<String> = walked.found.iter().cloned().collect();
        found.sort();
        assert_eq!(found, outside);
        let memo = walked
            .new_memo()
            .cloned()
            .expect("a memo of a readable tree");
        assert_eq!(memo.symlinks_seen, 60 + 6);
        // Each directory read once: the tree's 6, the 600 and the 6 below them; a link
        // back to the root is a loop, not followed.
        let mut paths: Vec<&PathBuf> = memo.dirs.iter().map(|(d, _)| d).collect();
        assert_eq!(paths.len(), 612);
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), 612, "no directory read twice");
        assert!(memo.holds());
        assert_eq!(walk_links(root.path()).new_memo(), Some(&memo));
    }

    #[test]
    fn a_walk_s_outcome_is_what_it_found_in_any_order() {
        let memo = |found: &[&str], links: &[(&str, &str)], seen| WalkMemo {
            found: found.iter().map(|f| f.to_string()).collect(),
            symlinks_seen: seen,
            dirs: vec![(
                PathBuf::from("/p/a"),
                FileIdentity {
                    mtime_ns: 1,
                    size: 0,
                    inode: 1,
                    settled: true,
                },
            )],
            links: links
                .iter()
                .map(|(l, t)| (PathBuf::from(l), PathBuf::from(t)))
                .collect(),
        };
        let links = [("/p/a/l", "/q"), ("/p/b/l", "/p/c")];
        let one = memo(&["a/l", "b/l"], &links, 2).outcome();
        let reversed = [links[1], links[0]];
        assert_eq!(one, memo(&["b/l", "a/l"], &reversed, 2).outcome());
        // The directories it met do not decide it; what it found does.
        let mut other_dirs = memo(&["a/l", "b/l"], &links, 2);
        other_dirs.dirs.clear();
        assert_eq!(one, other_dirs.outcome());
        assert_ne!(one, memo(&["a/l"], &links, 2).outcome());
        assert_ne!(one, memo(&["a/l", "b/l"], &links[..1], 2).outcome());
        assert_ne!(one, memo(&["a/l", "b/l"], &links, 3).outcome());
        assert_ne!(
            one,
            memo(&["a/l", "b/l"], &[("/p/a/l", "/q"), ("/p/b/l", "/p/d")], 2).outcome()
        );
    }
}
