//! libyaml's parser (tokens to events), ported from its C source as of the
//! 0.2.6 the reference bundles, over `unsafe-libyaml`'s 0.2.5 scanner.
//!
//! Ported rather than called because 0.2.6 changed it: a flow sequence may
//! close right after an explicit key (`[?]`), and its 0.2.5-era nesting
//! check in the parser is gone. Every state peeks and skips tokens exactly
//! where libyaml does, so the scanner reads ahead (and fails) at the same
//! events.

use super::error::MarkedError;
use super::events::{Ev, Event, Failure, Mark, ParseFailure, Props, Shadow};
use super::libyaml::{Scanner, Tok, Token};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

/// The kind of the token under the cursor, with its marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    StreamStart,
    StreamEnd,
    VersionDirective,
    TagDirective,
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
    Alias,
    Anchor,
    Tag,
    Scalar,
}

#[derive(Debug, Clone, Copy)]
struct Peek {
    k: K,
    start: Mark,
    end: Mark,
}

fn kind(t: &Tok) -> K {
    match t {
        Tok::StreamStart => K::StreamStart,
        Tok::StreamEnd => K::StreamEnd,
        Tok::VersionDirective { .. } => K::VersionDirective,
        Tok::TagDirective { .. } => K::TagDirective,
        Tok::DocumentStart => K::DocumentStart,
        Tok::DocumentEnd => K::DocumentEnd,
        Tok::BlockSequenceStart => K::BlockSequenceStart,
        Tok::BlockMappingStart => K::BlockMappingStart,
        Tok::BlockEnd => K::BlockEnd,
        Tok::FlowSequenceStart => K::FlowSequenceStart,
        Tok::FlowSequenceEnd => K::FlowSequenceEnd,
        Tok::FlowMappingStart => K::FlowMappingStart,
        Tok::FlowMappingEnd => K::FlowMappingEnd,
        Tok::BlockEntry => K::BlockEntry,
        Tok::FlowEntry => K::FlowEntry,
        Tok::Key => K::Key,
        Tok::Value => K::Value,
        Tok::Alias(_) => K::Alias,
        Tok::Anchor(_) => K::Anchor,
        Tok::Tag { .. } => K::Tag,
        Tok::Scalar { .. } => K::Scalar,
    }
}

type PResult<T> = Result<T, ParseFailure>;

fn parser_error(e: MarkedError) -> ParseFailure {
    let at = e.problem_mark;
    ParseFailure {
        error: Failure::Yaml(e.render()),
        at,
        reader_offset: None,
        context_at: e.context_mark,
    }
}

fn ev(event: Event, start: Mark) -> PResult<Ev> {
    Ok(Ev { event, start })
}

fn empty_scalar(mark: Mark) -> PResult<Ev> {
    ev(
        Event::Scalar {
            props: Props {
                anchor: None,
                tag: None,
            },
            value: String::new(),
            plain_implicit: true,
        },
        mark,
    )
}

pub(crate) struct Parser<'a> {
    scanner: Scanner<'a>,
    /// The token PEEK_TOKEN has fetched and SKIP_TOKEN not yet consumed.
    token: Option<Token>,
    state: State,
    states: Vec<State>,
    marks: Vec<Mark>,
    tag_directives: Vec<(String, String)>,
    done: bool,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(
        input: &'a [u8],
        poison: Option<usize>,
        shadow: Option<&'a Shadow>,
    ) -> Parser<'a> {
        Parser {
            scanner: Scanner::new(input, poison, shadow),
            token: None,
            state: State::StreamStart,
            states: Vec::new(),
            marks: Vec::new(),
            tag_directives: Vec::new(),
            done: false,
        }
    }

    /// The byte offset the scanner's input was poisoned at, if any.
    pub(crate) fn poison(&self) -> Option<usize> {
        self.scanner.poison()
    }

    /// `yaml_parser_parse`: the next event. After the end or an error it
    /// keeps returning StreamEnd.
    pub(crate) fn next_event(&mut self) -> PResult<Ev> {
        if self.done || self.state == State::End {
            return ev(Event::StreamEnd, Mark::default());
        }
        match self.state_machine() {
            Ok(e) => {
                if matches!(e.event, Event::StreamEnd) {
                    self.done = true;
                }
                Ok(e)
            }
            Err(f) => {
                self.done = true;
                Err(f)
            }
        }
    }

    fn peek(&mut self) -> PResult<Peek> {
        if self.token.is_none() {
            self.token = Some(self.scanner.next_token()?);
        }
        match &self.token {
            Some(t) => Ok(Peek {
                k: kind(&t.tok),
                start: t.start,
                end: t.end,
            }),
            None => Ok(Peek {
                k: K::StreamEnd,
                start: Mark::default(),
                end: Mark::default(),
            }),
        }
    }

    fn skip(&mut self) -> Tok {
        self.token.take().map_or(Tok::StreamEnd, |t| t.tok)
    }

    fn pop_state(&mut self) -> State {
        self.states.pop().unwrap_or(State::End)
    }

    fn pop_mark(&mut self) -> Mark {
        self.marks.pop().unwrap_or_default()
    }

    fn state_machine(&mut self) -> PResult<Ev> {
        match self.state {
            State::StreamStart => self.parse_stream_start(),
            State::ImplicitDocumentStart => self.parse_document_start(true),
            State::DocumentStart => self.parse_document_start(false),
            State::DocumentContent => self.parse_document_content(),
            State::DocumentEnd => self.parse_document_end(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => self.parse_block_sequence_entry(true),
            State::BlockSequenceEntry => self.parse_block_sequence_entry(false),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => self.parse_block_mapping_key(true),
            State::BlockMappingKey => self.parse_block_mapping_key(false),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => self.parse_flow_sequence_entry(true),
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => self.parse_flow_sequence_entry_mapping_end(),
            State::FlowMappingFirstKey => self.parse_flow_mapping_key(true),
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(false),
            State::FlowMappingEmptyValue => self.parse_flow_mapping_value(true),
            State::End => ev(Event::StreamEnd, Mark::default()),
        }
    }

    fn parse_stream_start(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        if t.k != K::StreamStart {
            return Err(parser_error(MarkedError::problem(
                "did not find expected <stream-start>",
                t.start,
            )));
        }
        self.state = State::ImplicitDocumentStart;
        self.skip();
        ev(Event::StreamStart, t.start)
    }

    fn parse_document_start(&mut self, implicit: bool) -> PResult<Ev> {
        let mut t = self.peek()?;
        if !implicit {
            while t.k == K::DocumentEnd {
                self.skip();
                t = self.peek()?;
            }
        }
        let directive_or_end = matches!(
            t.k,
            K::VersionDirective | K::TagDirective | K::DocumentStart | K::StreamEnd
        );
        if implicit && !directive_or_end {
            self.process_directives()?;
            self.states.push(State::DocumentEnd);
            self.state = State::BlockNode;
            ev(Event::DocumentStart, t.start)
        } else if t.k != K::StreamEnd {
            let start = t.start;
            self.process_directives()?;
            let t = self.peek()?;
            if t.k != K::DocumentStart {
                return Err(parser_error(MarkedError::problem(
                    "did not find expected <document start>",
                    t.start,
                )));
            }
            self.states.push(State::DocumentEnd);
            self.state = State::DocumentContent;
            self.skip();
            ev(Event::DocumentStart, start)
        } else {
            self.state = State::End;
            self.skip();
            ev(Event::StreamEnd, t.start)
        }
    }

    fn parse_document_content(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        if matches!(
            t.k,
            K::VersionDirective
                | K::TagDirective
                | K::DocumentStart
                | K::DocumentEnd
                | K::StreamEnd
        ) {
            self.state = self.pop_state();
            empty_scalar(t.start)
        } else {
            self.parse_node(true, false)
        }
    }

    fn parse_document_end(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        if t.k == K::DocumentEnd {
            self.skip();
        }
        self.tag_directives.clear();
        self.state = State::DocumentStart;
        ev(Event::DocumentEnd, t.start)
    }

    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> PResult<Ev> {
        let mut t = self.peek()?;
        if t.k == K::Alias {
            self.state = self.pop_state();
            let anchor = match self.skip() {
                Tok::Alias(a) => a,
                _ => String::new(),
            };
            return ev(Event::Alias { anchor }, t.start);
        }
        let mut start = t.start;
        let mut tag_mark = t.start;
        let mut anchor: Option<String> = None;
        let mut tag_parts: Option<(String, String)> = None;
        if t.k == K::Anchor {
            if let Tok::Anchor(a) = self.skip() {
                anchor = Some(a);
            }
            t = self.peek()?;
            if t.k == K::Tag {
                tag_mark = t.start;
                if let Tok::Tag { handle, suffix } = self.skip() {
                    tag_parts = Some((handle, suffix));
                }
                t = self.peek()?;
            }
        } else if t.k == K::Tag {
            start = t.start;
            tag_mark = t.start;
            if let Tok::Tag { handle, suffix } = self.skip() {
                tag_parts = Some((handle, suffix));
            }
            t = self.peek()?;
            if t.k == K::Anchor {
                if let Tok::Anchor(a) = self.skip() {
                    anchor = Some(a);
                }
                t = self.peek()?;
            }
        }
        let tag: Option<String> = match tag_parts {
            None => None,
            Some((handle, suffix)) if handle.is_empty() => Some(suffix),
            Some((handle, suffix)) => {
                match self.tag_directives.iter().find(|(h, _)| *h == handle) {
                    Some((_, prefix)) => Some(format!("{prefix}{suffix}")),
                    None => {
                        return Err(parser_error(MarkedError::with_context(
                            "while parsing a node",
                            start,
                            "found undefined tag handle",
                            tag_mark,
                        )))
                    }
                }
            }
        };
        let implicit = tag.as_deref().is_none_or(str::is_empty);
        let is_bang = tag.as_deref() == Some("!");
        // CParser resolves the non-specific tag `!` as if no tag were given.
        let props = |anchor: Option<String>, tag: Option<String>| Props {
            anchor,
            tag: tag.filter(|t| t != "!"),
        };
        if indentless_sequence && t.k == K::BlockEntry {
            self.state = State::IndentlessSequenceEntry;
            return ev(
                Event::SequenceStart {
                    props: props(anchor, tag),
                },
                start,
            );
        }
        match t.k {
            K::Scalar => {
                self.state = self.pop_state();
                let (value, plain) = match self.skip() {
                    Tok::Scalar { value, plain } => (value, plain),
                    _ => (String::new(), true),
                };
                let plain_implicit = (plain && tag.is_none()) || is_bang;
                ev(
                    Event::Scalar {
                        props: props(anchor, tag),
                        value,
                        plain_implicit,
                    },
                    start,
                )
            }
            K::FlowSequenceStart => {
                self.state = State::FlowSequenceFirstEntry;
                ev(
                    Event::SequenceStart {
                        props: props(anchor, tag),
                    },
                    start,
                )
            }
            K::FlowMappingStart => {
                self.state = State::FlowMappingFirstKey;
                ev(
                    Event::MappingStart {
                        props: props(anchor, tag),
                    },
                    start,
                )
            }
            K::BlockSequenceStart if block => {
                self.state = State::BlockSequenceFirstEntry;
                ev(
                    Event::SequenceStart {
                        props: props(anchor, tag),
                    },
                    start,
                )
            }
            K::BlockMappingStart if block => {
                self.state = State::BlockMappingFirstKey;
                ev(
                    Event::MappingStart {
                        props: props(anchor, tag),
                    },
                    start,
                )
            }
            _ if anchor.is_some() || tag.is_some() => {
                self.state = self.pop_state();
                ev(
                    Event::Scalar {
                        props: props(anchor, tag),
                        value: String::new(),
                        plain_implicit: implicit,
                    },
                    start,
                )
            }
            _ => Err(parser_error(MarkedError::with_context(
                if block {
                    "while parsing a block node"
                } else {
                    "while parsing a flow node"
                },
                start,
                "did not find expected node content",
                t.start,
            ))),
        }
    }

    fn parse_block_sequence_entry(&mut self, first: bool) -> PResult<Ev> {
        if first {
            let t = self.peek()?;
            self.marks.push(t.start);
            self.skip();
        }
        let t = self.peek()?;
        match t.k {
            K::BlockEntry => {
                let mark = t.end;
                self.skip();
                let t = self.peek()?;
                if !matches!(t.k, K::BlockEntry | K::BlockEnd) {
                    self.states.push(State::BlockSequenceEntry);
                    self.parse_node(true, false)
                } else {
                    self.state = State::BlockSequenceEntry;
                    empty_scalar(mark)
                }
            }
            K::BlockEnd => {
                self.state = self.pop_state();
                self.pop_mark();
                self.skip();
                ev(Event::SequenceEnd, t.start)
            }
            _ => {
                let context_mark = self.pop_mark();
                Err(parser_error(MarkedError::with_context(
                    "while parsing a block collection",
                    context_mark,
                    "did not find expected '-' indicator",
                    t.start,
                )))
            }
        }
    }

    fn parse_indentless_sequence_entry(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        if t.k == K::BlockEntry {
            let mark = t.end;
            self.skip();
            let t = self.peek()?;
            if !matches!(t.k, K::BlockEntry | K::Key | K::Value | K::BlockEnd) {
                self.states.push(State::IndentlessSequenceEntry);
                self.parse_node(true, false)
            } else {
                self.state = State::IndentlessSequenceEntry;
                empty_scalar(mark)
            }
        } else {
            self.state = self.pop_state();
            ev(Event::SequenceEnd, t.start)
        }
    }

    fn parse_block_mapping_key(&mut self, first: bool) -> PResult<Ev> {
        if first {
            let t = self.peek()?;
            self.marks.push(t.start);
            self.skip();
        }
        let t = self.peek()?;
        match t.k {
            K::Key => {
                let mark = t.end;
                self.skip();
                let t = self.peek()?;
                if !matches!(t.k, K::Key | K::Value | K::BlockEnd) {
                    self.states.push(State::BlockMappingValue);
                    self.parse_node(true, true)
                } else {
                    self.state = State::BlockMappingValue;
                    empty_scalar(mark)
                }
            }
            K::BlockEnd => {
                self.state = self.pop_state();
                self.pop_mark();
                self.skip();
                ev(Event::MappingEnd, t.start)
            }
            _ => {
                let context_mark = self.pop_mark();
                Err(parser_error(MarkedError::with_context(
                    "while parsing a block mapping",
                    context_mark,
                    "did not find expected key",
                    t.start,
                )))
            }
        }
    }

    fn parse_block_mapping_value(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        if t.k == K::Value {
            let mark = t.end;
            self.skip();
            let t = self.peek()?;
            if !matches!(t.k, K::Key | K::Value | K::BlockEnd) {
                self.states.push(State::BlockMappingKey);
                self.parse_node(true, true)
            } else {
                self.state = State::BlockMappingKey;
                empty_scalar(mark)
            }
        } else {
            self.state = State::BlockMappingKey;
            empty_scalar(t.start)
        }
    }

    fn parse_flow_sequence_entry(&mut self, first: bool) -> PResult<Ev> {
        if first {
            let t = self.peek()?;
            self.marks.push(t.start);
            self.skip();
        }
        let mut t = self.peek()?;
        if t.k != K::FlowSequenceEnd {
            if !first {
                if t.k == K::FlowEntry {
                    self.skip();
                    t = self.peek()?;
                } else {
                    let context_mark = self.pop_mark();
                    return Err(parser_error(MarkedError::with_context(
                        "while parsing a flow sequence",
                        context_mark,
                        "did not find expected ',' or ']'",
                        t.start,
                    )));
                }
            }
            if t.k == K::Key {
                self.state = State::FlowSequenceEntryMappingKey;
                self.skip();
                return ev(
                    Event::MappingStart {
                        props: Props {
                            anchor: None,
                            tag: None,
                        },
                    },
                    t.start,
                );
            } else if t.k != K::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        self.state = self.pop_state();
        self.pop_mark();
        self.skip();
        ev(Event::SequenceEnd, t.start)
    }

    fn parse_flow_sequence_entry_mapping_key(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        match t.k {
            K::Value | K::FlowEntry => {
                let mark = t.end;
                self.skip();
                self.state = State::FlowSequenceEntryMappingValue;
                empty_scalar(mark)
            }
            // libyaml 0.2.6: `]` right after `?` ends the key, and is left
            // for the sequence to close on.
            K::FlowSequenceEnd => {
                self.state = State::FlowSequenceEntryMappingValue;
                empty_scalar(t.start)
            }
            _ => {
                self.states.push(State::FlowSequenceEntryMappingValue);
                self.parse_node(false, false)
            }
        }
    }

    fn parse_flow_sequence_entry_mapping_value(&mut self) -> PResult<Ev> {
        let mut t = self.peek()?;
        if t.k == K::Value {
            self.skip();
            t = self.peek()?;
            if !matches!(t.k, K::FlowEntry | K::FlowSequenceEnd) {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowSequenceEntryMappingEnd;
        empty_scalar(t.start)
    }

    fn parse_flow_sequence_entry_mapping_end(&mut self) -> PResult<Ev> {
        let t = self.peek()?;
        self.state = State::FlowSequenceEntry;
        ev(Event::MappingEnd, t.start)
    }

    fn parse_flow_mapping_key(&mut self, first: bool) -> PResult<Ev> {
        if first {
            let t = self.peek()?;
            self.marks.push(t.start);
            self.skip();
        }
        let mut t = self.peek()?;
        if t.k != K::FlowMappingEnd {
            if !first {
                if t.k == K::FlowEntry {
                    self.skip();
                    t = self.peek()?;
                } else {
                    let context_mark = self.pop_mark();
                    return Err(parser_error(MarkedError::with_context(
                        "while parsing a flow mapping",
                        context_mark,
                        "did not find expected ',' or '}'",
                        t.start,
                    )));
                }
            }
            if t.k == K::Key {
                self.skip();
                let t = self.peek()?;
                if !matches!(t.k, K::Value | K::FlowEntry | K::FlowMappingEnd) {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = State::FlowMappingValue;
                return empty_scalar(t.start);
            } else if t.k != K::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        self.state = self.pop_state();
        self.pop_mark();
        self.skip();
        ev(Event::MappingEnd, t.start)
    }

    fn parse_flow_mapping_value(&mut self, empty: bool) -> PResult<Ev> {
        let mut t = self.peek()?;
        if empty {
            self.state = State::FlowMappingKey;
            return empty_scalar(t.start);
        }
        if t.k == K::Value {
            self.skip();
            t = self.peek()?;
            if !matches!(t.k, K::FlowEntry | K::FlowMappingEnd) {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowMappingKey;
        empty_scalar(t.start)
    }

    /// `yaml_parser_process_directives`: checks the `%YAML` and `%TAG`
    /// directives before a document and sets up its tag handles.
    fn process_directives(&mut self) -> PResult<()> {
        let mut version_seen = false;
        let mut t = self.peek()?;
        while matches!(t.k, K::VersionDirective | K::TagDirective) {
            match self.token.as_ref().map(|tok| &tok.tok) {
                Some(Tok::VersionDirective { major, minor }) => {
                    if version_seen {
                        return Err(parser_error(MarkedError::problem(
                            "found duplicate %YAML directive",
                            t.start,
                        )));
                    }
                    if *major != 1 || (*minor != 1 && *minor != 2) {
                        return Err(parser_error(MarkedError::problem(
                            "found incompatible YAML document",
                            t.start,
                        )));
                    }
                    version_seen = true;
                }
                Some(Tok::TagDirective { handle, prefix }) => {
                    let (handle, prefix) = (handle.clone(), prefix.clone());
                    self.append_tag_directive(handle, prefix, false, t.start)?;
                }
                _ => {}
            }
            self.skip();
            t = self.peek()?;
        }
        self.append_tag_directive("!".into(), "!".into(), true, t.start)?;
        self.append_tag_directive("!!".into(), "tag:yaml.org,2002:".into(), true, t.start)?;
        Ok(())
    }

    fn append_tag_directive(
        &mut self,
        handle: String,
        prefix: String,
        allow_duplicates: bool,
        mark: Mark,
    ) -> PResult<()> {
        if self.tag_directives.iter().any(|(h, _)| *h == handle) {
            if allow_duplicates {
                return Ok(());
            }
            return Err(parser_error(MarkedError::problem(
                "found duplicate %TAG directive",
                mark,
            )));
        }
        self.tag_directives.push((handle, prefix));
        Ok(())
    }
}
