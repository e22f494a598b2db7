//! YAML alias structures that expand far beyond their text (issue 16, item 6).
