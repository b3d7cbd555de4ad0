//! The memory a cache file is read into.
//!
//! A query at 100 000 beads reads an 11 MB table; read into a fresh heap buffer, the
//! kernel faults its pages in one 4 KiB page at a time, which cost more than the
//! query itself. A large file is read instead into an anonymous mapping that asks
//! for huge pages and is populated up front: a few faults instead of thousands.
//! Nothing is mapped from the file itself (that would need `unsafe`: the file could
//! change under the map); the bytes are read, and checked, as from any buffer.

use std::io::Read;
use std::ops::Deref;
use std::path::Path;

/// Below this size a plain heap buffer costs less than a mapping.
const MAP_FROM: usize = 1 << 20;

/// Bytes held in memory: a heap buffer, or an anonymous mapping.
pub(super) enum Buffer {
    /// What a builder wrote, or a small file.
    Heap(Vec<u8>),
    /// A large file, read.
    Mapped(memmap2::MmapMut),
}

impl Default for Buffer {
    fn default() -> Self {
        Buffer::Heap(Vec::new())
    }
}

impl Deref for Buffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Buffer::Heap(bytes) => bytes,
            Buffer::Mapped(map) => map,
        }
    }
}

impl From<Vec<u8>> for Buffer {
    fn from(bytes: Vec<u8>) -> Self {
        Buffer::Heap(bytes)
    }
}

/// The whole of the file at `path` (its checksum, checked by the caller, tells a file
/// that changed while it was read).
pub(super) fn read(path: &Path) -> std::io::Result<Buffer> {
    let mut file = std::fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    let mapped = (len >= MAP_FROM)
        .then(|| memmap2::MmapOptions::new().len(len).map_anon().ok())
        .flatten();
    let Some(mut map) = mapped else {
        let mut bytes = Vec::with_capacity(len);
        file.read_to_end(&mut bytes)?;
        return Ok(Buffer::Heap(bytes));
    };
    // Both are hints: a kernel without them faults the pages in as usual.
    #[cfg(target_os = "linux")]
    {
        let _ = map.advise(memmap2::Advice::HugePage);
        let _ = map.advise(memmap2::Advice::PopulateWrite);
    }
    file.read_exact(&mut map)?;
    Ok(Buffer::Mapped(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_files_read_back_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        for len in [0, 10, MAP_FROM - 1, MAP_FROM, 3 * MAP_FROM + 7] {
            let bytes: Vec<u8> = (0..len).map(|k| (k * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("f{len}"));
            std::fs::write(&path, &bytes).expect("write");
            let read = read(&path).expect("read");
            assert_eq!(&read[..], &bytes[..], "{len} bytes");
            assert_eq!(matches!(read, Buffer::Mapped(_)), len >= MAP_FROM);
        }
        assert!(read(&dir.path().join("missing")).is_err());
    }
}
