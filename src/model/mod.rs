//! Plain data types: what a bead, an id and a name are. No I/O happens here.

mod actor;
mod agent;
mod bead;
mod id;
mod session;
mod text;

pub use actor::Actor;
pub use agent::{
    Agent, AgentError, AgentName, AgentStatus, Authority, Budget, Capability, Decision,
    GIT_HOOK_NAMES, parse_duration,
};
pub use bead::{
    Bead, BeadType, Comment, Conflict, DepKind, Dependency, ParseEnumError, Status, Timestamp,
};
pub use id::{BeadId, IdError, Prefix, id_length_for};
pub use session::{BudgetLeft, CrashNote, EndReason, ModelSwap, Session, Usage, UsageLine};
pub use text::{TextError, check_label, check_name, check_text, check_title};
