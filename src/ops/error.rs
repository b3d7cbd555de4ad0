//! What can go wrong in an operation: one enum per area, carrying the data a caller
//! needs to tell one failure from another without reading text, wrapped by
//! [`OpError`]. Messages name the id, ref or path; what to do about a failure (a
//! command to run, a flag to pass) is for the caller to say.

use std::path::PathBuf;
use std::process::ExitStatus;

use crate::model::{
    self, AgentName, BeadId, Capability, DepTarget, IdError, ParseEnumError, Prefix, Status,
    TextError,
};
use crate::store::refs::RefName;
/// The store's errors, which [`OpError::Store`] carries.
pub use crate::store::{RemoteError, StoreError};

/// What an operation failed at, in the categories every caller (the CLI's exit
/// codes, a server's status codes) distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bead, agent, session, message, formula or commit asked for does not exist.
    NotFound,
    /// The input was refused.
    Invalid,
    /// The operation contradicts the state it found: a claim held by someone else, a
    /// change to a deleted bead, a remote that moved.
    Conflict,
    /// The actor may not do this: a capability it lacks, a budget it crossed,
    /// authority it would widen.
    Denied,
    /// The store could not be read or written.
    Store,
    /// A remote refused the change for good (a hook, a protected ref): the same
    /// request again will be refused again.
    Refused,
}

/// What went wrong in an operation.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An id did not parse.
    #[error(transparent)]
    Id(#[from] IdError),
    /// A word (status, type, dependency type) did not parse.
    #[error(transparent)]
    Word(#[from] ParseEnumError),
    /// A piece of text was refused.
    #[error(transparent)]
    Text(#[from] TextError),
    /// Beads: lookups, claims, dependencies, comments.
    #[error(transparent)]
    Bead(#[from] BeadError),
    /// Agents, their authority and their hooks.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// Sessions.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Mail.
    #[error(transparent)]
    Mail(#[from] MailError),
    /// Formulas.
    #[error(transparent)]
    Formula(#[from] FormulaError),
    /// Molecules and wisps.
    #[error(transparent)]
    Molecule(#[from] MoleculeError),
    /// Syncing with a remote.
    #[error(transparent)]
    Sync(#[from] SyncError),
    /// Something `doctor` was asked to do failed.
    #[error(transparent)]
    Doctor(#[from] DoctorError),
    /// Worktrees made for agents.
    #[error(transparent)]
    Worktree(#[from] WorktreeError),
    /// Import and export.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Provenance notes.
    #[error(transparent)]
    Provenance(#[from] ProvenanceError),
    /// A settings key was refused.
    #[error(transparent)]
    SettingsKey(#[from] model::config::KeyError),
    /// A project's own type or status was refused, or is not one of the project's.
    #[error(transparent)]
    Vocabulary(#[from] model::config::VocabularyError),
    /// A `sql` query was refused.
    #[error(transparent)]
    Sql(#[from] SqlError),
    /// A line of a batch failed, and the batch with it.
    #[error("line {line} ({text}): {source}")]
    Batch {
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
        /// What failed.
        source: Box<OpError>,
    },
    /// A past state of the store, or an audit entry, was refused.
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// A past state of the store that cannot be named, or an audit entry refused.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// A revision git cannot resolve to a commit.
    #[error(
        "unknown revision {0:?} (name a revision of refs/beads/main, a date or an RFC 3339 time)"
    )]
    UnknownRevision(String),
    /// A commit that is not one of a beads store's.
    #[error(
        "{0:?} is not a commit of the beads store (name a revision of refs/beads/main, a date or an RFC 3339 time)"
    )]
    NotAStoreCommit(String),
    /// An audit entry without a kind.
    #[error("--kind is required")]
    NoKind,
    /// A label entry without a label.
    #[error("--label is required")]
    NoLabel,
    /// An audit entry id that cannot name a document.
    #[error("bad audit entry id {0:?}: 1 to 100 letters, digits, '_', '-' or '.'")]
    BadAuditId(String),
    /// An audit entry id already recorded.
    #[error("audit entry {0} is already recorded (entries are never replaced)")]
    AuditTaken(String),
    /// A label on an entry that is not recorded.
    #[error("no audit entry {0:?}")]
    NoAuditEntry(String),
    /// The system gave no randomness for a new id.
    #[error("no randomness for a new audit id: {0}")]
    Random(String),
}

impl HistoryError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            HistoryError::NoAuditEntry(_) => ErrorKind::NotFound,
            HistoryError::Random(_) => ErrorKind::Store,
            _ => ErrorKind::Invalid,
        }
    }
}

/// A `sql` query that cannot be run: it does not parse, names what is not there, or
/// would write.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// SQLite refused or failed it.
    #[error("query error: {0}")]
    Query(String),
    /// It would change something.
    #[error("sql is read-only here: {0}")]
    Write(String),
}

impl OpError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            OpError::Store(_) => ErrorKind::Store,
            OpError::Id(_)
            | OpError::Word(_)
            | OpError::Text(_)
            | OpError::SettingsKey(_)
            | OpError::Vocabulary(_)
            | OpError::Sql(_) => ErrorKind::Invalid,
            OpError::History(e) => e.kind(),
            OpError::Bead(e) => e.kind(),
            OpError::Agent(e) => e.kind(),
            OpError::Session(e) => e.kind(),
            OpError::Mail(e) => e.kind(),
            OpError::Formula(e) => e.kind(),
            OpError::Molecule(e) => e.kind(),
            OpError::Sync(e) => e.kind(),
            OpError::Doctor(e) => e.kind(),
            OpError::Worktree(e) => e.kind(),
            OpError::Import(e) => e.kind(),
            OpError::Provenance(e) => e.kind(),
            OpError::Batch { source, .. } => source.kind(),
        }
    }
}

/// The items, each shown, separated by `sep`.
fn joined<T: std::fmt::Display>(items: &[T], sep: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// The dependency that closes the cycle `path`: its first two beads.
fn first_edge(path: &[BeadId]) -> String {
    joined(&path[..path.len().min(2)], " → ")
}

/// The capabilities listed, or `nothing`.
fn capabilities(caps: &[Capability]) -> String {
    if caps.is_empty() {
        return "nothing".into();
    }
    joined(caps, ", ")
}

/// The files that do not parse, after a failed formula lookup.
fn unreadable_files(files: &[model::Problem]) -> String {
    if files.is_empty() {
        return String::new();
    }
    format!("; these files do not parse:\n  {}", joined(files, "\n  "))
}

/// ` or role` for an address that names a role.
fn or_role(address: &str) -> &'static str {
    if address.starts_with('@') {
        " or role"
    } else {
        ""
    }
}

/// How many more bad lines follow the first.
fn more_bad_lines(more: usize) -> String {
    if more == 0 {
        return String::new();
    }
    let follow = if more == 1 { "follows" } else { "follow" };
    let lines = crate::model::plural(more as u64, "line");
    format!(" ({more} more bad {lines} {follow})")
}

/// What went wrong with a bead.
#[derive(Debug, thiserror::Error)]
pub enum BeadError {
    /// No bead has this id.
    #[error("no bead {0}")]
    NotFound(BeadId),
    /// No bead has an id whose part after the prefix is this.
    #[error("no bead {0}")]
    UnknownId(String),
    /// Several beads have an id whose part after the prefix is this.
    #[error("{given} is ambiguous: {}", joined(.matches, ", "))]
    AmbiguousId {
        /// What was given.
        given: String,
        /// The beads it could mean.
        matches: Vec<BeadId>,
    },
    /// A bead with this id exists already.
    #[error("{0} exists already")]
    Taken(BeadId),
    /// The bead is deleted (a tombstone), so it cannot change.
    #[error("{0} is deleted")]
    Deleted(BeadId),
    /// Someone else holds the bead.
    #[error("{id} is already claimed by {holder}")]
    ClaimedBy {
        /// The bead.
        id: BeadId,
        /// Who holds it.
        holder: String,
    },
    /// The remote kept holding a claim of the bead that nobody holds, after it was
    /// deleted several times.
    #[error("{remote} keeps holding a claim of {id} that nobody holds")]
    ClaimRefStuck {
        /// The bead.
        id: BeadId,
        /// The remote.
        remote: String,
    },
    /// Nobody holds the bead, so there is nothing to release.
    #[error("{id} is {status} and held by nobody; there is nothing to release")]
    NotHeld {
        /// The bead.
        id: BeadId,
        /// Its status.
        status: Status,
    },
    /// The bead is finished, so it cannot be claimed.
    #[error("{id} is {status}, it cannot be claimed")]
    Unclaimable {
        /// The bead.
        id: BeadId,
        /// Its status.
        status: Status,
    },
    /// The bead is finished, so it cannot go on a hook.
    #[error("{id} is {status}, it cannot be handed to {agent}")]
    Unhookable {
        /// The bead.
        id: BeadId,
        /// Its status.
        status: Status,
        /// The agent it was to go to.
        agent: AgentName,
    },
    /// The bead is on another agent's hook.
    #[error("{id} is already on the hook of {holder}")]
    HookedBy {
        /// The bead.
        id: BeadId,
        /// The agent whose hook holds it.
        holder: String,
    },
    /// A status change to `deleted`: deleting is a command of its own.
    #[error("a bead's status cannot be set to deleted")]
    DeleteByStatus,
    /// The store holds beads of another prefix.
    #[error("the store already uses prefix {:?}, not {:?}", .stored.as_str(), .asked.as_str())]
    PrefixMismatch {
        /// The store's prefix.
        stored: Prefix,
        /// The prefix asked for.
        asked: Prefix,
    },
    /// Every id tried was taken.
    #[error("could not find a free id")]
    NoFreeId,
    /// A bead's metadata is not a JSON object, so no key of it can be set.
    #[error("the metadata of {0} is not a JSON object")]
    MetadataNotObject(BeadId),
    /// An id asked for has neither the store's prefix nor an allowed one.
    #[error("{id} does not have the store's prefix {:?} (nor one of allowed_prefixes)", .prefix.as_str())]
    ForeignPrefix {
        /// The id asked for.
        id: BeadId,
        /// The store's prefix.
        prefix: Prefix,
    },
    /// A bead would depend on itself.
    #[error("{0} cannot depend on itself")]
    SelfDependency(BeadId),
    /// A bead would depend on its own parent (or an ancestor): it waits for it by the
    /// hierarchy already, and the parent waits for its children (bd refuses it too).
    #[error(
        "cannot add dependency: {id} is already a child of {ancestor} (children wait for \
         their parent already; the dependency would deadlock)"
    )]
    DependsOnAncestor {
        /// The child.
        id: BeadId,
        /// Its parent or ancestor.
        ancestor: BeadId,
    },
    /// A blocking dependency would close a cycle; the path runs from the bead back to itself.
    #[error("{} would close a cycle: {}", first_edge(.0), joined(.0, " → "))]
    Cycle(Vec<BeadId>),
    /// The dependency to remove is not there.
    #[error("{id} does not depend on {on}")]
    NoSuchDependency {
        /// The bead.
        id: BeadId,
        /// What it was said to depend on.
        on: DepTarget,
    },
    /// A comment with no text.
    #[error("the comment is empty")]
    EmptyComment,
    /// The comment was not added (the bead did not take it).
    #[error("no comment was added")]
    NoComment,
    /// A priority outside 0 … 4.
    #[error("priority {0} is out of range (0 = critical … 4 = backlog)")]
    Priority(u8),
    /// The field an editor was opened on changed in the store before it was saved.
    #[error("the {field} of {id} changed while it was being edited")]
    ChangedWhileEdited {
        /// The bead.
        id: BeadId,
        /// The field.
        field: &'static str,
    },
    /// A document of the store does not parse.
    #[error("{path} does not parse: {error}")]
    Broken {
        /// The document's path in the store.
        path: String,
        /// What the parser said.
        error: String,
    },
}

impl From<crate::model::Invalid> for OpError {
    fn from(e: crate::model::Invalid) -> Self {
        match e {
            crate::model::Invalid::Text(t) => OpError::Text(t),
            crate::model::Invalid::Priority(p) => BeadError::Priority(p).into(),
        }
    }
}

impl BeadError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BeadError::NotFound(_) | BeadError::UnknownId(_) => ErrorKind::NotFound,
            BeadError::Deleted(_)
            | BeadError::Taken(_)
            | BeadError::ClaimedBy { .. }
            | BeadError::ClaimRefStuck { .. }
            | BeadError::NotHeld { .. }
            | BeadError::Unclaimable { .. }
            | BeadError::Unhookable { .. }
            | BeadError::HookedBy { .. }
            | BeadError::PrefixMismatch { .. }
            | BeadError::ChangedWhileEdited { .. }
            | BeadError::NoFreeId => ErrorKind::Conflict,
            BeadError::DeleteByStatus
            | BeadError::AmbiguousId { .. }
            | BeadError::SelfDependency(_)
            | BeadError::DependsOnAncestor { .. }
            | BeadError::Cycle(_)
            | BeadError::NoSuchDependency { .. }
            | BeadError::ForeignPrefix { .. }
            | BeadError::MetadataNotObject(_)
            | BeadError::EmptyComment
            | BeadError::NoComment
            | BeadError::Priority(_)
            | BeadError::Broken { .. } => ErrorKind::Invalid,
        }
    }
}

/// The agents below which an agent may act, for [`AgentError::NotBelow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentChange {
    /// Creating an agent.
    Create,
    /// Changing an agent.
    Update,
    /// Retiring an agent.
    Retire,
}

impl AgentChange {
    fn verb(self) -> &'static str {
        match self {
            AgentChange::Create => "create",
            AgentChange::Update => "change",
            AgentChange::Retire => "retire",
        }
    }
}

/// What went wrong with an agent.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// No agent has this name.
    #[error("no agent {0}")]
    NotFound(AgentName),
    /// The agent to act as does not exist.
    #[error("no agent {0} (acting as it was asked for)")]
    UnknownActor(AgentName),
    /// No active agent has this name (there is none, or it is retired).
    #[error("no active agent {0}")]
    NotActive(AgentName),
    /// The agent is retired.
    #[error("agent {0} is retired")]
    Retired(AgentName),
    /// The agent this worktree is bound to is retired, so nobody acts here until the
    /// binding changes.
    #[error("this worktree is bound to agent {0}, which is retired")]
    BoundRetired(AgentName),
    /// An agent of this name exists already.
    #[error("agent {0} already exists")]
    Exists(AgentName),
    /// A new agent without a name.
    #[error("an agent needs a name")]
    NoName,
    /// A name, capability or budget did not parse.
    #[error(transparent)]
    Input(#[from] model::AgentError),
    /// The actor lacks a capability.
    #[error("agent {actor} may not {capability} (it may: {})", capabilities(.has))]
    NotPermitted {
        /// The acting agent.
        actor: String,
        /// What it may not do.
        capability: Capability,
        /// What it may do.
        has: Vec<Capability>,
    },
    /// A child would get capabilities its parent lacks.
    #[error("a child of {parent} cannot have capabilities its parent lacks: {}", joined(.extra, ", "))]
    WiderCapabilities {
        /// The parent.
        parent: String,
        /// The capabilities the parent lacks.
        extra: Vec<Capability>,
    },
    /// A child would get a larger budget than its parent.
    #[error("a child of {parent} cannot have a larger budget than its parent: {}", .wider.join("; "))]
    LargerBudget {
        /// The parent.
        parent: String,
        /// Each ceiling that would widen, in words.
        wider: Vec<String>,
    },
    /// An agent may only create, change or retire agents below itself.
    #[error("agent {actor} can only {} agents below itself{}", .change.verb(),
        .target.as_ref().map(|t| format!(", not below {t}")).unwrap_or_default())]
    NotBelow {
        /// The acting agent.
        actor: AgentName,
        /// What it tried.
        change: AgentChange,
        /// The parent it named for a new agent.
        target: Option<AgentName>,
    },
    /// The bead to take off a hook is not on it.
    #[error("{id} is not on the hook of {agent}")]
    NotOnHook {
        /// The agent.
        agent: AgentName,
        /// The bead.
        id: BeadId,
    },
    /// The hook is empty.
    #[error("the hook of {0} is empty")]
    EmptyHook(AgentName),
}

impl AgentError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            AgentError::NotFound(_) | AgentError::UnknownActor(_) | AgentError::NotActive(_) => {
                ErrorKind::NotFound
            }
            AgentError::Retired(_) | AgentError::BoundRetired(_) | AgentError::Exists(_) => {
                ErrorKind::Conflict
            }
            AgentError::NoName
            | AgentError::Input(_)
            | AgentError::NotOnHook { .. }
            | AgentError::EmptyHook(_) => ErrorKind::Invalid,
            AgentError::NotPermitted { .. }
            | AgentError::WiderCapabilities { .. }
            | AgentError::LargerBudget { .. }
            | AgentError::NotBelow { .. } => ErrorKind::Denied,
        }
    }
}

/// What went wrong with a session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No session has this id.
    #[error("no session {0}")]
    NotFound(BeadId),
    /// The acting agent runs no session in this worktree.
    #[error("{0} has no running session in this worktree")]
    NoneRunning(String),
    /// The agent has a session alive elsewhere.
    #[error(
        "agent {agent} has a live session {id} in {worktree} on {host} (last heartbeat {silent_secs}s ago)"
    )]
    Live {
        /// The agent.
        agent: AgentName,
        /// Its live session.
        id: BeadId,
        /// The worktree the session runs in.
        worktree: String,
        /// The host it runs on.
        host: String,
        /// Seconds since its last heartbeat.
        silent_secs: u64,
    },
    /// The session has ended.
    #[error("session {0} has already ended")]
    Ended(BeadId),
    /// A spend that is not an amount.
    #[error("spend {0} is not an amount of dollars (0 to {max})", max = crate::model::MAX_SPEND_USD)]
    Spend(f64),
    /// The session crossed a budget ceiling (the usage is recorded all the same).
    #[error("session {id} of {agent} is over budget ({}): stop now, or start a fresh session", .over.join(", "))]
    OverBudget {
        /// The session.
        id: BeadId,
        /// Its agent.
        agent: AgentName,
        /// Each ceiling crossed, in words.
        over: Vec<String>,
    },
    /// A write by an agent whose session is over budget: until the budget is raised it
    /// may only report usage, hand off or end the session.
    #[error(
        "session {id} of {agent} is over budget ({}); until its budget is raised it may only report usage, hand off or end",
        .over.join(", ")
    )]
    BudgetSpent {
        /// The session.
        id: BeadId,
        /// Its agent.
        agent: AgentName,
        /// Each ceiling crossed, in words.
        over: Vec<String>,
    },
    /// A handoff note with no text.
    #[error("the handoff note is empty")]
    EmptyHandoff,
    /// The harness' transcript could not be read.
    #[error("could not read the transcript {}: {error}", .path.display())]
    Transcript {
        /// The transcript file.
        path: std::path::PathBuf,
        /// What went wrong.
        error: String,
    },
    /// The repository is bare.
    #[error("this repository has no worktree")]
    NoWorktree,
    /// The repository has no commit to create a worktree at.
    #[error("this repository has no commit to put a worktree on")]
    NoCommit,
    /// The worktree to restore a snapshot into has changes of its own.
    #[error("{} has uncommitted changes", .0.display())]
    Dirty(PathBuf),
    /// A snapshot's tree id does not parse.
    #[error("snapshot {n} of {id} names a bad tree: {error}")]
    BadSnapshot {
        /// The session.
        id: BeadId,
        /// The snapshot's number.
        n: u32,
        /// What is wrong with the id.
        error: String,
    },
}

impl SessionError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SessionError::NotFound(_) => ErrorKind::NotFound,
            SessionError::Live { .. } | SessionError::Ended(_) | SessionError::Dirty(_) => {
                ErrorKind::Conflict
            }
            SessionError::OverBudget { .. } | SessionError::BudgetSpent { .. } => ErrorKind::Denied,
            SessionError::NoneRunning(_)
            | SessionError::Spend(_)
            | SessionError::EmptyHandoff
            | SessionError::NoWorktree
            | SessionError::NoCommit
            | SessionError::BadSnapshot { .. } => ErrorKind::Invalid,
            SessionError::Transcript { .. } => ErrorKind::Store,
        }
    }
}

/// What went wrong with mail.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// No message has this id.
    #[error("no message {0}")]
    NotFound(BeadId),
    /// No agent (or role, for `@role`) answers to the address.
    #[error("unknown recipient {:?}: no such agent{}", .0, or_role(.0))]
    UnknownRecipient(String),
    /// A message to nobody.
    #[error("a message needs at least one recipient")]
    NoRecipient,
    /// The actor is a person: mail belongs to agents.
    #[error("mail belongs to agents: act as one to read it")]
    NoMailbox,
    /// The message was not sent to the actor.
    #[error("{id} was not sent to {agent}")]
    NotSentTo {
        /// The message.
        id: BeadId,
        /// The agent.
        agent: AgentName,
    },
}

impl MailError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MailError::NotFound(_) | MailError::UnknownRecipient(_) => ErrorKind::NotFound,
            MailError::NoRecipient | MailError::NoMailbox | MailError::NotSentTo { .. } => {
                ErrorKind::Invalid
            }
        }
    }
}

/// What went wrong with a formula.
#[derive(Debug, thiserror::Error)]
pub enum FormulaError {
    /// No formula has this name.
    #[error("no formula {name:?} (searched {}){}", .searched.join(" and "), unreadable_files(.unreadable))]
    NotFound {
        /// The name asked for.
        name: String,
        /// Where formulas were looked for.
        searched: Vec<String>,
        /// The files that could not be read, each with its problem.
        unreadable: Vec<model::Problem>,
    },
    /// The formula file named could not be read.
    #[error("formula file {0}")]
    File(model::Problem),
    /// A formula overlay could not be read.
    #[error("formula overlay {0}")]
    Overlay(model::Problem),
    /// The formula has problems.
    #[error("formula {name} is not valid:\n  {}", joined(.problems, "\n  "))]
    NotValid {
        /// The formula's name.
        name: String,
        /// Each problem, located.
        problems: Vec<model::Problem>,
    },
    /// The formula cannot be rendered with the variables given.
    #[error(transparent)]
    Render(#[from] model::FormulaError),
    /// The formula cannot be cooked (bd's language) with the variables given.
    #[error(transparent)]
    Cook(#[from] model::CookError),
    /// The formula cannot be written in the syntax asked for.
    #[error("formula {name} cannot be converted: {message}")]
    Convert {
        /// The formula.
        name: String,
        /// What the writer said.
        message: String,
    },
}

impl FormulaError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            FormulaError::NotFound { .. } => ErrorKind::NotFound,
            FormulaError::File(_)
            | FormulaError::Overlay(_)
            | FormulaError::NotValid { .. }
            | FormulaError::Render(_)
            | FormulaError::Cook(_)
            | FormulaError::Convert { .. } => ErrorKind::Invalid,
        }
    }
}

/// What went wrong with a molecule or a wisp.
#[derive(Debug, thiserror::Error)]
pub enum MoleculeError {
    /// The bead is not a molecule.
    #[error("{id} is a {kind}, not a molecule{}", .step_of.as_ref().map(|m| format!(" (it is a step of molecule {m})")).unwrap_or_default())]
    NotAMolecule {
        /// The bead.
        id: BeadId,
        /// Its type.
        kind: model::BeadType,
        /// The molecule it is a step of, if any.
        step_of: Option<BeadId>,
    },
    /// The bead has no steps to make progress on.
    #[error("{0} is not a molecule")]
    NoProgress(BeadId),
    /// A person has no hook to take the molecule from.
    #[error("{0} is not an agent, so there is no hook to take the molecule from: name it")]
    NoHook(String),
    /// No molecule is on the agent's hook.
    #[error("no molecule is on the hook of {0}: name one")]
    NothingHooked(AgentName),
    /// A step of the formula was refused while pouring.
    #[error("pouring {formula}: {what}: {error}")]
    Refused {
        /// The formula.
        formula: String,
        /// What was refused.
        what: String,
        /// Why.
        error: TextError,
    },
    /// Every wisp id tried was taken.
    #[error("could not find a free wisp id")]
    NoFreeWispId,
    /// One close would change wisps and stored beads, which live in two refs.
    #[error(
        "{wisp} is a wisp (kept on this machine only) and {stored} is not: close them with two commands"
    )]
    MixedRefs {
        /// A wisp step.
        wisp: BeadId,
        /// A stored bead.
        stored: BeadId,
    },
    /// The molecule was squashed already.
    #[error("{0} is squashed already")]
    Squashed(BeadId),
    /// The molecule has unfinished steps.
    #[error("{id} is not finished: {done} of {} done{}; close the remaining steps first",
        crate::model::count(*.total, "step"),
        .next.as_ref().map(|(s, t)| format!(" (next: {s}: {t})")).unwrap_or_default())]
    Unfinished {
        /// The molecule.
        id: BeadId,
        /// Steps done.
        done: usize,
        /// Steps in all.
        total: usize,
        /// The first unfinished step and its title.
        next: Option<(BeadId, String)>,
        /// Whether it is a wisp (which can be burned instead).
        wisp: bool,
    },
    /// The bead is not a gate.
    #[error("{id} is a {kind}, not a gate")]
    NotAGate {
        /// The bead.
        id: BeadId,
        /// What it is.
        kind: model::BeadType,
    },
    /// A step that bonds a formula for each item of its output was closed without one.
    #[error(
        "{step} bonds formula {formula} for each of its {path} when it closes: close it with an output that has that list"
    )]
    NoOutput {
        /// The step.
        step: BeadId,
        /// The path in its output (`output.workers`).
        path: String,
        /// The formula it bonds.
        formula: String,
    },
    /// Two formulas cannot be bonded into a molecule.
    #[error(
        "{0} and {1} are both formulas: bond a formula to a molecule or a step (pour one of them first)"
    )]
    TwoFormulas(String, String),
    /// Two beads of different refs cannot be bonded.
    #[error("{a} and {b} are not both wisps or both stored: a bond cannot link the two refs")]
    BondAcrossRefs {
        /// The bead bonded onto.
        a: BeadId,
        /// The other.
        b: BeadId,
    },
    /// The bond would make a cycle of dependencies.
    #[error("bonding {b} to {a} would make a cycle: {a} already waits on {b}")]
    BondCycle {
        /// The bead bonded onto.
        a: BeadId,
        /// The bead bonded.
        b: BeadId,
    },
    /// A molecule bonded under a ref would not have a valid id.
    #[error("child ref {given:?} cannot name a molecule under {parent}: {problem}")]
    BadRef {
        /// The ref as given.
        given: String,
        /// The bead it was bonded to.
        parent: BeadId,
        /// What is wrong.
        problem: RefProblem,
    },
    /// Burn only discards wisps.
    #[error("{id} is stored in {stored_in}, not a wisp: burn discards wisps only")]
    NotAWisp {
        /// The bead.
        id: BeadId,
        /// The ref that holds it.
        stored_in: RefName,
    },
    /// Promote makes wisps permanent; this bead is in the store already.
    #[error("{0} is not a wisp (already persistent)")]
    AlreadyPersistent(BeadId),
}

/// Why a child ref cannot name a bonded molecule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefProblem {
    /// A `{{name}}` in it has no value.
    #[error("{{{{{0}}}}} has no value")]
    Unset(String),
    /// A part of it is a number, as the store numbers a molecule's steps.
    #[error("{0:?} has a number for a part, and numbers name steps")]
    Number(String),
    /// It makes no bead id.
    #[error(
        "{0:?} makes no bead id: a ref is lowercase letters, digits, '-' and '_', parts between dots, the whole id at most 128 characters"
    )]
    NotAnId(String),
    /// The bond pours nothing that it could name.
    #[error("both are beads, and a ref names a molecule poured by the bond")]
    NothingPoured,
}

impl MoleculeError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MoleculeError::NoFreeWispId
            | MoleculeError::Squashed(_)
            | MoleculeError::Unfinished { .. } => ErrorKind::Conflict,
            MoleculeError::NotAMolecule { .. }
            | MoleculeError::NoProgress(_)
            | MoleculeError::NoHook(_)
            | MoleculeError::NothingHooked(_)
            | MoleculeError::Refused { .. }
            | MoleculeError::MixedRefs { .. }
            | MoleculeError::NotAWisp { .. }
            | MoleculeError::AlreadyPersistent(_)
            | MoleculeError::NoOutput { .. }
            | MoleculeError::TwoFormulas(..)
            | MoleculeError::BondAcrossRefs { .. }
            | MoleculeError::BadRef { .. }
            | MoleculeError::NotAGate { .. } => ErrorKind::Invalid,
            MoleculeError::BondCycle { .. } => ErrorKind::Conflict,
        }
    }
}

/// What went wrong bringing a document back from `lost+found/`.
#[derive(Debug, thiserror::Error)]
pub enum DoctorError {
    /// The path is not one of a document kept under `lost+found/<path>/<blob>`.
    #[error("{0:?} is not a document kept under lost+found/ (lost+found/<path>/<blob>)")]
    NotLost(String),
    /// Nothing is kept at that path.
    #[error("nothing is kept at {0}")]
    NoSuchLost(String),
    /// A document is at the place it would go back to.
    #[error("{0} holds a document again; the one in lost+found/ stays there")]
    Occupied(String),
}

impl DoctorError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            DoctorError::NotLost(_) => ErrorKind::Invalid,
            DoctorError::NoSuchLost(_) => ErrorKind::NotFound,
            DoctorError::Occupied(_) => ErrorKind::Conflict,
        }
    }
}

/// What went wrong syncing with a remote.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The remote's store uses another prefix.
    #[error("the store on {remote} uses prefix {:?}, not {:?}", .theirs.as_str(), .ours.as_str())]
    PrefixMismatch {
        /// The remote.
        remote: String,
        /// Its prefix.
        theirs: Prefix,
        /// The prefix asked for.
        ours: Prefix,
    },
    /// A push only: the remote has beads this repository has not merged.
    #[error("{0} has beads this repository does not have yet")]
    Behind(String),
    /// A push only: the remote moved between fetch and push.
    #[error("{remote} moved while pushing ({reason})")]
    Moved {
        /// The remote.
        remote: String,
        /// What the push said.
        reason: String,
    },
    /// The remote refused the push for good (a hook that declined it, a protected
    /// ref, a full disk): trying again will not help until the remote changes.
    #[error("{remote} refused the push of the beads ({reason}){}", said_by(.said))]
    Refused {
        /// The remote.
        remote: String,
        /// The reason git reported (`pre-receive hook declined`).
        reason: String,
        /// What the remote said, line by line, without git's `remote: ` prefix.
        said: Vec<String>,
        /// Whether this sync merged the remote's beads into the local store first
        /// (that merge stays, waiting to be pushed).
        merged: bool,
    },
    /// The sync's time budget (`beads.syncTimeout`) ran out during one of its steps:
    /// the git process of that step was stopped, and the sync went no further.
    #[error(
        "sync with {remote} ran out of its {budget}s budget while {step} (round {rounds}); the local store keeps every merge made so far and nothing is lost: sync again to send it"
    )]
    OutOfTime {
        /// The remote.
        remote: String,
        /// The step it ran out in: fetching, or pushing (for a sync out of time
        /// after its fetch, the push of its own head).
        step: &'static str,
        /// The round it ran out in.
        rounds: usize,
        /// The budget, in whole seconds.
        budget: u64,
    },
    /// `beads.requireSigned`: the remote brought commits that do not verify; nothing
    /// was merged.
    #[error(
        "{remote} brought {} that do not verify ({}); nothing was merged",
        count_commits(.commits.len()),
        .commits.iter().map(|(c, v)| format!("{} {}", c.to_hex_with_len(12), v.as_str())).collect::<Vec<_>>().join(", ")
    )]
    Unverified {
        /// The remote.
        remote: String,
        /// The commits that do not verify, and why.
        commits: Vec<(gix::ObjectId, crate::model::Trust)>,
    },
}

/// `N commit(s)`.
fn count_commits(n: usize) -> String {
    if n == 1 {
        "1 commit".into()
    } else {
        format!("{n} commits")
    }
}

/// What a remote said, after a colon, its lines joined by ` / `.
fn said_by(said: &[String]) -> String {
    match said.is_empty() {
        true => String::new(),
        false => format!(": {}", said.join(" / ")),
    }
}

impl SyncError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SyncError::Refused { .. } => ErrorKind::Refused,
            _ => ErrorKind::Conflict,
        }
    }
}

/// What went wrong making a worktree for an agent.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// The current directory could not be read.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    /// `git worktree add` failed.
    #[error("git worktree add failed ({0}); nothing was recorded")]
    AddFailed(ExitStatus),
    /// The worktree was created, but no hook bound it.
    #[error(
        "the worktree at {path} was created, but it is not bound to {agent} (its post-checkout hook dropped the plan)"
    )]
    NotBound {
        /// The worktree.
        path: String,
        /// The agent it is for.
        agent: AgentName,
    },
}

impl WorktreeError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::Invalid
    }
}

/// What went wrong importing or exporting.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The input could not be read.
    #[error("cannot read {source_name}: {error}")]
    Read {
        /// The input's name.
        source_name: String,
        /// Why.
        error: std::io::Error,
    },
    /// Lines of the input are bad, so nothing was imported.
    #[error("{source_name}:{line}: {error}{}; nothing was imported", more_bad_lines(*.more))]
    BadLines {
        /// The input's name.
        source_name: String,
        /// The first bad line's number.
        line: usize,
        /// What is wrong with it.
        error: String,
        /// How many more bad lines follow.
        more: usize,
    },
    /// A bead could not be written as JSON.
    #[error("could not write {id} as JSON: {error}")]
    Json {
        /// The bead.
        id: BeadId,
        /// Why.
        error: serde_json::Error,
    },
}

impl ImportError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ImportError::Read { .. } | ImportError::BadLines { .. } | ImportError::Json { .. } => {
                ErrorKind::Invalid
            }
        }
    }
}

/// What went wrong reading provenance.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    /// A commit spec names no commit.
    #[error("{spec:?} names no commit here ({error})")]
    NoCommit {
        /// The spec.
        spec: String,
        /// What git said.
        error: String,
    },
}

impl ProvenanceError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::NotFound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> BeadId {
        BeadId::parse(s).expect("a valid id")
    }

    fn agent(s: &str) -> AgentName {
        AgentName::parse(s).expect("a valid agent name")
    }

    #[test]
    fn a_claim_held_elsewhere_and_a_deletion_differ_by_type_not_text() {
        let claimed = OpError::from(BeadError::ClaimedBy {
            id: id("bd-a1"),
            holder: "bob".into(),
        });
        let deleted = OpError::from(BeadError::Deleted(id("bd-a1")));
        assert!(matches!(
            claimed,
            OpError::Bead(BeadError::ClaimedBy { ref holder, .. }) if holder == "bob"
        ));
        assert!(matches!(deleted, OpError::Bead(BeadError::Deleted(_))));
        assert_eq!(claimed.kind(), ErrorKind::Conflict);
        assert_eq!(deleted.kind(), ErrorKind::Conflict);
        assert_eq!(claimed.to_string(), "bd-a1 is already claimed by bob");
        assert_eq!(deleted.to_string(), "bd-a1 is deleted");
    }

    #[test]
    fn messages_name_what_failed() {
        let cycle = BeadError::Cycle(vec![id("bd-a"), id("bd-b"), id("bd-c"), id("bd-a")]);
        assert_eq!(
            cycle.to_string(),
            "bd-a → bd-b would close a cycle: bd-a → bd-b → bd-c → bd-a"
        );
        let create = AgentError::NotBelow {
            actor: agent("rig/nux"),
            change: AgentChange::Create,
            target: Some(agent("hq")),
        };
        assert_eq!(
            create.to_string(),
            "agent rig/nux can only create agents below itself, not below hq"
        );
        let retire = AgentError::NotBelow {
            actor: agent("rig/nux"),
            change: AgentChange::Retire,
            target: None,
        };
        assert_eq!(
            retire.to_string(),
            "agent rig/nux can only retire agents below itself"
        );
        let lacking = AgentError::NotPermitted {
            actor: "rig/nux".into(),
            capability: Capability::Close,
            has: Vec::new(),
        };
        assert_eq!(
            lacking.to_string(),
            "agent rig/nux may not close (it may: nothing)"
        );
        assert_eq!(
            MailError::UnknownRecipient("@ghosts".into()).to_string(),
            "unknown recipient \"@ghosts\": no such agent or role"
        );
        let bad = ImportError::BadLines {
            source_name: "bad.jsonl".into(),
            line: 3,
            error: "no id".into(),
            more: 2,
        };
        assert_eq!(
            bad.to_string(),
            "bad.jsonl:3: no id (2 more bad lines follow); nothing was imported"
        );
    }
}
