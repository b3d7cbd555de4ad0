//! The code's history as the store reads it: the subjects of the commits on HEAD.

use gix::bstr::ByteSlice;

use super::{Store, StoreError, git_err};

/// A commit of the code whose subject names something the caller looks for.
#[derive(Clone, Debug)]
pub struct CodeCommit {
    /// Its id, abbreviated as git abbreviates it.
    pub short_id: String,
    /// The first line of its message.
    pub subject: String,
}

impl Store {
    /// The commits HEAD reaches whose subject contains `needle`, newest first (by
    /// commit time, as `git log` lists them); none when HEAD is unborn. One pass over
    /// the history, reading each commit's message and nothing else.
    pub(crate) fn head_subjects_with(&self, needle: &str) -> Result<Vec<CodeCommit>, StoreError> {
        use gix::revision::walk::Sorting;
        use gix::traverse::commit::simple::CommitTimeOrder;
        let context = "walk the history of HEAD";
        let Some(head) = self.repo.head_id().ok() else {
            return Ok(Vec::new());
        };
        let walk = self
            .repo
            .rev_walk([head.detach()])
            .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
            .all()
            .map_err(git_err(context))?;
        let mut out = Vec::new();
        for info in walk {
            let info = info.map_err(|e| git_err(context)(gix::Error::from_error(e)))?;
            let commit = info.object().map_err(git_err(context))?;
            let message = commit.message_raw().map_err(git_err(context))?;
            let subject = message.lines().next().unwrap_or_default();
            if subject.find(needle).is_none() {
                continue;
            }
            let short_id = info.id().shorten().map_or_else(
                |_| info.id.to_hex_with_len(7).to_string(),
                |p| p.to_string(),
            );
            out.push(CodeCommit {
                short_id,
                subject: subject.to_str_lossy().into_owned(),
            });
        }
        Ok(out)
    }
}
