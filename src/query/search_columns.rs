//! search_columns: columns (and parts) across the print matching a name glob, a text
//! needle and field globs, ANDed (spec §4.3). The index decides them, a needle under three
//! characters and a value too long to be a term aside (the stored record confirms those).
//! A match is read in full only when a page asks for it: `total` needs the count alone.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
use std::ffi::{OsStr, OsString};
use std::sync::Arc;

use super::pins::Pins;
use super::value::set;
use crate::error::{internal, QueryError};
use crate::ingest::parts::in_parts;
use crate::store::cache::Key;
use crate::store::search::lookup::{Filters, Hit, OrderedHits};
use crate::store::search::records::{ColumnRecord, TableRecord};
use crate::store::search::TableEntry;
use crate::store::Snapshot;
use compat::py::{casefold, split_whitespace, Glob};
use compat::value::Value;

pub struct Request<'a> {
    pub filters: Filters<'a>,
}

/// An unset glob passes; a set one needs the field present to fnmatch against.
fn field_matches(value: Option<&str>, glob: Option<&str>) -> bool {
    match glob {
        None => true,
        Some(g) => value.is_some_and(|v| Glob::new(g).matches(v)),
    }
}

/// The exact decision `_column_hit` / `_part_hit` make, on a stored record: `None` on a
/// miss, else the value notes a column match found through them carries.
pub fn decide(record: &ColumnRecord, f: &Filters) -> Option<Vec<Value>> {
    if !field_matches(Some(&record.label), f.pattern)
        || !field_matches(record.classification.as_deref(), f.classification)
        || !field_matches(record.sql_type.as_deref(), f.sql_type)
        || !field_matches(record.sensitivity.as_deref(), f.sensitivity)
        || !field_matches(record.looks_like.as_deref(), f.looks_like)
        || !field_matches(record.redacted.as_deref(), f.redacted)
    {
        return None;
    }
    if let Some(wanted) = f.candidate_key {
        if record.candidate_key != Some(wanted) {
            return None;
        }
    }
    match f.text {
        None => Some(Vec::new()),
        Some(text) => text_match(record, &casefold(text)),
    }
}

/// Whether `record` holds `needle` (casefolded) where `text` looks, and the value notes
/// holding it, which a column's match carries.
fn text_match(record: &ColumnRecord, needle: &str) -> Option<Vec<Value>> {
    if record.part.is_some() {
        return casefold(&record.label).contains(needle).then(Vec::new);
    }
    let notes: Vec<Value> = record
        .value_notes
        .iter()
        .filter(|(_, note)| casefold(note).contains(needle))
        .map(|(value, note)| {
            Value::map(vec![
                (Value::Str("value".into()), value.clone()),
                (
                    Value::Str("note".into()),
                    Value::Str(split_whitespace(note).join(" ")),
                ),
            ])
        })
        .collect();
    let named = casefold(&record.label).contains(needle)
        || record
            .note
            .as_deref()
            .is_some_and(|n| casefold(n).contains(needle));
    (!notes.is_empty() || named).then_some(notes)
}

/// One match as the reply shows it (`_search_match` plus its extra keys).
fn shown_match(
    fqn: &str,
    row_count: Option<&Value>,
    table: &TableRecord,
    record: &ColumnRecord,
    value_notes: &[Value],
) -> Value {
    let mut m = Value::map(vec![
        (Value::Str("table".into()), Value::Str(fqn.into())),
        (
            Value::Str("column".into()),
            Value::Str(record.column.clone()),
        ),
        (Value::Str("sql_type".into()), record.shown_sql_type.clone()),
        (
            Value::Str("classification".into()),
            record.shown_classification.clone(),
        ),
    ]);
    if let Some(rc) = row_count {
        set(&mut m, "row_count", rc.clone());
    }
    if let Some(scanned) = &record.rows_scanned {
        set(&mut m, "rows_scanned", scanned.clone());
    }
    if let Some(scope) = &table.scope {
        set(&mut m, "scope", scope.block.clone());
        if let Some(rc) = &scope.row_count {
            // A dict update: replaces the manifest's count in place, or appends.
            set(&mut m, "row_count", rc.clone());
        }
    }
    for (k, v) in &record.tail {
        set(&mut m, k, v.clone());
    }
    match &record.part {
        None => {
            if !value_notes.is_empty() {
                set(&mut m, "value_notes", Value::seq(value_notes.to_vec()));
            }
        }
        Some(path) => {
            set(&mut m, "part", path.clone());
            set(&mut m, "occurrences", record.occurrences.clone());
        }
    }
    m
}

/// The matches before they are read in full: where each stands, and, when the stored
/// record had to confirm them, what the exact check read. Unchecked matches are the
/// hits alone, put in order as a page reads them, so a broad search holds a small entry
/// per match, not room for a record, and sorts only what its page shows.
enum Found {
    Unchecked(OrderedHits),
    Checked(Vec<(Hit, ColumnRecord, Vec<Value>)>),
}

impl Found {
    fn len(&self) -> usize {
        match self {
            Found::Unchecked(hits) => hits.len(),
            Found::Checked(checked) => checked.len(),
        }
    }
}

/// The matches in reply order, each read in full from the index when first asked for.
pub struct Matches<'a> {
    state: &'a Snapshot,
    /// `unreadable_tables` and `switched_off_tables`, when there are any.
    pub head: Vec<(String, Value)>,
    found: Found,
    /// A `text` needle, casefolded: the value notes a column shows are those holding it.
    needle: Option<String>,
    /// The table records this reply has shown, so a page's matches of one table take its
    /// record from the cache once.
    tables: HashMap<usize, Arc<TableRecord>>,
    /// The manifest and every table's two searched files.
    pub pins: Pins,
}

impl Matches<'_> {
    pub fn total(&self) -> usize {
        self.found.len()
    }

    /// Match `i` as the reply shows it.
    pub fn get(&mut self, i: usize) -> Result<Value, QueryError> {
        let snap = &self.state.search;
        let read;
        let noted;
        let (rank, record, notes): (usize, &ColumnRecord, &[Value]) = match &mut self.found {
            Found::Checked(checked) => {
                let (hit, record, notes) = &checked[i];
                (hit.table, record, notes)
            }
            Found::Unchecked(hits) => {
                let hit = hits
                    .get(i)
                    .ok_or_else(|| internal("a match past the last"))?;
                read = snap.column(hit.address).map_err(internal)?;
                // The index matched the needle exactly; the record says which notes hold it.
                noted = match &self.needle {
                    Some(needle) => text_match(&read, needle).unwrap_or_default(),
                    None => Vec::new(),
                };
                (hit.table, &read, &noted)
            }
        };
        let table = match self.tables.entry(rank) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => v.insert(table_record(self.state, rank)?),
        };
        let entry = &snap.tables[rank];
        Ok(shown_match(
            &entry.fqn,
            entry.row_count.as_ref(),
            table,
            record,
            notes,
        ))
    }
}

/// The record of the table at `rank`, held in the store's cache under the table's key
/// (which covers the files it is made from): the tables a page shows are mostly those the
/// last pages showed, and each costs a search of the index to find.
fn table_record(state: &Snapshot, rank: usize) -> Result<Arc<TableRecord>, QueryError> {
    let snap = &state.search;
    let entry = &snap.tables[rank];
    let key = Key::new("search table record", [entry.key.to_le_bytes().as_slice()]);
    state.cache().get_or_build(
        key,
        |t: &TableRecord| std::mem::size_of::<TableRecord>() + 2 * t.fqn.len(),
        || {
            snap.table_record(rank, false)
                .map_err(internal)?
                .ok_or_else(|| internal("the search index lost a table"))
        },
    )
}

pub fn answer<'a>(state: &'a Snapshot, req: &Request) -> Result<Matches<'a>, QueryError> {
    // A manifest that cannot be read fails the call; an absent one has no tables.
    state.manifest_or_error()?;
    let snap = &state.search;
    // The reference walks every table before paging, so the first exception a table
    // raises fails the call whatever its cursor.
    if let Some(&rank) = snap.flagged("error").map_err(internal)?.first() {
        if let Some(message) = snap
            .table_record(rank, false)
            .map_err(internal)?
            .and_then(|t| t.search_error)
        {
            return Err(QueryError::Other(message));
        }
    }
    let fqns = |ranks: Vec<usize>| -> Value {
        Value::seq(
            ranks
                .into_iter()
                .map(|r| Value::Str(snap.tables[r].fqn.clone()))
                .collect(),
        )
    };
    let mut head: Vec<(String, Value)> = Vec::new();
    let unreadable = snap.flagged("unreadable").map_err(internal)?;
    if !unreadable.is_empty() {
        head.push(("unreadable_tables".into(), fqns(unreadable)));
    }
    if req.filters.looks_like.is_some_and(|l| !l.is_empty()) {
        let off = snap.flagged("looks_like_off").map_err(internal)?;
        if !off.is_empty() {
            head.push(("switched_off_tables".into(), fqns(off)));
        }
    }

    let hits = snap.search(&req.filters).map_err(internal)?;
    let found = if hits.verify {
        let mut kept = Vec::new();
        for hit in hits.hits.into_sorted() {
            let record = snap.column(hit.address).map_err(internal)?;
            if let Some(notes) = decide(&record, &req.filters) {
                kept.push((hit, record, notes));
            }
        }
        Found::Checked(kept)
    } else {
        Found::Unchecked(hits.hits)
    };

    // The pinned files are the manifest and every searched table's statistics and their
    // annotations. They are pinned by the snapshot's digests of every file of each of
    // their names, which a change updates without visiting the rest: a digest over each
    // file would cost a pass over the print after every change.
    let key = Key::new(
        "search cursor pins",
        [
            state.versions.all().as_slice(),
            &(snap.tables.len() as u64).to_le_bytes(),
        ],
    );
    let pins = state.cache().get_or_build(key, Pins::weight, || {
        let manifest_path = state.manifest_path();
        let names = searched_file_names(&snap.tables);
        let mut files = vec![(
            manifest_path.display().to_string(),
            state.version_of(&manifest_path),
        )];
        for name in names {
            let name = name.to_string_lossy();
            let digest = state.versions.named(&name);
            files.push((
                format!("every {name}"),
                blake3::Hash::from(digest).to_hex().to_string(),
            ));
        }
        files.push(("searched tables".into(), snap.tables.len().to_string()));
        Ok::<_, QueryError>(Pins::of(&files))
    })?;
    Ok(Matches {
        state,
        head,
        found,
        needle: req.filters.text.map(casefold),
        tables: HashMap::new(),
        pins: (*pins).clone(),
    })
}

/// The names of every table's searched files (statistics and their annotations): a few
/// among 200,000 paths at 100,000 tables, so a path is first tested against the names
/// found so far (a suffix test) and parsed only when it has another, on every core. The
/// first search of a process builds its pins from them: 46 ms, parsing every path.
fn searched_file_names(tables: &[TableEntry]) -> BTreeSet<OsString> {
    let parts = in_parts(tables, 8192, usize::MAX, |part| {
        let mut names: Vec<OsString> = Vec::new();
        for path in part
            .iter()
            .flat_map(|t| [&t.stats, &t.annotations])
            .flatten()
        {
            let bytes = path.as_os_str().as_encoded_bytes();
            let known = names.iter().any(|name| {
                let name = name.as_encoded_bytes();
                bytes.len() > name.len()
                    && bytes.ends_with(name)
                    && std::path::is_separator(char::from(bytes[bytes.len() - name.len() - 1]))
            });
            if !known {
                names.extend(path.file_name().map(OsStr::to_os_string));
            }
        }
        names
    });
    parts.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searched_file_names_are_each_distinct_name_of_a_statistics_or_annotations_path() {
        let entry = |stats: &str, annotations: Option<&str>| TableEntry {
            fqn: stats.into(),
            key: 0,
            stats: Some(std::path::Path::new(stats).into()),
            annotations: annotations.map(|a| std::path::Path::new(a).into()),
            description: Some(std::path::Path::new("/p/d/other.md").into()),
            relationship_notes: None,
            identities: [None; 4],
            row_count: None,
        };
        let mut tables: Vec<TableEntry> = (0..20_000)
            .map(|n| {
                entry(
                    &format!("/p/t{n}/statistics.yaml"),
                    Some(&format!("/p/t{n}/statistics.annotations.yaml")),
                )
            })
            .collect();
        // A name another ends with is another name; a declared name of its own counts.
        tables.push(entry("/p/x/my_statistics.yaml", None));
        tables.push(entry("/p/y/stats.yml", Some("/p/y/statistics.yaml")));
        let names: Vec<String> = searched_file_names(&tables)
            .into_iter()
            .map(|n| n.into_string().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "my_statistics.yaml",
                "statistics.annotations.yaml",
                "statistics.yaml",
                "stats.yml"
            ]
        );
        assert!(searched_file_names(&[]).is_empty());
    }

    fn record(label: &str, note: Option<&str>, notes: &[(&str, &str)]) -> ColumnRecord {
        ColumnRecord {
            column: label.into(),
            part: None,
            label: label.into(),
            note: note.map(str::to_string),
            value_notes: notes
                .iter()
                .map(|(v, n)| (Value::Str(v.to_string()), n.to_string()))
                .collect(),
            classification: Some("text".into()),
            sql_type: None,
            physical_name: None,
            sensitivity: None,
            looks_like: None,
            redacted: None,
            candidate_key: Some(false),
            shown_sql_type: Value::Str(String::new()),
            shown_classification: Value::Str("text".into()),
            rows_scanned: None,
            tail: Vec::new(),
            occurrences: Value::Null,
            col_rank: 0,
            part_rank: 0,
            resolve: None,
        }
    }

    #[test]
    fn text_is_a_casefold_substring_and_value_notes_ride_along() {
        let r = record(
            "Straße",
            Some("Where they live"),
            &[("x", "  LEGACY   code ")],
        );
        let f = |text| Filters {
            text: Some(text),
            ..Default::default()
        };
        assert_eq!(decide(&r, &f("STRASSE")), Some(vec![]));
        assert_eq!(decide(&r, &f("they")), Some(vec![]));
        let notes = decide(&r, &f("legacy")).unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].get("note"),
            Some(&Value::Str("LEGACY code".into()))
        );
        assert_eq!(decide(&r, &f("nowhere")), None);
    }

    #[test]
    fn a_glob_needs_the_field_present() {
        let r = record("a", None, &[]);
        let f = Filters {
            sensitivity: Some("*"),
            ..Default::default()
        };
        assert_eq!(decide(&r, &f), None);
        let f = Filters {
            classification: Some("t*"),
            candidate_key: Some(false),
            ..Default::default()
        };
        assert_eq!(decide(&r, &f), Some(vec![]));
        let f = Filters {
            candidate_key: Some(true),
            ..Default::default()
        };
        assert_eq!(decide(&r, &f), None);
    }
}
