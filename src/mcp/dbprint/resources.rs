//! resources/*: the store's resource pages in the wire's shape.

use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult,
};
use serde::de::DeserializeOwned;

use super::DbprintTools;
use crate::error::QueryError;
use crate::mcp::errors::{self, rpc_error};
use crate::mcp::tool_set::Resources;
use crate::query::plan_joins::{self, erd};
use crate::query::resources;
use crate::query::validate_sql::catalog;
use crate::render;
use crate::store::{Connection, Reads};

fn wire<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(errors::internal)
}

impl Resources for DbprintTools {
    fn list(&self, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
        // Every served connection's manifest is listed.
        let states = self
            .store
            .served
            .connections
            .iter()
            .map(|c| {
                self.store
                    .fresh(Connection(Some(&c.name)), Reads::CheckedAsRead)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| rpc_error(&e))?;
        let listing = resources::list(&states).map_err(|e| rpc_error(&e))?;
        let page = render::resource::list_page(&listing, cursor).map_err(|e| rpc_error(&e))?;
        let entries: Vec<serde_json::Value> = page
            .entries
            .iter()
            .map(|e| {
                serde_json::json!({
                    "uri": e.uri,
                    "name": e.name,
                    "description": e.description,
                    "mimeType": e.mime_type,
                })
            })
            .collect();
        let mut result = serde_json::json!({ "resources": entries });
        if let Some(n) = page.next_cursor {
            result["nextCursor"] = serde_json::json!(n);
        }
        wire(result)
    }

    /// Any cursor is ignored, as the reference does.
    fn templates(&self) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates: Vec<serde_json::Value> = resources::templates()
            .into_iter()
            .map(|t| {
                serde_json::json!({
                    "uriTemplate": t.uri_template,
                    "name": t.name,
                    "mimeType": t.mime_type,
                })
            })
            .collect();
        wire(serde_json::json!({ "resourceTemplates": templates }))
    }

    fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        if uri.starts_with(erd::SCHEME) {
            return self.read_erd(uri).map_err(|e| rpc_error(&e)).and_then(wire);
        }
        // The resource's file (and every file deciding what it withholds) is taken as it
        // is on disk now; a page read from one rewritten meanwhile is read again below.
        let connection = |name: &str| {
            self.store
                .fresh(Connection(Some(name)), Reads::CurrentFiles)
        };
        let sources = resources::Sources {
            references: self.store.references(),
            cache: self.store.cache(),
            connection: &connection,
        };
        // A file known by content is read a page at a time; one rewritten between its
        // check and the read of its page is read again from the start, once.
        let mut attempts = 0;
        let page = loop {
            let resource = resources::read(uri, &sources).map_err(|e| rpc_error(&e))?;
            let cut = resource
                .whole
                .page_cut(self.store.cache(), render::resource::cut);
            match cut.and_then(|ranges| render::resource::page(uri, &resource, &ranges)) {
                Err(QueryError::Stale(_)) if attempts == 0 => attempts += 1,
                Err(QueryError::Stale(path)) => {
                    let shown = path.display().to_string();
                    return Err(rpc_error(&QueryError::StalePageVersion(shown)));
                }
                other => break other.map_err(|e| rpc_error(&e))?,
            }
        };
        wire(serde_json::json!({
            "contents": [{
                "uri": uri,
                "mimeType": page.mime_type,
                "text": page.text,
                "_meta": {"page": page.page, "pages": page.pages, "version": page.version},
            }]
        }))
    }
}

impl DbprintTools {
    /// A Mermaid diagram around one table (printdex's own resource): every table within
    /// `depth` joins and the edges among them.
    fn read_erd(&self, uri: &str) -> Result<serde_json::Value, QueryError> {
        let wanted = erd::parse_uri(uri)?;
        // The diagram reads every table's edges and key columns.
        let source = Connection(Some(&wanted.connection));
        let diagram = self.store.answer(source, Reads::EveryFile, |state, _| {
            state.manifest_or_error()?;
            let graph = plan_joins::graph::graph(state)?;
            let cat = catalog::catalog(state)?;
            let center =
                plan_joins::names::table(&graph, &wanted.table, &state.config.name, "table")?;
            Ok(erd::Diagram::around(
                graph,
                Some(&cat),
                center,
                wanted.depth,
            ))
        })?;
        Ok(serde_json::json!({
            "contents": [{
                "uri": uri,
                "mimeType": "text/vnd.mermaid",
                "text": render::erd::mermaid(&diagram),
            }]
        }))
    }
}
