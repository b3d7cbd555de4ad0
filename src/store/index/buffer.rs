//! The memory a cache file is read into, and the files a process keeps.
//!
//! A file read whole (the search text, a table checked whole before a fold) is often
//! tens of megabytes; read into a fresh heap buffer, the kernel faults its pages in
//! one 4 KiB page at a time, which cost more than the query itself. A large file is
//! read instead into an anonymous mapping that asks
//! for huge pages and is populated up front: a few faults instead of thousands.
//! Nothing is mapped from the file itself (that would need `unsafe`: the file could
//! change under the map); the bytes are read, and checked, as from any buffer.
//!
//! A process that reads again and again (the MCP server, the board) keeps the last
//! files it read and checked (or the pieces it read of a table: see
//! [`super::pieces`]), each with what identifies the version it read: where
//! the file lives on the disk, its length, its times and the checksum in its header.
//! Cache files are only ever replaced whole, never written in place, so a file that
//! still has that identity holds those bytes, and it is taken from memory without
//! reading or checking it again. The ref is still read on every call, so this keeps
//! nothing stale: it only spares reading the same file twice.

use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// How many checked files a process keeps: the four of one store's index, twice.
const KEPT: usize = 8;

/// What this process read of a file and checked, the most recent last: a buffer of
/// its bytes, or the pieces of a table read from it (see [`super::pieces`]).
type Kept = Arc<dyn std::any::Any + Send + Sync>;

/// The files this process read and checked last, the most recent last.
static KEPT_FILES: Mutex<Vec<(PathBuf, Version, Kept)>> = Mutex::new(Vec::new());

/// What tells one version of a file from another.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Version {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    header: [u8; HEADER],
}

/// The length of the header every cache file starts with (its magic, the format's
/// version and the payload's checksum: see [`super::file`]), part of a [`Version`].
pub(super) const HEADER: usize = 4 + 4 + 4;

/// The version of the open `file`, from its metadata and its header (read in place,
/// so the file's position stays at its start); `None` where it cannot be told.
#[cfg(unix)]
fn version(file: &std::fs::File) -> Option<Version> {
    use std::os::unix::fs::{FileExt as _, MetadataExt as _};
    let meta = file.metadata().ok()?;
    let mut header = [0; HEADER];
    file.read_exact_at(&mut header, 0).ok()?;
    Some(Version {
        dev: meta.dev(),
        ino: meta.ino(),
        len: meta.len(),
        mtime: (meta.mtime(), meta.mtime_nsec()),
        ctime: (meta.ctime(), meta.ctime_nsec()),
        header,
    })
}

/// Elsewhere a file's version cannot be told, and every read reads.
#[cfg(not(unix))]
fn version(_file: &std::fs::File) -> Option<Version> {
    None
}

/// The file at `path`, whole, once `check` accepts its bytes: from memory when this
/// process read and checked the same version before, else read. `None` when the
/// file cannot be read or `check` refuses it.
pub(super) fn read_checked(path: &Path, check: impl Fn(&[u8]) -> bool) -> Option<Arc<Buffer>> {
    read_kept(path, |file| {
        read_open(file).ok().filter(|bytes| check(bytes))
    })
}

/// What `read` makes of the file at `path`, opened: what this process made of the
/// same version of it before, when it kept it, else read and kept. `None` when the
/// file cannot be opened or `read` refuses it.
pub(super) fn read_kept<T: Send + Sync + 'static>(
    path: &Path,
    read: impl FnOnce(std::fs::File) -> Option<T>,
) -> Option<Arc<T>> {
    let file = std::fs::File::open(path).ok()?;
    let version = version(&file);
    let mut kept = KEPT_FILES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(v) = version
        && let Some(at) = kept.iter().position(|(p, k, _)| *k == v && p == path)
    {
        let entry = kept.remove(at);
        let value = entry.2.clone();
        kept.push(entry);
        if let Ok(value) = value.downcast::<T>() {
            return Some(value);
        }
    }
    drop(kept);
    let value = Arc::new(read(file)?);
    if let Some(v) = version {
        let mut kept = KEPT_FILES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.retain(|(p, _, _)| p != path);
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((path.to_owned(), v, value.clone()));
    }
    Some(value)
}

/// The whole of the file at `path` (its checksum, checked by the caller, tells a file
/// that changed while it was read).
#[cfg(test)]
pub(super) fn read(path: &Path) -> std::io::Result<Buffer> {
    read_open(std::fs::File::open(path)?)
}

/// The whole of the open `file`, from its start.
fn read_open(mut file: std::fs::File) -> std::io::Result<Buffer> {
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
        let dir = crate::store::temp_dir_for_tests();
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

    #[test]
    fn a_file_read_again_comes_from_memory_until_it_is_replaced() {
        let dir = crate::store::temp_dir_for_tests();
        let path = dir.path().join("index");
        let version = |n: u8| [[n; HEADER].as_slice(), &[n; 100]].concat();
        std::fs::write(&path, version(1)).expect("write");
        let accept = |_: &[u8]| true;
        let first = read_checked(&path, accept).expect("read");
        let again = read_checked(&path, |_| panic!("checked again")).expect("kept");
        assert!(Arc::ptr_eq(&first, &again));
        // Replaced whole, as every cache file is: read and checked anew.
        let tmp = dir.path().join("tmp");
        std::fs::write(&tmp, version(2)).expect("write");
        std::fs::rename(&tmp, &path).expect("replace");
        let refused = read_checked(&path, |_| false);
        assert!(refused.is_none(), "a refused file is not kept");
        let second = read_checked(&path, accept).expect("read");
        assert_eq!(&second[..], &version(2)[..]);
        std::fs::remove_file(&path).expect("remove");
        assert!(
            read_checked(&path, accept).is_none(),
            "a removed file is gone"
        );
    }
}
