//! The bead last touched in this worktree, kept where bd keeps it for the same
//! purpose (its `.beads/last-touched`): a file of this machine, never committed or
//! synced. `show`, `update` and `close` given no id act on it.

use serde::{Deserialize, Serialize};

use super::Result;
use crate::model::BeadId;
use crate::store::Store;

/// The file, under this worktree's `$GIT_DIR/beads/`, naming the bead last touched.
pub(crate) const LAST_TOUCHED: &str = "last-touched.yaml";

#[derive(Serialize, Deserialize)]
struct Touched {
    id: BeadId,
}

/// The bead last touched in this worktree, if any was.
pub fn last_touched(store: &Store) -> Result<Option<BeadId>> {
    Ok(store
        .read_worktree_state::<Touched>(LAST_TOUCHED)?
        .map(|t| t.id))
}

/// Remembers `id` as the bead last touched in this worktree.
pub fn touch(store: &Store, id: &BeadId) -> Result<()> {
    let touched = Touched { id: id.clone() };
    Ok(store.write_worktree_state(LAST_TOUCHED, Some(&touched))?)
}
