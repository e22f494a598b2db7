//! The catalog validate_sql checks against, built once per snapshot content through the
//! store's cache: every table the print names (with its columns, their storage types and
//! whether the print lists every value, read from the search index's records), and every
//! join edge the print knows, read as get_table_context reads them (people's rejections
//! withheld, their added edges included). Names are held in the spelling the connection's
//! adapter compares. A column's value list itself is read from the index only when a
//! literal is compared with it ([`Domains`]): held for every column, a large print's lists
//! would outweigh the rest of the catalog many times over.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

mod joins_read;
mod kept;
mod same_joins;

use self::joins_read::JoinsRead;
use self::kept::{run, Order, PackedEdges};
use super::dialect::Adapter;
use super::scope::{ColRef, Columns, OutCol};
use super::types::TypeClass;
use crate::error::{internal, QueryError};
use crate::query::list_tables::failed_tables;
use crate::query::value_resolution::value_notes;
use crate::store::cache::Key;
use crate::store::derived::HeldBytes;
use crate::store::search::records::CatalogTable;
use crate::store::search::records::FileState;
use crate::store::Snapshot;
use compat::value::Value;

/// One column of a table of the print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// The print's key (lowercase).
    pub name: String,
    /// The spelling the adapter compares (the catalog's, where recorded).
    pub stored: String,
    pub sql_type: Option<String>,
    /// The print lists every value the column holds (complete, over the whole table, not
    /// redacted): [`Domains`] gives them.
    pub listed: bool,
}

impl Column {
    /// Its storage family.
    pub fn class(&self) -> TypeClass {
        TypeClass::of_sql_type(self.sql_type.as_deref())
    }
}

/// A value list known to be every value the column holds: complete, over the whole table
/// (no scope), not redacted.
#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    /// The list's mapping entries (`value`, `count`...), in file order.
    pub listed: Vec<Value>,
    /// Per-value notes keyed by `str(value)`.
    pub notes: HashMap<String, String>,
    pub coverage: Value,
}

/// A table or view the print names. Kept small: a catalog read back holds 100,000 of them
/// at the largest prints, and a call meets a few.
#[derive(Debug, Clone)]
pub struct Table {
    pub fqn: String,
    /// The stored spelling of the whole FQN, where the adapter spells it otherwise (its
    /// segments are the FQN's: a spelling never adds or drops a dot).
    stored: Option<Box<str>>,
    /// The manifest's `type` (`table`, `view`...).
    kind: Cow<'static, str>,
    /// What [`Table::columns`] reads.
    columns: TableColumns,
    /// Its place in the catalog's tables, and the adapter that spells its columns.
    position: usize,
    adapter: Adapter,
    /// A relationships file was read for it, so a join the print does not list is news.
    pub joins_known: bool,
}

/// Where the value lists of the columns a catalog marks `listed` come from.
pub trait Domains {
    /// The value list of `column` (of table `table`), when the print lists every value.
    fn domain(&self, table: &Table, column: &Column) -> Option<Domain>;
}

/// No value lists: a catalog built by hand.
pub struct NoDomains;

impl Domains for NoDomains {
    fn domain(&self, _: &Table, _: &Column) -> Option<Domain> {
        None
    }
}

/// The value lists of a snapshot's search index (the one the catalog was built from: the
/// catalog is keyed by the snapshot's content).
pub struct IndexDomains<'a>(pub &'a Snapshot);

impl Domains for IndexDomains<'_> {
    fn domain(&self, table: &Table, column: &Column) -> Option<Domain> {
        if !column.listed {
            return None;
        }
        let search = &self.0.search;
        let rank = search.table_rank(&table.fqn)?;
        let record = search.column_by_name(rank, &column.name).ok()??;
        let own = record.resolve.as_ref()?.own.as_ref()?;
        Some(Domain {
            listed: own.listed.clone(),
            notes: value_notes(&record.value_notes),
            coverage: own.coverage.clone(),
        })
    }
}

/// A table's columns, kept packed (postcard bytes, as the kept catalog holds them) and
/// made on first use, with what is derived from them: a call meets a few tables, and
/// 100,000 tables' 770,000 columns took a hundred megabytes made in every process that
/// read the catalog back.
#[derive(Debug, Clone, Default)]
struct TableColumns {
    /// `None`: the print lists no columns for the table. A catalog read back borrows
    /// them from its kept file (`HeldBytes::Lent`), whose pages every process shares.
    packed: Option<HeldBytes>,
    made: OnceLock<Box<MadeColumns>>,
}

/// A table's columns once a call meets the table.
#[derive(Debug, Clone)]
struct MadeColumns {
    columns: Option<Vec<Column>>,
    by_column: OnceLock<HashMap<String, usize>>,
    yields: OnceLock<Arc<Columns>>,
}

impl TableColumns {
    fn new(columns: Option<Vec<Column>>) -> TableColumns {
        let packed = columns.as_ref().map(|c| {
            HeldBytes::Own(
                postcard::to_stdvec(c)
                    .unwrap_or_default()
                    .into_boxed_slice(),
            )
        });
        TableColumns {
            packed,
            made: OnceLock::new(),
        }
    }

    fn from_packed(packed: Option<HeldBytes>) -> TableColumns {
        TableColumns {
            packed,
            made: OnceLock::new(),
        }
    }

    /// The columns, made from their bytes once. Bytes that do not read back (the kept
    /// file's checksum held, so only a bug could make them) list no columns: the table's
    /// columns then go unchecked, as for a table without statistics.
    fn made(&self) -> &MadeColumns {
        self.made.get_or_init(|| {
            let columns = self
                .packed
                .as_deref()
                .and_then(|bytes| postcard::from_bytes(bytes).ok());
            Box::new(MadeColumns {
                columns,
                by_column: OnceLock::new(),
                yields: OnceLock::new(),
            })
        })
    }

    /// Let what was made go, keeping the bytes (a table's place or spelling changed).
    fn release(&mut self) {
        self.made = OnceLock::new();
    }
}

impl Table {
    /// `None`: the print lists no columns for it (no readable statistics, not walkable,
    /// or the last run could not profile it), so its columns are not checked.
    pub fn columns(&self) -> Option<&[Column]> {
        self.columns.made().columns.as_deref()
    }

    /// The stored spelling of its FQN, segments joined by dots.
    fn stored(&self) -> &str {
        self.stored.as_deref().unwrap_or(&self.fqn)
    }

    /// The stored spelling of each FQN segment, the object's own name last.
    pub fn path(&self) -> Vec<String> {
        self.stored().split('.').map(str::to_string).collect()
    }

    /// Its stored name and the stored segment before it ("" for a one-part path).
    fn name_and_parent(&self) -> (&str, &str) {
        let mut segments = self.stored().rsplit('.');
        let name = segments.next().unwrap_or_default();
        (name, segments.next().unwrap_or_default())
    }

    /// The manifest's `type` (`table`, `view`...).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The column stored as `stored`.
    pub fn column(&self, stored: &str) -> Option<usize> {
        self.columns
            .made()
            .by_column
            .get_or_init(|| {
                self.columns()
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(|(j, c)| (c.stored.clone(), j))
                    .collect()
            })
            .get(stored)
            .copied()
    }

    /// Its columns as a relation of a query yields them (open when none are listed).
    pub fn yields(&self) -> Arc<Columns> {
        self.columns
            .made()
            .yields
            .get_or_init(|| {
                Arc::new(match self.columns() {
                    Some(cols) => Columns {
                        list: cols
                            .iter()
                            .enumerate()
                            .map(|(column, c)| OutCol {
                                stored: c.stored.clone(),
                                written: self.adapter.written(&c.stored),
                                origin: Some(ColRef {
                                    table: self.position,
                                    column,
                                }),
                            })
                            .collect(),
                        complete: true,
                    },
                    None => Columns::open(),
                })
            })
            .clone()
    }
}

/// A join the print knows: `from.from_columns` refers to `to.to_columns`, pairwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: usize,
    pub from_columns: Vec<String>,
    pub to: usize,
    pub to_columns: Vec<String>,
    /// `declared`, `inferred`, `annotated` (a person added it)...; `rejected` for an edge
    /// a person rejected.
    pub detection: String,
    /// A person's note on it, when they wrote one.
    pub note: Option<String>,
    /// What joining across it was measured to cost (format spec §2.3.10), when recorded.
    pub observed: Option<Observed>,
    /// A person's annotation entry addresses this emitted edge without rejecting it.
    pub confirmed: bool,
}

/// An edge's `observed` block (format spec §2.3.10): the referencing ("child") side
/// gives the fan-out, the referenced ("parent") side the coverage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    /// Child rows per distinct key that carries one.
    pub fanout_avg: Option<f64>,
    /// The largest group of child rows sharing one key.
    pub fanout_max: Option<f64>,
    /// The share of the parent's distinct keys some child row reaches.
    pub target_coverage: Option<f64>,
    /// The share of the child's distinct keys found in the parent.
    pub containment: Option<f64>,
    /// `false`: the child has more distinct keys than the parent, impossible for a real
    /// reference.
    pub coherent: Option<bool>,
    /// `false`: an endpoint was read under a scope, so no ratio was published.
    pub scope_compatible: Option<bool>,
}

impl Observed {
    /// The block as a relationships entry holds it; `None` when absent or not a mapping.
    pub fn read(entry: &Value) -> Option<Observed> {
        let block = entry
            .get("observed")
            .filter(|b| matches!(b, Value::Map(_)))?;
        let number = |k: &str| match block.get(k) {
            Some(Value::Int(n)) => Some(*n as f64),
            Some(Value::Float(f)) if f.is_finite() => Some(*f),
            _ => None,
        };
        let flag = |k: &str| match block.get(k) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        };
        Some(Observed {
            fanout_avg: number("fanout_avg"),
            fanout_max: number("fanout_max"),
            target_coverage: number("target_coverage"),
            containment: number("containment"),
            coherent: flag("coherent"),
            scope_compatible: flag("scope_compatible"),
        })
    }
}

/// The tables and edges a check reads, with its lookups. The lookups are sorted arrays of
/// positions rather than maps: a catalog read back at 100,000 tables and 118,000 edges
/// held about 40 megabytes of maps, in every process that read it.
#[derive(Debug)]
pub struct Catalog {
    pub adapter: Adapter,
    pub tables: Vec<Table>,
    /// The first FQN segment's stored spelling, when every table shares it.
    pub only_database: Option<String>,
    /// The edges no person rejected.
    edges: PackedEdges,
    /// The lookups over positions, kept with the catalog (sorting them anew took a
    /// catalog read back at 100,000 tables 60 milliseconds).
    order: Order,
    /// Edges a person rejected (`detection: rejected`), by (lower, higher) table pair.
    rejected: HashMap<(usize, usize), Vec<Edge>>,
    /// Each table's record key in the search index (a digest of the files the record is
    /// read from, statistics and their annotations), by position, for the tables whose
    /// columns were read from it. A catalog built after a change takes the columns of
    /// every table whose key held from the catalog before it.
    read_from: Vec<Option<u64>>,
    /// Each table's joins as read, for a catalog built after a change.
    joins_read: JoinsRead,
    /// What every table's joins were read from (`same_joins::joins_version`), when each
    /// table's deciding files have the canonical names: a catalog built after a change
    /// that moved none of them takes its joins whole from this one.
    joins_version: Option<[u8; 32]>,
}

impl Catalog {
    /// The table whose stored path is `path` (the last such, were two spelled alike):
    /// found among the few of its name and parent, so no map keeps every path again.
    pub fn table_at(&self, path: &[String]) -> Option<usize> {
        let (name, before) = path.split_last()?;
        let parent = before.last().map_or("", String::as_str);
        self.named_under(name, parent)
            .iter()
            .rev()
            .map(|&i| i as usize)
            .find(|&i| {
                self.tables[i]
                    .stored()
                    .split('.')
                    .eq(path.iter().map(String::as_str))
            })
    }

    /// The position of the table keyed `fqn`, looked for at `near` first: where a table
    /// nearly always is between two catalogs of one print (a lookup by name took 200 ms for
    /// 100,000 tables).
    fn position_near(&self, fqn: &str, near: Option<usize>) -> Option<usize> {
        near.filter(|&at| self.tables.get(at).is_some_and(|t| t.fqn == fqn))
            .or_else(|| self.position_of(fqn))
    }

    /// The position of the table keyed `fqn`.
    fn position_of(&self, fqn: &str) -> Option<usize> {
        let stored = self.adapter.stored_name(fqn);
        let mut segments = stored.rsplit('.');
        let name = segments.next()?;
        let parent = segments.next().unwrap_or_default();
        self.named_under(name, parent)
            .iter()
            .map(|&i| i as usize)
            .find(|&i| self.tables[i].fqn == fqn)
    }

    /// The tables named `name` whose stored segment before the name is `parent`.
    fn named_under(&self, name: &str, parent: &str) -> &[u32] {
        run(&self.order.by_name, |i| {
            self.tables[i].name_and_parent().cmp(&(name, parent))
        })
    }

    /// The tables named `stored`, in the catalog's order.
    pub fn tables_named(&self, stored: &str) -> Vec<usize> {
        let named = run(&self.order.by_name, |i| {
            self.tables[i].name_and_parent().0.cmp(stored)
        });
        let mut named: Vec<usize> = named.iter().map(|&i| i as usize).collect();
        named.sort_unstable();
        named
    }

    /// The tables named `stored` whose path has `parent` just before the name, and those
    /// whose path is the name alone.
    pub fn tables_under<'c>(
        &'c self,
        parent: &str,
        stored: &str,
    ) -> impl Iterator<Item = usize> + 'c {
        let under = self.named_under(stored, parent);
        let alone = self.named_under(stored, "");
        under.iter().chain(alone).map(|&i| i as usize)
    }

    /// Every distinct stored table name, each name's run of tables stepped over by a
    /// binary search (100,000 tables share a few thousand names).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let by_name = &self.order.by_name;
        let name_of = |i: u32| self.tables[i as usize].name_and_parent().0;
        let mut at = 0;
        std::iter::from_fn(move || {
            let name = name_of(*by_name.get(at)?);
            at += by_name[at..].partition_point(|&j| name_of(j) == name);
            Some(name)
        })
    }

    /// The edges between `a` and `b` a person rejected, either way round.
    pub fn rejected_between(&self, a: usize, b: usize) -> impl Iterator<Item = &Edge> {
        self.rejected
            .get(&(a.min(b), a.max(b)))
            .into_iter()
            .flatten()
    }

    /// Every edge no person rejected, in the order read.
    pub fn edges(&self) -> impl Iterator<Item = Edge> + '_ {
        (0..self.edges.len()).filter_map(|i| self.edges.get(i))
    }

    /// The edges table `t` refers by.
    pub fn edges_from(&self, t: usize) -> impl Iterator<Item = Edge> + '_ {
        run(&self.order.by_from, |i| {
            (self.edges.ends[i].0 as usize).cmp(&t)
        })
        .iter()
        .filter_map(|&i| self.edges.get(i as usize))
    }

    /// The edges between tables `a` and `b`, either way round.
    pub fn edges_between(&self, a: usize, b: usize) -> impl Iterator<Item = Edge> + '_ {
        let wanted = (a.min(b) as u64, a.max(b) as u64);
        run(&self.order.by_pair, move |i| {
            let (x, y) = self.edges.pair(i);
            (x as u64, y as u64).cmp(&wanted)
        })
        .iter()
        .filter_map(|&i| self.edges.get(i as usize))
    }

    pub fn column(&self, table: usize, column: usize) -> Option<&Column> {
        self.tables.get(table)?.columns()?.get(column)
    }

    /// A catalog over `tables` and `edges` as given (tests build one by hand).
    pub fn new(adapter: Adapter, tables: Vec<Table>, all: Vec<Edge>) -> Catalog {
        let (rejected, edges): (Vec<Edge>, Vec<Edge>) =
            all.into_iter().partition(|e| e.detection == "rejected");
        Catalog::assemble(adapter, tables, PackedEdges::of(&edges), rejected, None)
    }

    /// A catalog over its parts; `order`, one kept with them, is taken where it holds.
    fn assemble(
        adapter: Adapter,
        mut tables: Vec<Table>,
        edges: PackedEdges,
        rejected_edges: Vec<Edge>,
        order: Option<Order>,
    ) -> Catalog {
        let mut rejected: HashMap<(usize, usize), Vec<Edge>> = HashMap::new();
        for e in rejected_edges {
            rejected
                .entry((e.from.min(e.to), e.from.max(e.to)))
                .or_default()
                .push(e);
        }
        for (i, t) in tables.iter_mut().enumerate() {
            // Its place and spelling now: what is made from them is made on first use.
            if t.position != i || t.adapter != adapter {
                t.position = i;
                t.adapter = adapter;
                t.columns.release();
            }
        }
        let first: Vec<&str> = tables
            .iter()
            .map(|t| t.stored().split('.').next().unwrap_or_default())
            .collect();
        let only_database = match first.split_first() {
            Some((head, rest)) if tables.iter().all(|t| t.stored().contains('.')) => {
                rest.iter().all(|d| d == head).then(|| head.to_string())
            }
            _ => None,
        };
        let order = order
            .filter(|o| o.holds(&tables, &edges))
            .unwrap_or_else(|| Order::of(&tables, &edges));
        Catalog {
            adapter,
            tables,
            only_database,
            edges,
            order,
            rejected,
            read_from: Vec::new(),
            joins_read: JoinsRead::default(),
            joins_version: None,
        }
    }
}

impl Table {
    /// A table of `fqn` (dotted lowercase keys) with `columns`, spelled for `adapter`.
    pub fn new(adapter: Adapter, fqn: &str, kind: &str, columns: Option<Vec<Column>>) -> Table {
        Table::of_parts(
            adapter,
            fqn.to_string(),
            kind,
            TableColumns::new(columns),
            false,
        )
    }

    fn of_parts(
        adapter: Adapter,
        fqn: String,
        kind: &str,
        columns: TableColumns,
        joins_known: bool,
    ) -> Table {
        let stored = adapter.stored_name(&fqn);
        Table {
            stored: (stored != fqn).then(|| stored.into_boxed_str()),
            fqn,
            kind: match kind {
                "table" => Cow::Borrowed("table"),
                "view" => Cow::Borrowed("view"),
                other => Cow::Owned(other.to_string()),
            },
            columns,
            position: 0,
            adapter,
            joins_known,
        }
    }
}

/// The adapter a connection's print was made with: the manifest's word, else the
/// configuration's.
pub fn adapter_of(state: &Snapshot) -> Adapter {
    let manifest = state
        .manifest_or_error()
        .ok()
        .flatten()
        .and_then(|m| m.field("adapter"))
        .and_then(Value::as_str)
        .filter(|a| !a.trim().is_empty());
    Adapter::from_name(manifest.unwrap_or(&state.config.adapter))
}

/// The catalog of `state`'s print, built once per content (and kept on disk for the
/// processes after this one).
pub fn catalog(state: &Snapshot) -> Result<Arc<Catalog>, QueryError> {
    let (scope, key) = catalog_keys(state);
    let adapter = adapter_of(state);
    state.kept(
        scope,
        key,
        |_| true,
        || {
            // The catalog before a change, this process's or the one kept on disk.
            let before = state
                .kept_in_scope::<Catalog>(&scope)
                .filter(|c| c.adapter == adapter);
            if let Some(before) = before.as_deref() {
                if let Some(rebuilt) = same_joins::rebuilt(state, before)? {
                    return Ok(rebuilt);
                }
            }
            build(state, adapter, before.as_deref())
        },
    )
}

/// Whether the catalog of `state`'s print is held or kept on disk already.
pub fn is_kept(state: &Snapshot) -> bool {
    let (scope, key) = catalog_keys(state);
    state.is_kept(&scope, &key)
}

/// The catalog's scope (the connection's print) and key (its content and adapter).
fn catalog_keys(state: &Snapshot) -> (Key, Key) {
    let adapter = adapter_of(state);
    let key = Key::new(
        "validate_sql catalog",
        [
            state.versions.all().as_slice(),
            state.config.print_root.as_os_str().as_encoded_bytes(),
            adapter.name().as_bytes(),
        ],
    );
    // Held as the connection's current catalog whatever else the cache evicts: a large
    // print's takes seconds to build.
    let scope = Key::new(
        "validate_sql catalog of",
        [state.config.print_root.as_os_str().as_encoded_bytes()],
    );
    (scope, key)
}

/// The columns a table's records list: those its statistics name, for a table whose
/// statistics read; `None` otherwise.
fn columns_of(adapter: Adapter, records: CatalogTable) -> Option<Vec<Column>> {
    if records.stats != Some(FileState::Ok) || records.stats_columns.is_empty() {
        return None;
    }
    let columns = records
        .columns
        .into_iter()
        .filter(|c| records.stats_columns.binary_search(&c.column).is_ok())
        .map(|c| Column {
            stored: adapter.stored_column(&c.column, c.physical_name.as_deref()),
            sql_type: c.sql_type,
            listed: records.whole_table && c.complete_values,
            name: c.column,
        })
        .collect();
    Some(columns)
}

/// Build the catalog; `before`, the connection's catalog before a change, lends the
/// columns of every table whose files held, so only the tables a change touched are read
/// from the search index.
fn build(
    state: &Snapshot,
    adapter: Adapter,
    before: Option<&Catalog>,
) -> Result<Catalog, QueryError> {
    let started = std::time::Instant::now();
    let manifest = state.manifest_or_error()?;
    let mut tables: Vec<Table> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    if let Some(entries) = manifest.map(|m| m.tables()) {
        for (key, entry) in entries.iter() {
            let (Some(fqn), false) = (key.as_str(), matches!(entry, Value::Null)) else {
                continue;
            };
            let kind = entry.get("type").and_then(Value::as_str).unwrap_or("table");
            position.insert(fqn.to_string(), tables.len());
            tables.push(Table::new(adapter, fqn, kind, None));
        }
    }
    // A table the last run could not profile exists, though the print holds nothing of it.
    for fqn in failed_tables(manifest) {
        if !position.contains_key(&fqn) {
            position.insert(fqn.clone(), tables.len());
            tables.push(Table::new(adapter, &fqn, "table", None));
        }
    }
    let lent = |rank: usize| -> Option<&Table> {
        let before = before?;
        let entry = &state.search.tables[rank];
        // Where it was, looked up only when the tables moved (the manifest changed).
        let at = before.position_near(&entry.fqn, position.get(&entry.fqn).copied())?;
        let key = (*before.read_from.get(at)?)?;
        (key == entry.key).then(|| &before.tables[at])
    };
    let search = &state.search;
    search
        .each_catalog_record(&|rank| lent(rank).is_none(), &mut |rank, record| {
            if let Some(&at) = position.get(&search.tables[rank].fqn) {
                tables[at].columns = TableColumns::new(columns_of(adapter, record));
            }
        })
        .map_err(internal)?;
    let read = started.elapsed();
    let mut read_from = vec![None; tables.len()];
    let mut reused = 0usize;
    for (rank, entry) in search.tables.iter().enumerate() {
        let Some(&at) = position.get(&entry.fqn) else {
            continue;
        };
        if let Some(table) = lent(rank) {
            reused += 1;
            tables[at].columns = table.columns.clone();
        }
        // Kept packed, as a catalog read back holds it.
        tables[at].columns.release();
        read_from[at] = Some(entry.key);
    }
    let read_joins = joins_read::read(state, before, &position, &mut tables)?;
    let joined = started.elapsed();
    let mut catalog = Catalog::new(adapter, tables, read_joins.edges);
    catalog.read_from = read_from;
    catalog.joins_read = read_joins.memo;
    catalog.joins_version = read_joins
        .canonically_named
        .then(|| same_joins::joins_version(state));
    let joins_reread = read_joins.reread;
    tracing::debug!(?read, reused, ?joined, joins_reread, total = ?started.elapsed(), "validate_sql catalog built");
    Ok(catalog)
}
