//! What the index holds of each file one connection tracks, by path: the identity the file
//! had when the mirror stored it (none: the print declares it, but it is absent) and its
//! content hash. One entry per file with its path held once: at 100,000 tables a
//! connection tracks 350,000 files, and two maps keyed by path (identities, hashes) with
//! each hash as hex text held about twice the room.
//!
//! Paths are keyed by their bytes in one spelling (`normal`): `Path`'s own `Hash` and
//! `Eq` go component by component, and hashing paths that way was about a third of the
//! samples of a start's reconcile at 100,000 tables (every path is hashed several times).

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use hashbrown::{Equivalent, HashMap};

use crate::error::Recover;
use crate::ingest::FileIdentity;

/// A file's blake3 content hash: the version that pins pages and cursors (spelled as hex).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentHash([u8; 32]);

impl ContentHash {
    /// The hash spelled as ingest and the mirror spell it (`None`: not 64 hex digits).
    pub fn from_hex(hex: &str) -> Option<ContentHash> {
        blake3::Hash::from_hex(hex)
            .ok()
            .map(|h| ContentHash(*h.as_bytes()))
    }

    /// The hash whose bytes are `bytes`.
    pub fn from_bytes(bytes: [u8; 32]) -> ContentHash {
        ContentHash(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> ContentHash {
        ContentHash(*blake3::hash(bytes).as_bytes())
    }

    /// As 64 lowercase hex digits, without allocating.
    pub fn hex(&self) -> impl std::ops::Deref<Target = str> {
        blake3::Hash::from_bytes(self.0).to_hex()
    }
}

impl std::fmt::Debug for ContentHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

impl std::fmt::Display for ContentHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

/// One tracked file.
#[derive(Clone, Copy, Debug)]
pub struct Tracked {
    /// Its identity when stored; `None`: declared, and absent.
    pub identity: Option<FileIdentity>,
    /// Its content hash (`None` for an absent file).
    pub hash: Option<ContentHash>,
}

/// Every file a connection tracks, by path. Cloning shares the paths (`Arc<Path>`), so a
/// writer's copy of a snapshot's map costs its entries, not its paths again.
///
/// A map read back from a start's image is made beside the start rather than before its
/// end ([`FileMap::made_later`]): at 100,000 tables making it takes over a hundred
/// milliseconds, and the first calls after a start (a search's sweep) need the tables'
/// entries, not the map. Its first use waits for it.
#[derive(Clone, Default)]
pub struct FileMap {
    files: Entries,
}

type Map = HashMap<Key, Tracked>;

/// The map, or one being made.
#[derive(Clone)]
enum Entries {
    Made(Map),
    /// Shared by the clones made before it is used: each takes it once made.
    Making(Arc<Making>),
}

impl Default for Entries {
    fn default() -> Entries {
        Entries::Made(Map::default())
    }
}

/// A lookup that would wait for a map being made (see [`FileMap::get_made`]).
#[derive(Debug, PartialEq, Eq)]
pub struct NotMade;

/// A map made once, by whichever comes first: the thread started to make it, or a use.
struct Making {
    made: OnceLock<Map>,
    make: Mutex<Option<MakeMap>>,
    /// A few entries the made map holds as they are here, known before it is made (a
    /// start's manifest, whose hash names what the start keeps): read without waiting.
    known: Map,
}

type MakeMap = Box<dyn FnOnce() -> FileMap + Send>;

impl Making {
    fn map(&self) -> &Map {
        self.made.get_or_init(|| {
            let make = self.make.lock().recover().take();
            // `get_or_init` runs this once, unless a make panicked (it only allocates):
            // never answer from a map that is not whole.
            let make = make.expect("a file map's making panicked before");
            make().into_map()
        })
    }
}

/// A tracked path as the map holds it: in its normal spelling, hashed and compared as
/// its bytes.
#[derive(Clone)]
struct Key(Arc<Path>);

/// A path looked up, in its normal spelling.
struct Lookup<'a>(&'a [u8]);

fn bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        bytes(&self.0).hash(h)
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        bytes(&self.0) == bytes(&other.0)
    }
}

impl Eq for Key {}

impl Hash for Lookup<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}

impl Equivalent<Key> for Lookup<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.0 == bytes(&key.0)
    }
}

/// `path` in the one spelling that two paths `Path` holds equal share: as its components
/// join again. A path already so spelled (every path the store makes, on Unix) is taken
/// as it is, without going through its components.
fn normal(path: &Path) -> Cow<'_, Path> {
    if spelled_normally(bytes(path)) {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(path.components().collect())
    }
}

/// Whether joining `path`'s components again would give back the same bytes: no doubled
/// separator, no `.` after the first component, no separator at the end (but the root's).
#[cfg(unix)]
fn spelled_normally(path: &[u8]) -> bool {
    // Only what follows each separator decides. A byte loop: a path is a few dozen bytes,
    // too short for a vector search to set up for each separator.
    let separators = (0..path.len()).filter(|&at| path[at] == b'/');
    for at in separators {
        match (path.get(at + 1), path.get(at + 2)) {
            // `//`, `/./`, or `/.` at the end.
            (Some(b'/'), _) | (Some(b'.'), None | Some(b'/')) => return false,
            // A separator at the end, but the root's.
            (None, _) => return at == 0,
            _ => {}
        }
    }
    true
}

/// Elsewhere either separator, and prefixes, are spelled more than one way: always
/// through the components.
#[cfg(not(unix))]
fn spelled_normally(_path: &[u8]) -> bool {
    false
}

impl FileMap {
    pub fn with_capacity(n: usize) -> FileMap {
        FileMap {
            files: Entries::Made(Map::with_capacity(n)),
        }
    }

    /// The map `make` makes, made on a thread of its own from now on; a use before it
    /// is made waits for it (or makes it, when the thread could not start), but for a
    /// lookup of a path `known` tracks: `known`'s entries must be the made map's.
    ///
    /// The thread keeps the calls' priority, as a call may wait for it (a lower one left
    /// a first validate_sql waiting 120 ms behind two searches); `make` gives way to the
    /// calls' sweeps instead (`background::GiveWay`).
    pub fn made_later(known: FileMap, make: impl FnOnce() -> FileMap + Send + 'static) -> FileMap {
        let making = Arc::new(Making {
            made: OnceLock::new(),
            make: Mutex::new(Some(Box::new(make))),
            known: known.into_map(),
        });
        let beside = making.clone();
        let started = std::thread::Builder::new()
            .name("printdex-files".into())
            .spawn(move || {
                beside.map();
            });
        if let Err(e) = started {
            tracing::debug!(error = %e, "the file map is made at its first use");
        }
        FileMap {
            files: Entries::Making(making),
        }
    }

    fn into_map(self) -> Map {
        match self.files {
            Entries::Made(map) => map,
            Entries::Making(making) => match Arc::try_unwrap(making) {
                Ok(making) => {
                    making.map();
                    making.made.into_inner().unwrap_or_default()
                }
                Err(shared) => shared.map().clone(),
            },
        }
    }

    fn map(&self) -> &Map {
        match &self.files {
            Entries::Made(map) => map,
            Entries::Making(making) => making.map(),
        }
    }

    /// The map to change: one being made is waited for and taken (copied when another
    /// clone still shares it).
    fn map_mut(&mut self) -> &mut Map {
        if let Entries::Making(_) = self.files {
            let files = std::mem::take(&mut self.files);
            self.files = Entries::Made(FileMap { files }.into_map());
        }
        match &mut self.files {
            Entries::Made(map) => map,
            Entries::Making(_) => unreachable!("taken just above"),
        }
    }

    /// How many files it tracks, absent ones included.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.map().is_empty()
    }

    pub fn get(&self, path: &Path) -> Option<&Tracked> {
        let path = normal(path);
        let key = Lookup(bytes(&path));
        (self.get_now(&key)).unwrap_or_else(|NotMade| self.map().get(&key))
    }

    /// What the map holds of `path` (`Ok(None)`: untracked), unless that means waiting
    /// for a map being made (`Err(NotMade)`).
    pub fn get_made(&self, path: &Path) -> Result<Option<&Tracked>, NotMade> {
        let path = normal(path);
        self.get_now(&Lookup(bytes(&path)))
    }

    /// `key`'s entry as far as it can be had without waiting: from the map, or from a
    /// map being made, its known entries, then the map once made.
    fn get_now(&self, key: &Lookup) -> Result<Option<&Tracked>, NotMade> {
        match &self.files {
            Entries::Made(map) => Ok(map.get(key)),
            Entries::Making(making) => match making.known.get(key) {
                Some(known) => Ok(Some(known)),
                None => making.made.get().map(|map| map.get(key)).ok_or(NotMade),
            },
        }
    }

    /// `path` as the map holds it, shared (`None`: untracked): a reader that keeps the path
    /// keeps no copy of it.
    pub fn shared_path(&self, path: &Path) -> Option<Arc<Path>> {
        let path = normal(path);
        self.map()
            .get_key_value(&Lookup(bytes(&path)))
            .map(|(k, _)| k.0.clone())
    }

    /// The identity `path` had when stored (`None`: untracked, or absent).
    pub fn identity(&self, path: &Path) -> Option<FileIdentity> {
        self.get(path)?.identity
    }

    /// The content hash of `path` (`None`: untracked, or absent).
    pub fn hash(&self, path: &Path) -> Option<ContentHash> {
        self.get(path)?.hash
    }

    /// Whether `path` is present with content: a file this state read.
    pub fn has_content(&self, path: &Path) -> bool {
        self.hash(path).is_some()
    }

    /// Whether `path` is tracked as declared but absent.
    pub fn is_absent(&self, path: &Path) -> bool {
        self.get(path).is_some_and(|t| t.identity.is_none())
    }

    /// Whether `path` is tracked at all (present or absent).
    pub fn tracks(&self, path: &Path) -> bool {
        self.get(path).is_some()
    }

    /// Track `path` as present with `identity` and `hash`, or (identity `None`) absent.
    /// An absent file has no content: its hash is dropped. Returns what was tracked before.
    pub fn set(
        &mut self,
        path: &Path,
        identity: Option<FileIdentity>,
        hash: Option<ContentHash>,
    ) -> Option<Tracked> {
        let tracked = Tracked {
            hash: identity.and(hash),
            identity,
        };
        let path = normal(path);
        let files = self.map_mut();
        match files.get_mut(&Lookup(bytes(&path))) {
            Some(slot) => Some(std::mem::replace(slot, tracked)),
            None => {
                files.insert(Key(Arc::from(path.as_ref())), tracked);
                None
            }
        }
    }

    /// [`FileMap::set`] with the path given shared: held as it is when spelled normally
    /// (a reader holding it then shares it with the map), copied otherwise.
    pub fn set_shared(
        &mut self,
        path: Arc<Path>,
        identity: Option<FileIdentity>,
        hash: Option<ContentHash>,
    ) -> Option<Tracked> {
        if !spelled_normally(bytes(&path)) {
            return self.set(&path, identity, hash);
        }
        let tracked = Tracked {
            hash: identity.and(hash),
            identity,
        };
        let files = self.map_mut();
        match files.get_mut(&Lookup(bytes(&path))) {
            Some(slot) => Some(std::mem::replace(slot, tracked)),
            None => {
                files.insert(Key(path), tracked);
                None
            }
        }
    }

    /// Every tracked path with what is tracked of it, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&Arc<Path>, &Tracked)> {
        self.map().iter().map(|(k, t)| (&k.0, t))
    }

    /// Every path tracked as present, with its identity.
    pub fn present(&self) -> impl Iterator<Item = (&Path, FileIdentity)> {
        self.map()
            .iter()
            .filter_map(|(p, t)| Some((&*p.0, t.identity?)))
    }

    /// Every path tracked as absent.
    pub fn absent(&self) -> impl Iterator<Item = &Path> {
        self.map()
            .iter()
            .filter(|(_, t)| t.identity.is_none())
            .map(|(p, _)| &*p.0)
    }

    /// Every file with content, with its hash.
    pub fn hashed(&self) -> impl Iterator<Item = (&Path, ContentHash)> {
        self.map()
            .iter()
            .filter_map(|(p, t)| Some((&*p.0, t.hash?)))
    }
}

/// What a map holds, as a scan compares the disk with it (it holds no parses).
impl crate::ingest::Stored for FileMap {
    fn identity(&self, path: &Path) -> Option<FileIdentity> {
        FileMap::identity(self, path)
    }

    fn parsed(&self, _: &Path) -> Option<crate::ingest::Parsed> {
        None
    }

    fn hash(&self, path: &Path) -> Option<String> {
        FileMap::hash(self, path).map(|h| h.to_string())
    }

    fn absent(&self, path: &Path) -> bool {
        self.is_absent(path)
    }
}

impl std::fmt::Debug for FileMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileMap")
            .field("files", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(inode: u64) -> FileIdentity {
        FileIdentity {
            mtime_ns: 1,
            size: 2,
            inode,
            settled: true,
        }
    }

    #[test]
    fn a_hash_reads_back_as_the_hex_it_was_spelled_in() {
        let hex = blake3::hash(b"tables: {}").to_hex().to_string();
        let hash = ContentHash::from_hex(&hex).unwrap();
        assert_eq!(&*hash.hex(), hex);
        assert_eq!(hash.to_string(), hex);
        assert_eq!(hash, ContentHash::of(b"tables: {}"));
        for bad in ["", "xyz", &hex[..63], &format!("{hex}0")] {
            assert_eq!(ContentHash::from_hex(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_file_is_present_absent_or_untracked() {
        let (a, b, c) = (Path::new("/p/a"), Path::new("/p/b"), Path::new("/p/c"));
        let h = ContentHash::of(b"a");
        let mut map = FileMap::default();
        assert!(map.set(a, Some(identity(1)), Some(h)).is_none());
        // An absent file keeps no hash, whatever it is handed.
        map.set(b, None, Some(h));
        assert_eq!((map.identity(a), map.hash(a)), (Some(identity(1)), Some(h)));
        assert!(map.has_content(a) && !map.is_absent(a) && map.tracks(a));
        assert!(!map.has_content(b) && map.is_absent(b) && map.tracks(b));
        assert!(!map.has_content(c) && !map.is_absent(c) && !map.tracks(c));
        assert_eq!(map.hash(b), None);
        assert_eq!(map.absent().collect::<Vec<_>>(), vec![b]);
        assert_eq!(map.present().collect::<Vec<_>>(), vec![(a, identity(1))]);
        assert_eq!(map.hashed().collect::<Vec<_>>(), vec![(a, h)]);

        // A file that appears, and one that goes.
        let before = map.set(b, Some(identity(2)), Some(h)).unwrap();
        assert_eq!(before.identity, None);
        assert_eq!(map.set(a, None, None).unwrap().hash, Some(h));
        assert_eq!(map.len(), 2);
        assert_eq!(map.absent().collect::<Vec<_>>(), vec![a]);
    }

    #[test]
    fn a_map_made_later_answers_as_the_map_made_and_a_known_entry_without_waiting() {
        let (manifest, a, b) = (Path::new("/p/m"), Path::new("/p/a"), Path::new("/p/b"));
        let h = ContentHash::of(b"m");
        let mut known = FileMap::default();
        known.set(manifest, Some(identity(9)), Some(h));
        let (release, held) = std::sync::mpsc::channel::<()>();
        let map = FileMap::made_later(known, move || {
            // Made only once the test says so: until then a use must not need it.
            held.recv().unwrap();
            let mut made = FileMap::default();
            made.set(manifest, Some(identity(9)), Some(h));
            made.set(a, Some(identity(1)), Some(h));
            made.set(b, None, None);
            made
        });
        assert_eq!(
            map.hash(manifest),
            Some(h),
            "the known entry, answered at once"
        );
        assert_eq!(map.get_made(manifest).unwrap().unwrap().hash, Some(h));
        assert_eq!(
            map.get_made(a).unwrap_err(),
            NotMade,
            "not made: said, not waited"
        );
        let copy = map.clone();
        release.send(()).unwrap();
        assert_eq!(map.len(), 3, "a use waits for the map");
        assert_eq!(
            (map.identity(a), map.is_absent(b)),
            (Some(identity(1)), true)
        );
        assert_eq!(
            map.get_made(a).unwrap().unwrap().identity,
            Some(identity(1))
        );
        assert!(map.get_made(Path::new("/p/none")).unwrap().is_none());
        let mut paths: Vec<_> = map.iter().map(|(p, _)| p.to_path_buf()).collect();
        paths.sort();
        assert_eq!(paths, [a, b, manifest]);

        // A clone changed is its own: the map it was cloned from keeps what it held.
        let mut changed = copy;
        changed.set(a, None, None);
        changed.set(Path::new("/p/c"), Some(identity(3)), None);
        assert_eq!((changed.len(), changed.is_absent(a)), (4, true));
        assert_eq!((map.len(), map.identity(a)), (3, Some(identity(1))));
        let shared = map.shared_path(a).unwrap();
        assert_eq!(&*shared, a);
    }

    #[test]
    fn a_map_made_later_and_used_by_no_one_else_is_taken_whole_to_be_changed() {
        let map = FileMap::made_later(FileMap::default(), || {
            let mut made = FileMap::default();
            made.set(Path::new("/p/a"), Some(identity(1)), None);
            made
        });
        let mut map = map;
        map.set(Path::new("/p/b"), Some(identity(2)), None);
        assert_eq!(map.len(), 2);
        assert!(matches!(map.files, Entries::Made(_)));
    }

    #[cfg(unix)]
    #[test]
    fn a_path_is_spelled_normally_exactly_when_its_components_join_back_to_it() {
        for spelled in [
            "",
            "/",
            "//",
            ".",
            "./",
            ".//a",
            "./a",
            "a",
            "a/",
            "a/.",
            "a/.b",
            "a/..",
            "a/./b",
            "a//b",
            "/.",
            "/./a",
            "/a/",
            "/a/b/statistics.yaml",
            "/a/b/.hidden",
            "/a/../b",
            "//a",
            "a/b/./",
            "a/b/.",
        ] {
            let joined: std::path::PathBuf = Path::new(spelled).components().collect();
            assert_eq!(
                spelled_normally(spelled.as_bytes()),
                bytes(&joined) == spelled.as_bytes(),
                "{spelled:?}"
            );
        }
    }

    #[test]
    fn a_path_is_found_however_it_is_spelled_as_path_holds_it_equal() {
        let mut map = FileMap::default();
        map.set(
            Path::new("/p/db/t/statistics.yaml"),
            Some(identity(1)),
            None,
        );
        for spelled in [
            "/p/db/t/statistics.yaml",
            "/p//db/t/statistics.yaml",
            "/p/./db/t/statistics.yaml",
            "/p/db/t/./statistics.yaml",
            "//p/db/t/statistics.yaml",
        ] {
            assert_eq!(Path::new(spelled), Path::new("/p/db/t/statistics.yaml"));
            assert!(map.tracks(Path::new(spelled)), "{spelled}");
            assert_eq!(map.identity(Path::new(spelled)), Some(identity(1)));
        }
        for other in [
            "/p/db/t/statistics.yam",
            "/p/db/t/../t/statistics.yaml",
            "p/db/t/statistics.yaml",
        ] {
            assert_ne!(Path::new(other), Path::new("/p/db/t/statistics.yaml"));
            assert!(!map.tracks(Path::new(other)), "{other}");
        }
        // Set under another spelling: the same entry, held in the normal one.
        map.set(
            Path::new("/p/db//t/statistics.yaml"),
            Some(identity(2)),
            None,
        );
        assert_eq!(map.len(), 1);
        assert_eq!(
            map.identity(Path::new("/p/db/t/statistics.yaml")),
            Some(identity(2))
        );
        let dir = Path::new("/p/db/t/");
        map.set(dir, None, None);
        assert!(map.tracks(Path::new("/p/db/t")) && map.tracks(Path::new("/p/db/t/.")));
        assert_eq!(map.len(), 2);
        assert!(map.iter().all(|(p, _)| spelled_normally(bytes(p))));
    }

    #[test]
    fn a_clone_shares_its_paths() {
        let mut map = FileMap::default();
        map.set(Path::new("/p/a"), Some(identity(1)), None);
        let copy = map.clone();
        let (mine, _) = map.iter().next().unwrap();
        let (theirs, _) = copy.iter().next().unwrap();
        assert!(Arc::ptr_eq(mine, theirs));
        // A reader asking for a tracked path gets the map's own.
        let shared = copy.shared_path(Path::new("/p/a")).unwrap();
        assert!(Arc::ptr_eq(mine, &shared));
        assert!(map.shared_path(Path::new("/p/b")).is_none());
    }
}
