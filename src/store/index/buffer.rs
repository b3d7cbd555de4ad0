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

/// The whole of the file at `path`.
pub(super) fn read(path: &Path) -> std::io::Result<Buffer> {
    let mut file = std::fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    if len < MAP_FROM {
        let mut bytes = Vec::with_capacity(len);
        file.read_to_end(&mut bytes)?;
        return Ok(Buffer::Heap(bytes));
    }
    let mut map = memmap2::MmapOptions::new().len(len).map_anon()?;
    // Both are hints: a kernel without them faults the pages in as usual.
    #[cfg(target_os = "linux")]
    {
        let _ = map.advise(memmap2::Advice::HugePage);
        let _ = map.advise(memmap2::Advice::PopulateWrite);
    }
    file.read_exact(&mut map)?;
    // A file that grew since its length was read is being replaced: read it again.
    let mut rest = [0u8; 1];
    match file.read(&mut rest)? {
        0 => Ok(Buffer::Mapped(map)),
        _ => Err(std::io::Error::other(format!(
            "{} changed while it was read",
            path.display()
        ))),
    }
}
