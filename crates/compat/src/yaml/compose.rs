//! Events to a node graph, as PyYAML's CParser composes them (get_single_node):
//! aliases share nodes, tags are resolved as nodes are made.

use std::collections::HashMap;

use super::error::MarkedError;
use super::events::{
    self, Ev, Event, Failure, Mark, NestingViolation, ParseFailure, Props, Shadow,
};
use super::parser::Parser;
use super::scalars::resolve_plain;
use super::LoadError;

/// A node's tag, with the ones SafeConstructor knows spelled out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tag {
    Null,
    Bool,
    Int,
    Float,
    Binary,
    Timestamp,
    Omap,
    Pairs,
    Set,
    Str,
    Seq,
    Map,
    Merge,
    Value,
    Other(Box<str>),
}

const YAML_PREFIX: &str = "tag:yaml.org,2002:";

impl Tag {
    fn parse(tag: &str) -> Tag {
        let Some(short) = tag.strip_prefix(YAML_PREFIX) else {
            return Tag::Other(tag.into());
        };
        match short {
            "null" => Tag::Null,
            "bool" => Tag::Bool,
            "int" => Tag::Int,
            "float" => Tag::Float,
            "binary" => Tag::Binary,
            "timestamp" => Tag::Timestamp,
            "omap" => Tag::Omap,
            "pairs" => Tag::Pairs,
            "set" => Tag::Set,
            "str" => Tag::Str,
            "seq" => Tag::Seq,
            "map" => Tag::Map,
            "merge" => Tag::Merge,
            "value" => Tag::Value,
            _ => Tag::Other(tag.into()),
        }
    }

    /// The full tag text, as PyYAML holds it on the node.
    pub(crate) fn full(&self) -> String {
        let short = match self {
            Tag::Other(t) => return t.to_string(),
            Tag::Null => "null",
            Tag::Bool => "bool",
            Tag::Int => "int",
            Tag::Float => "float",
            Tag::Binary => "binary",
            Tag::Timestamp => "timestamp",
            Tag::Omap => "omap",
            Tag::Pairs => "pairs",
            Tag::Set => "set",
            Tag::Str => "str",
            Tag::Seq => "seq",
            Tag::Map => "map",
            Tag::Merge => "merge",
            Tag::Value => "value",
        };
        format!("{YAML_PREFIX}{short}")
    }
}

pub(crate) type NodeId = u32;

#[derive(Debug)]
pub(crate) enum Body {
    Scalar(String),
    Seq(Vec<NodeId>),
    Map(Vec<(NodeId, NodeId)>),
}

impl Body {
    /// PyYAML's `node.id`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Body::Scalar(_) => "scalar",
            Body::Seq(_) => "sequence",
            Body::Map(_) => "mapping",
        }
    }
}

#[derive(Debug)]
pub(crate) struct Node {
    pub tag: Tag,
    pub body: Body,
    pub start: Mark,
    /// Some alias refers to this node.
    pub aliased: bool,
}

/// The composed document: every node, and the root (none for an empty stream).
pub(crate) struct Doc {
    pub nodes: Nodes,
    pub root: Option<NodeId>,
}

/// Nodes of a chunk after the first: a large document grows by whole chunks.
const CHUNK: usize = 1 << 12;

/// A document's nodes, indexed by [`NodeId`], kept in chunks of [`CHUNK`] (the first grows
/// as a `Vec` does): a large document's nodes (millions for a 100,000-table manifest)
/// never move, where a `Vec` doubling would copy hundreds of megabytes and hold both
/// copies at once, the peak of a parse.
#[derive(Default)]
pub(crate) struct Nodes {
    /// Every chunk but the last holds exactly [`CHUNK`] nodes; none is empty.
    chunks: Vec<Vec<Node>>,
    len: usize,
}

impl Nodes {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn push(&mut self, node: Node) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(node),
            _ => {
                let mut chunk = Vec::with_capacity(if self.chunks.is_empty() { 0 } else { CHUNK });
                chunk.push(node);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    /// The nodes from `at` on, taken out (as `Vec::split_off`).
    fn split_off(&mut self, at: usize) -> Nodes {
        let mut tail = Nodes::default();
        if at >= self.len {
            return tail;
        }
        let first = at / CHUNK;
        let mut moved: Vec<Vec<Node>> = self.chunks.drain(first + 1..).collect();
        moved.insert(0, self.chunks[first].split_off(at % CHUNK));
        if self.chunks[first].is_empty() {
            self.chunks.pop();
        }
        self.len = at;
        moved.into_iter().flatten().for_each(|node| tail.push(node));
        tail
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Node> {
        self.chunks.iter_mut().flatten()
    }
}

impl std::ops::Index<usize> for Nodes {
    type Output = Node;

    fn index(&self, id: usize) -> &Node {
        &self.chunks[id / CHUNK][id % CHUNK]
    }
}

impl std::ops::IndexMut<usize> for Nodes {
    fn index_mut(&mut self, id: usize) -> &mut Node {
        &mut self.chunks[id / CHUNK][id % CHUNK]
    }
}

/// Events, with libyaml 0.2.6's nesting limit laid over them.
struct Events<'a> {
    parser: Parser<'a>,
    violation: Option<NestingViolation>,
    text: &'a str,
    /// Byte offset of the violation in the raw input (after any BOM).
    violation_raw: usize,
}

impl<'a> Events<'a> {
    fn new(text: &'a str, shadow: Option<&'a Shadow>) -> Events<'a> {
        let input = text.as_bytes();
        let violation = if events::may_reach_nesting_limit(input) {
            events::nesting_violation(text)
        } else {
            None
        };
        // Poison the byte 0.2.6 stops at, so that the 0.2.5 scanner fails at
        // the same event. Unusable when the reader would fail on its own
        // somewhere: it checks whole 16 KiB chunks ahead of the scanner,
        // which the byte-by-byte feeding near the poison would change.
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let violation_raw = violation.map_or(0, |v| v.at.index as usize + bom);
        let poison = violation
            .filter(|_| text.chars().all(events::reader_accepts))
            .map(|_| violation_raw);
        Events {
            parser: Parser::new(input, poison, shadow),
            violation,
            text,
            violation_raw,
        }
    }

    fn next(&mut self) -> Result<Ev, ComposeError> {
        let poisoned = self.parser.poison();
        match (self.parser.next_event(), self.violation) {
            (Ok(ev), Some(v)) if poisoned.is_none() && ev.start.index >= v.from.index => {
                // Without the poison: 0.2.6 stops scanning there, so nothing
                // from it on exists.
                Err(LoadError::Yaml(v.error_text()).into())
            }
            (Ok(ev), _) => Ok(ev),
            (Err(f), Some(v)) => {
                let at_poison =
                    poisoned.is_some() && f.reader_offset.map(|o| o as usize) == poisoned;
                let past = poisoned.is_none()
                    && (f.at.is_some_and(|at| at.index >= v.from.index)
                        || f.reader_offset.is_some_and(|r| {
                            events::reader_chunk_start(self.text, r as usize) > self.violation_raw
                        }));
                if at_poison || past {
                    Err(LoadError::Yaml(v.error_text()).into())
                } else {
                    Err(failure(f))
                }
            }
            (Err(f), None) => Err(failure(f)),
        }
    }
}

/// Why composing stopped: a load error, or a shadow text that must be
/// given up for the original.
enum ComposeError {
    Load(LoadError),
    ShadowMismatch,
    /// A split compose met what it does not split (see [`compose_split`]).
    Unsplittable,
}

impl From<LoadError> for ComposeError {
    fn from(e: LoadError) -> Self {
        ComposeError::Load(e)
    }
}

fn failure(f: ParseFailure) -> ComposeError {
    match f.error {
        Failure::Yaml(text) => LoadError::Yaml(text).into(),
        Failure::Memory => LoadError::Other(String::new()).into(),
        Failure::ShadowMismatch => ComposeError::ShadowMismatch,
    }
}

enum Frame {
    Seq(NodeId),
    Map(NodeId, Option<NodeId>),
}

fn composer_error(e: MarkedError) -> ComposeError {
    LoadError::Yaml(e.render()).into()
}

/// `CParser.get_single_node`.
pub(crate) fn compose(text: &str) -> Result<Doc, LoadError> {
    if let Some(shadow) = events::shadow_for(text) {
        match compose_from(Events::new(&shadow.text, Some(&shadow)), None) {
            Err(ComposeError::ShadowMismatch | ComposeError::Unsplittable) => {}
            Err(ComposeError::Load(e)) => return Err(e),
            Ok(doc) => return Ok(doc),
        }
    }
    match compose_from(Events::new(text, None), None) {
        Ok(doc) => Ok(doc),
        Err(ComposeError::Load(e)) => Err(e),
        // Only a shadow text can mismatch, and only a split is unsplittable.
        Err(ComposeError::ShadowMismatch | ComposeError::Unsplittable) => {
            Err(LoadError::Other(String::new()))
        }
    }
}

/// A split compose's state: the root mapping's `key`, whose value it hands out in pieces.
pub(crate) struct Split<'a> {
    key: &'a str,
    shape: Shape,
    item: &'a mut dyn FnMut(Doc) -> bool,
    /// The list's (or mapping's) node, once its key has been composed.
    part: Option<NodeId>,
    /// Whether the root mapping has shown `key` already.
    key_seen: bool,
}

/// What a split compose hands out one at a time: a list's items, or a mapping's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Each item of a plain list is a document of its own.
    List,
    /// Each entry of a plain mapping is a document of its own: a mapping of that one
    /// entry, which starts where the whole mapping starts (so its errors read alike).
    Map,
}

/// [`compose`] of a document whose root mapping holds a long list (or mapping, as `shape`
/// says) under `key`, never holding it whole: each item (or entry) is composed into a
/// document of its own and handed to `item` (which answers whether to go on), and the
/// returned document has it empty. `None` when the text is not that plain shape or does
/// not compose: an anchor or alias anywhere (an item could share nodes with another), a
/// tag on the root or the part, `key` twice or a merge key in the root, a merge or value
/// key in a split mapping, a text that needs a shadow, or any error. The caller then
/// composes the whole text, which also gives the exact error.
pub(crate) fn compose_split(
    text: &str,
    key: &str,
    shape: Shape,
    item: &mut dyn FnMut(Doc) -> bool,
) -> Option<Doc> {
    if events::shadow_for(text).is_some() {
        return None;
    }
    let mut split = Split {
        key,
        shape,
        item,
        part: None,
        key_seen: false,
    };
    compose_from(Events::new(text, None), Some(&mut split)).ok()
}

fn compose_from(mut events: Events, split: Option<&mut Split>) -> Result<Doc, ComposeError> {
    let mut doc = Doc {
        nodes: Nodes::default(),
        root: None,
    };
    events.next()?; // STREAM-START
    let first = events.next()?;
    if matches!(first.event, Event::StreamEnd) {
        return Ok(doc);
    }
    let root = compose_document(&mut events, &mut doc.nodes, split)?;
    doc.root = Some(root);
    let after = events.next()?;
    if !matches!(after.event, Event::StreamEnd) {
        return Err(composer_error(MarkedError::with_context(
            "expected a single document in the stream",
            doc.nodes[root as usize].start,
            "but found another document",
            after.start,
        )));
    }
    Ok(doc)
}

/// One document's node events (after its DOCUMENT-START) and its
/// DOCUMENT-END; iterative so that nesting costs no stack.
fn compose_document(
    events: &mut Events,
    nodes: &mut Nodes,
    mut split: Option<&mut Split>,
) -> Result<NodeId, ComposeError> {
    let mut anchors: HashMap<String, NodeId> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let root = loop {
        let ev = events.next()?;
        let start = ev.start;
        if let Some(split) = split.as_deref_mut() {
            split.admit(&ev.event, &stack, nodes)?;
        }
        let done: Option<NodeId> = match ev.event {
            Event::Alias { anchor } => match anchors.get(&anchor) {
                Some(&id) => {
                    nodes[id as usize].aliased = true;
                    Some(id)
                }
                None => {
                    return Err(composer_error(MarkedError::problem(
                        "found undefined alias",
                        start,
                    )))
                }
            },
            Event::Scalar {
                props,
                value,
                plain_implicit,
            } => {
                check_anchor(&anchors, nodes, &props, start)?;
                let tag = match &props.tag {
                    Some(t) => Tag::parse(t),
                    None if plain_implicit => resolve_plain(&value),
                    None => Tag::Str,
                };
                let id = push_node(nodes, tag, Body::Scalar(value), start);
                if let Some(a) = props.anchor {
                    anchors.insert(a, id);
                }
                Some(id)
            }
            Event::SequenceStart { props } => {
                check_anchor(&anchors, nodes, &props, start)?;
                let tag = props.tag.as_deref().map_or(Tag::Seq, Tag::parse);
                let id = push_node(nodes, tag, Body::Seq(Vec::new()), start);
                if let Some(a) = props.anchor {
                    anchors.insert(a, id);
                }
                stack.push(Frame::Seq(id));
                if let Some(split) = split.as_deref_mut() {
                    split.note_part(&stack, nodes);
                }
                None
            }
            Event::MappingStart { props } => {
                check_anchor(&anchors, nodes, &props, start)?;
                let tag = props.tag.as_deref().map_or(Tag::Map, Tag::parse);
                let id = push_node(nodes, tag, Body::Map(Vec::new()), start);
                if let Some(a) = props.anchor {
                    anchors.insert(a, id);
                }
                stack.push(Frame::Map(id, None));
                if let Some(split) = split.as_deref_mut() {
                    split.note_part(&stack, nodes);
                }
                None
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq(id)) | Some(Frame::Map(id, _)) => Some(id),
                None => None,
            },
            // libyaml never interleaves these with a document's nodes.
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd => {
                None
            }
        };
        let Some(id) = done else { continue };
        if let Some(split) = split.as_deref_mut() {
            if split.hand_out(id, &mut stack, nodes)? {
                continue;
            }
        }
        match stack.last_mut() {
            None => break id,
            Some(Frame::Seq(parent)) => {
                if let Body::Seq(items) = &mut nodes[*parent as usize].body {
                    items.push(id);
                }
            }
            Some(Frame::Map(parent, pending)) => match pending.take() {
                None => *pending = Some(id),
                Some(key) => {
                    if let Body::Map(pairs) = &mut nodes[*parent as usize].body {
                        pairs.push((key, id));
                    }
                }
            },
        }
    };
    events.next()?; // DOCUMENT-END
    Ok(root)
}

impl Split<'_> {
    /// Refuse, before it is composed, an event that would make the split unfaithful.
    fn admit(&mut self, event: &Event, stack: &[Frame], nodes: &Nodes) -> Result<(), ComposeError> {
        let props = match event {
            Event::Alias { .. } => return Err(ComposeError::Unsplittable),
            Event::Scalar { props, .. }
            | Event::SequenceStart { props }
            | Event::MappingStart { props } => props,
            _ => return Ok(()),
        };
        if props.anchor.is_some() {
            return Err(ComposeError::Unsplittable);
        }
        match stack {
            // The root: a plain mapping, or nothing to split.
            [] if !matches!(event, Event::MappingStart { .. }) || props.tag.is_some() => {
                Err(ComposeError::Unsplittable)
            }
            [Frame::Map(_, Some(key))] if self.is_key(&nodes[*key as usize]) => {
                match (event, self.shape) {
                    (Event::SequenceStart { props }, Shape::List)
                    | (Event::MappingStart { props }, Shape::Map)
                        if props.tag.is_none() =>
                    {
                        Ok(())
                    }
                    // Not a plain list (or mapping): nothing to split.
                    _ => Err(ComposeError::Unsplittable),
                }
            }
            _ => Ok(()),
        }
    }

    /// Whether `node` is the root's `key` (a `str`, as Python's dict compares it).
    fn is_key(&self, node: &Node) -> bool {
        node.tag == Tag::Str && matches!(&node.body, Body::Scalar(s) if s == self.key)
    }

    /// Called with each node composed: a root key is checked, the list is noted when it
    /// starts, and a finished item of the list is cut out and handed on (`true`: the
    /// node is consumed).
    fn hand_out(
        &mut self,
        id: NodeId,
        stack: &mut [Frame],
        nodes: &mut Nodes,
    ) -> Result<bool, ComposeError> {
        match stack {
            [Frame::Map(_, None)] => {
                let node = &nodes[id as usize];
                if node.tag == Tag::Merge || (self.is_key(node) && self.key_seen) {
                    return Err(ComposeError::Unsplittable);
                }
                self.key_seen |= self.is_key(node);
                Ok(false)
            }
            [Frame::Map(_, Some(_)), Frame::Seq(list)] if self.part == Some(*list) => {
                let doc = Doc {
                    nodes: cut_out(nodes, id),
                    root: Some(0),
                };
                self.hand(doc)
            }
            [Frame::Map(_, Some(_)), Frame::Map(map, pending)] if self.part == Some(*map) => {
                let Some(key) = pending.take() else {
                    // An entry's key: the merge (`<<`) and value (`=`) keys act on the
                    // whole mapping, so one entry alone would not construct alike.
                    return match nodes[id as usize].tag {
                        Tag::Merge | Tag::Value => Err(ComposeError::Unsplittable),
                        _ => Ok(false),
                    };
                };
                let start = nodes[*map as usize].start;
                let mut own = cut_out(nodes, key);
                own.push(Node {
                    tag: Tag::Map,
                    body: Body::Map(vec![(0, id - key)]),
                    start,
                    aliased: false,
                });
                let root = (own.len() - 1) as NodeId;
                self.hand(Doc {
                    nodes: own,
                    root: Some(root),
                })
            }
            _ => Ok(false),
        }
    }

    /// Hand one item's document on: `true` (consumed) unless `item` asks to stop.
    fn hand(&mut self, doc: Doc) -> Result<bool, ComposeError> {
        if (self.item)(doc) {
            Ok(true)
        } else {
            Err(ComposeError::Unsplittable)
        }
    }

    /// Note the list's (or mapping's) node as it starts (called after it is pushed).
    fn note_part(&mut self, stack: &[Frame], nodes: &Nodes) {
        let (key, part) = match (stack, self.shape) {
            ([Frame::Map(_, Some(key)), Frame::Seq(list)], Shape::List) => (key, list),
            ([Frame::Map(_, Some(key)), Frame::Map(map, None)], Shape::Map) => (key, map),
            _ => return,
        };
        if self.part.is_none() && self.is_key(&nodes[*key as usize]) {
            self.part = Some(*part);
        }
    }
}

/// The nodes from `first` on, taken out and numbered from 0. Without aliases (a split
/// refuses them), every node from an item's first on is the item's own.
fn cut_out(nodes: &mut Nodes, first: NodeId) -> Nodes {
    let mut own = nodes.split_off(first as usize);
    for node in own.iter_mut() {
        match &mut node.body {
            Body::Scalar(_) => {}
            Body::Seq(items) => items.iter_mut().for_each(|i| *i -= first),
            Body::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
                *k -= first;
                *v -= first;
            }),
        }
    }
    own
}

fn push_node(nodes: &mut Nodes, tag: Tag, body: Body, start: Mark) -> NodeId {
    nodes.push(Node {
        tag,
        body,
        start,
        aliased: false,
    });
    (nodes.len() - 1) as NodeId
}

fn check_anchor(
    anchors: &HashMap<String, NodeId>,
    nodes: &Nodes,
    props: &Props,
    start: Mark,
) -> Result<(), ComposeError> {
    if let Some(a) = &props.anchor {
        if let Some(&first) = anchors.get(a) {
            return Err(composer_error(MarkedError::with_context(
                "found duplicate anchor; first occurrence",
                nodes[first as usize].start,
                "second occurrence",
                start,
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(i: usize) -> Node {
        Node {
            tag: Tag::Str,
            body: Body::Scalar(i.to_string()),
            start: Mark::default(),
            aliased: false,
        }
    }

    fn text(node: &Node) -> &str {
        match &node.body {
            Body::Scalar(s) => s,
            _ => "",
        }
    }

    #[test]
    fn nodes_index_across_chunks_and_split_off_keeps_order() {
        let n = 2 * CHUNK + 17;
        let mut nodes = Nodes::default();
        (0..n).for_each(|i| nodes.push(scalar(i)));
        assert_eq!(nodes.len(), n);
        for i in [0, CHUNK - 1, CHUNK, 2 * CHUNK, n - 1] {
            assert_eq!(text(&nodes[i]), i.to_string());
        }
        nodes[CHUNK].aliased = true;
        assert!(nodes[CHUNK].aliased && !nodes[CHUNK + 1].aliased);

        // A cut inside a chunk, and one on a chunk's first node: what is left is whole and
        // still grows; what is cut keeps its order from index 0.
        for at in [CHUNK + 5, CHUNK] {
            let mut nodes = Nodes::default();
            (0..n).for_each(|i| nodes.push(scalar(i)));
            let mut tail = nodes.split_off(at);
            assert_eq!((nodes.len(), tail.len()), (at, n - at));
            assert_eq!(text(&nodes[at - 1]), (at - 1).to_string());
            assert_eq!(text(&tail[0]), at.to_string());
            assert_eq!(text(&tail[n - at - 1]), (n - 1).to_string());
            assert_eq!(tail.iter_mut().count(), n - at);
            nodes.push(scalar(at));
            assert_eq!(text(&nodes[at]), at.to_string());
            assert_eq!(nodes.iter_mut().count(), at + 1);
        }
        assert_eq!(Nodes::default().split_off(0).len(), 0);
    }
}
