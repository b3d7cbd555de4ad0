//! The commits made in this repository since the provenance fold last looked, read
//! from git's own records of them: the HEAD reflog of every worktree (`logs/HEAD` in
//! its git dir), each from where the last fold left it. git appends a line there for
//! every commit it makes (`commit:`, `commit (amend):`, `cherry-pick:`, `rebase
//! (pick):`, a merge…), so no hook has to run a process to say a commit was made.
//!
//! Where each fold stopped is kept in `<common dir>/beads/reflogs-folded`: the
//! length of the reflog it read and the reflog's last line it read, so a reflog that
//! git rewrote meanwhile (`git reflog expire`, `git gc`) is read again from its start
//! rather than from a place that now means something else. A worktree removed before
//! a fold took its reflog with it: its commits are then looked for in the branches'
//! reflogs (under the common dir, which stay), every commit each move of a branch
//! brought. The caller's records must be idempotent: a commit may be handed over
//! twice (a fold killed after writing its notes and before saving where it stopped).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::durable::replace_file;
use super::lock::WriteLock;
use super::notes::NOTES_QUEUE_LOCK;
use super::{Store, StoreError, codec, decode_doc, git_err, io_err};

/// Where the folds stopped in each worktree's HEAD reflog (under the common dir).
const CURSORS: &str = "reflogs-folded";

/// The most commits one move of a branch is walked for, when a worktree's reflog is gone.
const MOST_PER_MOVE: usize = 1000;

/// Where the last fold stopped in one HEAD reflog.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Cursor {
    /// How many bytes of the reflog it had read (whole lines).
    offset: u64,
    /// The last line it read, without its newline (empty at the start).
    line: String,
}

/// The cursors of every worktree, by its key (`.` for the main worktree, else the
/// name of its folder under `<common dir>/worktrees/`).
type Cursors = BTreeMap<String, Cursor>;

/// Whether a HEAD reflog entry's message says the move made a commit (or may have:
/// what is not known to be a mere move counts, so that no commit is missed). A
/// checkout, a reset, a fast-forward and the ends of a rebase move HEAD to commits
/// made before, possibly elsewhere, which are left to their own notes.
fn may_make_commit(message: &str) -> bool {
    const MOVES: &[&str] = &[
        "checkout:",
        "reset:",
        "branch:",
        "clone:",
        "pull",
        "initial pull",
    ];
    if MOVES.iter().any(|m| message.starts_with(m)) && !message.contains("Merge made by") {
        return false;
    }
    if message.ends_with("Fast-forward") || message.ends_with("fast-forward") {
        return false;
    }
    if message.starts_with("rebase")
        && ["(start)", "(finish)", "(abort)"]
            .iter()
            .any(|end| message.contains(end))
    {
        return false;
    }
    true
}

/// One reflog line: the id HEAD moved from, the one it moved to, and the message.
fn parse_line(line: &[u8]) -> Option<(ObjectId, ObjectId, String)> {
    let (head, message) = match line.iter().position(|b| *b == b'\t') {
        Some(tab) => (
            &line[..tab],
            String::from_utf8_lossy(&line[tab + 1..]).into_owned(),
        ),
        None => (line, String::new()),
    };
    let mut words = head.split(|b| *b == b' ');
    let old = ObjectId::from_hex(words.next()?).ok()?;
    let new = ObjectId::from_hex(words.next()?).ok()?;
    Some((old, new, message))
}

/// The whole lines of `bytes` (read from offset `from`): each line, and the offset
/// just past the last whole line with that line (a line git is still writing, without
/// its newline, is left for the next fold).
fn whole_lines(bytes: &[u8], from: u64) -> (Vec<&[u8]>, Option<Cursor>) {
    let Some(last_nl) = bytes.iter().rposition(|b| *b == b'\n') else {
        return (Vec::new(), None);
    };
    let lines: Vec<&[u8]> = bytes[..last_nl].split(|b| *b == b'\n').collect();
    let cursor = lines.last().map(|l| Cursor {
        offset: from + last_nl as u64 + 1,
        line: String::from_utf8_lossy(l).into_owned(),
    });
    (lines, cursor)
}

impl Store {
    /// Every worktree's git dir, by its cursor key: the common dir (`.`) and each
    /// folder of `<common dir>/worktrees/` that holds a HEAD.
    fn worktree_git_dirs(&self) -> Vec<(String, PathBuf)> {
        let common = self.common_dir().to_owned();
        let mut out = vec![(".".to_owned(), common.clone())];
        if let Ok(listing) = std::fs::read_dir(common.join("worktrees")) {
            for entry in listing.flatten() {
                let dir = entry.path();
                if dir.join("HEAD").is_file() {
                    out.push((entry.file_name().to_string_lossy().into_owned(), dir));
                }
            }
        }
        out.sort();
        out
    }

    fn read_cursors(&self) -> Result<Cursors, StoreError> {
        let path = self.local_dir().join(CURSORS);
        match std::fs::read(&path) {
            Ok(bytes) => decode_doc(&path.display().to_string(), &bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Cursors::new()),
            Err(e) => Err(io_err(format!("read {}", path.display()))(e)),
        }
    }

    /// Whether some worktree's HEAD reflog moved since the last fold, or the
    /// worktrees changed (a stat of each reflog: cheap enough for every command).
    pub(crate) fn has_unfolded_reflogs(&self) -> bool {
        let Ok(cursors) = self.read_cursors() else {
            return true;
        };
        let dirs = self.worktree_git_dirs();
        dirs.len() != cursors.len()
            || dirs.iter().any(|(key, dir)| {
                let len = std::fs::metadata(dir.join("logs").join("HEAD")).map(|m| m.len());
                cursors.get(key).map(|c| c.offset) != len.ok()
            })
    }

    /// The new lines of the HEAD reflog of the git dir `dir` after `cursor`: the
    /// commits they may have made, and where this read stops. A reflog that is missing
    /// is made (empty), so git logs the worktree's commits even where
    /// `core.logAllRefUpdates` is off (a bare repository's worktrees); one that no
    /// longer holds the cursor's line where it was is read from its start (`true`).
    fn reflog_since(
        &self,
        dir: &Path,
        cursor: Option<&Cursor>,
        commits: &mut Vec<ObjectId>,
    ) -> Result<(Cursor, bool), StoreError> {
        let logs = dir.join("logs");
        let path = logs.join("HEAD");
        let io = |what: &str| io_err(format!("{what} {}", path.display()));
        let mut file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&logs).map_err(io("create the folder of"))?;
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(io("create"))?;
                return Ok((Cursor::default(), cursor.is_some_and(|c| c.offset > 0)));
            }
            Err(e) => return Err(io("open")(e)),
        };
        let len = file.metadata().map_err(io("stat"))?.len();
        // Read from the start of the cursor's line, to check it is still there.
        let (mut from, mut lost) = (0, false);
        if let Some(c) = cursor.filter(|c| c.offset > 0) {
            let back = c.line.len() as u64 + 1;
            if c.offset <= len && c.offset >= back {
                from = c.offset - back;
            } else {
                lost = true;
            }
        }
        file.seek(SeekFrom::Start(from)).map_err(io("read"))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io("read"))?;
        if let Some(c) = cursor.filter(|c| c.offset > 0 && !lost) {
            let mut expect = c.line.clone().into_bytes();
            expect.push(b'\n');
            if bytes.starts_with(&expect) {
                bytes.drain(..expect.len());
                from = c.offset;
            } else {
                lost = true;
                file.seek(SeekFrom::Start(0)).map_err(io("read"))?;
                bytes.clear();
                file.read_to_end(&mut bytes).map_err(io("read"))?;
                from = 0;
            }
        }
        let (lines, end) = whole_lines(&bytes, from);
        for line in lines {
            if let Some((_, new, message)) = parse_line(line)
                && !new.is_null()
                && may_make_commit(&message)
            {
                commits.push(new);
            }
        }
        let kept = cursor.filter(|_| !lost && from > 0).cloned();
        Ok((end.or(kept).unwrap_or_default(), lost))
    }

    /// Every commit the branches' reflogs say a move of a branch brought (the commits
    /// each move reaches that the branch did not before), for the commits of a
    /// worktree whose own reflog is gone.
    fn commits_in_branch_reflogs(&self, commits: &mut Vec<ObjectId>) -> Result<(), StoreError> {
        let mut files = Vec::new();
        let mut dirs = vec![self.common_dir().join("logs").join("refs").join("heads")];
        while let Some(dir) = dirs.pop() {
            let Ok(listing) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in listing.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        for path in files {
            let bytes = std::fs::read(&path).map_err(io_err(format!("read {}", path.display())))?;
            for line in bytes.split(|b| *b == b'\n') {
                let Some((old, new, _)) = parse_line(line) else {
                    continue;
                };
                if new.is_null() {
                    continue;
                }
                // A branch made here (or its first commit) brought only its tip.
                if old.is_null() {
                    commits.push(new);
                    continue;
                }
                let hidden = [old];
                // A commit since pruned is no longer anyone's to note.
                let Ok(walk) = self.repo.rev_walk([new]).with_hidden(hidden).all() else {
                    continue;
                };
                // A move is a commit or a few, rarely more; a branch reset far
                // away is not read to its root.
                for info in walk.take(MOST_PER_MOVE) {
                    match info {
                        Ok(info) => commits.push(info.id),
                        Err(_) => break,
                    }
                }
            }
        }
        Ok(())
    }

    /// Hands the commits made since the last fold (see the module's documentation)
    /// to `write`, which must have their notes durably written when it returns, then
    /// records where this fold stopped. Folds run one at a time; one that fails or is
    /// killed leaves the commits for the next. Returns how many commits were handed
    /// over.
    pub(crate) fn take_logged_commits<E: From<StoreError>>(
        &self,
        write: impl FnOnce(&[ObjectId]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let dir = self.local_dir();
        std::fs::create_dir_all(&dir).map_err(io_err(format!("create {}", dir.display())))?;
        // The queue's lock: folds of either kind run one at a time.
        let lock_path = dir.join(NOTES_QUEUE_LOCK);
        let _lock = WriteLock::acquire(&lock_path)
            .map_err(io_err(format!("lock {}", lock_path.display())))?;
        let old = self.read_cursors().unwrap_or_default();
        let mut cursors = Cursors::new();
        let mut found = Vec::new();
        let mut lost = false;
        for (key, git_dir) in self.worktree_git_dirs() {
            let (cursor, gone) = self.reflog_since(&git_dir, old.get(&key), &mut found)?;
            lost |= gone;
            cursors.insert(key, cursor);
        }
        lost |= old.keys().any(|k| !cursors.contains_key(k));
        if lost {
            self.commits_in_branch_reflogs(&mut found)?;
        }
        let mut seen = BTreeSet::new();
        found.retain(|c| seen.insert(*c));
        if !found.is_empty() {
            write(&found)?;
        }
        if cursors != old {
            let path = dir.join(CURSORS);
            let text = codec::encode(&cursors).map_err(|source| StoreError::Encode {
                what: CURSORS.to_owned(),
                source,
            })?;
            replace_file(&path, text.as_bytes(), false)
                .map_err(io_err(format!("replace {}", path.display())))?;
        }
        Ok(found.len())
    }

    /// The message of commit `id`, or `None` when it is not a commit this
    /// repository has (pruned since, or never fetched).
    pub(crate) fn commit_message(&self, id: ObjectId) -> Result<Option<String>, StoreError> {
        let Ok(commit) = self.repo.find_commit(id) else {
            return Ok(None);
        };
        let message = commit
            .message_raw()
            .map_err(git_err(format!("decode commit {id}")))?;
        Ok(Some(String::from_utf8_lossy(message).into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_moves_that_may_make_a_commit_count() {
        for m in [
            "commit: fix",
            "commit (amend): fix",
            "commit (initial): fix",
            "commit (merge): Merge branch 'x'",
            "merge topic: Merge made by the 'ort' strategy.",
            "pull: Merge made by the 'ort' strategy.",
            "cherry-pick: fix",
            "revert: Revert \"fix\"",
            "rebase (pick): fix",
            "rebase -i (reword): fix",
            "rebase -i (squash): fix",
            "something git says tomorrow",
        ] {
            assert!(may_make_commit(m), "{m}");
        }
        for m in [
            "checkout: moving from main to topic",
            "reset: moving to HEAD~1",
            "merge topic: Fast-forward",
            "pull: Fast-forward",
            "rebase (start): checkout main",
            "rebase -i (finish): returning to refs/heads/topic",
            "rebase: fast-forward",
        ] {
            assert!(!may_make_commit(m), "{m}");
        }
    }

    #[test]
    fn a_line_still_being_written_is_left_for_the_next_fold() {
        let (lines, end) = whole_lines(b"a\nb\nc", 10);
        assert_eq!(lines, [&b"a"[..], b"b"]);
        let end = end.expect("a cursor");
        assert_eq!((end.offset, end.line.as_str()), (14, "b"));
        assert_eq!(whole_lines(b"half", 0), (Vec::<&[u8]>::new(), None));
    }
}
