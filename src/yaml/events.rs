//! A safe event iterator over `unsafe-libyaml`'s parser, the only place in
//! this module with `unsafe` code.
//!
//! The reference (PyYAML 6.0.4 wheels) bundles libyaml 0.2.6, while
//! `unsafe-libyaml` ports 0.2.5. The differences that change what a text
//! loads to are papered over here: 0.2.6's nesting limit (see
//! [`nesting_violation`]) and its misspelt "hexdecimal" problem string.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_yaml;

use super::error::{self, MarkedError};

/// A position as libyaml reports it: `index` is a byte offset into the
/// scanner's buffer; `line` and `column` are zero-based, column in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Mark {
    pub index: u64,
    pub line: u64,
    pub column: u64,
}

impl From<unsafe_yaml::yaml_mark_t> for Mark {
    fn from(m: unsafe_yaml::yaml_mark_t) -> Self {
        Mark {
            index: m.index,
            line: m.line,
            column: m.column,
        }
    }
}

/// The node-level properties shared by scalars and collection starts.
#[derive(Debug)]
pub(crate) struct Props {
    pub anchor: Option<String>,
    /// `None` when the node has no tag, or only the non-specific `!`, which
    /// PyYAML's CParser resolves like an untagged node.
    pub tag: Option<String>,
}

#[derive(Debug)]
pub(crate) enum Event {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias {
        anchor: String,
    },
    Scalar {
        props: Props,
        value: String,
        /// libyaml's `plain_implicit`: the implicit resolvers apply.
        plain_implicit: bool,
    },
    SequenceStart {
        props: Props,
    },
    SequenceEnd,
    MappingStart {
        props: Props,
    },
    MappingEnd,
}

#[derive(Debug)]
pub(crate) struct Ev {
    pub event: Event,
    pub start: Mark,
}

/// A parse that stopped: the text PyYAML's exception prints, and where the
/// problem is (to order it against the emulated nesting limit).
#[derive(Debug, Clone)]
pub(crate) struct ParseFailure {
    pub error: Failure,
    pub at: Option<Mark>,
    /// For a reader error, the byte offset of the bad input.
    pub reader_offset: Option<u64>,
}

#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// A `yaml.YAMLError` (ReaderError, ScannerError, ParserError): `str(exc)`.
    Yaml(String),
    /// Python's `MemoryError`.
    Memory,
}

/// Owns a libyaml parser reading `input`. Boxed because libyaml keeps a
/// pointer to the parser inside itself for string input.
pub(crate) struct Parser<'a> {
    raw: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>>,
    /// Input handed over by [`feed`] when a byte is poisoned.
    feed: Option<Box<Feed>>,
    done: bool,
    _input: PhantomData<&'a [u8]>,
}

/// Input for a parser that must stop where libyaml 0.2.6 would: the byte at
/// `poison` is replaced by one that is not UTF-8, so the reader fails there.
/// Bytes are handed over one at a time shortly before it, so the reader
/// decodes it only when the scanner asks for that character.
struct Feed {
    input: *const u8,
    len: usize,
    pos: usize,
    poison: usize,
}

/// How many bytes before the poisoned one are handed over singly (more than
/// the scanner's longest look-ahead).
const SLOW_BEFORE_POISON: usize = 16;

/// libyaml read handler over a [`Feed`].
///
/// # Safety
/// `data` is the `Feed` the parser was set up with, whose input outlives
/// the parser; `buffer` has room for `size` bytes.
unsafe fn feed(
    data: *mut std::ffi::c_void,
    buffer: *mut u8,
    size: u64,
    size_read: *mut u64,
) -> i32 {
    let f = &mut *(data as *mut Feed);
    let mut n = (size as usize).min(f.len - f.pos);
    if f.pos <= f.poison && n > 0 {
        let slow_from = f.poison.saturating_sub(SLOW_BEFORE_POISON);
        if f.pos < slow_from {
            n = n.min(slow_from - f.pos);
        } else if f.pos == f.poison {
            *buffer = 0xff;
            f.pos += 1;
            *size_read = 1;
            return 1;
        } else {
            n = 1;
        }
    }
    std::ptr::copy_nonoverlapping(f.input.add(f.pos), buffer, n);
    f.pos += n;
    *size_read = n as u64;
    1
}

impl<'a> Parser<'a> {
    /// A parser over `input`; with `poison`, one that fails with a reader
    /// error at that byte offset once the scanner reaches it.
    pub(crate) fn new(input: &'a [u8], poison: Option<usize>) -> Parser<'a> {
        let mut raw: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        let mut feed_box = poison.map(|p| {
            Box::new(Feed {
                input: input.as_ptr(),
                len: input.len(),
                pos: 0,
                poison: p,
            })
        });
        // SAFETY: initialize fills the struct; the input slice (and the
        // boxed feed) outlive the parser through `'a` and `self.feed`.
        let done = unsafe {
            if unsafe_yaml::yaml_parser_initialize(raw.as_mut_ptr()).fail {
                // Only a failed allocation gets here, and Rust's allocator
                // aborts before that; treat it as an exhausted stream.
                true
            } else {
                match &mut feed_box {
                    Some(f) => unsafe_yaml::yaml_parser_set_input(
                        raw.as_mut_ptr(),
                        feed,
                        (&mut **f as *mut Feed).cast(),
                    ),
                    None => unsafe_yaml::yaml_parser_set_input_string(
                        raw.as_mut_ptr(),
                        input.as_ptr(),
                        input.len() as u64,
                    ),
                }
                false
            }
        };
        Parser {
            raw,
            feed: feed_box,
            done,
            _input: PhantomData,
        }
    }

    /// The byte offset that was poisoned, if any.
    pub(crate) fn poison(&self) -> Option<usize> {
        self.feed.as_ref().map(|f| f.poison)
    }

    /// The next event, or why the stream cannot go on. After an error the
    /// parser is spent and keeps returning that it is done (as `StreamEnd`).
    pub(crate) fn next_event(&mut self) -> Result<Ev, ParseFailure> {
        if self.done {
            return Ok(Ev {
                event: Event::StreamEnd,
                start: Mark::default(),
            });
        }
        let mut ev = MaybeUninit::<unsafe_yaml::yaml_event_t>::uninit();
        // SAFETY: the parser was initialised in `new`; `ev` is written by
        // yaml_parser_parse before it is read and deleted exactly once.
        unsafe {
            let parser = self.raw.as_mut_ptr();
            if unsafe_yaml::yaml_parser_parse(parser, ev.as_mut_ptr()).fail {
                self.done = true;
                return Err(parser_failure(&*parser));
            }
            let ev = ev.assume_init_mut();
            let out = convert_event(ev);
            unsafe_yaml::yaml_event_delete(ev);
            if matches!(out.event, Event::StreamEnd) {
                self.done = true;
            }
            Ok(out)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: `new` always initialised the struct (even on the failed
        // path libyaml zeroes it first), and it is deleted only here.
        unsafe { unsafe_yaml::yaml_parser_delete(self.raw.as_mut_ptr()) }
    }
}

/// # Safety
/// `ptr` is null or a NUL-terminated string libyaml owns.
unsafe fn opt_cstr(ptr: *const u8) -> Option<String> {
    if ptr.is_null() {
        None
    } else {
        Some(CStr::from_ptr(ptr.cast()).to_string_lossy().into_owned())
    }
}

/// # Safety
/// `ptr` is null or a NUL-terminated string libyaml owns.
unsafe fn tag_of(ptr: *const u8) -> Option<String> {
    // CParser resolves the non-specific tag `!` as if no tag were given.
    opt_cstr(ptr).filter(|t| t != "!")
}

/// # Safety
/// `ev` is an event yaml_parser_parse just filled.
unsafe fn convert_event(ev: &unsafe_yaml::yaml_event_t) -> Ev {
    let start = Mark::from(ev.start_mark);
    let event = match ev.type_ {
        unsafe_yaml::YAML_STREAM_START_EVENT => Event::StreamStart,
        unsafe_yaml::YAML_STREAM_END_EVENT => Event::StreamEnd,
        unsafe_yaml::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
        unsafe_yaml::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
        unsafe_yaml::YAML_ALIAS_EVENT => Event::Alias {
            anchor: opt_cstr(ev.data.alias.anchor).unwrap_or_default(),
        },
        unsafe_yaml::YAML_SCALAR_EVENT => {
            let s = &ev.data.scalar;
            let bytes = if s.value.is_null() || s.length == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(s.value, s.length as usize)
            };
            Event::Scalar {
                props: Props {
                    anchor: opt_cstr(s.anchor),
                    tag: tag_of(s.tag),
                },
                value: String::from_utf8_lossy(bytes).into_owned(),
                plain_implicit: s.plain_implicit,
            }
        }
        unsafe_yaml::YAML_SEQUENCE_START_EVENT => {
            let s = &ev.data.sequence_start;
            Event::SequenceStart {
                props: Props {
                    anchor: opt_cstr(s.anchor),
                    tag: tag_of(s.tag),
                },
            }
        }
        unsafe_yaml::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
        unsafe_yaml::YAML_MAPPING_START_EVENT => {
            let s = &ev.data.mapping_start;
            Event::MappingStart {
                props: Props {
                    anchor: opt_cstr(s.anchor),
                    tag: tag_of(s.tag),
                },
            }
        }
        unsafe_yaml::YAML_MAPPING_END_EVENT => Event::MappingEnd,
        // YAML_NO_EVENT only follows the end of the stream.
        _ => Event::StreamEnd,
    };
    Ev { event, start }
}

/// What CParser raises for the parser's error state.
fn parser_failure(p: &unsafe_yaml::yaml_parser_t) -> ParseFailure {
    // SAFETY: libyaml's problem/context strings are static C strings.
    let (problem, context) = unsafe {
        (
            opt_cstr(p.problem.cast()).unwrap_or_default(),
            opt_cstr(p.context.cast()),
        )
    };
    match p.error {
        unsafe_yaml::YAML_READER_ERROR => ParseFailure {
            error: Failure::Yaml(error::reader_error(
                p.problem_value,
                &problem,
                p.problem_offset,
            )),
            at: None,
            reader_offset: Some(p.problem_offset),
        },
        unsafe_yaml::YAML_SCANNER_ERROR | unsafe_yaml::YAML_PARSER_ERROR => {
            // libyaml 0.2.6 still spells this one the old way.
            let problem = if problem == "did not find expected hexadecimal number" {
                "did not find expected hexdecimal number".to_string()
            } else {
                problem
            };
            let context_mark = context.as_ref().map(|_| Mark::from(p.context_mark));
            let problem_mark = Mark::from(p.problem_mark);
            ParseFailure {
                error: Failure::Yaml(
                    MarkedError {
                        context,
                        context_mark,
                        problem: Some(problem),
                        problem_mark: Some(problem_mark),
                    }
                    .render(),
                ),
                at: Some(problem_mark),
                reader_offset: None,
            }
        }
        _ => ParseFailure {
            error: Failure::Memory,
            at: None,
            reader_offset: None,
        },
    }
}

/// Where libyaml 0.2.6 would stop with "exceeded maximum nesting depth".
#[derive(Debug, Clone, Copy)]
pub(crate) struct NestingViolation {
    /// The position the scanner is at when it gives up (the error's mark).
    pub at: Mark,
    /// Where the collection that is one level too deep starts: no event at
    /// or after it is produced by 0.2.6.
    pub from: Mark,
    pub flow: bool,
}

impl NestingViolation {
    pub(crate) fn error_text(&self) -> String {
        let context = if self.flow {
            "while increasing flow level"
        } else {
            "while increasing block level"
        };
        MarkedError {
            context: Some(context.to_string()),
            context_mark: Some(self.at),
            problem: Some("exceeded maximum nesting depth".to_string()),
            problem_mark: Some(self.at),
        }
        .render()
    }
}

/// libyaml 0.2.6 counts open block collections plus open flow collections
/// and refuses the one that would make them 1000 (block) or 1001 (flow).
const MAX_NESTING: u64 = 1000;

/// Whether libyaml's reader accepts the character (else "control
/// characters are not allowed").
pub(crate) fn reader_accepts(c: char) -> bool {
    matches!(c as u32,
        0x9 | 0xa | 0xd | 0x20..=0x7e | 0x85 | 0xa0..=0xd7ff | 0xe000..=0xfffd | 0x10000..=0x10ffff)
}

/// libyaml's raw input buffer: string input is decoded this many bytes at
/// a time, each chunk as soon as the scanner needs its first character.
const RAW_CHUNK: usize = 16384;

/// Where the chunk holding byte `offset` starts being needed: the first
/// character the reader had not decoded before reading it. A chunk ends at
/// the buffer's size; a character cut by that end is carried over.
pub(crate) fn reader_chunk_start(text: &str, offset: usize) -> usize {
    let mut start = 0;
    loop {
        let end = (start + RAW_CHUNK).min(text.len());
        let mut boundary = end;
        while !text.is_char_boundary(boundary) {
            boundary -= 1;
        }
        if offset < boundary || end == text.len() || boundary == start {
            return start;
        }
        start = boundary;
    }
}

/// Cheap test that a text cannot reach the nesting limit: a flow level
/// needs a `[` or `{`, and every block level a deeper column than the last.
pub(crate) fn may_reach_nesting_limit(input: &[u8]) -> bool {
    let mut openers: u64 = 0;
    let mut line_len: u64 = 0;
    let mut longest: u64 = 0;
    for &b in input {
        match b {
            b'[' | b'{' => openers += 1,
            b'\n' | b'\r' => {
                longest = longest.max(line_len);
                line_len = 0;
                continue;
            }
            _ => {}
        }
        line_len += 1;
    }
    longest = longest.max(line_len);
    openers + longest >= MAX_NESTING - 2
}

/// Scans the tokens (as libyaml 0.2.5 produces them, identical to 0.2.6 up
/// to the point 0.2.6 gives up) for the first collection beyond the limit.
pub(crate) fn nesting_violation(input: &[u8]) -> Option<NestingViolation> {
    let mut scanner = Scanner::new(input);
    let mut flow: u64 = 0;
    let mut block: u64 = 0;
    while let Some(tok) = scanner.next_token() {
        match tok.kind {
            TokenKind::FlowStart => {
                if flow + block >= MAX_NESTING {
                    return Some(NestingViolation {
                        at: tok.start,
                        from: tok.start,
                        flow: true,
                    });
                }
                flow += 1;
            }
            TokenKind::FlowEnd => flow = flow.saturating_sub(1),
            TokenKind::BlockStart => {
                if block + 1 >= MAX_NESTING {
                    return Some(NestingViolation {
                        at: block_trigger(&mut scanner, tok.start),
                        from: tok.start,
                        flow: false,
                    });
                }
                block += 1;
            }
            TokenKind::BlockEnd => block = block.saturating_sub(1),
            TokenKind::StreamEnd => return None,
            _ => {}
        }
    }
    None
}

/// Where the scanner stands when it opens the block collection starting at
/// `start`: at the `-`, `?` or `:` itself, except for a mapping opened by a
/// simple key, which is only known to be one at the `:` after the key.
fn block_trigger(scanner: &mut Scanner, start: Mark) -> Mark {
    let Some(next) = scanner.next_token() else {
        return start;
    };
    let simple_key = next.kind == TokenKind::Key && next.end.index == next.start.index;
    if !simple_key {
        return start;
    }
    let mut flow: u64 = 0;
    while let Some(tok) = scanner.next_token() {
        match tok.kind {
            TokenKind::FlowStart => flow += 1,
            TokenKind::FlowEnd => flow = flow.saturating_sub(1),
            TokenKind::Value if flow == 0 => return tok.start,
            TokenKind::StreamEnd => break,
            _ => {}
        }
    }
    start
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    FlowStart,
    FlowEnd,
    BlockStart,
    BlockEnd,
    Key,
    Value,
    StreamEnd,
    Other,
}

struct Token {
    kind: TokenKind,
    start: Mark,
    end: Mark,
}

/// libyaml's token stream, for the nesting check only.
struct Scanner<'a> {
    raw: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>>,
    done: bool,
    _input: PhantomData<&'a [u8]>,
}

impl<'a> Scanner<'a> {
    fn new(input: &'a [u8]) -> Scanner<'a> {
        let mut raw: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        // SAFETY: as in `Parser::new`.
        let done = unsafe {
            if unsafe_yaml::yaml_parser_initialize(raw.as_mut_ptr()).fail {
                true
            } else {
                unsafe_yaml::yaml_parser_set_input_string(
                    raw.as_mut_ptr(),
                    input.as_ptr(),
                    input.len() as u64,
                );
                false
            }
        };
        Scanner {
            raw,
            done,
            _input: PhantomData,
        }
    }

    /// The next token, `None` once the stream ended or failed.
    fn next_token(&mut self) -> Option<Token> {
        if self.done {
            return None;
        }
        let mut tok = MaybeUninit::<unsafe_yaml::yaml_token_t>::uninit();
        // SAFETY: yaml_parser_scan fills `tok` (zeroed on every path), which
        // is deleted exactly once.
        unsafe {
            if unsafe_yaml::yaml_parser_scan(self.raw.as_mut_ptr(), tok.as_mut_ptr()).fail {
                self.done = true;
                return None;
            }
            let tok = tok.assume_init_mut();
            let kind = match tok.type_ {
                unsafe_yaml::YAML_FLOW_SEQUENCE_START_TOKEN
                | unsafe_yaml::YAML_FLOW_MAPPING_START_TOKEN => TokenKind::FlowStart,
                unsafe_yaml::YAML_FLOW_SEQUENCE_END_TOKEN
                | unsafe_yaml::YAML_FLOW_MAPPING_END_TOKEN => TokenKind::FlowEnd,
                unsafe_yaml::YAML_BLOCK_SEQUENCE_START_TOKEN
                | unsafe_yaml::YAML_BLOCK_MAPPING_START_TOKEN => TokenKind::BlockStart,
                unsafe_yaml::YAML_BLOCK_END_TOKEN => TokenKind::BlockEnd,
                unsafe_yaml::YAML_KEY_TOKEN => TokenKind::Key,
                unsafe_yaml::YAML_VALUE_TOKEN => TokenKind::Value,
                unsafe_yaml::YAML_STREAM_END_TOKEN | unsafe_yaml::YAML_NO_TOKEN => {
                    TokenKind::StreamEnd
                }
                _ => TokenKind::Other,
            };
            let out = Token {
                kind,
                start: Mark::from(tok.start_mark),
                end: Mark::from(tok.end_mark),
            };
            unsafe_yaml::yaml_token_delete(tok);
            if kind == TokenKind::StreamEnd {
                self.done = true;
            }
            Some(out)
        }
    }
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, deleted only here.
        unsafe { unsafe_yaml::yaml_parser_delete(self.raw.as_mut_ptr()) }
    }
}
