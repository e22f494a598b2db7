//! YAML text exactly as PyYAML 6.0 writes it.
//!
//! Three producers are reproduced byte for byte:
//! - [`safe_dump`]: `yaml.safe_dump(v, sort_keys=False, default_flow_style=False)`, what the
//!   reference's `format: yaml` replies carry;
//! - [`try_dbprint_dump`]: dbprint's artifact dumper (`engine/yaml_dumper.py` `dump_yaml`), so a
//!   re-serialized `relationships.yaml` / `diff.yaml` matches what `dbprint generate` wrote;
//! - [`try_flow_inline`]: dbprint's `spell_inline`, one value on one line for Markdown.
//!
//! The pipeline mirrors PyYAML's: a representer turns the value into scalar/collection events
//! (tag, implicit flags, requested style; plain-scalar resolution is the loader's own), and a
//! port of `yaml.emitter.Emitter`'s state machine (`emitter.rs`) writes them. A collection
//! that stands in several places (one shared allocation, Python's one object) is written once
//! with an anchor and then as aliases, as PyYAML's serializer does (`&id001`, `*id001`).

use std::borrow::Cow;
use std::collections::HashMap;

use super::compose::Tag;
use super::scalars::resolve_plain;
use crate::py::{date_str, datetime_isoformat, datetime_str, float_repr, is_printable, is_space};
use crate::value::{DateTime, Value};

mod emitter;
#[cfg(test)]
mod tests;

use emitter::Emitter;

/// The reference refuses to write this value into an artifact (dbprint raises
/// `UnrepresentableValue`): only `bytes` can reach that among loaded values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no artifact spelling for a bytes value")]
pub struct Unrepresentable;

/// `yaml.safe_dump(v, sort_keys=False, default_flow_style=False)`: width 80, indent 2,
/// `allow_unicode=False`, SafeRepresenter.
pub fn safe_dump(v: &Value) -> String {
    let opts = Opts {
        rep: Rep::Safe,
        flow: false,
        allow_unicode: false,
        width: 80,
    };
    // The safe representer accepts every Value, so this never falls back.
    dump(v, opts).unwrap_or_default()
}

/// dbprint's `dump_yaml(v)`: `yaml.dump` with its ArtifactDumper, `default_flow_style=False`,
/// `sort_keys=False`, `allow_unicode=True`. Fails where the reference raises (a `bytes` value).
pub fn try_dbprint_dump(v: &Value) -> Result<String, Unrepresentable> {
    dump(
        v,
        Opts {
            rep: Rep::Artifact,
            flow: false,
            allow_unicode: true,
            width: 80,
        },
    )
}

/// dbprint's `spell_inline(v)`: one physical line that `yaml.safe_load` reads back as `v`.
/// Fails where the reference raises (a `bytes` value anywhere in `v`).
pub fn try_flow_inline(v: &Value) -> Result<String, Unrepresentable> {
    match v {
        Value::Seq(items) => {
            let parts: Result<Vec<String>, _> = items.iter().map(spell_nested).collect();
            Ok(format!("[{}]", parts?.join(", ")))
        }
        Value::Map(pairs) => {
            let mut parts = Vec::with_capacity(pairs.len());
            for (k, val) in pairs.iter() {
                parts.push(format!("{}: {}", spell_nested(k)?, spell_nested(val)?));
            }
            Ok(format!("{{{}}}", parts.join(", ")))
        }
        Value::Str(s) if s.chars().any(escaped) => Ok(double_quoted(s)),
        _ => {
            let text = dump_flow(v)?;
            if let Value::Str(s) = v {
                // Only U+0020 can be left here: every other whitespace is an escaped character.
                if !text.starts_with(['\'', '"']) && text.chars().any(is_space) {
                    return Ok(format!("'{}'", s.replace('\'', "''")));
                }
            }
            Ok(text)
        }
    }
}

fn spell_nested(v: &Value) -> Result<String, Unrepresentable> {
    match v {
        Value::Seq(_) | Value::Map(_) => try_flow_inline(v),
        Value::Str(s) if s.chars().any(escaped) => Ok(double_quoted(s)),
        _ => {
            // A one-element flow sequence, so the scalar is quoted for a flow context.
            let text = dump_flow(&Value::seq(vec![v.clone()]))?;
            let mut chars = text.chars();
            chars.next();
            chars.next_back();
            Ok(chars.as_str().to_string())
        }
    }
}

/// `yaml.dump(v, Dumper=ArtifactDumper, default_flow_style=True, allow_unicode=True,
/// width=math.inf)` less its document-end marker and final newline.
fn dump_flow(v: &Value) -> Result<String, Unrepresentable> {
    let text = dump(
        v,
        Opts {
            rep: Rep::Artifact,
            flow: true,
            allow_unicode: true,
            width: usize::MAX / 4,
        },
    )?;
    let text = text.strip_suffix("\n...\n").unwrap_or(&text);
    Ok(text.strip_suffix('\n').unwrap_or(text).to_string())
}

/// dbprint's `_escaped`: the characters `spell_inline` prints escaped, categories Cc, Cf, Zl,
/// Zp, Co, Cs, Cn and every space separator but U+0020. That is exactly the set
/// `str.isprintable()` rejects (CPython's makeunicodedata.py derives its PRINTABLE flag from
/// the same categories), so Python's one table serves both.
pub fn escaped(c: char) -> bool {
    !is_printable(c)
}

/// dbprint's `_double_quoted`: its own escaping (lowercase hex), not the emitter's.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if !escaped(c) => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

// ---------------------------------------------------------------------------------------------
// Representer and serializer: Value -> events.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rep {
    /// `yaml.SafeDumper`.
    Safe,
    /// dbprint's `ArtifactDumper`.
    Artifact,
}

#[derive(Clone, Copy)]
struct Opts {
    rep: Rep,
    /// `default_flow_style`.
    flow: bool,
    allow_unicode: bool,
    width: usize,
}

fn dump(v: &Value, opts: Opts) -> Result<String, Unrepresentable> {
    let mut events = vec![Event::StreamStart, Event::DocumentStart];
    let mut anchors = Anchors::default();
    anchors.assign(v);
    Serializer {
        opts,
        anchors,
        events: &mut events,
    }
    .serialize(v)?;
    events.push(Event::DocumentEnd);
    events.push(Event::StreamEnd);
    let mut emitter = Emitter::new(&events, opts);
    emitter.run();
    Ok(emitter.out)
}

struct ScalarEvent<'v> {
    /// Suffix after `tag:yaml.org,2002:`.
    tag: &'static str,
    /// (plain scalar resolves to `tag`, any quoted scalar resolves to `tag`).
    implicit: (bool, bool),
    /// The text, borrowed from the value where it is its own spelling.
    value: Cow<'v, str>,
    /// The representer's requested style: None, `'`, `"` or `|`.
    style: Option<char>,
}

/// A collection's anchor: `id001` is 1.
type Anchor = u32;

enum Event<'v> {
    StreamStart,
    DocumentStart,
    DocumentEnd,
    StreamEnd,
    Scalar(ScalarEvent<'v>),
    SequenceStart { flow: bool, anchor: Option<Anchor> },
    SequenceEnd,
    MappingStart { flow: bool, anchor: Option<Anchor> },
    MappingEnd,
    Alias(Anchor),
}

/// `ANCHOR_TEMPLATE`.
fn anchor_name(a: Anchor) -> String {
    format!("id{a:03}")
}

/// The identity of a collection that may stand in more than one place (Python's `id()`;
/// scalars are never aliased, as `ignore_aliases` says).
fn shared_id(v: &Value) -> Option<usize> {
    match v {
        Value::Seq(a) if std::sync::Arc::strong_count(a) > 1 => {
            Some(std::sync::Arc::as_ptr(a) as usize)
        }
        Value::Map(a) if std::sync::Arc::strong_count(a) > 1 => {
            Some(std::sync::Arc::as_ptr(a) as usize)
        }
        _ => None,
    }
}

/// How often `Serializer.anchor_node` met a collection, and whether it is written yet.
enum Mark {
    Once,
    Anchored(Anchor),
    Written(Anchor),
}

/// `Serializer.anchor_node`: a collection met a second time in document order gets the next
/// anchor; what is under it was walked the first time.
#[derive(Default)]
struct Anchors {
    seen: HashMap<usize, Mark>,
    last: Anchor,
}

impl Anchors {
    fn assign(&mut self, v: &Value) {
        if let Some(id) = shared_id(v) {
            match self.seen.get_mut(&id) {
                Some(mark) => {
                    if matches!(mark, Mark::Once) {
                        self.last += 1;
                        *mark = Mark::Anchored(self.last);
                    }
                    return;
                }
                None => {
                    self.seen.insert(id, Mark::Once);
                }
            }
        }
        match v {
            Value::Seq(items) => items.iter().for_each(|item| self.assign(item)),
            Value::Map(pairs) => pairs.iter().for_each(|(k, val)| {
                self.assign(k);
                self.assign(val);
            }),
            _ => {}
        }
    }
}

struct Serializer<'a, 'v> {
    opts: Opts,
    anchors: Anchors,
    events: &'a mut Vec<Event<'v>>,
}

impl<'v> Serializer<'_, 'v> {
    /// `Serializer.serialize_node`: an anchored collection already written is an alias.
    fn serialize(&mut self, v: &'v Value) -> Result<(), Unrepresentable> {
        let mut anchor = None;
        if let Some(id) = shared_id(v) {
            match self.anchors.seen.get(&id) {
                Some(Mark::Written(a)) => {
                    self.events.push(Event::Alias(*a));
                    return Ok(());
                }
                Some(&Mark::Anchored(a)) => {
                    anchor = Some(a);
                    self.anchors.seen.insert(id, Mark::Written(a));
                }
                _ => {}
            }
        }
        match v {
            Value::Seq(items) => {
                self.events.push(Event::SequenceStart {
                    flow: self.opts.flow,
                    anchor,
                });
                for item in items.iter() {
                    self.serialize(item)?;
                }
                self.events.push(Event::SequenceEnd);
            }
            Value::Map(pairs) => {
                self.events.push(Event::MappingStart {
                    flow: self.opts.flow,
                    anchor,
                });
                for (k, val) in pairs.iter() {
                    self.serialize(k)?;
                    self.serialize(val)?;
                }
                self.events.push(Event::MappingEnd);
            }
            scalar => {
                let (tag, value, style) = represent_scalar(scalar, self.opts.rep)?;
                // The serializer's two resolutions: as a plain scalar, and as a quoted one (always str).
                let implicit = (resolve(&value) == tag, tag == "str");
                self.events.push(Event::Scalar(ScalarEvent {
                    tag,
                    implicit,
                    value,
                    style,
                }));
            }
        }
        Ok(())
    }
}

type Represented<'v> = (&'static str, Cow<'v, str>, Option<char>);

fn represent_scalar(v: &Value, rep: Rep) -> Result<Represented<'_>, Unrepresentable> {
    let artifact = rep != Rep::Safe;
    let owned = |text: String| Cow::Owned(text);
    Ok(match v {
        Value::Null => ("null", Cow::Borrowed("null"), None),
        Value::Bool(b) => (
            "bool",
            Cow::Borrowed(if *b { "true" } else { "false" }),
            None,
        ),
        Value::Int(i) => ("int", owned(i.to_string()), None),
        Value::BigInt(s) => ("int", Cow::Borrowed(s.as_str()), None),
        Value::Float(f) if artifact && f.is_finite() => ("float", owned(number_text(*f)), None),
        Value::Float(f) => ("float", owned(non_finite_or_repr(*f)), None),
        Value::Str(s) if artifact => {
            // NEL is written raw by the plain and single-quoted writers and read back as a
            // line break, so dbprint forces double quotes; 1.2-retypable text is single-quoted.
            let style = if s.contains('\u{85}') {
                Some('"')
            } else if looks_like_yaml12_scalar(s) {
                Some('\'')
            } else {
                None
            };
            ("str", Cow::Borrowed(s.as_str()), style)
        }
        Value::Str(s) => ("str", Cow::Borrowed(s.as_str()), None),
        Value::Bytes(_) if artifact => return Err(Unrepresentable),
        Value::Bytes(b) => ("binary", owned(encodebytes(b)), Some('|')),
        Value::Date(d) if artifact => ("str", owned(date_str(d)), None),
        Value::Date(d) => ("timestamp", owned(date_str(d)), None),
        Value::DateTime(dt) if artifact => ("str", owned(artifact_datetime(dt)), None),
        Value::DateTime(dt) => ("timestamp", owned(datetime_str(dt)), None),
        // Collections never reach here (serialize handles them).
        Value::Seq(_) | Value::Map(_) => ("str", Cow::Borrowed(""), None),
    })
}

/// `base64.encodebytes`: lines of at most 76 characters, each ending in a newline.
fn encodebytes(b: &[u8]) -> String {
    use base64::Engine as _;
    let flat = base64::engine::general_purpose::STANDARD.encode(b);
    let mut out = String::with_capacity(flat.len() + flat.len() / 76 + 1);
    let mut rest = flat.as_str();
    while !rest.is_empty() {
        let (line, tail) = rest.split_at(rest.len().min(76));
        out.push_str(line);
        out.push('\n');
        rest = tail;
    }
    out
}

/// dbprint's `value_text.scalar_text`: the artifact's own spelling of a scalar (what its
/// dumper writes before any quoting). `None` for a value no artifact holds (`None`, bytes, a
/// collection), where dbprint raises `TypeError`.
pub fn scalar_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Str(s) => s.clone(),
        Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
        Value::Int(i) => i.to_string(),
        Value::BigInt(s) => s.clone(),
        Value::Float(f) if f.is_finite() => number_text(*f),
        Value::Float(f) => non_finite_or_repr(*f),
        Value::Date(d) => date_str(d),
        Value::DateTime(dt) => artifact_datetime(dt),
        Value::Null | Value::Bytes(_) | Value::Seq(_) | Value::Map(_) => return None,
    })
}

/// `isoformat()`, with a UTC offset written `Z`.
fn artifact_datetime(dt: &DateTime) -> String {
    let text = datetime_isoformat(dt, 'T');
    match text.strip_suffix("+00:00") {
        Some(head) => format!("{head}Z"),
        None => text,
    }
}

/// `SafeRepresenter.represent_float`: `.nan`, `.inf`, `-.inf` (also dbprint's `_non_finite`),
/// else `repr`, lowercased, with `.0` put before a bare exponent.
fn non_finite_or_repr(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let r = float_repr(f);
    if !r.contains('.') && r.contains('e') {
        r.replacen('e', ".0e", 1)
    } else {
        r
    }
}

/// dbprint's `rounding.number_text` for a finite float: `f"{Decimal(repr(f)):f}"`, plus `.0`
/// when that has no point. `repr`'s own positional form already is that text; its exponent
/// form is laid out positionally with the same digits.
fn number_text(f: f64) -> String {
    let r = float_repr(f);
    let Some((mantissa, exp)) = r.split_once('e') else {
        return r;
    };
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp = i64::from(exp.parse::<i32>().unwrap_or(0));
    let n = digits.len() as i64;
    let mut out = String::from(if negative { "-" } else { "" });
    if exp < 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-exp - 1) as usize));
        out.push_str(&digits);
    } else {
        // repr only uses the exponent form below 1e-4 or from 1e16, so here exp >= 16 > n - 1.
        out.push_str(&digits);
        out.push_str(&"0".repeat((exp - (n - 1)).max(0) as usize));
        out.push_str(".0");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Resolvers: PyYAML's YAML 1.1 implicit resolvers (the loader's), and dbprint's YAML 1.2
// retyping check.

/// The tag suffix `Resolver.resolve(ScalarNode, value, (True, False))` gives: the loader's
/// implicit resolvers, plus PyYAML's documentation-only `yaml` resolver for `!`, `&` and `*`,
/// which no loaded plain scalar reaches but which makes the emitter quote those three.
fn resolve(value: &str) -> &'static str {
    // `$` also matches before one final newline.
    if matches!(value.strip_suffix('\n').unwrap_or(value), "!" | "&" | "*") {
        return "yaml";
    }
    match resolve_plain(value) {
        Tag::Null => "null",
        Tag::Bool => "bool",
        Tag::Int => "int",
        Tag::Float => "float",
        Tag::Timestamp => "timestamp",
        Tag::Merge => "merge",
        Tag::Value => "value",
        _ => "str",
    }
}

/// A cursor over ASCII bytes for the hand-written regular expression below; every pattern
/// is deterministic under greedy matching, so no backtracking is needed.
struct Cur<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn new(s: &'a [u8]) -> Self {
        Cur { s, i: 0 }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, pred: impl Fn(u8) -> bool) -> bool {
        match self.peek() {
            Some(c) if pred(c) => {
                self.i += 1;
                true
            }
            _ => false,
        }
    }
    fn eat_all(&mut self, pred: impl Fn(u8) -> bool + Copy) -> usize {
        let start = self.i;
        while self.eat(pred) {}
        self.i - start
    }
    fn eat_lit(&mut self, lit: &[u8]) -> bool {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }
    fn eat_any_lit(&mut self, lits: &[&[u8]]) -> bool {
        lits.iter().any(|l| self.eat_lit(l))
    }
    fn done(&self) -> bool {
        self.i == self.s.len()
    }
    fn sign(&mut self) {
        self.eat(|c| c == b'-' || c == b'+');
    }
}

fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

const INF: &[&[u8]] = &[b"inf", b"Inf", b"INF"];
const NAN: &[&[u8]] = &[b"nan", b"NaN", b"NAN"];

/// dbprint's `_looks_like_yaml12_scalar`: the YAML 1.2 core schema would not read a string.
fn looks_like_yaml12_scalar(text: &str) -> bool {
    let s = text.as_bytes();
    if s.is_empty() {
        return false;
    }
    if matches!(
        s,
        b"~" | b"null"
            | b"Null"
            | b"NULL"
            | b"true"
            | b"True"
            | b"TRUE"
            | b"false"
            | b"False"
            | b"FALSE"
    ) {
        return true;
    }
    let int = || {
        // [-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+
        let mut c = Cur::new(s);
        c.sign();
        if c.eat_all(is_digit) > 0 && c.done() {
            return true;
        }
        let mut c = Cur::new(s);
        if c.eat_lit(b"0o") && c.eat_all(|x| (b'0'..=b'7').contains(&x)) > 0 && c.done() {
            return true;
        }
        let mut c = Cur::new(s);
        c.eat_lit(b"0x") && c.eat_all(|x| x.is_ascii_hexdigit()) > 0 && c.done()
    };
    let float = || {
        let mut c = Cur::new(s);
        c.sign();
        if c.eat_lit(b".") && c.eat_any_lit(INF) && c.done() {
            return true;
        }
        let mut c = Cur::new(s);
        if c.eat_lit(b".") && c.eat_any_lit(NAN) && c.done() {
            return true;
        }
        // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
        let mut c = Cur::new(s);
        c.sign();
        let body = if c.eat_lit(b".") {
            c.eat_all(is_digit) > 0
        } else if c.eat_all(is_digit) > 0 {
            if c.eat_lit(b".") {
                c.eat_all(is_digit);
            }
            true
        } else {
            false
        };
        if !body {
            return false;
        }
        if c.eat(|x| x == b'e' || x == b'E') {
            c.sign();
            if c.eat_all(is_digit) == 0 {
                return false;
            }
        }
        c.done()
    };
    int() || float()
}
