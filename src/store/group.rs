//! Group commit: concurrent writers of one ref share the cost of making their
//! commits durable.
//!
//! Syncing a commit's objects and the ref takes several `fsync`s of a millisecond or
//! more each, far more than the operation itself. So a write goes in two steps, under
//! two locks:
//!
//! 1. Under the write lock, a writer applies its operation on top of the newest commit
//!    (the *tip*: the ref, or the last commit queued after it) and queues its own: its
//!    new objects go to a file of their own in `<common dir>/beads/pending/<ref>/`,
//!    and the commit joins the *chain* of queued commits there. Nothing is synced, and
//!    the next writer starts at once.
//! 2. Under the flush lock, a writer whose commit is not in the ref yet writes the
//!    objects of every queued commit as one pack, syncs it, moves the ref to the tip by
//!    compare-and-swap and syncs the ref: one set of `fsync`s for the whole chain.
//!    Writers that queued meanwhile then find their commit in the ref and are done.
//!
//! The ref only ever names commits whose objects are on disk, so readers never see a
//! queued commit, and a writer returns only once its commit is in the synced ref. A
//! writer killed after queueing holds nobody up: whoever flushes next takes its commit
//! along. If the ref moves outside this protocol (`git update-ref`, a push into this
//! repository), the chain can no longer be flushed: the next writer starts a new one,
//! and each writer whose commit was left out runs its operation again.
//!
//! The queue lives in the page cache only (nothing in it is synced): that survives a
//! killed process but not a power cut, so a chain is trusted only in the boot that
//! wrote it (Linux's boot id). Where there is no boot id, a writer flushes its own
//! commit before letting go of the write lock.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::objs::Kind;
use gix::odb::memory::Storage;

use super::durable::Replacement;
use super::pack::{kind_of_code, type_code};
use super::{Store, StoreError, WriteLock, io_err};
use crate::model::Actor;

/// The first line of a chain file: what it is and the version of its layout.
const MAGIC: &str = "git-beads pending 1";

/// The file naming the queued commits, in a ref's queue directory.
const CHAIN: &str = "chain";

/// The file naming the last value of the ref that reached the disk.
const SYNCED: &str = "synced";

/// An object as the store writes it: id, kind and content.
pub(crate) type Object<'a> = (ObjectId, Kind, &'a [u8]);

/// The commits queued on a ref, oldest first, after the commit the ref was at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Chain {
    base: Option<ObjectId>,
    commits: Vec<ObjectId>,
}

impl Chain {
    fn parse(text: &str, boot: &str) -> Option<Chain> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC || lines.next()?.strip_prefix("boot ")? != boot {
            return None;
        }
        let base = match lines.next()?.strip_prefix("base ")? {
            "-" => None,
            hex => Some(ObjectId::from_hex(hex.as_bytes()).ok()?),
        };
        let commits = lines
            .map(|l| ObjectId::from_hex(l.as_bytes()).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(Chain { base, commits })
    }

    fn render(&self, boot: &str) -> String {
        let base = self.base.map_or_else(|| "-".to_owned(), |b| b.to_string());
        let mut text = format!("{MAGIC}\nboot {boot}\nbase {base}\n");
        for c in &self.commits {
            text.push_str(&format!("{c}\n"));
        }
        text
    }

    /// The commits still to flush when the ref is at `at`; `None` when the ref left
    /// the chain (it is neither the base nor one of the commits).
    fn after(&self, at: Option<ObjectId>) -> Option<&[ObjectId]> {
        if at == self.base {
            return Some(&self.commits);
        }
        let k = self.commits.iter().position(|c| Some(*c) == at)?;
        Some(&self.commits[k + 1..])
    }
}

/// The queue of commits waiting to be flushed to one ref.
pub(crate) struct Queue {
    dir: PathBuf,
    boot: String,
}

/// Where a writer starts: the ref, what is queued after it, and the queued objects.
pub(crate) struct Start {
    /// The commits queued after the ref, with the ref as their base.
    pub chain: Chain,
    /// The objects of the queued commits.
    pub objects: Storage,
}

impl Start {
    /// The commit to build on: the last one queued, else the ref.
    pub fn tip(&self) -> Option<ObjectId> {
        self.chain.commits.last().copied().or(self.chain.base)
    }

    /// The ref when the writer started.
    pub fn base(&self) -> Option<ObjectId> {
        self.chain.base
    }
}

/// The boot this machine is in, if the system says (Linux does).
fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_owned()).filter(|s| !s.is_empty())
}

/// Writes `bytes` to `path` through a temporary file renamed into place, so that a
/// reader sees the whole file or none; nothing is synced.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    Replacement::create_as(path, &path.with_extension("new"))
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.commit(false)
        })
        .map_err(io_err(format!("write {}", path.display())))
}

/// The objects as one file: per object its pack type code, id, length and content.
fn encode_objects(objects: &[Object<'_>]) -> Vec<u8> {
    let total: usize = objects.iter().map(|(_, _, d)| d.len() + 64).sum();
    let mut out = Vec::with_capacity(total);
    for (id, kind, data) in objects {
        out.push(type_code(*kind));
        out.extend_from_slice(id.as_bytes());
        out.extend_from_slice(&(data.len() as u64).to_be_bytes());
        out.extend_from_slice(data);
    }
    out
}

/// The objects of a file written by [`encode_objects`], or `None` if it is cut short
/// or garbled.
fn decode_objects(mut bytes: &[u8], hash: gix::hash::Kind, into: &mut Storage) -> Option<()> {
    let id_len = hash.len_in_bytes();
    while let Some((&code, rest)) = bytes.split_first() {
        let kind = kind_of_code(code)?;
        let id = ObjectId::try_from(rest.get(..id_len)?).ok()?;
        let len = u64::from_be_bytes(rest.get(id_len..id_len + 8)?.try_into().ok()?);
        let start = id_len + 8;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        into.insert(id, (kind, rest.get(start..end)?.to_vec()));
        bytes = &rest[end..];
    }
    Some(())
}

impl Queue {
    fn objects_path(&self, commit: ObjectId) -> PathBuf {
        self.dir.join(commit.to_string())
    }

    /// The chain, if there is one from this boot that parses.
    fn chain(&self) -> Option<Chain> {
        let text = std::fs::read_to_string(self.dir.join(CHAIN)).ok()?;
        Chain::parse(&text, &self.boot)
    }

    /// Reads the objects of `commits` into `into`; `None` if a file is missing or garbled.
    fn load(&self, commits: &[ObjectId], hash: gix::hash::Kind, into: &mut Storage) -> Option<()> {
        for c in commits {
            let bytes = std::fs::read(self.objects_path(*c)).ok()?;
            decode_objects(&bytes, hash, into)?;
        }
        Some(())
    }
}

impl Store {
    /// The queue of ref `name`, or `None` where a queue could not outlive a power cut
    /// unnoticed (no boot id): then writers flush their own commit under the write lock.
    pub(crate) fn queue(&self, name: &str) -> Option<Queue> {
        Some(Queue {
            dir: self
                .local_dir()
                .join("pending")
                .join(name.replace('/', "-")),
            boot: boot_id()?,
        })
    }

    /// Where a writer holding the write lock starts: the ref and the commits queued
    /// after it, whose objects are loaded. A chain the ref has left, or whose files
    /// are gone, is dropped (its writers run their operations again).
    pub(crate) fn start(&self, queue: Option<&Queue>, name: &str) -> Result<Start, StoreError> {
        let at = self.ref_head(name)?.map(|h| h.commit);
        let mut start = Start {
            chain: Chain {
                base: at,
                commits: Vec::new(),
            },
            objects: Storage::default(),
        };
        let Some(queue) = queue else {
            return Ok(start);
        };
        let queued = queue.chain().and_then(|c| c.after(at).map(<[_]>::to_vec));
        if let Some(queued) = queued
            && queue
                .load(&queued, self.repo.object_hash(), &mut start.objects)
                .is_some()
        {
            start.chain.commits = queued;
        } else {
            start.objects.clear();
        }
        Ok(start)
    }

    /// Queues `commit`, built on `start`'s tip, with the `objects` it added; the
    /// files of commits no longer queued go.
    pub(crate) fn enqueue(
        &self,
        queue: &Queue,
        mut start: Start,
        commit: ObjectId,
        objects: &[Object<'_>],
    ) -> Result<(), StoreError> {
        std::fs::create_dir_all(&queue.dir)
            .map_err(io_err(format!("create {}", queue.dir.display())))?;
        replace(&queue.objects_path(commit), &encode_objects(objects))?;
        start.chain.commits.push(commit);
        replace(
            &queue.dir.join(CHAIN),
            start.chain.render(&queue.boot).as_bytes(),
        )?;
        // Objects files are only written under the write lock, which is ours: those
        // of commits no longer queued (flushed, dropped, or a killed writer's) go.
        let keep: HashSet<String> = start.chain.commits.iter().map(|c| c.to_string()).collect();
        if let Ok(entries) = std::fs::read_dir(&queue.dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let stem = name.strip_suffix(".new").unwrap_or(&name);
                let objects = ObjectId::from_hex(stem.as_bytes()).is_ok();
                if objects && (stem.len() != name.len() || !keep.contains(&name)) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        Ok(())
    }

    /// Takes the lock under which queued commits are flushed to their ref.
    fn flush_lock(&self) -> Result<WriteLock, StoreError> {
        let path = self.local_dir().join("flush.lock");
        WriteLock::acquire(&path).map_err(io_err(format!("lock {}", path.display())))
    }

    /// Waits until `mine`, queued on a chain whose base was `base`, is in ref `name`
    /// and the ref is on disk, flushing the chain if nobody has. Returns false if it
    /// never will be (the ref left the chain): then the operation must run again.
    pub(crate) fn settle(
        &self,
        queue: &Queue,
        name: &str,
        mine: ObjectId,
        base: Option<ObjectId>,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let _flush = self.flush_lock()?;
        let at = self.ref_head(name)?.map(|h| h.commit);
        if self.reaches(at, mine, base)? {
            return self.ensure_synced(queue, name, at).map(|()| true);
        }
        let Some(chain) = queue.chain() else {
            return Ok(false);
        };
        match chain.after(at) {
            Some(queued) if queued.contains(&mine) => self.flush(queue, name, at, queued, actor),
            _ => Ok(false),
        }
    }

    /// Writes the objects of the `queued` commits as one pack and moves ref `name`
    /// from `at` to the last of them; false if a file is gone or the ref moved.
    fn flush(
        &self,
        queue: &Queue,
        name: &str,
        at: Option<ObjectId>,
        queued: &[ObjectId],
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let Some(&tip) = queued.last() else {
            return Ok(true);
        };
        let mut memory = Storage::default();
        if queue
            .load(queued, self.repo.object_hash(), &mut memory)
            .is_none()
        {
            return Ok(false);
        }
        // The reflog says what the last change was; a large one went to disk as a pack
        // of its own and is read from there.
        let message = match memory.get(&tip) {
            Some((Kind::Commit, data)) => {
                gix::objs::CommitRef::from_bytes(data, self.repo.object_hash())
                    .map(|c| c.message.to_string())
                    .unwrap_or_default()
            }
            _ => self
                .repo
                .find_commit(tip)
                .ok()
                .and_then(|c| c.message_raw().ok().map(|m| m.to_string()))
                .unwrap_or_default(),
        };
        let objects: Vec<Object<'_>> = memory
            .iter()
            .map(|(id, (kind, data))| (*id, *kind, data.as_slice()))
            .collect();
        if !self.commit_objects(name, at, tip, &objects, actor, &message)? {
            return Ok(false);
        }
        let synced = queue.dir.join(SYNCED);
        replace(&synced, tip.to_string().as_bytes())?;
        Ok(true)
    }

    /// Puts `objects` on disk as one pack, then moves ref `name` from `at` to `commit`
    /// by compare-and-swap, each synced as the fsync policy asks; false if the ref was
    /// not at `at`.
    pub(crate) fn commit_objects(
        &self,
        name: &str,
        at: Option<ObjectId>,
        commit: ObjectId,
        objects: &[Object<'_>],
        actor: &Actor,
        message: &str,
    ) -> Result<bool, StoreError> {
        let policy = self.fsync_policy();
        self.write_pack(objects, super::pack::STORED, policy.objects)?;
        self.clear_stale_ref_lock(name)?;
        if !self.move_ref(name, at, commit, actor, message)? {
            return Ok(false);
        }
        if policy.refs {
            self.sync_ref(name)?;
        }
        Ok(true)
    }

    /// Whether `commit` is reachable from `at`, looking no further back than `base`
    /// (which it was built on).
    fn reaches(
        &self,
        at: Option<ObjectId>,
        commit: ObjectId,
        base: Option<ObjectId>,
    ) -> Result<bool, StoreError> {
        let Some(at) = at else {
            return Ok(false);
        };
        if at == commit {
            return Ok(true);
        }
        if Some(at) == base {
            return Ok(false);
        }
        let walk = self
            .repo
            .rev_walk([at])
            .selected(move |id| Some(id.to_owned()) != base)
            .map_err(super::git_err("walk the store's history"))?;
        for info in walk {
            let info = info.map_err(|e| {
                super::git_err("walk the store's history")(gix::Error::from_error(e))
            })?;
            if info.id == commit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Syncs ref `name`, at `at`, unless the writer that moved it did (a writer killed
    /// between moving the ref and syncing it leaves that to the next one).
    fn ensure_synced(
        &self,
        queue: &Queue,
        name: &str,
        at: Option<ObjectId>,
    ) -> Result<(), StoreError> {
        let synced = queue.dir.join(SYNCED);
        let Some(at) = at else {
            return Ok(());
        };
        let done = std::fs::read_to_string(&synced)
            .is_ok_and(|s| ObjectId::from_hex(s.trim().as_bytes()).is_ok_and(|s| s == at));
        if done || !self.fsync_policy().refs {
            return Ok(());
        }
        self.sync_ref(name)?;
        replace(&synced, at.to_string().as_bytes())
    }

    /// Flushes every ref's queued commits, for a writer that moves refs under the
    /// write lock by itself (a sync, the notes): it must start from the whole chain.
    pub(crate) fn flush_queues(&self) -> Result<(), StoreError> {
        for name in [super::refs::MAIN, super::refs::WISPS] {
            self.flush_queue(name.as_str())?;
        }
        Ok(())
    }

    /// Flushes the commits queued for ref `name`, if there are any (the caller holds
    /// the write lock, so no more come meanwhile). If the ref left the chain, they are
    /// left to their writers, which run their operations again.
    pub(crate) fn flush_queue(&self, name: &str) -> Result<(), StoreError> {
        let Some(queue) = self.queue(name) else {
            return Ok(());
        };
        let pending = |at| {
            queue
                .chain()
                .and_then(|c| c.after(at).map(<[_]>::to_vec))
                .unwrap_or_default()
        };
        if pending(self.ref_head(name)?.map(|h| h.commit)).is_empty() {
            return Ok(());
        }
        let _flush = self.flush_lock()?;
        let at = self.ref_head(name)?.map(|h| h.commit);
        let queued = pending(at);
        let actor = self
            .identity()
            .unwrap_or_else(|_| Actor::person("git-beads", ""));
        self.flush(&queue, name, at, &queued, &actor)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn chains_round_trip_and_belong_to_their_boot() {
        let chain = Chain {
            base: Some(id(1)),
            commits: vec![id(2), id(3)],
        };
        let text = chain.render("boot-a");
        assert_eq!(Chain::parse(&text, "boot-a"), Some(chain.clone()));
        assert_eq!(Chain::parse(&text, "boot-b"), None);
        assert_eq!(Chain::parse(&text[..text.len() - 5], "boot-a"), None);
        assert_eq!(chain.after(Some(id(1))), Some(&[id(2), id(3)][..]));
        assert_eq!(chain.after(Some(id(2))), Some(&[id(3)][..]));
        assert_eq!(chain.after(Some(id(3))), Some(&[][..]));
        assert_eq!(chain.after(Some(id(9))), None);
        assert_eq!(chain.after(None), None);
    }

    #[test]
    fn object_files_round_trip_and_reject_garbage() {
        let objects: Vec<Object<'_>> = vec![
            (id(4), Kind::Blob, b"hello".as_slice()),
            (id(5), Kind::Tree, b"".as_slice()),
            (id(6), Kind::Commit, b"tree x".as_slice()),
        ];
        let bytes = encode_objects(&objects);
        let mut into = Storage::default();
        assert_eq!(
            decode_objects(&bytes, gix::hash::Kind::Sha1, &mut into),
            Some(())
        );
        assert_eq!(into.len(), 3);
        assert_eq!(into.get(&id(4)), Some(&(Kind::Blob, b"hello".to_vec())));
        let mut into = Storage::default();
        let cut = &bytes[..bytes.len() - 1];
        assert_eq!(decode_objects(cut, gix::hash::Kind::Sha1, &mut into), None);
        assert_eq!(decode_objects(&[9], gix::hash::Kind::Sha1, &mut into), None);
    }
}
