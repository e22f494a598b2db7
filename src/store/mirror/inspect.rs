//! The mirror as `index status` reads it: without changing anything.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use super::{quick_check, version_matches, Mirror, MirrorError, MIRROR_FILE};

/// A mirror as `index status` sees it.
#[derive(Debug, Default)]
pub struct Inspection {
    pub path: PathBuf,
    /// Written by this build's schema; an older one is rebuilt at the next start.
    pub current: bool,
    pub bytes: u64,
    pub tables: i64,
    pub connections: Vec<ConnectionInspection>,
    /// Why the mirror cannot be trusted (`quick_check`, or a read that failed); the next
    /// start sets it aside and builds it again.
    pub damage: Option<String>,
}

#[derive(Debug, Default)]
pub struct ConnectionInspection {
    pub name: String,
    pub files: i64,
    /// Files expected (declared, or looked for) and not there; optional kinds excepted.
    pub absent: Vec<PathBuf>,
    pub unparseable: i64,
    /// `{"at": unix seconds, "files", "reread", "ms"}` of the last whole reconcile.
    pub last_reconcile: Option<serde_json::Value>,
}

impl Mirror {
    /// What `index status` reports, read without changing anything (no schema set-up, no
    /// reset of an older format). `None`: there is no mirror in `dir`.
    pub fn inspect(dir: &Path) -> Result<Option<Inspection>, MirrorError> {
        let path = dir.join(MIRROR_FILE);
        if !path.exists() {
            return Ok(None);
        }
        match Mirror::inspect_file(&path) {
            Err(e) if !e.unusable_location() || path.is_dir() => Ok(Some(Inspection {
                path: path.clone(),
                current: true,
                bytes: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
                damage: Some(e.to_string()),
                ..Default::default()
            })),
            other => other.map(Some),
        }
    }

    fn inspect_file(path: &Path) -> Result<Inspection, MirrorError> {
        if !path.is_file() {
            return Err(MirrorError::Damaged(format!(
                "{} is not a file",
                path.display()
            )));
        }
        let db = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let mut out = Inspection {
            path: path.to_path_buf(),
            current: version_matches(&db),
            bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            ..Default::default()
        };
        if !out.current {
            return Ok(out);
        }
        quick_check(&db)?;
        let mut stmt = db.prepare(
            "SELECT connection, count(*), sum(parse_status LIKE '%error') FROM files GROUP BY connection ORDER BY connection",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(ConnectionInspection {
                name: r.get(0)?,
                files: r.get(1)?,
                unparseable: r.get(2)?,
                ..Default::default()
            })
        })?;
        for row in rows {
            out.connections.push(row?);
        }
        let mut stmt = db.prepare(
            "SELECT connection, path, kind FROM files WHERE mtime_ns IS NULL ORDER BY connection, path",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (connection, path, kind) = row?;
            if crate::ingest::is_optional_kind(&kind) {
                continue;
            }
            if let Some(c) = out.connections.iter_mut().find(|c| c.name == connection) {
                c.absent.push(PathBuf::from(path));
            }
        }
        out.tables = db.query_row("SELECT count(*) FROM tables", [], |r| r.get(0))?;
        for c in &mut out.connections {
            c.last_reconcile = db
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    params![format!("last_reconcile:{}", c.name)],
                    |r| r.get::<_, String>(0),
                )
                .optional()?
                .and_then(|v| serde_json::from_str(&v).ok());
        }
        Ok(out)
    }
}
