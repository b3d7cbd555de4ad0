//! What reading a ref's commit taught, kept for the next read of the same commit.
//!
//! A warm read answers from the index's cache files, yet learning where the store
//! stands took three reads from the object database: the commit the ref names (to
//! peel it and find its tree), and the tree's `meta.yaml` and `config.yaml`. At
//! 1 000 000 beads the first object read costs most of all: gix checks the whole pack
//! index when it opens it (a third of a warm `ready`). What those reads give is fixed
//! by the ids alone (a commit has one tree; a tree, one `meta.yaml` and one
//! `config.yaml`), so the last few are kept in `heads.bin` beside the index, and a read
//! of a ref whose target is kept there opens no object at all. The ref itself is read
//! every time, so nothing here can be stale; a missing, torn or foreign file only
//! costs the reads again.

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{Head, Store};

/// How many commits are kept: the heads of a few refs, and the one before a write.
const KEPT: usize = 8;

/// The file's name in the store's local directory.
const FILE: &str = "heads.bin";

/// What was read of one commit a ref pointed at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Known {
    /// The id the ref held (the commit, or a tag of it).
    pub(super) target: Vec<u8>,
    /// The commit it peels to.
    pub(super) commit: Vec<u8>,
    /// Its tree.
    pub(super) tree: Vec<u8>,
    /// The format the tree's `meta.yaml` records, when it has one that says.
    pub(super) format: Option<u32>,
    /// The tree's `config.yaml`, as stored, when it has one.
    pub(super) config: Option<Vec<u8>>,
}

impl Known {
    /// What was read of `head`, which a ref holding `target` points at.
    pub(super) fn new(
        target: ObjectId,
        head: Head,
        format: Option<u32>,
        config: Option<Vec<u8>>,
    ) -> Known {
        Known {
            target: target.as_bytes().to_vec(),
            commit: head.commit.as_bytes().to_vec(),
            tree: head.tree.as_bytes().to_vec(),
            format,
            config,
        }
    }

    /// Its commit and tree, as ids (`None` for bytes that are not one).
    pub(super) fn ids(&self) -> Option<(ObjectId, ObjectId)> {
        let id = |bytes: &Vec<u8>| ObjectId::try_from(bytes.as_slice()).ok();
        Some((id(&self.commit)?, id(&self.tree)?))
    }
}

impl Store {
    /// What was kept of the commit that `target` names, if it was.
    pub(super) fn known_head(&self, target: ObjectId) -> Option<Known> {
        let at = target.as_bytes();
        read_all(self).into_iter().find(|k| k.target == at)
    }

    /// What was kept of a commit whose tree is `tree`, if one was.
    pub(super) fn known_tree(&self, tree: ObjectId) -> Option<Known> {
        let at = tree.as_bytes();
        read_all(self).into_iter().find(|k| k.tree == at)
    }

    /// Keeps `known`, the newest first, dropping the oldest beyond [`KEPT`]. A file
    /// that cannot be written only costs the reads again.
    pub(super) fn keep_head(&self, known: Known) {
        let mut all = read_all(self);
        all.retain(|k| k.target != known.target);
        all.insert(0, known);
        all.truncate(KEPT);
        if let Ok(mut bytes) = postcard::to_stdvec(&all) {
            bytes.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
            let dir = self.local_dir();
            let _ = std::fs::create_dir_all(&dir)
                .and_then(|()| super::replace_file(&dir.join(FILE), &bytes, false));
        }
    }
}

/// Every commit kept, the newest first; none when the file is missing or torn.
fn read_all(store: &Store) -> Vec<Known> {
    let Ok(bytes) = std::fs::read(store.local_dir().join(FILE)) else {
        return Vec::new();
    };
    let Some((body, sum)) = bytes.split_last_chunk::<4>() else {
        return Vec::new();
    };
    if crc32fast::hash(body) != u32::from_le_bytes(*sum) {
        return Vec::new();
    }
    postcard::from_bytes(body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::refs;

    /// A store whose `config.yaml` says `value` under `key`, committed.
    fn with_config(store: &Store, value: &str) {
        store.commit_for_tests(|tx| {
            let config = serde_json::json!({ "key": value });
            tx.put_doc(refs::CONFIG_PATH, &config).expect("put");
        });
    }

    fn config(store: &Store) -> Option<String> {
        let head = store.require_head().expect("head");
        let doc: Option<serde_json::Value> = store.read_config(&head).expect("config");
        doc.and_then(|d| d["key"].as_str().map(str::to_owned))
    }

    #[test]
    fn a_kept_head_answers_as_the_objects_do_and_follows_the_ref() {
        let (_dir, store) = Store::temp_for_tests();
        with_config(&store, "one");
        let first = store.require_head().expect("head");
        let target = store.head_id().expect("id").expect("a head");
        let kept = store.known_head(target).expect("kept by the read");
        assert_eq!(kept.ids(), Some((first.commit, first.tree)));
        assert_eq!(config(&store).as_deref(), Some("one"));
        // A write moves the ref: the next read reads the new commit, and keeps it too.
        with_config(&store, "two");
        let second = store.require_head().expect("head");
        assert_ne!(second.commit, first.commit);
        assert_eq!(config(&store).as_deref(), Some("two"));
        assert!(store.known_head(target).is_some(), "the older one stays");
    }

    #[test]
    fn a_torn_or_foreign_file_only_costs_the_reads() {
        let (_dir, store) = Store::temp_for_tests();
        with_config(&store, "one");
        let head = store.require_head().expect("head");
        let path = store.local_dir().join(FILE);
        let mut bytes = std::fs::read(&path).expect("kept");
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, &bytes).expect("tear");
        assert_eq!(store.known_head(head.commit), None);
        assert_eq!(store.require_head().expect("read again"), head);
        assert_eq!(config(&store).as_deref(), Some("one"));
        std::fs::write(&path, b"not ours").expect("foreign");
        assert_eq!(store.require_head().expect("read again"), head);
    }

    #[test]
    fn a_newer_format_kept_is_refused_as_the_tree_would_be() {
        let (_dir, store) = Store::temp_for_tests();
        with_config(&store, "one");
        store.require_head().expect("read, and kept");
        let target = store.head_id().expect("id").expect("a head");
        let mut known = store.known_head(target).expect("kept");
        known.format = Some(u32::MAX);
        store.keep_head(known);
        assert!(matches!(
            store.require_head(),
            Err(crate::store::StoreError::NewerFormat { .. })
        ));
    }
}
