//! Plain data types: what a bead, an id and a name are. No I/O happens here.

mod actor;
mod agent;
mod audit;
pub mod bd;
mod bd_formula;
mod bead;
mod condition;
pub mod config;
mod cook;
mod cycles;
pub mod doc;
mod formula;
pub mod graph;
mod id;
mod mail;
mod overlay;
mod provenance;
pub mod query;
mod session;
mod template;
mod text;
mod trailers;
mod trust;
mod valid;

pub use actor::Actor;
pub use agent::{
    Agent, AgentError, AgentKey, AgentName, AgentStatus, Authority, Budget, Capability, Decision,
    ENDORSE_NAMESPACE, GIT_HOOK_NAMES, MAX_SPEND_USD, endorsement_payload, parse_duration,
};
pub use audit::{AUDIT_ID_PREFIX, AuditEntry, audit_fanout, audit_id_ok};
pub(crate) use bd_formula::scalar_text;
pub use bd_formula::{
    Advice, AdviceStep, Around, BdFormula, BdStep, BdVar, Branch, Compose, ExpandRule, Gate,
    GateRule, Leg, Loop, MapRule, OnComplete, Pointcut, Synthesis,
};
pub use bead::{
    Bead, BeadType, Comment, Conflict, CustomWord, DepKind, Dependency, ExternalDependency,
    ParseEnumError, Status, Timestamp, is_failure_close, parse_dep, parse_type,
};
pub(crate) use bead::{TimeText, WordVisitor, word_enum};
pub use condition::{Condition, Facts, StepFacts};
pub use cook::{
    CookError, Cooked, CookedStep, Lookup, condition_holds, cook, fill_known, glob_match,
    trial_cook,
};
pub use cycles::cycles;
pub use formula::{
    FORMULA_EXAMPLE, FORMULA_FORMAT, Formula, FormulaError, Place, Problem, Rendered, RenderedStep,
    Step, Variable, fill, is_formula_name, step_line, template_variables,
};
pub use id::{
    BeadId, DepTarget, EXTERNAL_SCHEME, ExternalRef, IdError, Prefix, WISP_MARK, id_length_for,
    is_device_name, retarget_text,
};
pub use mail::{Delivery, Message};
pub use overlay::{Overlay, OverrideMode, StepOverride};
pub use provenance::{
    NOTE_DOCUMENT_START, Provenance, join_note_documents, note_documents, union_note_documents,
};
pub use session::{
    BudgetLeft, CrashNote, EndReason, LedgerEntry, ModelSwap, Session, SkippedFile, Snapshot,
    TokenKinds, TranscriptCursor, Usage, UsageLine,
};
pub use template::{Section, missing_sections, template};
pub use text::{
    Layout, TextError, check_label, check_line, check_name, check_text, check_title, count,
    escape_controls, plural, push_escaped,
};
pub use trailers::{session_trailers, with_trailers};
pub use trust::Trust;
pub use valid::{Invalid, agent_problems, bead_problems, message_problems, stored_bead_problems};
