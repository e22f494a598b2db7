//! Runs of bytes and of words that a value read back from a kept file holds without
//! copying them. While [`super::DerivedDir`] decodes a mapped file, each [`HeldBytes`] and
//! [`HeldWords`] the value holds borrows its run from the mapping ([`lending`]); the file
//! then stays mapped for as long as one is held, its pages shared with every process that
//! reads it (three sessions on one 100,000-table print hold validate_sql's catalog and
//! get_diff's prepared diff once between them, not once each). Elsewhere (a value built
//! in memory, a file read whole on Windows) they hold their own bytes.
//!
//! A kept file is only ever replaced by a rename, never written in place, so a lent run
//! never changes under its holder; a file removed or renamed over stays mapped until its
//! last run goes.

use std::cell::RefCell;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::KeptBytes;

thread_local! {
    /// The mapped file this thread is decoding, while it lends its runs (`lending`).
    static LENDER: RefCell<Option<Arc<KeptBytes>>> = const { RefCell::new(None) };
}

/// `decode`, with the runs of `file` it reads into [`HeldBytes`] and [`HeldWords`] lent
/// by the file rather than copied.
pub(super) fn lending<T>(file: &Arc<KeptBytes>, decode: impl FnOnce() -> T) -> T {
    /// Puts back the lender before this one however `decode` ends.
    struct Done(Option<Arc<KeptBytes>>);
    impl Drop for Done {
        fn drop(&mut self) {
            LENDER.with(|l| *l.borrow_mut() = self.0.take());
        }
    }
    let _done = Done(LENDER.with(|l| l.borrow_mut().replace(Arc::clone(file))));
    decode()
}

/// `part` held: lent by the file being decoded when it is mapped and `part` lies in it,
/// else copied.
fn held(part: &[u8]) -> HeldBytes {
    LENDER.with(|l| match l.borrow().as_ref() {
        Some(file) if file.is_mapped() => lent(file, part),
        _ => HeldBytes::Own(part.into()),
    })
}

fn lent(file: &Arc<KeptBytes>, part: &[u8]) -> HeldBytes {
    let start = (part.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
    let within = start <= file.len() && part.len() <= file.len() - start;
    match (within, u32::try_from(start), u32::try_from(part.len())) {
        (true, Ok(start), Ok(len)) => HeldBytes::Lent {
            file: Arc::clone(file),
            start,
            len,
        },
        _ => HeldBytes::Own(part.into()),
    }
}

/// Bytes a value holds: its own, or a run of the kept file it was read back from.
#[derive(Clone)]
pub enum HeldBytes {
    Own(Box<[u8]>),
    Lent {
        file: Arc<KeptBytes>,
        start: u32,
        len: u32,
    },
}

impl std::ops::Deref for HeldBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            HeldBytes::Own(bytes) => bytes,
            HeldBytes::Lent { file, start, len } => {
                &file[*start as usize..*start as usize + *len as usize]
            }
        }
    }
}

impl Default for HeldBytes {
    fn default() -> HeldBytes {
        HeldBytes::Own(Box::default())
    }
}

impl std::fmt::Debug for HeldBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = match self {
            HeldBytes::Own(_) => "own",
            HeldBytes::Lent { .. } => "lent",
        };
        write!(f, "HeldBytes({held}, {} bytes)", self.len())
    }
}

/// Written as one run of bytes.
impl Serialize for HeldBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self)
    }
}

/// Read as one run of bytes: lent where the decoder lends them from a file being decoded
/// ([`lending`]), copied otherwise.
impl<'de> Deserialize<'de> for HeldBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HeldBytes, D::Error> {
        struct Run;
        impl<'de> serde::de::Visitor<'de> for Run {
            type Value = HeldBytes;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a run of bytes")
            }

            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<HeldBytes, E> {
                Ok(held(v))
            }

            fn visit_bytes<E>(self, v: &[u8]) -> Result<HeldBytes, E> {
                Ok(HeldBytes::Own(v.into()))
            }

            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<HeldBytes, E> {
                Ok(HeldBytes::Own(v.into_boxed_slice()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HeldBytes, A::Error> {
                let mut bytes = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                Ok(HeldBytes::Own(bytes.into_boxed_slice()))
            }
        }
        d.deserialize_bytes(Run)
    }
}

/// A run of `u32`s a value holds as little-endian bytes ([`HeldBytes`]): read back from a
/// mapped file, a look-up reads its word where it lies. Kept as `derived::u32_run` keeps
/// a `Vec<u32>`, so either reads the other's bytes.
#[derive(Clone, Default, Debug)]
pub struct HeldWords(HeldBytes);

impl HeldWords {
    pub fn of(words: &[u32]) -> HeldWords {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        HeldWords(HeldBytes::Own(bytes.into_boxed_slice()))
    }

    pub fn len(&self) -> usize {
        self.0.len() / 4
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Word `i` (`None`: past the last).
    pub fn get(&self, i: usize) -> Option<u32> {
        let bytes = self.0.get(4 * i..4 * i + 4)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    }

    /// Words `from..to`, as far as there are.
    pub fn range(&self, from: usize, to: usize) -> impl Iterator<Item = u32> + '_ {
        let bytes = self
            .0
            .get(4 * from..4 * to.min(self.len()))
            .unwrap_or_default();
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.range(0, self.len())
    }
}

impl Serialize for HeldWords {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for HeldWords {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HeldWords, D::Error> {
        let bytes = HeldBytes::deserialize(d)?;
        if !bytes.len().is_multiple_of(4) {
            return Err(serde::de::Error::invalid_length(
                bytes.len(),
                &"whole words",
            ));
        }
        Ok(HeldWords(bytes))
    }
}

/// Texts one after another with where each ends, as [`super::Texts`] keeps them (in the
/// same bytes), held as runs: lent by a mapped file a value is read back from.
#[derive(Clone, Default, Debug, Serialize, Deserialize)]
pub struct HeldTexts {
    text: HeldBytes,
    ends: HeldWords,
}

impl HeldTexts {
    pub fn of(texts: &super::Texts) -> HeldTexts {
        HeldTexts {
            text: HeldBytes::Own(texts.text.as_bytes().into()),
            ends: HeldWords::of(&texts.ends),
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Text `i` (`None`: past the last, or bounds or bytes that make no text).
    pub fn get(&self, i: usize) -> Option<&str> {
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1)? as usize,
        };
        let end = self.ends.get(i)? as usize;
        std::str::from_utf8(self.text.get(start..end)?).ok()
    }

    /// What the texts weigh in memory, roughly.
    pub fn weight(&self) -> usize {
        self.text.len() + 4 * self.ends.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_where_they_lie_and_refuse_a_torn_run() {
        let words = HeldWords::of(&[1, u32::MAX, 70_000, 0]);
        assert_eq!(words.len(), 4);
        assert_eq!(words.get(2), Some(70_000));
        assert_eq!(words.get(4), None);
        assert_eq!(words.range(1, 3).collect::<Vec<_>>(), [u32::MAX, 70_000]);
        assert_eq!(words.range(3, 9).collect::<Vec<_>>(), [0], "cut at the end");
        assert_eq!(words.range(5, 9).count(), 0);
        let bytes = postcard::to_stdvec(&words).unwrap();
        // The same bytes as `u32_run` keeps a `Vec<u32>` in.
        #[derive(Serialize)]
        struct Run(#[serde(with = "super::super::u32_run")] Vec<u32>);
        assert_eq!(
            postcard::to_stdvec(&Run(vec![1, u32::MAX, 70_000, 0])).unwrap(),
            bytes
        );
        let back: HeldWords = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), [1, u32::MAX, 70_000, 0]);
        assert!(
            matches!(back.0, HeldBytes::Own(_)),
            "no file lends outside a decode"
        );
        let torn = postcard::to_stdvec(&serde_bytes::Bytes::new(&[1, 2, 3])).unwrap();
        assert!(postcard::from_bytes::<HeldWords>(&torn).is_err());
    }

    #[test]
    fn held_texts_read_the_bytes_texts_are_kept_in() {
        let mut texts = super::super::Texts::default();
        for t in ["stacks.loans", "", "é", "z"] {
            texts.push(t);
        }
        let held = HeldTexts::of(&texts);
        let got: Vec<_> = (0..5).map(|i| held.get(i)).collect();
        assert_eq!(
            got,
            [Some("stacks.loans"), Some(""), Some("é"), Some("z"), None]
        );
        let kept = postcard::to_stdvec(&texts).unwrap();
        assert_eq!(postcard::to_stdvec(&held).unwrap(), kept);
        let back: HeldTexts = postcard::from_bytes(&kept).unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(back.get(2), Some("é"));
        // Bounds inside a character make no text.
        let cut = HeldTexts {
            text: HeldBytes::Own("é".as_bytes().into()),
            ends: HeldWords::of(&[1, 2]),
        };
        assert_eq!(cut.get(0), None);
    }
}
