//! The only code that touches git: opening the repository, reading documents from
//! the store's tree, committing changes atomically, the history and the index.

pub mod codec;
mod index;
mod lock;
pub mod refs;
mod tree;

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use serde::{Deserialize, Serialize};

pub use index::{Broken, Index, Summary};
pub use tree::DocChange;

use crate::model::{Actor, Bead, BeadId, Prefix, Timestamp};
use codec::CodecError;
pub(crate) use lock::WriteLock;

/// The format version of the store's tree, recorded in `meta.yaml`.
pub const FORMAT: u32 = 1;

/// How often a writer re-applies its operation when the ref moved under it
/// (only possible when something bypassed the write lock).
const MAX_ATTEMPTS: usize = 32;

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No git repository was found.
    #[error("not a git repository: {path}")]
    NotARepo {
        /// Where the search started.
        path: PathBuf,
        /// What gix reported.
        #[source]
        source: Box<gix::Error>,
    },
    /// The repository has no beads store yet.
    #[error("this repository has no beads store yet")]
    NotInitialized,
    /// The store was written by a newer git-beads.
    #[error("the store has format {found}, this git-beads reads format {FORMAT} and older")]
    NewerFormat {
        /// The format recorded in the store.
        found: u32,
    },
    /// A git operation failed.
    #[error("git: could not {context}")]
    Git {
        /// What was being done.
        context: String,
        /// What gix reported.
        #[source]
        source: Box<gix::Error>,
    },
    /// A document in the store does not parse.
    #[error("{path} does not parse: {source}")]
    Document {
        /// The document's path in the store's tree.
        path: String,
        /// The parse error.
        #[source]
        source: CodecError,
    },
    /// A value could not be encoded.
    #[error("could not encode {what}: {source}")]
    Encode {
        /// What was being encoded.
        what: String,
        /// The encoding error.
        #[source]
        source: CodecError,
    },
    /// A file outside the object database could not be read or written.
    #[error("could not {context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// No author identity is configured.
    #[error(
        "no identity to author the change (set user.name and user.email, or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL)"
    )]
    NoIdentity,
    /// The ref kept moving under the writer.
    #[error("{0} kept moving while this command tried to update it; nothing was changed")]
    Contended(String),
}

/// Wraps a gix error with what was being done.
pub(crate) fn git_err(context: impl Into<String>) -> impl FnOnce(gix::Error) -> StoreError {
    let context = context.into();
    move |source| StoreError::Git {
        context,
        source: Box::new(source),
    }
}

fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> StoreError {
    let context = context.into();
    move |source| StoreError::Io { context, source }
}

/// The commit a store ref points at, and its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The commit.
    pub commit: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
}

/// The store's own record of itself, at `meta.yaml` in the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The format version of the tree layout.
    pub format: u32,
    /// The prefix of new ids.
    pub prefix: Prefix,
}

/// One commit of the store's history, with the documents it changed.
#[derive(Clone, Debug)]
pub struct HistoryEntry {
    /// The commit id.
    pub commit: ObjectId,
    /// The author's name.
    pub author: String,
    /// The author's email.
    pub email: String,
    /// When, in seconds since the epoch.
    pub time: i64,
    /// The commit message.
    pub message: String,
    /// The documents that changed against the first parent.
    pub changes: Vec<DocChange>,
}

/// An open repository and its beads store.
pub struct Store {
    repo: gix::Repository,
}

impl Store {
    /// Opens the repository the way git does: `GIT_DIR` and friends when set (as they
    /// are inside hooks and linked worktrees), else by searching upwards from `dir`.
    pub fn discover(dir: &Path) -> Result<Store, StoreError> {
        let repo = gix::discover_with_environment_overrides(dir).map_err(|source| {
            StoreError::NotARepo {
                path: dir.to_owned(),
                source: Box::new(source),
            }
        })?;
        Ok(Store { repo })
    }

    /// The directory shared by every worktree of the repository.
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// The top of the current worktree, if the repository has one.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    /// Where git-beads keeps machine-local files (lock, index cache).
    pub fn local_dir(&self) -> PathBuf {
        self.common_dir().join("beads")
    }

    /// The commit and tree `refs/beads/main` points at, or `None` before `init`.
    pub fn head(&self) -> Result<Option<Head>, StoreError> {
        self.ref_head(refs::MAIN)
    }

    /// The commit and tree a ref points at, or `None` if it does not exist.
    pub fn ref_head(&self, name: &str) -> Result<Option<Head>, StoreError> {
        let Some(mut r) = self
            .repo
            .try_find_reference(name)
            .map_err(git_err(format!("read {name}")))?
        else {
            return Ok(None);
        };
        let commit = r
            .peel_to_id()
            .map_err(git_err(format!("resolve {name}")))?
            .detach();
        let tree = self
            .repo
            .find_commit(commit)
            .map_err(git_err(format!("read commit {commit} of {name}")))?
            .tree_id()
            .map_err(git_err(format!("read the tree of {commit}")))?
            .detach();
        Ok(Some(Head { commit, tree }))
    }

    /// The head of the store, or [`StoreError::NotInitialized`].
    pub fn require_head(&self) -> Result<Head, StoreError> {
        self.head()?.ok_or(StoreError::NotInitialized)
    }

    /// Reads the store's `meta.yaml` at `head`.
    pub fn meta(&self, head: &Head) -> Result<Meta, StoreError> {
        let bytes = self
            .read_path(head.tree, refs::META_PATH)?
            .ok_or(StoreError::NotInitialized)?;
        let meta: Meta = codec::decode(&bytes).map_err(|source| StoreError::Document {
            path: refs::META_PATH.into(),
            source,
        })?;
        if meta.format > FORMAT {
            return Err(StoreError::NewerFormat { found: meta.format });
        }
        Ok(meta)
    }

    /// The blob at `path` in `tree`, if there is one.
    pub fn read_path(&self, tree: ObjectId, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let tree_obj = self
            .repo
            .find_tree(tree)
            .map_err(git_err(format!("read tree {tree}")))?;
        let Some(entry) = tree_obj
            .lookup_entry(path.split('/').map(str::as_bytes))
            .map_err(git_err(format!("look up {path}")))?
        else {
            return Ok(None);
        };
        if !entry.mode().is_blob() {
            return Ok(None);
        }
        self.read_blob(entry.object_id()).map(Some)
    }

    /// The content of a blob.
    pub fn read_blob(&self, id: ObjectId) -> Result<Vec<u8>, StoreError> {
        let mut blob = self
            .repo
            .find_blob(id)
            .map_err(git_err(format!("read blob {id}")))?;
        Ok(blob.take_data())
    }

    /// The bead `id` as stored in `tree`.
    pub fn read_bead(&self, tree: ObjectId, id: &BeadId) -> Result<Option<Bead>, StoreError> {
        let path = refs::bead_path(id);
        self.read_path(tree, &path)?
            .map(|bytes| decode_bead(&path, id, &bytes))
            .transpose()
    }

    /// The document at `path` in `tree`, decoded.
    pub fn read_doc<T: serde::de::DeserializeOwned>(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<T>, StoreError> {
        self.read_path(tree, path)?
            .map(|bytes| decode_doc(path, &bytes))
            .transpose()
    }

    /// Every document below directory `dir` of `tree`, as (path, blob), in path order.
    pub fn list_docs(
        &self,
        tree: ObjectId,
        dir: &str,
    ) -> Result<Vec<(String, ObjectId)>, StoreError> {
        let mut out = Vec::new();
        if let Some(sub) = self.subtree(tree, dir)? {
            tree::walk_blobs(&self.repo, sub, dir, &mut |p, id| out.push((p, id)))?;
        }
        Ok(out)
    }

    fn subtree(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>, StoreError> {
        let tree_obj = self
            .repo
            .find_tree(tree)
            .map_err(git_err(format!("read tree {tree}")))?;
        let entry = tree_obj
            .lookup_entry(path.split('/').map(str::as_bytes))
            .map_err(git_err(format!("look up {path}")))?;
        Ok(entry.filter(|e| e.mode().is_tree()).map(|e| e.object_id()))
    }

    /// This worktree's own state file (`<git-dir>/beads/<name>`), never shared or pushed.
    pub fn worktree_file(&self, name: &str) -> PathBuf {
        self.repo.git_dir().join("beads").join(name)
    }

    /// Reads a YAML file of this worktree's own state, if it exists.
    pub fn read_worktree_state<T: serde::de::DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<Option<T>, StoreError> {
        let path = self.worktree_file(name);
        match std::fs::read(&path) {
            Ok(bytes) => decode_doc(&path.display().to_string(), &bytes).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(format!("read {}", path.display()))(e)),
        }
    }

    /// Writes (atomically) or, with `None`, removes a YAML file of this worktree's own state.
    pub fn write_worktree_state<T: Serialize>(
        &self,
        name: &str,
        value: Option<&T>,
    ) -> Result<(), StoreError> {
        let path = self.worktree_file(name);
        let Some(value) = value else {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(io_err(format!("remove {}", path.display()))(e))
                }
                _ => Ok(()),
            };
        };
        let text = codec::encode(value).map_err(|source| StoreError::Encode {
            what: name.to_owned(),
            source,
        })?;
        let dir = path.parent().unwrap_or(&path);
        std::fs::create_dir_all(dir).map_err(io_err(format!("create {}", dir.display())))?;
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, text).map_err(io_err(format!("write {}", tmp.display())))?;
        std::fs::rename(&tmp, &path).map_err(io_err(format!("replace {}", path.display())))
    }

    /// The documents that differ between two trees (either may be absent).
    pub fn diff(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
    ) -> Result<Vec<DocChange>, StoreError> {
        let mut out = Vec::new();
        tree::diff(&self.repo, old, new, "", &mut out)?;
        Ok(out)
    }

    /// The index of every bead at `head` of `refs/beads/main`, brought up to date
    /// from the cached one.
    pub fn index(&self, head: &Head) -> Result<Index, StoreError> {
        Index::load(self, refs::MAIN, head)
    }

    /// The history of the store from `head` back along first parents, newest first,
    /// keeping only commits for which `keep` accepts one of the changes (every commit
    /// when `keep` is `None`), at most `limit` of them.
    pub fn history(
        &self,
        head: &Head,
        keep: Option<&dyn Fn(&DocChange) -> bool>,
        limit: usize,
    ) -> Result<Vec<HistoryEntry>, StoreError> {
        let mut out = Vec::new();
        let mut next = Some(head.commit);
        while let Some(id) = next {
            if out.len() >= limit {
                break;
            }
            let commit = self
                .repo
                .find_commit(id)
                .map_err(git_err(format!("read commit {id}")))?;
            let decoded = commit
                .decode()
                .map_err(git_err(format!("decode commit {id}")))?;
            let tree = decoded.tree();
            let parent = decoded.parents().next();
            let parent_tree = match parent {
                Some(p) => Some(
                    self.repo
                        .find_commit(p)
                        .map_err(git_err(format!("read commit {p}")))?
                        .tree_id()
                        .map_err(git_err(format!("read the tree of {p}")))?
                        .detach(),
                ),
                None => None,
            };
            let mut changes = self.diff(parent_tree, Some(tree))?;
            if let Some(keep) = keep {
                changes.retain(|c| keep(c));
            }
            if keep.is_none() || !changes.is_empty() {
                let author = decoded
                    .author()
                    .map_err(git_err(format!("read the author of {id}")))?;
                out.push(HistoryEntry {
                    commit: id,
                    author: author.name.to_str_lossy().into_owned(),
                    email: author.email.to_str_lossy().into_owned(),
                    time: author.time().map(|t| t.seconds).unwrap_or_default(),
                    message: decoded.message.to_str_lossy().into_owned(),
                    changes,
                });
            }
            next = parent;
        }
        Ok(out)
    }

    /// The author identity exactly as git resolves it: `GIT_AUTHOR_NAME` and
    /// `GIT_AUTHOR_EMAIL`, then `user.name` and `user.email`.
    pub fn identity(&self) -> Result<Actor, StoreError> {
        let config = self.repo.config_snapshot();
        let pick = |env: &str, key: &str| {
            std::env::var(env)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .or_else(|| config.string(key).map(|v| v.to_str_lossy().into_owned()))
        };
        let name = pick("GIT_AUTHOR_NAME", "user.name").ok_or(StoreError::NoIdentity)?;
        let email = pick("GIT_AUTHOR_EMAIL", "user.email").unwrap_or_default();
        Ok(Actor::person(name.trim(), email.trim()))
    }

    /// The name of the repository's directory (for deriving a default prefix).
    pub fn repo_name(&self) -> String {
        let dir = self.workdir().unwrap_or_else(|| self.common_dir());
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

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
    /// current state through the [`Tx`], stages documents, and the result becomes one
    /// commit that moves the ref by compare-and-swap. Should the ref have moved anyway
    /// (something bypassed the lock), `op` runs again on the new state: operations
    /// are re-applied, never text-merged. An `op` that stages nothing commits nothing.
    /// Returns `op`'s value and the new commit, if one was made.
    pub fn transact_on<T, E>(
        &self,
        name: &'static str,
        actor: &Actor,
        mut op: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<(T, Option<ObjectId>), E>
    where
        E: From<StoreError>,
    {
        let _lock = self.write_lock()?;
        self.clear_stale_ref_lock(name)?;
        for _ in 0..MAX_ATTEMPTS {
            let head = self.ref_head(name)?;
            let mut tx = Tx {
                store: self,
                ref_name: name,
                head,
                writes: BTreeMap::new(),
                message: String::new(),
                index: OnceCell::new(),
            };
            let value = op(&mut tx)?;
            if tx.writes.is_empty() {
                return Ok((value, None));
            }
            let tree = self.write_tree(head.map(|h| h.tree), &tx.writes)?;
            let parents: Vec<ObjectId> = head.map(|h| h.commit).into_iter().collect();
            let commit = self.write_commit(tree, &parents, actor, &tx.message)?;
            if self.move_ref(name, head.map(|h| h.commit), commit, actor, &tx.message)? {
                return Ok((value, Some(commit)));
            }
        }
        Err(StoreError::Contended(name.into()).into())
    }

    /// Takes the repository's write lock (shared by every worktree), blocking until it is ours.
    pub(crate) fn write_lock(&self) -> Result<WriteLock, StoreError> {
        let lock_path = self.local_dir().join("write.lock");
        WriteLock::acquire(&lock_path).map_err(io_err(format!("lock {}", lock_path.display())))
    }

    /// A read-only view of `refs/beads/main` at its current head, with the same read
    /// helpers as a transaction. Nothing staged in it is ever committed.
    pub fn view(&self) -> Result<Tx<'_>, StoreError> {
        Ok(Tx {
            store: self,
            ref_name: refs::MAIN,
            head: Some(self.require_head()?),
            writes: BTreeMap::new(),
            message: String::new(),
            index: OnceCell::new(),
        })
    }

    /// A read-only view of store ref `name` (which may not exist yet: then it is empty).
    pub fn view_of(&self, name: &'static str) -> Result<Tx<'_>, StoreError> {
        Ok(Tx {
            store: self,
            ref_name: name,
            head: self.ref_head(name)?,
            writes: BTreeMap::new(),
            message: String::new(),
            index: OnceCell::new(),
        })
    }

    /// A git config value as a string, if set.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_str_lossy().into_owned())
    }

    /// A ref's `.lock` file left by a killed writer would block every later write.
    /// Only git-beads writes the store's refs, and always under the write lock we
    /// hold, so a `.lock` seen now is stale.
    fn clear_stale_ref_lock(&self, name: &str) -> Result<(), StoreError> {
        let lock = self.common_dir().join(format!("{name}.lock"));
        match std::fs::remove_file(&lock) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err(format!("remove stale {}", lock.display()))(e)),
        }
    }

    /// Writes `writes` (path → content, `None` removes) on top of `base` and returns the new tree.
    fn write_tree(
        &self,
        base: Option<ObjectId>,
        writes: &BTreeMap<String, Option<Vec<u8>>>,
    ) -> Result<ObjectId, StoreError> {
        let base = base.unwrap_or_else(|| ObjectId::empty_tree(self.repo.object_hash()));
        let mut editor = self
            .repo
            .edit_tree(base)
            .map_err(git_err(format!("edit tree {base}")))?;
        for (path, content) in writes {
            match content {
                Some(bytes) => {
                    let blob = self
                        .repo
                        .write_blob(bytes)
                        .map_err(git_err(format!("write {path}")))?
                        .detach();
                    editor
                        .upsert(path.as_str(), gix::object::tree::EntryKind::Blob, blob)
                        .map_err(git_err(format!("place {path} in the tree")))?;
                }
                None => {
                    editor
                        .remove(path.as_str())
                        .map_err(git_err(format!("remove {path} from the tree")))?;
                }
            }
        }
        Ok(editor
            .write()
            .map_err(git_err("write the store's tree"))?
            .detach())
    }

    /// Writes a commit of `tree` with `parents`, authored and committed by `actor`.
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
        Ok(self
            .repo
            .write_object(&commit)
            .map_err(git_err("write the store commit"))?
            .detach())
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
                if now != expected {
                    Ok(false)
                } else {
                    Err(git_err(format!("update {name}"))(e))
                }
            }
        }
    }
}

/// Decodes a store document, naming its path when it does not parse.
pub(crate) fn decode_doc<T: serde::de::DeserializeOwned>(
    path: &str,
    bytes: &[u8],
) -> Result<T, StoreError> {
    codec::decode(bytes).map_err(|source| StoreError::Document {
        path: path.to_owned(),
        source,
    })
}

/// Decodes the document of bead `id` at `path`. A document whose own id differs from
/// the one its path names is broken: read as the bead it names, a change to it would
/// land on that other bead's document.
fn decode_bead(path: &str, id: &BeadId, bytes: &[u8]) -> Result<Bead, StoreError> {
    let bead: Bead = decode_doc(path, bytes)?;
    if bead.id != *id {
        return Err(StoreError::Document {
            path: path.to_owned(),
            source: CodecError::WrongId {
                found: bead.id.to_string(),
                expected: id.to_string(),
            },
        });
    }
    Ok(bead)
}

/// One atomic change being put together: reads see the state it started from plus
/// what it has staged so far.
pub struct Tx<'s> {
    store: &'s Store,
    ref_name: &'static str,
    head: Option<Head>,
    writes: BTreeMap<String, Option<Vec<u8>>>,
    message: String,
    index: OnceCell<Index>,
}

impl Tx<'_> {
    /// The ref this change moves.
    pub fn ref_name(&self) -> &'static str {
        self.ref_name
    }

    /// The state this change started from (`None` before the first commit).
    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// Sets the commit message: what happened, in one line, then detail.
    pub fn set_message(&mut self, message: impl Into<String>) {
        self.message = message.into();
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

    /// Stages the meta document.
    pub fn put_meta(&mut self, meta: &Meta) -> Result<(), StoreError> {
        self.put(refs::META_PATH, meta, "meta.yaml")
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

    /// Stages a bead's document.
    pub fn put_bead(&mut self, bead: &Bead) -> Result<(), StoreError> {
        self.put(&refs::bead_path(&bead.id), bead, bead.id.as_str())
    }

    /// The document at `path`, as staged or stored.
    pub fn doc<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<Option<T>, StoreError> {
        self.read(path)?
            .map(|bytes| decode_doc(path, &bytes))
            .transpose()
    }

    /// Stages the document at `path`.
    pub fn put_doc<T: Serialize>(&mut self, path: &str, value: &T) -> Result<(), StoreError> {
        self.put(path, value, path)
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
        for (path, content) in &self.writes {
            if path.starts_with(&below) {
                match content {
                    Some(_) => paths.insert(path.clone()),
                    None => paths.remove(path),
                };
            }
        }
        Ok(paths.into_iter().collect())
    }

    fn put<T: Serialize>(&mut self, path: &str, value: &T, what: &str) -> Result<(), StoreError> {
        let text = codec::encode(value).map_err(|source| StoreError::Encode {
            what: what.to_owned(),
            source,
        })?;
        self.writes.insert(path.to_owned(), Some(text.into_bytes()));
        Ok(())
    }

    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if let Some(staged) = self.writes.get(path) {
            return Ok(staged.clone());
        }
        match &self.head {
            Some(head) => self.store.read_path(head.tree, path),
            None => Ok(None),
        }
    }

    /// The names of the documents in one fan-out directory of beads, as stored
    /// and staged (for numbering children).
    pub fn bead_ids_near(&self, id: &BeadId) -> Result<Vec<String>, StoreError> {
        let dir = format!("{}/{}", refs::BEADS_DIR, id.fanout());
        let mut names = Vec::new();
        if let Some(head) = &self.head
            && let Some(subtree) = self.subtree(head.tree, &dir)?
        {
            for name in tree::entries(&self.store.repo, subtree)?.into_keys() {
                if let Some(id) = name.strip_suffix(".yaml") {
                    names.push(id.to_owned());
                }
            }
        }
        for path in self.writes.keys() {
            if let Some(staged) = refs::bead_id_of_path(path)
                && path.starts_with(&dir)
            {
                names.push(staged.to_owned());
            }
        }
        Ok(names)
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
        let dirs = tree::entries(&self.store.repo, beads)?;
        let Some(tree::Node::Tree(first)) = dirs.values().next().copied() else {
            return Ok(dirs.len());
        };
        Ok(dirs.len() * tree::entries(&self.store.repo, first)?.len())
    }

    /// The index at the state this change started from (staged documents are not in it).
    pub fn index(&self) -> Result<&Index, StoreError> {
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let index = match &self.head {
            Some(head) => Index::load(self.store, self.ref_name, head)?,
            None => Index::default(),
        };
        Ok(self.index.get_or_init(|| index))
    }

    fn subtree(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>, StoreError> {
        self.store.subtree(tree, path)
    }
}

/// The current time, for stamping documents.
pub fn now() -> Timestamp {
    chrono::Utc::now()
}
