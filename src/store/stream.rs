//! Writing the objects of a very large change while it is being made: each object
//! goes into a pack file as soon as it exists, so that an import of 100 000 beads
//! holds one document at a time, and of the others only what the pack's index and
//! the tree need (id, offset, path), instead of every document at once.
//!
//! The pack is written to a temporary file beside the store's packs and becomes part
//! of the object database only when [`PackStream::finish`] completes it and writes
//! its index; a stream dropped before that (a bad record, an error) leaves nothing.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use gix::ObjectId;
use gix::objs::Kind;

use super::pack::{entry_header, index_bytes};
use super::scratch::ScratchFile;
use super::sync::Entry;
use super::{Store, StoreError, git_err, io_err};

/// Where the pack's header ends: `PACK`, the version, the number of objects.
const HEADER: u64 = 12;

/// A pack being written object by object (see the module documentation).
pub struct PackStream<'s> {
    store: &'s Store,
    /// The temporary pack file; `None` once `finish` took it.
    file: Option<BufWriter<File>>,
    /// The same file, nameless until `finish` names it (see [`ScratchFile`]).
    tmp: ScratchFile,
    /// The pack directory.
    dir: PathBuf,
    /// Each object written: its id and the CRC-32 of its entry.
    listed: Vec<(ObjectId, u32)>,
    offsets: Vec<u64>,
    seen: HashSet<ObjectId>,
    /// Where the next entry starts.
    at: u64,
    scratch: Vec<u8>,
}

impl Store {
    /// Starts a pack to write objects into as they are made (see [`PackStream`]).
    pub(crate) fn pack_stream(&self) -> Result<PackStream<'_>, StoreError> {
        let dir = self.common_dir().join("objects").join("pack");
        std::fs::create_dir_all(&dir).map_err(io_err(format!("create {}", dir.display())))?;
        // Read back at the end, for the checksum.
        let fallback = format!("tmp_pack_stream_{}", std::process::id());
        let (file, tmp) = ScratchFile::create(&dir, &fallback).map_err(io_err(format!(
            "create a temporary pack in {}",
            dir.display()
        )))?;
        let mut file = BufWriter::with_capacity(1 << 20, file);
        // The number of objects is not known yet: it is filled in by `finish`.
        let mut header = Vec::with_capacity(HEADER as usize);
        header.extend_from_slice(b"PACK");
        header.extend_from_slice(&2u32.to_be_bytes());
        header.extend_from_slice(&0u32.to_be_bytes());
        file.write_all(&header)
            .map_err(io_err(format!("write {}", tmp.shown(&dir))))?;
        Ok(PackStream {
            store: self,
            file: Some(file),
            tmp,
            dir,
            listed: Vec::new(),
            offsets: Vec::new(),
            seen: HashSet::new(),
            at: HEADER,
            scratch: Vec::new(),
        })
    }

    /// The id the blob `bytes` has (or would have) in this repository.
    pub(crate) fn blob_id(&self, bytes: &[u8]) -> Result<ObjectId, StoreError> {
        gix::objs::compute_hash(self.repo.object_hash(), Kind::Blob, bytes)
            .map_err(|e| git_err("hash a blob")(gix::Error::from_error(e)))
    }
}

impl<'s> PackStream<'s> {
    /// The store the pack is for.
    pub(crate) fn store(&self) -> &'s Store {
        self.store
    }

    /// Writes the blob `bytes` into the pack and returns its id.
    pub(crate) fn add_blob(&mut self, bytes: &[u8]) -> Result<ObjectId, StoreError> {
        let id = self.store.blob_id(bytes)?;
        self.add(id, Kind::Blob, bytes)?;
        Ok(id)
    }

    /// Writes an object whose id is `id` (once: a second time is a no-op).
    fn add(&mut self, id: ObjectId, kind: Kind, data: &[u8]) -> Result<(), StoreError> {
        use gix::zlib::{Compression, stream::deflate};
        if !self.seen.insert(id) {
            return Ok(());
        }
        let what = || format!("write {}", self.tmp.shown(&self.dir));
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| io_err(what())(std::io::Error::other("the pack is complete")))?;
        let mut entry = std::mem::take(&mut self.scratch);
        entry.clear();
        entry_header(kind, data.len(), &mut entry);
        let mut z = deflate::Write::new(entry, Compression::DEFAULT);
        z.write_all(data).map_err(io_err(what()))?;
        z.flush().map_err(io_err(what()))?;
        let entry = z.into_inner();
        file.write_all(&entry).map_err(io_err(what()))?;
        self.listed.push((id, crc32fast::hash(&entry)));
        self.offsets.push(self.at);
        self.at += entry.len() as u64;
        self.scratch = entry;
        Ok(())
    }

    /// Writes the tree below directory `dir` of `root` (or an empty one) with `edits`
    /// applied (paths relative to `dir`) into the pack, with the subtrees that change,
    /// and returns its id. The objects the edits name need not be readable yet.
    pub(crate) fn write_tree_edits(
        &mut self,
        root: Option<ObjectId>,
        dir: &str,
        edits: &BTreeMap<String, Option<Entry>>,
    ) -> Result<ObjectId, StoreError> {
        let store = self.store;
        let base = match root {
            Some(root) => store.subtree(root, dir)?,
            None => None,
        };
        let base = store.decoded_tree(base)?;
        let hash = store.repo.object_hash();
        let objects = &store.repo.objects;
        // gix's own editor refuses entries whose objects it cannot find, and these
        // are in this pack, which is not readable until it is finished.
        let mut editor = gix::objs::tree::Editor::new(base, objects, hash);
        for (path, entry) in edits {
            let edited = match entry {
                Some(e) => editor.upsert(path.split('/'), e.kind.into(), e.id),
                None => editor.remove(path.split('/')),
            };
            edited.map_err(|e| {
                git_err(format!("place {path} in the tree"))(gix::Error::from_error(e))
            })?;
        }
        let mut buf = Vec::new();
        editor.write(|tree| -> Result<ObjectId, StoreError> {
            use gix::objs::WriteTo as _;
            buf.clear();
            tree.write_to(&mut buf).map_err(io_err("encode a tree"))?;
            let id = gix::objs::compute_hash(hash, Kind::Tree, &buf)
                .map_err(|e| git_err("hash a tree")(gix::Error::from_error(e)))?;
            self.add(id, Kind::Tree, &buf)?;
            Ok(id)
        })
    }

    /// Completes the pack and writes its index, which makes its objects part of the
    /// repository; with `durable`, both and their directory are synced first.
    pub(crate) fn finish(mut self, durable: bool) -> Result<(), StoreError> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        let what = format!("write {}", self.tmp.shown(&self.dir));
        let hash = self.store.repo.object_hash();
        let mut file = file
            .into_inner()
            .map_err(|e| io_err(what.clone())(e.into_error()))?;
        let count = u32::try_from(self.listed.len())
            .map_err(|_| io_err(what.clone())(std::io::Error::other("too many objects")))?;
        // The checksum covers the header, so it is taken once the count is in place.
        let sum = (|| -> std::io::Result<ObjectId> {
            file.seek(SeekFrom::Start(8))?;
            file.write_all(&count.to_be_bytes())?;
            file.seek(SeekFrom::Start(0))?;
            let mut h = gix::hash::hasher(hash);
            let mut buf = vec![0u8; 1 << 20];
            loop {
                let n = file.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                h.update(&buf[..n]);
            }
            let sum = h.try_finalize().map_err(std::io::Error::other)?;
            file.write_all(sum.as_bytes())?;
            if durable {
                file.sync_all()?;
            }
            Ok(sum)
        })()
        .map_err(io_err(what))?;
        let idx = index_bytes(&self.listed, &self.offsets, sum.as_bytes(), hash)
            .map_err(io_err("assemble the index of a pack"))?;
        let dir = &self.dir;
        let name = sum.to_hex().to_string();
        let final_pack = dir.join(format!("pack-{name}.pack"));
        let final_idx = dir.join(format!("pack-{name}.idx"));
        let fallback = format!("tmp_idx_stream_{}", std::process::id());
        let written = ScratchFile::create(dir, &fallback)
            .and_then(|(mut f, tmp_idx)| {
                f.write_all(&idx)?;
                if durable {
                    f.sync_all()?;
                }
                Ok(tmp_idx)
            })
            .and_then(|mut tmp_idx| {
                self.tmp.place(&final_pack)?;
                // The index goes last: a reader that sees it finds the whole pack.
                tmp_idx.place(&final_idx)
            })
            .and_then(|()| match durable {
                true => File::open(dir).and_then(|d| d.sync_all()),
                false => Ok(()),
            });
        if let Err(e) = written {
            return Err(io_err(format!("write {}", final_pack.display()))(e));
        }
        // A lookup that misses makes the object database look for new packs.
        if let Some((first, _)) = self.listed.first() {
            self.store.repo.has_object(first);
        }
        Ok(())
    }
}
