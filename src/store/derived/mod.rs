//! Derived values kept on disk beside the index (`<index>/derived/`), so that a process
//! started on a warm index does not rebuild what another process (or an earlier run)
//! already built: get_diff's prepared diff, validate_sql's catalog and plan_joins' graph
//! take seconds to build on a large print and milliseconds to read back.
//!
//! A file is named by the digests of its scope (whose current value it is: one
//! connection's catalog) and of its key (everything that decides the value), so it is
//! right for as long as it exists; the reader still checks what the key cannot name
//! (the identities a prepared diff lists) exactly as it checks a value built in memory.
//! Any process may write one without the writer lock: two writers of one name write equal
//! values (not always the same bytes: a map's order is its own), and each writes a
//! temporary file and renames it into place. Writing a
//! scope's value removes that scope's older files, so the directory holds one value per
//! scope. Like the rest of the index it is a cache: a file that fails its checksum, was
//! written by another format or does not decode is removed and built again, and a write
//! that fails (a full disk, a read-only directory) costs only the next process's build.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::cache::Key;

mod held;

pub use held::{HeldBytes, HeldTexts, HeldWords};

/// The directory's name in an index location.
pub const DERIVED_DIR: &str = "derived";

/// What a file starts with: its kind, then the encoding's version, then the payload's
/// CRC-32. The checksum guards against damage (a write cut short by a crash, a flipped
/// bit), not against a forger, so it is the cheap one: a start reads back tens of
/// megabytes, which blake3 took 20 to 50 milliseconds to check on two busy cores.
/// (`PDXD` files, checked by blake3, are of an earlier build: set aside and made again.)
const MAGIC: &[u8; 4] = b"PDX2";
const HEADER: usize = MAGIC.len() + 4 + 4;

/// A value kept on disk: its encoding's version, bumped whenever its fields (or those of
/// anything it holds) change, so a file of an older build is never decoded as this one's.
pub trait Kept: Serialize + DeserializeOwned {
    const ENCODING: u32;

    /// Whether this value is worth a file (a diff held whole in memory is not).
    fn worth_keeping(&self) -> bool {
        true
    }
}

/// The scope of a value kept once per connection and print root (its newest one): `kind`
/// names the value.
pub fn connection_scope(kind: &'static str, conn: &crate::config::ConnectionConfig) -> Key {
    Key::new(
        kind,
        [
            conn.name.as_bytes(),
            conn.print_root.to_string_lossy().as_bytes(),
        ],
    )
}

/// A writer that checksums what passes through it.
struct Checksummed<W> {
    to: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.to.write(bytes)?;
        self.crc.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.to.flush()
    }
}

/// The `derived/` directory of one index location.
#[derive(Debug, Clone)]
pub struct DerivedDir {
    dir: PathBuf,
}

impl DerivedDir {
    pub fn in_location(location: &Path) -> DerivedDir {
        DerivedDir {
            dir: location.join(DERIVED_DIR),
        }
    }

    fn prefix(scope: &Key) -> String {
        scope.hex()[..16].to_string()
    }

    fn file(&self, scope: &Key, key: &Key) -> PathBuf {
        self.dir
            .join(format!("{}-{}.bin", Self::prefix(scope), key.hex()))
    }

    /// Whether a file is kept for `key` (not read: a start asks this to skip a warm-up).
    pub fn holds(&self, scope: &Key, key: &Key) -> bool {
        self.file(scope, key).is_file()
    }

    /// Whether a whole file of this encoding is kept for `key` (its checksum read, the
    /// value not decoded). One that is not is removed.
    pub fn holds_whole<T: Kept>(&self, scope: &Key, key: &Key) -> bool {
        let path = self.file(scope, key);
        let Some(bytes) = read_kept(&path) else {
            return false;
        };
        let whole = checked::<T>(&bytes).is_some();
        if !whole {
            tracing::debug!(path = %path.display(), "a derived file set aside: it does not read back");
            let _ = std::fs::remove_file(&path);
        }
        whole
    }

    /// The value kept for `key`, if a whole one of this encoding is there.
    pub fn load<T: Kept>(&self, scope: &Key, key: &Key) -> Option<T> {
        let path = self.file(scope, key);
        let bytes = read_kept(&path)?;
        match decode::<T>(bytes) {
            Some(value) => Some(value),
            None => {
                tracing::debug!(path = %path.display(), "a derived file set aside: it does not read back");
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// The value kept for `scope` under whichever key (its value before a change), if a
    /// whole one of this encoding is there: a build may take from it what still holds.
    pub fn load_in_scope<T: Kept>(&self, scope: &Key) -> Option<T> {
        let prefix = Self::prefix(scope);
        let newest = std::fs::read_dir(&self.dir)
            .ok()?
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())?;
        let path = newest.path();
        let value = decode::<T>(read_kept(&path)?);
        if value.is_none() {
            tracing::debug!(path = %path.display(), "a derived file set aside: it does not read back");
            let _ = std::fs::remove_file(&path);
        }
        value
    }

    /// Keep `value` for `key` as `scope`'s current value (its older ones go); whether it
    /// was written.
    pub fn save<T: Kept>(&self, scope: &Key, key: &Key, value: &T) -> bool {
        if !value.worth_keeping() {
            return false;
        }
        let path = self.file(scope, key);
        if let Err(e) = self.write(&path, value) {
            tracing::debug!(path = %path.display(), "a derived value was not kept: {e}");
            return false;
        }
        tracing::debug!(kind = key.kind(), path = %path.display(), "a derived value kept");
        self.remove_older(scope, &path);
        true
    }

    fn write<T: Kept>(&self, path: &Path, value: &T) -> std::io::Result<()> {
        static WRITTEN: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir)?;
        let temporary = self.dir.join(format!(
            ".writing-{}-{}",
            std::process::id(),
            WRITTEN.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            // Encoded straight to the file, its checksum taken on the way and written into
            // the header last: a large value (a 100,000-table image, 64 MB) is never held
            // encoded in memory beside itself.
            let mut file = std::fs::File::create(&temporary)?;
            file.write_all(MAGIC)?;
            file.write_all(&T::ENCODING.to_le_bytes())?;
            file.write_all(&[0; 4])?;
            let mut payload = Checksummed {
                to: std::io::BufWriter::with_capacity(1 << 16, file),
                crc: crc32fast::Hasher::new(),
            };
            postcard::to_io(value, &mut payload).map_err(std::io::Error::other)?;
            let Checksummed { to, crc } = payload;
            let mut file = to
                .into_inner()
                .map_err(std::io::IntoInnerError::into_error)?;
            file.seek(std::io::SeekFrom::Start((MAGIC.len() + 4) as u64))?;
            file.write_all(&crc.finalize().to_le_bytes())?;
            drop(file);
            std::fs::rename(&temporary, path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }

    /// Remove the scope's files other than `kept`, and temporary files left by processes
    /// that stopped mid-write (older than a minute).
    fn remove_older(&self, scope: &Key, kept: &Path) {
        let prefix = Self::prefix(scope);
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let abandoned = name.starts_with(".writing-")
                && entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|m| m.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 60);
            if (name.starts_with(&prefix) && path != kept) || abandoned {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

/// Fixed-width runs of `u32`s kept as one run of little-endian bytes (`#[serde(with =
/// "derived::u32_run")]`): read back with one copy instead of a varint per number, and
/// allocated once at its size (a kept diff at 100,000 tables holds millions of them).
pub mod u32_run {
    use serde::{Deserializer, Serializer};

    /// A number of `u32`s read and written as a unit: `u32` itself, or `[u32; N]`.
    pub trait Words: Copy {
        const WIDTH: usize;
        fn put(&self, into: &mut Vec<u8>);
        /// From exactly `WIDTH` words of bytes.
        fn take(bytes: &[u8]) -> Self;
    }

    fn word(bytes: &[u8], at: usize) -> u32 {
        let mut four = [0; 4];
        four.copy_from_slice(&bytes[4 * at..4 * at + 4]);
        u32::from_le_bytes(four)
    }

    impl Words for u32 {
        const WIDTH: usize = 1;
        fn put(&self, into: &mut Vec<u8>) {
            into.extend_from_slice(&self.to_le_bytes());
        }
        fn take(bytes: &[u8]) -> u32 {
            word(bytes, 0)
        }
    }

    impl<const N: usize> Words for [u32; N] {
        const WIDTH: usize = N;
        fn put(&self, into: &mut Vec<u8>) {
            self.iter().for_each(|w| w.put(into));
        }
        fn take(bytes: &[u8]) -> [u32; N] {
            std::array::from_fn(|i| word(bytes, i))
        }
    }

    pub fn serialize<T: Words, S: Serializer>(run: &[T], s: S) -> Result<S::Ok, S::Error> {
        let mut bytes = Vec::with_capacity(run.len() * 4 * T::WIDTH);
        run.iter().for_each(|w| w.put(&mut bytes));
        s.serialize_bytes(&bytes)
    }

    pub fn deserialize<'de, T: Words, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        // Borrowed from the file's bytes where the decoder can lend them (postcard can).
        let bytes: std::borrow::Cow<'de, [u8]> = serde_bytes::deserialize(d)?;
        let unit = 4 * T::WIDTH;
        if !bytes.len().is_multiple_of(unit) {
            return Err(serde::de::Error::invalid_length(
                bytes.len(),
                &"whole words",
            ));
        }
        Ok(bytes.chunks_exact(unit).map(T::take).collect())
    }
}

/// Texts kept one after another with where each ends (the ends a [`u32_run`]): read back
/// as one string and one run of words, not a string apiece.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Texts {
    text: String,
    #[serde(with = "u32_run")]
    ends: Vec<u32>,
}

impl Texts {
    /// Add `text` and return its number (`None`: the texts outgrew a word's count).
    pub fn push(&mut self, text: &str) -> Option<u32> {
        let n = u32::try_from(self.ends.len()).ok()?;
        self.text.push_str(text);
        self.ends.push(u32::try_from(self.text.len()).ok()?);
        Some(n)
    }

    /// Every text in number order; `None` for one whose bounds do not fit the text (a file
    /// of another shape).
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let text = self.text.get(start..end as usize);
            start = end as usize;
            text
        })
    }

    /// Text `n` (`None`: there is none, or its bounds do not fit the text).
    pub fn get(&self, n: usize) -> Option<&str> {
        let start = match n {
            0 => 0,
            n => *self.ends.get(n - 1)? as usize,
        };
        self.text.get(start..*self.ends.get(n)? as usize)
    }

    /// How many texts there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// A kept file's bytes, for as long as they are decoded or a value read back holds runs
/// of them ([`HeldBytes::Lent`]).
pub struct KeptBytes(KeptFile);

enum KeptFile {
    /// Mapped with its pages at once: no buffer to fault in, zero and copy into (a start
    /// reads back tens of megabytes). A kept file is only ever replaced by a rename, never
    /// written in place, so the mapping never sees it change.
    #[cfg(unix)]
    Mapped(memmap2::Mmap),
    /// Read whole: an empty file (which cannot be mapped), or where a mapped file could
    /// not be renamed over or removed (Windows).
    Read(Vec<u8>),
}

impl std::ops::Deref for KeptBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            #[cfg(unix)]
            KeptFile::Mapped(map) => map,
            KeptFile::Read(bytes) => bytes,
        }
    }
}

impl KeptBytes {
    fn is_mapped(&self) -> bool {
        match &self.0 {
            #[cfg(unix)]
            KeptFile::Mapped(_) => true,
            KeptFile::Read(_) => false,
        }
    }

    /// Let this process's hold on the mapping's pages go once a value is read back: they
    /// stay in the page cache, and the runs the value lent fault back in as a call reads
    /// them, so the file's pages do not count toward every process that read it.
    #[allow(unsafe_code)] // MADV_DONTNEED on a read-only mapping of a file
    fn release_pages(&self) {
        #[cfg(unix)]
        if let KeptFile::Mapped(map) = &self.0 {
            // SAFETY: the mapping is read-only and shared with the file, so dropping its
            // pages loses nothing: a later read faults in the file's bytes, unchanged (a
            // kept file is never written in place).
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

#[allow(unsafe_code)] // a read-only mapping of a file no process writes in place
fn read_kept(path: &Path) -> Option<KeptBytes> {
    #[cfg(unix)]
    {
        let file = std::fs::File::open(path).ok()?;
        if file.metadata().ok()?.len() > 0 {
            // SAFETY: the file is mapped read-only, and this program never truncates or
            // rewrites a kept file (a new value is renamed into place), so the mapped
            // bytes stay what they were for as long as the map is held.
            return unsafe { memmap2::MmapOptions::new().populate().map(&file) }
                .ok()
                .map(|map| KeptBytes(KeptFile::Mapped(map)));
        }
    }
    std::fs::read(path)
        .ok()
        .map(|bytes| KeptBytes(KeptFile::Read(bytes)))
}

/// A file's value: its header's kind, encoding and checksum all as this build writes them.
/// Its [`HeldBytes`] and [`HeldWords`] are lent by the file where it is mapped, and this
/// process then lets go of the mapping's pages (they fault back in as a call reads a run).
fn decode<T: Kept>(bytes: KeptBytes) -> Option<T> {
    let file = std::sync::Arc::new(bytes);
    let payload = checked::<T>(&file)?;
    let value = held::lending(&file, || postcard::from_bytes(payload).ok())?;
    if std::sync::Arc::strong_count(&file) > 1 {
        file.release_pages();
    }
    Some(value)
}

/// A file's payload, when its header's kind, encoding and checksum are as this build
/// writes them.
fn checked<T: Kept>(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return None;
    }
    let encoding = u32::from_le_bytes(bytes[4..8].try_into().ok()?);
    let sum = u32::from_le_bytes(bytes[8..HEADER].try_into().ok()?);
    let payload = &bytes[HEADER..];
    if encoding != T::ENCODING || crc32fast::hash(payload) != sum {
        return None;
    }
    Some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Runs {
        #[serde(with = "u32_run")]
        ones: Vec<u32>,
        #[serde(with = "u32_run")]
        fours: Vec<[u32; 4]>,
        after: String,
    }

    #[test]
    fn runs_of_words_read_back_as_they_were_written() {
        let runs = Runs {
            ones: vec![0, 1, u32::MAX, 300, 70_000],
            fours: vec![[1, 2, 3, 4], [u32::MAX, 0, 9, 1 << 31]],
            after: "next field".into(),
        };
        let bytes = postcard::to_stdvec(&runs).unwrap();
        assert_eq!(postcard::from_bytes::<Runs>(&bytes).unwrap(), runs);
        // A run cut inside a word is refused, not read short.
        let cut = postcard::to_stdvec(&(vec![7u8; 6], vec![0u8; 0], "x")).unwrap();
        assert!(postcard::from_bytes::<Runs>(&cut).is_err());
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        names: Vec<String>,
        count: u64,
    }

    impl Kept for Sample {
        const ENCODING: u32 = 7;
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Later {
        names: Vec<String>,
        count: u64,
    }

    impl Kept for Later {
        const ENCODING: u32 = 8;
    }

    fn keys(n: u8) -> (Key, Key) {
        (
            Key::new("sample of", [b"scope".as_slice()]),
            Key::new("sample", [[n].as_slice()]),
        )
    }

    fn sample() -> Sample {
        Sample {
            names: vec!["orders".into(), "customers".into()],
            count: 42,
        }
    }

    #[test]
    fn a_kept_value_reads_back_equal() {
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, key) = keys(1);
        assert!(!derived.holds(&scope, &key));
        assert_eq!(derived.load::<Sample>(&scope, &key), None);
        derived.save(&scope, &key, &sample());
        assert!(derived.holds(&scope, &key));
        assert_eq!(derived.load::<Sample>(&scope, &key), Some(sample()));
    }

    #[test]
    fn a_scope_keeps_only_its_newest_value() {
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, first) = keys(1);
        let (_, second) = keys(2);
        derived.save(&scope, &first, &sample());
        derived.save(&scope, &second, &sample());
        assert!(!derived.holds(&scope, &first));
        assert!(derived.holds(&scope, &second));
        let other = Key::new("sample of", [b"another scope".as_slice()]);
        derived.save(&other, &first, &sample());
        assert!(
            derived.holds(&scope, &second),
            "another scope's write keeps it"
        );
    }

    #[test]
    fn a_scopes_value_before_a_change_is_found_under_its_old_key() {
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, first) = keys(1);
        assert_eq!(derived.load_in_scope::<Sample>(&scope), None);
        derived.save(&scope, &first, &sample());
        assert_eq!(derived.load_in_scope::<Sample>(&scope), Some(sample()));
        let other = Key::new("sample of", [b"another scope".as_slice()]);
        assert_eq!(derived.load_in_scope::<Sample>(&other), None);
        assert_eq!(
            derived.load_in_scope::<Later>(&scope),
            None,
            "another encoding"
        );
    }

    #[test]
    fn a_large_value_is_written_as_its_whole_encoding_would_be() {
        // Larger than the write's buffer many times over: the file is the header (its
        // checksum that of the whole payload) and the payload, as a file written from
        // the value encoded in memory was, so files kept before read back the same.
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, key) = keys(1);
        let large = Sample {
            names: (0..100_000).map(|n| format!("table_{n}")).collect(),
            count: 7,
        };
        assert!(derived.save(&scope, &key, &large));
        let payload = postcard::to_stdvec(&large).unwrap();
        assert!(payload.len() > 10 * (1 << 16));
        let mut expected = MAGIC.to_vec();
        expected.extend_from_slice(&Sample::ENCODING.to_le_bytes());
        expected.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        expected.extend_from_slice(&payload);
        let written = std::fs::read(derived.file(&scope, &key)).unwrap();
        assert!(
            written == expected,
            "the file is the header and the payload"
        );
        assert_eq!(derived.load::<Sample>(&scope, &key), Some(large));
    }

    #[test]
    fn a_damaged_or_foreign_file_is_removed_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, key) = keys(1);
        derived.save(&scope, &key, &sample());
        let path = derived.file(&scope, &key);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(derived.load::<Sample>(&scope, &key), None);
        assert!(!path.exists(), "a file that fails its checksum goes");

        derived.save(&scope, &key, &sample());
        assert_eq!(
            derived.load::<Later>(&scope, &key),
            None,
            "another encoding's file is not decoded"
        );
        std::fs::write(&path, b"PDX").unwrap();
        assert_eq!(derived.load::<Sample>(&scope, &key), None);
        // A file an earlier build wrote (its payload checked by blake3) is set aside.
        let payload = postcard::to_stdvec(&sample()).unwrap();
        let mut earlier = b"PDXD".to_vec();
        earlier.extend_from_slice(&Sample::ENCODING.to_le_bytes());
        earlier.extend_from_slice(blake3::hash(&payload).as_bytes());
        earlier.extend_from_slice(&payload);
        std::fs::write(&path, &earlier).unwrap();
        assert_eq!(derived.load::<Sample>(&scope, &key), None);
        assert!(!path.exists(), "an earlier build's file goes");
        // An empty file (which cannot be mapped) and one cut short are set aside too.
        for cut in [0, HEADER + 3] {
            derived.save(&scope, &key, &sample());
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert_eq!(derived.load::<Sample>(&scope, &key), None);
            assert!(!path.exists(), "a file of {cut} bytes goes");
        }
        // A value saved over one read back before reads back as the new one.
        derived.save(&scope, &key, &sample());
        let read = derived.load::<Sample>(&scope, &key);
        assert_eq!(read, Some(sample()));
        assert!(derived.save(&scope, &key, &sample()));
        assert_eq!(derived.load::<Sample>(&scope, &key), read);
    }

    #[test]
    fn a_write_that_cannot_be_made_costs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // The derived directory's place is taken by a file: nothing can be written there.
        std::fs::write(dir.path().join(DERIVED_DIR), b"not a directory").unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, key) = keys(1);
        derived.save(&scope, &key, &sample());
        assert_eq!(derived.load::<Sample>(&scope, &key), None);
    }

    #[test]
    fn a_file_is_held_whole_only_when_its_checksum_and_encoding_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, key) = keys(1);
        assert!(!derived.holds_whole::<Sample>(&scope, &key), "nothing kept");
        derived.save(&scope, &key, &sample());
        assert!(derived.holds_whole::<Sample>(&scope, &key));
        assert!(
            !derived.holds_whole::<Later>(&scope, &key),
            "another encoding"
        );
        derived.save(&scope, &key, &sample());
        let path = derived.file(&scope, &key);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
        assert!(derived.holds(&scope, &key));
        assert!(!derived.holds_whole::<Sample>(&scope, &key), "damaged");
        assert!(!path.exists(), "a damaged file is set aside");
    }

    /// A value holding runs of bytes and words, which its file lends when read back.
    #[derive(Debug, Serialize, Deserialize)]
    struct Lending {
        name: String,
        bytes: HeldBytes,
        words: HeldWords,
    }

    impl Kept for Lending {
        const ENCODING: u32 = 9;
    }

    #[test]
    fn a_value_read_back_holds_runs_its_file_lends_after_the_file_is_replaced_or_gone() {
        let dir = tempfile::tempdir().unwrap();
        let derived = DerivedDir::in_location(dir.path());
        let (scope, key) = keys(1);
        let run: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let numbers: Vec<u32> = (0..3_000).map(|i| i * 7).collect();
        let value = Lending {
            name: "columns".into(),
            bytes: HeldBytes::Own(run.clone().into_boxed_slice()),
            words: HeldWords::of(&numbers),
        };
        assert!(derived.save(&scope, &key, &value));
        let read = derived.load::<Lending>(&scope, &key).unwrap();
        assert_eq!(read.name, "columns");
        assert_eq!(&*read.bytes, run.as_slice());
        assert_eq!(read.words.iter().collect::<Vec<_>>(), numbers);
        // Lent where the file is mapped; copied where it is read whole.
        assert_eq!(
            matches!(read.bytes, HeldBytes::Lent { .. }),
            cfg!(unix),
            "{:?}",
            read.bytes
        );
        // Another value saved in its place (a rename), then the file removed: what was
        // lent still reads as it was, its pages dropped by the read back included.
        let other = Lending {
            name: "other".into(),
            bytes: HeldBytes::Own(vec![7; 10_000].into_boxed_slice()),
            words: HeldWords::of(&[1, 2]),
        };
        assert!(derived.save(&scope, &key, &other));
        assert_eq!(&*read.bytes, run.as_slice());
        std::fs::remove_file(derived.file(&scope, &key)).unwrap();
        assert_eq!(&*read.bytes, run.as_slice());
        assert_eq!(read.words.get(2_999), Some(2_999 * 7));
        // Decoded outside a read back, nothing is lent.
        let bytes = postcard::to_stdvec(&value).unwrap();
        let copied: Lending = postcard::from_bytes(&bytes).unwrap();
        assert!(matches!(copied.bytes, HeldBytes::Own(_)));
    }

    #[test]
    fn texts_read_back_in_order_and_a_bound_past_the_text_reads_as_none() {
        let mut texts = Texts::default();
        assert_eq!(texts.push("stacks.loans"), Some(0));
        assert_eq!(texts.push(""), Some(1));
        assert_eq!(texts.push("é"), Some(2));
        let bytes = postcard::to_stdvec(&texts).unwrap();
        let back: Texts = postcard::from_bytes(&bytes).unwrap();
        let read: Vec<_> = back.iter().collect();
        assert_eq!(read, [Some("stacks.loans"), Some(""), Some("é")]);
        assert_eq!(back.len(), 3);
        let got: Vec<_> = (0..4).map(|n| back.get(n)).collect();
        assert_eq!(got, [Some("stacks.loans"), Some(""), Some("é"), None]);
        let mut cut = back;
        *cut.ends.last_mut().unwrap() -= 1;
        assert_eq!(cut.iter().last(), Some(None), "inside a character");
        assert_eq!(cut.get(2), None, "inside a character");
        *cut.ends.last_mut().unwrap() += 9;
        assert_eq!(cut.iter().last(), Some(None), "past the text");
        assert_eq!(cut.get(2), None, "past the text");
    }
}
