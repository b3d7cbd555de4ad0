//! The travelling index: the bead table and its search text of one state of the
//! store, published beside it on the remote and signed, so that a fresh clone reads
//! at once instead of parsing every document first.
//!
//! Two refs carry it. [`refs::INDEX_FILES`] is a commit without parents whose tree
//! holds the table file (`table`) and the search text file (`text`) as the cache
//! keeps them, signed by the clone that published it, its message naming the store
//! commit they describe. [`refs::INDEX_OF`] is that store commit itself: every sync
//! fetches it, which costs nothing (the commit is in the store's history), so a clone
//! learns how far behind the remote's index is without downloading it. Only a clone
//! with no index of its own fetches the files.
//!
//! A clone takes a travelling index only when its commit is signed by a key it trusts
//! for people ([`Store::trusted_people`]: `user.signingKey`'s, or one of
//! `gpg.ssh.allowedSignersFile`), the store commit it names is here, both files were
//! built from that commit's tree, and they pass the checks of every cache file
//! (version, checksums). Otherwise (unsigned, signed by a key not trusted, a signature
//! that does not match, files tampered with, of another version or of another tree)
//! the index is built from the documents, as without one. From the state the files
//! describe, the changes since come by a tree diff, as for a cache that fell behind.

use super::*;
use crate::store::sign::Checked;
use crate::store::{git_err, sync::Entry};

/// The name of the table file in a travelling index's tree.
const TABLE_ENTRY: &str = "table";
/// The name of the search text file in a travelling index's tree.
const TEXT_ENTRY: &str = "text";
/// How the message of a travelling index's commit names the store commit.
const MESSAGE_PREFIX: &str = "git-beads index of ";

impl Store {
    /// Whether this clone has no index of the store's beads of its own yet, as a
    /// fresh clone: its fetch then brings the remote's travelling index too.
    pub(crate) fn lacks_index(&self) -> bool {
        !file_path(self, refs::MAIN.as_str(), File::Table).exists()
    }

    /// Whether an index built from tree `from` has fallen behind `head` far enough to
    /// publish a new one: more bead documents differ than a delta holds before it is
    /// folded, so a clone starting from it would fold at once.
    pub(crate) fn index_stale(&self, from: ObjectId, head: &Head) -> Result<bool, StoreError> {
        let index = load_beads(self, refs::MAIN.as_str(), head, Text::Not, true)?;
        let changed = diff_dir(self, from, head.tree, refs::BEADS_DIR)?.len();
        Ok(changed > delta_limit(&index.table))
    }

    /// Writes the travelling index of the store at `head` (folding the cache there
    /// first when changes lie over its table) as a commit signed by `actor`'s key.
    /// `None` when it went unsigned (`actor` has no key, or it failed): no clone would
    /// take it.
    pub(crate) fn write_travelling_index(
        &self,
        head: &Head,
        actor: &crate::model::Actor,
    ) -> Result<Option<ObjectId>, StoreError> {
        let ref_name = refs::MAIN.as_str();
        // The changed beads' descriptions go into the folded search text.
        let index = load_beads(self, ref_name, head, Text::Changed, false)?;
        if index.base != head.tree.as_bytes() {
            let (base, broken) = (index.base.clone(), index.broken.clone());
            fold_delta(self, ref_name, head, index, &base, broken, false)?;
        }
        let mut entries = Vec::new();
        for (name, file) in [(TABLE_ENTRY, File::Table), (TEXT_ENTRY, File::Text)] {
            let path = file_path(self, ref_name, file);
            let bytes = std::fs::read(&path).map_err(io_err(format!("read {}", path.display())))?;
            // Another process may have moved the cache on since: publish only what
            // describes `head`.
            if tree_in(&bytes, file) != Some(head.tree.as_bytes()) {
                return Ok(None);
            }
            entries.push(gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Blob.into(),
                filename: name.into(),
                oid: self.write_blob(&bytes)?,
            });
        }
        let tree = self
            .repo
            .write_object(&gix::objs::Tree { entries })
            .map_err(git_err("write the travelling index's tree"))?
            .detach();
        let message = format!("{MESSAGE_PREFIX}{}", head.commit);
        let commit = self.write_commit(tree, &[], actor, &message)?;
        let signed = self.signed_commit(commit)?;
        Ok(matches!(signed.signature, Checked::Good(_)).then_some(commit))
    }

    /// Puts the travelling index that remote `name` sent (when last fetched) in place
    /// of the cache's table and search text, if it passes every check (see the module's
    /// doc), and drops the ref to it; returns whether it did.
    fn adopt_travelling_index(&self, name: &str) -> bool {
        let tracking = refs::tracking_index_files(name);
        let Ok(Some(commit)) = self.ref_head(&tracking) else {
            return false;
        };
        let Some(files) = self.trusted_index_files(commit.commit) else {
            return false;
        };
        let ref_name = refs::MAIN.as_str();
        let adopted = files.iter().all(|(file, bytes)| {
            let path = file_path(self, ref_name, *file);
            Replacement::create(&path)
                .and_then(|mut out| {
                    out.write_all(bytes)?;
                    out.commit(false)
                })
                .is_ok()
        });
        // The cache holds it now: the objects may go with git's next clean-up.
        if adopted && let Ok(tracking) = self.repo.find_reference(tracking.as_str()) {
            let _ = tracking.delete();
        }
        adopted
    }

    /// The table and search text files of the travelling index at `commit`, when it
    /// is signed by a trusted key and both files were built from the tree of the store
    /// commit it names, which is here.
    fn trusted_index_files(&self, commit: ObjectId) -> Option<[(File, Vec<u8>); 2]> {
        let signed = self.signed_commit(commit).ok()?;
        let Checked::Good(key) = signed.signature else {
            return None;
        };
        let trusted = self.trusted_people().ok()?;
        if !trusted.iter().any(|(_, k)| *k == key) {
            return None;
        }
        let of = signed
            .message
            .lines()
            .next()?
            .strip_prefix(MESSAGE_PREFIX)?;
        let of = ObjectId::from_hex(of.as_bytes()).ok()?;
        let tree = self.commit_tree(of).ok()?;
        let entries = self.tree_entries(signed.tree).ok()?;
        let read = |name: &str, file: File| -> Option<(File, Vec<u8>)> {
            let entry: &Entry = entries.get(name).filter(|e| e.is_file())?;
            let bytes = self.repo.find_object(entry.id).ok()?.detach().data;
            (tree_in(&bytes, file)? == tree.as_bytes()).then_some((file, bytes))
        };
        Some([
            read(TABLE_ENTRY, File::Table)?,
            read(TEXT_ENTRY, File::Text)?,
        ])
    }

    /// Puts a travelling index in place of the missing cache of `ref_name`'s beads,
    /// from the first remote that sent one that passes every check; returns whether
    /// one did. Only the store's main ref travels.
    pub(super) fn adopted_travelling_index(&self, ref_name: &str) -> bool {
        ref_name == refs::MAIN.as_str()
            && (self.repo.remote_names().iter())
                .any(|name| self.adopt_travelling_index(&name.to_string()))
    }
}
