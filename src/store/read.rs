//! Reading the store: the commit a ref points at, and the documents of its tree.

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::codec::{self, CodecError};
use super::index::{Index, Part, Row};
use super::tree::{self, DocChange};
use super::{Store, StoreError, git_err, refs};
use crate::model::{Bead, BeadId, Prefix};

/// The format version of the store's tree, recorded in `meta.yaml`.
pub const FORMAT: u32 = 1;

/// The commit a store ref points at, and its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The commit.
    pub commit: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
}

/// Refuses a tree whose `meta.yaml` records a format newer than [`FORMAT`]: this
/// binary cannot know what its layout means, so it neither reads nor writes it. A tree
/// without `meta.yaml` (the notes, a wisp ref) or one whose `meta.yaml` does not parse
/// passes: reads go on, and writes stop at [`Store::meta`].
fn check_format(format: Option<u32>) -> Result<(), StoreError> {
    match format {
        Some(found) if found > FORMAT => Err(StoreError::NewerFormat { found }),
        _ => Ok(()),
    }
}

/// The store's own record of itself, at `meta.yaml` in the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The format version of the tree layout.
    pub format: u32,
    /// The prefix of new ids.
    pub prefix: Prefix,
}

impl Store {
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

    /// The commit and tree `refs/beads/main` points at, or `None` before `init`.
    pub fn head(&self) -> Result<Option<Head>, StoreError> {
        self.ref_head(refs::MAIN.as_str())
    }

    /// The commit `refs/beads/main` points at, or `None` before `init`: the ref alone,
    /// neither the commit nor its tree read.
    pub fn head_id(&self) -> Result<Option<ObjectId>, StoreError> {
        self.ref_id(refs::MAIN.as_str())
    }

    /// This store, reading `refs/beads/main` as `commit` without looking at the ref
    /// again, so that every read through it sees that one state of the store. For
    /// reads only: a write through it would start from `commit`.
    pub fn pinned_at(mut self, commit: ObjectId) -> Store {
        self.pin = Some(commit);
        self
    }

    /// The commit a ref points at, or `None` if it does not exist.
    fn ref_id(&self, name: &str) -> Result<Option<ObjectId>, StoreError> {
        (self.ref_target(name)?)
            .map(|target| self.peel(name, target))
            .transpose()
    }

    /// The commit and tree a ref points at, or `None` if it does not exist: from what
    /// was kept of its commit when it was read before (see [`super::heads`]), else read
    /// and kept.
    pub(crate) fn ref_head(&self, name: &str) -> Result<Option<Head>, StoreError> {
        let Some(target) = self.ref_target(name)? else {
            return Ok(None);
        };
        if let Some(known) = self.known_head(target)
            && let Some((commit, tree)) = known.ids()
        {
            check_format(known.format)?;
            return Ok(Some(Head { commit, tree }));
        }
        let commit = self.peel(name, target)?;
        let head = Head {
            commit,
            tree: self.tree_of(commit)?,
        };
        let format = self.format_of(head.tree)?;
        check_format(format)?;
        let config = self.read_path(head.tree, refs::CONFIG_PATH)?;
        self.keep_head(super::heads::Known::new(target, head, format, config));
        Ok(Some(head))
    }

    /// The id ref `name` holds, read from the ref alone (a symbolic ref followed to
    /// the id it ends at), or `None` if it does not exist.
    fn ref_target(&self, name: &str) -> Result<Option<ObjectId>, StoreError> {
        if let Some(pin) = self.pin.filter(|_| name == refs::MAIN.as_str()) {
            return Ok(Some(pin));
        }
        let Some(mut r) = self
            .repo
            .try_find_reference(name)
            .map_err(git_err(format!("read {name}")))?
        else {
            return Ok(None);
        };
        if let Some(id) = r.target().try_id() {
            return Ok(Some(id.to_owned()));
        }
        let id = r.peel_to_id().map_err(git_err(format!("resolve {name}")))?;
        Ok(Some(id.detach()))
    }

    /// The object `target`, which ref `name` holds, peels to: itself, unless a tag.
    fn peel(&self, name: &str, target: ObjectId) -> Result<ObjectId, StoreError> {
        let peeled = (self.repo.find_object(target))
            .map_err(git_err(format!("resolve {name}")))?
            .peel_tags_to_end()
            .map_err(git_err(format!("resolve {name}")))?;
        Ok(peeled.id)
    }

    /// Commit `commit` and its tree; refused when the tree records a store format
    /// newer than [`FORMAT`] (see [`check_format`]).
    pub(super) fn head_at(&self, commit: ObjectId) -> Result<Head, StoreError> {
        let tree = self.tree_of(commit)?;
        check_format(self.format_of(tree)?)?;
        Ok(Head { commit, tree })
    }

    /// The tree of commit `commit`.
    fn tree_of(&self, commit: ObjectId) -> Result<ObjectId, StoreError> {
        Ok(self
            .repo
            .find_commit(commit)
            .map_err(git_err(format!("read commit {commit}")))?
            .tree_id()
            .map_err(git_err(format!("read the tree of {commit}")))?
            .detach())
    }

    /// The format `tree`'s `meta.yaml` records; `None` for a tree without one (the
    /// notes, a wisp ref) or one that does not parse.
    fn format_of(&self, tree: ObjectId) -> Result<Option<u32>, StoreError> {
        /// The one field of `meta.yaml` this needs.
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let Some(bytes) = self.read_path(tree, refs::META_PATH)? else {
            return Ok(None);
        };
        Ok(codec::decode::<Format>(&bytes).ok().map(|f| f.format))
    }

    /// The head of the store, or [`StoreError::NotInitialized`].
    pub fn require_head(&self) -> Result<Head, StoreError> {
        self.head()?.ok_or(StoreError::NotInitialized)
    }

    /// Reads the store's `meta.yaml` at `head`.
    pub(crate) fn meta(&self, head: &Head) -> Result<Meta, StoreError> {
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

    /// The id of the empty tree.
    pub(crate) fn empty_tree(&self) -> ObjectId {
        ObjectId::empty_tree(self.repo.object_hash())
    }

    /// The blob at `path` in `tree`, if there is one.
    pub(crate) fn read_path(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<Vec<u8>>, StoreError> {
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
    pub(crate) fn read_blob(&self, id: ObjectId) -> Result<Vec<u8>, StoreError> {
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

    /// Bead `id` as blob `blob` holds it (a document of it read from the history).
    pub(crate) fn bead_in_blob(&self, id: &BeadId, blob: ObjectId) -> Result<Bead, StoreError> {
        decode_bead(&refs::bead_path(id), id, &self.read_blob(blob)?)
    }

    /// The ids of the documents of beads `ids` in `tree` (`None` for a bead it does not
    /// hold), without reading them: each folder is read once, however many of the
    /// beads it holds.
    pub(crate) fn bead_blobs(
        &self,
        tree: ObjectId,
        ids: &[&BeadId],
    ) -> Result<Vec<Option<ObjectId>>, StoreError> {
        type Folder = std::collections::HashMap<Vec<u8>, (bool, ObjectId)>;
        let folder = |id: Option<ObjectId>| -> Result<Folder, StoreError> {
            Ok(self
                .decoded_tree(id)?
                .entries
                .into_iter()
                .map(|e| (e.filename.to_vec(), (e.mode.is_tree(), e.oid)))
                .collect())
        };
        let beads = folder(self.subtree(tree, refs::BEADS_DIR)?)?;
        let mut fanouts: std::collections::HashMap<String, Folder> = Default::default();
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let fanout = id.fanout();
            if !fanouts.contains_key(&fanout) {
                let sub = beads.get(fanout.as_bytes()).filter(|(dir, _)| *dir);
                fanouts.insert(fanout.clone(), folder(sub.map(|(_, oid)| *oid))?);
            }
            let name = format!("{id}.yaml");
            out.push(
                fanouts[&fanout]
                    .get(name.as_bytes())
                    .filter(|(dir, _)| !*dir)
                    .map(|(_, oid)| *oid),
            );
        }
        Ok(out)
    }

    /// The document at `path` in `tree`, decoded.
    /// The project's settings (`config.yaml`) at `head`: from what was kept of a
    /// commit with its tree (see [`super::heads`]) where one was, else read.
    pub(crate) fn read_config<T: serde::de::DeserializeOwned>(
        &self,
        head: &Head,
    ) -> Result<Option<T>, StoreError> {
        match self.known_tree(head.tree) {
            Some(known) => (known.config)
                .map(|bytes| decode_doc(refs::CONFIG_PATH, &bytes))
                .transpose(),
            None => self.read_doc(head.tree, refs::CONFIG_PATH),
        }
    }

    pub(crate) fn read_doc<T: serde::de::DeserializeOwned>(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<T>, StoreError> {
        self.read_path(tree, path)?
            .map(|bytes| decode_doc(path, &bytes))
            .transpose()
    }

    /// Every document below directory `dir` of `tree`, as (path, blob), in path order.
    pub(crate) fn list_docs(
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
    pub(super) fn count_entries(
        &self,
        id: ObjectId,
    ) -> Result<(usize, Option<ObjectId>), StoreError> {
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

    pub(super) fn subtree(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<ObjectId>, StoreError> {
        Ok(self
            .entry_at(tree, path)?
            .filter(|(mode, _)| mode.is_tree())
            .map(|(_, id)| id))
    }

    /// The entry at `path` in `tree`, if there is one: its mode and its object.
    pub(super) fn entry_at(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<(gix::object::tree::EntryMode, ObjectId)>, StoreError> {
        let tree_obj = self
            .repo
            .find_tree(tree)
            .map_err(git_err(format!("read tree {tree}")))?;
        let entry = tree_obj
            .lookup_entry(path.split('/').map(str::as_bytes))
            .map_err(git_err(format!("look up {path}")))?;
        Ok(entry.map(|e| (e.mode(), e.object_id())))
    }

    /// The documents that differ between two trees (either may be absent).
    pub(crate) fn diff(
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
        Index::load(self, refs::MAIN.as_str(), head)
    }

    /// Only `parts` of the index of `refs/beads/main` at `head` (the others read as
    /// empty): a reader of mail never loads the beads, `ready` never the descriptions.
    pub(crate) fn index_parts(&self, head: &Head, parts: &[Part]) -> Result<Index, StoreError> {
        Index::load_parts(self, refs::MAIN.as_str(), head, parts)
    }

    /// The index of this machine's wisps (`refs/beads/local/wisps`) and the state it
    /// was built at, or `None` where no wisp was ever made here.
    pub(crate) fn wisp_index(&self) -> Result<Option<(Head, Index)>, StoreError> {
        let Some(head) = self.ref_head(refs::WISPS.as_str())? else {
            return Ok(None);
        };
        let index = Index::load_parts(self, refs::WISPS.as_str(), &head, &[Part::Beads])?;
        Ok(Some((head, index)))
    }

    /// What a reader kept beside `index`'s table of `refs/beads/main` (see
    /// [`Index::table_only`]): `None` unless it was kept for that very table.
    pub(crate) fn index_kept<T: serde::de::DeserializeOwned>(&self, index: &Index) -> Option<T> {
        index.kept(self, refs::MAIN.as_str())
    }

    /// Keeps `value`, worked out of `index`'s table alone, beside it in the cache of
    /// `refs/beads/main`, until the table is written anew.
    pub(crate) fn keep_in_index<T: serde::Serialize>(&self, index: &Index, value: &T) {
        index.keep(self, refs::MAIN.as_str(), value);
    }

    /// Where the document a command prints of the whole store at `tree` is kept for
    /// the next call at that tree (see [`Answer`](super::Answer)).
    pub(crate) fn answer_slot(&self, tree: ObjectId) -> super::Slot {
        super::Slot::of(self, refs::MAIN.as_str(), tree)
    }

    /// The beads of the index of `refs/beads/main` at `head`, and those whose id,
    /// title or description contains `needle`, case-insensitively (the search text is
    /// scanned as it is read, never loaded whole).
    pub(crate) fn index_search(
        &self,
        head: &Head,
        needle: &str,
    ) -> Result<(Index, Vec<Row>), StoreError> {
        Index::load_search(self, refs::MAIN.as_str(), head, needle)
    }

    /// The index of `refs/beads/main` at `head` rebuilt from the documents alone,
    /// without reading or writing the cache (for checking the cache).
    pub(crate) fn index_from_scratch(&self, head: &Head) -> Result<Index, StoreError> {
        Index::fresh(self, head)
    }

    /// Throws the index cache of `refs/beads/main` away and builds it again.
    pub(crate) fn index_rebuild(&self, head: &Head) -> Result<Index, StoreError> {
        Index::rebuild_cache(self, refs::MAIN.as_str(), head)
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
pub(super) fn decode_bead(path: &str, id: &BeadId, bytes: &[u8]) -> Result<Bead, StoreError> {
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
