//! Unit tests of pz's read side over projects held in memory: the loader's rules
//! (`load`), template rendering (`render`), the DAG compiler's stages (`compile`), and
//! the tools' own refusals (`tools`); at least one project per PZ code the read side
//! emits, each asserting the code and what its message names.

mod compile;
mod load;
mod render;
mod tools;

use std::sync::Arc;

use crate::error::pz::PzError;
use crate::ingest::pz_project::files::ProjectFiles;
use crate::ingest::pz_project::{parse_project, ParsedProject};

use super::{Env, PzAnswer};

/// A project.yml with only what pz requires.
const PROJECT: &str = "name: p\nversion: 0.1.0\n";

/// Two connections: `crm` with an `orders` entity (a columns contract) and `lake`.
const CONNECTIONS: &str = "\
crm:
  connector: localfiles
  root: data
  entities:
    orders:
      read:
        path: orders.csv
        format: csv
        columns:
          id: bigint
          updated_at: timestamp
lake:
  connector: localfiles
  root: out
";

/// The files given, with the default project.yml and connections.yml unless given.
fn project(files: &[(&str, &str)]) -> ParsedProject {
    let mut all = ProjectFiles::new("/work/project");
    for (rel, text) in [("project.yml", PROJECT), ("connections.yml", CONNECTIONS)] {
        if !files.iter().any(|(r, _)| *r == rel) {
            all.insert(rel, Arc::<[u8]>::from(text.as_bytes()), 1);
        }
    }
    for (rel, text) in files {
        all.insert(*rel, Arc::<[u8]>::from(text.as_bytes()), 1);
    }
    parse_project(&all)
}

fn env(vars: &[(&str, &str)]) -> Env {
    vars.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// pz_compile over `files` in an empty environment.
fn compile(files: &[(&str, &str)]) -> PzAnswer {
    super::compile_answer(&project(files), &Env::new())
}

/// The answer failed with an error `code` whose message holds `names`.
fn fails_with(answer: &PzAnswer, code: &str, names: &str) -> PzError {
    assert!(!answer.ok(), "expected a failure: {:?}", answer.result);
    answer
        .errors
        .iter()
        .find(|e| e.code == code && e.message.contains(names))
        .unwrap_or_else(|| panic!("no {code} naming {names:?} in {:#?}", answer.errors))
        .clone()
}

/// The answer succeeded with a warning `code` whose message holds `names`.
fn warns_with(answer: &PzAnswer, code: &str, names: &str) {
    assert!(answer.ok(), "{:?}", answer.errors);
    let text = answer.result.as_ref().unwrap().to_text();
    let warnings = text.split(r#""warnings":"#).nth(1).unwrap_or_default();
    // As the envelope spells it: pz's writer escapes quotes and dashes.
    let escaped = compat::dotnet::Json::str(names).to_text();
    let escaped = &escaped[1..escaped.len() - 1];
    assert!(
        warnings.contains(&format!(r#""code":"{code}""#)) && warnings.contains(escaped),
        "no {code} warning naming {names} in {text}"
    );
}
