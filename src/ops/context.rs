//! bd's `context`: which store a directory uses, and why.

use std::path::{Path, PathBuf};

use super::setup::{BEADS_DIR_NAME, redirect, redirect_above};
use crate::store::Store;

/// Why a command run in a directory uses the store it uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreChoice {
    /// `BEADS_DIR` names a `.beads` (the path as given, from the current directory).
    BeadsDir(PathBuf),
    /// A `.beads/redirect` at or above the directory points at another `.beads`.
    Redirect(PathBuf),
    /// The repository the directory is in.
    Here,
}

/// Which store a command run in `cwd` uses and why (see [`super::discover`]).
#[derive(Clone, Debug)]
pub struct StoreContext {
    /// Why this store.
    pub choice: StoreChoice,
    /// The `.beads` directory of the store's worktree.
    pub beads_dir: Option<PathBuf>,
    /// The top of the store's worktree.
    pub repo_root: Option<PathBuf>,
    /// The git directory shared by the store's worktrees (where its refs live).
    pub common_dir: PathBuf,
    /// The top of the worktree `cwd` is in, when it is another repository's.
    pub cwd_repo_root: Option<PathBuf>,
    /// Whether the store's worktree is a linked worktree (`git worktree add`).
    pub is_worktree: bool,
}

/// What [`StoreContext`] says of `store`, found from `cwd` with `beads_dir` as
/// `BEADS_DIR` gave it (if it did).
pub fn store_context(store: &Store, cwd: &Path, beads_dir: Option<&Path>) -> StoreContext {
    let cwd_repo = Store::discover(cwd).ok();
    let cwd_top = cwd_repo.as_ref().and_then(Store::workdir);
    let choice = match beads_dir {
        Some(dir) => StoreChoice::BeadsDir(dir.to_owned()),
        None => match redirect_above(cwd, cwd_top) {
            Some(target) => StoreChoice::Redirect(target),
            None => StoreChoice::Here,
        },
    };
    let repo_root = store.workdir().map(Path::to_owned);
    let beads = |root: &Path| {
        let own = root.join(BEADS_DIR_NAME);
        redirect(&own).unwrap_or(own)
    };
    StoreContext {
        beads_dir: match &choice {
            StoreChoice::Redirect(target) => Some(target.clone()),
            _ => repo_root.as_deref().map(beads),
        },
        is_worktree: repo_root
            .as_deref()
            .is_some_and(|r| r.join(".git").is_file()),
        cwd_repo_root: cwd_top
            .filter(|t| Some(*t) != repo_root.as_deref())
            .map(Path::to_owned),
        common_dir: store.common_dir().to_owned(),
        repo_root,
        choice,
    }
}
