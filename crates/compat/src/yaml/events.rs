//! The events the parser hands the composer, and the emulation of libyaml
//! 0.2.6's nesting limit (the reference bundles 0.2.6; `unsafe-libyaml`'s
//! scanner is 0.2.5's, which has none).

use super::error::MarkedError;
use super::libyaml::{Scanner, Tok};

/// A position as libyaml reports it: `index` is a byte offset into the
/// scanner's buffer; `line` and `column` are zero-based, column in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Mark {
    pub index: u64,
    pub line: u64,
    pub column: u64,
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
    /// Where the construct the scanner was in began (its context mark).
    pub context_at: Option<Mark>,
}

#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// A `yaml.YAMLError` (ReaderError, ScannerError, ParserError): `str(exc)`.
    Yaml(String),
    /// Python's `MemoryError`.
    Memory,
    /// A scalar read from a [`Shadow`] text could not be mapped back.
    ShadowMismatch,
}

/// The text with every ordinary non-ASCII character replaced by `^`, one
/// byte standing for one character, so that `unsafe-libyaml` (which counts
/// a simple key's 1024-character limit in bytes) counts characters as
/// libyaml does. Scalar values are mapped back through `subs`.
pub(crate) struct Shadow {
    pub text: String,
    /// Shadow byte offset and original character of each replacement.
    pub subs: Vec<(usize, char)>,
}

/// A shadow text when some line could hold a simple key whose byte and
/// character lengths fall on either side of 1024, and the reader accepts
/// every character (its error positions are byte offsets of the original).
pub(crate) fn shadow_for(text: &str) -> Option<Shadow> {
    if !some_long_line_is_not_ascii(text.as_bytes()) || !text.chars().all(reader_accepts) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut subs = Vec::new();
    // A BOM at column 0 is skipped by the scanner (the leading one by the
    // reader, which leaves the column at 0); anywhere else it is content.
    let mut column0 = true;
    for (i, c) in text.char_indices() {
        let line_break = matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
        let keep = c.is_ascii() || line_break || (c == '\u{feff}' && column0);
        if keep {
            out.push(c);
        } else {
            subs.push((out.len(), c));
            out.push('^');
        }
        column0 = line_break || (i == 0 && c == '\u{feff}');
    }
    Some(Shadow { text: out, subs })
}

/// Whether a line (as `\n` and `\r` end them) longer than 1024 bytes holds a byte
/// beyond ASCII: only there do bytes and characters count a simple key differently.
/// Every print file is read through this, so lines are found with `memchr` and tested
/// whole rather than byte by byte.
pub(crate) fn some_long_line_is_not_ascii(bytes: &[u8]) -> bool {
    const LONGEST_COUNTED: usize = 1024;
    if bytes.len() <= LONGEST_COUNTED || bytes.is_ascii() {
        return false;
    }
    let mut start = 0;
    for end in memchr::memchr2_iter(b'\n', b'\r', bytes).chain([bytes.len()]) {
        let line = &bytes[start..end];
        if line.len() > LONGEST_COUNTED && !line.is_ascii() {
            return true;
        }
        start = end + 1;
    }
    false
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
/// A block collection starts where a line's indentation and its leading
/// chain of `-`, `?` and `:` indicators end, so the deepest such column
/// bounds the block depth (long lines of plain text do not count).
///
/// Every print file is read through this. A text with none of the bytes that
/// begin NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR (`0xc2`, `0xe2`) breaks
/// lines only at `\n` and `\r`, found with `memchr`, and its openers are
/// counted over the whole text (a line's leading chain holds none).
pub(crate) fn may_reach_nesting_limit(input: &[u8]) -> bool {
    let (openers, deepest) =
        counted_by_lines(input).unwrap_or_else(|| openers_and_deepest_column(input));
    openers + deepest + 2 >= MAX_NESTING
}

/// [`openers_and_deepest_column`] of a text that breaks lines only at `\n` and `\r`
/// (`None` for any other).
pub(crate) fn counted_by_lines(input: &[u8]) -> Option<(u64, u64)> {
    if memchr::memchr2(0xc2, 0xe2, input).is_some() {
        return None;
    }
    let openers = input.iter().filter(|&&b| matches!(b, b'[' | b'{')).count() as u64;
    let starts = std::iter::once(0).chain(memchr::memchr2_iter(b'\n', b'\r', input).map(|i| i + 1));
    let deepest = starts
        .map(|i| leading_column(input, i).0)
        .max()
        .unwrap_or(0);
    Some((openers, deepest))
}

/// The column where the line starting at byte `i` ends its indentation and its
/// leading chain of indicators (a BOM counts as a column too), and the byte
/// offset there.
fn leading_column(input: &[u8], mut i: usize) -> (u64, usize) {
    let n = input.len();
    let mut col: u64 = 0;
    if input[i..].starts_with(b"\xef\xbb\xbf") {
        i += 3;
        col += 3;
    }
    loop {
        while i < n && matches!(input[i], b' ' | b'\t') {
            i += 1;
            col += 1;
        }
        let indicator = i + 1 < n
            && matches!(input[i], b'-' | b'?' | b':')
            && matches!(input[i + 1], b' ' | b'\t');
        if !indicator {
            return (col, i);
        }
        i += 1;
        col += 1;
    }
}

/// [`may_reach_nesting_limit`]'s counts, byte by byte, every line break libyaml
/// knows taken as one.
pub(crate) fn openers_and_deepest_column(input: &[u8]) -> (u64, u64) {
    let mut openers: u64 = 0;
    let mut deepest: u64 = 0;
    let mut i = 0;
    let n = input.len();
    while i < n {
        let (col, after) = leading_column(input, i);
        i = after;
        deepest = deepest.max(col);
        // The rest of the line.
        while i < n {
            match input[i] {
                b'\n' | b'\r' => {
                    i += 1;
                    break;
                }
                b'[' | b'{' => openers += 1,
                // NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR break lines too.
                0xc2 if input.get(i + 1) == Some(&0x85) => {
                    i += 2;
                    break;
                }
                0xe2 if input.get(i + 1) == Some(&0x80)
                    && matches!(input.get(i + 2), Some(0xa8) | Some(0xa9)) =>
                {
                    i += 3;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    (openers, deepest)
}

/// The first collection beyond libyaml 0.2.6's nesting limit, if any.
///
/// Found by scanning the tokens as libyaml 0.2.5 produces them (identical
/// to 0.2.6's up to where 0.2.6 gives up). The scanner reads ahead in
/// batches, and a batch that ends in an error is lost whole, so errors are
/// worked around: characters the reader rejects are swapped for accepted
/// ones of the same width, and after a scanner error the text is cut
/// before the construct that failed and scanned again.
pub(crate) fn nesting_violation(text: &str) -> Option<NestingViolation> {
    let sanitized: String = text
        .chars()
        .map(|c| match (reader_accepts(c), c.len_utf8()) {
            (true, _) => c,
            (false, 1) => 'x',
            (false, 2) => '\u{e9}',
            (false, _) => '\u{20ac}',
        })
        .collect();
    let bom = if sanitized.starts_with('\u{feff}') {
        3
    } else {
        0
    };
    let mut cut = sanitized.len();
    for _ in 0..6 {
        match scan_for_violation(&sanitized.as_bytes()[..cut]) {
            Ok(found) => return found,
            Err(at) => {
                let mut next = (at.index as usize + bom).min(cut.saturating_sub(1));
                while !sanitized.is_char_boundary(next) {
                    next -= 1;
                }
                if next == 0 {
                    return None;
                }
                cut = next;
            }
        }
    }
    None
}

/// One scan: `Ok` with the violation (or none, at the stream's end), or
/// `Err` with the earliest position the failed construct involves.
fn scan_for_violation(input: &[u8]) -> Result<Option<NestingViolation>, Mark> {
    let mut scanner = Scanner::new(input, None, None);
    let mut flow: u64 = 0;
    let mut block: u64 = 0;
    loop {
        let tok = match scanner.next_token() {
            Ok(tok) => tok,
            Err(f) => {
                let at = match (f.context_at, f.at) {
                    (Some(c), Some(p)) => {
                        if c.index < p.index {
                            c
                        } else {
                            p
                        }
                    }
                    (c, p) => c.or(p).unwrap_or(Mark {
                        index: f.reader_offset.unwrap_or(0),
                        line: 0,
                        column: 0,
                    }),
                };
                return Err(at);
            }
        };
        match tok.tok {
            Tok::FlowSequenceStart | Tok::FlowMappingStart => {
                if flow + block >= MAX_NESTING {
                    return Ok(Some(NestingViolation {
                        at: tok.start,
                        from: tok.start,
                        flow: true,
                    }));
                }
                flow += 1;
            }
            Tok::FlowSequenceEnd | Tok::FlowMappingEnd => flow = flow.saturating_sub(1),
            Tok::BlockSequenceStart | Tok::BlockMappingStart => {
                if block + 1 >= MAX_NESTING {
                    return Ok(Some(NestingViolation {
                        at: block_trigger(&mut scanner, tok.start),
                        from: tok.start,
                        flow: false,
                    }));
                }
                block += 1;
            }
            Tok::BlockEnd => block = block.saturating_sub(1),
            Tok::StreamEnd => return Ok(None),
            _ => {}
        }
    }
}

/// Where the scanner stands when it opens the block collection starting at
/// `start`: at the `-`, `?` or `:` itself, except for a mapping opened by a
/// simple key, which is only known to be one at the `:` after the key.
fn block_trigger(scanner: &mut Scanner, start: Mark) -> Mark {
    let Ok(next) = scanner.next_token() else {
        return start;
    };
    let simple_key = next.tok == Tok::Key && next.end.index == next.start.index;
    if !simple_key {
        return start;
    }
    let mut flow: u64 = 0;
    while let Ok(tok) = scanner.next_token() {
        match tok.tok {
            Tok::FlowSequenceStart | Tok::FlowMappingStart => flow += 1,
            Tok::FlowSequenceEnd | Tok::FlowMappingEnd => flow = flow.saturating_sub(1),
            Tok::Value if flow == 0 => return tok.start,
            Tok::StreamEnd => break,
            _ => {}
        }
    }
    start
}
