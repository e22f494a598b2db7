//! An adapter's SQL rules as validate_sql needs them: which sqlparser dialect reads its SQL,
//! how it folds an identifier (quoted or not) before comparing it with the catalog's own
//! spelling, how deep a table's namespace is (format spec §1.3) and which schema an
//! unqualified name is looked up in.
//!
//! The print keys every name in lowercase (§1.3, §2.2.1) and keeps a column's catalog
//! spelling as `physical_name` when it differs; a table's own spelling is not recorded, so
//! it is taken to be the adapter's catalog norm (uppercase on Snowflake, the key elsewhere).

use sqlparser::ast::Ident;
use sqlparser::dialect::{
    BigQueryDialect, ClickHouseDialect, DatabricksDialect, Dialect, DuckDbDialect, GenericDialect,
    MsSqlDialect, MySqlDialect, PostgreSqlDialect, RedshiftSqlDialect, SnowflakeDialect,
};

/// The database a connection's print was made from, by its adapter name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Adapter {
    Postgres,
    Redshift,
    DuckDb,
    Snowflake,
    BigQuery,
    MySql,
    MsSql,
    Databricks,
    ClickHouse,
    /// An adapter this module does not know: any SQL sqlparser reads, names matched leniently.
    Generic,
}

/// How a database compares an identifier with the names it stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    /// Case never matters, quoted or not.
    Insensitive,
    /// Unquoted names fold to lowercase; quoted ones are exact (PostgreSQL).
    FoldLower,
    /// Unquoted names fold to uppercase; quoted ones are exact (Snowflake).
    FoldUpper,
    /// Every name is exact (ClickHouse).
    Exact,
}

impl Adapter {
    /// The adapter a connection names (`adapter` in the manifest or `.dbprint.yaml`).
    pub fn from_name(name: &str) -> Adapter {
        match name.trim().to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => Adapter::Postgres,
            "redshift" => Adapter::Redshift,
            "duckdb" => Adapter::DuckDb,
            "snowflake" => Adapter::Snowflake,
            "bigquery" => Adapter::BigQuery,
            "mysql" | "mariadb" => Adapter::MySql,
            "mssql" | "sqlserver" | "tsql" => Adapter::MsSql,
            "databricks" => Adapter::Databricks,
            "clickhouse" => Adapter::ClickHouse,
            _ => Adapter::Generic,
        }
    }

    /// The dialect name replies report.
    pub fn name(self) -> &'static str {
        match self {
            Adapter::Postgres => "postgres",
            Adapter::Redshift => "redshift",
            Adapter::DuckDb => "duckdb",
            Adapter::Snowflake => "snowflake",
            Adapter::BigQuery => "bigquery",
            Adapter::MySql => "mysql",
            Adapter::MsSql => "mssql",
            Adapter::Databricks => "databricks",
            Adapter::ClickHouse => "clickhouse",
            Adapter::Generic => "generic",
        }
    }

    /// The sqlparser dialect that reads this adapter's SQL.
    pub fn parser_dialect(self) -> Box<dyn Dialect> {
        match self {
            Adapter::Postgres => Box::new(PostgreSqlDialect {}),
            Adapter::Redshift => Box::new(RedshiftSqlDialect {}),
            Adapter::DuckDb => Box::new(DuckDbDialect {}),
            Adapter::Snowflake => Box::new(SnowflakeDialect),
            Adapter::BigQuery => Box::new(BigQueryDialect),
            Adapter::MySql => Box::new(MySqlDialect {}),
            Adapter::MsSql => Box::new(MsSqlDialect {}),
            Adapter::Databricks => Box::new(DatabricksDialect {}),
            Adapter::ClickHouse => Box::new(ClickHouseDialect {}),
            Adapter::Generic => Box::new(GenericDialect {}),
        }
    }

    fn case(self) -> Case {
        match self {
            Adapter::Postgres => Case::FoldLower,
            Adapter::Snowflake => Case::FoldUpper,
            Adapter::ClickHouse => Case::Exact,
            // Redshift folds quoted names too unless `enable_case_sensitive_identifier` is on;
            // BigQuery compares column names without case (its table names are taken the same,
            // their spelling not being recorded).
            Adapter::Redshift
            | Adapter::DuckDb
            | Adapter::BigQuery
            | Adapter::MySql
            | Adapter::MsSql
            | Adapter::Databricks
            | Adapter::Generic => Case::Insensitive,
        }
    }

    /// Segments of a table's FQN before its own name (format spec §1.3); `None`: any.
    pub fn namespace_depth(self) -> Option<usize> {
        match self {
            Adapter::Postgres
            | Adapter::Redshift
            | Adapter::DuckDb
            | Adapter::Snowflake
            | Adapter::Databricks
            | Adapter::MsSql => Some(2),
            Adapter::MySql | Adapter::ClickHouse | Adapter::BigQuery => Some(1),
            Adapter::Generic => None,
        }
    }

    /// The schema an unqualified table name is looked up in, where the adapter fixes one
    /// (`None`: the session decides, so any schema holding the name is a candidate).
    pub fn default_schema(self) -> Option<&'static str> {
        match self {
            Adapter::Postgres | Adapter::Redshift => Some("public"),
            Adapter::DuckDb => Some("main"),
            Adapter::MsSql => Some("dbo"),
            Adapter::Databricks => Some("default"),
            _ => None,
        }
    }

    /// The character this adapter quotes identifiers with.
    fn quote(self) -> char {
        match self {
            Adapter::MySql | Adapter::BigQuery | Adapter::Databricks => '`',
            _ => '"',
        }
    }

    /// The spelling an identifier, as written, is compared under.
    pub fn spell(self, ident: &Ident) -> String {
        self.spell_text(&ident.value, ident.quote_style.is_some())
    }

    pub fn spell_text(self, text: &str, quoted: bool) -> String {
        match (self.case(), quoted) {
            (Case::Insensitive, _) => text.to_lowercase(),
            (Case::FoldLower, false) => text.to_lowercase(),
            (Case::FoldUpper, false) => text.to_uppercase(),
            _ => text.to_string(),
        }
    }

    /// How the database spells a column the print keys `key` (catalog spelling `physical`).
    /// Without a `physical_name` the key addresses the column as written, unquoted (format
    /// spec §2.2.4), so it is stored as the adapter folds it.
    pub fn stored_column(self, key: &str, physical: Option<&str>) -> String {
        match (self.case(), physical) {
            (Case::Insensitive, _) => key.to_lowercase(),
            (_, Some(p)) => p.to_string(),
            (_, None) => self.spell_text(key, false),
        }
    }

    /// How the database spells a namespace segment or table name the print keys `key`.
    pub fn stored_name(self, key: &str) -> String {
        match self.case() {
            Case::FoldUpper => key.to_uppercase(),
            _ => key.to_string(),
        }
    }

    /// A stored spelling written so that this dialect reads it back: bare (in lowercase,
    /// as the print writes names) where folding gives it, quoted otherwise.
    pub fn written(self, stored: &str) -> String {
        let plain = stored
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && stored
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        let bare = stored.to_lowercase();
        if plain && self.spell_text(&bare, false) == stored {
            return bare;
        }
        let q = self.quote();
        format!("{q}{}{q}", stored.replace(q, &format!("{q}{q}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ident(value: &str, quoted: bool) -> Ident {
        if quoted {
            Ident::with_quote('"', value)
        } else {
            Ident::new(value)
        }
    }

    #[test]
    fn postgres_folds_unquoted_names_down_and_keeps_quoted_ones() {
        let pg = Adapter::Postgres;
        assert_eq!(pg.spell(&ident("Books", false)), "books");
        assert_eq!(pg.spell(&ident("Books", true)), "Books");
        assert_eq!(
            pg.stored_column("firstname", Some("firstName")),
            "firstName"
        );
        assert_eq!(pg.written("firstName"), "\"firstName\"");
        assert_eq!(pg.written("books"), "books");
    }

    #[test]
    fn snowflake_folds_unquoted_names_up() {
        let sf = Adapter::Snowflake;
        assert_eq!(sf.spell(&ident("orders", false)), "ORDERS");
        assert_eq!(sf.spell(&ident("orders", true)), "orders");
        assert_eq!(sf.stored_name("orders"), "ORDERS");
        // Without a catalog spelling the key, unquoted, reaches the column.
        assert_eq!(sf.stored_column("note", None), "NOTE");
        assert_eq!(sf.written("NOTE"), "note");
        // A column the catalog spells in lowercase must be quoted to be reached.
        assert_eq!(sf.stored_column("note", Some("note")), "note");
        assert_eq!(sf.written("note"), "\"note\"");
        assert_eq!(sf.written("ORDER_ID"), "order_id");
    }

    #[test]
    fn case_insensitive_adapters_ignore_quotes() {
        for a in [
            Adapter::DuckDb,
            Adapter::MySql,
            Adapter::Redshift,
            Adapter::Generic,
        ] {
            assert_eq!(a.spell(&ident("Books", true)), "books");
            assert_eq!(a.stored_column("firstname", Some("firstName")), "firstname");
        }
        assert_eq!(Adapter::MySql.written("two words"), "`two words`");
        assert_eq!(Adapter::from_name("PostgreSQL"), Adapter::Postgres);
        assert_eq!(Adapter::from_name("teradata"), Adapter::Generic);
    }
}
