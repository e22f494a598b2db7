//! The only `unsafe` code of the module: `unsafe-libyaml`'s scanner (a port
//! of libyaml 0.2.5's reader and scanner) wrapped as a safe token iterator.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_yaml;

use super::error::{self, MarkedError};
use super::events::{Failure, Mark, ParseFailure, Shadow};

impl From<unsafe_yaml::yaml_mark_t> for Mark {
    fn from(m: unsafe_yaml::yaml_mark_t) -> Self {
        Mark {
            index: m.index,
            line: m.line,
            column: m.column,
        }
    }
}

/// A token with its data copied out of libyaml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    StreamStart,
    StreamEnd,
    VersionDirective { major: i32, minor: i32 },
    TagDirective { handle: String, prefix: String },
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    Tag { handle: String, suffix: String },
    Scalar { value: String, plain: bool },
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: Mark,
    pub end: Mark,
}

/// Input for a scanner that must stop where libyaml 0.2.6 would: the byte at
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
/// `data` is the `Feed` the scanner was set up with, whose input outlives
/// the scanner; `buffer` has room for `size` bytes.
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

/// libyaml's scanner over `input`. Boxed because libyaml keeps a pointer to
/// the parser struct inside itself for string input.
pub(crate) struct Scanner<'a> {
    raw: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>>,
    feed: Option<Box<Feed>>,
    /// Set when `input` is a shadow text whose scalars are mapped back.
    shadow: Option<&'a Shadow>,
    done: bool,
    _input: PhantomData<&'a [u8]>,
}

impl<'a> Scanner<'a> {
    /// A scanner over `input`; with `poison`, one that fails with a reader
    /// error at that byte offset once it needs that character.
    pub(crate) fn new(
        input: &'a [u8],
        poison: Option<usize>,
        shadow: Option<&'a Shadow>,
    ) -> Scanner<'a> {
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
        Scanner {
            raw,
            feed: feed_box,
            shadow,
            done,
            _input: PhantomData,
        }
    }

    /// The byte offset that was poisoned, if any.
    pub(crate) fn poison(&self) -> Option<usize> {
        self.feed.as_ref().map(|f| f.poison)
    }

    /// The next token. After the stream's end it keeps returning StreamEnd;
    /// after an error it keeps failing.
    pub(crate) fn next_token(&mut self) -> Result<Token, ParseFailure> {
        if self.done {
            return Ok(Token {
                tok: Tok::StreamEnd,
                start: Mark::default(),
                end: Mark::default(),
            });
        }
        let mut tok = MaybeUninit::<unsafe_yaml::yaml_token_t>::uninit();
        // SAFETY: the parser was initialised in `new`; yaml_parser_scan
        // fills `tok` (zeroed on every path), which is deleted exactly once.
        unsafe {
            let parser = self.raw.as_mut_ptr();
            if unsafe_yaml::yaml_parser_scan(parser, tok.as_mut_ptr()).fail {
                self.done = true;
                return Err(scanner_failure(&*parser));
            }
            let tok = tok.assume_init_mut();
            let mut out = convert_token(tok);
            unsafe_yaml::yaml_token_delete(tok);
            if out.tok == Tok::StreamEnd {
                self.done = true;
            }
            if let (Some(shadow), Tok::Scalar { value, .. }) = (self.shadow, &mut out.tok) {
                if !unshadow(shadow, out.start, out.end, value) {
                    self.done = true;
                    return Err(ParseFailure {
                        error: Failure::ShadowMismatch,
                        at: None,
                        reader_offset: None,
                        context_at: None,
                    });
                }
            }
            Ok(out)
        }
    }
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        // SAFETY: `new` always initialised the struct (libyaml zeroes it
        // first even when it fails), and it is deleted only here.
        unsafe { unsafe_yaml::yaml_parser_delete(self.raw.as_mut_ptr()) }
    }
}

/// Puts the original characters back into a scalar read from a shadow
/// text: its `^`s are, in order, those of its source span (folding and
/// quoting never add or drop one), unless an escape made one.
fn unshadow(shadow: &Shadow, start: Mark, end: Mark, value: &mut String) -> bool {
    let base = if shadow.text.starts_with('\u{feff}') {
        3
    } else {
        0
    };
    let (s, e) = (start.index as usize + base, end.index as usize + base);
    let Some(span) = shadow.text.as_bytes().get(s..e) else {
        return false;
    };
    let first = shadow.subs.partition_point(|&(p, _)| p < s);
    if shadow.subs.get(first).is_none_or(|&(p, _)| p >= e) {
        return true;
    }
    let mut subs = shadow.subs[first..].iter().peekable();
    // The `^`s the value holds, in order: each caret of the span (a stand-in
    // or a real one), and in a double-quoted scalar each escape spelling
    // U+005E.
    let mut carets: Vec<char> = Vec::new();
    let double_quoted = span.first() == Some(&b'"');
    let mut i = 0;
    while i < span.len() {
        match span[i] {
            b'^' => {
                match subs.peek() {
                    Some(&&(p, c)) if p == s + i => {
                        carets.push(c);
                        subs.next();
                    }
                    _ => carets.push('^'),
                }
                i += 1;
            }
            b'\\' if double_quoted => {
                let digits = match span.get(i + 1) {
                    Some(b'x') => 2,
                    Some(b'u') => 4,
                    Some(b'U') => 8,
                    _ => 0,
                };
                let hex = span.get(i + 2..i + 2 + digits).unwrap_or_default();
                if digits > 0
                    && std::str::from_utf8(hex)
                        .ok()
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        == Some(0x5e)
                {
                    carets.push('^');
                }
                i += 2 + digits;
            }
            _ => i += 1,
        }
    }
    if value.matches('^').count() != carets.len() {
        return false;
    }
    let mut it = carets.into_iter();
    *value = value
        .chars()
        .map(|c| {
            if c == '^' {
                it.next().unwrap_or('^')
            } else {
                c
            }
        })
        .collect();
    true
}

/// # Safety
/// `ptr` is null or a NUL-terminated string libyaml owns.
unsafe fn cstr(ptr: *const u8) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        CStr::from_ptr(ptr.cast()).to_string_lossy().into_owned()
    }
}

/// # Safety
/// `t` is a token yaml_parser_scan just filled.
unsafe fn convert_token(t: &unsafe_yaml::yaml_token_t) -> Token {
    use unsafe_yaml::*;
    let tok = match t.type_ {
        YAML_STREAM_START_TOKEN => Tok::StreamStart,
        YAML_VERSION_DIRECTIVE_TOKEN => Tok::VersionDirective {
            major: t.data.version_directive.major,
            minor: t.data.version_directive.minor,
        },
        YAML_TAG_DIRECTIVE_TOKEN => Tok::TagDirective {
            handle: cstr(t.data.tag_directive.handle),
            prefix: cstr(t.data.tag_directive.prefix),
        },
        YAML_DOCUMENT_START_TOKEN => Tok::DocumentStart,
        YAML_DOCUMENT_END_TOKEN => Tok::DocumentEnd,
        YAML_BLOCK_SEQUENCE_START_TOKEN => Tok::BlockSequenceStart,
        YAML_BLOCK_MAPPING_START_TOKEN => Tok::BlockMappingStart,
        YAML_BLOCK_END_TOKEN => Tok::BlockEnd,
        YAML_FLOW_SEQUENCE_START_TOKEN => Tok::FlowSequenceStart,
        YAML_FLOW_SEQUENCE_END_TOKEN => Tok::FlowSequenceEnd,
        YAML_FLOW_MAPPING_START_TOKEN => Tok::FlowMappingStart,
        YAML_FLOW_MAPPING_END_TOKEN => Tok::FlowMappingEnd,
        YAML_BLOCK_ENTRY_TOKEN => Tok::BlockEntry,
        YAML_FLOW_ENTRY_TOKEN => Tok::FlowEntry,
        YAML_KEY_TOKEN => Tok::Key,
        YAML_VALUE_TOKEN => Tok::Value,
        YAML_ALIAS_TOKEN => Tok::Alias(cstr(t.data.alias.value)),
        YAML_ANCHOR_TOKEN => Tok::Anchor(cstr(t.data.anchor.value)),
        YAML_TAG_TOKEN => Tok::Tag {
            handle: cstr(t.data.tag.handle),
            suffix: cstr(t.data.tag.suffix),
        },
        YAML_SCALAR_TOKEN => {
            let s = &t.data.scalar;
            let bytes = if s.value.is_null() || s.length == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(s.value, s.length as usize)
            };
            Tok::Scalar {
                // Valid UTF-8 (the reader checked it) is copied after a quick check;
                // the lossy path's character-by-character walk only if it is not.
                value: match std::str::from_utf8(bytes) {
                    Ok(text) => text.to_owned(),
                    Err(_) => String::from_utf8_lossy(bytes).into_owned(),
                },
                plain: s.style == YAML_PLAIN_SCALAR_STYLE,
            }
        }
        // YAML_NO_TOKEN only follows the end of the stream.
        _ => Tok::StreamEnd,
    };
    Token {
        tok,
        start: Mark::from(t.start_mark),
        end: Mark::from(t.end_mark),
    }
}

/// What CParser raises for a reader or scanner error.
fn scanner_failure(p: &unsafe_yaml::yaml_parser_t) -> ParseFailure {
    // SAFETY: libyaml's problem/context strings are static C strings.
    let (problem, context) = unsafe {
        let context = p.context;
        (
            cstr(p.problem.cast()),
            (!context.is_null()).then(|| cstr(context.cast())),
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
            context_at: None,
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
                context_at: context_mark,
            }
        }
        _ => ParseFailure {
            error: Failure::Memory,
            at: None,
            reader_offset: None,
            context_at: None,
        },
    }
}
