//! Transactions: one atomic change of a store ref, and the view of the state it
//! reads.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use gix::ObjectId;
use serde::Serialize;

use super::index::{Index, Part};
use super::lock::WriteLock;
use super::refs::RefName;
use super::{
    FORMAT, Head, Meta, Store, StoreError, codec, decode_bead, decode_doc, group, io_err, pack,
    refs, tree,
};
use crate::model::config::Settings;
use crate::model::{Actor, Bead, BeadId};

/// How often a writer re-applies its operation when the ref moved under it
/// (only possible when something bypassed the write lock).
pub(super) const MAX_ATTEMPTS: usize = 32;

impl Store {
    /// Runs `op` as one atomic change of `refs/beads/main`, authored by `actor`
    /// (see [`Store::transact_on`]).
    pub fn transact<T, E>(
        &self,
        actor: &Actor,
        op: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<(T, Option<ObjectId>), E>
    where
        E: From<StoreError>,
    {
        self.transact_on(refs::MAIN, actor, op)
    }

    /// Runs `op` as one atomic change of store ref `name`, authored by `actor`.
    ///
    /// Writers of one repository serialize on an OS lock; under it, `op` reads the
    /// newest state through the [`Tx`] (commits of other writers still being flushed
    /// included), stages documents, and the result becomes one commit, queued to move
    /// the ref by compare-and-swap together with the others (see the `group` module).
    /// Should the ref have moved anyway (something bypassed the lock), `op` runs again
    /// on the new state: operations are re-applied, never text-merged. An `op` that
    /// stages nothing commits nothing. Returns `op`'s value and the new commit, if one
    /// was made, once the ref holds it.
    pub fn transact_on<T, E>(
        &self,
        name: RefName,
        actor: &Actor,
        mut op: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<(T, Option<ObjectId>), E>
    where
        E: From<StoreError>,
    {
        let queue = self.queue(name.as_str());
        for _ in 0..MAX_ATTEMPTS {
            let lock = self.write_lock_alone()?;
            let mut start = self.start(queue.as_ref(), name.as_str())?;
            let mut work = self.buffered();
            // An operation reads the root and the beads' directory several times.
            work.repo.object_cache_size(4 << 20);
            let queued: std::collections::HashSet<ObjectId> =
                start.objects.keys().copied().collect();
            work.repo
                .objects
                .set_object_memory(std::mem::take(&mut start.objects));
            let head = start.tip().map(|c| work.head_at(c)).transpose()?;
            let mut tx = Tx {
                view: View {
                    store: &work,
                    ref_name: name,
                    head,
                    writes: BTreeMap::new(),
                    index: OnceCell::new(),
                    queued: start.tip() != start.base(),
                },
                message: String::new(),
            };
            let value = op(&mut tx)?;
            let (writes, message) = (tx.view.writes, tx.message);
            if writes.is_empty() {
                drop(lock);
                // What `op` saw must be as durable as a write would be.
                match (&queue, start.tip()) {
                    (Some(queue), Some(tip)) if start.tip() != start.base() => {
                        if self.settle(queue, name.as_str(), tip, start.base(), actor)? {
                            return Ok((value, None));
                        }
                    }
                    _ => return Ok((value, None)),
                }
                continue;
            }
            let tree = work.write_tree(head.map(|h| h.tree), &writes)?;
            let parents: Vec<ObjectId> = head.map(|h| h.commit).into_iter().collect();
            let commit = work.write_commit(tree, &parents, actor, &message)?;
            let memory = work.repo.objects.take_object_memory().unwrap_or_default();
            let mut added: Vec<group::Object<'_>> = memory
                .iter()
                .filter(|(id, _)| !queued.contains(*id))
                .map(|(id, (kind, data))| (*id, *kind, data.as_slice()))
                .collect();
            let Some(queue) = &queue else {
                if self.commit_objects(
                    name.as_str(),
                    start.base(),
                    commit,
                    &added,
                    actor,
                    &message,
                )? {
                    self.tidy_packs();
                    return Ok((value, Some(commit)));
                }
                continue;
            };
            // A large change goes to disk as a pack of its own at once: copying it
            // through the queue would cost more than the sync it shares.
            if added.len() >= pack::PACK_THRESHOLD {
                self.write_pack(&added, pack::level_for(&added), self.fsync_policy().objects)?;
                added.clear();
            }
            let base = start.base();
            self.enqueue(queue, start, commit, &added)?;
            drop(lock);
            if self.settle(queue, name.as_str(), commit, base, actor)? {
                self.tidy_packs();
                return Ok((value, Some(commit)));
            }
        }
        Err(StoreError::Contended(name.to_string()).into())
    }

    /// Runs `op` as [`Store::transact`] would, on `refs/beads/main` as it is now, but
    /// only writes the commit, moving no ref: what a change that a remote must confirm
    /// first pushes there, before the local store merges it. Returns `op`'s value and
    /// the commit (its parent the head it read), or `None` when `op` staged nothing.
    pub fn prepare<T, E>(
        &self,
        actor: &Actor,
        op: impl FnOnce(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<(T, Option<ObjectId>), E>
    where
        E: From<StoreError>,
    {
        // With the lock held, the queued commits are in the ref: the head is the newest.
        let lock = self.write_lock()?;
        let head = self.head()?;
        drop(lock);
        let mut work = self.buffered();
        let mut tx = Tx {
            view: View {
                store: &work,
                ref_name: refs::MAIN,
                head,
                writes: BTreeMap::new(),
                index: OnceCell::new(),
                queued: false,
            },
            message: String::new(),
        };
        let value = op(&mut tx)?;
        let (writes, message) = (tx.view.writes, tx.message);
        if writes.is_empty() {
            return Ok((value, None));
        }
        let tree = work.write_tree(head.map(|h| h.tree), &writes)?;
        let parents: Vec<ObjectId> = head.map(|h| h.commit).into_iter().collect();
        let commit = work.write_commit(tree, &parents, actor, &message)?;
        self.write_buffered(&mut work)?;
        Ok((value, Some(commit)))
    }

    /// Takes the repository's write lock (shared by every worktree), blocking until it
    /// is ours, with every queued commit flushed to its ref: the holder may move refs
    /// by itself.
    pub(crate) fn write_lock(&self) -> Result<WriteLock, StoreError> {
        let lock = self.write_lock_alone()?;
        self.flush_queues()?;
        Ok(lock)
    }

    /// Merges packs after a write that committed (see [`Store::housekeep`]).
    /// The write itself is done and durable: failing to tidy up after it (a full disk)
    /// must not report it as failed, and the next write tries again.
    pub(super) fn tidy_packs(&self) {
        let _ = self.housekeep();
    }

    /// Rewrites store ref `name` as one commit without parents holding the tree it
    /// holds now, and removes the ref's reflog: whatever its earlier commits held is
    /// then reachable from nothing, so `git gc` drops it. For a local-only ref whose
    /// history must not keep what was taken out of it (purged wisps); a ref that is
    /// absent, or one commit already, is left as it is. Returns whether it moved.
    pub fn forget_history(
        &self,
        name: RefName,
        actor: &Actor,
        message: &str,
    ) -> Result<bool, StoreError> {
        let _lock = self.write_lock()?;
        let Some(head) = self.ref_head(name.as_str())? else {
            return Ok(false);
        };
        let parents = self
            .repo
            .find_commit(head.commit)
            .map_err(|e| super::git_err(format!("read {name}"))(gix::Error::from_error(e)))?
            .parent_ids()
            .count();
        if parents == 0 {
            return Ok(false);
        }
        let mut work = self.buffered();
        let root = work.write_commit(head.tree, &[], actor, message)?;
        let memory = work.repo.objects.take_object_memory().unwrap_or_default();
        let objects: Vec<group::Object<'_>> = memory
            .iter()
            .map(|(id, (kind, data))| (*id, *kind, data.as_slice()))
            .collect();
        if !self.commit_objects(
            name.as_str(),
            Some(head.commit),
            root,
            &objects,
            actor,
            message,
        )? {
            return Err(StoreError::Contended(name.to_string()));
        }
        let log = self.common_dir().join("logs").join(name.as_str());
        match std::fs::remove_file(&log) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(io_err(format!("remove {}", log.display()))(e))
            }
            _ => Ok(true),
        }
    }

    /// Takes the write lock, leaving queued commits queued.
    pub(super) fn write_lock_alone(&self) -> Result<WriteLock, StoreError> {
        let lock_path = self.local_dir().join("write.lock");
        WriteLock::acquire(&lock_path).map_err(io_err(format!("lock {}", lock_path.display())))
    }

    /// A view of `refs/beads/main` at its current head, for reading: the read helpers
    /// of a transaction, and nothing to stage.
    pub fn view(&self) -> Result<View<'_>, StoreError> {
        Ok(View {
            store: self,
            ref_name: refs::MAIN,
            head: Some(self.require_head()?),
            writes: BTreeMap::new(),
            index: OnceCell::new(),
            queued: false,
        })
    }

    /// A view of store ref `name` (which may not exist yet: then it is empty).
    pub fn view_of(&self, name: RefName) -> Result<View<'_>, StoreError> {
        Ok(View {
            store: self,
            ref_name: name,
            head: self.ref_head(name.as_str())?,
            writes: BTreeMap::new(),
            index: OnceCell::new(),
            queued: false,
        })
    }
}

/// Something staged at a path of the store's tree.
pub(super) enum Staged {
    /// A document.
    Blob(Vec<u8>),
    /// A subtree taken as it is (a worktree snapshot).
    Tree(ObjectId),
    /// Nothing: the path goes.
    Remove,
}

/// A state of a store ref to read from: documents, their listings and the index, as
/// stored (and, under a [`Tx`], as staged by it). A view made by [`Store::view`] has
/// no way to stage anything:
///
/// ```compile_fail
/// # fn stage(store: &git_beads::store::Store, bead: &git_beads::model::Bead) {
/// let mut view = store.view().expect("a store");
/// let _ = view.put_bead(bead);
/// # }
/// ```
pub struct View<'s> {
    pub(super) store: &'s Store,
    pub(super) ref_name: RefName,
    pub(super) head: Option<Head>,
    /// What the transaction reading through this view has staged (nothing, for a
    /// plain view): reads see it over the stored state.
    pub(super) writes: BTreeMap<String, Staged>,
    pub(super) index: OnceCell<Index>,
    /// Whether `head` is a commit still queued for the ref (see the `group` module).
    pub(super) queued: bool,
}

/// One atomic change being put together: it reads through its [`View`], which sees
/// the state it started from plus what it has staged so far.
pub struct Tx<'s> {
    view: View<'s>,
    pub(super) message: String,
}

impl<'s> std::ops::Deref for Tx<'s> {
    type Target = View<'s>;

    fn deref(&self) -> &View<'s> {
        &self.view
    }
}

impl<'s> std::ops::DerefMut for Tx<'s> {
    fn deref_mut(&mut self) -> &mut View<'s> {
        &mut self.view
    }
}

impl Tx<'_> {
    /// Sets the commit message: what happened, in one line, then detail.
    pub fn set_message(&mut self, message: impl Into<String>) {
        self.message = message.into();
    }

    /// Stages the meta document.
    pub fn put_meta(&mut self, meta: &Meta) -> Result<(), StoreError> {
        self.put(refs::META_PATH, meta, "meta.yaml")
    }

    /// Stages the project's settings; none removes their document.
    pub fn put_settings(&mut self, settings: &Settings) -> Result<(), StoreError> {
        if settings.is_empty() {
            self.writes
                .insert(refs::CONFIG_PATH.to_owned(), Staged::Remove);
            return Ok(());
        }
        self.put(refs::CONFIG_PATH, settings, refs::CONFIG_PATH)
    }

    /// Stages a bead's document, with the entries of the document it replaces that no
    /// field of a bead holds (see [`codec::keep_unknown`]).
    pub fn put_bead(&mut self, bead: &Bead) -> Result<(), StoreError> {
        let path = refs::bead_path(&bead.id);
        let mut text = encoded(bead, bead.id.as_str())?;
        if let Some(before) = self.read(&path)? {
            codec::keep_unknown(&before, codec::field_names::<Bead>(), &mut text);
        }
        self.writes.insert(path, Staged::Blob(text));
        Ok(())
    }

    /// Stages the documents of `beads`, new ones (nothing of an earlier document is
    /// carried, as [`Tx::put_bead`] carries it), encoded on every core when there are
    /// many: encoding YAML is most of staging a thousand new beads (a pour).
    pub fn put_beads(&mut self, beads: &[Bead]) -> Result<(), StoreError> {
        let encode = |part: &[Bead]| -> Result<Vec<(String, Vec<u8>)>, StoreError> {
            part.iter()
                .map(|b| Ok((refs::bead_path(&b.id), encoded(b, b.id.as_str())?)))
                .collect()
        };
        let parts = pack::in_parts(beads, encode);
        for part in parts {
            for (path, text) in part? {
                self.writes.insert(path, Staged::Blob(text));
            }
        }
        Ok(())
    }

    /// Stages the removal of a bead's document. For local-only refs (wisps): on a
    /// shared ref a deleted bead stays as a tombstone so that the deletion syncs.
    pub fn remove_bead(&mut self, id: &BeadId) {
        self.writes.insert(refs::bead_path(id), Staged::Remove);
    }

    /// Stages the document at `path`.
    pub fn put_doc<T: Serialize>(&mut self, path: &str, value: &T) -> Result<(), StoreError> {
        self.put(path, value, path)
    }

    fn put<T: Serialize>(&mut self, path: &str, value: &T, what: &str) -> Result<(), StoreError> {
        let text = encoded(value, what)?;
        self.writes.insert(path.to_owned(), Staged::Blob(text));
        Ok(())
    }

    /// Stages moving the document at `from` to `to` as it is, byte for byte (a document
    /// set aside under `lost+found/`). Returns whether there was one to move.
    pub fn move_doc(&mut self, from: &str, to: &str) -> Result<bool, StoreError> {
        let Some(bytes) = self.read(from)? else {
            return Ok(false);
        };
        self.writes.insert(to.to_owned(), Staged::Blob(bytes));
        self.writes.insert(from.to_owned(), Staged::Remove);
        Ok(true)
    }

    /// Stages a subtree (e.g. a worktree snapshot) at `path`, or removes one with `None`.
    pub fn put_subtree(&mut self, path: &str, tree: Option<ObjectId>) {
        let staged = tree.map(Staged::Tree).unwrap_or(Staged::Remove);
        self.writes.insert(path.to_owned(), staged);
    }
}

/// The canonical document of `value` (`what`, for an error).
fn encoded<T: Serialize>(value: &T, what: &str) -> Result<Vec<u8>, StoreError> {
    codec::encode(value)
        .map(String::into_bytes)
        .map_err(|source| StoreError::Encode {
            what: what.to_owned(),
            source,
        })
}

impl View<'_> {
    /// The store this reads (for a transaction, one that sees the commits queued
    /// before it).
    pub(crate) fn store(&self) -> &Store {
        self.store
    }

    /// The ref this state is of (and a change reading through it moves).
    pub fn ref_name(&self) -> RefName {
        self.ref_name
    }

    /// The commit of this state (`None` before the first commit).
    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// The store's meta document, as staged or stored.
    pub fn meta(&self) -> Result<Meta, StoreError> {
        let bytes = self
            .read(refs::META_PATH)?
            .ok_or(StoreError::NotInitialized)?;
        let meta: Meta = decode_doc(refs::META_PATH, &bytes)?;
        if meta.format > FORMAT {
            return Err(StoreError::NewerFormat { found: meta.format });
        }
        Ok(meta)
    }

    /// The project's settings (`config set`), as staged or stored; none before the
    /// first is set.
    pub fn settings(&self) -> Result<Settings, StoreError> {
        self.read(refs::CONFIG_PATH)?
            .map(|bytes| decode_doc(refs::CONFIG_PATH, &bytes))
            .transpose()
            .map(Option::unwrap_or_default)
    }

    /// The bead `id`, as staged or stored.
    pub fn bead(&self, id: &BeadId) -> Result<Option<Bead>, StoreError> {
        let path = refs::bead_path(id);
        self.read(&path)?
            .map(|bytes| decode_bead(&path, id, &bytes))
            .transpose()
    }

    /// Whether a document exists for bead `id`, staged or stored, without parsing it.
    pub fn bead_exists(&self, id: &BeadId) -> Result<bool, StoreError> {
        Ok(self.read(&refs::bead_path(id))?.is_some())
    }

    /// The document at `path`, as staged or stored.
    pub fn doc<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<Option<T>, StoreError> {
        self.read(path)?
            .map(|bytes| decode_doc(path, &bytes))
            .transpose()
    }

    /// The paths of every document below directory `dir`, as stored and staged.
    pub fn list_docs(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        let mut paths: std::collections::BTreeSet<String> = match &self.head {
            Some(head) => self
                .store
                .list_docs(head.tree, dir)?
                .into_iter()
                .map(|(p, _)| p)
                .collect(),
            None => Default::default(),
        };
        let below = format!("{dir}/");
        for (path, staged) in &self.writes {
            if path.starts_with(&below) {
                match staged {
                    Staged::Blob(_) => paths.insert(path.clone()),
                    Staged::Tree(_) | Staged::Remove => paths.remove(path),
                };
            }
        }
        Ok(paths.into_iter().collect())
    }

    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.writes.get(path) {
            Some(Staged::Blob(bytes)) => return Ok(Some(bytes.clone())),
            Some(Staged::Tree(_) | Staged::Remove) => return Ok(None),
            None => {}
        }
        match &self.head {
            Some(head) => self.store.read_path(head.tree, path),
            None => Ok(None),
        }
    }

    /// The names of the documents in one fan-out directory of beads, as stored
    /// and staged (for numbering children), sorted. The writes staged in that
    /// directory are looked up by their paths' common start, so the cost follows
    /// the directory, not every write of the transaction.
    pub fn bead_ids_near(&self, id: &BeadId) -> Result<Vec<String>, StoreError> {
        let dir = format!("{}/{}/", refs::BEADS_DIR, id.fanout());
        let mut names = BTreeSet::new();
        if let Some(head) = &self.head
            && let Some(subtree) = self.subtree(head.tree, dir.trim_end_matches('/'))?
        {
            for name in tree::entries(&self.store.repo, subtree)?.into_keys() {
                if let Some(id) = name.strip_suffix(".yaml") {
                    names.insert(id.to_owned());
                }
            }
        }
        let staged =
            (self.writes.range(dir.clone()..)).take_while(|(path, _)| path.starts_with(&dir));
        for (path, staged) in staged {
            if let Some(id) = refs::bead_id_of_path(path) {
                match staged {
                    Staged::Blob(_) => names.insert(id.to_owned()),
                    Staged::Tree(_) | Staged::Remove => names.remove(id),
                };
            }
        }
        Ok(names.into_iter().collect())
    }

    /// The beads `ids`, as staged or stored (`None` for each that is not), reading the
    /// fan-out directory of `near` once for all of them: a molecule's 100 000 steps,
    /// which share their molecule's directory, cost one pass over it, not one each.
    pub fn beads_near(
        &self,
        near: &BeadId,
        ids: &[BeadId],
    ) -> Result<Vec<Option<Bead>>, StoreError> {
        let dir = format!("{}/{}", refs::BEADS_DIR, near.fanout());
        let stored = match &self.head {
            Some(head) => match self.subtree(head.tree, &dir)? {
                Some(subtree) => tree::entries(&self.store.repo, subtree)?,
                None => BTreeMap::new(),
            },
            None => BTreeMap::new(),
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let path = refs::bead_path(id);
            let bytes = match self.writes.get(&path) {
                Some(Staged::Blob(bytes)) => Some(bytes.clone()),
                Some(Staged::Tree(_) | Staged::Remove) => None,
                None if id.fanout() == near.fanout() => match stored.get(&format!("{id}.yaml")) {
                    Some(tree::Node::Blob(blob)) => Some(self.store.read_blob(*blob)?),
                    _ => None,
                },
                None => self.read(&path)?,
            };
            out.push(bytes.map(|b| decode_bead(&path, id, &b)).transpose()?);
        }
        Ok(out)
    }

    /// An estimate of how many beads the store holds, from two tree reads: the number
    /// of fan-out directories times the size of one. Cheap at any store size.
    pub fn bead_count_estimate(&self) -> Result<usize, StoreError> {
        let Some(head) = &self.head else {
            return Ok(0);
        };
        let Some(beads) = self.subtree(head.tree, refs::BEADS_DIR)? else {
            return Ok(0);
        };
        let (dirs, first) = self.store.count_entries(beads)?;
        match first {
            Some(first) => Ok(dirs * self.store.count_entries(first)?.0),
            None => Ok(dirs),
        }
    }

    /// The beads of the index at the state this change started from (staged documents
    /// are not in it; neither are the mail and the search text).
    pub fn index(&self) -> Result<&Index, StoreError> {
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        // The index cache is keyed by tree and read by every process: one saved for a
        // tree still queued (not on disk yet) would make readers rebuild it from
        // scratch. So the queue goes to disk first.
        if self.queued {
            self.store.flush_queue(self.ref_name.as_str())?;
        }
        let index = match &self.head {
            Some(head) => {
                Index::load_parts(self.store, self.ref_name.as_str(), head, &[Part::Beads])?
            }
            None => Index::default(),
        };
        Ok(self.index.get_or_init(|| index))
    }

    fn subtree(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>, StoreError> {
        self.store.subtree(tree, path)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Bead, BeadId, Timestamp};

    /// `bead_ids_near` reads the stored directory with the writes staged in it laid
    /// over: added beads in, removed ones out, beads of other directories not at all.
    #[test]
    fn ids_near_a_bead_are_the_stored_ones_with_the_staged_writes() {
        let (_dir, store) = crate::store::Store::temp_for_tests();
        let id = |s: &str| BeadId::parse(s).expect("id");
        let bead = |s: &str| Bead::new(id(s), "t".into(), "tester", Timestamp::default());
        let parent = id("bd-near");
        store.commit_for_tests(|tx| {
            for s in ["bd-near", "bd-near.1", "bd-near.2", "bd-near.3"] {
                tx.put_bead(&bead(s)).expect("put");
            }
        });
        let elsewhere = (0..)
            .map(|n| format!("bd-o{n}"))
            .find(|o| id(o).fanout() != parent.fanout())
            .expect("an id in another directory");
        store.commit_for_tests(|tx| {
            tx.remove_bead(&id("bd-near.2"));
            tx.put_bead(&bead("bd-near.4")).expect("put");
            tx.put_bead(&bead("bd-near.2.1")).expect("put");
            tx.put_bead(&bead(&elsewhere)).expect("put");
            let near = tx.bead_ids_near(&parent).expect("ids");
            assert_eq!(
                near,
                [
                    "bd-near",
                    "bd-near.1",
                    "bd-near.2.1",
                    "bd-near.3",
                    "bd-near.4"
                ]
            );
        });
    }
}
