//! Every table's joins as a catalog build reads them: each table's candidate edges and
//! what decides them (`JoinsRead`, kept on disk apart from the catalog so a build after a
//! change reads again only the joins it decides), and the edges counted once.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{same_joins, Catalog, Edge, Observed, Table};
use crate::error::{internal, QueryError};
use crate::query::context;
use crate::store::cache::Key;
use crate::store::derived::Kept;
use crate::store::Snapshot;
use compat::value::Value;

/// The joins a catalog read, table by table, and the manifest they were read under
/// (`context::joins_scope`). Kept on disk apart from the catalog (`joins_keys`): only a
/// build after a change reads it back.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct JoinsRead {
    pub(super) scope: [u8; 32],
    /// Shared with the catalogs built after it while what decides each table's joins
    /// holds.
    tables: HashMap<String, Arc<TableJoins>>,
}

impl Kept for JoinsRead {
    /// 2: a table's candidate edges packed.
    const ENCODING: u32 = 2;

    fn worth_keeping(&self) -> bool {
        !self.tables.is_empty()
    }
}

/// One table's joins as the catalog reads them.
#[derive(Debug, Serialize, Deserialize)]
struct TableJoins {
    /// What decides them: read again once a deciding file moves.
    deciders: context::JoinsDeciders,
    /// It has a readable relationships file.
    known: bool,
    /// The edges its files name whose other end is a table of the print, in reading
    /// order (its rejections, then `refers_to`, then `referenced_by`), before the edges
    /// two tables both name are counted once: packed (postcard), as every table's are
    /// held together while a catalog is built (made whole, 236,000 of them took 80 MB at
    /// 100,000 tables, beside the edges counted once).
    #[serde(with = "serde_bytes")]
    candidates: Box<[u8]>,
}

impl TableJoins {
    fn read(
        at: usize,
        joins: &context::Joins,
        deciders: context::JoinsDeciders,
        position: &HashMap<String, usize>,
    ) -> Result<TableJoins, QueryError> {
        let mut candidates = Vec::new();
        read_edges(
            at,
            joins.rejected.iter(),
            &OWN_REJECTION,
            position,
            &[],
            &mut candidates,
        );
        if let Some(shown) = &joins.shown {
            read_edges(
                at,
                rows(shown, "refers_to"),
                &REFERS_TO,
                position,
                &joins.confirmed,
                &mut candidates,
            );
            read_edges(
                at,
                rows(shown, "referenced_by"),
                &REFERENCED_BY,
                position,
                &[],
                &mut candidates,
            );
        }
        let packed = postcard::to_stdvec(&candidates)
            .map_err(|e| internal(format!("a table's joins do not pack: {e}")))?;
        Ok(TableJoins {
            deciders,
            known: joins.shown.is_some(),
            candidates: packed.into_boxed_slice(),
        })
    }

    /// Its candidate edges, made whole.
    fn candidates(&self) -> Result<Vec<Edge>, QueryError> {
        postcard::from_bytes(&self.candidates)
            .map_err(|e| internal(format!("a table's kept joins do not read back: {e}")))
    }
}

/// The kept joins memo's scope (the connection's print) and key (its manifest: the tables
/// and their positions; each table's joins are checked by what decides them).
fn joins_keys(state: &Snapshot, joins_scope: &[u8; 32]) -> (Key, Key) {
    let scope = Key::new(
        "validate_sql joins read of",
        [state.config.print_root.as_os_str().as_encoded_bytes()],
    );
    (
        scope,
        Key::new("validate_sql joins read", [joins_scope.as_slice()]),
    )
}

/// A memo read back is written again once the tables read again since are more than one
/// in this many.
const STALE_MEMO_SHARE: usize = 64;

/// What a build read of every table's joins.
pub(super) struct ReadJoins {
    /// The edges, each once, in the order they were first read.
    pub edges: Vec<Edge>,
    /// The memo for a catalog built after a change (empty once kept on disk).
    pub memo: JoinsRead,
    /// Every table's deciding files have the canonical names (`same_joins`).
    pub canonically_named: bool,
    /// The tables whose joins were read again rather than taken from before.
    pub reread: usize,
}

/// Every walkable table's joins (at its place in `position`, marking `tables` that have
/// them known), read on the cores side by side; a table whose deciding files hold what
/// they held for `before`'s build (in memory, or its memo on disk) is taken from it.
pub(super) fn read(
    state: &Snapshot,
    before: Option<&Catalog>,
    position: &HashMap<String, usize>,
    tables: &mut [Table],
) -> Result<ReadJoins, QueryError> {
    // A table's joins hold while the manifest does and the files that decide them do
    // (`JoinsDeciders`): those are taken from before.
    let joins_scope = context::joins_scope(state);
    let in_memory = before
        .map(|b| &b.joins_read)
        .filter(|j| j.scope == joins_scope);
    // A catalog read back holds no joins: the ones its build read are kept apart.
    let (memo_scope, memo_key) = joins_keys(state, &joins_scope);
    let kept_memo = match in_memory {
        Some(_) => None,
        None => state
            .derived()
            .load::<JoinsRead>(&memo_scope, &memo_key)
            .filter(|j| j.scope == joins_scope),
    };
    let held_joins = in_memory.or(kept_memo.as_ref());
    let held = |fqn: &str| {
        held_joins
            .and_then(|j| j.tables.get(fqn))
            .map(|t| &t.deciders)
    };
    // Each table's joins made on the reading threads; the edges counted once here, in
    // FQN order.
    let make = |fqn: &str, deciders: context::JoinsDeciders, joins: Option<context::Joins>| {
        let Some(&at) = position.get(fqn) else {
            return Ok(None);
        };
        let canonical = same_joins::canonically_named(&deciders);
        let held = held_joins.and_then(|j| j.tables.get(fqn));
        let reread = joins.is_some();
        let table_joins = match (joins, held) {
            (None, Some(held)) => Arc::clone(held),
            (joins, _) => Arc::new(TableJoins::read(
                at,
                &joins.unwrap_or_default(),
                deciders,
                position,
            )?),
        };
        Ok(Some((at, canonical, reread, table_joins)))
    };
    let mut edges = Edges::default();
    let mut memo = JoinsRead {
        scope: joins_scope,
        tables: HashMap::new(),
    };
    let mut read = ReadJoins {
        edges: Vec::new(),
        memo: JoinsRead::default(),
        canonically_named: true,
        reread: 0,
    };
    for (fqn, made) in context::each_tables_joins(state, &held, &make)? {
        let Some((at, canonical, reread, table_joins)) = made? else {
            continue;
        };
        read.canonically_named &= canonical;
        read.reread += usize::from(reread);
        tables[at].joins_known = table_joins.known;
        table_joins
            .candidates()?
            .into_iter()
            .for_each(|e| edges.add(e));
        memo.tables.insert(fqn, table_joins);
    }
    // A memo read back from disk still holds for every table but the few read again
    // (their deciders no longer hold in it, so the next build reads them again too): it
    // is written again only once they are more than a share of the tables. Written whole
    // after each edit, it took 180 ms of validate_sql's answer at 100,000 tables.
    let still_holds =
        kept_memo.is_some() && read.reread.saturating_mul(STALE_MEMO_SHARE) <= memo.tables.len();
    // Kept on disk, the memo is let go now: the catalog this build returns is held only
    // until it is read back (without its joins), and the next build after a change
    // reads the memo back from disk. Held beside the catalog's read back, it was part of
    // the peak of a rebuild that keeps the catalog (about 35 MB at 100,000 tables).
    if !still_holds && !state.derived().save(&memo_scope, &memo_key, &memo) {
        read.memo = memo;
    }
    read.edges = edges.list;
    Ok(read)
}

/// The mapping entries of a relationships list.
fn rows<'v>(relationships: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    relationships
        .get(key)
        .and_then(Value::as_seq)
        .unwrap_or_default()
        .iter()
        .filter(|e| matches!(e, Value::Map(_)))
}

/// An edge's column list: a list of names, or one name.
fn names(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Seq(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(Value::Str(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// Edges as they are read, each once (both of its ends list it).
#[derive(Default)]
struct Edges {
    list: Vec<Edge>,
    /// Each edge's place in `list`, found by its identity (its two ends, and whether it
    /// is a rejection) hashed, and compared with the edge there: no identity is held
    /// apart from its edge.
    seen: hashbrown::HashTable<usize>,
    hasher: hashbrown::DefaultHashBuilder,
}

/// How a list of edge entries names an edge's two ends.
struct Reading {
    /// The key naming the other table.
    other_table: &'static str,
    /// The keys naming this table's columns and the other's.
    here: &'static str,
    there: &'static str,
    /// The entry refers from this table (else from the other).
    outgoing: bool,
    /// The entries are a person's rejections.
    rejection: bool,
}

const REFERS_TO: Reading = Reading {
    other_table: "target_table",
    here: "column",
    there: "target_column",
    outgoing: true,
    rejection: false,
};
const REFERENCED_BY: Reading = Reading {
    other_table: "referencer_table",
    here: "column",
    there: "referencer_column",
    outgoing: false,
    rejection: false,
};
const OWN_REJECTION: Reading = Reading {
    rejection: true,
    ..REFERS_TO
};

/// The edges among `entries` (of table `at`) whose other end is a table of the print, onto
/// `out`.
fn read_edges<'v>(
    at: usize,
    entries: impl Iterator<Item = &'v Value>,
    how: &Reading,
    position: &HashMap<String, usize>,
    confirmations: &[Value],
    out: &mut Vec<Edge>,
) {
    for e in entries.filter(|e| matches!(e, Value::Map(_))) {
        let other_name = e.get(how.other_table).and_then(Value::as_str);
        let Some(&other) = other_name.and_then(|t| position.get(t)) else {
            continue;
        };
        let (here, there) = (names(e.get(how.here)), names(e.get(how.there)));
        if here.is_empty() || here.len() != there.len() {
            continue;
        }
        let detection = match e.get("detection").and_then(Value::as_str) {
            _ if how.rejection => "rejected",
            Some(d) if !d.is_empty() => d,
            _ => "inferred",
        };
        let note = e
            .get("note")
            .and_then(Value::as_str)
            .map(|n| n.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|n| !n.is_empty());
        let (from, from_columns, to, to_columns) = if how.outgoing {
            (at, here, other, there)
        } else {
            (other, there, at, here)
        };
        // A person's entry (not a rejection) in this table's own annotation file that
        // addresses an edge the producer emitted confirms it.
        let confirmed = how.outgoing
            && !how.rejection
            && detection != "annotated"
            && confirmations.iter().any(|c| {
                c.get("target_table").and_then(Value::as_str) == other_name
                    && names(c.get("column")) == from_columns
                    && names(c.get("target_column")) == to_columns
            });
        out.push(Edge {
            from,
            from_columns,
            to,
            to_columns,
            detection: detection.to_string(),
            note,
            observed: Observed::read(e),
            confirmed,
        });
    }
}

impl Edges {
    /// `edge`, unless an edge between the same columns with the same standing (rejected
    /// or not) came first; a person's confirmation, read on the referencing side only,
    /// holds for the edge whichever side was read first.
    fn add(&mut self, edge: Edge) {
        use std::hash::BuildHasher;
        fn identity(e: &Edge) -> (usize, usize, &[String], &[String], bool) {
            (
                e.from,
                e.to,
                &e.from_columns,
                &e.to_columns,
                e.detection == "rejected",
            )
        }
        let hash = self.hasher.hash_one(identity(&edge));
        let list = &mut self.list;
        let found = self
            .seen
            .find(hash, |&at| identity(&list[at]) == identity(&edge));
        match found {
            Some(&at) => {
                let kept = &mut list[at];
                kept.confirmed |= edge.confirmed;
                if kept.observed.is_none() {
                    kept.observed = edge.observed;
                }
            }
            None => {
                let hasher = &self.hasher;
                self.seen
                    .insert_unique(hash, list.len(), |&at| hasher.hash_one(identity(&list[at])));
                list.push(edge);
            }
        }
    }
}
