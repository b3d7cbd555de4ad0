//! The library API: one use case per function. Takes a store, returns model values;
//! never prints, never parses arguments, never exits.

mod agent;
mod alongside;
mod beads;
mod doctor;
mod export;
mod formula;
mod history;
mod import;
mod mail;
mod molecule;
mod provenance;
mod query;
mod session;
mod setup;
mod sync;
mod worktree;

use crate::model::{Actor, BeadId, IdError, ParseEnumError, Prefix, TextError};
use crate::store::{self, Meta, StoreError, Tx};

pub use agent::{
    AgentChanges, Binding, NewAgent, acting, bind, binding, create_agent, list_agents, permit,
    retire_agent, show_agent, unbind, update_agent,
};
pub use alongside::{
    Folded, PushedAlong, RefState, fold_fetched, fold_remote, has_unfolded, hooks_dir,
    push_alongside,
};
pub use beads::{
    Changes, NewBead, add_comment, add_dependency, add_label, close, create, delete, init,
    remove_dependency, remove_label, reopen, update,
};
pub use doctor::{Finding, Report as DoctorReport, Severity, doctor};
pub use export::{DataFormat, Export, export};
pub use formula::{
    Catalog, FoundFormula, Origin, REPO_FORMULAS, Validation, catalog, find_formula, read_formula,
    user_formula_dir, validate,
};
pub use history::{LogChange, LogEntry, log};
pub use import::{BadLine, ImportOptions, ImportProgress, ImportReport, import};
pub use mail::{
    InboxEntry, Mark, NewMessage, inbox, mark, peek, reply, search_mail, send, thread, unread,
};
pub use molecule::{
    ACCEPTANCE_KEY, Burned, Current, PourOptions, Poured, Progress, STEP_KEY, Squashed, StepState,
    burn, current, list_molecules, locate, molecule_progress, pour, progress, squash,
};
pub use provenance::{
    CommitProvenance, NOTES_CONFIG, NotesSync, configure_notes, current_provenance, merge_notes,
    notes_configured, provenance, push_notes, record_commit, sync_notes,
};
pub use query::{
    Blocked, DepNode, LabelCount, ListFilter, Listing, blocked, dep_tree, labels_all, list, ready,
    ready_claim, search, show,
};
pub use session::{
    HandoffNote, HookItem, PreviousSession, Prime, Resumed, ResumedFrom, SNAPSHOT_KEEP_KEY,
    SNAPSHOT_MAX_FILE_KEY, SNAPSHOT_ON_HEARTBEAT_KEY, StartOptions, TIMEOUT_KEY, UsageReport,
    end_session, gc, handoff, heartbeat, hook, list_sessions, prime, record_usage, resume,
    session_log, show_session, sling, snapshot, start_session, swap_model, unsling,
};
pub use setup::{
    BeadRow, Broken, FORMAT, Initialized, MAX_DOCUMENT, SYNC_ENV, Store, Synced, add_trailers,
    common_dir, config_bool, config_string, discover, has_store, initialize, rebase_in_progress,
    refs, sync_with_notes, workdir,
};
pub use sync::{
    KeptDoc, Outcome, SyncEvent, SyncMode, SyncOptions, SyncReport, TreeMerge, adopt, merge_trees,
    pick_remote, resolve, setup_remote, setup_remotes, sync,
};
pub use worktree::{
    AGENT_BRANCH_PREFIXES, BoundBy, PENDING_WORKTREES, PendingWorktree, WorktreeAdded,
    WorktreeBound, add_worktree, agent_for_branch, bind_new_worktree, cancel_worktree,
    canonical_worktree_path, finish_pending, plan_worktree,
};

/// What went wrong in an operation.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No bead has this id.
    #[error("no bead {0}")]
    NotFound(BeadId),
    /// An id did not parse.
    #[error(transparent)]
    Id(#[from] IdError),
    /// A word (status, type, dependency type) did not parse.
    #[error(transparent)]
    Word(#[from] ParseEnumError),
    /// A piece of text was refused.
    #[error(transparent)]
    Text(#[from] TextError),
    /// Some other input was refused.
    #[error("{0}")]
    Invalid(String),
    /// The actor may not do this: a capability it lacks, a budget it would exceed,
    /// authority it would widen.
    #[error("{0}")]
    Denied(String),
    /// The operation contradicts the state it found (a claim held by someone else,
    /// a change to a deleted bead).
    #[error("{0}")]
    Conflict(String),
}

/// The result type of every operation.
pub type Result<T> = std::result::Result<T, OpError>;

/// Checks a priority is within 0 (critical) … 4 (backlog).
pub fn check_priority(p: u8) -> Result<u8> {
    if p > 4 {
        return Err(OpError::Invalid(format!(
            "priority {p} is out of range (0 = critical … 4 = backlog)"
        )));
    }
    Ok(p)
}

/// The identity of the person using this repository, as git resolves it.
pub fn whoami(store: &Store) -> Result<Actor> {
    Ok(store.identity()?)
}

/// The store's meta document at its current head.
pub fn meta(store: &Store) -> Result<Meta> {
    let head = store.require_head()?;
    Ok(store.meta(&head)?)
}

/// The prefix a new store in this repository gets unless told otherwise.
pub fn default_prefix(store: &Store) -> Prefix {
    Prefix::from_repo_name(&store.repo_name())
}

pub(crate) use store::now;

/// Runs `op` as one atomic change of the store (see [`Store::transact`]) and returns its value.
pub(crate) fn write<T>(
    store: &Store,
    actor: &Actor,
    op: impl FnMut(&mut Tx<'_>) -> Result<T>,
) -> Result<T> {
    Ok(store.transact(actor, op)?.0)
}
