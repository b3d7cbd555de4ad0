//! The store's history: its commits, newest first, with the documents each changed.

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::tree::DocChange;
use super::{Head, Store, StoreError, git_err};

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

impl Store {
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
    pub(crate) fn history(
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

    /// Every commit reachable from `head` (merged-in ones too) and not from `since`
    /// whose message carries a `Beads-Session:` trailer naming one of `sessions`, newest
    /// first, with the documents each changed against its first parent.
    pub(crate) fn commits_of_sessions(
        &self,
        head: &Head,
        since: Option<ObjectId>,
        sessions: &[String],
    ) -> Result<Vec<HistoryEntry>, StoreError> {
        let mut out = Vec::new();
        for id in self.session_commits(head, since, sessions)? {
            out.push(self.history_entry(id)?.0);
        }
        out.sort_by(|a, b| b.time.cmp(&a.time).then(a.commit.cmp(&b.commit)));
        Ok(out)
    }

    /// How many commits reachable from `head` carry a `Beads-Session:` trailer naming
    /// one of `sessions`: where a session stands in the evidence of its resume chain.
    /// Only commits made at `from` (seconds since the epoch) or later are looked at,
    /// newest first: a caller that knows when the sessions started walks their time,
    /// not the store's whole history (prime does this at every session start).
    pub(crate) fn count_commits_of_sessions(
        &self,
        head: &Head,
        sessions: &[String],
        from: i64,
    ) -> Result<usize, StoreError> {
        use gix::revision::walk::Sorting;
        use gix::traverse::commit::simple::CommitTimeOrder;
        let context = "walk the store's history";
        let walk = self
            .repo
            .rev_walk([head.commit])
            .sorting(Sorting::ByCommitTimeCutoff {
                order: CommitTimeOrder::NewestFirst,
                seconds: from,
            })
            .all()
            .map_err(git_err(context))?;
        let mut count = 0;
        for info in walk {
            let info = info.map_err(|e| git_err(context)(gix::Error::from_error(e)))?;
            if self.names_session(info.id, sessions)? {
                count += 1;
            }
        }
        Ok(count)
    }

    /// Whether commit `id`'s message has a `Beads-Session:` trailer naming one of
    /// `sessions`.
    fn names_session(&self, id: ObjectId, sessions: &[String]) -> Result<bool, StoreError> {
        let commit = self
            .repo
            .find_commit(id)
            .map_err(git_err(format!("read commit {id}")))?;
        let message = commit
            .message_raw()
            .map_err(git_err(format!("decode commit {id}")))?;
        Ok(message.lines().any(|l| {
            l.strip_prefix(b"Beads-Session: ")
                .is_some_and(|s| sessions.iter().any(|x| x.as_bytes() == s.trim_ascii()))
        }))
    }

    /// The commits `head` reaches and `since` does not whose `Beads-Session:` trailer
    /// names one of `sessions`, oldest first.
    fn session_commits(
        &self,
        head: &Head,
        since: Option<ObjectId>,
        sessions: &[String],
    ) -> Result<Vec<ObjectId>, StoreError> {
        let mut out = Vec::new();
        for id in self.commits_between(head.commit, since)? {
            if self.names_session(id, sessions)? {
                out.push(id);
            }
        }
        Ok(out)
    }
}
