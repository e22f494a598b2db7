//! YAML text exactly as PyYAML 6.0 writes it.
//!
//! Three producers are reproduced byte for byte:
//! - [`safe_dump`]: `yaml.safe_dump(v, sort_keys=False, default_flow_style=False)`, what the
//!   reference's `format: yaml` replies carry;
//! - [`dbprint_dump`]: dbprint's artifact dumper (`engine/yaml_dumper.py` `dump_yaml`), so a
//!   re-serialized `relationships.yaml` / `diff.yaml` matches what `dbprint generate` wrote;
//! - [`flow_inline`]: dbprint's `spell_inline`, one value on one line for Markdown.
//!
//! The pipeline mirrors PyYAML's: a representer turns the value into scalar/collection events
//! (tag, implicit flags, requested style), and a port of `yaml.emitter.Emitter`'s state machine
//! writes them. The state machine is kept in PyYAML's shape rather than simplified because the
//! output depends on incidental state (column, `whitespace`, `indention`, `open_ended`) that a
//! restructured emitter would drift from. Values are trees, so the serializer never needs
//! anchors or aliases.

use crate::py::{date_str, datetime_isoformat, datetime_str, float_repr, is_printable, is_space};
use crate::value::{DateTime, Value};

#[cfg(test)]
mod tests;

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

/// [`try_dbprint_dump`] for values known to hold no `bytes`. A `bytes` value, which the
/// reference refuses, is written as SafeDumper writes it (`!!binary |`) rather than panicking.
pub fn dbprint_dump(v: &Value) -> String {
    try_dbprint_dump(v).unwrap_or_else(|_| {
        dump(
            v,
            Opts {
                rep: Rep::ArtifactLenient,
                flow: false,
                allow_unicode: true,
                width: 80,
            },
        )
        .unwrap_or_default()
    })
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
            for (k, val) in pairs {
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

/// [`try_flow_inline`] for values known to hold no `bytes`; a `bytes` value gives `""`.
pub fn flow_inline(v: &Value) -> String {
    try_flow_inline(v).unwrap_or_default()
}

fn spell_nested(v: &Value) -> Result<String, Unrepresentable> {
    match v {
        Value::Seq(_) | Value::Map(_) => try_flow_inline(v),
        Value::Str(s) if s.chars().any(escaped) => Ok(double_quoted(s)),
        _ => {
            // A one-element flow sequence, so the scalar is quoted for a flow context.
            let text = dump_flow(&Value::Seq(vec![v.clone()]))?;
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
    /// `ArtifactDumper` with SafeDumper's `!!binary` for the bytes it refuses.
    ArtifactLenient,
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
    serialize(v, opts, &mut events)?;
    events.push(Event::DocumentEnd);
    events.push(Event::StreamEnd);
    let mut emitter = Emitter::new(&events, opts);
    emitter.run();
    Ok(emitter.out)
}

struct ScalarEvent {
    /// Suffix after `tag:yaml.org,2002:`.
    tag: &'static str,
    /// (plain scalar resolves to `tag`, any quoted scalar resolves to `tag`).
    implicit: (bool, bool),
    value: String,
    /// The representer's requested style: None, `'`, `"` or `|`.
    style: Option<char>,
}

enum Event {
    StreamStart,
    DocumentStart,
    DocumentEnd,
    StreamEnd,
    Scalar(ScalarEvent),
    SequenceStart { flow: bool },
    SequenceEnd,
    MappingStart { flow: bool },
    MappingEnd,
}

fn serialize(v: &Value, opts: Opts, events: &mut Vec<Event>) -> Result<(), Unrepresentable> {
    match v {
        Value::Seq(items) => {
            events.push(Event::SequenceStart { flow: opts.flow });
            for item in items {
                serialize(item, opts, events)?;
            }
            events.push(Event::SequenceEnd);
        }
        Value::Map(pairs) => {
            events.push(Event::MappingStart { flow: opts.flow });
            for (k, val) in pairs {
                serialize(k, opts, events)?;
                serialize(val, opts, events)?;
            }
            events.push(Event::MappingEnd);
        }
        scalar => {
            let (tag, value, style) = represent_scalar(scalar, opts.rep)?;
            // The serializer's two resolutions: as a plain scalar, and as a quoted one (always str).
            let implicit = (resolve(&value) == tag, tag == "str");
            events.push(Event::Scalar(ScalarEvent {
                tag,
                implicit,
                value,
                style,
            }));
        }
    }
    Ok(())
}

type Represented = (&'static str, String, Option<char>);

fn represent_scalar(v: &Value, rep: Rep) -> Result<Represented, Unrepresentable> {
    let artifact = rep != Rep::Safe;
    Ok(match v {
        Value::Null => ("null", "null".to_string(), None),
        Value::Bool(b) => ("bool", if *b { "true" } else { "false" }.to_string(), None),
        Value::Int(i) => ("int", i.to_string(), None),
        Value::BigInt(s) => ("int", s.clone(), None),
        Value::Float(f) if artifact && f.is_finite() => ("float", number_text(*f), None),
        Value::Float(f) => ("float", non_finite_or_repr(*f), None),
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
            ("str", s.clone(), style)
        }
        Value::Str(s) => ("str", s.clone(), None),
        Value::Bytes(_) if rep == Rep::Artifact => return Err(Unrepresentable),
        Value::Bytes(b) => ("binary", encodebytes(b), Some('|')),
        Value::Date(d) if artifact => ("str", date_str(d), None),
        Value::Date(d) => ("timestamp", date_str(d), None),
        Value::DateTime(dt) if artifact => ("str", artifact_datetime(dt), None),
        Value::DateTime(dt) => ("timestamp", datetime_str(dt), None),
        // Collections never reach here (serialize handles them).
        Value::Seq(_) | Value::Map(_) => ("str", String::new(), None),
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
pub fn number_text(f: f64) -> String {
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
// Resolvers: PyYAML's YAML 1.1 implicit resolvers, and dbprint's YAML 1.2 retyping check.

/// One implicit resolver: its first characters, its tag suffix, its full-match test.
type Resolver = (&'static str, &'static str, fn(&[u8]) -> bool);

/// The tag suffix `Resolver.resolve(ScalarNode, value, (True, False))` gives.
fn resolve(value: &str) -> &'static str {
    let Some(first) = value.chars().next() else {
        return "null";
    };
    // Resolvers are tried in PyYAML's registration order, filtered by their first characters.
    let candidates: [Resolver; 8] = [
        ("yYnNtTfFoO", "bool", is_bool11),
        ("-+0123456789.", "float", is_float11),
        ("-+0123456789", "int", is_int11),
        ("<", "merge", |s| s == b"<<"),
        ("~nN", "null", |s| {
            matches!(s, b"~" | b"null" | b"Null" | b"NULL")
        }),
        ("0123456789", "timestamp", is_timestamp11),
        ("=", "value", |s| s == b"="),
        ("!&*", "yaml", |s| matches!(s, b"!" | b"&" | b"*")),
    ];
    for (firsts, tag, matcher) in candidates {
        if firsts.contains(first) && py_anchored_match(value, matcher) {
            return tag;
        }
    }
    "str"
}

/// `re.match('^(?:...)$', value)`: Python's `$` also matches before one final newline.
fn py_anchored_match(value: &str, full: fn(&[u8]) -> bool) -> bool {
    let b = value.as_bytes();
    full(b) || (b.last() == Some(&b'\n') && full(&b[..b.len() - 1]))
}

fn is_bool11(s: &[u8]) -> bool {
    matches!(
        s,
        b"yes"
            | b"Yes"
            | b"YES"
            | b"no"
            | b"No"
            | b"NO"
            | b"true"
            | b"True"
            | b"TRUE"
            | b"false"
            | b"False"
            | b"FALSE"
            | b"on"
            | b"On"
            | b"ON"
            | b"off"
            | b"Off"
            | b"OFF"
    )
}

/// A cursor over ASCII bytes for the hand-written regular expressions below; every pattern
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
    fn peek_at(&self, n: usize) -> Option<u8> {
        self.s.get(self.i + n).copied()
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
    /// `(?::[0-5]?[0-9])+`
    fn sexagesimal(&mut self) -> bool {
        let mut n = 0;
        while self.peek() == Some(b':') {
            let two = matches!(self.peek_at(1), Some(b'0'..=b'5'))
                && matches!(self.peek_at(2), Some(b'0'..=b'9'));
            if two {
                self.i += 3;
            } else if matches!(self.peek_at(1), Some(b'0'..=b'9')) {
                self.i += 2;
            } else {
                break;
            }
            n += 1;
        }
        n > 0
    }
    /// `(?:[eE][-+][0-9]+)?`, then end of text.
    fn exp11_then_end(&mut self) -> bool {
        if self.eat(|c| c == b'e' || c == b'E')
            && (!self.eat(|c| c == b'-' || c == b'+') || self.eat_all(is_digit) == 0)
        {
            return false;
        }
        self.done()
    }
}

fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}
fn is_digit_(c: u8) -> bool {
    c.is_ascii_digit() || c == b'_'
}

const INF: &[&[u8]] = &[b"inf", b"Inf", b"INF"];
const NAN: &[&[u8]] = &[b"nan", b"NaN", b"NAN"];

fn is_float11(s: &[u8]) -> bool {
    let alt_a = || {
        // [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
        let mut c = Cur::new(s);
        c.sign();
        c.eat(is_digit)
            && {
                c.eat_all(is_digit_);
                c.eat(|x| x == b'.')
            }
            && {
                c.eat_all(is_digit_);
                c.exp11_then_end()
            }
    };
    let alt_b = || {
        // \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
        let mut c = Cur::new(s);
        c.eat(|x| x == b'.') && c.eat(is_digit) && {
            c.eat_all(is_digit_);
            c.exp11_then_end()
        }
    };
    let alt_c = || {
        // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        let mut c = Cur::new(s);
        c.sign();
        c.eat(is_digit)
            && {
                c.eat_all(is_digit_);
                c.sexagesimal()
            }
            && c.eat(|x| x == b'.')
            && {
                c.eat_all(is_digit_);
                c.done()
            }
    };
    let alt_d = || {
        // [-+]?\.(?:inf|Inf|INF)
        let mut c = Cur::new(s);
        c.sign();
        c.eat(|x| x == b'.') && c.eat_any_lit(INF) && c.done()
    };
    let alt_e = || {
        // \.(?:nan|NaN|NAN)
        let mut c = Cur::new(s);
        c.eat(|x| x == b'.') && c.eat_any_lit(NAN) && c.done()
    };
    alt_a() || alt_b() || alt_c() || alt_d() || alt_e()
}

fn is_int11(s: &[u8]) -> bool {
    let prefixed = |prefix: &[u8], pred: fn(u8) -> bool| {
        let mut c = Cur::new(s);
        c.sign();
        c.eat_lit(prefix) && c.eat_all(pred) > 0 && c.done()
    };
    let decimal = || {
        // [-+]?(?:0|[1-9][0-9_]*)
        let mut c = Cur::new(s);
        c.sign();
        if c.eat(|x| x == b'0') {
            return c.done();
        }
        c.eat(|x| (b'1'..=b'9').contains(&x)) && {
            c.eat_all(is_digit_);
            c.done()
        }
    };
    let sexagesimal = || {
        // [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
        let mut c = Cur::new(s);
        c.sign();
        c.eat(|x| (b'1'..=b'9').contains(&x))
            && {
                c.eat_all(is_digit_);
                c.sexagesimal()
            }
            && c.done()
    };
    prefixed(b"0b", |x| x == b'0' || x == b'1' || x == b'_')
        || prefixed(b"0", |x| (b'0'..=b'7').contains(&x) || x == b'_')
        || decimal()
        || prefixed(b"0x", |x| x.is_ascii_hexdigit() || x == b'_')
        || sexagesimal()
}

fn is_timestamp11(s: &[u8]) -> bool {
    let digits = |c: &mut Cur, n: usize| (0..n).all(|_| c.eat(is_digit));
    // [0-9]{4}-[0-9]{2}-[0-9]{2}
    let date_only = {
        let mut c = Cur::new(s);
        digits(&mut c, 4)
            && c.eat_lit(b"-")
            && digits(&mut c, 2)
            && c.eat_lit(b"-")
            && digits(&mut c, 2)
            && c.done()
    };
    if date_only {
        return true;
    }
    let mut c = Cur::new(s);
    let one_or_two = |c: &mut Cur| {
        let ok = c.eat(is_digit);
        c.eat(is_digit);
        ok
    };
    if !(digits(&mut c, 4)
        && c.eat_lit(b"-")
        && one_or_two(&mut c)
        && c.eat_lit(b"-")
        && one_or_two(&mut c))
    {
        return false;
    }
    // (?:[Tt]|[ \t]+)
    if !c.eat(|x| x == b'T' || x == b't') && c.eat_all(|x| x == b' ' || x == b'\t') == 0 {
        return false;
    }
    if !(one_or_two(&mut c)
        && c.eat_lit(b":")
        && digits(&mut c, 2)
        && c.eat_lit(b":")
        && digits(&mut c, 2))
    {
        return false;
    }
    if c.eat_lit(b".") {
        c.eat_all(is_digit);
    }
    if c.done() {
        return true;
    }
    // (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    c.eat_all(|x| x == b' ' || x == b'\t');
    if c.eat_lit(b"Z") {
        return c.done();
    }
    if !c.eat(|x| x == b'-' || x == b'+') || !one_or_two(&mut c) {
        return false;
    }
    if c.peek() == Some(b':') && !(c.eat_lit(b":") && digits(&mut c, 2)) {
        return false;
    }
    c.done()
}

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

// ---------------------------------------------------------------------------------------------
// Emitter: a port of `yaml.emitter.Emitter` (canonical off, no anchors, no directives).

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_space_or_break0(c: char) -> bool {
    matches!(
        c,
        '\0' | ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text[start:end]` with Python's slicing forgiveness (an inverted range is empty).
fn slice(text: &[char], start: usize, end: usize) -> String {
    let end = end.min(text.len());
    if start >= end {
        String::new()
    } else {
        text[start..end].iter().collect()
    }
}

struct Analysis {
    scalar: Vec<char>,
    empty: bool,
    multiline: bool,
    allow_flow_plain: bool,
    allow_block_plain: bool,
    allow_single_quoted: bool,
    allow_block: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    FirstDocumentStart,
    DocumentStart,
    DocumentRoot,
    DocumentEnd,
    Nothing,
    FirstFlowSequenceItem,
    FlowSequenceItem,
    FirstFlowMappingKey,
    FlowMappingKey,
    FlowMappingSimpleValue,
    FlowMappingValue,
    FirstBlockSequenceItem,
    BlockSequenceItem,
    FirstBlockMappingKey,
    BlockMappingKey,
    BlockMappingSimpleValue,
    BlockMappingValue,
}

struct Emitter<'e> {
    events: &'e [Event],
    /// Index of the current event; `events[pos + 1]` is PyYAML's `self.events[0]`.
    pos: usize,
    out: String,
    state: State,
    states: Vec<State>,
    indent: Option<usize>,
    indents: Vec<Option<usize>>,
    flow_level: usize,
    root_context: bool,
    mapping_context: bool,
    simple_key_context: bool,
    column: usize,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    best_indent: usize,
    best_width: usize,
    allow_unicode: bool,
    analysis: Option<Analysis>,
    style: Option<Style>,
    prepared_tag: Option<String>,
}

impl<'e> Emitter<'e> {
    fn new(events: &'e [Event], opts: Opts) -> Self {
        Emitter {
            events,
            pos: 0,
            out: String::new(),
            state: State::StreamStart,
            states: Vec::new(),
            indent: None,
            indents: Vec::new(),
            flow_level: 0,
            root_context: false,
            mapping_context: false,
            simple_key_context: false,
            column: 0,
            whitespace: true,
            indention: true,
            open_ended: false,
            best_indent: 2,
            // PyYAML keeps its default 80 unless the width exceeds twice the indent.
            best_width: if opts.width > 4 { opts.width } else { 80 },
            allow_unicode: opts.allow_unicode,
            analysis: None,
            style: None,
            prepared_tag: None,
        }
    }

    fn run(&mut self) {
        while self.pos < self.events.len() {
            self.step();
            self.pos += 1;
        }
    }

    fn event(&self) -> &'e Event {
        &self.events[self.pos]
    }

    fn next_event(&self) -> Option<&'e Event> {
        self.events.get(self.pos + 1)
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::Nothing);
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(None);
    }

    fn step(&mut self) {
        match self.state {
            State::StreamStart => {
                if matches!(self.event(), Event::StreamStart) {
                    self.state = State::FirstDocumentStart;
                }
            }
            State::FirstDocumentStart => self.expect_document_start(true),
            State::DocumentStart => self.expect_document_start(false),
            State::DocumentRoot => {
                self.states.push(State::DocumentEnd);
                self.expect_node(true, false, false);
            }
            State::DocumentEnd => {
                if matches!(self.event(), Event::DocumentEnd) {
                    self.write_indent();
                    self.state = State::DocumentStart;
                }
            }
            State::Nothing => {}
            State::FirstFlowSequenceItem => self.expect_flow_sequence_item(true),
            State::FlowSequenceItem => self.expect_flow_sequence_item(false),
            State::FirstFlowMappingKey => self.expect_flow_mapping_key(true),
            State::FlowMappingKey => self.expect_flow_mapping_key(false),
            State::FlowMappingSimpleValue => {
                self.write_indicator(":", false, false, false);
                self.states.push(State::FlowMappingKey);
                self.expect_node(false, true, false);
            }
            State::FlowMappingValue => {
                if self.column > self.best_width {
                    self.write_indent();
                }
                self.write_indicator(":", true, false, false);
                self.states.push(State::FlowMappingKey);
                self.expect_node(false, true, false);
            }
            State::FirstBlockSequenceItem => self.expect_block_sequence_item(true),
            State::BlockSequenceItem => self.expect_block_sequence_item(false),
            State::FirstBlockMappingKey => self.expect_block_mapping_key(true),
            State::BlockMappingKey => self.expect_block_mapping_key(false),
            State::BlockMappingSimpleValue => {
                self.write_indicator(":", false, false, false);
                self.states.push(State::BlockMappingKey);
                self.expect_node(false, true, false);
            }
            State::BlockMappingValue => {
                self.write_indent();
                self.write_indicator(":", true, false, true);
                self.states.push(State::BlockMappingKey);
                self.expect_node(false, true, false);
            }
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        match self.indent {
            None => self.indent = Some(if flow { self.best_indent } else { 0 }),
            Some(i) if !indentless => self.indent = Some(i + self.best_indent),
            Some(_) => {}
        }
    }

    fn expect_document_start(&mut self, first: bool) {
        match self.event() {
            Event::DocumentStart => {
                // Our scalar events always carry a tag, so the document is never "empty".
                if !first {
                    self.write_indent();
                    self.write_indicator("---", true, false, false);
                }
                self.state = State::DocumentRoot;
            }
            Event::StreamEnd => {
                if self.open_ended {
                    self.write_indicator("...", true, false, false);
                    self.write_indent();
                }
                self.state = State::Nothing;
            }
            _ => {}
        }
    }

    fn expect_node(&mut self, root: bool, mapping: bool, simple_key: bool) {
        self.root_context = root;
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match self.event() {
            Event::Scalar(_) => {
                self.process_tag();
                // expect_scalar
                self.increase_indent(true, false);
                self.process_scalar();
                self.pop_indent();
                self.pop_state();
            }
            Event::SequenceStart { flow } => {
                // Collection tags are always implicit: nothing to write.
                self.prepared_tag = None;
                if self.flow_level > 0 || *flow || self.check_empty_sequence() {
                    self.write_indicator("[", true, true, false);
                    self.flow_level += 1;
                    self.increase_indent(true, false);
                    self.state = State::FirstFlowSequenceItem;
                } else {
                    let indentless = self.mapping_context && !self.indention;
                    self.increase_indent(false, indentless);
                    self.state = State::FirstBlockSequenceItem;
                }
            }
            Event::MappingStart { flow } => {
                self.prepared_tag = None;
                if self.flow_level > 0 || *flow || self.check_empty_mapping() {
                    self.write_indicator("{", true, true, false);
                    self.flow_level += 1;
                    self.increase_indent(true, false);
                    self.state = State::FirstFlowMappingKey;
                } else {
                    self.increase_indent(false, false);
                    self.state = State::FirstBlockMappingKey;
                }
            }
            _ => {}
        }
    }

    fn expect_flow_sequence_item(&mut self, first: bool) {
        if matches!(self.event(), Event::SequenceEnd) {
            self.pop_indent();
            self.flow_level = self.flow_level.saturating_sub(1);
            self.write_indicator("]", false, false, false);
            self.pop_state();
        } else {
            if !first {
                self.write_indicator(",", false, false, false);
            }
            if self.column > self.best_width {
                self.write_indent();
            }
            self.states.push(State::FlowSequenceItem);
            self.expect_node(false, false, false);
        }
    }

    fn expect_flow_mapping_key(&mut self, first: bool) {
        if matches!(self.event(), Event::MappingEnd) {
            self.pop_indent();
            self.flow_level = self.flow_level.saturating_sub(1);
            self.write_indicator("}", false, false, false);
            self.pop_state();
        } else {
            if !first {
                self.write_indicator(",", false, false, false);
            }
            if self.column > self.best_width {
                self.write_indent();
            }
            if self.check_simple_key() {
                self.states.push(State::FlowMappingSimpleValue);
                self.expect_node(false, true, true);
            } else {
                self.write_indicator("?", true, false, false);
                self.states.push(State::FlowMappingValue);
                self.expect_node(false, true, false);
            }
        }
    }

    fn expect_block_sequence_item(&mut self, first: bool) {
        if !first && matches!(self.event(), Event::SequenceEnd) {
            self.pop_indent();
            self.pop_state();
        } else {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.states.push(State::BlockSequenceItem);
            self.expect_node(false, false, false);
        }
    }

    fn expect_block_mapping_key(&mut self, first: bool) {
        if !first && matches!(self.event(), Event::MappingEnd) {
            self.pop_indent();
            self.pop_state();
        } else {
            self.write_indent();
            if self.check_simple_key() {
                self.states.push(State::BlockMappingSimpleValue);
                self.expect_node(false, true, true);
            } else {
                self.write_indicator("?", true, false, true);
                self.states.push(State::BlockMappingValue);
                self.expect_node(false, true, false);
            }
        }
    }

    fn check_empty_sequence(&self) -> bool {
        matches!(self.event(), Event::SequenceStart { .. })
            && matches!(self.next_event(), Some(Event::SequenceEnd))
    }

    fn check_empty_mapping(&self) -> bool {
        matches!(self.event(), Event::MappingStart { .. })
            && matches!(self.next_event(), Some(Event::MappingEnd))
    }

    fn check_simple_key(&mut self) -> bool {
        // PyYAML counts the prepared tag even when it will not be written (`!!str` adds 5).
        let mut length = 0;
        match self.event() {
            Event::Scalar(ev) => {
                length += 2 + ev.tag.chars().count();
                if self.analysis.is_none() {
                    self.analysis = Some(self.analyze_scalar(&ev.value));
                }
                let Some(a) = &self.analysis else {
                    return false;
                };
                length += a.scalar.len();
                length < 128 && !a.empty && !a.multiline
            }
            Event::SequenceStart { .. } => {
                length += "!!seq".len();
                length < 128 && self.check_empty_sequence()
            }
            Event::MappingStart { .. } => {
                length += "!!map".len();
                length < 128 && self.check_empty_mapping()
            }
            _ => false,
        }
    }

    fn process_tag(&mut self) {
        let Event::Scalar(ev) = self.event() else {
            return;
        };
        let style = match self.style {
            Some(s) => s,
            None => {
                let s = self.choose_scalar_style();
                self.style = Some(s);
                s
            }
        };
        if (style == Style::Plain && ev.implicit.0) || (style != Style::Plain && ev.implicit.1) {
            self.prepared_tag = None;
            return;
        }
        let tag = self
            .prepared_tag
            .take()
            .unwrap_or_else(|| format!("!!{}", ev.tag));
        self.write_indicator(&tag, true, false, false);
    }

    fn choose_scalar_style(&mut self) -> Style {
        let Event::Scalar(ev) = self.event() else {
            return Style::Double;
        };
        if self.analysis.is_none() {
            self.analysis = Some(self.analyze_scalar(&ev.value));
        }
        let Some(a) = &self.analysis else {
            return Style::Double;
        };
        if ev.style == Some('"') {
            return Style::Double;
        }
        if ev.style.is_none()
            && ev.implicit.0
            && !(self.simple_key_context && (a.empty || a.multiline))
            && ((self.flow_level > 0 && a.allow_flow_plain)
                || (self.flow_level == 0 && a.allow_block_plain))
        {
            return Style::Plain;
        }
        if ev.style == Some('|')
            && self.flow_level == 0
            && !self.simple_key_context
            && a.allow_block
        {
            return Style::Literal;
        }
        if (ev.style.is_none() || ev.style == Some('\''))
            && a.allow_single_quoted
            && !(self.simple_key_context && a.multiline)
        {
            return Style::Single;
        }
        Style::Double
    }

    fn process_scalar(&mut self) {
        let Event::Scalar(ev) = self.event() else {
            return;
        };
        if self.analysis.is_none() {
            self.analysis = Some(self.analyze_scalar(&ev.value));
        }
        let style = match self.style {
            Some(s) => s,
            None => self.choose_scalar_style(),
        };
        self.finish_scalar(style);
    }

    fn finish_scalar(&mut self, style: Style) {
        let text = self.analysis.take().map(|a| a.scalar).unwrap_or_default();
        let split = !self.simple_key_context;
        match style {
            Style::Double => self.write_double_quoted(&text, split),
            Style::Single => self.write_single_quoted(&text, split),
            Style::Literal => self.write_literal(&text),
            Style::Plain => self.write_plain(&text, split),
        }
        self.analysis = None;
        self.style = None;
    }

    fn analyze_scalar(&self, scalar: &str) -> Analysis {
        let chars: Vec<char> = scalar.chars().collect();
        if chars.is_empty() {
            return Analysis {
                scalar: chars,
                empty: true,
                multiline: false,
                allow_flow_plain: false,
                allow_block_plain: true,
                allow_single_quoted: true,
                allow_block: false,
            };
        }
        let mut block_indicators = false;
        let mut flow_indicators = false;
        let mut line_breaks = false;
        let mut special_characters = false;
        let mut leading_space = false;
        let mut leading_break = false;
        let mut trailing_space = false;
        let mut trailing_break = false;
        let mut break_space = false;
        let mut space_break = false;

        if scalar.starts_with("---") || scalar.starts_with("...") {
            block_indicators = true;
            flow_indicators = true;
        }
        let mut preceded_by_whitespace = true;
        let mut followed_by_whitespace = chars.len() == 1 || is_space_or_break0(chars[1]);
        let mut previous_space = false;
        let mut previous_break = false;
        let last = chars.len() - 1;

        for (index, &ch) in chars.iter().enumerate() {
            if index == 0 {
                if "#,[]{}&*!|>'\"%@`".contains(ch) {
                    flow_indicators = true;
                    block_indicators = true;
                }
                if ch == '?' || ch == ':' {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                if ch == '-' && followed_by_whitespace {
                    flow_indicators = true;
                    block_indicators = true;
                }
            } else {
                if ",?[]{}".contains(ch) {
                    flow_indicators = true;
                }
                if ch == ':' {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                if ch == '#' && preceded_by_whitespace {
                    flow_indicators = true;
                    block_indicators = true;
                }
            }

            if is_break(ch) {
                line_breaks = true;
            }
            if !(ch == '\n' || ('\x20'..='\x7e').contains(&ch)) {
                let cp = ch as u32;
                let unicode = (cp == 0x85
                    || (0xA0..=0xD7FF).contains(&cp)
                    || (0xE000..=0xFFFD).contains(&cp)
                    || (0x10000..0x10FFFF).contains(&cp))
                    && cp != 0xFEFF;
                if !unicode || !self.allow_unicode {
                    special_characters = true;
                }
            }

            if ch == ' ' {
                if index == 0 {
                    leading_space = true;
                }
                if index == last {
                    trailing_space = true;
                }
                if previous_break {
                    break_space = true;
                }
                previous_space = true;
                previous_break = false;
            } else if is_break(ch) {
                if index == 0 {
                    leading_break = true;
                }
                if index == last {
                    trailing_break = true;
                }
                if previous_space {
                    space_break = true;
                }
                previous_space = false;
                previous_break = true;
            } else {
                previous_space = false;
                previous_break = false;
            }

            preceded_by_whitespace = is_space_or_break0(ch);
            followed_by_whitespace =
                index + 2 >= chars.len() || is_space_or_break0(chars[index + 2]);
        }

        let mut allow_flow_plain = true;
        let mut allow_block_plain = true;
        let mut allow_single_quoted = true;
        let mut allow_block = true;
        if leading_space || leading_break || trailing_space || trailing_break {
            allow_flow_plain = false;
            allow_block_plain = false;
        }
        if trailing_space {
            allow_block = false;
        }
        if break_space {
            allow_flow_plain = false;
            allow_block_plain = false;
            allow_single_quoted = false;
        }
        if space_break || special_characters {
            allow_flow_plain = false;
            allow_block_plain = false;
            allow_single_quoted = false;
            allow_block = false;
        }
        if line_breaks {
            allow_flow_plain = false;
            allow_block_plain = false;
        }
        if flow_indicators {
            allow_flow_plain = false;
        }
        if block_indicators {
            allow_block_plain = false;
        }
        Analysis {
            scalar: chars,
            empty: false,
            multiline: line_breaks,
            allow_flow_plain,
            allow_block_plain,
            allow_single_quoted,
            allow_block,
        }
    }

    // Writers.

    fn write_raw(&mut self, data: &str) {
        self.column += data.chars().count();
        self.out.push_str(data);
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        whitespace: bool,
        indention: bool,
    ) {
        if !self.whitespace && need_whitespace {
            self.write_raw(" ");
        }
        self.write_raw(indicator);
        self.whitespace = whitespace;
        self.indention = self.indention && indention;
        self.open_ended = false;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break(None);
        }
        if self.column < indent {
            self.whitespace = true;
            let pad = " ".repeat(indent - self.column);
            self.out.push_str(&pad);
            self.column = indent;
        }
    }

    fn write_line_break(&mut self, data: Option<char>) {
        self.whitespace = true;
        self.indention = true;
        self.column = 0;
        self.out.push(data.unwrap_or('\n'));
    }

    /// The breaks in `text[start..end]`, written as PyYAML does for quoted and plain scalars:
    /// a leading `\n` is doubled because one line feed alone would fold into a space.
    fn write_breaks(&mut self, text: &[char], start: usize, end: usize, double_first_lf: bool) {
        if double_first_lf && text.get(start) == Some(&'\n') {
            self.write_line_break(None);
        }
        for &br in text.get(start..end.min(text.len())).unwrap_or(&[]) {
            if br == '\n' {
                self.write_line_break(None);
            } else {
                self.write_line_break(Some(br));
            }
        }
    }

    fn write_plain(&mut self, text: &[char], split: bool) {
        if self.root_context {
            self.open_ended = true;
        }
        if text.is_empty() {
            return;
        }
        if !self.whitespace {
            self.write_raw(" ");
        }
        self.whitespace = false;
        self.indention = false;
        let mut spaces = false;
        let mut breaks = false;
        let mut start = 0;
        let mut end = 0;
        while end <= text.len() {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > self.best_width && split {
                        self.write_indent();
                        self.whitespace = false;
                        self.indention = false;
                    } else {
                        self.write_raw(&slice(text, start, end));
                    }
                    start = end;
                }
            } else if breaks {
                if !ch.is_some_and(is_break) {
                    self.write_breaks(text, start, end, true);
                    self.write_indent();
                    self.whitespace = false;
                    self.indention = false;
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || is_break(c)) {
                self.write_raw(&slice(text, start, end));
                start = end;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
            end += 1;
        }
    }

    fn write_single_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut start = 0;
        let mut end = 0;
        while end <= text.len() {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end
                        && self.column > self.best_width
                        && split
                        && start != 0
                        && end != text.len()
                    {
                        self.write_indent();
                    } else {
                        self.write_raw(&slice(text, start, end));
                    }
                    start = end;
                }
            } else if breaks {
                if !ch.is_some_and(is_break) {
                    self.write_breaks(text, start, end, true);
                    self.write_indent();
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || c == '\'' || is_break(c)) && start < end {
                self.write_raw(&slice(text, start, end));
                start = end;
            }
            if ch == Some('\'') {
                self.write_raw("''");
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
            end += 1;
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("\"", true, false, false);
        let mut start = 0usize;
        let mut end = 0usize;
        while end <= text.len() {
            let ch = text.get(end).copied();
            let needs_escape = match ch {
                None => true,
                Some(c) => {
                    let cp = c as u32;
                    matches!(
                        c,
                        '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}'
                    ) || !((0x20..=0x7E).contains(&cp)
                        || (self.allow_unicode
                            && ((0xA0..=0xD7FF).contains(&cp) || (0xE000..=0xFFFD).contains(&cp))))
                }
            };
            if needs_escape {
                if start < end {
                    self.write_raw(&slice(text, start, end));
                    start = end;
                }
                if let Some(c) = ch {
                    let data = match c {
                        '\0' => "\\0".to_string(),
                        '\x07' => "\\a".to_string(),
                        '\x08' => "\\b".to_string(),
                        '\t' => "\\t".to_string(),
                        '\n' => "\\n".to_string(),
                        '\x0B' => "\\v".to_string(),
                        '\x0C' => "\\f".to_string(),
                        '\r' => "\\r".to_string(),
                        '\x1B' => "\\e".to_string(),
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        '\u{85}' => "\\N".to_string(),
                        '\u{A0}' => "\\_".to_string(),
                        '\u{2028}' => "\\L".to_string(),
                        '\u{2029}' => "\\P".to_string(),
                        c if (c as u32) <= 0xFF => format!("\\x{:02X}", c as u32),
                        c if (c as u32) <= 0xFFFF => format!("\\u{:04X}", c as u32),
                        c => format!("\\U{:08X}", c as u32),
                    };
                    self.write_raw(&data);
                    start = end + 1;
                }
            }
            // `start` may be one past `end` just after an escape: the gap then counts as -1.
            let pending = end as isize - start as isize;
            if 0 < end
                && end + 1 < text.len()
                && (ch == Some(' ') || start >= end)
                && self.column as isize + pending > self.best_width as isize
                && split
            {
                let mut data = slice(text, start, end);
                data.push('\\');
                if start < end {
                    start = end;
                }
                self.write_raw(&data);
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if text.get(start) == Some(&' ') {
                    self.write_raw("\\");
                }
            }
            end += 1;
        }
        self.write_indicator("\"", false, false, false);
    }

    fn write_literal(&mut self, text: &[char]) {
        let mut hints = String::new();
        if let (Some(&first), Some(&last)) = (text.first(), text.last()) {
            if first == ' ' || is_break(first) {
                hints.push_str(&self.best_indent.to_string());
            }
            if !is_break(last) {
                hints.push('-');
            } else if text.len() == 1 || is_break(text[text.len() - 2]) {
                hints.push('+');
            }
        }
        self.write_indicator(&format!("|{hints}"), true, false, false);
        if hints.ends_with('+') {
            self.open_ended = true;
        }
        self.write_line_break(None);
        let mut breaks = true;
        let mut start = 0;
        let mut end = 0;
        while end <= text.len() {
            let ch = text.get(end).copied();
            if breaks {
                if !ch.is_some_and(is_break) {
                    self.write_breaks(text, start, end, false);
                    if ch.is_some() {
                        self.write_indent();
                    }
                    start = end;
                }
            } else if ch.is_none_or(is_break) {
                // PyYAML does not advance the column for literal text.
                let data = slice(text, start, end);
                self.out.push_str(&data);
                if ch.is_none() {
                    self.write_line_break(None);
                }
                start = end;
            }
            if let Some(c) = ch {
                breaks = is_break(c);
            }
            end += 1;
        }
    }
}
