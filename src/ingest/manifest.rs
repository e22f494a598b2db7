//! A walkable manifest as a snapshot holds it: the document's other keys as values, and
//! its `tables` entries packed one by one (`compat::value::packed`), each made into a
//! value when a call asks for it. A 100,000-table manifest's entries take about 150 MB as
//! values and 30 MB packed, and a call reads a page of them, or one.

use std::hash::BuildHasher;
use std::sync::{Arc, OnceLock};

use compat::value::{packed, Value};
use serde::{Deserialize, Serialize};

/// The manifest, `tables` held apart (see [`ManifestTables`]).
#[derive(Clone, Debug)]
pub struct Manifest {
    /// The document's keys other than `tables`, in order.
    head: Value,
    tables: ManifestTables,
}

impl Manifest {
    /// `doc` (a mapping) with `entries` as its `tables`.
    pub fn new(doc: &Value, entries: &[(Value, Value)]) -> Manifest {
        let head = doc
            .as_map()
            .unwrap_or_default()
            .iter()
            .filter(|(k, _)| k.as_str() != Some("tables"))
            .cloned()
            .collect();
        Manifest {
            head: Value::map(head),
            tables: ManifestTables::from_entries(entries),
        }
    }

    /// The value of a top-level key other than `tables` (read through
    /// [`Manifest::tables`]).
    pub fn field(&self, key: &str) -> Option<&Value> {
        debug_assert_ne!(key, "tables", "the tables are read through tables()");
        self.head.get(key)
    }

    /// The top-level keys other than `tables`, in order.
    pub fn fields(&self) -> &[(Value, Value)] {
        self.head.as_map().unwrap_or_default()
    }

    pub fn tables(&self) -> &ManifestTables {
        &self.tables
    }

    /// This manifest, with the entries its walk dropped, in the form `derived/` keeps it:
    /// `None` when its entries are held as values (the kept form is packed bytes, which
    /// cannot say that two entries share a collection).
    pub fn to_kept(&self, dropped: &[String]) -> Option<KeptManifest> {
        let Values::Packed { bytes, ends } = &self.tables.0.values else {
            return None;
        };
        Some(KeptManifest {
            head: self.head.clone(),
            keys: Value::seq(self.tables.0.keys.clone()),
            bytes: bytes.clone(),
            ends: ends.clone(),
            dropped: dropped.to_vec(),
        })
    }
}

/// A walkable manifest as `derived/` keeps it, so that a start can answer from it before
/// it has read the manifest again (see `store::head`): its other keys, its entries' keys
/// and packed entries, and the entries its walk dropped.
#[derive(Serialize, Deserialize)]
pub struct KeptManifest {
    #[serde(with = "packed::bytes")]
    head: Value,
    /// The entries' keys, as one sequence.
    #[serde(with = "packed::bytes")]
    keys: Value,
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    ends: Vec<u32>,
    dropped: Vec<String>,
}

impl KeptManifest {
    /// The manifest and its dropped entries again, or `None` when the parts do not fit
    /// together (a kept file is a cache: the caller reads the manifest instead).
    pub fn into_manifest(self) -> Option<(Manifest, Vec<String>)> {
        let keys = match self.keys {
            // The only holder of the sequence just decoded: taken, not copied.
            Value::Seq(items) => Arc::unwrap_or_clone(items),
            _ => return None,
        };
        let fits = keys.len() == self.ends.len()
            && self.ends.windows(2).all(|w| w[0] <= w[1])
            && self.ends.last().map_or(0, |&e| e as usize) == self.bytes.len();
        if !fits || self.head.as_map().is_none() {
            return None;
        }
        let tables = ManifestTables(Arc::new(Entries {
            keys,
            values: Values::Packed {
                bytes: self.bytes,
                ends: self.ends,
            },
            by_key: OnceLock::new(),
            by_text: OnceLock::new(),
        }));
        let manifest = Manifest {
            head: self.head,
            tables,
        };
        Some((manifest, self.dropped))
    }
}

/// A manifest's `tables` entries in the manifest's order. Cloning shares them.
#[derive(Clone, Debug)]
pub struct ManifestTables(Arc<Entries>);

#[derive(Debug)]
struct Entries {
    keys: Vec<Value>,
    values: Values,
    /// Each `str` key's position (the first, were a key spelled twice): made on the first
    /// call that looks a table up, which waits for it (100,000 keys at 100,000 tables).
    by_key: OnceLock<Positions>,
    /// Each key's position by its text as `str()` spells it (the last, were a text
    /// spelled twice), as a walk of the entries into a dict would find it.
    by_text: OnceLock<Positions>,
}

/// Positions of keys, looked up by text. Each key's text is hashed where it lies, not
/// copied: a start makes this for every table before its first answer.
#[derive(Debug, Default)]
struct Positions {
    table: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

/// A key's text: a `str` as it is, another key as `str()` spells it.
fn text_of(key: &Value) -> std::borrow::Cow<'_, str> {
    match key.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(compat::py::str_of(key)),
    }
}

impl Positions {
    /// `wanted` keys' positions; a text met again keeps its first position, or takes the
    /// later one when `later_wins`.
    fn of(keys: &[Value], wanted: impl Fn(&Value) -> bool, later_wins: bool) -> Positions {
        let mut made = Positions {
            table: hashbrown::HashTable::with_capacity(keys.len()),
            hasher: Default::default(),
        };
        let hasher = made.hasher.clone();
        let hash = |text: &str| hasher.hash_one(text);
        for (i, key) in keys.iter().enumerate().filter(|(_, k)| wanted(k)) {
            let text = text_of(key);
            let h = hash(&text);
            match made
                .table
                .find_mut(h, |&j| text_of(&keys[j as usize]) == text)
            {
                Some(at) if later_wins => *at = i as u32,
                Some(_) => {}
                None => {
                    made.table
                        .insert_unique(h, i as u32, |&j| hash(&text_of(&keys[j as usize])));
                }
            }
        }
        made
    }

    fn get(&self, keys: &[Value], text: &str) -> Option<usize> {
        self.table
            .find(self.hasher.hash_one(text), |&j| {
                text_of(&keys[j as usize]) == text
            })
            .map(|&j| j as usize)
    }
}

#[derive(Debug)]
enum Values {
    /// Entry `i` is `bytes[ends[i - 1]..ends[i]]` (from 0).
    Packed { bytes: Vec<u8>, ends: Vec<u32> },
    /// Entries in which a collection stands twice (a YAML alias): kept as values.
    Held(Vec<Value>),
}

impl ManifestTables {
    /// `entries` (a mapping's pairs, in order), packed unless a collection stands twice
    /// among them.
    pub fn from_entries(entries: &[(Value, Value)]) -> ManifestTables {
        let values = match packed::to_bytes_apart(entries.iter().map(|(_, v)| v)) {
            Some((bytes, ends)) => Values::Packed { bytes, ends },
            None => Values::Held(entries.iter().map(|(_, v)| v.clone()).collect()),
        };
        ManifestTables(Arc::new(Entries {
            keys: entries.iter().map(|(k, _)| k.clone()).collect(),
            values,
            by_key: OnceLock::new(),
            by_text: OnceLock::new(),
        }))
    }

    pub fn len(&self) -> usize {
        self.0.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.keys.is_empty()
    }

    /// The `i`-th entry's key.
    pub fn key(&self, i: usize) -> &Value {
        &self.0.keys[i]
    }

    pub fn keys(&self) -> &[Value] {
        &self.0.keys
    }

    /// The `i`-th entry's value. Packed bytes this process wrote read back; were they
    /// ever not to, the entry reads as `None` (a table without an entry).
    pub fn entry(&self, i: usize) -> Value {
        match &self.0.values {
            Values::Held(values) => values[i].clone(),
            Values::Packed { bytes, ends } => {
                let start = if i == 0 { 0 } else { ends[i - 1] as usize };
                packed::from_bytes(&bytes[start..ends[i] as usize]).unwrap_or(Value::Null)
            }
        }
    }

    /// The `i`-th entry cut to `keys` (those it holds, as `Value::get` finds them): what a
    /// reader of a few fields needs, without making the rest of a packed entry.
    pub fn entry_cut(&self, i: usize, keys: &[&str]) -> Value {
        let field = |key: &str| match &self.0.values {
            Values::Held(values) => values[i].get(key).cloned(),
            Values::Packed { bytes, ends } => {
                let start = if i == 0 { 0 } else { ends[i - 1] as usize };
                packed::field(&bytes[start..ends[i] as usize], key)
                    .ok()
                    .flatten()
            }
        };
        Value::map(
            keys.iter()
                .filter_map(|&k| Some((Value::Str(k.into()), field(k)?)))
                .collect(),
        )
    }

    /// The position of the entry whose key is the string `key`.
    pub fn position(&self, key: &str) -> Option<usize> {
        let keys = &self.0.keys;
        self.0
            .by_key
            .get_or_init(|| Positions::of(keys, |k| k.as_str().is_some(), false))
            .get(keys, key)
    }

    /// Each key's text as `str()` spells it, in order, borrowed where the key is a `str`.
    pub fn key_texts(&self) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
        self.0.keys.iter().map(text_of)
    }

    /// The position of the last entry whose key `str()` spells as `text`.
    pub fn position_by_text(&self, text: &str) -> Option<usize> {
        let keys = &self.0.keys;
        self.0
            .by_text
            .get_or_init(|| Positions::of(keys, |_| true, true))
            .get(keys, text)
    }

    /// The entry whose key is the string `key`, as `Value::get` finds it in a mapping.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.position(key).map(|i| self.entry(i))
    }

    /// Every entry in order, each made as it is reached.
    pub fn iter(&self) -> impl Iterator<Item = (&Value, Value)> + '_ {
        self.0
            .keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k, self.entry(i)))
    }

    /// The entries as the manifest's `tables` mapping.
    pub fn to_value(&self) -> Value {
        Value::map(self.iter().map(|(k, v)| (k.clone(), v)).collect::<Vec<_>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Value {
        compat::yaml::load(text).unwrap()
    }

    fn entries(doc: &Value) -> Vec<(Value, Value)> {
        doc.get("tables").unwrap().as_map().unwrap().to_vec()
    }

    #[test]
    fn the_tables_read_back_as_the_manifest_holds_them() {
        let text = "format_version: 1\ntables:\n  a.b.c:\n    path: a/b/c\n    row_count: 3\n    artifacts: {ddl: ddl.sql}\n  1: null\n  a.b.d: {path: a/b/d}\nconnection: x\n";
        let d = doc(text);
        let m = Manifest::new(&d, &entries(&d));
        assert_eq!(m.field("connection"), d.get("connection"));
        let keys: Vec<_> = m.fields().iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(
            keys,
            [
                Value::Str("format_version".into()),
                Value::Str("connection".into())
            ]
        );
        assert_eq!(&m.tables().to_value(), d.get("tables").unwrap());
        assert_eq!(m.tables().len(), 3);
        assert_eq!(m.tables().position("a.b.d"), Some(2));
        assert_eq!(
            m.tables().get("a.b.c").as_ref(),
            d.get("tables").unwrap().get("a.b.c")
        );
        // A key that is not a string is an entry, found by place, not by name.
        assert_eq!(m.tables().key(1), &Value::Int(1));
        assert_eq!(m.tables().entry(1), Value::Null);
        assert_eq!(m.tables().position("1"), None);
        let cut = m.tables().entry_cut(0, &["path", "artifacts", "absent"]);
        let whole = m.tables().entry(0);
        assert_eq!(cut.get("path"), whole.get("path"));
        assert_eq!(cut.get("artifacts"), whole.get("artifacts"));
        assert_eq!(cut.as_map().unwrap().len(), 2);
        assert_eq!(m.tables().entry_cut(1, &["path"]), Value::map(Vec::new()));
        assert!(matches!(m.tables().0.values, Values::Packed { .. }));
    }

    #[test]
    fn keys_are_found_by_name_first_spelling_and_by_text_last() {
        let keys = [
            Value::Str("a.b".into()),
            Value::Int(1),
            Value::Str("1".into()),
            Value::Str("a.b".into()),
            Value::Bool(true),
        ];
        let pairs: Vec<(Value, Value)> = keys.iter().map(|k| (k.clone(), Value::Null)).collect();
        let tables = ManifestTables::from_entries(&pairs);
        // By name: `str` keys only, the first of a name spelled twice.
        assert_eq!(tables.position("a.b"), Some(0));
        assert_eq!(tables.position("1"), Some(2));
        assert_eq!(tables.position("True"), None);
        // By text: every key as `str()` spells it, the last of a text met twice.
        assert_eq!(tables.position_by_text("a.b"), Some(3));
        assert_eq!(tables.position_by_text("1"), Some(2));
        assert_eq!(tables.position_by_text("True"), Some(4));
        assert_eq!(tables.position_by_text("absent"), None);
        // Many keys: each found where it stands.
        let many: Vec<(Value, Value)> = (0..5000)
            .map(|i| (Value::Str(format!("db.s.t{i}")), Value::Null))
            .collect();
        let many = ManifestTables::from_entries(&many);
        assert!((0..5000).all(|i| many.position(&format!("db.s.t{i}")) == Some(i)));
        assert!((0..5000).all(|i| many.position_by_text(&format!("db.s.t{i}")) == Some(i)));
    }

    #[test]
    fn a_kept_manifest_reads_back_as_the_one_kept() {
        let text = "format_version: 1\ntables:\n  a.b.c: {path: a/b/c, row_count: 3}\n  2: null\nconnection: x\n";
        let d = doc(text);
        let m = Manifest::new(&d, &entries(&d));
        let dropped = vec!["a.b.z".to_string()];
        let kept = m.to_kept(&dropped).unwrap();
        let bytes = postcard::to_stdvec(&kept).unwrap();
        let back: KeptManifest = postcard::from_bytes(&bytes).unwrap();
        let (again, dropped_again) = back.into_manifest().unwrap();
        assert_eq!(dropped_again, dropped);
        assert_eq!(again.fields(), m.fields());
        assert_eq!(again.tables().keys(), m.tables().keys());
        assert_eq!(again.tables().to_value(), m.tables().to_value());
        assert_eq!(again.tables().position("a.b.c"), Some(0));
        // Parts that do not fit together are refused, not read.
        let mut torn = m.to_kept(&dropped).unwrap();
        torn.ends.pop();
        assert!(torn.into_manifest().is_none());
        let empty = Manifest::new(&doc("tables: {}\n"), &[]);
        let (none, _) = empty.to_kept(&[]).unwrap().into_manifest().unwrap();
        assert!(none.tables().is_empty());
    }

    #[test]
    fn entries_that_share_a_collection_are_held_as_values() {
        let text = "tables:\n  a.b.c: &e {path: a/b/c}\n  a.b.d: *e\n";
        let d = doc(text);
        let m = Manifest::new(&d, &entries(&d));
        assert!(matches!(m.tables().0.values, Values::Held(_)));
        let (c, d2) = (m.tables().entry(0), m.tables().entry(1));
        // Still one collection, as Python holds it (a YAML writer would spell an alias).
        match (&c, &d2) {
            (Value::Map(x), Value::Map(y)) => assert!(Arc::ptr_eq(x, y)),
            _ => panic!("{c:?}"),
        }
        assert_eq!(&m.tables().to_value(), d.get("tables").unwrap());
        assert!(m.to_kept(&[]).is_none(), "held entries are not kept");
    }
}
