//! Use cases of several steps, each one function, so that a library caller gets what
//! the command line gets (`init`, `sync` with the notes); and the handles and
//! repository facts the CLI and the hooks need, so that neither reaches into
//! `store` itself.

use std::path::{Path, PathBuf};

use crate::model::{Actor, Prefix};
use crate::ops::{
    NotesSync, OpError, Result, SyncError, SyncEvent, SyncMode, SyncOptions, SyncReport, adopt,
    configure_notes, init, setup_remotes, sync_notes,
};
use crate::store::{RemoteError, StoreError};

pub use crate::store::codec::MAX_DOCUMENT;
pub use crate::store::{
    BeadRow, Broken, FORMAT, KeptStore, MailSummary, SYNC_ENV, Store, Summary, TableStamp, refs,
};

/// The directory of a worktree where bd keeps its store and git-beads its formulas;
/// bd's tools look for it, and `BEADS_DIR` names one.
pub const BEADS_DIR_NAME: &str = ".beads";

/// Opens the store of the repository that `dir` is in, the way git finds it. The
/// nearest `.beads/redirect` file at or above `dir` (up to the top of its worktree;
/// where `dir` is in no repository, up to the root: a town's rig directories are no
/// repositories) points at the `.beads` of another repository, whose store it opens
/// instead; one level, as bd follows it. The file is bd's: the first line that is
/// not blank or a comment, a path from the directory that holds that `.beads`.
pub fn discover(dir: &Path) -> Result<Store> {
    let found = Store::discover(dir);
    let top = found.as_ref().ok().and_then(Store::workdir);
    match redirect_above(dir, top) {
        Some(target) => Ok(Store::discover(&target)?),
        None => Ok(found?),
    }
}

/// The directory that the nearest `.beads` at or above `dir` redirects to, looking
/// no higher than `top`. This runs before every command: at the top of a worktree
/// it costs one open(2) of `.beads/redirect` (which fails where there is none), and
/// a stat of `.beads` for each directory between `dir` and the top.
pub(super) fn redirect_above(dir: &Path, top: Option<&Path>) -> Option<PathBuf> {
    // Opened by `GIT_DIR` from elsewhere: its worktree's own `.beads` decides.
    let start = match top {
        Some(top) if !dir.starts_with(top) => top,
        _ => dir,
    };
    // The nearest `.beads` decides: one without a redirect is the store's own, as bd
    // stops at it.
    (start.ancestors())
        .map(|at| (at, at.join(BEADS_DIR_NAME)))
        .find(|(at, beads)| Some(*at) == top || beads.is_dir())
        .and_then(|(_, beads)| redirect(&beads))
}

/// [`discover`], or where `dir` is in no repository, a new one made there by
/// `git init` (as bd's `init` does); says whether it made one.
pub fn discover_or_create(dir: &Path) -> Result<(Store, bool)> {
    match discover(dir) {
        Err(OpError::Store(StoreError::NotARepo { .. })) => Ok((Store::create(dir)?, true)),
        found => found.map(|store| (store, false)),
    }
}

/// Where to look for the store bd's `BEADS_DIR` names (for [`discover`]): beside a
/// `.beads`, the directory that holds it (`discover` follows its redirect file from
/// there); for a directory of another name, the one its `redirect` file points at,
/// else itself where it exists, else the directory it would be made in. Its
/// repository holds the store.
pub fn beads_dir_root(beads_dir: &Path) -> PathBuf {
    if let Some(parent) = beads_dir.parent()
        && beads_dir.file_name().is_some_and(|n| n == BEADS_DIR_NAME)
    {
        return parent.to_owned();
    }
    let dir = redirect(beads_dir).unwrap_or_else(|| beads_dir.to_owned());
    match dir.parent() {
        Some(parent) if !dir.is_dir() => parent.to_owned(),
        _ => dir,
    }
}

/// The directory `beads_dir/redirect` points at, if it names one.
pub(super) fn redirect(beads_dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(beads_dir.join("redirect")).ok()?;
    let line = (text.lines().map(str::trim)).find(|l| !l.is_empty() && !l.starts_with('#'))?;
    let target = beads_dir.parent().unwrap_or(beads_dir).join(line);
    target.is_dir().then_some(target)
}

/// What [`initialize`] did.
#[derive(Debug)]
pub struct Initialized {
    /// The store's prefix of new ids.
    pub prefix: Prefix,
    /// Whether a new store was created (not found, not adopted).
    pub created: bool,
    /// The remote whose store this repository adopted, if it did.
    pub adopted: Option<String>,
    /// The remotes whose fetch refspecs were added now.
    pub remotes_configured: Vec<String>,
    /// Why the default remote could not be asked for a store to adopt, if it could
    /// not: a new store is made regardless, and the first sync merges the histories.
    pub remote_unreachable: Option<RemoteError>,
}

/// Sets up a repository for beads, idempotently: every remote so that `git fetch`
/// brings beads, the default remote's store adopted when this repository has none
/// (a fresh clone), otherwise a new store, the notes config that carries
/// provenance notes through amend and rebase, and the worktree's `.beads` directory
/// (where formulas live, and bd's tools look).
pub fn initialize(
    store: &Store,
    actor: &Actor,
    prefix: Option<Prefix>,
    talk: bool,
) -> Result<Initialized> {
    let remotes_configured = setup_remotes(store)?;
    let (adopted, remote_unreachable) = match adopt(store, actor, None, prefix.as_ref(), talk) {
        Ok(adopted) => (adopted, None),
        Err(OpError::Store(StoreError::Remote(e))) => (None, Some(e)),
        Err(e) => return Err(e),
    };
    let (prefix, created) = init(store, actor, prefix)?;
    configure_notes(store)?;
    if let Some(top) = store.workdir() {
        let dir = top.join(BEADS_DIR_NAME);
        std::fs::create_dir_all(&dir)
            .map_err(crate::store::io_err(format!("make {}", dir.display())))?;
    }
    Ok(Initialized {
        prefix,
        created,
        adopted,
        remotes_configured,
        remote_unreachable,
    })
}

/// What [`sync_with_notes`] did.
#[derive(Debug)]
pub struct Synced {
    /// The beads' sync.
    pub report: SyncReport,
    /// The provenance notes' (empty when they failed).
    pub notes: NotesSync,
    /// Why the notes were not synced, if they were not: the beads are in step
    /// regardless.
    pub notes_error: Option<OpError>,
}

/// Syncs the store with a remote (see [`sync`]), then the provenance notes the fetch
/// brought: merged, and pushed unless pulling, in what is left of the sync's budget
/// (`beads.syncTimeout`); when none is, the notes wait for the next sync.
pub fn sync_with_notes(
    store: &Store,
    actor: &Actor,
    opts: &SyncOptions,
    progress: &mut dyn FnMut(SyncEvent),
) -> Result<Synced> {
    let limit = super::sync::budget(store);
    let budget = super::sync::Budget::new(limit);
    let deadline = budget.deadline();
    let report = super::sync::sync_within(store, actor, opts, progress, budget)?;
    let pull_only = opts.mode == SyncMode::Pull;
    let notes = if std::time::Instant::now() < deadline {
        sync_notes(
            store,
            actor,
            &report.remote,
            pull_only,
            opts.talk,
            Some(deadline),
        )
    } else {
        Err(SyncError::OutOfTime {
            remote: report.remote.clone(),
            step: "sharing the provenance notes",
            rounds: report.rounds,
            budget: limit.as_secs(),
        }
        .into())
    };
    let (notes, notes_error) = match notes {
        Ok(notes) => (notes, None),
        Err(e) => (NotesSync::default(), Some(e)),
    };
    Ok(Synced {
        report,
        notes,
        notes_error,
    })
}

/// Whether the store has been created (its ref exists).
pub fn has_store(store: &Store) -> Result<bool> {
    Ok(store.head()?.is_some())
}

/// Whether a rebase is under way in the worktree.
pub fn rebase_in_progress(store: &Store) -> bool {
    store.git().rebase_in_progress()
}

/// Adds `trailers` (key, value) to the commit message in `file`, each once.
pub fn add_trailers(store: &Store, file: &Path, trailers: &[(&str, &str)]) -> Result<()> {
    Ok(store.git().add_trailers(file, trailers)?)
}

/// The repository's git config value of `key` as a boolean, if set and valid.
pub fn config_bool(store: &Store, key: &str) -> Option<bool> {
    store.git().config_bool(key)
}

/// The repository's git config value of `key`, if set.
pub fn config_string(store: &Store, key: &str) -> Option<String> {
    store.git().config_string(key)
}

/// The top of the worktree, if the repository has one.
pub fn workdir(store: &Store) -> Option<PathBuf> {
    store.workdir().map(Path::to_owned)
}

/// The git dir every worktree of the repository shares.
pub fn common_dir(store: &Store) -> PathBuf {
    store.common_dir().to_owned()
}
