//! A file's parse as its `files` row holds it, and the write of that row.

use rusqlite::{params, Connection};

use super::{Mirror, MirrorError, ParseStatus};
use crate::ingest::{self, FileRecord, Parsed};
use compat::value::packed;

/// A parse as a `files` row holds it: its outcome, its error, and its bytes.
pub(super) struct StoredParse {
    status: ParseStatus,
    error: Option<String>,
    parsed: Option<Vec<u8>>,
}

impl StoredParse {
    pub(super) fn of(parsed: &Parsed) -> StoredParse {
        let (status, error, parsed) = match parsed {
            Parsed::Yaml(v) => (ParseStatus::Ok, None, Some(packed::to_bytes(v))),
            // The items are stored already, under the hash (`Mirror::store_items`).
            Parsed::Split(header) => (ParseStatus::Split, None, Some(packed::to_bytes(header))),
            Parsed::YamlError(m) => (ParseStatus::YamlError, Some(m.clone()), None),
            Parsed::OtherError(m) => (ParseStatus::OtherError, Some(m.clone()), None),
            Parsed::Text => (ParseStatus::Text, None, None),
            // Kept as written, not packed: it is text, and only find reads it.
            Parsed::Prose(text) => (ParseStatus::Prose, None, Some(text.as_bytes().to_vec())),
            Parsed::Absent => (ParseStatus::Absent, None, None),
        };
        StoredParse {
            status,
            error,
            parsed,
        }
    }
}

impl Mirror {
    /// Write `f`'s row with its parse as `row` holds it, stamped with `generation`.
    pub(super) fn insert_on(
        db: &Connection,
        f: &FileRecord,
        row: StoredParse,
        generation: u64,
    ) -> Result<(), MirrorError> {
        let StoredParse {
            status,
            error,
            parsed,
        } = row;
        let id = f.identity;
        db.prepare_cached(
            "INSERT OR REPLACE INTO files (path, connection, fqn, kind, mtime_ns, size, inode, hash, parse_status, parse_error, parsed, settled, generation)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        )?
        .execute(params![
                f.path.to_string_lossy(),
                f.connection,
                f.fqn,
                f.kind,
                id.map(|i| i.mtime_ns),
                id.map(|i| i.size as i64),
                id.map(|i| i.inode as i64),
                f.hash,
                status,
                error,
                parsed,
                id.map(|i| i.settled),
                generation as i64
            ])?;
        if ingest::is_split_kind(&f.kind) {
            // Rare (a diff's write), and the items may run to hundreds of thousands.
            Self::sweep_items_on(db)?;
        }
        Ok(())
    }
}
