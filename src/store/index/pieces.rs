//! The table of a cache file read a piece at a time, as the reads first touch it.
//!
//! At 1 000 000 beads a table file is about 96 MB, and a query such as `ready` reads a
//! few columns of it and the strings of the rows it prints. Read whole, three quarters
//! of the query went to the kernel zeroing and filling memory for the rest. Read a
//! piece at a time, a query costs the pieces it touches: each is read from the open
//! file when first asked for and checked against its checksum (kept before the table,
//! see [`super::file::write_part`]); a damaged piece reads as nothing and is counted in
//! [`super::damage_seen`].
//!
//! The file stays open while the pieces are kept, so a piece read late comes from the
//! same file as the first, even if a newer one has taken its name since (cache files
//! are only ever replaced whole, never written in place).

use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

/// How many bytes of a table one checksum covers: a read that touches a few rows
/// reads and checks a few pieces of this size, not the whole file.
pub(super) const CHECKED_PIECE: usize = 16 << 10;

/// The checksum of each [`CHECKED_PIECE`] of `bytes`, in order.
pub(super) fn piece_sums(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(CHECKED_PIECE).map(crc32fast::hash).collect()
}

/// How many damaged pieces reads came upon in this process.
static DAMAGED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many damaged pieces of a cache file reads came upon in this process so far: a
/// reader that reads a table a piece at a time compares it before and after.
pub fn damage_seen() -> usize {
    DAMAGED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Held by each test that damages a table, or that needs no damage counted while it
/// runs: the count is the process's, and tests run side by side in one process.
#[cfg(test)]
pub(crate) fn damage_counted_alone() -> std::sync::MutexGuard<'static, ()> {
    static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ALONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Counts a damaged piece in [`damage_seen`].
pub(super) fn count_damage() {
    DAMAGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// The last section of a cache file, read a piece of [`CHECKED_PIECE`] bytes at a time.
pub(super) struct Pieces {
    file: Mutex<std::fs::File>,
    /// Where the section starts in the file.
    start: u64,
    len: usize,
    /// The checksum of each piece.
    sums: Vec<u32>,
    /// Each piece once read: empty when it is damaged or could not be read.
    read: Vec<OnceLock<Box<[u8]>>>,
    /// Bytes that start in a piece and run on into the next, joined once asked for
    /// (where they start, and the bytes: none when a piece they touch is damaged).
    /// Only one string of a table can start in a piece and leave it.
    joined: Vec<OnceLock<(usize, Box<[u8]>)>>,
    /// How many pieces were read and found sound.
    sound: AtomicUsize,
}

impl Pieces {
    /// The `len` bytes at `start` in `file`, whose pieces have the checksums `sums`;
    /// `None` when the checksums do not cover exactly that many bytes.
    pub(super) fn new(
        file: std::fs::File,
        start: u64,
        len: usize,
        sums: Vec<u32>,
    ) -> Option<Pieces> {
        (sums.len() == len.div_ceil(CHECKED_PIECE)).then(|| Pieces {
            file: Mutex::new(file),
            start,
            len,
            read: sums.iter().map(|_| OnceLock::new()).collect(),
            joined: sums.iter().map(|_| OnceLock::new()).collect(),
            sums,
            sound: AtomicUsize::new(0),
        })
    }

    /// How many bytes.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Piece `k`, read and checked the first time; empty when it is damaged or past
    /// the end.
    #[inline]
    fn piece(&self, k: usize) -> &[u8] {
        self.read
            .get(k)
            .map_or(&[], |p| p.get_or_init(|| self.load(k)))
    }

    /// Piece `k`, when it is sound.
    fn sound_piece(&self, k: usize) -> Option<&[u8]> {
        Some(self.piece(k)).filter(|p| !p.is_empty())
    }

    /// Reads piece `k` from the file and checks it; empty when it is damaged.
    #[cold]
    fn load(&self, k: usize) -> Box<[u8]> {
        let at = k * CHECKED_PIECE;
        let mut bytes = vec![0u8; CHECKED_PIECE.min(self.len.saturating_sub(at))];
        let read = {
            let mut file = self
                .file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            file.seek(SeekFrom::Start(self.start + at as u64))
                .and_then(|_| file.read_exact(&mut bytes))
        };
        if read.is_err() || crc32fast::hash(&bytes) != self.sums[k] {
            count_damage();
            return Box::default();
        }
        self.sound.fetch_add(1, Relaxed);
        bytes.into_boxed_slice()
    }

    /// The `N` bytes at `at`, when they are in the section and sound.
    #[inline]
    pub(super) fn array<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        let (k, off) = (at / CHECKED_PIECE, at % CHECKED_PIECE);
        match self.piece(k).get(off..off + N) {
            Some(b) => b.try_into().ok(),
            None => self.array_across(at),
        }
    }

    /// [`Pieces::array`] for bytes across the end of a piece (or damaged, or past the
    /// end of the section): a byte at a time.
    #[cold]
    fn array_across<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        let mut out = [0u8; N];
        for (i, b) in out.iter_mut().enumerate() {
            let at = at + i;
            *b = *self.piece(at / CHECKED_PIECE).get(at % CHECKED_PIECE)?;
        }
        Some(out)
    }

    /// The `len` bytes at `at`, in place, when they are in the section and sound.
    /// Bytes that run from one piece into the next are joined once, for the first
    /// span asked for that starts in that piece and leaves it; another such span
    /// (which no table asks for) reads as `None`.
    pub(super) fn span(&self, at: usize, len: usize) -> Option<&[u8]> {
        let end = at.checked_add(len).filter(|&e| e <= self.len)?;
        let (first, last) = (at / CHECKED_PIECE, (end.max(at + 1) - 1) / CHECKED_PIECE);
        if first == last || len == 0 {
            let off = first * CHECKED_PIECE;
            return self.sound_piece(first)?.get(at - off..end - off);
        }
        let (from, joined) = self.joined.get(first)?.get_or_init(|| {
            let mut bytes = Vec::with_capacity(len);
            let whole = (first..=last).all(|k| {
                let off = k * CHECKED_PIECE;
                self.sound_piece(k).is_some_and(|p| {
                    let range = at.max(off) - off..end.min(off + p.len()) - off;
                    p.get(range).map(|b| bytes.extend_from_slice(b)).is_some()
                })
            });
            (at, if whole { bytes.into() } else { Box::default() })
        });
        Some(&joined[..]).filter(|b| *from == at && b.len() == len)
    }

    /// Reads and checks every piece not read yet; whether all are sound.
    pub(super) fn all_sound(&self) -> bool {
        (0..self.read.len()).all(|k| self.sound_piece(k).is_some())
    }

    /// Whether every piece was read and found sound.
    pub(super) fn known_sound(&self) -> bool {
        self.sound.load(Relaxed) == self.read.len()
    }
}

#[cfg(test)]
mod tests {
    use super::piece_sums;
    use super::*;

    fn pieces(bytes: &[u8], damaged: Option<usize>) -> (tempfile::TempDir, Pieces) {
        let dir = crate::store::temp_dir_for_tests();
        let path = dir.path().join("file");
        let sums = piece_sums(bytes);
        let mut on_disk = [b"head".as_slice(), bytes].concat();
        if let Some(at) = damaged {
            on_disk[4 + at] ^= 1;
        }
        std::fs::write(&path, on_disk).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        let pieces = Pieces::new(file, 4, bytes.len(), sums).expect("pieces");
        (dir, pieces)
    }

    #[test]
    fn bytes_read_back_within_a_piece_and_across_pieces() {
        let bytes: Vec<u8> = (0..4 * CHECKED_PIECE + 100)
            .map(|k| (k % 251) as u8)
            .collect();
        let (_dir, p) = pieces(&bytes, None);
        assert_eq!(p.array::<4>(8), Some([8, 9, 10, 11]));
        let edge = CHECKED_PIECE - 2;
        assert_eq!(p.array::<4>(edge), bytes[edge..edge + 4].try_into().ok());
        // A span across two ends of pieces, joined once and kept.
        let (at, len) = (CHECKED_PIECE - 10, CHECKED_PIECE + 20);
        assert_eq!(p.span(at, len), Some(&bytes[at..at + len]));
        assert_eq!(p.span(at, len), Some(&bytes[at..at + len]));
        assert_eq!(p.span(at + 1, 30), None, "another span leaving that piece");
        assert_eq!(p.span(bytes.len() - 5, 5), Some(&bytes[bytes.len() - 5..]));
        assert_eq!(p.span(bytes.len() - 5, 6), None, "past the end");
        assert_eq!(p.array::<2>(bytes.len() - 1), None, "past the end");
        assert!(!p.known_sound(), "the fourth piece was never read");
        assert!(p.all_sound());
        assert!(p.known_sound());
    }

    #[test]
    fn a_damaged_piece_reads_as_nothing_and_the_others_read() {
        let _alone = crate::store::index::damage_counted_alone();
        let bytes: Vec<u8> = (0..3 * CHECKED_PIECE).map(|k| (k % 13) as u8).collect();
        let (_dir, p) = pieces(&bytes, Some(CHECKED_PIECE + 7));
        let seen = crate::store::index::damage_seen();
        assert_eq!(p.array::<1>(0), Some([0]));
        assert_eq!(crate::store::index::damage_seen(), seen);
        assert_eq!(p.array::<1>(CHECKED_PIECE), None);
        assert!(crate::store::index::damage_seen() > seen);
        assert_eq!(p.span(CHECKED_PIECE - 1, 2), None, "a span touching it");
        assert_eq!(
            p.array::<1>(2 * CHECKED_PIECE),
            Some([(2 * CHECKED_PIECE % 13) as u8])
        );
        assert!(!p.all_sound());
    }
}
