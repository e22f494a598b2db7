//! pz's documentation corpus read as pz reads it: the site's two files parsed into pages
//! (`parse`), and every page's scorable lines with their weights (`lines`), the records the
//! docs index (`store::pz_docs`) is built from and the ranking (`query::pz_docs`) scores.

pub mod lines;
pub mod parse;
