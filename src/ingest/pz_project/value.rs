//! The object tree pz's `YamlMapper` builds (dictionaries, lists, `long`/`double`/`bool`/
//! string scalars), made from the repo's PyYAML-compatible loader.
//!
//! YamlDotNet and pz read scalars differently from PyYAML: pz types only PLAIN scalars, and
//! only as `long`, `double`, or the exact words `true`/`false`; everything else (quoted
//! text, `yes`, `on`, `~`, `null`, an empty value, `2024-01-01`) stays the string it was
//! written as. The PyYAML tree has lost the spelling, so the conversion guesses the common
//! spelling and records, per mapping, whether every scalar under it was certain (`exact`).
//! Node ids hash option values, so an id is only computed from an exact mapping.
//! Uncertain: `null`/empty (read as `""`, the empty value's spelling), dates and datetimes
//! (pz keeps the text), `.inf`/`.nan` (pz keeps the text), and a string .NET would parse
//! as a number (quoted, or a plain `1e5` that PyYAML left as text and pz types as a
//! double). Assumed: booleans were spelled `true`/`false`, integers in decimal.
//! YamlDotNet also refuses a mapping with a duplicate key (PZ0101 "Duplicate key") where
//! PyYAML keeps the last value; that difference is not detectable after loading.

use compat::value::Value;

use compat::dotnet::{double_text, parse_double, parse_long};

/// One value of pz's dynamic YAML tree (or of a Scriban call-site literal, which pz
/// converts to the same shapes).
#[derive(Debug, Clone, PartialEq)]
pub enum PzValue {
    Null,
    Bool(bool),
    Long(i64),
    Double(f64),
    Str(String),
    List(Vec<PzValue>),
    Map(PzMap),
}

/// A mapping in insertion order. `exact` is false when some scalar beneath it may be
/// spelled differently from the guess (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct PzMap {
    pub entries: Vec<(String, PzValue)>,
    pub exact: bool,
}

impl PzMap {
    pub fn new() -> PzMap {
        PzMap {
            entries: Vec::new(),
            exact: true,
        }
    }

    pub fn get(&self, key: &str) -> Option<&PzValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of a key that is present and not null (pz's `TryGetValue(..) && v is not null`).
    pub fn given(&self, key: &str) -> Option<&PzValue> {
        self.get(key).filter(|v| !matches!(v, PzValue::Null))
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// Dictionary assignment: a new key appends, an existing one keeps its place.
    pub fn set(&mut self, key: String, value: PzValue) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// `ProjectLoader.TryGetString`: the value's `ToString()`, or none for a missing key or null.
    pub fn get_string(&self, key: &str) -> Option<String> {
        self.get(key).and_then(PzValue::to_dotnet_string)
    }

    /// `ProjectLoader.GetDict`: the nested mapping, or an empty one.
    pub fn get_map(&self, key: &str) -> PzMap {
        match self.get(key) {
            Some(PzValue::Map(m)) => m.clone(),
            _ => PzMap::new(),
        }
    }

    /// `ProjectLoader.TryGetInt`: a long within int range.
    pub fn get_int(&self, key: &str) -> Option<i32> {
        match self.get(key) {
            Some(PzValue::Long(l)) => i32::try_from(*l).ok(),
            _ => None,
        }
    }

    pub fn get_bool(&self, key: &str) -> Option<bool> {
        match self.get(key) {
            Some(PzValue::Bool(b)) => Some(*b),
            _ => None,
        }
    }
}

impl Default for PzMap {
    fn default() -> PzMap {
        PzMap::new()
    }
}

impl PzValue {
    /// `object.ToString()` as .NET writes these shapes; `None` for null.
    pub fn to_dotnet_string(&self) -> Option<String> {
        Some(match self {
            PzValue::Null => return None,
            PzValue::Bool(true) => "True".into(),
            PzValue::Bool(false) => "False".into(),
            PzValue::Long(l) => l.to_string(),
            PzValue::Double(d) => format_double(*d),
            PzValue::Str(s) => s.clone(),
            PzValue::List(_) => "System.Collections.Generic.List`1[System.Object]".into(),
            PzValue::Map(_) => {
                "System.Collections.Generic.Dictionary`2[System.String,System.Object]".into()
            }
        })
    }

    /// String interpolation (`$"{value}"`): null is empty.
    pub fn interpolated(&self) -> String {
        self.to_dotnet_string().unwrap_or_default()
    }

    /// `value is null or ""`: pz's "bodyless key" test.
    pub fn is_blank(&self) -> bool {
        matches!(self, PzValue::Null) || matches!(self, PzValue::Str(s) if s.is_empty())
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PzValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&PzMap> {
        match self {
            PzValue::Map(m) => Some(m),
            _ => None,
        }
    }
}

/// `double.ToString()` (invariant), including the non-finite symbols.
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        double_text(d)
    }
}

/// The root mapping of a YAML document, converted (the caller has refused other roots).
pub fn convert_map(entries: &[(Value, Value)]) -> PzMap {
    let mut map = PzMap::new();
    for (k, v) in entries {
        let (key, key_exact) = key_text(k);
        let (value, exact) = convert(v);
        map.exact &= key_exact && exact;
        map.set(key, value);
    }
    map
}

/// A value and whether its pz spelling is certain.
pub fn convert(v: &Value) -> (PzValue, bool) {
    match v {
        Value::Null => (PzValue::Str(String::new()), false),
        Value::Bool(b) => (PzValue::Bool(*b), true),
        Value::Int(i) => (PzValue::Long(*i), true),
        Value::BigInt(s) => (PzValue::Double(s.parse().unwrap_or(f64::NAN)), true),
        Value::Float(f) if f.is_finite() => (PzValue::Double(*f), true),
        Value::Float(f) => {
            let text = if f.is_nan() {
                ".nan"
            } else if *f > 0.0 {
                ".inf"
            } else {
                "-.inf"
            };
            (PzValue::Str(text.into()), false)
        }
        Value::Str(s) => {
            let numeric = parse_long(s).is_some() || parse_double(s).is_some();
            (PzValue::Str(s.clone()), !numeric)
        }
        Value::Bytes(b) => (PzValue::Str(String::from_utf8_lossy(b).into_owned()), false),
        Value::Date(d) => (
            PzValue::Str(format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)),
            false,
        ),
        Value::DateTime(t) => {
            let d = t.date;
            let text = format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                d.year, d.month, d.day, t.hour, t.minute, t.second
            );
            (PzValue::Str(text), false)
        }
        Value::Seq(items) => {
            let mut exact = true;
            let list = items
                .iter()
                .map(|item| {
                    let (value, e) = convert(item);
                    exact &= e;
                    value
                })
                .collect();
            (PzValue::List(list), exact)
        }
        Value::Map(entries) => {
            let map = convert_map(entries);
            let exact = map.exact;
            (PzValue::Map(map), exact)
        }
    }
}

/// A mapping key's text as YamlDotNet reads it (the scalar's own spelling).
fn key_text(k: &Value) -> (String, bool) {
    match k {
        Value::Str(s) => (s.clone(), true),
        Value::Int(i) => (i.to_string(), true),
        Value::Bool(b) => (b.to_string(), true),
        other => {
            let (value, _) = convert(other);
            (value.interpolated(), false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyyaml_values_become_pz_shapes() {
        let doc =
            compat::yaml::load("a: 1\nb: x\nc: true\nd:\ne: [1, 'y']\nf: {g: 1.5}\nh: '123'\n")
                .unwrap();
        let map = convert_map(doc.as_map().unwrap());
        assert_eq!(map.get("a"), Some(&PzValue::Long(1)));
        assert_eq!(map.get_string("c").as_deref(), Some("True"));
        assert_eq!(map.get("d"), Some(&PzValue::Str(String::new())));
        assert!(!map.exact, "an empty value's spelling is a guess");
        let f = map.get("f").and_then(PzValue::as_map).unwrap();
        assert!(f.exact);
        assert_eq!(f.get_string("g").as_deref(), Some("1.5"));
        let clean = compat::yaml::load("x: csv\ny: [a, b]\n").unwrap();
        assert!(convert_map(clean.as_map().unwrap()).exact);
        let numeric = compat::yaml::load("v: '123'\n").unwrap();
        assert!(!convert_map(numeric.as_map().unwrap()).exact);
    }
}
