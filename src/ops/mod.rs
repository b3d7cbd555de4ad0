//! The library API: one use case per function. Takes a store, returns model values;
//! never prints, never parses arguments, never exits.

mod agent;
mod alongside;
mod audit;
mod batch;
mod beads;
mod bond;
mod claim;
mod claim_refs;
mod context;
mod core;
mod dep_graph;
mod diff;
mod doctor;
mod duplicates;
mod edit;
mod error;
mod export;
mod formula;
mod gate;
mod graph;
mod history;
mod import;
mod keys;
mod lint;
mod mail;
pub mod memory;
mod molecule;
mod orphans;
mod promote;
mod provenance;
mod prune;
mod rename;
mod routes;
mod session;
mod session_doc;
mod setup;
mod sql;
mod state;
mod sync;
mod touched;
mod tree_merge;
mod usage;
mod verify;
mod waits;
mod wisp;
mod worktree;

use core::{config, query};

pub use core::Result;
pub use core::change::Edited;
pub(crate) use core::change::claim as claim_bead;
pub(crate) use core::ids::{fresh_id, next_child};
pub(crate) use core::{
    check_bead, default_prefix, now, or_broken, permit, refuse_new, require, write,
};
pub use core::{meta, whoami};

pub use crate::model::Trust;
/// Files of a caller's own (exports, manual pages, hook scripts) are replaced the way
/// the store replaces its files.
pub use crate::store::{Replacement, replace_file, unsigned_reason};
pub use agent::{
    Acting, ActingBecause, AgentChanges, Binding, NewAgent, acting, acting_as_named, acting_given,
    bind, binding, create_agent, list_agents, retire_agent, rotate_agent_key, show_agent, unbind,
    update_agent, who_acts,
};
pub use alongside::{
    Folded, PushedAlong, RefState, fetch_alongside, fold_fetched, has_unfolded, hooks_dir,
    push_alongside,
};
pub use audit::{LABEL_KIND, label_audit, record_audit};
pub use batch::{BatchDone, BatchLine, BatchOp, batch};
pub use beads::{
    Changes, Closing, NewBead, add_comment, add_dependency, add_label, add_rig_dependency, close,
    close_eligible_epics, close_replaced, close_with_output, create, create_preview, delete,
    delete_preview, init, relate, release, remove_dependency, remove_label, reopen, update,
};
pub use bond::{BondOptions, Bonded, Operand, bond};
pub use claim::{claim_remote, close_on, ready_claim_on, release_on, sling_on, update_on};
pub use config::{kv, role, set_role, set_setting, setting, settings, unset_setting, vocabulary};
pub use context::{StoreChoice, StoreContext, store_context};
pub use dep_graph::{GraphEdge, Layout, Subgraph, dependency_graph, dependency_graphs};
pub use diff::{BeadDiff, StoreDiff, diff_states};
pub use doctor::{Check, Finding, Moved, Report as DoctorReport, Severity, doctor, restore_lost};
pub use duplicates::{DuplicateScope, Duplicates, SimilarPair, find_duplicates};
pub use edit::{TextField, edit_text};
pub use error::{
    AgentChange, AgentError, BeadError, DoctorError, ErrorKind, FormulaError, HistoryError,
    ImportError, MailError, MoleculeError, OpError, ProvenanceError, RefProblem, RemoteError,
    SessionError, SqlError, StoreError, SyncError, WorktreeError,
};
pub use export::{DataFormat, Export, export};
pub use formula::{Catalog, FoundFormula, Origin, Validation, catalog, find_formula, validate};
pub use formula::{Syntax, as_bd, convert, cook, find_overlay, trial_cooks};
pub use gate::{GATE_KEY, GateState, GateStatus, gates, resolve_gate};
pub use graph::create_graph;
pub use history::{BeadVersion, ChangeKind, Evidence, LogChange, LogEntry, bead_history, log};
pub use import::{BadLine, ImportOptions, ImportProgress, ImportReport, import};
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
pub use orphans::{Orphan, orphans};
pub use promote::promote;
pub use provenance::{
    CommitProvenance, NotesSync, configure_notes, fold_commit_notes, forget_pending_commit,
    notes_configured, provenance, record_commit, sync_notes,
};
pub use prune::{Pruning, prune};
pub use query::{
    Blocked, BlockedKeeper, CountBy, DepNode, Dependents, Detailed, EpicProgress, KeptBlocked,
    LabelCount, ListFilter, Listing, QueryOptions, QuerySort, Sort, Stats, StoreInfo, blocked,
    count, count_by, dep_cycles, dep_tree, dependents_of, detail, epic_status, head_commit,
    kept_blocked, labels_all, list, list_wisps_matching, query, ready, ready_claim, require_bead,
    resolve_id, resolve_target, search, show, stats, store_info,
};
pub use rename::{Followed, PrefixRenamed, RENAMED_TO, Renamed, rename, rename_prefix};
pub use routes::{holds, routed_store};
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
pub use sql::{SqlAnswer, sql};
pub use state::{StateChange, set_state, state, states};
pub use sync::{
    Outcome, RemotePruned, SyncEvent, SyncMode, SyncOptions, SyncReport, adopt, prune_remote,
    resolve, setup_remote, setup_remotes, sync,
};
pub use touched::{last_touched, touch};
pub use tree_merge::{KeptDoc, TreeMerge};
pub use usage::{
    DEFAULT_PRICES, Flush, Fresh, FreshAfter, Price, PromptContext, TurnOptions, TurnReport,
    Verdict, end_over_budget, fresh, guard, prompt_context, record_turn,
};
pub use verify::{CommitCheck, Verification, allowed_signers, verify};
pub use waits::WaitsFor;

pub use wisp::{Swept, WispSweep, sweep_wisps};
pub use worktree::{
    BoundBy, PendingWorktree, WorktreeAdded, WorktreeBound, add_worktree, bind_new_worktree,
    finish_pending, plan_worktree,
};
