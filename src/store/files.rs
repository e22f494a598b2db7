//! One print file as it is on disk now, answered from the mirror. A request never parses
//! YAML while the file's identity is the one ingest stored; a file whose identity moved
//! is read again through ingest (the one reader) and the mirror updated, so a parse result
//! is never stale and a file that fails to parse is never served from an old parse.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::mirror::{FileStatus, ParseStatus};
use super::Shared;
use crate::error::{internal, QueryError};
use crate::ingest::{self, FileIdentity, Parsed, Scanned};
use compat::value::Value;

/// How a file parsed, without its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Absent,
    /// Not a YAML kind.
    Text,
    Yaml,
    /// `yaml.YAMLError`: the message without the path.
    YamlError(String),
    /// Another exception while reading or constructing (`str(exc)`).
    OtherError(String),
}

/// A file's current record.
#[derive(Debug, Clone)]
pub struct FreshFile {
    pub path: PathBuf,
    /// blake3 of the content; `None` when absent.
    pub hash: Option<String>,
    pub check: Check,
    /// The settled identity that vouched for `hash` (the file's identity now, equal to the
    /// one the mirror stored with it); `None` when this request read the bytes itself.
    pub identity: Option<ingest::FileIdentity>,
    /// The parsed value, when this request had to parse the file itself.
    value: Option<Value>,
}

fn check_of(parsed: &Parsed) -> Check {
    match parsed {
        Parsed::Text | Parsed::Prose(_) => Check::Text,
        // Split only with a spill, which a request's read never has.
        Parsed::Yaml(_) | Parsed::Split(_) => Check::Yaml,
        Parsed::YamlError(m) => Check::YamlError(m.clone()),
        Parsed::OtherError(m) => Check::OtherError(m.clone()),
        Parsed::Absent => Check::Absent,
    }
}

/// Read bytes `range` of `path` into `into`, provided the file is still the one `identity`
/// names before and after the read (a settled identity vouches for the bytes, as
/// everywhere in the store); `QueryError::Stale` otherwise.
pub fn read_as_known(
    path: &Path,
    identity: ingest::FileIdentity,
    range: std::ops::Range<usize>,
    into: &mut Vec<u8>,
) -> Result<(), QueryError> {
    use std::io::{Seek, SeekFrom};
    let moved = || QueryError::Stale(path.to_path_buf());
    let same = |file: &std::fs::File| {
        let before = ingest::clock_ns();
        file.metadata()
            .is_ok_and(|m| ingest::FileIdentity::from_metadata(&m, before) == identity)
    };
    let mut file = std::fs::File::open(path).map_err(|_| moved())?;
    if !same(&file) {
        return Err(moved());
    }
    into.clear();
    into.reserve(range.len());
    file.seek(SeekFrom::Start(range.start as u64))
        .map_err(|_| moved())?;
    let read = (&mut file)
        .take(range.len() as u64)
        .read_to_end(into)
        .map_err(|_| moved())?;
    if read != range.len() || !same(&file) {
        return Err(moved());
    }
    Ok(())
}

/// Read the whole of `path` into `into` (emptied first), for a caller that checks what it
/// read against the content hash the store holds.
pub fn read_whole(path: &Path, into: &mut Vec<u8>) -> std::io::Result<()> {
    into.clear();
    std::fs::File::open(path)?.read_to_end(into)?;
    Ok(())
}

/// How a stored row says its file parsed.
fn check_of_row(row: &FileStatus) -> Check {
    match row.parse_status {
        ParseStatus::Ok | ParseStatus::Split => Check::Yaml,
        ParseStatus::YamlError => Check::YamlError(row.parse_error.clone().unwrap_or_default()),
        ParseStatus::OtherError => Check::OtherError(row.parse_error.clone().unwrap_or_default()),
        ParseStatus::Text | ParseStatus::Prose => Check::Text,
        ParseStatus::Absent => Check::Absent,
    }
}

/// The file at `path` as its stored row holds it, when the row vouches for it: the
/// identity on disk (`now`) is the stored one, and a row stored absent only for a file
/// that is not there (or the reverse).
fn as_stored(
    path: &Path,
    row: Option<&FileStatus>,
    now: Option<FileIdentity>,
) -> Option<FreshFile> {
    let row = row?;
    let check = check_of_row(row);
    (row.identity == now && (check == Check::Absent) == now.is_none()).then(|| FreshFile {
        path: path.to_path_buf(),
        hash: row.hash.clone(),
        check,
        identity: now,
        value: None,
    })
}

impl Shared {
    /// `path` of connection `connection` as it is on disk now. `fqn` and `kind` say what
    /// the file is when the mirror does not know it yet. `force` reads it again even when
    /// its identity is the stored one (the caller saw other bytes).
    pub(super) fn current_file(
        &self,
        connection: &str,
        path: &Path,
        fqn: Option<&str>,
        kind: &str,
        force: bool,
    ) -> Result<FreshFile, QueryError> {
        let now = ingest::identity(path).filter(|_| path.is_file());
        let stored = self.mirror.status(path).map_err(internal)?;
        if !force {
            if let Some(fresh) = as_stored(path, stored.as_ref(), now) {
                return Ok(fresh);
            }
        }
        // The single writer: never interleave with a connection scan, in this process or
        // another sharing the index, and read the file under its lock, so that what is
        // stored was read after the row it replaces. A lock that stays held (a stopped
        // process) or a write that fails leaves this read private to the call: it answers
        // from what it read, and the mirror keeps the old row (the next call reads the
        // file again). A reader never waits long for the lock, even for a live holder: one
        // file read privately costs less than a rebuild's or a reconcile's wait.
        let lock = self.writer.lock_bounded(super::lock::LOCK_WAIT);
        let stored = match &lock {
            // The row as the last writer left it: it may hold the file as it is now.
            Some(_) => self.mirror.status(path).map_err(internal)?,
            None => stored,
        };
        if !force && lock.is_some() {
            if let Some(fresh) = as_stored(path, stored.as_ref(), now) {
                return Ok(fresh);
            }
        }
        // The mirror's own row names the file best (a scan wrote it).
        let (fqn, kind) = match &stored {
            Some(row) => (row.fqn.clone(), row.kind.clone()),
            None => (fqn.map(str::to_string), kind.to_string()),
        };
        let stored_check = stored.as_ref().map(check_of_row);
        // The same bytes under a new identity keep the stored parse.
        let known_hash = stored
            .as_ref()
            .filter(|row| !force && row.parse_status != ParseStatus::Absent)
            .and_then(|row| row.hash.clone());
        let mut record = ingest::read_file_unless(
            path,
            connection,
            fqn.as_deref(),
            &kind,
            known_hash.as_deref(),
            None,
        );
        if lock.is_some() {
            match self.mirror.upsert_file(&record) {
                Ok(true) => {}
                Ok(false) => {
                    // The row changed since it was looked at: the bytes decide afresh.
                    record = ingest::read_file(path, connection, fqn.as_deref(), &kind);
                    if let Err(e) = self.mirror.upsert_file(&record) {
                        tracing::debug!("storing {} failed: {e}", path.display());
                    }
                }
                Err(e) => tracing::debug!("storing {} failed: {e}", path.display()),
            }
        }
        drop(lock);
        let parsed = match record.scanned {
            Scanned::Read(parsed) => parsed,
            Scanned::Touched => {
                return Ok(FreshFile {
                    path: path.to_path_buf(),
                    hash: record.hash,
                    check: stored_check.unwrap_or(Check::Absent),
                    identity: None,
                    value: None,
                });
            }
            // `read_file` never answers these two.
            Scanned::Unchanged | Scanned::Stored => Parsed::Absent,
        };
        let check = check_of(&parsed);
        let value = match parsed {
            Parsed::Yaml(v) => Some(v),
            _ => None,
        };
        Ok(FreshFile {
            path: path.to_path_buf(),
            hash: record.hash,
            check,
            identity: None,
            value,
        })
    }

    /// The document of a file whose check is `Yaml`, when the mirror holds it read in
    /// pieces (see `ingest::SPLIT_KEY`): its list is empty there and its items are read
    /// apart ([`Shared::each_split_item`]). `None`: read it whole with `current_value`.
    pub(super) fn split_header(&self, file: &FreshFile) -> Result<Option<Value>, QueryError> {
        match (&file.check, &file.value, &file.hash) {
            (Check::Yaml, None, Some(hash)) => {
                self.mirror.split_header(&file.path, hash).map_err(internal)
            }
            _ => Ok(None),
        }
    }

    /// The parsed value of a file whose check is `Yaml`.
    pub(super) fn current_value(&self, file: &FreshFile) -> Result<Option<Value>, QueryError> {
        if file.check != Check::Yaml {
            return Ok(None);
        }
        if let Some(v) = &file.value {
            return Ok(Some(v.clone()));
        }
        let parsed = match &file.hash {
            Some(hash) => self.mirror.parsed_as(&file.path, hash),
            None => self.mirror.parsed(&file.path),
        };
        match parsed.map_err(internal)? {
            Some(Parsed::Yaml(v)) => Ok(Some(v)),
            _ => Ok(None),
        }
    }
}
