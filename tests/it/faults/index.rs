//! A damaged, locked, lost or unusable index location (issue 16, items 1 to 5).
