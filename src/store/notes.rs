//! Provenance notes under `refs/notes/beads`, read and written in process exactly as
//! `git notes` lays them out, so that `git log --notes=beads` and
//! `git notes --ref=beads show` read them: a chain of commits whose trees hold one
//! blob per annotated commit, named by that commit's id, either flat or fanned out
//! into directories of two hex digits (`ab/cdef…`), at any depth.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::tree::{Node, entries};
use super::{Head, Store, StoreError, git_err, io_err, refs};
use crate::model::{Actor, AgentName, BeadId};

/// The largest note git-beads reads; a larger one is left as it is.
pub const MAX_NOTE: u64 = 1024 * 1024;

/// How many notes a flat notes tree holds before it is fanned out into directories
/// of two hex digits (git notes fans out at the same size), so that adding a note
/// rewrites a tree of a 256th of the notes, not one of all of them.
const FANOUT_AT: usize = 256;

impl Store {
    /// The commit and tree of `refs/notes/beads`, or `None` before the first note.
    pub(crate) fn notes_head(&self) -> Result<Option<Head>, StoreError> {
        self.ref_head(refs::NOTES.as_str())
    }

    /// Every note in a notes tree, as annotated commit → note blob. Entries that are
    /// not notes (git allows other files in a notes tree) are left out.
    pub(crate) fn notes_in(
        &self,
        tree: ObjectId,
    ) -> Result<BTreeMap<ObjectId, ObjectId>, StoreError> {
        let mut out = BTreeMap::new();
        self.collect_notes(tree, String::new(), &mut out)?;
        Ok(out)
    }

    fn collect_notes(
        &self,
        tree: ObjectId,
        prefix: String,
        out: &mut BTreeMap<ObjectId, ObjectId>,
    ) -> Result<(), StoreError> {
        let hex_len = self.repo.object_hash().len_in_hex();
        for (name, node) in entries(&self.repo, tree)? {
            if !name.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let full = format!("{prefix}{name}");
            match node {
                Node::Blob(blob) if full.len() == hex_len => {
                    if let Ok(id) = ObjectId::from_hex(full.to_ascii_lowercase().as_bytes()) {
                        out.insert(id, blob);
                    }
                }
                Node::Tree(sub) if name.len() == 2 && full.len() < hex_len => {
                    self.collect_notes(sub, full, out)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Where the note of `commit` sits in a notes tree, and its blob.
    fn find_note(
        &self,
        tree: ObjectId,
        commit: ObjectId,
    ) -> Result<Option<(String, ObjectId)>, StoreError> {
        let hex = commit.to_string();
        let mut rest = hex.as_str();
        let mut path = String::new();
        let mut tree = tree;
        loop {
            let here = entries(&self.repo, tree)?;
            if let Some(Node::Blob(blob)) = here.get(rest) {
                path.push_str(rest);
                return Ok(Some((path, *blob)));
            }
            match here.get(rest.get(..2).unwrap_or_default()) {
                Some(Node::Tree(sub)) if rest.len() > 2 => {
                    path.push_str(&rest[..2]);
                    path.push('/');
                    rest = &rest[2..];
                    tree = *sub;
                }
                _ => return Ok(None),
            }
        }
    }

    /// Where a new note of `commit` goes: into the fan-out directories the tree
    /// already uses at each level, else flat at the first level that has none.
    fn place_note(&self, tree: Option<ObjectId>, commit: ObjectId) -> Result<String, StoreError> {
        let hex = commit.to_string();
        let mut rest = hex.as_str();
        let mut path = String::new();
        let mut tree = tree;
        while let Some(t) = tree {
            let here = entries(&self.repo, t)?;
            let fanned = here
                .iter()
                .any(|(n, node)| n.len() == 2 && matches!(node, Node::Tree(_)));
            if !fanned || rest.len() <= 2 {
                break;
            }
            tree = match here.get(&rest[..2]) {
                Some(Node::Tree(sub)) => Some(*sub),
                _ => None,
            };
            path.push_str(&rest[..2]);
            path.push('/');
            rest = &rest[2..];
        }
        path.push_str(rest);
        Ok(path)
    }

    /// The note on `commit` under the notes ref `name` (`refs/notes/beads` or a
    /// tracking ref), if it has one.
    pub(crate) fn note(&self, name: &str, commit: ObjectId) -> Result<Option<Vec<u8>>, StoreError> {
        match self.ref_head(name)? {
            Some(head) => self.note_in(head.tree, commit),
            None => Ok(None),
        }
    }

    /// The size of a blob, without reading it.
    pub(crate) fn blob_size(&self, blob: ObjectId) -> Result<u64, StoreError> {
        Ok(self
            .repo
            .find_header(blob)
            .map_err(git_err(format!("read object {blob}")))?
            .size())
    }

    /// Writes the notes tree `base` (`None`: empty) with `edits` applied: a note blob
    /// for a commit, or `None` to remove its note. Each note keeps its place; new
    /// ones follow the tree's fan-out, and a flat tree that outgrows [`FANOUT_AT`]
    /// notes is fanned out.
    pub(crate) fn write_notes_tree(
        &self,
        base: Option<ObjectId>,
        edits: &BTreeMap<ObjectId, Option<ObjectId>>,
    ) -> Result<ObjectId, StoreError> {
        let root = base.unwrap_or_else(|| self.empty_tree());
        let mut editor = self
            .repo
            .edit_tree(root)
            .map_err(git_err(format!("edit notes tree {root}")))?;
        for (commit, blob) in edits {
            let found = match base {
                Some(t) => self.find_note(t, *commit)?,
                None => None,
            };
            if let Some((path, _)) = &found {
                editor
                    .remove(path.as_str())
                    .map_err(git_err(format!("remove the note at {path}")))?;
            }
            if let Some(blob) = blob {
                let path = match found {
                    Some((path, _)) => path,
                    None => self.place_note(base, *commit)?,
                };
                editor
                    .upsert(path.as_str(), gix::object::tree::EntryKind::Blob, *blob)
                    .map_err(git_err(format!("place the note at {path}")))?;
            }
        }
        let tree = editor
            .write()
            .map_err(git_err("write the notes tree"))?
            .detach();
        self.fan_out(tree)
    }

    /// `tree` with its notes moved into directories named by their first two hex
    /// digits (`ab/cdef…`), when it has no such directory and holds more than
    /// [`FANOUT_AT`] notes; else `tree` as it is.
    fn fan_out(&self, tree: ObjectId) -> Result<ObjectId, StoreError> {
        let hex_len = self.repo.object_hash().len_in_hex();
        let here = entries(&self.repo, tree)?;
        if here
            .iter()
            .any(|(n, node)| n.len() == 2 && matches!(node, Node::Tree(_)))
        {
            return Ok(tree);
        }
        let flat: Vec<(&String, ObjectId)> = here
            .iter()
            .filter_map(|(n, node)| match node {
                Node::Blob(b) if n.len() == hex_len && n.bytes().all(|c| c.is_ascii_hexdigit()) => {
                    Some((n, *b))
                }
                _ => None,
            })
            .collect();
        if flat.len() <= FANOUT_AT {
            return Ok(tree);
        }
        let mut editor = self
            .repo
            .edit_tree(tree)
            .map_err(git_err(format!("edit notes tree {tree}")))?;
        for (name, blob) in flat {
            let path = format!("{}/{}", &name[..2], &name[2..]);
            editor
                .remove(name.as_str())
                .map_err(git_err(format!("remove the note at {name}")))?
                .upsert(path.as_str(), gix::object::tree::EntryKind::Blob, blob)
                .map_err(git_err(format!("place the note at {path}")))?;
        }
        Ok(editor
            .write()
            .map_err(git_err("write the fanned-out notes tree"))?
            .detach())
    }

    /// Moves `refs/notes/beads` under the write lock: `decide` sees its current head
    /// and returns a value and, optionally, the commit to move to with the reflog
    /// message. git itself writes the ref too (it copies notes on amend and rebase)
    /// without that lock, so the move is a compare-and-swap that `decide` retries on
    /// the new head when it loses. `decide` writes its objects through the store it
    /// is handed; they reach the disk before the ref moves, and the ref after, as the
    /// fsync policy asks, so a note reported written survives a crash.
    pub(crate) fn advance_notes<T, E>(
        &self,
        actor: &Actor,
        mut decide: impl FnMut(&Store, Option<Head>) -> Result<(T, Option<(ObjectId, String)>), E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let _lock = self.write_lock()?;
        // A writer killed while moving the ref leaves git's `.lock` beside it.
        self.clear_stale_ref_lock(refs::NOTES.as_str())?;
        for _ in 0..super::tx::MAX_ATTEMPTS {
            let head = self.notes_head()?;
            let mut buffered = self.buffered();
            let (value, target) = decide(&buffered, head)?;
            let Some((commit, message)) = target else {
                return Ok(value);
            };
            if Some(commit) == head.map(|h| h.commit) {
                return Ok(value);
            }
            self.write_buffered(&mut buffered)?;
            if self.move_ref(
                refs::NOTES.as_str(),
                head.map(|h| h.commit),
                commit,
                actor,
                &message,
            )? {
                if self.fsync_policy().refs {
                    self.sync_ref(refs::NOTES.as_str())?;
                }
                return Ok(value);
            }
        }
        Err(StoreError::Contended(refs::NOTES.to_string()).into())
    }

    /// Points remote `remote`'s notes tracking ref at `commit` (after a push).
    pub(crate) fn set_notes_tracking(
        &self,
        remote: &str,
        commit: ObjectId,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        super::check_remote_name(remote)?;
        let tracking = refs::tracking_notes(remote);
        let now = self.ref_head(&tracking)?.map(|h| h.commit);
        if now != Some(commit) {
            // A concurrent `git fetch` may win this race; its value is as good.
            let _ = self.move_ref(
                &tracking,
                now,
                commit,
                actor,
                "push: update notes tracking ref",
            )?;
        }
        Ok(())
    }
}

/// The file (per worktree) in which prepare-commit-msg of earlier versions left who
/// makes the commit under way (`AGENT SESSION`), for their post-commit shim to queue
/// with its id.
const COMMIT_PENDING: &str = "commit-pending";
/// The folder (shared by the worktrees) of commits whose provenance note is still to
/// be written: one file per commit, named by its id and holding `AGENT SESSION` and a
/// newline, written by the post-commit shim of earlier versions with one `echo` (so a
/// reader finds it empty, or whole with its newline). Such a shim may still be
/// installed (until `hooks install` removes it), so the folder is still folded.
const NOTES_QUEUE: &str = "notes-queue.d";
/// The lock that keeps folds of the queue one at a time.
pub(super) const NOTES_QUEUE_LOCK: &str = "notes-queue.lock";

/// A commit the post-commit shim of an earlier version queued for its provenance note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedCommit {
    /// The commit.
    pub commit: ObjectId,
    /// The agent whose session made it.
    pub agent: AgentName,
    /// The session.
    pub session: BeadId,
}

/// What one file of the queue holds.
enum QueueFile {
    /// Nothing yet, or not its final newline: the shim is still writing it.
    Writing,
    /// A queued commit.
    Commit(QueuedCommit),
    /// Something complete that names no commit and session.
    Unreadable,
}

impl QueueFile {
    /// What the queue's file `name`, holding `text`, says.
    fn parse(name: &str, text: &[u8]) -> QueueFile {
        let Some(line) = text.strip_suffix(b"\n") else {
            return QueueFile::Writing;
        };
        let parsed = || {
            let commit = ObjectId::from_hex(name.as_bytes()).ok()?;
            let (agent, session) = std::str::from_utf8(line).ok()?.trim().split_once(' ')?;
            Some(QueuedCommit {
                commit,
                agent: agent.parse().ok()?,
                session: BeadId::parse(session.trim()).ok()?,
            })
        };
        parsed().map_or(QueueFile::Unreadable, QueueFile::Commit)
    }
}

impl Store {
    /// Removes what prepare-commit-msg of an earlier version left for its post-commit
    /// shim (who makes the commit under way), so that such a shim, still installed,
    /// queues nothing on the word of a commit that never happened.
    pub(crate) fn clear_commit_pending(&self) -> Result<(), StoreError> {
        let path = self.worktree_file(COMMIT_PENDING);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(io_err(format!("remove {}", path.display()))(e))
            }
            _ => Ok(()),
        }
    }

    /// Whether commits wait in the queue for their provenance notes (one look at
    /// its folder).
    pub(crate) fn has_queued_commits(&self) -> bool {
        std::fs::read_dir(self.local_dir().join(NOTES_QUEUE))
            .is_ok_and(|mut entries| entries.next().is_some())
    }

    /// Hands the queued commits to `write` (which must have their notes durably in
    /// `refs/notes/beads` when it returns), then deletes exactly the files it was
    /// handed. A file the shim is still writing is left for the next call, and so is
    /// everything when `write` fails; a file that is complete but does not parse is
    /// deleted. Folds run one at a time; one killed halfway leaves its files for the
    /// next, so `write` must skip a commit whose note has the record already.
    /// Returns how many commits were handed to `write`.
    pub(crate) fn take_queued_commits<E: From<StoreError>>(
        &self,
        write: impl FnOnce(&[QueuedCommit]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let dir = self.local_dir();
        let lock_path = dir.join(NOTES_QUEUE_LOCK);
        let _lock = super::lock::WriteLock::acquire(&lock_path)
            .map_err(io_err(format!("lock {}", lock_path.display())))?;
        let queue = dir.join(NOTES_QUEUE);
        let listing = match std::fs::read_dir(&queue) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            r => r.map_err(io_err(format!("list {}", queue.display())))?,
        };
        let (mut entries, mut taken) = (Vec::new(), Vec::new());
        for entry in listing {
            let entry = entry.map_err(io_err(format!("list {}", queue.display())))?;
            let path = entry.path();
            let text = match std::fs::read(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                r => r.map_err(io_err(format!("read {}", path.display())))?,
            };
            let name = entry.file_name();
            match QueueFile::parse(&name.to_string_lossy(), &text) {
                QueueFile::Writing => continue,
                QueueFile::Commit(q) => entries.push(q),
                QueueFile::Unreadable => {}
            }
            taken.push(path);
        }
        if !entries.is_empty() {
            write(&entries)?;
        }
        for path in taken {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_err(format!("remove {}", path.display()))(e).into());
                }
                _ => {}
            }
        }
        Ok(entries.len())
    }

    /// The note of `commit` in the notes tree `tree`, if it has one.
    pub(crate) fn note_in(
        &self,
        tree: ObjectId,
        commit: ObjectId,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        match self.find_note(tree, commit)? {
            Some((_, blob)) => self.read_blob(blob).map(Some),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::git_for_tests as git;

    /// Points `refs/notes/beads` at a commit of notes tree `tree`, as git reads it.
    fn publish(dir: &std::path::Path, tree: ObjectId) {
        let commit = git(dir, &["commit-tree", &tree.to_string(), "-m", "notes"]);
        git(dir, &["update-ref", "refs/notes/beads", commit.trim()]);
    }

    #[test]
    fn a_queue_file_is_read_only_once_the_shim_wrote_it_whole() {
        let id = "0123456789abcdef0123456789abcdef01234567";
        assert!(matches!(QueueFile::parse(id, b""), QueueFile::Writing));
        assert!(matches!(
            QueueFile::parse(id, b"rig/nux ses-1"),
            QueueFile::Writing
        ));
        let QueueFile::Commit(q) = QueueFile::parse(id, b"rig/nux ses-1\n") else {
            panic!("a whole file names its commit");
        };
        assert_eq!(q.commit.to_string(), id);
        assert_eq!(q.agent.as_str(), "rig/nux");
        assert_eq!(q.session.as_str(), "ses-1");
        for (name, text) in [
            ("not-a-commit", &b"rig/nux ses-1\n"[..]),
            (id, b"rig/nux\n"),
            (id, b"\xff ses-1\n"),
        ] {
            assert!(
                matches!(QueueFile::parse(name, text), QueueFile::Unreadable),
                "{name} {text:?}"
            );
        }
    }

    #[test]
    fn a_growing_notes_tree_fans_out_and_git_reads_it() {
        let (dir, store) = Store::temp_for_tests();
        let blob = store.write_blob(b"---\nagent: a\n").expect("blob");
        let commit = |i: usize| ObjectId::from_hex(format!("{i:040x}").as_bytes()).expect("id");
        let edits: BTreeMap<ObjectId, Option<ObjectId>> =
            (1..=FANOUT_AT).map(|i| (commit(i), Some(blob))).collect();
        let flat = store.write_notes_tree(None, &edits).expect("tree");
        assert!(
            entries(&store.repo, flat)
                .expect("entries")
                .values()
                .all(|n| matches!(n, Node::Blob(_)))
        );
        let one_more = BTreeMap::from([(commit(FANOUT_AT + 1), Some(blob))]);
        let fanned = store.write_notes_tree(Some(flat), &one_more).expect("tree");
        let root = entries(&store.repo, fanned).expect("entries");
        assert!(root.values().all(|n| matches!(n, Node::Tree(_))));
        assert_eq!(store.notes_in(fanned).expect("notes").len(), FANOUT_AT + 1);
        // A later note goes into the fan-out, and git reads every one of them.
        let later = BTreeMap::from([(commit(FANOUT_AT + 2), Some(blob))]);
        let tree = store.write_notes_tree(Some(fanned), &later).expect("tree");
        assert!(
            entries(&store.repo, tree)
                .expect("entries")
                .values()
                .all(|n| matches!(n, Node::Tree(_)))
        );
        publish(dir.path(), tree);
        let listed = git(dir.path(), &["notes", "--ref=beads", "list"]);
        assert_eq!(listed.lines().count(), FANOUT_AT + 2);
        assert!(listed.contains(&commit(FANOUT_AT + 2).to_string()));
    }
}
