//! The only code that touches git: opening the repository, reading documents from
//! the store's tree, committing changes atomically, the history and the index.

mod bulk;
mod cli_config;
pub mod codec;
mod durable;
mod group;
mod hooks;
mod index;
mod lock;
mod notes;
mod pack;
pub mod refs;
mod snapshot;
mod stream;
mod sync;
mod tree;

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use serde::{Deserialize, Serialize};

pub use bulk::{BlobIds, Put};
pub use hooks::RefPush;
pub use index::{BeadRow, Broken, Dep, Index, MailMarks, MailSummary, Part, Row, Summary};
pub use notes::MAX_NOTE;
pub use snapshot::Capture;
pub use stream::PackStream;
pub use sync::{Entry, EntryKind, Pushed, RemoteError, SYNC_ENV, check_remote_name};
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
    /// Talking to a remote failed, or what it sent cannot be merged.
    #[error(transparent)]
    Remote(#[from] RemoteError),
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
        // `git -c key=value beads …` hands its settings down the way git does for
        // every command it runs; gix does not read them on its own.
        let overrides = cli_config::from_env();
        let mut trust = gix::sec::trust::Mapping::<gix::open::Options>::default();
        // Each write adds a small pack until they are merged, and gix sizes its table
        // of packs from what it saw at open: room for others' packs made meanwhile.
        let slots = gix::odb::store::init::Slots::AsNeededByDiskState {
            multiplier: 2.0,
            minimum: 256,
        };
        trust.full = trust
            .full
            .cli_overrides(overrides.clone())
            .object_store_slots(slots);
        trust.reduced = trust
            .reduced
            .cli_overrides(overrides)
            .object_store_slots(slots);
        let repo = gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
            dir,
            Default::default(),
            trust,
        )
        .map(gix::Repository::from)
        .map_err(|source| StoreError::NotARepo {
            path: dir.to_owned(),
            source: Box::new(source),
        })?;
        Ok(Store { repo })
    }

    /// Tree `id` decoded for editing; an empty tree for `None`.
    pub(crate) fn decoded_tree(&self, id: Option<ObjectId>) -> Result<gix::objs::Tree, StoreError> {
        Ok(match id {
            Some(id) => self
                .repo
                .find_tree(id)
                .map_err(git_err(format!("read tree {id}")))?
                .decode()
                .map_err(git_err(format!("decode tree {id}")))?
                .into(),
            None => gix::objs::Tree::empty(),
        })
    }

    /// A store in a fresh repository in a temporary directory (for unit tests).
    #[cfg(test)]
    pub(crate) fn temp_for_tests() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("a temp dir");
        let out = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(out.status.success());
        let store = Store::discover(dir.path()).expect("opens");
        (dir, store)
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
        self.head_at(commit).map(Some)
    }

    /// Commit `commit` and its tree.
    fn head_at(&self, commit: ObjectId) -> Result<Head, StoreError> {
        let tree = self
            .repo
            .find_commit(commit)
            .map_err(git_err(format!("read commit {commit}")))?
            .tree_id()
            .map_err(git_err(format!("read the tree of {commit}")))?
            .detach();
        Ok(Head { commit, tree })
    }

    /// The commit the current worktree's HEAD points at (`None` on an unborn branch).
    pub fn head_commit(&self) -> Result<Option<ObjectId>, StoreError> {
        Ok(self.repo.head_id().ok().map(|id| id.detach()))
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

    /// How many entries tree `id` has, and its first subtree, without decoding the
    /// entries into a map.
    fn count_entries(&self, id: ObjectId) -> Result<(usize, Option<ObjectId>), StoreError> {
        let tree = self
            .repo
            .find_tree(id)
            .map_err(git_err(format!("read tree {id}")))?;
        let mut count = 0;
        let mut first = None;
        for entry in tree.iter() {
            let entry = entry
                .map_err(|e| git_err(format!("decode tree {id}"))(gix::Error::from_error(e)))?;
            count += 1;
            if first.is_none() && entry.mode().is_tree() {
                first = Some(entry.object_id());
            }
        }
        Ok((count, first))
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

    /// Only `parts` of the index of `refs/beads/main` at `head` (the others read as
    /// empty): a reader of mail never loads the beads, `ready` never the descriptions.
    pub fn index_parts(&self, head: &Head, parts: &[Part]) -> Result<Index, StoreError> {
        Index::load_parts(self, refs::MAIN, head, parts)
    }

    /// The beads of the index of `refs/beads/main` at `head`, and those whose id,
    /// title or description contains `needle`, case-insensitively (the search text is
    /// scanned as it is read, never loaded whole).
    pub fn index_search(&self, head: &Head, needle: &str) -> Result<(Index, Vec<Row>), StoreError> {
        Index::load_search(self, refs::MAIN, head, needle)
    }

    /// The index of `refs/beads/main` at `head` rebuilt from the documents alone,
    /// without reading or writing the cache (for checking the cache).
    pub fn index_from_scratch(&self, head: &Head) -> Result<Index, StoreError> {
        Index::fresh(self, head)
    }

    /// Throws the index cache of `refs/beads/main` away and builds it again.
    pub fn index_rebuild(&self, head: &Head) -> Result<Index, StoreError> {
        Index::rebuild_cache(self, refs::MAIN, head)
    }

    /// Reads commit `id` as a history entry (changes against its first parent) and
    /// returns it with that parent.
    fn history_entry(&self, id: ObjectId) -> Result<(HistoryEntry, Option<ObjectId>), StoreError> {
        let commit = self
            .repo
            .find_commit(id)
            .map_err(git_err(format!("read commit {id}")))?;
        let decoded = commit
            .decode()
            .map_err(git_err(format!("decode commit {id}")))?;
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
        let author = decoded
            .author()
            .map_err(git_err(format!("read the author of {id}")))?;
        let entry = HistoryEntry {
            commit: id,
            author: author.name.to_str_lossy().into_owned(),
            email: author.email.to_str_lossy().into_owned(),
            time: author.time().map(|t| t.seconds).unwrap_or_default(),
            message: decoded.message.to_str_lossy().into_owned(),
            changes: self.diff(parent_tree, Some(decoded.tree()))?,
        };
        Ok((entry, parent))
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
            let (mut entry, parent) = self.history_entry(id)?;
            if let Some(keep) = keep {
                entry.changes.retain(|c| keep(c));
            }
            if keep.is_none() || !entry.changes.is_empty() {
                out.push(entry);
            }
            next = parent;
        }
        Ok(out)
    }

    /// Every commit reachable from `head` (merged-in ones too) whose message carries a
    /// `Beads-Session:` trailer naming one of `sessions`, newest first, with the
    /// documents each changed against its first parent.
    pub fn commits_of_sessions(
        &self,
        head: &Head,
        sessions: &[String],
    ) -> Result<Vec<HistoryEntry>, StoreError> {
        let walk = self
            .repo
            .rev_walk([head.commit])
            .all()
            .map_err(git_err("walk the store's history"))?;
        let mut out = Vec::new();
        for info in walk {
            let info =
                info.map_err(|e| git_err("walk the store's history")(gix::Error::from_error(e)))?;
            let commit = self
                .repo
                .find_commit(info.id)
                .map_err(git_err(format!("read commit {}", info.id)))?;
            let message = commit
                .message_raw()
                .map_err(git_err(format!("decode commit {}", info.id)))?;
            let named = message.lines().any(|l| {
                l.strip_prefix(b"Beads-Session: ")
                    .is_some_and(|s| sessions.iter().any(|x| x.as_bytes() == s.trim_ascii()))
            });
            if named {
                out.push(self.history_entry(info.id)?.0);
            }
        }
        out.sort_by(|a, b| b.time.cmp(&a.time).then(a.commit.cmp(&b.commit)));
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
        // A linked worktree's directory does not name the repository: the main
        // worktree (around the common `.git`) or the bare repository does.
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let common = real(self.common_dir());
        let dir = if common.file_name().is_some_and(|n| n == ".git") {
            common.parent().map(Path::to_owned)
        } else if real(self.repo.git_dir()) == common {
            self.workdir().map(real)
        } else {
            None
        };
        let dir = dir.unwrap_or(common);
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
    /// newest state through the [`Tx`] (commits of other writers still being flushed
    /// included), stages documents, and the result becomes one commit, queued to move
    /// the ref by compare-and-swap together with the others (see the `group` module).
    /// Should the ref have moved anyway (something bypassed the lock), `op` runs again
    /// on the new state: operations are re-applied, never text-merged. An `op` that
    /// stages nothing commits nothing. Returns `op`'s value and the new commit, if one
    /// was made, once the ref holds it.
    pub fn transact_on<T, E>(
        &self,
        name: &'static str,
        actor: &Actor,
        mut op: impl FnMut(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<(T, Option<ObjectId>), E>
    where
        E: From<StoreError>,
    {
        let queue = self.queue(name);
        for _ in 0..MAX_ATTEMPTS {
            let lock = self.write_lock_alone()?;
            let mut start = self.start(queue.as_ref(), name)?;
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
                store: &work,
                ref_name: name,
                head,
                writes: BTreeMap::new(),
                message: String::new(),
                index: OnceCell::new(),
                queued: start.tip() != start.base(),
            };
            let value = op(&mut tx)?;
            let (writes, message) = (tx.writes, tx.message);
            if writes.is_empty() {
                drop(lock);
                // What `op` saw must be as durable as a write would be.
                match (&queue, start.tip()) {
                    (Some(queue), Some(tip)) if start.tip() != start.base() => {
                        if self.settle(queue, name, tip, start.base(), actor)? {
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
                if self.commit_objects(name, start.base(), commit, &added, actor, &message)? {
                    self.tidy_packs();
                    return Ok((value, Some(commit)));
                }
                continue;
            };
            // A large change goes to disk as a pack of its own at once: copying it
            // through the queue would cost more than the sync it shares.
            if added.len() >= pack::PACK_THRESHOLD {
                self.write_pack(&added, pack::TIGHT, self.fsync_policy().objects)?;
                added.clear();
            }
            let base = start.base();
            self.enqueue(queue, start, commit, &added)?;
            drop(lock);
            if self.settle(queue, name, commit, base, actor)? {
                self.tidy_packs();
                return Ok((value, Some(commit)));
            }
        }
        Err(StoreError::Contended(name.into()).into())
    }

    /// Takes the repository's write lock (shared by every worktree), blocking until it
    /// is ours, with every queued commit flushed to its ref: the holder may move refs
    /// by itself.
    pub(crate) fn write_lock(&self) -> Result<WriteLock, StoreError> {
        let lock = self.write_lock_alone()?;
        self.flush_queues()?;
        Ok(lock)
    }

    /// Merges small packs after a write that committed (see [`Store::merge_small_packs`]).
    /// The write itself is done and durable: failing to tidy up after it (a full disk)
    /// must not report it as failed, and the next write tries again.
    fn tidy_packs(&self) {
        let _ = self.merge_small_packs();
    }

    /// Takes the write lock, leaving queued commits queued.
    fn write_lock_alone(&self) -> Result<WriteLock, StoreError> {
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
            queued: false,
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
            queued: false,
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
    /// Other git-beads writers hold the write lock we hold, but plain git may lock
    /// the ref for a moment too (`git pack-refs` pruning it, `git update-ref`):
    /// removing that live lock would let git undo our write when it finishes (a
    /// pruned loose ref falls back to the old packed value). So a `.lock` is only
    /// removed once it is older than any git command holds one; a younger one is
    /// waited for.
    pub(crate) fn clear_stale_ref_lock(&self, name: &str) -> Result<(), StoreError> {
        const STALE: std::time::Duration = std::time::Duration::from_secs(1);
        let lock = self.common_dir().join(format!("{name}.lock"));
        let started = std::time::Instant::now();
        loop {
            let age = match std::fs::metadata(&lock) {
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
                return match std::fs::remove_file(&lock) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    Err(e) => Err(io_err(format!("remove stale {}", lock.display()))(e)),
                };
            }
            std::thread::sleep((STALE - age).min(std::time::Duration::from_millis(20)));
        }
    }

    /// Writes `writes` (blobs, subtrees, removals by path) on top of `base`; returns the
    /// new tree.
    ///
    /// gix's own tree editor checks that every entry of every tree it writes exists
    /// and has a valid name: for the directory of all beads, over a thousand lookups
    /// per write. Here only what this change puts in is checked: the names on its
    /// paths, and that a subtree it takes as it is exists.
    fn write_tree(
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
        for (path, staged) in writes {
            for part in path.split('/') {
                gix::validate::path::component(part.into(), None, Default::default())
                    .map_err(|e| bad_path(path, gix::Error::from_error(e)))?;
            }
            let placed = match staged {
                Staged::Blob(bytes) => {
                    let blob = self
                        .repo
                        .objects
                        .write_buf(gix::objs::Kind::Blob, bytes)
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

/// Something staged at a path of the store's tree.
enum Staged {
    /// A document.
    Blob(Vec<u8>),
    /// A subtree taken as it is (a worktree snapshot).
    Tree(ObjectId),
    /// Nothing: the path goes.
    Remove,
}

/// One atomic change being put together: reads see the state it started from plus
/// what it has staged so far.
pub struct Tx<'s> {
    store: &'s Store,
    ref_name: &'static str,
    head: Option<Head>,
    writes: BTreeMap<String, Staged>,
    message: String,
    index: OnceCell<Index>,
    /// Whether `head` is a commit still queued for the ref (see the `group` module).
    queued: bool,
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

    /// Stages the removal of a bead's document. For local-only refs (wisps): on a
    /// shared ref a deleted bead stays as a tombstone so that the deletion syncs.
    pub fn remove_bead(&mut self, id: &BeadId) {
        self.writes.insert(refs::bead_path(id), Staged::Remove);
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

    fn put<T: Serialize>(&mut self, path: &str, value: &T, what: &str) -> Result<(), StoreError> {
        let text = codec::encode(value).map_err(|source| StoreError::Encode {
            what: what.to_owned(),
            source,
        })?;
        self.writes
            .insert(path.to_owned(), Staged::Blob(text.into_bytes()));
        Ok(())
    }

    /// Stages a subtree (e.g. a worktree snapshot) at `path`, or removes one with `None`.
    pub fn put_subtree(&mut self, path: &str, tree: Option<ObjectId>) {
        let staged = tree.map(Staged::Tree).unwrap_or(Staged::Remove);
        self.writes.insert(path.to_owned(), staged);
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
        for (path, staged) in &self.writes {
            if let Some(id) = refs::bead_id_of_path(path)
                && path.starts_with(&dir)
            {
                names.retain(|n| n != id);
                if let Staged::Blob(_) = staged {
                    names.push(id.to_owned());
                }
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
            self.store.flush_queue(self.ref_name)?;
        }
        let index = match &self.head {
            Some(head) => Index::load_parts(self.store, self.ref_name, head, &[Part::Beads])?,
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
