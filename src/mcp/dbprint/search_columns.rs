//! search_columns: find columns (and parts) across the print by name, words and fields.

use super::{arg_str, Reply, Tool};
use crate::mcp::dbprint::schema::{connection, cursor};
use crate::mcp::tool_set::{Param, ToolSpec};
use crate::query::search_columns;
use crate::render;
use crate::store::search::lookup::Filters;
use crate::store::{Connection, Reads};
use compat::value::Value;

pub fn tool() -> Tool {
    Tool {
        spec: ToolSpec {
            name: "search_columns",
            description: "Finds columns anywhere in the print when you do not yet know their table. Every argument is an optional filter and all given ones must hold: `pattern` globs the column name, `text` looks for words in names and in the notes people wrote (a match through a per-value note lists those notes as `value_notes`), and classification, sql_type, sensitivity, looks_like and redacted glob the column's own field, which must be present to match; candidate_key compares exactly. Parts of JSON columns are searched too, named `<column><path>`, and a part match carries `part` and `occurrences`. Each match gives table, column, sql_type, classification and, where the print has them, row counts, scope, the detected shape with its evidence, sensitivity, redaction, key status and the column's note. `unreadable_tables` names tables whose files could not be read; `switched_off_tables` names tables where shape detection was off. Paged: `total` counts every match, `next_cursor` continues.",
            params: vec![
                Param::string("pattern", "fnmatch glob over column names (`*` matches any run, dots included); a part is named `<column><path>`, e.g. `items[*].sku`. Omit to filter by the other arguments only.").non_empty(),
                Param::string("classification", "fnmatch glob over the column's classification: binary, boolean, categorical, composite, foreign_key_candidate, json, numeric, spatial, temporal, text, unsupported or vector."),
                Param::string("sql_type", "fnmatch glob over the column's sql_type."),
                Param::string("sensitivity", "fnmatch glob over inferred.sensitivity (contact, credential, date_of_birth, demographic, employment, financial_account, geolocation, health, national_id, online_identifier, personal_name, postal_address); `*` finds every column with any detection. Columns without one are not thereby safe."),
                Param::string("looks_like", "fnmatch glob over inferred.looks_like, the value shape detected (email, phone, uuid, url, ip, iso8601_date, country_code, currency_code, json, ...)."),
                Param::string("redacted", "fnmatch glob over the column's redaction marker: drop, hash or mask."),
                Param::boolean("candidate_key", "true: only columns whose values were unique; false: only columns measured and found not unique."),
                Param::string("text", "Case-insensitive substring looked for in the column name, its note and its per-value notes; literal words, not meaning.").non_empty(),
                connection(),
                cursor(),
            ],
        },
        instruction: Some("- search_columns: find a column when its table is unknown, by name glob, note text or detected kind."),
        handler: |store, args| {
            let filters = Filters {
                pattern: arg_str(args, "pattern"),
                classification: arg_str(args, "classification"),
                sql_type: arg_str(args, "sql_type"),
                sensitivity: arg_str(args, "sensitivity"),
                looks_like: arg_str(args, "looks_like"),
                redacted: arg_str(args, "redacted"),
                candidate_key: match args.get("candidate_key") {
                    Some(Value::Bool(b)) => Some(*b),
                    _ => None,
                },
                text: arg_str(args, "text"),
            };
            let request = search_columns::Request { filters };
            // Every table's two searched files are read, so every one must be current.
            let page = store.answer(Connection(arg_str(args, "connection")), Reads::EveryTableStatistics, |state, _| {
                let mut matches = search_columns::answer(state, &request)?;
                render::search_columns::page(&mut matches, args, arg_str(args, "cursor"))
            })?;
            Ok(Reply::Dict(page))
        },
    }
}
