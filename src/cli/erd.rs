//! `printdex erd`: the join graph of a print drawn as Mermaid, DOT or SVG (laid out
//! in-process), around one table, over a list of tables, or whole.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{locate_project, refuse, PROJECT_HELP};
use crate::config::git::Checkouts;
use crate::config::{self, Served};
use crate::query::plan_joins::erd::{Diagram, MAX_DEPTH};
use crate::query::plan_joins::{graph, names};
use crate::query::validate_sql::catalog;
use crate::render::erd;
use crate::store::{Connection, Reads, Store};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ErdFormat {
    Mermaid,
    Dot,
    Svg,
}

/// `printdex erd`'s arguments.
#[derive(Debug, Args)]
pub struct ErdArgs {
    #[arg(long, help = PROJECT_HELP, allow_hyphen_values = true)]
    pub project: Option<String>,
    /// The connection to draw (default: the project's default connection).
    #[arg(long)]
    pub connection: Option<String>,
    /// Draw the tables within --depth joins of this table (a full name or any
    /// unambiguous dotted suffix of one).
    #[arg(long, conflicts_with = "tables")]
    pub around: Option<String>,
    /// How many joins from --around to draw, 1 to 3.
    #[arg(long, default_value_t = 1, requires = "around", value_parser = clap::value_parser!(u8).range(1..=MAX_DEPTH as i64))]
    pub depth: u8,
    /// Draw these tables (comma-separated) and the edges among them.
    #[arg(long, value_delimiter = ',')]
    pub tables: Vec<String>,
    #[arg(long, value_enum, default_value = "mermaid")]
    pub format: ErdFormat,
    /// Write here instead of to stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[arg(long, help = super::INDEX_DIR_HELP)]
    pub index_dir: Option<PathBuf>,
}

pub fn run(args: ErdArgs) -> anyhow::Result<ExitCode> {
    let located = match locate_project(args.project.as_deref(), &Checkouts::from_env()) {
        Ok(l) => l,
        Err(e) => return Ok(refuse(&format!("error: {e}"))),
    };
    let project = located.project;
    let served = match Served::resolve(&project, args.connection.as_deref()) {
        Ok(s) => s,
        Err(e) => return Ok(refuse(&format!("error: {e}"))),
    };
    let dir = args
        .index_dir
        .clone()
        .unwrap_or_else(|| config::default_index_dir(&project.project_root));
    let store = Store::open_unwatched(served, &dir)?;
    let drawn = draw(&store, &args);
    store.close();
    let text = match drawn {
        Ok(text) => text,
        Err(message) => return Ok(refuse(&format!("error: {message}"))),
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The diagram the arguments ask for, spelled, or why it cannot be drawn.
fn draw(store: &Store, args: &ErdArgs) -> Result<String, String> {
    let state = store
        .fresh(Connection(args.connection.as_deref()), Reads::EveryFile)
        .map_err(|e| e.to_string())?;
    state.manifest_or_error().map_err(|e| e.to_string())?;
    let g = graph::graph(&state).map_err(|e| e.to_string())?;
    let cat = catalog::catalog(&state).map_err(|e| e.to_string())?;
    let connection = state.config.name.clone();
    let diagram = if let Some(center) = &args.around {
        let v = names::table(&g, center, &connection, "--around").map_err(|e| e.to_string())?;
        Diagram::around(g, Some(&cat), v, usize::from(args.depth))
    } else if !args.tables.is_empty() {
        let mut tables = Vec::new();
        for name in args.tables.iter().filter(|t| !t.trim().is_empty()) {
            tables.push(
                names::table(&g, name, &connection, "--tables entry").map_err(|e| e.to_string())?,
            );
        }
        Diagram::among(g, Some(&cat), tables)
    } else {
        Diagram::whole(g, Some(&cat))
    };
    match args.format {
        ErdFormat::Mermaid => Ok(erd::mermaid(&diagram)),
        ErdFormat::Dot => Ok(erd::dot(&diagram)),
        ErdFormat::Svg => {
            erd::svg(&diagram).map_err(|e| format!("the diagram could not be laid out: {e}"))
        }
    }
}
