//! The one cache: values derived from print content (a prepared diff, a page cut, a
//! parsed document, get_table_context's overlay), shared by every snapshot and every
//! request. Keys are content digests, so an entry is right for as long as it exists and
//! never needs invalidating; the one eviction rule is least-recently-used beyond a weight
//! budget. A value that is its scope's current one (a connection's prepared diff or
//! validate_sql catalog: seconds to build on a large print) is held outside the budget
//! instead, and goes when another value of its scope is built. Builds are single-flight:
//! a request arriving while the same key is built waits for that build instead of
//! starting its own. A failed build caches nothing.

use crate::error::Recover;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Weight the cache holds before evicting (estimated bytes of the entries).
pub const DEFAULT_BUDGET: usize = 256 * 1024 * 1024;

/// What an entry is derived from: a kind and a digest of every input that decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    kind: &'static str,
    digest: [u8; 32],
}

impl Key {
    /// A key for `kind` over `parts` (each part length-prefixed, so no two part lists
    /// collide).
    pub fn new<'a>(kind: &'static str, parts: impl IntoIterator<Item = &'a [u8]>) -> Key {
        let mut h = blake3::Hasher::new();
        h.update(kind.as_bytes());
        for part in parts {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        Key {
            kind,
            digest: *h.finalize().as_bytes(),
        }
    }

    /// The digest alone, for a value that records what it was made under.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// What the entry is.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The digest in hex: a file name for the value kept on disk (`store::derived`).
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.digest).to_hex().to_string()
    }
}

type Value = Arc<dyn Any + Send + Sync>;

/// One key's place: its value once built. The slot's own lock is held while building.
#[derive(Default)]
struct Slot {
    value: Mutex<Option<Value>>,
}

impl Slot {
    /// Its value as a `T`, if one is built and no build holds the slot now.
    fn built<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let value = self.value.try_lock().ok()?;
        value.as_ref().and_then(|v| v.clone().downcast::<T>().ok())
    }
}

struct Entry {
    slot: Arc<Slot>,
    /// Counted against the budget; 0 for a scope's current value (never evicted).
    weight: usize,
    used: u64,
    /// The scope whose current value this is, if it is one.
    scope: Option<Key>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<Key, Entry>,
    clock: u64,
    weight: usize,
}

impl Entries {
    /// The next use's time on the cache's own clock (what least-recently-used compares).
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

pub struct Cache {
    entries: Mutex<Entries>,
    budget: usize,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache::with_budget(DEFAULT_BUDGET)
    }
}

impl Cache {
    pub fn with_budget(budget: usize) -> Cache {
        Cache {
            entries: Mutex::default(),
            budget,
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().recover()
    }

    /// The value for `key`, built by `build` when absent. `weight` estimates an entry's
    /// size in bytes for the budget.
    pub fn get_or_build<T, E>(
        &self,
        key: Key,
        weight: impl FnOnce(&T) -> usize,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E>
    where
        T: Send + Sync + 'static,
    {
        self.get_valid_or_build(key, |_| true, weight, build)
    }

    /// The value held for `key`, if one was built: never builds, never waits for a build
    /// under way.
    pub fn peek<T>(&self, key: &Key) -> Option<Arc<T>>
    where
        T: Send + Sync + 'static,
    {
        let slot = {
            let mut entries = self.entries();
            let now = entries.tick();
            let entry = entries.map.get_mut(key)?;
            entry.used = now;
            entry.slot.clone()
        };
        slot.built()
    }

    /// Whether a value is held for `key` (of whatever type; never waits for a build).
    pub fn peek_any(&self, key: &Key) -> bool {
        let slot = self.entries().map.get(key).map(|e| e.slot.clone());
        slot.is_some_and(|slot| slot.value.try_lock().is_ok_and(|v| v.is_some()))
    }

    /// `get_or_build` for an entry whose key cannot name everything it depends on (files
    /// found only while building it): a held value that `valid` rejects is built again
    /// in its place.
    pub fn get_valid_or_build<T, E>(
        &self,
        key: Key,
        valid: impl FnOnce(&T) -> bool,
        weight: impl FnOnce(&T) -> usize,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E>
    where
        T: Send + Sync + 'static,
    {
        self.build_held(key, None, valid, weight, build)
    }

    /// `get_valid_or_build` for the value that is `scope`'s current one: held outside the
    /// weight budget, so that other entries never evict it, until a value under another
    /// key of the same scope is built (the scope's content moved on).
    pub fn current_of_scope<T, E>(
        &self,
        scope: Key,
        key: Key,
        valid: impl FnOnce(&T) -> bool,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E>
    where
        T: Send + Sync + 'static,
    {
        self.build_held(key, Some(scope), valid, |_| 0, build)
    }

    /// The value `scope` holds as its current one (built under whichever key), if any:
    /// never builds, never waits for a build under way.
    pub fn current_in_scope<T>(&self, scope: &Key) -> Option<Arc<T>>
    where
        T: Send + Sync + 'static,
    {
        let slots: Vec<Arc<Slot>> = self
            .entries()
            .map
            .values()
            .filter(|e| e.scope.as_ref() == Some(scope))
            .map(|e| e.slot.clone())
            .collect();
        slots.iter().find_map(|slot| slot.built())
    }

    fn build_held<T, E>(
        &self,
        key: Key,
        scope: Option<Key>,
        valid: impl FnOnce(&T) -> bool,
        weight: impl FnOnce(&T) -> usize,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E>
    where
        T: Send + Sync + 'static,
    {
        let slot = {
            let mut entries = self.entries();
            let now = entries.tick();
            let entry = entries.map.entry(key).or_insert_with(|| Entry {
                slot: Arc::default(),
                weight: 0,
                used: now,
                scope,
            });
            entry.used = now;
            entry.slot.clone()
        };
        let mut value = slot.value.lock().recover();
        if let Some(hit) = value.as_ref().and_then(|v| v.clone().downcast::<T>().ok()) {
            if valid(&hit) {
                return Ok(hit);
            }
        }
        let built = match build() {
            Ok(v) => Arc::new(v),
            Err(e) => {
                drop(value);
                self.forget_unbuilt(&key, &slot);
                return Err(e);
            }
        };
        let w = match scope {
            Some(_) => 0,
            None => weight(&built).max(1),
        };
        *value = Some(built.clone());
        drop(value);
        self.settle(key, &slot, w);
        Ok(built)
    }

    /// Drop `key`'s slot when its build failed and nobody else filled it.
    fn forget_unbuilt(&self, key: &Key, slot: &Arc<Slot>) {
        let mut entries = self.entries();
        let unbuilt = entries.map.get(key).is_some_and(|e| {
            Arc::ptr_eq(&e.slot, slot)
                && e.slot
                    .value
                    .try_lock()
                    .map(|v| v.is_none())
                    .unwrap_or(false)
        });
        if unbuilt {
            entries.map.remove(key);
        }
    }

    /// Account for a built entry, then evict the least recently used until the budget
    /// holds (never the entry just built).
    fn settle(&self, key: Key, slot: &Arc<Slot>, weight: usize) {
        let mut entries = self.entries();
        let Some(entry) = entries
            .map
            .get_mut(&key)
            .filter(|e| Arc::ptr_eq(&e.slot, slot))
        else {
            return;
        };
        let before = std::mem::replace(&mut entry.weight, weight);
        let scope = entry.scope;
        entries.weight = entries.weight + weight - before;
        if let Some(scope) = scope {
            // The scope's previous current value goes, and with it any build of another
            // key under way (that build answers its caller and is not held).
            entries
                .map
                .retain(|k, e| *k == key || e.scope != Some(scope));
        }
        while entries.weight > self.budget {
            let oldest = entries
                .map
                .iter()
                .filter(|(k, e)| **k != key && e.weight > 0)
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| *k);
            let Some(oldest) = oldest else { break };
            if let Some(gone) = entries.map.remove(&oldest) {
                entries.weight -= gone.weight;
            }
        }
    }

    /// Entries held and their total weight.
    pub fn usage(&self) -> (usize, usize) {
        let entries = self.entries();
        (entries.map.len(), entries.weight)
    }
}

/// An estimate of a parsed value's size in memory, for entries' weights.
pub fn value_weight(v: &compat::value::Value) -> usize {
    use compat::value::Value;
    match v {
        Value::Str(s) => 32 + s.len(),
        Value::Seq(items) => 32 + items.iter().map(value_weight).sum::<usize>(),
        Value::Map(pairs) => {
            32 + pairs
                .iter()
                .map(|(k, v)| value_weight(k) + value_weight(v))
                .sum::<usize>()
        }
        _ => 32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn key(n: u8) -> Key {
        Key::new("test", [[n].as_slice()])
    }

    #[test]
    fn a_hit_is_not_built_again() {
        let cache = Cache::default();
        let builds = AtomicUsize::new(0);
        for _ in 0..3 {
            let v: Arc<String> = cache
                .get_or_build(
                    key(1),
                    |s: &String| s.len(),
                    || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, ()>("one".to_string())
                    },
                )
                .unwrap();
            assert_eq!(*v, "one");
        }
        assert_eq!(builds.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_scopes_current_value_outlives_the_budget_until_its_scope_moves_on() {
        let cache = Cache::with_budget(20);
        let builds = AtomicUsize::new(0);
        let current = |n: u8| {
            cache
                .current_of_scope(
                    key(100),
                    key(n),
                    |_| true,
                    || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, ()>(n)
                    },
                )
                .unwrap()
        };
        assert_eq!(*current(1), 1);
        // Entries past the budget evict one another, never the scope's current value.
        for n in 10..15 {
            cache
                .get_or_build(key(n), |_| 15, || Ok::<_, ()>(n))
                .unwrap();
        }
        assert_eq!(*current(1), 1);
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        assert_eq!(cache.current_in_scope::<u8>(&key(100)).as_deref(), Some(&1));
        assert!(cache.current_in_scope::<u8>(&key(101)).is_none());
        // A value under another key of the scope replaces it.
        assert_eq!(*current(2), 2);
        assert_eq!(cache.current_in_scope::<u8>(&key(100)).as_deref(), Some(&2));
        assert_eq!(*current(1), 1);
        assert_eq!(builds.load(Ordering::SeqCst), 3);
        // Another scope's current value is its own.
        cache
            .current_of_scope(key(101), key(3), |_| true, || Ok::<_, ()>(3u8))
            .unwrap();
        assert_eq!(*current(1), 1);
        assert_eq!(builds.load(Ordering::SeqCst), 3);
        assert_eq!(cache.usage(), (3, 15));
    }

    #[test]
    fn a_failed_build_caches_nothing() {
        let cache = Cache::default();
        let failed: Result<Arc<u32>, &str> = cache.get_or_build(key(2), |_| 4, || Err("no"));
        assert_eq!(failed.unwrap_err(), "no");
        assert_eq!(cache.usage().0, 0);
        let v = cache
            .get_or_build(key(2), |_| 4, || Ok::<_, ()>(7u32))
            .unwrap();
        assert_eq!(*v, 7);
    }

    #[test]
    fn the_least_recently_used_goes_first() {
        let cache = Cache::with_budget(20);
        let put = |n: u8| {
            cache
                .get_or_build(key(n), |_| 10, || Ok::<_, ()>(n))
                .unwrap()
        };
        put(1);
        put(2);
        put(1); // 1 is now newer than 2
        put(3); // over budget: 2 goes
        let (held, weight) = cache.usage();
        assert_eq!((held, weight), (2, 20));
        let builds = AtomicUsize::new(0);
        let again = |n: u8| {
            cache
                .get_or_build(
                    key(n),
                    |_| 10,
                    || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, ()>(n)
                    },
                )
                .unwrap()
        };
        again(1);
        again(3);
        assert_eq!(builds.load(Ordering::SeqCst), 0, "1 and 3 stayed");
        again(2);
        assert_eq!(builds.load(Ordering::SeqCst), 1, "2 was evicted");
    }

    #[test]
    fn concurrent_requests_for_one_key_build_once() {
        let cache = Arc::new(Cache::default());
        let builds = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (cache, builds) = (cache.clone(), builds.clone());
                std::thread::spawn(move || {
                    cache
                        .get_or_build(
                            key(9),
                            |_| 1,
                            || {
                                builds.fetch_add(1, Ordering::SeqCst);
                                std::thread::sleep(std::time::Duration::from_millis(20));
                                Ok::<_, ()>(9u8)
                            },
                        )
                        .unwrap()
                })
            })
            .collect();
        for h in handles {
            assert_eq!(*h.join().unwrap(), 9);
        }
        assert_eq!(builds.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn an_invalid_hit_is_built_again() {
        let cache = Cache::default();
        let first = cache
            .get_or_build(key(5), |_| 1, || Ok::<_, ()>(1u8))
            .unwrap();
        assert_eq!(*first, 1);
        let kept = cache
            .get_valid_or_build(key(5), |v: &u8| *v == 1, |_| 1, || Ok::<_, ()>(2u8))
            .unwrap();
        assert_eq!(*kept, 1, "a valid hit is kept");
        let rebuilt = cache
            .get_valid_or_build(key(5), |v: &u8| *v == 2, |_| 1, || Ok::<_, ()>(2u8))
            .unwrap();
        assert_eq!(*rebuilt, 2, "an invalid hit is replaced");
        assert_eq!(cache.usage(), (1, 1));
    }

    #[test]
    fn keys_of_other_parts_differ() {
        assert_ne!(
            Key::new("k", [b"ab".as_slice(), b"c"]),
            Key::new("k", [b"a".as_slice(), b"bc"])
        );
        assert_ne!(
            Key::new("k", [b"a".as_slice()]),
            Key::new("j", [b"a".as_slice()])
        );
    }
}
