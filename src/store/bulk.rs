//! Reading and writing many beads at once (import, export): one walk of the tree
//! instead of one lookup per bead, and no write for a document that would not change.

use std::collections::HashMap;

use gix::ObjectId;

use super::index::Broken;
use super::{Head, Store, StoreError, View, codec, refs, tree};
use crate::model::Bead;

impl Store {
    /// Every bead document below `tree` as (path, blob id), from one walk of the tree.
    fn bead_docs(&self, tree_id: ObjectId) -> Result<Vec<(String, ObjectId)>, StoreError> {
        let mut out = Vec::new();
        let top = tree::entries(&self.repo, tree_id)?;
        if let Some(tree::Node::Tree(dir)) = top.get(refs::BEADS_DIR) {
            tree::walk_blobs(&self.repo, *dir, refs::BEADS_DIR, &mut |path, blob| {
                if refs::bead_id_of_path(&path).is_some() {
                    out.push((path, blob));
                }
            })?;
        }
        Ok(out)
    }

    /// Every bead at `head`, sorted by id, and the documents that do not parse (or
    /// whose id does not match their path), reported instead of dropped.
    pub(crate) fn all_beads(&self, head: &Head) -> Result<(Vec<Bead>, Vec<Broken>), StoreError> {
        let docs = self.bead_docs(head.tree)?;
        let mut beads = Vec::with_capacity(docs.len());
        let mut broken = Vec::new();
        for (path, blob) in docs {
            let id = refs::bead_id_of_path(&path).unwrap_or_default();
            let bytes = self.read_blob(blob)?;
            match codec::decode::<Bead>(&bytes) {
                Ok(bead) if bead.id.as_str() == id => beads.push(bead),
                Ok(bead) => broken.push(Broken {
                    error: format!("its id is {}, but its path names {id}", bead.id),
                    path,
                }),
                Err(e) => broken.push(Broken {
                    path,
                    error: e.to_string(),
                }),
            }
        }
        beads.sort_by(|a, b| a.id.cmp(&b.id));
        Ok((beads, broken))
    }
}

/// The blob ids of every bead document at the state a transaction started from, so
/// that a bulk write (an import) writes only the documents that change.
pub struct BlobIds(HashMap<String, ObjectId>);

impl BlobIds {
    /// The blob of the document of this bead id, if it has one.
    pub(crate) fn get(&self, id: &str) -> Option<ObjectId> {
        self.0.get(id).copied()
    }
}

/// What writing a bead's document did, compared by blob id with [`BlobIds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Put {
    /// The bead had no document; it was staged.
    Added,
    /// The bead's document differs; the new one was staged.
    Changed,
    /// The document would be byte-identical; nothing was staged.
    Unchanged,
}

impl View<'_> {
    /// The blob id of every bead document at the state this change started from
    /// (staged documents are not in it), from one walk of the tree.
    pub(crate) fn bead_blob_ids(&self) -> Result<BlobIds, StoreError> {
        Ok(BlobIds(match &self.head {
            Some(head) => self
                .store
                .bead_docs(head.tree)?
                .into_iter()
                .filter_map(|(path, blob)| {
                    refs::bead_id_of_path(&path).map(|id| (id.to_owned(), blob))
                })
                .collect(),
            None => HashMap::new(),
        }))
    }

    /// The bead `id` as stored at the state this change started from, ignoring
    /// anything staged since.
    pub(crate) fn stored_bead(
        &self,
        id: &crate::model::BeadId,
    ) -> Result<Option<Bead>, StoreError> {
        match &self.head {
            Some(head) => self.store.read_bead(head.tree, id),
            None => Ok(None),
        }
    }
}
