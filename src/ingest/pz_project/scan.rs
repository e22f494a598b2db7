//! A pz project as it is on disk now, read against what an earlier read knew (the mirror at
//! startup, the last snapshot after): every file pz reads is `stat`ed; one whose settled
//! identity is the known one is not read again, and one read again whose bytes hash as
//! known keeps counting as unchanged. The store persists what moved and parses the result.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::files::ProjectFiles;
use super::walk::project_paths;
use crate::ingest::{clock_ns, FileIdentity};

/// One file as an earlier read knew it.
#[derive(Debug, Clone)]
pub struct KnownFile {
    pub identity: FileIdentity,
    /// blake3 of `bytes`, hex.
    pub hash: String,
    pub bytes: Arc<[u8]>,
}

/// One file as the scan found it.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    pub rel: String,
    pub file: KnownFile,
    /// Its bytes differ from what was known (or nothing was known of it).
    pub changed: bool,
    /// Its identity differs from the known one (a touch, a rewrite, a settling).
    pub moved: bool,
}

/// Every file pz reads, in path order.
#[derive(Debug, Clone, Default)]
pub struct ProjectScan {
    pub files: Vec<ScannedFile>,
}

impl ProjectScan {
    /// Whether the project's content differs from `known`'s: a file changed, appeared or
    /// went.
    pub fn content_differs(&self, known_files: usize) -> bool {
        self.files.len() != known_files || self.files.iter().any(|f| f.changed)
    }

    /// The files as the parsers read them.
    pub fn view(&self, root: &Path) -> ProjectFiles {
        let mut view = ProjectFiles::new(root);
        for f in &self.files {
            view.insert(
                f.rel.clone(),
                f.file.bytes.clone(),
                f.file.identity.mtime_ns,
            );
        }
        view
    }
}

/// Scan the project at `root`; `known` answers what an earlier read held for a path.
/// A file that vanishes while the scan runs is absent; any other read failure is an error.
pub fn scan_project(
    root: &Path,
    known: &dyn Fn(&str) -> Option<KnownFile>,
) -> io::Result<ProjectScan> {
    let mut files = Vec::new();
    for rel in project_paths(root)? {
        let path = root.join(&rel);
        let before = clock_ns();
        let meta = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => m,
            _ => continue,
        };
        let identity = FileIdentity::from_metadata(&meta, before);
        let old = known(&rel);
        if let Some(old) = old.as_ref().filter(|o| o.identity == identity) {
            files.push(ScannedFile {
                rel,
                file: old.clone(),
                changed: false,
                moved: false,
            });
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        let hash = blake3::hash(&bytes).to_hex().to_string();
        let (bytes, changed) = match old {
            Some(o) if o.hash == hash => (o.bytes, false),
            _ => (Arc::from(bytes), true),
        };
        files.push(ScannedFile {
            rel,
            file: KnownFile {
                identity,
                hash,
                bytes,
            },
            changed,
            moved: true,
        });
    }
    Ok(ProjectScan { files })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn known_of(scan: &ProjectScan) -> HashMap<String, KnownFile> {
        scan.files
            .iter()
            .map(|f| (f.rel.clone(), f.file.clone()))
            .collect()
    }

    #[test]
    fn a_rescan_reads_only_what_moved() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pipelines")).unwrap();
        std::fs::write(root.join("project.yml"), "name: a\n").unwrap();
        std::fs::write(root.join("pipelines/a.sql"), "select 1").unwrap();
        let first = scan_project(root, &|_| None).unwrap();
        assert_eq!(first.files.len(), 2);
        assert!(first.files.iter().all(|f| f.changed));
        assert!(first.content_differs(0));

        let known = known_of(&first);
        let again = scan_project(root, &|rel| known.get(rel).cloned()).unwrap();
        // Fresh identities are unsettled, so the bytes were read and compared.
        assert!(!again.content_differs(known.len()));

        std::fs::write(root.join("pipelines/a.sql"), "select 2").unwrap();
        std::fs::write(root.join("pipelines/b.sql"), "select 3").unwrap();
        let known = known_of(&again);
        let edited = scan_project(root, &|rel| known.get(rel).cloned()).unwrap();
        assert!(edited.content_differs(known.len()));
        let changed: Vec<&str> = edited
            .files
            .iter()
            .filter(|f| f.changed)
            .map(|f| f.rel.as_str())
            .collect();
        assert_eq!(changed, ["pipelines/a.sql", "pipelines/b.sql"]);
        let view = edited.view(root);
        assert_eq!(&view.get("pipelines/a.sql").unwrap().bytes[..], b"select 2");

        std::fs::remove_file(root.join("pipelines/b.sql")).unwrap();
        let known = known_of(&edited);
        let removed = scan_project(root, &|rel| known.get(rel).cloned()).unwrap();
        assert!(removed.content_differs(known.len()));
        assert_eq!(removed.files.len(), 2);
    }

    #[test]
    fn a_settled_known_identity_is_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let path = root.join("project.yml");
        std::fs::write(&path, "name: a\n").unwrap();
        // An hour old: its identity is settled at once.
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let identity = crate::ingest::identity(&path).unwrap();
        assert!(identity.settled);
        // Known bytes that are not the file's: a scan that trusted the identity keeps them.
        let known = KnownFile {
            identity,
            hash: "h".into(),
            bytes: Arc::from(&b"name: b\n"[..]),
        };
        let scan = scan_project(root, &|_| Some(known.clone())).unwrap();
        assert!(!scan.files[0].moved);
        assert_eq!(&scan.files[0].file.bytes[..], b"name: b\n");
    }
}
