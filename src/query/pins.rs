//! What an answer read: its files at their content versions, kept as one digest. A cursor
//! over the answer carries it (`render::cursor`), so a page asked for after one of those
//! files changed is refused as stale; a resource's version is the digest of the files that
//! decided its text.

/// The digest of the (path, content version) pairs an answer read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pins(String);

impl Pins {
    /// `files` are (path, content version) pairs; their order and repeats do not matter.
    pub fn of(files: &[(String, String)]) -> Pins {
        Pins(digest(files))
    }

    /// Pins nothing: an answer that reads no print file.
    pub fn none() -> Pins {
        Pins::of(&[])
    }

    pub fn digest(&self) -> &str {
        &self.0
    }

    /// The weight the store's cache charges for a kept digest.
    pub fn weight(&self) -> usize {
        self.0.len()
    }
}

const DIGEST_CHARS: usize = 16;

/// blake3 over each file's path and content version, sorted component-wise as Python sorts
/// paths, first 16 hex.
pub fn digest(files: &[(String, String)]) -> String {
    let mut entries: Vec<&(String, String)> = files.iter().collect();
    entries.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    entries.dedup_by(|a, b| a.0 == b.0);
    let text: Vec<String> = entries.iter().map(|(p, v)| format!("{p}:{v}")).collect();
    blake3::hash(text.join("\n").as_bytes()).to_hex()[..DIGEST_CHARS].to_string()
}
