//! Rendering a pipeline's template as pz's `TemplateRenderer` does: `source()` renders its
//! staging relation and records a read, `ref()` the upstream relation (`__pz_cte__<name>`
//! for an ephemeral), `sink()` a marker the compiler's INSERT-prefix stage recognizes,
//! `watermark()` a quoted sentinel; `var()`/`env()` are looked up, `this` is
//! `staging.<pipeline>`. Call-site kwarg errors are collected; a runtime error (an unknown
//! var, an unset env var) stops the render with one error.

pub mod kwargs;

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::template::{Expr, Lit, NamedArg, Piece};
use crate::ingest::pz_project::value::{format_double, PzValue};
use crate::query::pz_project::load::entity_name_problem;
use crate::query::pz_project::model::{Project, WriteOptions};
use crate::query::pz_project::Env;

use kwargs::{sink_kwargs, source_kwargs, CallErrors, ReadOptions, SINK_HINT, SOURCE_HINT};

/// `DepRef`: a `ref()` or a `source()` read.
#[derive(Debug, Clone, PartialEq)]
pub enum Dep {
    Pipeline(String),
    Source(SourceDep),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceDep {
    pub conn: String,
    pub entity: String,
    pub read: ReadOptions,
    pub declared: bool,
}

/// `InlineSinkBinding`.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub sink: String,
    pub output: String,
    pub write: WriteOptions,
    pub declared: bool,
}

/// `RenderResult`.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub sql: String,
    /// A set, as pz's: a bare `source()` repeated is one read; calls with kwargs never merge.
    pub deps: Vec<Dep>,
    pub bindings: Vec<Binding>,
    pub watermarks: Vec<(String, String)>,
    /// The text used `run_id`/`run_started_at`, which pz draws fresh on every call.
    pub per_call: bool,
}

/// Why a pipeline did not render.
#[derive(Debug, Clone)]
pub enum RenderFailure {
    Errors(Vec<PzError>),
    /// Something only pz's renderer can evaluate.
    Gap(String),
}

pub fn sink_marker(sink: &str, output: &str) -> String {
    format!("__pz_sink__{sink}__{output}__")
}

/// `StagingName.ForSourceLoad`: every character outside `[A-Za-z0-9_]` of the entity folded to `_`.
pub fn staging_name(conn: &str, entity: &str) -> String {
    let folded = entity.replace(|c: char| !(c.is_ascii_alphanumeric() || c == '_'), "_");
    format!("src_{conn}__{folded}")
}

pub fn render(
    pipeline: &crate::query::pz_project::model::Pipeline,
    project: &Project,
    env: &Env,
) -> Result<Rendered, RenderFailure> {
    let template = match &*pipeline.template {
        Ok(t) => t,
        Err(gap) => {
            return Err(RenderFailure::Gap(format!(
                "{} line {}: {}",
                pipeline.file, gap.line, gap.reason
            )))
        }
    };
    let mut out = Rendered {
        sql: String::new(),
        deps: Vec::new(),
        bindings: Vec::new(),
        watermarks: Vec::new(),
        per_call: false,
    };
    let mut call_errors: Vec<PzError> = Vec::new();
    let mut renderer = Renderer {
        pipeline,
        project,
        env,
        file: pipeline.file.as_str(),
        out: &mut out,
        call_errors: &mut call_errors,
    };
    for piece in &template.pieces {
        match piece {
            Piece::Text(t) => renderer.out.sql.push_str(t),
            Piece::Code(expr) => renderer.expr(expr)?,
        }
    }
    if !call_errors.is_empty() {
        return Err(RenderFailure::Errors(call_errors));
    }
    Ok(out)
}

/// A function call in a template: `name(args…, named…)` written on `line`.
#[derive(Clone, Copy)]
struct Call<'e> {
    name: &'e str,
    args: &'e [Lit],
    named: &'e [NamedArg],
    line: u32,
}

/// One pipeline's rendering under way: what its expressions are bound against, and what
/// they have written so far.
struct Renderer<'a> {
    pipeline: &'a crate::query::pz_project::model::Pipeline,
    project: &'a Project,
    env: &'a Env,
    file: &'a str,
    out: &'a mut Rendered,
    call_errors: &'a mut Vec<PzError>,
}

impl Renderer<'_> {
    fn gap(&self, what: String) -> RenderFailure {
        RenderFailure::Gap(format!("{}: {what}", self.file))
    }

    /// One `{{ … }}` expression, written into the SQL.
    fn expr(&mut self, expr: &Expr) -> Result<(), RenderFailure> {
        match expr {
            Expr::Lit(lit) => match lit_text(lit) {
                Some(text) => self.out.sql.push_str(&text),
                None => return Err(self.gap("a non-scalar literal in the output".into())),
            },
            Expr::Name { name, line } => match name.as_str() {
                "this" => {
                    self.out.sql.push_str("staging.");
                    self.out.sql.push_str(&self.pipeline.name);
                }
                "run_id" | "run_started_at" => {
                    self.out.per_call = true;
                    self.out.sql.push_str(&format!("{{{name}}}"));
                }
                other => return Err(self.gap(format!("line {line}: the name `{other}`"))),
            },
            Expr::Call {
                name,
                args,
                named,
                line,
            } => {
                let call = Call {
                    name,
                    args,
                    named,
                    line: *line,
                };
                match name.as_str() {
                    "source" | "sink" => self.io_call(call)?,
                    "ref" | "var" | "env" | "watermark" => self.bound_call(call)?,
                    other => return Err(self.gap(format!("line {line}: the function `{other}`"))),
                }
            }
        }
        Ok(())
    }

    /// `source(…)` or `sink(…)`: the connection and entity it names, its options checked.
    fn io_call(&mut self, call: Call) -> Result<(), RenderFailure> {
        let (name, args, named, line) = (call.name, call.args, call.named, call.line);
        if args.len() < 2 {
            return Err(self.gap(format!(
                "line {line}: {name}() with fewer than two arguments"
            )));
        }
        let source = name == "source";
        let mut errs = CallErrors {
            file: self.file,
            hint: if source { SOURCE_HINT } else { SINK_HINT },
            errors: self.call_errors,
        };
        let code = if source {
            PzCode::UnresolvedRef
        } else {
            PzCode::InvalidSinkCall
        };
        let text = match call_target(name, code, args, line, &mut errs) {
            None => String::new(),
            Some(target) if source => source_call(target, named, line, &mut errs, self.out),
            Some(target) => sink_call(target, named, &mut errs, self.out),
        };
        self.out.sql.push_str(&text);
        Ok(())
    }

    /// `ref`, `var`, `env` or `watermark`: string arguments bound to what they name.
    fn bound_call(&mut self, call: Call) -> Result<(), RenderFailure> {
        let (name, args, named, line) = (call.name, call.args, call.named, call.line);
        let arity = if name == "watermark" { 2 } else { 1 };
        let strings: Option<Vec<&str>> = args
            .iter()
            .map(|a| match a {
                Lit::Str(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        let Some(values) = strings.filter(|v| v.len() == arity && named.is_empty()) else {
            return Err(self.gap(format!(
                "line {line}: a {name}() call pz's renderer must bind"
            )));
        };
        let out = &mut *self.out;
        match name {
            "ref" => {
                let target = values[0];
                let dep = Dep::Pipeline(target.to_string());
                if !out.deps.contains(&dep) {
                    out.deps.push(dep);
                }
                let ephemeral = self
                    .project
                    .pipeline(target)
                    .is_some_and(|p| p.is_ephemeral());
                out.sql
                    .push_str(if ephemeral { "__pz_cte__" } else { "staging." });
                out.sql.push_str(target);
            }
            "watermark" => {
                out.watermarks
                    .push((values[0].to_string(), values[1].to_string()));
                out.sql
                    .push_str(&format!("'__pz_watermark__{}__{}__'", values[0], values[1]));
            }
            "var" => {
                let Some(v) = self.project.vars.get(values[0]) else {
                    return Err(RenderFailure::Errors(vec![runtime_error(
                        PzCode::TemplateError,
                        format!("unknown var '{}'", values[0]),
                        self.file,
                        line,
                    )]));
                };
                let Some(text) = var_text(v) else {
                    return Err(self.gap(format!(
                        "line {line}: var('{}') holds a list or a mapping",
                        values[0]
                    )));
                };
                self.out.sql.push_str(&text);
            }
            _ => {
                let Some(v) = self.env.get(values[0]) else {
                    return Err(RenderFailure::Errors(vec![runtime_error(
                        PzCode::UndeclaredEnvVar,
                        format!("environment variable '{}' is not set", values[0]),
                        self.file,
                        line,
                    )]));
                };
                out.sql.push_str(v);
            }
        }
        Ok(())
    }
}

fn runtime_error(code: PzCode, message: String, file: &str, line: u32) -> PzError {
    PzError {
        code,
        message,
        file: Some(file.to_string()),
        line: Some(line),
        next_step: None,
    }
}

/// The checks `SourceFunction`/`SinkFunction.Invoke` share: two string arguments (else
/// `code`), a well-formed entity name (PZ0344), no extra positional arguments (`code`).
fn call_target<'a>(
    function: &str,
    code: PzCode,
    args: &'a [Lit],
    line: u32,
    errs: &mut CallErrors,
) -> Option<(&'a str, &'a str)> {
    let (Lit::Str(conn), Lit::Str(entity)) = (&args[0], &args[1]) else {
        errs.add(
            code,
            line,
            format!("{function}() expects (connection, entity) as two string arguments"),
            None,
        );
        return None;
    };
    let call = format!("{function}('{conn}', '{entity}')");
    if let Some(problem) = entity_name_problem(entity) {
        errs.add(
            PzCode::EntityNameInvalid,
            line,
            format!("{call}: entity name {problem}"),
            Some(format!("{function}('<connection>', 'schema.table')")),
        );
    }
    if args.len() > 2 {
        let kind = if function == "source" {
            "read"
        } else {
            "write"
        };
        errs.add(
            code,
            line,
            format!(
                "{call} was passed {} extra positional argument(s) \u{2014} {kind} options are keyword arguments",
                args.len() - 2
            ),
            None,
        );
    }
    Some((conn, entity))
}

/// `SourceFunction.Invoke`, once `call_target` has passed its arguments.
fn source_call(
    (conn, entity): (&str, &str),
    named: &[NamedArg],
    line: u32,
    errs: &mut CallErrors,
    out: &mut Rendered,
) -> String {
    let (read, declared) = source_kwargs(named, conn, entity, line, errs);
    let dep = Dep::Source(SourceDep {
        conn: conn.to_string(),
        entity: entity.to_string(),
        read,
        declared,
    });
    // A bare read repeats as one set member; one with kwargs never compares equal in pz.
    if declared || !out.deps.contains(&dep) {
        out.deps.push(dep);
    }
    format!("staging.{}", staging_name(conn, entity))
}

/// `SinkFunction.Invoke`, once `call_target` has passed its arguments.
fn sink_call(
    (sink, output): (&str, &str),
    named: &[NamedArg],
    errs: &mut CallErrors,
    out: &mut Rendered,
) -> String {
    let (write, declared) = sink_kwargs(named, sink, output, errs);
    out.bindings.push(Binding {
        sink: sink.to_string(),
        output: output.to_string(),
        write,
        declared,
    });
    sink_marker(sink, output)
}

/// Scriban's output of a literal: `true`/`false`, numbers invariant, null empty.
fn lit_text(lit: &Lit) -> Option<String> {
    Some(match lit {
        Lit::Null => String::new(),
        Lit::Bool(b) => b.to_string(),
        Lit::Int(i) => i.to_string(),
        Lit::Double(d) => format_double(*d),
        Lit::Str(s) => s.clone(),
        Lit::Array(_) | Lit::Object(_) => return None,
    })
}

/// Scriban's output of a `var()` value.
fn var_text(v: &PzValue) -> Option<String> {
    Some(match v {
        PzValue::Null => String::new(),
        PzValue::Bool(b) => b.to_string(),
        PzValue::List(_) | PzValue::Map(_) => return None,
        other => other.interpolated(),
    })
}
