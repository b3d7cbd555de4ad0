//! The cache files: their names, their header (magic, version, checksum), their
//! sections, and reading and writing them whole or a piece at a time.

use super::buffer::Buffer;
use super::pieces::Pieces;
use super::*;

pub(super) const MAGIC: &[u8; 4] = b"GBIX";

/// Version 6: the beads as a columnar table, the search text apart (in the order it
/// was written, with the row of each text), a delta file of the beads changed since the
/// table was written, mail in a file of its own. Version 7: dependencies on other
/// projects' items (`external:<project>:<id>`) ride among a bead's dependencies.
/// Version 9: the table comes last in its file, read and checked a piece at a time
/// against the checksums before it, and keeps the edges into each row. Version 10: the
/// delta keeps where the table has what each changed bead names. Version 11: the
/// table keeps the rows each row's edges come from.
pub(super) const VERSION: u32 = 11;

use super::buffer::HEADER;

/// The files of one store ref's index.
#[derive(Clone, Copy)]
pub(super) enum File {
    Table,
    Text,
    Delta,
    Mail,
    /// What a reader worked out of the table and keeps beside it (see
    /// [`Index::kept`]).
    Kept,
    /// A document a command printed of the whole store at one tree, kept for the next
    /// call at that tree (see [`super::answer`]).
    Answer,
    /// The tree a command was last asked at, to print such a document (see
    /// [`super::answer`]).
    Asked,
}

impl File {
    pub(super) const ALL: [File; 7] = [
        File::Table,
        File::Text,
        File::Delta,
        File::Mail,
        File::Kept,
        File::Answer,
        File::Asked,
    ];

    pub(super) fn suffix(self) -> &'static str {
        match self {
            File::Table => "",
            File::Text => "-text",
            File::Delta => "-delta",
            File::Mail => "-mail",
            File::Kept => "-kept",
            File::Answer => "-answer",
            File::Asked => "-asked",
        }
    }

    /// Whether the file is removed just before its new version takes its place,
    /// rather than replaced by a rename over it. The delta is rewritten by every read
    /// after a write, and a rename over an existing file makes ext4 write the new
    /// file's data out first (`auto_da_alloc`): 0.15 ms on a quiet disk, up to 5 ms on
    /// a busy one. A reader that opens it in between finds no delta and diffs from the
    /// table's tree instead: slower once, never wrong. So does one that finds no kept
    /// answer, or no mark of one asked for (the first call after each write replaces
    /// it): it works it out, or marks it again. The other files are kept atomic:
    /// without them a reader rebuilds.
    pub(super) fn removed_first(self) -> bool {
        matches!(self, File::Delta | File::Answer | File::Asked)
    }

    /// How many sections follow the tree in this file.
    pub(super) fn sections(self) -> usize {
        match self {
            File::Table | File::Answer => 3,
            File::Mail | File::Delta => 2,
            File::Text | File::Kept | File::Asked => 1,
        }
    }

    /// Whether the header's checksum leaves out the last section, which is checked
    /// piece by piece against the checksums in the section before it, as it is read
    /// (the table: a read that touches a few rows checks a few pieces, not the file).
    pub(super) fn checked_apart(self) -> bool {
        matches!(self, File::Table)
    }
}

pub(super) fn bytes(raw: &Raw) -> &[u8] {
    raw.0.get(raw.1.clone()).unwrap_or_default()
}

/// One section of a cache file, decoded on first use.
pub(super) struct Section<T> {
    pub(super) raw: Option<Raw>,
    pub(super) value: OnceLock<Vec<T>>,
}

impl<T> Default for Section<T> {
    fn default() -> Self {
        Section {
            raw: None,
            value: OnceLock::new(),
        }
    }
}

impl<T: serde::de::DeserializeOwned> Section<T> {
    pub(super) fn decoded(value: Vec<T>) -> Section<T> {
        Section {
            raw: None,
            value: OnceLock::from(value),
        }
    }

    pub(super) fn get(&self) -> &[T] {
        // The file's checksum and version were checked when it was read, so the
        // section decodes as it was encoded.
        self.value.get_or_init(|| {
            self.raw
                .as_ref()
                .and_then(|raw| postcard::from_bytes(bytes(raw)).ok())
                .unwrap_or_default()
        })
    }

    pub(super) fn take(self) -> Vec<T> {
        self.get();
        self.value.into_inner().unwrap_or_default()
    }
}

/// How much of a large cache file is read or copied at a time.
pub(super) const CHUNK: usize = 1 << 20;

/// A cache file read from the front a piece at a time, for a part too large to hold:
/// its payload is checked against the header's checksum as it goes, and counts only
/// once [`PartReader::whole`] says so.
pub(super) struct PartReader {
    pub(super) file: std::io::BufReader<std::fs::File>,
    pub(super) checksum: u32,
    pub(super) sum: crc32fast::Hasher,
}

impl PartReader {
    /// Opens the file at `path` when it is ours and was built from `base`.
    pub(super) fn open(path: &std::path::Path, base: &[u8]) -> Option<PartReader> {
        use std::io::Read;
        let mut file = std::io::BufReader::new(std::fs::File::open(path).ok()?);
        let mut header = [0u8; HEADER];
        file.read_exact(&mut header).ok()?;
        let mut reader = PartReader {
            file,
            checksum: checksum_of(&header)?,
            sum: crc32fast::Hasher::new(),
        };
        // A tree id is a few dozen bytes: a longer one is a damaged file.
        let mut tree = vec![0u8; reader.section().filter(|&len| len <= 64)?];
        reader.read(&mut tree)?;
        (tree == base).then_some(reader)
    }

    /// The length of the next section.
    pub(super) fn section(&mut self) -> Option<usize> {
        let mut len = [0u8; 4];
        self.read(&mut len)?;
        Some(u32::from_le_bytes(len) as usize)
    }

    /// Fills `buf` from the file.
    pub(super) fn read(&mut self, buf: &mut [u8]) -> Option<()> {
        use std::io::Read;
        self.file.read_exact(buf).ok()?;
        self.sum.update(buf);
        Some(())
    }

    /// Whether the file ended where the last read did and its checksum held.
    pub(super) fn whole(mut self) -> bool {
        use std::io::Read;
        let mut rest = [0u8; 1];
        matches!(self.file.read(&mut rest), Ok(0)) && self.sum.finalize() == self.checksum
    }
}

/// Removes the cache files an older or newer git-beads left (they would only take
/// space: no version reads another's files).
pub(super) fn remove_old_versions(store: &Store) {
    let ours = format!("index-v{VERSION}-");
    let stale = std::fs::read_dir(store.local_dir())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("index-v") && name.ends_with(".bin") && !name.starts_with(&ours)
        });
    for entry in stale {
        let _ = std::fs::remove_file(entry.path());
    }
}

/// Bytes a builder wrote, as a section of their own.
pub(super) fn whole(bytes: Vec<u8>) -> Raw {
    let len = bytes.len();
    (Arc::new(bytes.into()), 0..len)
}

pub(super) fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, StoreError> {
    postcard::to_stdvec(value).map_err(|e| StoreError::Io {
        context: "encode the index".into(),
        source: std::io::Error::other(e),
    })
}

pub(super) fn remove_file(path: &std::path::Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(io_err(format!("remove {}", path.display()))(e))
        }
        _ => Ok(()),
    }
}

/// One cache file per store ref and file kind: `refs/beads/main` →
/// `index-v11-main.bin`, then `index-v11-main-text.bin` and the others with their
/// [`File::suffix`].
pub(super) fn file_path(store: &Store, ref_name: &str, file: File) -> PathBuf {
    let tail = ref_name
        .strip_prefix("refs/beads/")
        .unwrap_or(ref_name)
        .replace('/', "-");
    store
        .local_dir()
        .join(format!("index-v{VERSION}-{tail}{}.bin", file.suffix()))
}

/// The payload checksum a cache file's header records, when the header is ours (magic
/// and version).
pub(super) fn checksum_of(header: &[u8]) -> Option<u32> {
    let word = |at: usize| Some(u32::from_le_bytes(header.get(at..at + 4)?.try_into().ok()?));
    (header.get(..4)? == MAGIC && word(4)? == VERSION).then_some(word(8)?)
}

/// Reads a cache file: the tree it was built from and its sections, each decoded when
/// first used. `None` for a file that is missing, torn (bad checksum) or of another
/// version.
pub(super) fn read_part(path: &std::path::Path, file: File) -> Option<(Vec<u8>, Vec<Raw>)> {
    let bytes = buffer::read_checked(path, |bytes| {
        let checked = match file.checked_apart() {
            true => sections_of(bytes, file).and_then(|r| r.last().map(|last| last.start)),
            false => Some(bytes.len()),
        };
        checked
            .and_then(|end| bytes.get(HEADER..end))
            .zip(checksum_of(bytes))
            .is_some_and(|(payload, sum)| crc32fast::hash(payload) == sum)
    })?;
    let ranges = sections_of(&bytes, file)?;
    let tree = bytes[ranges[0].clone()].to_vec();
    let sections = ranges[1..]
        .iter()
        .map(|range| (bytes.clone(), range.clone()))
        .collect();
    Some((tree, sections))
}

/// Reads a cache file whose last section is checked apart ([`File::checked_apart`])
/// without reading that section: the tree, the sections before it (checked against
/// the header's checksum) save the checksums of its pieces, and the section itself,
/// to be read a piece at a time ([`Pieces`]). Kept like a file read whole (see
/// [`buffer`]). `None` for a file that is missing, torn or of another version.
pub(super) fn read_apart(
    path: &std::path::Path,
    file: File,
) -> Option<(Vec<u8>, Vec<Raw>, Arc<Pieces>)> {
    let apart = buffer::read_kept(path, |mut open| {
        use std::io::Read;
        let len = open.metadata().ok()?.len();
        let mut head = vec![0u8; HEADER];
        open.read_exact(&mut head).ok()?;
        let checksum = checksum_of(&head)?;
        let mut ranges = Vec::with_capacity(file.sections());
        // The tree and each section but the last.
        for _ in 0..file.sections() {
            let at = head.len();
            let mut size = [0u8; 4];
            open.read_exact(&mut size).ok()?;
            head.extend_from_slice(&size);
            let size = u32::from_le_bytes(size) as usize;
            if (at + 4 + size) as u64 > len {
                return None;
            }
            head.resize(at + 4 + size, 0);
            open.read_exact(&mut head[at + 4..]).ok()?;
            ranges.push(at + 4..at + 4 + size);
        }
        let mut size = [0u8; 4];
        open.read_exact(&mut size).ok()?;
        head.extend_from_slice(&size);
        let (start, size) = (head.len(), u32::from_le_bytes(size) as usize);
        if crc32fast::hash(&head[HEADER..]) != checksum || (start + size) as u64 != len {
            return None;
        }
        let sums = sums_in(&head[ranges.pop()?]);
        let pieces = Pieces::new(open, start as u64, size, sums)?;
        Some((Arc::new(Buffer::from(head)), ranges, Arc::new(pieces)))
    })?;
    let (head, ranges, pieces) = &*apart;
    let mut ranges = ranges.iter().cloned();
    let tree = head.get(ranges.next()?)?.to_vec();
    let sections = ranges.map(|r| (head.clone(), r)).collect();
    Some((tree, sections, pieces.clone()))
}

/// The checksums of a section checked apart ([`File::checked_apart`]), as the
/// section before it holds them.
pub(super) fn sums_in(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The tree a cache file of kind `file`, whole in `bytes`, says it was built from;
/// `None` when its header or its sections are not ours.
pub(super) fn tree_in(bytes: &[u8], file: File) -> Option<&[u8]> {
    checksum_of(bytes)?;
    bytes.get(sections_of(bytes, file)?.first()?.clone())
}

/// Where the tree and each section of a cache file's payload are: the tree, then the
/// part's sections, each a little-endian u32 length and its bytes.
fn sections_of(bytes: &[u8], file: File) -> Option<Vec<std::ops::Range<usize>>> {
    let mut ranges = Vec::with_capacity(1 + file.sections());
    let mut at = HEADER;
    for _ in 0..1 + file.sections() {
        let len = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let range = at + 4..(at + 4).checked_add(len)?;
        bytes.get(range.clone())?;
        at = range.end;
        ranges.push(range);
    }
    Some(ranges)
}

/// Writes a cache file: a header with the checksum of the payload, then the payload:
/// the tree and each section, each a little-endian u32 length and its bytes. For a
/// file whose last section is checked apart ([`File::checked_apart`]), the
/// checksums of its pieces go before it, and the header's checksum leaves it out.
pub(super) fn write_part(
    path: &std::path::Path,
    kind: File,
    tree: &[u8],
    sections: &[&[u8]],
) -> Result<(), StoreError> {
    let mut file = PartWriter::create(path, kind)?;
    let (apart, summed) = match sections.split_last() {
        Some((last, rest)) if kind.checked_apart() => (Some(*last), rest),
        _ => (None, sections),
    };
    for part in std::iter::once(tree).chain(summed.iter().copied()) {
        file.section(part.len())?;
        file.put(part)?;
    }
    if let Some(last) = apart {
        let sums: Vec<u8> = super::pieces::piece_sums(last)
            .iter()
            .flat_map(|s| s.to_le_bytes())
            .collect();
        file.section(sums.len())?;
        file.put(&sums)?;
        file.section(last.len())?;
        file.raw(last)?;
    }
    file.finish()
}

/// A cache file being written beside its place, which it takes by rename once whole;
/// its header's checksum is filled in at the end, so that a part can be written a
/// piece at a time. Dropped unfinished, it takes its temporary file with it.
pub(super) struct PartWriter {
    pub(super) file: std::io::BufWriter<Replacement>,
    pub(super) path: PathBuf,
    pub(super) kind: File,
    pub(super) sum: crc32fast::Hasher,
}

impl PartWriter {
    pub(super) fn create(path: &std::path::Path, kind: File) -> Result<PartWriter, StoreError> {
        let dir = path.parent().unwrap_or(path);
        std::fs::create_dir_all(dir).map_err(io_err(format!("create {}", dir.display())))?;
        let file =
            Replacement::create(path).map_err(io_err(format!("create {}", path.display())))?;
        let mut writer = PartWriter {
            file: std::io::BufWriter::new(file),
            path: path.to_owned(),
            kind,
            sum: crc32fast::Hasher::new(),
        };
        let header = [*MAGIC, VERSION.to_le_bytes(), [0; 4]].concat();
        writer.raw(&header)?;
        Ok(writer)
    }

    pub(super) fn raw(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.file.write_all(bytes).map_err(io_err(format!(
            "write {}",
            self.file.get_ref().tmp().display()
        )))
    }

    /// Starts a section of `len` bytes.
    pub(super) fn section(&mut self, len: usize) -> Result<(), StoreError> {
        let len = u32::try_from(len).map_err(|e| StoreError::Io {
            context: "encode the index".into(),
            source: std::io::Error::other(e),
        })?;
        self.put(&len.to_le_bytes())
    }

    /// Writes part of the payload.
    pub(super) fn put(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.sum.update(bytes);
        self.raw(bytes)
    }

    /// Fills in the checksum and puts the file in its place.
    pub(super) fn finish(mut self) -> Result<(), StoreError> {
        use std::io::{Seek, SeekFrom};
        let checksum = self.sum.clone().finalize();
        let context = format!("write {}", self.file.get_ref().tmp().display());
        self.file
            .seek(SeekFrom::Start(8))
            .and_then(|_| self.file.write_all(&checksum.to_le_bytes()))
            .and_then(|()| self.file.flush())
            .map_err(io_err(context.clone()))?;
        let file = self
            .file
            .into_inner()
            .map_err(|e| io_err(context)(e.into_error()))?;
        if self.kind.removed_first() {
            remove_file(&self.path)?;
        }
        file.commit(false)
            .map_err(io_err(format!("replace {}", self.path.display())))
    }
}
