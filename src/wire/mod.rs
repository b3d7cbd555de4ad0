//! The JSON a command prints with `--json`: one wire type per document, apart from
//! the storage documents (`model`) and the results of the use cases (`ops`), so that
//! either can change without changing what scripts read, and a change of the shapes
//! is a change here. The CLI builds them today; an MCP server and a web board would
//! use the same types.
//!
//! Each type describes its top-level fields ([`Documented`]); the manual's JSON
//! section is generated from [`DOCUMENTS`], and `tests/wire.rs` checks that the
//! commands print what is described.

mod agent;
mod bd_rest;
mod bead;
mod beads;
mod cooked;
mod graph;
mod history;
mod prime;
mod repo;
mod rows;
mod session;
mod tail;
mod verify;
mod work;

pub use agent::{Agent, Message};
pub use bd_rest::{Context, LinkAdded, Ping, Promoted};
pub use bead::{BD_FIELDS, Bead, Comment, DepRecord, Linked, linked};
pub use beads::*;
pub use cooked::{CookedFormula, CookedStepLine, GateLine, Gates};
pub use graph::{DuplicatePairs, GraphCheck, GraphOf, Graphs};
pub use history::*;
pub use prime::{
    Handoff, HookEntry, InboxLine, MailLine, MailMarks, Previous, PrimeReport, ResumedSession,
    Unreadable, hook_entries, unreadable,
};
pub use repo::*;
pub use rows::{string as json_string, string_body as json_string_body, write_blocked};
pub use session::Session;
pub use tail::*;
pub use verify::{CommitVerified, Verified};
pub use work::*;

/// The version of every `--json` document, carried as its `schema_version` field.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// An object with `schema_version` beside its fields, as `--json` prints one.
#[derive(serde::Serialize)]
pub struct Versioned<'a, T: serde::Serialize> {
    /// [`JSON_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The object's own fields.
    #[serde(flatten)]
    pub body: &'a T,
}

/// An object document as `--json` prints it (without bd's envelope), as JSON text:
/// `body`'s fields with `schema_version` beside them.
pub fn versioned<T: serde::Serialize>(
    body: &T,
) -> serde_json::Result<Box<serde_json::value::RawValue>> {
    serde_json::value::to_raw_value(&Versioned {
        schema_version: JSON_SCHEMA_VERSION,
        body,
    })
}

/// One top-level field of a document, as the manual describes it.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its name in the JSON.
    pub name: &'static str,
    /// What the manual says after the name (its shape, when it is not a plain value).
    pub note: &'static str,
    /// Whether it may be left out.
    pub optional: bool,
}

impl Field {
    /// A field that is always there.
    pub const fn new(name: &'static str) -> Field {
        Field {
            name,
            note: "",
            optional: false,
        }
    }

    /// A field that is always there, with a note on its shape.
    pub const fn noted(name: &'static str, note: &'static str) -> Field {
        Field {
            name,
            note,
            optional: false,
        }
    }

    /// A field that is left out when it has no value, with a note on its shape.
    pub const fn optional_noted(name: &'static str, note: &'static str) -> Field {
        Field {
            name,
            note,
            optional: true,
        }
    }

    /// A field that is left out when it has no value.
    pub const fn optional(name: &'static str) -> Field {
        Field {
            name,
            note: "",
            optional: true,
        }
    }
}

/// Whether a document is one object or a list, as bd prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One object, its `schema_version` beside its fields.
    Object,
    /// A bare array of objects (no `schema_version`); the fields are each item's.
    List,
    /// A bare array of things another document describes (what each item is).
    ListOf(&'static str),
}

/// The shape of one kind of document: the commands that print it and its fields.
#[derive(Clone, Copy, Debug)]
pub struct Doc {
    /// One object or a bare array.
    pub shape: Shape,
    /// The commands, as the manual lists them (`create, update`).
    pub commands: &'static str,
    /// The top-level fields besides `schema_version` (of each item, for a list).
    pub fields: &'static [Field],
}

/// A wire type that describes its top-level fields.
pub trait Documented {
    /// The description.
    const DOC: Doc;
}

/// Every document a command prints, in the order the manual lists them.
pub const DOCUMENTS: &[Doc] = &[
    Initialized::DOC,
    KvPair::DOC,
    KvCleared::DOC,
    KvPairs::DOC,
    Migrated::DOC,
    WispList::DOC,
    WispsCleaned::DOC,
    Purged::DOC,
    Shorthand::DOC,
    Todos::DOC,
    TodosDone::DOC,
    MemoryStored::DOC,
    MemoryFound::DOC,
    MemoryForgotten::DOC,
    Memories::DOC,
    StateValue::DOC,
    StateList::DOC,
    StateSet::DOC,
    BeadsPruned::DOC,
    Batched::DOC,
    OneBead::DOC,
    GraphCreated::DOC,
    Beads::DOC,
    Listing::DOC,
    BlockedReport::DOC,
    Stale::DOC,
    Count::DOC,
    CountGroups::DOC,
    Stats::DOC,
    EpicStatuses::DOC,
    ClosedEpics::DOC,
    DepList::DOC,
    DepRecords::DOC,
    DepCycles::DOC,
    GraphOf::DOC,
    Graphs::DOC,
    GraphCheck::DOC,
    DuplicatePairs::DOC,
    Comments::DOC,
    CommentAdded::DOC,
    DepTree::DOC,
    Labels::DOC,
    LabelCounts::DOC,
    Setting::DOC,
    Settings::DOC,
    Log::DOC,
    History::DOC,
    Diff::DOC,
    Orphans::DOC,
    AuditRecorded::DOC,
    AuditLabelled::DOC,
    Imported::DOC,
    Exported::DOC,
    ManInstalled::DOC,
    OneAgent::DOC,
    Agents::DOC,
    Slung::DOC,
    Unslung::DOC,
    Hook::DOC,
    OneSession::DOC,
    Sessions::DOC,
    Snapped::DOC,
    Resumed::DOC,
    Primed::DOC,
    OneMessage::DOC,
    Inbox::DOC,
    Messages::DOC,
    Pruned::DOC,
    SqlRows::DOC,
    Doctor::DOC,
    Setup::DOC,
    SetupStatus::DOC,
    Formulas::DOC,
    FormulaSeeded::DOC,
    FormulaShown::DOC,
    FormulaChecked::DOC,
    CookedFormula::DOC,
    Gates::DOC,
    MoleculeProgress::DOC,
    MolCurrents::DOC,
    Molecules::DOC,
    Poured::DOC,
    Bonded::DOC,
    Squashed::DOC,
    Burned::DOC,
    Synced::DOC,
    Resolved::DOC,
    RemoteSetup::DOC,
    RemotePruned::DOC,
    Provenance::DOC,
    Hooks::<()>::DOC,
    WorktreeAdded::DOC,
    Version::DOC,
    Guide::DOC,
    Renamed::DOC,
    PrefixRenamed::DOC,
    Lint::DOC,
    Info::DOC,
    Whoami::DOC,
    Types::DOC,
    Statuses::DOC,
    Verified::DOC,
    LinkAdded::DOC,
    Promoted::DOC,
    Ping::DOC,
    Context::DOC,
];

/// A failure under `--json`, as bd writes one on stderr: `error` and `code`, with
/// git-beads' causes and hints beside them.
#[derive(serde::Serialize)]
pub struct Failure<'a> {
    /// The one-line message.
    pub error: &'a str,
    /// What kind of failure: `not_found` (bd's code), `user`, `usage`, `conflict`,
    /// `store` or `denied` (the exit code says the same, `not_found` and `user` both
    /// 1).
    pub code: &'a str,
    /// The chain of causes, outermost first.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub causes: &'a [String],
    /// What the user can do about it, as one line (bd's `hint`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// An RFC 3339 time in UTC as every document writes it (`2026-01-01T00:00:00Z`).
fn rfc3339(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Checks that the wire form of each document (`wire` writes it) is the document,
/// byte for byte: what the wire types promise until the shapes change on purpose.
#[cfg(test)]
fn written_as_document<T>(docs: &[serde_json::Value], wire: impl Fn(&T) -> String)
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    for doc in docs {
        let value: T = serde_json::from_value(doc.clone()).expect("a document");
        assert_eq!(
            wire(&value),
            serde_json::to_string(&value).expect("document")
        );
    }
}
