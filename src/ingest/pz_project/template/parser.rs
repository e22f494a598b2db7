//! A code block's tokens to its one statement: a call with literal and named arguments,
//! a bare name, or a literal.

use super::lexer::{Tok, Token};
use super::{Expr, Lit, NamedArg, TemplateGap};

fn gap(reason: impl Into<String>, line: u32) -> TemplateGap {
    TemplateGap {
        reason: reason.into(),
        line,
    }
}

pub(super) fn parse_statement(
    tokens: &[Token],
    block_line: u32,
) -> Result<Option<Expr>, TemplateGap> {
    let statements: Vec<&[Token]> = tokens
        .split(|t| t.tok == Tok::Sep)
        .filter(|s| !s.is_empty())
        .collect();
    match statements.as_slice() {
        [] => Ok(None),
        [one] => {
            let mut p = Parser { toks: one, at: 0 };
            let expr = p.expr()?;
            if let Some(extra) = p.peek() {
                return Err(gap(
                    "a Scriban statement with more than one expression",
                    extra.line,
                ));
            }
            Ok(Some(expr))
        }
        [_, second, ..] => Err(gap(
            "a code block with several statements",
            second.first().map_or(block_line, |t| t.line),
        )),
    }
}

struct Parser<'a> {
    toks: &'a [Token],
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.at);
        self.at += 1;
        t
    }

    fn line(&self) -> u32 {
        self.peek()
            .or_else(|| self.toks.last())
            .map_or(1, |t| t.line)
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek().is_some_and(|t| t.tok == *tok) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> Result<(), TemplateGap> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(gap(
                format!("Scriban syntax pz's renderer must read (expected {what})"),
                self.line(),
            ))
        }
    }

    fn expr(&mut self) -> Result<Expr, TemplateGap> {
        let Some(first) = self.peek() else {
            return Err(gap("an empty expression", self.line()));
        };
        if let Tok::Ident(name) = &first.tok {
            if let Some(lit) = keyword_literal(name) {
                self.at += 1;
                return Ok(Expr::Lit(lit));
            }
            self.at += 1;
            if self.eat(&Tok::LParen) {
                let (args, named) = self.call_args()?;
                return Ok(Expr::Call {
                    name: name.clone(),
                    args,
                    named,
                    line: first.line,
                });
            }
            if self.peek().is_some() {
                return Err(gap("a command-style Scriban call", first.line));
            }
            return Ok(Expr::Name {
                name: name.clone(),
                line: first.line,
            });
        }
        Ok(Expr::Lit(self.literal()?))
    }

    fn call_args(&mut self) -> Result<(Vec<Lit>, Vec<NamedArg>), TemplateGap> {
        let mut args = Vec::new();
        let mut named = Vec::new();
        loop {
            if self.eat(&Tok::RParen) {
                return Ok((args, named));
            }
            let here = self.peek().map(|t| (t.tok.clone(), t.line));
            let is_named = matches!(
                (self.toks.get(self.at), self.toks.get(self.at + 1)),
                (
                    Some(Token {
                        tok: Tok::Ident(_),
                        ..
                    }),
                    Some(Token {
                        tok: Tok::Colon,
                        ..
                    })
                )
            );
            if is_named {
                let Some((Tok::Ident(name), line)) = here else {
                    unreachable!("checked above")
                };
                self.at += 2;
                let value = self.literal()?;
                named.push(NamedArg { name, value, line });
            } else {
                args.push(self.literal()?);
            }
            if !self.eat(&Tok::Comma) {
                self.expect(&Tok::RParen, "`)`")?;
                return Ok((args, named));
            }
        }
    }

    fn literal(&mut self) -> Result<Lit, TemplateGap> {
        let line = self.line();
        let Some(t) = self.next() else {
            return Err(gap("a missing value", line));
        };
        Ok(match &t.tok {
            Tok::Str(s) => Lit::Str(s.clone()),
            Tok::Int(i) => Lit::Int(*i),
            Tok::Double(d) => Lit::Double(*d),
            Tok::Ident(name) => match keyword_literal(name) {
                Some(lit) => lit,
                None => return Err(gap(format!("the argument expression `{name}`"), t.line)),
            },
            Tok::LBracket => {
                let mut items = Vec::new();
                loop {
                    if self.eat(&Tok::RBracket) {
                        break;
                    }
                    items.push(self.literal()?);
                    if !self.eat(&Tok::Comma) {
                        self.expect(&Tok::RBracket, "`]`")?;
                        break;
                    }
                }
                Lit::Array(items)
            }
            Tok::LBrace => {
                let mut members: Vec<(String, Lit)> = Vec::new();
                loop {
                    if self.eat(&Tok::RBrace) {
                        break;
                    }
                    let key_line = self.line();
                    let key = match self.next().map(|t| &t.tok) {
                        Some(Tok::Ident(k)) | Some(Tok::Str(k)) => k.clone(),
                        _ => return Err(gap("an object key pz's renderer must read", key_line)),
                    };
                    self.expect(&Tok::Colon, "`:`")?;
                    let value = self.literal()?;
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => members.push((key, value)),
                    }
                    if !self.eat(&Tok::Comma) {
                        self.expect(&Tok::RBrace, "`}`")?;
                        break;
                    }
                }
                Lit::Object(members)
            }
            _ => return Err(gap("Scriban syntax pz's renderer must read", t.line)),
        })
    }
}

fn keyword_literal(name: &str) -> Option<Lit> {
    match name {
        "true" => Some(Lit::Bool(true)),
        "false" => Some(Lit::Bool(false)),
        "null" => Some(Lit::Null),
        _ => None,
    }
}
