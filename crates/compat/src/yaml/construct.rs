//! PyYAML's SafeConstructor over the composed nodes.
//!
//! Python builds collections lazily: a sequence or mapping is created empty
//! when first met and filled later, breadth-first (its generator is parked
//! in `state_generators`). The order decides which of several errors is
//! raised, so it is kept here: collections are filled from a FIFO queue.
//! Objects are built as a graph first (aliases share one object) and turned
//! into a [`Value`] at the end, where an object reached twice stays one shared
//! allocation, so a value costs what its text holds, not what its aliases expand to.

use std::collections::{HashMap, HashSet, VecDeque};

use super::compose::{Body, Doc, NodeId, Nodes, Tag};
use super::error::MarkedError;
use super::events::Mark;
use super::scalars::{self, FloatOut};
use super::LoadError;
use crate::py::repr_str;
use crate::value::pydict::{Key, PyDict};
use crate::value::Value;

/// A safety net for the two recursive steps (a `=` key's value standing in
/// for a scalar, merges inside merges); the nesting limit keeps real
/// documents far below it, as Python's own limit does not bite there.
const MAX_RECURSION: u32 = 10_000;

/// `SafeConstructor.nan_value` (`-inf/inf`): the sign bit is set on x86.
const NAN_VALUE: u64 = 0xfff8_0000_0000_0000;

/// A constructed Python object: an immutable scalar, PyYAML's one shared
/// NaN, or a collection living in `Ctor::stores`.
#[derive(Debug, Clone)]
enum Obj {
    Val(Value),
    SharedNan,
    Coll(u32),
}

#[derive(Debug)]
enum Store {
    List(Vec<Obj>),
    Dict(PyDict<Obj>),
    Set(PyDict<()>),
    Pairs(Vec<(Obj, Obj)>),
    /// Not filled yet, or already turned into a value.
    Empty,
}

#[derive(Debug, Clone, Copy)]
enum Fill {
    Seq,
    Map,
    Set,
    Omap,
    Pairs,
}

struct Ctor {
    nodes: Nodes,
    /// Reachable through an alias: constructed once, then shared.
    shared: Vec<bool>,
    /// What a shared node was constructed as (only shared nodes are kept: a document
    /// without aliases, the usual one, keeps nothing here).
    cache: HashMap<NodeId, Obj>,
    stores: Vec<Store>,
    queue: VecDeque<(NodeId, u32, Fill)>,
}

type Res<T> = Result<T, LoadError>;

fn constructor_error(e: MarkedError) -> LoadError {
    LoadError::Yaml(e.render())
}

/// `yaml.load` of the composed document.
pub(crate) fn construct(doc: Doc) -> Res<Value> {
    let Some(root) = doc.root else {
        return Ok(Value::Null);
    };
    let shared = shared_nodes(&doc.nodes);
    let mut c = Ctor {
        nodes: doc.nodes,
        shared,
        cache: HashMap::new(),
        stores: Vec::new(),
        queue: VecDeque::new(),
    };
    let obj = c.construct_object(root)?;
    while let Some((id, store, fill)) = c.queue.pop_front() {
        c.fill(id, store, fill)?;
    }
    c.materialize(obj)
}

/// Nodes an alias points at, and everything under them.
fn shared_nodes(nodes: &Nodes) -> Vec<bool> {
    let mut shared = vec![false; nodes.len()];
    let mut stack: Vec<NodeId> = (0..nodes.len() as NodeId)
        .filter(|&i| nodes[i as usize].aliased)
        .collect();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut shared[id as usize], true) {
            continue;
        }
        match &nodes[id as usize].body {
            Body::Scalar(_) => {}
            Body::Seq(items) => stack.extend(items.iter().copied()),
            Body::Map(pairs) => {
                for &(k, v) in pairs {
                    stack.push(k);
                    stack.push(v);
                }
            }
        }
    }
    shared
}

/// What the constructor registered for a tag does.
enum Action {
    Null,
    Bool,
    Int,
    Float,
    Binary,
    Timestamp,
    Str,
    Collection(Fill),
    Undefined,
}

/// `id(key_node.value)` as flatten_mapping compares merged keys: CPython
/// hands out one shared object for the empty string and for every
/// one-character string below U+0100, a fresh one for anything else.
#[derive(Debug, PartialEq, Eq, Hash)]
enum MergeKeyId {
    Node(NodeId),
    Empty,
    Latin1(char),
}

impl Ctor {
    fn start(&self, id: NodeId) -> Mark {
        self.nodes[id as usize].start
    }

    fn construct_object(&mut self, id: NodeId) -> Res<Obj> {
        let shared = self.shared[id as usize];
        if shared {
            if let Some(o) = self.cache.get(&id) {
                return Ok(o.clone());
            }
        }
        let action = match &self.nodes[id as usize].tag {
            Tag::Null => Action::Null,
            Tag::Bool => Action::Bool,
            Tag::Int => Action::Int,
            Tag::Float => Action::Float,
            Tag::Binary => Action::Binary,
            Tag::Timestamp => Action::Timestamp,
            Tag::Str => Action::Str,
            Tag::Seq => Action::Collection(Fill::Seq),
            Tag::Map => Action::Collection(Fill::Map),
            Tag::Set => Action::Collection(Fill::Set),
            Tag::Omap => Action::Collection(Fill::Omap),
            Tag::Pairs => Action::Collection(Fill::Pairs),
            Tag::Merge | Tag::Value | Tag::Other(_) => Action::Undefined,
        };
        let obj = match action {
            Action::Null => {
                self.indirect_scalar(id)?;
                Obj::Val(Value::Null)
            }
            Action::Str => Obj::Val(Value::Str(self.construct_scalar(id, !shared, 0)?)),
            Action::Bool => {
                let indirect = self.indirect_scalar(id)?;
                let s = self.scalar_text(id, &indirect);
                Obj::Val(Value::Bool(
                    scalars::construct_bool(s).map_err(LoadError::Other)?,
                ))
            }
            Action::Int => {
                let indirect = self.indirect_scalar(id)?;
                let s = self.scalar_text(id, &indirect);
                Obj::Val(scalars::construct_int(s).map_err(LoadError::Other)?)
            }
            Action::Float => {
                let indirect = self.indirect_scalar(id)?;
                let s = self.scalar_text(id, &indirect);
                match scalars::construct_float(s).map_err(LoadError::Other)? {
                    FloatOut::Num(f) => Obj::Val(Value::Float(f)),
                    FloatOut::SharedNan => Obj::SharedNan,
                }
            }
            Action::Binary => {
                let indirect = self.indirect_scalar(id)?;
                let s = self.scalar_text(id, &indirect);
                let bytes = scalars::construct_binary(s).map_err(|problem| {
                    constructor_error(MarkedError::problem(problem, self.start(id)))
                })?;
                Obj::Val(Value::Bytes(bytes))
            }
            Action::Timestamp => {
                let indirect = self.indirect_scalar(id)?;
                // The regex runs on `node.value`, which for a mapping
                // holding a `=` key is the list of pairs.
                if indirect.is_some() {
                    return Err(LoadError::Other(
                        "expected string or bytes-like object, got 'list'".to_string(),
                    ));
                }
                let s = self.scalar_text(id, &indirect);
                Obj::Val(scalars::construct_timestamp(s).map_err(LoadError::Other)?)
            }
            Action::Collection(fill) => {
                let store = self.stores.len() as u32;
                self.stores.push(Store::Empty);
                self.queue.push_back((id, store, fill));
                Obj::Coll(store)
            }
            Action::Undefined => {
                let tag = self.nodes[id as usize].tag.full();
                return Err(constructor_error(MarkedError::problem(
                    format!(
                        "could not determine a constructor for the tag {}",
                        repr_str(&tag)
                    ),
                    self.start(id),
                )));
            }
        };
        if shared {
            self.cache.insert(id, obj.clone());
        }
        Ok(obj)
    }

    /// `construct_scalar` without copying a plain scalar's text: `None` when
    /// the node is a scalar (read it with [`Self::scalar_text`]), the text
    /// when it is a mapping standing in for one through a `=` key.
    fn indirect_scalar(&mut self, id: NodeId) -> Res<Option<String>> {
        match self.nodes[id as usize].body {
            Body::Scalar(_) => Ok(None),
            _ => self.construct_scalar(id, false, 0).map(Some),
        }
    }

    fn scalar_text<'s>(&'s self, id: NodeId, indirect: &'s Option<String>) -> &'s str {
        match (indirect, &self.nodes[id as usize].body) {
            (Some(s), _) => s,
            (None, Body::Scalar(s)) => s,
            (None, _) => "",
        }
    }

    /// `SafeConstructor.construct_scalar`. `take` moves the text out of a
    /// node nothing else will read.
    fn construct_scalar(&mut self, id: NodeId, take: bool, depth: u32) -> Res<String> {
        if depth > MAX_RECURSION {
            return Err(LoadError::Other(
                "maximum recursion depth exceeded".to_string(),
            ));
        }
        let node = &self.nodes[id as usize];
        let value_node = match &node.body {
            Body::Scalar(_) => None,
            Body::Map(pairs) => pairs
                .iter()
                .find(|(k, _)| self.nodes[*k as usize].tag == Tag::Value)
                .map(|&(_, v)| v),
            Body::Seq(_) => None,
        };
        if let Some(v) = value_node {
            return self.construct_scalar(v, false, depth + 1);
        }
        let node = &mut self.nodes[id as usize];
        match &mut node.body {
            Body::Scalar(s) => Ok(if take { std::mem::take(s) } else { s.clone() }),
            other => Err(constructor_error(MarkedError::problem(
                format!("expected a scalar node, but found {}", other.kind()),
                node.start,
            ))),
        }
    }

    fn fill(&mut self, id: NodeId, store: u32, fill: Fill) -> Res<()> {
        let start = self.start(id);
        // A node no alias reaches is filled once and read by nothing else
        // (an inline merge source is never filled), so its children can be
        // moved out instead of copied.
        let take = !self.shared[id as usize];
        match fill {
            Fill::Seq => {
                let items = match &mut self.nodes[id as usize].body {
                    Body::Seq(items) if take => std::mem::take(items),
                    Body::Seq(items) => items.clone(),
                    other => {
                        return Err(constructor_error(MarkedError::problem(
                            format!("expected a sequence node, but found {}", other.kind()),
                            start,
                        )))
                    }
                };
                let mut out = Vec::with_capacity(items.len());
                for child in items {
                    out.push(self.construct_object(child)?);
                }
                self.stores[store as usize] = Store::List(out);
            }
            Fill::Map | Fill::Set => {
                if self.has_special_key(id) {
                    self.flatten_mapping(id, 0)?;
                }
                let pairs = match &mut self.nodes[id as usize].body {
                    Body::Map(pairs) if take => std::mem::take(pairs),
                    Body::Map(pairs) => pairs.clone(),
                    other => {
                        return Err(constructor_error(MarkedError::problem(
                            format!("expected a mapping node, but found {}", other.kind()),
                            start,
                        )))
                    }
                };
                let mut dict: PyDict<Obj> = PyDict::new();
                for (k, v) in pairs {
                    let key = match self.construct_object(k)? {
                        Obj::Val(value) => {
                            let nan_id = match value {
                                Value::Float(f) if f.is_nan() => k as u64 + 2,
                                _ => 0,
                            };
                            Key { value, nan_id }
                        }
                        Obj::SharedNan => Key {
                            value: Value::Float(f64::from_bits(NAN_VALUE)),
                            nan_id: 1,
                        },
                        Obj::Coll(_) => {
                            return Err(constructor_error(MarkedError::with_context(
                                "while constructing a mapping",
                                start,
                                "found unhashable key",
                                self.start(k),
                            )))
                        }
                    };
                    let value = self.construct_object(v)?;
                    dict.insert(key, value);
                }
                self.stores[store as usize] = match fill {
                    Fill::Set => {
                        let mut set: PyDict<()> = PyDict::new();
                        for (k, _) in dict.entries {
                            set.insert(k, ());
                        }
                        Store::Set(set)
                    }
                    _ => Store::Dict(dict),
                };
            }
            Fill::Omap | Fill::Pairs => {
                let context = match fill {
                    Fill::Omap => "while constructing an ordered map",
                    _ => "while constructing pairs",
                };
                let items = match &self.nodes[id as usize].body {
                    Body::Seq(items) => items.clone(),
                    other => {
                        return Err(constructor_error(MarkedError::with_context(
                            context,
                            start,
                            format!("expected a sequence, but found {}", other.kind()),
                            start,
                        )))
                    }
                };
                let mut out = Vec::with_capacity(items.len());
                for sub in items {
                    let (k, v) = match &self.nodes[sub as usize].body {
                        Body::Map(p) if p.len() == 1 => p[0],
                        Body::Map(p) => {
                            return Err(constructor_error(MarkedError::with_context(
                                context,
                                start,
                                format!(
                                    "expected a single mapping item, but found {} items",
                                    p.len()
                                ),
                                self.start(sub),
                            )))
                        }
                        other => {
                            return Err(constructor_error(MarkedError::with_context(
                                context,
                                start,
                                format!(
                                    "expected a mapping of length 1, but found {}",
                                    other.kind()
                                ),
                                self.start(sub),
                            )))
                        }
                    };
                    let key = self.construct_object(k)?;
                    let value = self.construct_object(v)?;
                    out.push((key, value));
                }
                self.stores[store as usize] = Store::Pairs(out);
            }
        }
        Ok(())
    }

    /// Whether flatten_mapping has anything to do: a `<<` or `=` key.
    fn has_special_key(&self, id: NodeId) -> bool {
        match &self.nodes[id as usize].body {
            Body::Map(pairs) => pairs
                .iter()
                .any(|&(k, _)| matches!(self.nodes[k as usize].tag, Tag::Merge | Tag::Value)),
            _ => false,
        }
    }

    fn merge_key_id(&self, k: NodeId) -> MergeKeyId {
        if let Body::Scalar(s) = &self.nodes[k as usize].body {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (None, _) => return MergeKeyId::Empty,
                (Some(c), None) if (c as u32) < 0x100 => return MergeKeyId::Latin1(c),
                _ => {}
            }
        }
        MergeKeyId::Node(k)
    }

    fn map_pairs(&self, id: NodeId) -> Vec<(NodeId, NodeId)> {
        match &self.nodes[id as usize].body {
            Body::Map(p) => p.clone(),
            _ => Vec::new(),
        }
    }

    /// `SafeConstructor.flatten_mapping`: merge keys are replaced by the
    /// pairs they bring in (the node itself is rewritten, as PyYAML does).
    fn flatten_mapping(&mut self, id: NodeId, depth: u32) -> Res<()> {
        if depth > MAX_RECURSION {
            return Err(LoadError::Other(
                "maximum recursion depth exceeded".to_string(),
            ));
        }
        let mut merge: Vec<(NodeId, NodeId)> = Vec::new();
        let mut seen: HashSet<MergeKeyId> = HashSet::new();
        let mut index = 0;
        loop {
            let (k, v) = match &self.nodes[id as usize].body {
                Body::Map(p) if index < p.len() => p[index],
                _ => break,
            };
            match self.nodes[k as usize].tag {
                Tag::Merge => {
                    if let Body::Map(p) = &mut self.nodes[id as usize].body {
                        p.remove(index);
                    }
                    let subnodes: Vec<NodeId> = match &self.nodes[v as usize].body {
                        Body::Map(_) => vec![v],
                        Body::Seq(items) => items.clone(),
                        Body::Scalar(_) => {
                            return Err(constructor_error(MarkedError::with_context(
                                "while constructing a mapping",
                                self.start(id),
                                "expected a mapping or list of mappings for merging, but found scalar",
                                self.start(v),
                            )))
                        }
                    };
                    for sub in subnodes {
                        let body = &self.nodes[sub as usize].body;
                        if !matches!(body, Body::Map(_)) {
                            return Err(constructor_error(MarkedError::with_context(
                                "while constructing a mapping",
                                self.start(id),
                                format!(
                                    "expected a mapping for merging, but found {}",
                                    body.kind()
                                ),
                                self.start(sub),
                            )));
                        }
                        self.flatten_mapping(sub, depth + 1)?;
                        for pair in self.map_pairs(sub) {
                            if seen.insert(self.merge_key_id(pair.0)) {
                                merge.push(pair);
                            }
                        }
                    }
                }
                Tag::Value => {
                    self.nodes[k as usize].tag = Tag::Str;
                    index += 1;
                }
                _ => index += 1,
            }
        }
        if !merge.is_empty() {
            if let Body::Map(p) = &mut self.nodes[id as usize].body {
                merge.append(p);
                *p = merge;
            }
        }
        Ok(())
    }

    /// Turns the object graph into a [`Value`]. Collections referenced once are
    /// moved; shared ones are built once and shared. A collection that contains
    /// itself has no such form.
    fn materialize(mut self, root: Obj) -> Res<Value> {
        let n = self.stores.len();
        let mut refs = vec![0u32; n];
        let mut count = |o: &Obj| {
            if let Obj::Coll(i) = o {
                refs[*i as usize] = refs[*i as usize].saturating_add(1);
            }
        };
        count(&root);
        for s in &self.stores {
            match s {
                Store::List(items) => items.iter().for_each(&mut count),
                Store::Dict(d) => d.entries.iter().for_each(|(_, v)| count(v)),
                Store::Pairs(p) => p.iter().for_each(|(k, v)| {
                    count(k);
                    count(v)
                }),
                Store::Set(_) | Store::Empty => {}
            }
        }
        let mut m = Materializer {
            stores: std::mem::take(&mut self.stores),
            refs,
            state: vec![0; n],
            built: vec![None; n],
        };
        drop(self);
        m.run(root)
    }
}

/// What a collection is being built into.
enum Acc {
    List(Vec<Value>),
    /// Keys are known up front; values arrive in order into slot `.1`.
    Map(Vec<(Value, Value)>, usize),
    Pairs(Vec<Value>),
}

struct Frame {
    store: u32,
    acc: Acc,
    pending: std::vec::IntoIter<Obj>,
}

impl Frame {
    fn push(&mut self, v: Value) {
        match &mut self.acc {
            Acc::List(out) | Acc::Pairs(out) => out.push(v),
            Acc::Map(out, next) => {
                if let Some(slot) = out.get_mut(*next) {
                    slot.1 = v;
                }
                *next += 1;
            }
        }
    }

    fn finish(self) -> Value {
        match self.acc {
            Acc::List(out) => Value::seq(out),
            Acc::Map(out, _) => Value::map(out),
            Acc::Pairs(out) => {
                let mut pairs = Vec::with_capacity(out.len() / 2);
                let mut it = out.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push(Value::seq(vec![k, v]));
                }
                Value::seq(pairs)
            }
        }
    }
}

enum Next {
    Ready(Value),
    Open(u32),
}

struct Materializer {
    stores: Vec<Store>,
    refs: Vec<u32>,
    /// 0 not started, 1 being built, 2 built.
    state: Vec<u8>,
    /// Built values of collections referenced more than once (each one allocation).
    built: Vec<Option<Value>>,
}

fn recursive_error() -> LoadError {
    LoadError::Other(
        "a collection that contains itself (through an alias) cannot be represented".to_string(),
    )
}

impl Materializer {
    fn resolve(&mut self, obj: Obj) -> Res<Next> {
        match obj {
            Obj::Val(v) => Ok(Next::Ready(v)),
            Obj::SharedNan => Ok(Next::Ready(Value::Float(f64::from_bits(NAN_VALUE)))),
            Obj::Coll(i) => match self.state[i as usize] {
                0 => {
                    self.state[i as usize] = 1;
                    Ok(Next::Open(i))
                }
                1 => Err(recursive_error()),
                _ => match &self.built[i as usize] {
                    Some(v) => Ok(Next::Ready(v.clone())),
                    None => Err(recursive_error()),
                },
            },
        }
    }

    fn open(&mut self, i: u32) -> Frame {
        let store = std::mem::replace(&mut self.stores[i as usize], Store::Empty);
        let (acc, pending) = match store {
            Store::List(items) => (Acc::List(Vec::with_capacity(items.len())), items),
            Store::Dict(d) => {
                let mut out = Vec::with_capacity(d.entries.len());
                let mut vals = Vec::with_capacity(d.entries.len());
                for (k, v) in d.entries {
                    out.push((k.value, Value::Null));
                    vals.push(v);
                }
                (Acc::Map(out, 0), vals)
            }
            Store::Set(s) => (
                Acc::Map(
                    s.entries
                        .into_iter()
                        .map(|(k, _)| (k.value, Value::Null))
                        .collect(),
                    0,
                ),
                Vec::new(),
            ),
            Store::Pairs(p) => {
                let mut flat = Vec::with_capacity(p.len() * 2);
                for (k, v) in p {
                    flat.push(k);
                    flat.push(v);
                }
                (Acc::Pairs(Vec::with_capacity(flat.len())), flat)
            }
            Store::Empty => (Acc::List(Vec::new()), Vec::new()),
        };
        Frame {
            store: i,
            acc,
            pending: pending.into_iter(),
        }
    }

    fn run(&mut self, root: Obj) -> Res<Value> {
        let mut stack: Vec<Frame> = Vec::new();
        match self.resolve(root)? {
            Next::Ready(v) => return Ok(v),
            Next::Open(i) => {
                let f = self.open(i);
                stack.push(f);
            }
        }
        while let Some(top) = stack.last_mut() {
            if let Some(obj) = top.pending.next() {
                match self.resolve(obj)? {
                    Next::Ready(v) => {
                        if let Some(top) = stack.last_mut() {
                            top.push(v);
                        }
                    }
                    Next::Open(i) => {
                        let f = self.open(i);
                        stack.push(f);
                    }
                }
                continue;
            }
            let Some(frame) = stack.pop() else { break };
            let store = frame.store as usize;
            let value = frame.finish();
            self.state[store] = 2;
            if self.refs[store] > 1 {
                self.built[store] = Some(value.clone());
            }
            match stack.last_mut() {
                None => return Ok(value),
                Some(parent) => parent.push(value),
            }
        }
        Ok(Value::Null)
    }
}
