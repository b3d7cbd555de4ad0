//! Past states of the store: the commit a revision names, checked to be one of the
//! store's, and the commit that was the store's head at a moment.

use gix::ObjectId;

use super::read::Meta;
use super::{Head, Store, StoreError, git_err, refs};

impl Store {
    /// The state of the store commit `commit` records, or `None` when it is not a
    /// commit of a beads store (its tree holds no `meta.yaml` that reads as one).
    pub(crate) fn state_of(&self, commit: ObjectId) -> Result<Option<Head>, StoreError> {
        let head = self.head_at(commit)?;
        let meta: Option<Result<Meta, _>> = self
            .read_path(head.tree, refs::META_PATH)?
            .map(|bytes| super::codec::decode(&bytes));
        Ok(matches!(meta, Some(Ok(_))).then_some(head))
    }

    /// The commit that was the head of the store at `time` (seconds since the epoch):
    /// the newest one on `head`'s first-parent line committed then or before, or
    /// `None` when the store is younger. Only the commits after `time` are read.
    pub(crate) fn state_at(&self, head: &Head, time: i64) -> Result<Option<Head>, StoreError> {
        let context = "walk the store's history";
        let walk = self
            .repo
            .rev_walk([head.commit])
            .first_parent_only()
            .all()
            .map_err(git_err(context))?;
        for info in walk {
            let info = info.map_err(|e| git_err(context)(gix::Error::from_error(e)))?;
            let commit = info.object().map_err(git_err(context))?;
            let committed = commit.time().map_err(git_err(context))?.seconds;
            if committed <= time {
                return self.head_at(info.id).map(Some);
            }
        }
        Ok(None)
    }
}
