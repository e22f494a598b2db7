//! The loaded project, in the shapes pz's `ProjectLoader` hands its compiler (`PzProject`,
//! `ConnectionDef`, `DatasetDef`, `PipelineDef`, `CheckDef`, `StateConfig`), plus the
//! warning shape every answer carries.

use crate::error::pz::{PzCode, PzError};
use crate::ingest::pz_project::template::SharedTemplate;
use crate::ingest::pz_project::value::PzMap;

/// `PzWarning`: code, message, file?, line?, hint?.
#[derive(Debug, Clone, PartialEq)]
pub struct PzWarning {
    pub code: PzCode,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub hint: Option<String>,
}

/// A `PzError` with a file and no line, the loader's usual shape.
pub fn file_error(
    code: PzCode,
    message: impl Into<String>,
    file: &str,
    hint: impl Into<String>,
) -> PzError {
    PzError {
        code,
        message: message.into(),
        file: Some(file.to_string()),
        line: None,
        next_step: Some(hint.into()),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum SyncMode {
    Incremental {
        cursor: String,
        max_window: Option<String>,
        initial: Option<String>,
        until: Option<String>,
    },
    Cdc,
    Auto,
}

/// A read side: an entity's `read:` block, or a `source()` call's kwargs.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    pub name: String,
    pub options: PzMap,
    pub columns: Option<Vec<(String, String)>>,
    pub sync: Option<SyncMode>,
    /// Whether every value hashed into this dataset's node id is spelled as pz reads it.
    pub exact: bool,
}

/// A write side (`SinkWriteOptions`): an `entities: <e>: write:` block or `sink()` kwargs.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    pub mode: String,
    pub keys: Vec<String>,
    pub schema_policy: String,
    pub accept_duplicates: bool,
    pub on_delete: Option<String>,
    /// Connector write options, sorted by key.
    pub options: PzMap,
}

impl WriteOptions {
    pub fn default_append() -> WriteOptions {
        WriteOptions {
            mode: "append".into(),
            keys: Vec::new(),
            schema_policy: "fail_on_change".into(),
            accept_duplicates: false,
            on_delete: None,
            options: PzMap::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    pub name: String,
    pub connector: String,
    /// The flat connector config (never emitted; the path guard reads it).
    pub config: PzMap,
    pub datasets: Vec<Dataset>,
    pub entity_writes: Vec<(String, WriteOptions)>,
}

impl Connection {
    pub fn entity_write(&self, entity: &str) -> Option<&WriteOptions> {
        self.entity_writes
            .iter()
            .find(|(e, _)| e == entity)
            .map(|(_, w)| w)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub check_type: String,
    pub columns: Vec<String>,
    /// The check's options, minus `column`/`columns`/`sample_values`, in file order.
    pub options: PzMap,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub name: String,
    pub file: String,
    pub template: SharedTemplate,
    pub materialization: String,
    pub tags: Vec<String>,
    pub checks: Vec<Check>,
}

impl Pipeline {
    pub fn is_ephemeral(&self) -> bool {
        self.materialization == "ephemeral"
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct StateConfig {
    pub backend: String,
    pub artifacts: bool,
}

impl StateConfig {
    pub fn is_local(&self) -> bool {
        self.backend == "local"
    }

    /// Whether run artifacts live under `.pz/runs` (`LocalRunArtifactStore`).
    pub fn local_artifacts(&self) -> bool {
        self.is_local() || self.backend == "http" || !self.artifacts
    }
}

/// A project that loaded.
#[derive(Debug, Clone)]
pub struct Project {
    /// Pipeline name -> position in `pipelines`.
    pub pipeline_index: std::collections::HashMap<String, usize>,
    pub name: String,
    pub version: String,
    pub vars: PzMap,
    pub check_samples: bool,
    pub state: StateConfig,
    pub connections: Vec<Connection>,
    pub pipelines: Vec<Pipeline>,
    pub warnings: Vec<PzWarning>,
}

impl Project {
    pub fn connection(&self, name: &str) -> Option<&Connection> {
        self.connections.iter().find(|c| c.name == name)
    }

    pub fn pipeline(&self, name: &str) -> Option<&Pipeline> {
        self.pipeline_index.get(name).map(|i| &self.pipelines[*i])
    }

    pub fn pipeline_position(&self, name: &str) -> Option<usize> {
        self.pipeline_index.get(name).copied()
    }
}
