//! A pipeline's SQL as the Scriban template pz renders it, parsed into text and the code
//! blocks pz's sandbox answers: a call of one of its functions (`source`, `ref`, `sink`,
//! `watermark`, `var`, `env`) with literal arguments and Scriban named arguments
//! (`format: 'csv'`, `columns: { id: 'bigint' }`), a bare name (`this`, `run_id`,
//! `run_started_at`), or a literal. Whitespace control (`{{-`, `-}}`, `{{~`, `~}}`) and
//! escape blocks (`{%{ ... }%}`) are applied here, so evaluation only concatenates.
//!
//! Anything else Scriban would accept (operators, pipes, `if`/`for`, several statements in
//! one block, command-style calls) is a [`TemplateGap`]: rendering it needs pz.

mod lexer;
mod parser;

use compat::dotnet::read_all_text;

/// A parsed pipeline template.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlTemplate {
    pub pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Code(Expr),
}

/// One code block's statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `name(arg, ..., key: value, ...)`; `line` is where `name` starts (1-based).
    Call {
        name: String,
        args: Vec<Lit>,
        named: Vec<NamedArg>,
        line: u32,
    },
    /// A bare identifier: `this`, `run_id`, or a name the sandbox may not know.
    Name {
        name: String,
        line: u32,
    },
    Lit(Lit),
}

#[derive(Debug, Clone, PartialEq)]
pub struct NamedArg {
    pub name: String,
    pub value: Lit,
    /// The line the argument's name is on (1-based), as pz reports kwarg errors.
    pub line: u32,
}

/// A Scriban literal, in the CLR shapes pz converts call-site values to.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(String),
    Array(Vec<Lit>),
    Object(Vec<(String, Lit)>),
}

/// A construct this parser does not evaluate; pz's own renderer is needed.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateGap {
    pub reason: String,
    pub line: u32,
}

/// A parsed template, shared by every answer computed from it.
pub type SharedTemplate = std::sync::Arc<Result<SqlTemplate, TemplateGap>>;

/// A pipeline file: its path and its template.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineSource {
    pub rel: String,
    pub template: SharedTemplate,
}

pub fn parse_pipeline(rel: &str, bytes: &[u8]) -> PipelineSource {
    let text = read_all_text(bytes);
    PipelineSource {
        rel: rel.to_string(),
        template: std::sync::Arc::new(parse_template(&text)),
    }
}

pub fn parse_template(text: &str) -> Result<SqlTemplate, TemplateGap> {
    let blocks = lexer::split_blocks(text)?;
    let mut pieces = Vec::with_capacity(blocks.len());
    for block in blocks {
        match block {
            lexer::Block::Text(t) => pieces.push(Piece::Text(t)),
            lexer::Block::Code { tokens, line } => {
                if let Some(expr) = parser::parse_statement(&tokens, line)? {
                    pieces.push(Piece::Code(expr));
                }
            }
        }
    }
    Ok(SqlTemplate { pieces })
}

#[cfg(test)]
mod tests;
