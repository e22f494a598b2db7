//! What a column's `sql_type` says its values are, and what a literal in the SQL is: the two
//! sides of a type check. Only storage types decide (a `classification` is a reading of the
//! values, not of what the column accepts), and a type no rule below knows decides nothing.

use sqlparser::ast::{DataType, Expr, UnaryOperator, Value as SqlValue};

/// A column's storage family, from its `sql_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeClass {
    Numeric,
    Temporal,
    Text,
    Boolean,
    /// JSON, arrays, structs, binary, UUIDs, spatial types, or no `sql_type` at all.
    Other,
}

impl TypeClass {
    /// The family a `sql_type` as the print writes it belongs to (any adapter's spelling).
    pub fn of_sql_type(sql_type: Option<&str>) -> TypeClass {
        let Some(t) = sql_type else {
            return TypeClass::Other;
        };
        let upper = t.trim().to_ascii_uppercase();
        if upper.ends_with(']') || upper.starts_with("ARRAY") || upper.starts_with("STRUCT") {
            return TypeClass::Other;
        }
        // The type's name without its parameters or array/nullable wrappers' arguments.
        let base: &str = upper.split(['(', '<', '[']).next().unwrap_or("").trim();
        const NUMERIC: [&str; 33] = [
            "TINYINT",
            "SMALLINT",
            "MEDIUMINT",
            "INT",
            "INTEGER",
            "BIGINT",
            "HUGEINT",
            "UHUGEINT",
            "UTINYINT",
            "USMALLINT",
            "UINTEGER",
            "UBIGINT",
            "INT2",
            "INT4",
            "INT8",
            "INT64",
            "BYTEINT",
            "DECIMAL",
            "NUMERIC",
            "NUMBER",
            "BIGNUMERIC",
            "BIGDECIMAL",
            "REAL",
            "FLOAT",
            "FLOAT4",
            "FLOAT8",
            "FLOAT64",
            "DOUBLE",
            "DOUBLE PRECISION",
            "SERIAL",
            "BIGSERIAL",
            "SMALLSERIAL",
            "MONEY",
        ];
        const TEMPORAL: [&str; 16] = [
            "DATE",
            "DATE32",
            "TIME",
            "TIMETZ",
            "TIMESTAMP",
            "TIMESTAMPTZ",
            "TIMESTAMP_NTZ",
            "TIMESTAMP_LTZ",
            "TIMESTAMP_TZ",
            "TIMESTAMP_S",
            "TIMESTAMP_MS",
            "TIMESTAMP_NS",
            "DATETIME",
            "DATETIME2",
            "DATETIME64",
            "SMALLDATETIME",
        ];
        const TEXT: [&str; 14] = [
            "VARCHAR",
            "CHAR",
            "CHARACTER",
            "CHARACTER VARYING",
            "NVARCHAR",
            "NCHAR",
            "TEXT",
            "STRING",
            "BPCHAR",
            "CLOB",
            "TINYTEXT",
            "MEDIUMTEXT",
            "LONGTEXT",
            "VARCHAR2",
        ];
        // `TIMESTAMP WITH TIME ZONE`, `TIME WITHOUT TIME ZONE`, `INTEGER UNSIGNED`...
        let first = base.split_whitespace().next().unwrap_or("");
        let is = |names: &[&str]| names.contains(&base) || names.contains(&first);
        if is(&NUMERIC) || clickhouse_numeric(base) {
            TypeClass::Numeric
        } else if is(&TEMPORAL) || base.starts_with("DATETIME") {
            TypeClass::Temporal
        } else if is(&TEXT) || base.starts_with("FIXEDSTRING") || base.starts_with("LOWCARDINALITY")
        {
            TypeClass::Text
        } else if is(&["BOOLEAN", "BOOL"]) {
            TypeClass::Boolean
        } else {
            TypeClass::Other
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TypeClass::Numeric => "numeric",
            TypeClass::Temporal => "temporal",
            TypeClass::Text => "text",
            TypeClass::Boolean => "boolean",
            TypeClass::Other => "other",
        }
    }
}

/// ClickHouse's `Int8`..`UInt256`, `Float32`/`Float64`, `Decimal32`... (upper-cased).
fn clickhouse_numeric(base: &str) -> bool {
    let digits = |rest: &str| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit());
    ["INT", "UINT", "FLOAT", "DECIMAL"]
        .iter()
        .any(|p| base.strip_prefix(p).is_some_and(digits))
}

/// A constant in the SQL, as a comparison meets it.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A number, as written (sign included).
    Number(String),
    Text(String),
    Bool(bool),
    /// `DATE '...'`, `TIMESTAMP '...'`, `'...'::date`, `CAST('...' AS DATE)`: the text and
    /// the type named.
    Temporal(String, String),
}

impl Literal {
    /// The literal an expression is, when it is one (`NULL` and parameters are not).
    pub fn of(expr: &Expr) -> Option<Literal> {
        match expr {
            Expr::Value(v) => match &v.value {
                SqlValue::Number(n, _) => Some(Literal::Number(n.clone())),
                SqlValue::Boolean(b) => Some(Literal::Bool(*b)),
                other => text_of(other).map(Literal::Text),
            },
            Expr::UnaryOp {
                op: op @ (UnaryOperator::Minus | UnaryOperator::Plus),
                expr,
            } => match Literal::of(expr)? {
                Literal::Number(n) if *op == UnaryOperator::Minus => {
                    Some(Literal::Number(format!("-{n}")))
                }
                n @ Literal::Number(_) => Some(n),
                _ => None,
            },
            Expr::Nested(inner) => Literal::of(inner),
            Expr::TypedString(t) if temporal_type(&t.data_type) => {
                text_of(&t.value.value).map(|s| Literal::Temporal(s, t.data_type.to_string()))
            }
            Expr::Cast {
                expr, data_type, ..
            } if temporal_type(data_type) => match Literal::of(expr)? {
                Literal::Text(s) => Some(Literal::Temporal(s, data_type.to_string())),
                _ => None,
            },
            _ => None,
        }
    }

    /// The literal's text: a number's digits, a string's content.
    pub fn text(&self) -> String {
        match self {
            Literal::Number(n) => n.clone(),
            Literal::Text(s) | Literal::Temporal(s, _) => s.clone(),
            Literal::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        }
    }
}

/// A string constant's content, whatever quotes wrote it.
fn text_of(v: &SqlValue) -> Option<String> {
    v.clone().into_string()
}

fn temporal_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Date
            | DataType::Date32
            | DataType::Time(..)
            | DataType::Timestamp(..)
            | DataType::TimestampNtz(..)
            | DataType::Datetime(..)
            | DataType::Datetime64(..)
    )
}

/// Whether `text` reads as a number in SQL's implicit cast from a string (surrounding
/// spaces allowed): `'42'`, `' -1.5 '`, `'1e3'`.
pub fn numeric_text(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && t.parse::<f64>().is_ok_and(f64::is_finite)
        && !t.eq_ignore_ascii_case("inf")
        && !t.to_ascii_lowercase().contains("infinity")
        && !t.to_ascii_lowercase().contains("nan")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_families_by_sql_type() {
        use TypeClass::*;
        let cases = [
            ("INTEGER", Numeric),
            ("DECIMAL(8,2)", Numeric),
            ("NUMBER(38,0)", Numeric),
            ("double precision", Numeric),
            ("UInt64", Numeric),
            ("TIMESTAMP WITH TIME ZONE", Temporal),
            ("DATE", Temporal),
            ("character varying(20)", Text),
            ("VARCHAR", Text),
            ("BOOLEAN", Boolean),
            ("INTEGER[]", Other),
            ("JSON", Other),
            ("UUID", Other),
        ];
        for (sql_type, class) in cases {
            assert_eq!(TypeClass::of_sql_type(Some(sql_type)), class, "{sql_type}");
        }
        assert_eq!(TypeClass::of_sql_type(None), Other);
    }

    #[test]
    fn numeric_text_is_what_a_cast_accepts() {
        assert!(numeric_text("42"));
        assert!(numeric_text(" -1.5 "));
        assert!(numeric_text("1e3"));
        assert!(!numeric_text("abc"));
        assert!(!numeric_text(""));
        assert!(!numeric_text("NaN"));
        assert!(!numeric_text("2024-01-01"));
    }
}
