//! The library API: one use case per function. Takes a store, returns model values;
//! never prints, never parses arguments, never exits.

mod agent;
mod alongside;
mod beads;
mod bond;
mod claim;
mod core;
mod doctor;
mod edit;
mod error;
mod export;
mod formula;
mod gate;
mod history;
mod import;
mod keys;
mod lint;
mod mail;
mod molecule;
mod provenance;
mod rename;
mod session;
mod setup;
mod sync;
mod touched;
mod usage;
mod verify;
mod worktree;

use core::{config, query};

use crate::model::{self, Actor, Bead, BeadId, Prefix};
use crate::store::{self, Meta, Tx, View};

/// Files of a caller's own (exports, manual pages, hook scripts) are replaced the way
/// the store replaces its files.
pub use crate::store::{Replacement, replace_file, unsigned_reason};
pub use agent::{
    Acting, ActingBecause, AgentChanges, Binding, NewAgent, acting, acting_as_named, bind, binding,
    create_agent, list_agents, retire_agent, show_agent, unbind, update_agent, who_acts,
};
pub use alongside::{
    Folded, PushedAlong, RefState, fetch_alongside, fold_fetched, has_unfolded, hooks_dir,
    push_alongside,
};
pub use beads::{
    Changes, Closing, Edited, NewBead, add_comment, add_dependency, add_label, close, close_on,
    close_replaced, close_with_output, create, create_preview, delete, delete_preview, init,
    relate, release, release_on, remove_dependency, remove_label, reopen, update,
};
pub use bond::{BondOptions, Bonded, Operand, WaitsFor, bond};
pub use claim::{claim_remote, sling_on, update_on};
pub use config::{kv, role, set_role, set_setting, setting, settings, unset_setting, vocabulary};
pub use doctor::{Check, Finding, Moved, Report as DoctorReport, Severity, doctor, restore_lost};
pub use edit::{TextField, edit_text};
pub use error::{
    AgentChange, AgentError, BeadError, DoctorError, ErrorKind, FormulaError, ImportError,
    MailError, MoleculeError, OpError, ProvenanceError, RefProblem, RemoteError, SessionError,
    StoreError, SyncError, WorktreeError,
};
pub use export::{DataFormat, Export, export};
pub use formula::{Catalog, FoundFormula, Origin, Validation, catalog, find_formula, validate};
pub use formula::{Syntax, as_bd, convert, cook, find_overlay, trial_cooks};
pub use gate::{GATE_KEY, GateState, GateStatus, gates, resolve_gate};
pub use history::{ChangeKind, Evidence, LogChange, LogEntry, log};
pub use import::{BadLine, ImportOptions, ImportProgress, ImportReport, import};
pub use keys::rotate_agent_key;
pub use lint::{LintReport, Linted, lint};
pub use mail::{
    InboxEntry, Mark, NewMessage, Unread, inbox, mark, peek, reply, search_mail, send, thread,
    unread,
};
pub use molecule::{
    ACCEPTANCE_KEY, BondKind, Burned, ChecklistItem, Current, PourOptions, Poured, Progress,
    Squashed, StepState, burn, checklist_of, current, list_molecules, list_wisps, locate,
    molecule_progress, pour, progress, squash,
};
pub use provenance::{
    CommitProvenance, NotesSync, configure_notes, fold_commit_notes, forget_pending_commit,
    notes_configured, provenance, record_commit, sync_notes,
};
pub use query::{
    Blocked, BlockedKeeper, CountBy, DepNode, Dependents, Detailed, EpicProgress, KeptBlocked,
    LabelCount, ListFilter, Listing, Sort, Stats, StoreInfo, blocked, close_eligible_epics, count,
    count_by, dep_cycles, dep_tree, dependents_of, detail, epic_status, head_commit, kept_blocked,
    labels_all, list, ready, ready_claim, ready_claim_on, require_bead, resolve_id, resolve_target,
    search, show, stats, store_info,
};
pub use rename::{Followed, PrefixRenamed, RENAMED_TO, Renamed, rename, rename_prefix};
pub use session::{
    DEFAULT_STALE_SECS, HandoffNote, HookItem, PreviousSession, Prime, Resumed, ResumedFrom,
    StaleBead, StaleWhy, StartOptions, UsageReport, end_session, gc, handoff, heartbeat, hook,
    list_sessions, prime, record_usage, resume, session_log, show_session, sling, snapshot, stale,
    start_session, swap_model, unsling,
};
pub use setup::{
    BEADS_DIR_NAME, BeadRow, Broken, FORMAT, Initialized, KeptStore, MAX_DOCUMENT, MailSummary,
    SYNC_ENV, Store, Summary, Synced, TableStamp, add_trailers, beads_dir_root, common_dir,
    config_bool, config_string, discover, discover_or_create, has_store, initialize,
    rebase_in_progress, refs, sync_with_notes, workdir,
};
pub use sync::{
    KeptDoc, Outcome, RemotePruned, SyncEvent, SyncMode, SyncOptions, SyncReport, TreeMerge, adopt,
    prune_remote, resolve, setup_remote, setup_remotes, sync,
};
pub use touched::{last_touched, touch};
pub use usage::{
    DEFAULT_PRICES, Flush, Fresh, FreshAfter, Price, PromptContext, TurnOptions, TurnReport,
    Verdict, end_over_budget, fresh, guard, prompt_context, record_turn,
};
pub use verify::{CommitCheck, Trust, Verification, allowed_signers, verify};

pub use worktree::{
    BoundBy, PendingWorktree, WorktreeAdded, WorktreeBound, add_worktree, bind_new_worktree,
    finish_pending, plan_worktree,
};

/// The result type of every operation.
pub type Result<T> = std::result::Result<T, OpError>;

/// Refuses `after` when it breaks a rule of the document validator
/// ([`model::bead_problems`]) that `before`, the document it replaces, did not break
/// already: a change never makes a document worse, and never has to mend what it did
/// not touch (a document from a remote is kept as it is, and `doctor` flags it).
pub(crate) fn check_bead(before: Option<&Bead>, after: &Bead) -> Result<()> {
    let old = before.map(model::bead_problems).unwrap_or_default();
    refuse_new(&old, model::bead_problems(after))
}

/// Fails with the first of `found` that is not among `old`.
pub(crate) fn refuse_new(old: &[model::Invalid], found: Vec<model::Invalid>) -> Result<()> {
    match found.into_iter().find(|p| !old.contains(p)) {
        Some(p) => Err(p.into()),
        None => Ok(()),
    }
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
pub(crate) fn default_prefix(store: &Store) -> Prefix {
    Prefix::from_repo_name(&store.repo_name())
}

pub(crate) use store::now;

/// Reads bead `id` inside a transaction, or fails with [`BeadError::NotFound`].
pub(crate) fn require(tx: &View<'_>, id: &BeadId) -> Result<Bead> {
    tx.bead(id)?
        .ok_or_else(|| BeadError::NotFound(id.clone()).into())
}

/// A document read for a view that does not parse is set aside in `broken` (`None`);
/// every other answer, and every other error, passes through.
pub(crate) fn or_broken<T>(read: Result<T>, broken: &mut Vec<Broken>) -> Result<Option<T>> {
    match read {
        Ok(doc) => Ok(Some(doc)),
        Err(OpError::Store(StoreError::Document { path, source })) => {
            broken.push(Broken {
                path,
                error: source.to_string(),
            });
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Runs `op` as one atomic change of the store (see [`Store::transact`]) and returns its value.
pub(crate) fn write<T>(
    store: &Store,
    actor: &Actor,
    op: impl FnMut(&mut Tx<'_>) -> Result<T>,
) -> Result<T> {
    Ok(store.transact(actor, op)?.0)
}
