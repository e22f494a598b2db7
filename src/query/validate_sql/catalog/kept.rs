//! The catalog as `derived/` keeps it, and what makes it quick to read back: its edges
//! packed in one run of bytes, and its lookups' order kept beside them rather than sorted
//! again by every process that reads it.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::{Catalog, Edge, Table, TableColumns};
use crate::query::validate_sql::dialect::Adapter;
use crate::store::derived::{HeldBytes, Kept};

/// A catalog's lookups: positions in sorted order, each looked up by binary search.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub(super) struct Order {
    /// Table positions by stored name, then the stored segment before it ("" for a
    /// one-part path), then position: a name's tables, and a qualified name's few
    /// candidates, are each one run of it.
    pub(super) by_name: Box<[u32]>,
    /// Edge positions by (lower, higher) table position, then position.
    pub(super) by_pair: Box<[u32]>,
    /// Edge positions by the table they refer from, then position.
    pub(super) by_from: Box<[u32]>,
}

impl Order {
    pub(super) fn of(tables: &[Table], edges: &PackedEdges) -> Order {
        Order {
            by_name: positions_by(tables.len(), |i| tables[i].name_and_parent()),
            by_pair: positions_by(edges.len(), |i| edges.pair(i)),
            by_from: positions_by(edges.len(), |i| edges.ends[i].0),
        }
    }

    /// Whether every lookup orders what it should as it should (a kept order is taken
    /// only then: a wrong one would find wrong tables).
    pub(super) fn holds(&self, tables: &[Table], edges: &PackedEdges) -> bool {
        sorted_by(&self.by_name, tables.len(), |i| tables[i].name_and_parent())
            && sorted_by(&self.by_pair, edges.len(), |i| edges.pair(i))
            && sorted_by(&self.by_from, edges.len(), |i| edges.ends[i].0)
    }
}

/// Whether `order` holds each of `0..len` once, ordered by `key` and then by position.
fn sorted_by<K: Ord>(order: &[u32], len: usize, key: impl Fn(usize) -> K) -> bool {
    let mut seen = vec![false; len];
    let once = order.len() == len
        && order.iter().all(|&i| {
            seen.get_mut(i as usize)
                .is_some_and(|s| !std::mem::replace(s, true))
        });
    once && order.windows(2).all(|w| {
        let (a, b) = (w[0] as usize, w[1] as usize);
        (key(a), a) < (key(b), b)
    })
}

/// A catalog's edges, each packed (postcard) in one run of bytes and made when a call
/// meets it: 118,000 edges made whole took about 40 megabytes in every process that read
/// the catalog back.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub(super) struct PackedEdges {
    /// Each edge's tables: the one it refers from, the one it refers to.
    pub(super) ends: Vec<(u32, u32)>,
    /// Where each edge's bytes end in `bytes`.
    limits: Vec<u32>,
    /// Lent by the kept file in a catalog read back (`derived::HeldBytes`).
    bytes: HeldBytes,
}

impl PackedEdges {
    pub(super) fn of(edges: &[Edge]) -> PackedEdges {
        let mut packed = PackedEdges::default();
        let mut all = Vec::new();
        for e in edges {
            // An edge that does not pack (it cannot fail for these types) is left out.
            if let Ok(bytes) = postcard::to_stdvec(e) {
                packed.ends.push((e.from as u32, e.to as u32));
                all.extend_from_slice(&bytes);
                packed.limits.push(all.len() as u32);
            }
        }
        packed.bytes = HeldBytes::Own(all.into_boxed_slice());
        packed
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Edge `i`'s two tables, the lower position first.
    pub(super) fn pair(&self, i: usize) -> (u32, u32) {
        let (from, to) = self.ends[i];
        (from.min(to), from.max(to))
    }

    /// Edge `i`, made from its bytes; `None` for bytes that do not read back (the kept
    /// file's checksum held, so only a bug could make them).
    pub(super) fn get(&self, i: usize) -> Option<Edge> {
        let start = match i {
            0 => 0,
            _ => *self.limits.get(i - 1)? as usize,
        };
        let end = *self.limits.get(i)? as usize;
        postcard::from_bytes(self.bytes.get(start..end)?).ok()
    }

    /// Whether each edge's bytes lie in order within `bytes`.
    fn whole(&self) -> bool {
        self.limits.len() == self.ends.len()
            && self.limits.windows(2).all(|w| w[0] <= w[1])
            && self
                .limits
                .last()
                .is_none_or(|&l| l as usize == self.bytes.len())
    }
}

/// The run of `sorted` (positions ordered by `order`) that `order` finds `Equal`.
pub(super) fn run(sorted: &[u32], order: impl Fn(usize) -> Ordering) -> &[u32] {
    let start = sorted.partition_point(|&i| order(i as usize) == Ordering::Less);
    let len = sorted[start..].partition_point(|&i| order(i as usize) != Ordering::Greater);
    &sorted[start..start + len]
}

/// `0..len` as positions, ordered by `key` and then by position (each key made once).
fn positions_by<K: Ord>(len: usize, key: impl Fn(usize) -> K) -> Box<[u32]> {
    let mut keyed: Vec<(K, u32)> = (0..len).map(|i| (key(i), i as u32)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The catalog as kept on disk: what `Catalog::new` indexes, and the record keys a
/// catalog built after a change lends columns by (in this process or the next). The
/// joins read table by table are kept in a file of their own (`JoinsRead`), which only a
/// build after a change reads: here they would double what every start reads back.
#[derive(Serialize, Deserialize)]
struct Stored<T, P, E, R, O> {
    adapter: Adapter,
    tables: Vec<T>,
    /// The edges no person rejected, packed as the catalog holds them.
    edges: P,
    /// The edges a person rejected.
    rejected: Vec<E>,
    /// `Catalog::read_from`.
    read_from: R,
    /// `Catalog::order`.
    order: O,
    /// `Catalog::joins_version`.
    joins_version: Option<[u8; 32]>,
}

/// A table as kept: what `Catalog::new` does not derive (its stored spelling is the
/// adapter's). Its columns are kept as the table holds them, packed (`TableColumns`).
#[derive(Serialize, Deserialize)]
struct StoredTable<S, C> {
    fqn: S,
    kind: S,
    /// `serde_bytes`' types, written and read as one run of bytes.
    columns: Option<C>,
    joins_known: bool,
}

impl Serialize for Catalog {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let rejected = self.rejected.values().flatten();
        Stored {
            adapter: self.adapter,
            tables: self
                .tables
                .iter()
                .map(|t| StoredTable {
                    fqn: t.fqn.as_str(),
                    kind: t.kind(),
                    columns: t.columns.packed.as_deref().map(serde_bytes::Bytes::new),
                    joins_known: t.joins_known,
                })
                .collect(),
            edges: &self.edges,
            rejected: rejected.collect(),
            read_from: &self.read_from,
            order: &self.order,
            joins_version: self.joins_version,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Catalog {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Catalog, D::Error> {
        // Read back from a mapped file, the columns and the edges' bytes are lent by it,
        // not copied: at 100,000 tables they are most of the catalog, and the file's
        // pages are then shared by every process that reads it back.
        type Read =
            Stored<StoredTable<String, HeldBytes>, PackedEdges, Edge, Vec<Option<u64>>, Order>;
        let stored = Read::deserialize(deserializer)?;
        let tables = stored
            .tables
            .into_iter()
            .map(|t| {
                let columns = TableColumns::from_packed(t.columns);
                Table::of_parts(stored.adapter, t.fqn, &t.kind, columns, t.joins_known)
            })
            .collect();
        if !stored.edges.whole() {
            return Err(serde::de::Error::custom(
                "an edge's bytes lie outside the catalog's",
            ));
        }
        let mut catalog = Catalog::assemble(
            stored.adapter,
            tables,
            stored.edges,
            stored.rejected,
            Some(stored.order),
        );
        catalog.read_from = stored.read_from;
        catalog.joins_version = stored.joins_version;
        Ok(catalog)
    }
}

impl Kept for Catalog {
    /// 2: a table's columns kept as packed bytes. 3: no stored paths (the adapter spells
    /// them); record keys by table position; edges packed; the lookups' order kept.
    /// 4: the joins' version.
    const ENCODING: u32 = 4;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: usize, to: usize, column: &str) -> Edge {
        Edge {
            from,
            from_columns: vec![column.to_string()],
            to,
            to_columns: vec!["id".to_string()],
            detection: "inferred".to_string(),
            note: (from == 2).then(|| "a person's note".to_string()),
            observed: None,
            confirmed: from == 1,
        }
    }

    #[test]
    fn packed_edges_read_back_as_they_were_and_refuse_torn_bytes() {
        let edges = vec![edge(1, 0, "a_id"), edge(2, 0, "b_id"), edge(0, 2, "c_id")];
        let packed = PackedEdges::of(&edges);
        assert!(packed.whole());
        let back: Vec<Edge> = (0..packed.len()).filter_map(|i| packed.get(i)).collect();
        assert_eq!(back, edges);
        assert_eq!(packed.pair(2), (0, 2));
        assert_eq!(packed.get(3), None, "past the last edge");
        let mut torn = PackedEdges::of(&edges);
        let cut = torn.bytes.len() - 1;
        torn.bytes = HeldBytes::Own(torn.bytes[..cut].into());
        assert!(!torn.whole(), "the last edge's bytes run past the end");
    }

    #[test]
    fn an_order_holds_only_when_it_sorts_each_position_once() {
        let keys = [3, 1, 2, 1];
        let order = positions_by(keys.len(), |i| keys[i]);
        assert_eq!(&*order, &[1, 3, 2, 0], "by key, then by position");
        assert!(sorted_by(&order, keys.len(), |i| keys[i]));
        assert!(
            !sorted_by(&[3, 1, 2, 0], keys.len(), |i| keys[i]),
            "ties out of order"
        );
        assert!(
            !sorted_by(&[1, 1, 2, 0], keys.len(), |i| keys[i]),
            "a position twice"
        );
        assert!(
            !sorted_by(&[1, 3, 2, 7], keys.len(), |i| keys[i]),
            "out of range"
        );
        assert!(
            !sorted_by(&[1, 3, 2], keys.len(), |i| keys[i]),
            "one missing"
        );
        assert_eq!(run(&order, |i| keys[i].cmp(&1)), &[1, 3]);
        assert_eq!(run(&order, |i| keys[i].cmp(&9)), &[] as &[u32]);
    }

    #[test]
    fn a_kept_order_that_does_not_hold_is_made_again() {
        let adapter = Adapter::Postgres;
        let fqns = ["db.s.t", "db.x.t", "db.s.u"];
        let tables = || {
            fqns.iter()
                .map(|f| Table::new(adapter, f, "table", None))
                .collect::<Vec<_>>()
        };
        let edges = vec![edge(1, 0, "a_id"), edge(2, 0, "b_id")];
        let wrong = Order {
            by_name: vec![2, 1, 0].into(),
            by_pair: vec![1, 0].into(),
            by_from: vec![0, 0].into(),
        };
        let cat = Catalog::assemble(
            adapter,
            tables(),
            PackedEdges::of(&edges),
            Vec::new(),
            Some(wrong),
        );
        let path = |f: &str| f.split('.').map(String::from).collect::<Vec<_>>();
        assert_eq!(cat.table_at(&path("db.x.t")), Some(1));
        assert_eq!(cat.tables_named("t"), vec![0, 1]);
        assert_eq!(cat.names().collect::<Vec<_>>(), ["t", "u"]);
        assert_eq!(
            cat.edges_from(2).collect::<Vec<_>>(),
            vec![edges[1].clone()]
        );
        assert_eq!(cat.edges_between(0, 1).count(), 1);
        // Read back whole, it answers as the one built.
        let bytes = postcard::to_stdvec(&cat).unwrap();
        let back: Catalog = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.edges().collect::<Vec<_>>(), edges);
        assert_eq!(&*back.order.by_name, &*cat.order.by_name);
        assert_eq!(back.table_at(&path("db.s.u")), Some(2));
    }
}
