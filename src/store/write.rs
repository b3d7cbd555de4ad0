//! Writing git objects and moving refs: the tree and commit of a change, and the
//! compare-and-swap that publishes it.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::tx::Staged;
use super::{Store, StoreError, git_err, io_err, refs};
use crate::model::Actor;

impl Store {
    /// A ref's `.lock` file left by a killed writer would block every later write of
    /// it, and so would git's `packed-refs.lock`, which a `git fetch --prune` killed
    /// while pruning leaves (updating a ref that is also packed takes that lock too).
    /// Other git-beads writers hold the write lock we hold, but plain git may lock
    /// them for a moment too (`git pack-refs` pruning the ref, `git update-ref`):
    /// removing a live lock would let git undo our write when it finishes (a pruned
    /// loose ref falls back to the old packed value). So a `.lock` is only removed
    /// once it is older than git itself waits for one (`core.packedRefsTimeout`, a
    /// second); a younger one is waited for.
    pub(crate) fn clear_stale_ref_lock(&self, name: &str) -> Result<(), StoreError> {
        for locked in [name, refs::PACKED_REFS] {
            clear_stale_lock(&self.common_dir().join(format!("{locked}.lock")))?;
        }
        Ok(())
    }

    /// [`Store::clear_stale_ref_lock`] for every ref under `prefix` (a namespace ending
    /// in `/`) that has a `.lock` beside it, and for `packed-refs`.
    pub(crate) fn clear_stale_ref_locks_under(&self, prefix: &str) -> Result<(), StoreError> {
        let common = self.common_dir();
        clear_stale_lock(&common.join(format!("{}.lock", refs::PACKED_REFS)))?;
        for entry in walkdir::WalkDir::new(common.join(prefix))
            .into_iter()
            .filter_map(Result::ok)
        {
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|x| x == "lock")
            {
                clear_stale_lock(entry.path())?;
            }
        }
        Ok(())
    }

    /// Writes `writes` (blobs, subtrees, removals by path) on top of `base`; returns the
    /// new tree.
    ///
    /// gix's own tree editor checks that every entry of every tree it writes exists
    /// and has a valid name: for the directory of all beads, over a thousand lookups
    /// per write. Here only what this change puts in is checked: the names on its
    /// paths, and that a subtree it takes as it is exists.
    pub(super) fn write_tree(
        &self,
        base: Option<ObjectId>,
        writes: &BTreeMap<String, Staged>,
    ) -> Result<ObjectId, StoreError> {
        use gix::objs::Write as _;
        use gix::objs::tree::EntryKind;
        let hash = self.repo.object_hash();
        let root = self.decoded_tree(base)?;
        let mut editor = gix::objs::tree::Editor::new(root, &self.repo.objects, hash);
        let bad_path = |path: &str, e: gix::Error| git_err(format!("place {path} in the tree"))(e);
        let blobs: Vec<&[u8]> = writes
            .values()
            .filter_map(|s| match s {
                Staged::Blob(bytes) => Some(bytes.as_slice()),
                _ => None,
            })
            .collect();
        let mut blob_ids = blob_ids(&blobs, hash)?.into_iter();
        for (path, staged) in writes {
            for part in path.split('/') {
                gix::validate::path::component(part.into(), None, Default::default())
                    .map_err(|e| bad_path(path, gix::Error::from_error(e)))?;
            }
            let placed = match staged {
                Staged::Blob(bytes) => {
                    let id = blob_ids.next().ok_or_else(|| {
                        git_err(format!("write {path}"))(gix::Error::from_error(
                            std::io::Error::other("its id was not computed"),
                        ))
                    })?;
                    let blob = self
                        .repo
                        .objects
                        .write_buf_with_known_id(gix::objs::Kind::Blob, bytes, id)
                        .map_err(|e| git_err(format!("write {path}"))(gix::Error::from_error(e)))?;
                    editor.upsert(path.split('/'), EntryKind::Blob, blob)
                }
                Staged::Tree(id) => {
                    if !self.repo.has_object(id) {
                        return Err(bad_path(
                            path,
                            gix::Error::from_error(std::io::Error::other(format!(
                                "tree {id} does not exist"
                            ))),
                        ));
                    }
                    editor.upsert(path.split('/'), EntryKind::Tree, *id)
                }
                Staged::Remove => editor.remove(path.split('/')),
            };
            placed.map_err(|e| bad_path(path, gix::Error::from_error(e)))?;
        }
        editor
            .write(|tree| self.repo.objects.write(tree))
            .map_err(|e| git_err("write the store's tree")(gix::Error::from_error(e)))
    }

    /// Writes a commit of `tree` with `parents` (for merges: local first), authored and
    /// committed by `actor`, and signed with its key when it has one
    /// ([`Store::signer_for`]).
    pub(crate) fn write_commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        actor: &Actor,
        message: &str,
    ) -> Result<ObjectId, StoreError> {
        let now = chrono::Utc::now().timestamp();
        let signature = gix::actor::Signature {
            name: actor.name.as_str().into(),
            email: actor.email.as_str().into(),
            time: gix::date::Time::new(now, 0),
        };
        let mut message = message.trim_end().to_owned();
        message.push_str(&format!("\n\nBeads-Actor: {}\n", actor.id));
        if let Some(session) = &actor.session {
            message.push_str(&format!("Beads-Session: {session}\n"));
        }
        let commit = gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: signature.clone(),
            committer: signature,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        let signer = self.or_unsigned(self.signer_for(actor))?;
        self.write_signed(commit, signer.as_ref())
    }

    /// Moves ref `name` from `expected` to `new` by compare-and-swap; returns false if
    /// the ref was not at `expected`.
    pub(crate) fn move_ref(
        &self,
        name: &str,
        expected: Option<ObjectId>,
        new: ObjectId,
        actor: &Actor,
        message: &str,
    ) -> Result<bool, StoreError> {
        use gix::refs::Target;
        use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
        let full_name = gix::refs::FullName::try_from(name)
            .map_err(|e| git_err(format!("use ref name {name}"))(gix::Error::from_error(e)))?;
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: message.lines().next().unwrap_or_default().into(),
                },
                expected: match expected {
                    Some(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
                    None => PreviousValue::MustNotExist,
                },
                new: Target::Object(new),
            },
            name: full_name,
            deref: false,
        };
        let signature = gix::actor::Signature {
            name: actor.name.as_str().into(),
            email: actor.email.as_str().into(),
            time: gix::date::Time::new(chrono::Utc::now().timestamp(), 0),
        };
        let mut time_buf = Default::default();
        match self
            .repo
            .edit_references_as([edit], Some(signature.to_ref(&mut time_buf)))
        {
            Ok(_) => Ok(true),
            Err(e) => {
                let now = self.ref_head(name)?.map(|h| h.commit);
                if now == Some(new) {
                    // The ref did move to our commit (something after the swap
                    // failed, or another process renamed our lock into place): the
                    // write happened, and doing it again would do it twice.
                    Ok(true)
                } else if now != expected {
                    Ok(false)
                } else {
                    Err(git_err(format!("update {name}"))(e))
                }
            }
        }
    }
}

/// Removes `lock` once it is stale (see [`Store::clear_stale_ref_lock`]).
fn clear_stale_lock(lock: &std::path::Path) -> Result<(), StoreError> {
    const STALE: std::time::Duration = std::time::Duration::from_secs(1);
    let started = std::time::Instant::now();
    loop {
        let age = match std::fs::metadata(lock) {
            Ok(meta) => meta
                .modified()
                .ok()
                .and_then(|m| std::time::SystemTime::now().duration_since(m).ok())
                .unwrap_or_default(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_err(format!("look at {}", lock.display()))(e)),
        };
        // Waited out a whole period (its time may be skewed): it is stale too.
        if age >= STALE || started.elapsed() >= STALE {
            return match std::fs::remove_file(lock) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(io_err(format!("remove stale {}", lock.display()))(e)),
            };
        }
        std::thread::sleep((STALE - age).min(std::time::Duration::from_millis(20)));
    }
}

/// The ids of `blobs`, hashed on every core when there are many: hashing is most of
/// placing a thousand new documents in the tree.
fn blob_ids(blobs: &[&[u8]], hash: gix::hash::Kind) -> Result<Vec<ObjectId>, StoreError> {
    let parts = super::pack::in_parts(blobs, |part| {
        part.iter()
            .map(|b| {
                gix::objs::compute_hash(hash, gix::objs::Kind::Blob, b)
                    .map_err(git_err("hash the store's documents"))
            })
            .collect::<Result<Vec<_>, _>>()
    });
    let mut ids = Vec::with_capacity(blobs.len());
    for part in parts {
        ids.extend(part?);
    }
    Ok(ids)
}
