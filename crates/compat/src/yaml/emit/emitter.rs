//! A port of `yaml.emitter.Emitter` (canonical off, no directives), kept in
//! PyYAML's shape: the output depends on incidental state (column, `whitespace`, `indention`,
//! `open_ended`) that a restructured emitter would drift from.

use super::{anchor_name, Anchor, Event, Opts};

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
fn slice(text: &[char], start: usize, end: usize) -> &[char] {
    let end = end.min(text.len());
    if start >= end {
        &[]
    } else {
        &text[start..end]
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

pub(super) struct Emitter<'e> {
    events: &'e [Event<'e>],
    /// Index of the current event; `events[pos + 1]` is PyYAML's `self.events[0]`.
    pos: usize,
    pub(super) out: String,
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
    /// The last scalar's characters, kept for the next one's: one allocation per document
    /// rather than one per scalar.
    spare: Vec<char>,
}

impl<'e> Emitter<'e> {
    pub(super) fn new(events: &'e [Event<'e>], opts: Opts) -> Self {
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
            spare: Vec::new(),
        }
    }

    pub(super) fn run(&mut self) {
        while self.pos < self.events.len() {
            self.step();
            self.pos += 1;
        }
    }

    fn event(&self) -> &'e Event<'e> {
        &self.events[self.pos]
    }

    fn next_event(&self) -> Option<&'e Event<'e>> {
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
            Event::Alias(anchor) => {
                // expect_alias
                self.write_indicator(&format!("*{}", anchor_name(*anchor)), true, false, false);
                self.pop_state();
            }
            Event::Scalar(_) => {
                self.process_tag();
                // expect_scalar
                self.increase_indent(true, false);
                self.process_scalar();
                self.pop_indent();
                self.pop_state();
            }
            Event::SequenceStart { flow, anchor } => {
                self.process_anchor(*anchor);
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
            Event::MappingStart { flow, anchor } => {
                self.process_anchor(*anchor);
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

    /// `process_anchor('&')`: a collection's anchor, before its tag.
    fn process_anchor(&mut self, anchor: Option<Anchor>) {
        if let Some(a) = anchor {
            self.write_indicator(&format!("&{}", anchor_name(a)), true, false, false);
        }
    }

    fn check_simple_key(&mut self) -> bool {
        // PyYAML counts the prepared tag even when it will not be written (`!!str` adds 5).
        let mut length = 0;
        match self.event() {
            Event::Alias(a) => anchor_name(*a).len() < 128,
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
            Event::SequenceStart { anchor, .. } => {
                length += "!!seq".len() + anchor.map_or(0, |a| anchor_name(a).len());
                length < 128 && self.check_empty_sequence()
            }
            Event::MappingStart { anchor, .. } => {
                length += "!!map".len() + anchor.map_or(0, |a| anchor_name(a).len());
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
        self.spare = text;
        self.analysis = None;
        self.style = None;
    }

    fn analyze_scalar(&mut self, scalar: &str) -> Analysis {
        let mut chars = std::mem::take(&mut self.spare);
        chars.clear();
        chars.extend(scalar.chars());
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
                if matches!(
                    ch,
                    '#' | ','
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '&'
                        | '*'
                        | '!'
                        | '|'
                        | '>'
                        | '\''
                        | '"'
                        | '%'
                        | '@'
                        | '`'
                ) {
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
                if matches!(ch, ',' | '?' | '[' | ']' | '{' | '}') {
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

    /// `write_raw` of a run of a scalar's characters.
    fn write_chars(&mut self, data: &[char]) {
        self.column += data.len();
        self.out.extend(data.iter());
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
            self.out
                .extend(std::iter::repeat_n(' ', indent - self.column));
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
                        self.write_chars(slice(text, start, end));
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
                self.write_chars(slice(text, start, end));
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
                        self.write_chars(slice(text, start, end));
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
                self.write_chars(slice(text, start, end));
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
                    self.write_chars(slice(text, start, end));
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
                self.write_chars(slice(text, start, end));
                self.write_raw("\\");
                if start < end {
                    start = end;
                }
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
                self.out.extend(slice(text, start, end).iter());
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
