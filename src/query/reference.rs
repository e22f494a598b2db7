//! The three reference documents get_reference answers from (the format spec, the
//! assertion DSL spec and the reading guide), as heading trees: a section by number or
//! heading text, or the table of contents. The store loads their text from the installed
//! dbprint package (never shipped inside printdex); each is parsed once per content.

use std::ops::Range;
use std::sync::Arc;

use sha2::{Digest, Sha256};

pub use crate::config::reference::Document;
use crate::error::QueryError;
use crate::store::cache::{Cache, Key};
use crate::store::references::ReferenceDocs;

/// One heading outside fenced code: its level, section number when its title starts
/// with one, title, and the line range of its subtree (`start..end`, lines as
/// Python's `str.splitlines` cuts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    pub level: usize,
    pub number: Option<String>,
    pub title: String,
    pub start: usize,
    pub end: usize,
}

/// A document's text with its heading tree.
#[derive(Debug)]
pub struct ParsedDocument {
    text: String,
    /// Byte ranges of the text's lines, terminators excluded.
    lines: Vec<Range<usize>>,
    headings: Vec<Heading>,
    version: String,
}

impl ParsedDocument {
    pub fn parse(text: String) -> ParsedDocument {
        let lines = compat::py::splitlines_ranges(&text);
        let headings = parse_headings(&text, &lines);
        let version = format!("{:x}", Sha256::digest(text.as_bytes()))[..16].to_string();
        ParsedDocument {
            text,
            lines,
            headings,
            version,
        }
    }

    /// The whole document, as the reference resources serve it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// SHA-256 of the text, 16 hex: the reference resources' page version.
    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn headings(&self) -> &[Heading] {
        &self.headings
    }

    fn line(&self, i: usize) -> &str {
        &self.text[self.lines[i].clone()]
    }

    /// Every heading, numbered or not, as a Markdown list indented by depth below the
    /// shallowest level.
    pub fn heading_tree(&self) -> String {
        let base = self.headings.iter().map(|h| h.level).min().unwrap_or(2);
        let lines: Vec<String> = self
            .headings
            .iter()
            .map(|h| format!("{}- {}", "  ".repeat(h.level - base), h.title))
            .collect();
        lines.join("\n") + "\n"
    }

    /// The heading numbered `section` (bare, or a verbatim `spec_ref` citation) with its
    /// own body and its numbered direct subsections listed; `None` when no heading has it.
    pub fn section(&self, section: &str) -> Option<String> {
        let wanted = strip_citation(section);
        let index = self
            .headings
            .iter()
            .position(|h| h.number.as_deref() == Some(wanted))?;
        Some(self.slice(index, true))
    }

    /// The heading whose title matches `heading` case-insensitively with whitespace
    /// collapsed, with its own body and its direct subsections listed.
    pub fn heading_section(&self, heading: &str) -> Option<String> {
        let wanted = folded(heading);
        let index = self
            .headings
            .iter()
            .position(|h| folded(&h.title) == wanted)?;
        Some(self.slice(index, false))
    }

    /// Every numbered heading's number, in document order.
    pub fn section_numbers(&self) -> Vec<String> {
        self.headings
            .iter()
            .filter_map(|h| h.number.clone())
            .collect()
    }

    /// Every heading's title, in document order.
    pub fn titles(&self) -> Vec<String> {
        self.headings.iter().map(|h| h.title.clone()).collect()
    }

    /// A heading's text up to its first addressable subsection, then those subsections
    /// listed. Addressed by number, an unnumbered subheading cannot be asked for, so
    /// its text stays in its parent's body.
    fn slice(&self, index: usize, by_number: bool) -> String {
        let h = &self.headings[index];
        let inside: Vec<&Heading> = self.headings[index + 1..]
            .iter()
            .filter(|c| c.start < h.end)
            .collect();
        let direct = inside
            .iter()
            .filter(|c| !inside.iter().any(|o| o.start < c.start && c.start < o.end));
        let children: Vec<&&Heading> = direct
            .filter(|c| !by_number || c.number.is_some())
            .collect();
        let end = children.first().map(|c| c.start).unwrap_or(h.end);
        let joined: Vec<&str> = (h.start..end).map(|i| self.line(i)).collect();
        let mut body = compat::py::rstrip(&joined.join("\n")).to_string();
        body.push('\n');
        if children.is_empty() {
            return body;
        }
        let listed: Vec<String> = children.iter().map(|c| format!("- {}", c.title)).collect();
        let addressed = if by_number { "number" } else { "heading" };
        format!(
            "{body}\nSubsections, each read by its own {addressed}:\n\n{}\n",
            listed.join("\n")
        )
    }
}

/// The parsed document, from the store's text; parsed once per content.
pub fn document(
    docs: &ReferenceDocs,
    cache: &Cache,
    document: Document,
) -> Result<Arc<ParsedDocument>, QueryError> {
    let text = docs.text(document)?;
    cache.get_or_build(
        Key::new("reference document", [text.as_bytes()]),
        |d: &ParsedDocument| d.text.len() * 2,
        || Ok(ParsedDocument::parse(text.to_string())),
    )
}

/// The tool's answer before paging: the heading tree without `section`, else the
/// section, else the unknown-section error naming what the document has.
pub fn text(
    docs: &ReferenceDocs,
    cache: &Cache,
    which: Document,
    section: Option<&str>,
) -> Result<String, QueryError> {
    let doc = document(docs, cache, which)?;
    let Some(section) = section else {
        return Ok(doc.heading_tree());
    };
    let found = if which.by_number() {
        doc.section(section)
    } else {
        doc.heading_section(section)
    };
    found.ok_or_else(|| {
        let mut available = if which.by_number() {
            doc.section_numbers()
        } else {
            doc.titles()
        };
        available.sort();
        QueryError::UnknownSection {
            document: which.name().to_string(),
            section: section.to_string(),
            available,
        }
    })
}

/// Headings outside fenced code blocks: a `#` line inside an example block is not one.
fn parse_headings(text: &str, lines: &[Range<usize>]) -> Vec<Heading> {
    let mut raw: Vec<(usize, usize, String)> = Vec::new();
    let mut in_fence = false;
    for (i, range) in lines.iter().enumerate() {
        let line = &text[range.clone()];
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some((level, title)) = heading_line(line) {
            raw.push((level, i, title.to_string()));
        }
    }
    let mut headings = Vec::with_capacity(raw.len());
    for (idx, (level, start, title)) in raw.iter().enumerate() {
        let end = raw[idx + 1..]
            .iter()
            .find(|(l, _, _)| l <= level)
            .map(|(_, s, _)| *s)
            .unwrap_or(lines.len());
        headings.push(Heading {
            level: *level,
            number: leading_number(title),
            title: title.clone(),
            start: *start,
            end,
        });
    }
    headings
}

/// `^(#{1,6})\s+(\S.*)$`: the level and the stripped title of an ATX heading line.
fn heading_line(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !rest.starts_with(compat::py::is_space) {
        return None;
    }
    let title = compat::py::strip(rest);
    (!title.is_empty()).then_some((level, title))
}

/// `^(\d+(?:\.\d+)*)\.?(?:\s|$)`: the section number a title starts with. Only the
/// longest digit-and-dot run can be followed by a space or the end, so no backtracking
/// is needed.
fn leading_number(title: &str) -> Option<String> {
    let chars: Vec<char> = title.chars().collect();
    let digits = |from: usize| {
        chars[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut end = digits(0);
    if end == 0 {
        return None;
    }
    while end + 1 < chars.len() && chars[end] == '.' {
        let more = digits(end + 1);
        if more == 0 {
            break;
        }
        end += 1 + more;
    }
    let mut after = end;
    if chars.get(after) == Some(&'.') {
        after += 1;
    }
    match chars.get(after) {
        None => Some(chars[..end].iter().collect()),
        Some(&c) if compat::py::is_space(c) => Some(chars[..end].iter().collect()),
        _ => None,
    }
}

/// `re.sub(r"^(?:\S+\s+)?§\s*", "", s).strip()`: a `spec_ref` citation's document name
/// and section sign dropped, so `ASSERTIONS.md §1.4` and `§2.2.4` read as bare numbers.
fn strip_citation(section: &str) -> &str {
    let word_end = section.find(compat::py::is_space).unwrap_or(section.len());
    let stripped = if word_end > 0 && word_end < section.len() {
        let gap = section[word_end..].trim_start_matches(compat::py::is_space);
        after_sign(gap).or_else(|| after_sign(section))
    } else {
        after_sign(section)
    };
    compat::py::strip(stripped.unwrap_or(section))
}

/// The text after a leading `§` and the whitespace following it.
fn after_sign(s: &str) -> Option<&str> {
    s.strip_prefix('§')
        .map(|r| r.trim_start_matches(compat::py::is_space))
}

/// `" ".join(s.split()).casefold()`: how guide headings are compared.
fn folded(s: &str) -> String {
    let words: Vec<&str> = s
        .split(compat::py::is_space)
        .filter(|w| !w.is_empty())
        .collect();
    compat::py::casefold(&words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SPEC: &str = "\
# Widget format - v1

Intro paragraph.

## 0. Scope

Scope text.

### 0.1 Covered

Covered text.

## 1. Layout

Layout lead.

### Notes without a number

Unnumbered text stays with its parent.

### 1.1 Root

Root text.

```markdown
## 7. Not a heading, it is inside a fence
```

#### 1.1.1 Deep

Deep text.

### 1.2 Leaf

Leaf text.   

## 2. Last
";

    fn doc(text: &str) -> ParsedDocument {
        ParsedDocument::parse(text.to_string())
    }

    #[test]
    fn headings_skip_fenced_code() {
        let d = doc(SPEC);
        let numbers = d.section_numbers();
        assert_eq!(numbers, ["0", "0.1", "1", "1.1", "1.1.1", "1.2", "2"]);
        assert!(d.titles().iter().all(|t| !t.contains("Not a heading")));
        let deep = d
            .headings()
            .iter()
            .find(|h| h.title == "1.1.1 Deep")
            .unwrap();
        assert_eq!(deep.level, 4);
    }

    #[test]
    fn heading_line_rules() {
        assert_eq!(heading_line("## 1. A  "), Some((2, "1. A")));
        assert_eq!(heading_line("###### six"), Some((6, "six")));
        assert_eq!(heading_line("####### seven"), None);
        assert_eq!(heading_line("#nospace"), None);
        assert_eq!(heading_line("#   "), None);
        assert_eq!(heading_line(" # indented"), None);
        assert_eq!(heading_line("#\u{a0}nbsp"), Some((1, "nbsp")));
    }

    #[test]
    fn leading_numbers() {
        assert_eq!(leading_number("1. Layout").as_deref(), Some("1"));
        assert_eq!(leading_number("2.2.4 Sub"), Some("2.2.4".into()));
        assert_eq!(leading_number("2.2.4. Sub"), Some("2.2.4".into()));
        assert_eq!(leading_number("3"), Some("3".into()));
        assert_eq!(leading_number("3."), Some("3".into()));
        assert_eq!(leading_number("1.2.x"), None);
        assert_eq!(leading_number("1.2x"), None);
        assert_eq!(leading_number("v1 thing"), None);
        assert_eq!(leading_number("1..2 x"), None);
    }

    #[test]
    fn heading_tree_indents_from_shallowest() {
        let d = doc(SPEC);
        let tree = d.heading_tree();
        assert!(tree.starts_with("- Widget format - v1\n  - 0. Scope\n    - 0.1 Covered\n"));
        assert!(tree.contains("\n    - Notes without a number\n"));
        assert!(tree.contains("\n      - 1.1.1 Deep\n"));
        assert!(tree.ends_with("  - 2. Last\n"));
        assert_eq!(doc("no headings\n").heading_tree(), "\n");
    }

    #[test]
    fn section_lists_numbered_direct_subsections() {
        let d = doc(SPEC);
        assert_eq!(
            d.section("1").unwrap(),
            "## 1. Layout\n\nLayout lead.\n\n### Notes without a number\n\nUnnumbered text stays with its parent.\n\n\
             Subsections, each read by its own number:\n\n- 1.1 Root\n- 1.2 Leaf\n"
        );
        // Fenced text belongs to the body; the deeper heading is listed, not included.
        assert_eq!(
            d.section("1.1").unwrap(),
            "### 1.1 Root\n\nRoot text.\n\n```markdown\n## 7. Not a heading, it is inside a fence\n```\n\n\
             Subsections, each read by its own number:\n\n- 1.1.1 Deep\n"
        );
        // A leaf runs to the next heading at its level or shallower; trailing space trimmed.
        assert_eq!(d.section("1.2").unwrap(), "### 1.2 Leaf\n\nLeaf text.\n");
        assert_eq!(d.section("2").unwrap(), "## 2. Last\n");
        assert_eq!(d.section("7"), None);
        assert_eq!(d.section("1.1.1.1"), None);
    }

    #[test]
    fn citation_forms() {
        assert_eq!(strip_citation("§2.2.4"), "2.2.4");
        assert_eq!(strip_citation("§ 2.2.4"), "2.2.4");
        assert_eq!(strip_citation("ASSERTIONS.md §1.4"), "1.4");
        assert_eq!(strip_citation("SPEC.md §1.4"), "1.4");
        assert_eq!(strip_citation("  1.4  "), "1.4");
        assert_eq!(strip_citation("a b §1"), "a b §1");
        assert_eq!(strip_citation("§§ 3"), "§ 3");
        assert_eq!(strip_citation("x§ §3"), "3");
        let d = doc(SPEC);
        assert_eq!(d.section("§1.2"), d.section("1.2"));
        assert_eq!(d.section("SPEC.md §1.2"), d.section("1.2"));
        assert_eq!(d.section("OTHER.md §1.2"), d.section("1.2"));
    }

    const GUIDE: &str = "\
# Reading things

Lead.

## Word   List

Words.

### Nested one

Nested.

## Last part

End.
";

    #[test]
    fn guide_matches_headings_loosely_and_lists_every_child() {
        let d = doc(GUIDE);
        let want = "## Word   List\n\nWords.\n\nSubsections, each read by its own heading:\n\n- Nested one\n";
        assert_eq!(d.heading_section("word list").unwrap(), want);
        assert_eq!(d.heading_section("  WORD \t LIST ").unwrap(), want);
        assert_eq!(
            d.heading_section("Nested one").unwrap(),
            "### Nested one\n\nNested.\n"
        );
        assert_eq!(
            d.heading_section("reading things").unwrap(),
            "# Reading things\n\nLead.\n\nSubsections, each read by its own heading:\n\n- Word   List\n- Last part\n"
        );
        assert_eq!(d.heading_section("Word"), None);
    }

    /// The documents of the package at `dir`, answered as the tool answers.
    struct Refs(ReferenceDocs, Cache);

    impl Refs {
        fn text(&self, document: Document, section: Option<&str>) -> Result<String, QueryError> {
            super::text(&self.0, &self.1, document, section)
        }
        fn locate(&self, document: Document) -> Option<std::path::PathBuf> {
            self.0.locate(document)
        }
    }

    fn refs_for(dir: &Path) -> Refs {
        Refs(
            ReferenceDocs::new(Some(dir.to_path_buf())),
            Cache::default(),
        )
    }

    fn write_package(dir: &Path) {
        for (rel, text) in [
            ("spec/v1/SPEC.md", SPEC),
            ("engine/reading_guide.md", GUIDE),
        ] {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    #[test]
    fn not_found_lists_are_sorted_as_strings() {
        let tmp = tempfile::tempdir().unwrap();
        write_package(tmp.path());
        std::fs::write(
            tmp.path().join("spec/v1/SPEC.md"),
            "## 2.2.10 a\n## 2.2.2 b\n## 10 c\n## 9 d\n",
        )
        .unwrap();
        let refs = refs_for(tmp.path());
        let err = refs.text(Document::Spec, Some("9.9")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "section '9.9' not found in spec. Available: ['10', '2.2.10', '2.2.2', '9']"
        );
        let err = refs
            .text(Document::Guide, Some("No such heading"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "section 'No such heading' not found in guide. Available: ['Last part', 'Nested one', 'Reading things', 'Word   List']"
        );
    }

    #[test]
    fn missing_document_is_an_install_defect() {
        let tmp = tempfile::tempdir().unwrap();
        write_package(tmp.path());
        let refs = refs_for(tmp.path());
        // ASSERTIONS.md is absent from this package; only fail if no other candidate has it.
        if refs.locate(Document::Assertions).is_none() {
            assert_eq!(
                refs.text(Document::Assertions, None).unwrap_err().to_string(),
                "no assertions reference document available - neither the installed package nor the source tree carries it. Point printdex at an installed dbprint package directory with --reference-dir or the PRINTDEX_REFERENCE_DIR environment variable."
            );
        }
        assert_eq!(
            refs.text(Document::Spec, Some("0.1")).unwrap(),
            "### 0.1 Covered\n\nCovered text.\n"
        );
    }

    #[test]
    fn source_tree_fallback_and_newlines() {
        let tmp = tempfile::tempdir().unwrap();
        let pkg = tmp.path().join("src/dbprint");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::create_dir_all(tmp.path().join("docs")).unwrap();
        std::fs::write(
            tmp.path().join("docs/ASSERTIONS.md"),
            "## 1. A\r\n\r\nText\r\n## 2. B\rX\n",
        )
        .unwrap();
        let refs = refs_for(&pkg);
        assert_eq!(
            refs.text(Document::Assertions, Some("1")).unwrap(),
            "## 1. A\n\nText\n"
        );
        assert_eq!(
            refs.text(Document::Assertions, Some("2")).unwrap(),
            "## 2. B\nX\n"
        );
    }

    #[test]
    fn python_line_breaks() {
        let t = "a\u{b}b\u{c}c\u{1c}d\u{85}e\u{2028}f\r\ng\rh\n";
        let d = doc(t);
        let lines: Vec<&str> = (0..d.lines.len()).map(|i| d.line(i)).collect();
        assert_eq!(lines, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    }
}
