//! Generations: how a writer tells whether its view of a connection's rows is the
//! mirror's. Several processes share one index and each keeps its own view (a snapshot's
//! identities and hashes); every transaction that writes a connection's rows bumps the
//! connection's generation and stamps the rows it wrote with it. A writer compares the
//! generation its view was taken at with the mirror's, under the writer lock, and catches
//! up (the rows written since, or the whole connection when rows went or the tables
//! changed) before it stores anything it derived from that view.

use std::collections::HashMap;
use std::path::PathBuf;

use rusqlite::{params, Connection, OptionalExtension};

use super::{identity_at, Mirror, MirrorError};
use crate::ingest::FileIdentity;

/// One row written since a generation: where the file is, as the writer stored it.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenRow {
    pub path: PathBuf,
    /// `None`: stored absent.
    pub identity: Option<FileIdentity>,
    pub hash: Option<String>,
}

/// What was written to a connection's rows since a generation.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// Nothing: a view taken at that generation is the mirror's.
    Nothing,
    /// These rows, and nothing else (no row went, the tables are the same).
    Rows(Vec<WrittenRow>),
    /// Rows went or the tables changed (or the generation is not one this mirror gave):
    /// only the whole connection read again makes a view of the mirror's rows.
    Reshaped,
}

impl Mirror {
    /// The generation of `connection`'s rows now (0: nothing was written yet).
    pub fn generation(&self, connection: &str) -> Result<u64, MirrorError> {
        let found: Option<i64> = self
            .db()
            .query_row(
                "SELECT generation FROM generations WHERE connection = ?1",
                params![connection],
                |r| r.get(0),
            )
            .optional()?;
        Ok(found.unwrap_or(0) as u64)
    }

    /// What was written to `connection`'s rows after generation `since`.
    pub fn written_since(&self, connection: &str, since: u64) -> Result<Written, MirrorError> {
        let db = self.db();
        let found: Option<(i64, i64)> = db
            .query_row(
                "SELECT generation, reshaped FROM generations WHERE connection = ?1",
                params![connection],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (generation, reshaped) = found.unwrap_or((0, 0));
        let (generation, reshaped) = (generation as u64, reshaped as u64);
        if generation == since {
            return Ok(Written::Nothing);
        }
        if generation < since || reshaped > since {
            return Ok(Written::Reshaped);
        }
        let mut stmt = db.prepare_cached(
            "SELECT path, mtime_ns, size, inode, settled, hash FROM files WHERE connection = ?1 AND generation > ?2",
        )?;
        let rows = stmt.query_map(params![connection, since as i64], |r| {
            let identity = identity_at(r, 1, 4)?;
            Ok(WrittenRow {
                path: PathBuf::from(r.get::<_, String>(0)?),
                identity,
                hash: r.get(5)?,
            })
        })?;
        Ok(Written::Rows(rows.collect::<Result<_, _>>()?))
    }
}

/// The generations one transaction writes under: the first write of a connection's rows
/// bumps its generation, and every row the transaction writes for it is stamped with it.
pub(super) struct Stamps<'a> {
    db: &'a Connection,
    taken: HashMap<String, u64>,
}

impl<'a> Stamps<'a> {
    pub(super) fn new(db: &'a Connection) -> Stamps<'a> {
        Stamps {
            db,
            taken: HashMap::new(),
        }
    }

    /// The generation this transaction writes `connection`'s rows under.
    pub(super) fn of(&mut self, connection: &str) -> Result<u64, MirrorError> {
        if let Some(g) = self.taken.get(connection) {
            return Ok(*g);
        }
        let g: i64 = self.db.query_row(
            "INSERT INTO generations (connection, generation, reshaped) VALUES (?1, 1, 0)
             ON CONFLICT(connection) DO UPDATE SET generation = generation + 1
             RETURNING generation",
            params![connection],
            |r| r.get(0),
        )?;
        self.taken.insert(connection.to_string(), g as u64);
        Ok(g as u64)
    }

    /// Note that this transaction removed rows of `connection` or changed its tables: a
    /// view older than it cannot catch up row by row.
    pub(super) fn reshaped(&mut self, connection: &str) -> Result<(), MirrorError> {
        let g = self.of(connection)?;
        self.db.execute(
            "UPDATE generations SET reshaped = ?2 WHERE connection = ?1",
            params![connection, g as i64],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{FileRecord, Parsed, Scanned};

    fn record(path: &str, bytes: &str) -> FileRecord {
        FileRecord {
            path: PathBuf::from(path),
            connection: "c".into(),
            fqn: Some("db.t".into()),
            kind: "statistics".into(),
            identity: Some(FileIdentity {
                mtime_ns: 1,
                size: bytes.len() as u64,
                inode: 7,
                settled: true,
            }),
            hash: Some(blake3::hash(bytes.as_bytes()).to_hex().to_string()),
            scanned: Scanned::Read(Parsed::Text),
        }
    }

    #[test]
    fn every_write_moves_the_generation_and_names_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mirror = Mirror::open(dir.path()).unwrap();
        assert_eq!(mirror.generation("c").unwrap(), 0);
        assert_eq!(mirror.written_since("c", 0).unwrap(), Written::Nothing);
        mirror
            .upsert_files(&[record("/p/a", "1"), record("/p/b", "1")])
            .unwrap();
        let first = mirror.generation("c").unwrap();
        assert_eq!(first, 1);
        mirror.upsert_files(&[record("/p/b", "22")]).unwrap();
        assert_eq!(mirror.generation("c").unwrap(), 2);
        // A view taken after the first write needs only the second's row.
        match mirror.written_since("c", first).unwrap() {
            Written::Rows(rows) => {
                assert_eq!(rows.len(), 1);
                assert_eq!(rows[0].path, PathBuf::from("/p/b"));
                assert_eq!(
                    rows[0].hash.as_deref(),
                    Some(blake3::hash(b"22").to_hex().as_str())
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(mirror.written_since("c", 2).unwrap(), Written::Nothing);
        // Other connections keep their own count.
        assert_eq!(mirror.generation("other").unwrap(), 0);
        // A generation this mirror never gave (a view of another mirror) reads it whole.
        assert_eq!(mirror.written_since("c", 9).unwrap(), Written::Reshaped);
    }
}
