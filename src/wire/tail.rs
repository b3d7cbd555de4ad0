//! The documents of bd's long tail of small commands: the shorthands (`assign`,
//! `tag`, `priority`), `todo`, the memories, the state dimensions, `prune` and
//! `batch`, each in bd's field names and JSON types.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{BEAD_FIELDS, Beads, Doc, Documented, Field, OneBead, Shape, SweptCounts};

/// A bead as bd's shorthands and `todo add` print it: one object.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Shorthand<'a>(pub OneBead<'a>);

impl Documented for Shorthand<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "assign, tag, priority, todo add",
        fields: BEAD_FIELDS,
    };
}

/// The tasks `todo` lists, in full: a bare array, as bd prints them.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Todos<'a>(pub Beads<'a>);

impl Documented for Todos<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "todo, todo list",
        fields: BEAD_FIELDS,
    };
}

/// What `todo done` closed, and why.
#[derive(Serialize)]
pub struct TodosDone<'a> {
    /// The ids closed.
    pub closed: Vec<&'a str>,
    /// The close reason ("Completed" unless given).
    pub reason: &'a str,
}

impl Documented for TodosDone<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "todo done",
        fields: &[Field::new("closed"), Field::new("reason")],
    };
}

/// What `remember` kept.
#[derive(Serialize)]
pub struct MemoryStored<'a> {
    /// The memory's key.
    pub key: &'a str,
    /// Its text.
    pub value: &'a str,
    /// "remembered", or "updated" when it replaced a memory of that key.
    pub action: &'a str,
}

impl Documented for MemoryStored<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "remember",
        fields: &[Field::new("key"), Field::new("value"), Field::new("action")],
    };
}

/// What `recall` found.
#[derive(Serialize)]
pub struct MemoryFound<'a> {
    /// The key asked for.
    pub key: &'a str,
    /// The memory's text ("" when there is none).
    pub value: &'a str,
    /// Whether there is one.
    pub found: bool,
}

impl Documented for MemoryFound<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "recall",
        fields: &[Field::new("key"), Field::new("value"), Field::new("found")],
    };
}

/// What `forget` did: bd's strings, `deleted` "true", or `found` "false" when there
/// was no such memory.
#[derive(Serialize)]
pub struct MemoryForgotten<'a> {
    /// The key asked for.
    pub key: &'a str,
    /// "true" when it was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<&'a str>,
    /// "false" when there was none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<&'a str>,
}

impl Documented for MemoryForgotten<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "forget",
        fields: &[
            Field::new("key"),
            Field::optional("deleted"),
            Field::optional("found"),
        ],
    };
}

/// What `memories` lists: one bare object of keys and texts, as bd prints it.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Memories<'a>(pub &'a BTreeMap<String, String>);

impl Documented for Memories<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "memories",
        fields: &[],
    };
}

/// The value of one state dimension of a bead: `state`.
#[derive(Serialize)]
pub struct StateValue<'a> {
    /// The bead.
    pub issue_id: &'a str,
    /// The dimension asked for.
    pub dimension: &'a str,
    /// Its value (null when the bead has none).
    pub value: Option<&'a str>,
}

impl Documented for StateValue<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "state",
        fields: &[
            Field::new("issue_id"),
            Field::new("dimension"),
            Field::new("value"),
        ],
    };
}

/// Every state dimension of a bead: `state list`.
#[derive(Serialize)]
pub struct StateList<'a> {
    /// The bead.
    pub issue_id: &'a str,
    /// Each dimension and its value.
    pub states: BTreeMap<&'a str, &'a str>,
}

impl Documented for StateList<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "state list",
        fields: &[
            Field::new("issue_id"),
            Field::noted("states", ": {DIMENSION: VALUE}"),
        ],
    };
}

/// What `set-state` did: `changed` false with the `value` it has already, or the
/// `old_value` (null when it had none), the `new_value` and the event bead made.
#[derive(Serialize)]
pub struct StateSet<'a> {
    /// The bead.
    pub issue_id: &'a str,
    /// The dimension.
    pub dimension: &'a str,
    /// The value it has already (nothing changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<&'a str>,
    /// The value it had (null when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_value: Option<Option<&'a str>>,
    /// The value it has now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<&'a str>,
    /// The event bead that records the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<&'a str>,
    /// Whether anything changed.
    pub changed: bool,
}

impl Documented for StateSet<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "set-state",
        fields: &[
            Field::new("issue_id"),
            Field::new("dimension"),
            Field::optional("value"),
            Field::optional("old_value"),
            Field::optional("new_value"),
            Field::optional("event_id"),
            Field::new("changed"),
        ],
    };
}

/// What `prune` prints (see [`SweptCounts`]).
#[derive(Serialize)]
#[serde(transparent)]
pub struct BeadsPruned(pub SweptCounts);

impl BeadsPruned {
    /// bd's sentence when nothing is to be pruned.
    pub const NOTHING: &'static str = "No closed beads to prune";

    /// The answer for `swept`, done or (`dry_run`) previewed.
    pub fn new(swept: &crate::ops::Swept, dry_run: bool) -> BeadsPruned {
        let words = ("pruned_count", "prune_count", Self::NOTHING);
        BeadsPruned(SweptCounts::new(swept, dry_run, words))
    }
}

impl Documented for BeadsPruned {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "prune",
        fields: &[
            Field::optional("dry_run"),
            Field::optional("pruned_count"),
            Field::optional("prune_count"),
            Field::optional("dependencies"),
            Field::optional("labels"),
            Field::optional("events"),
            Field::optional("pinned_skipped"),
            Field::optional("message"),
        ],
    };
}

/// What `batch` did: how many operations, and what each acted on; in a dry run,
/// only how many it read.
#[derive(Serialize)]
pub struct Batched<'a> {
    /// A dry run.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// How many operations.
    pub operations: usize,
    /// "ok" (not in a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'a str>,
    /// What each line did (when there was a line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<BatchResult<'a>>>,
}

/// What one line of a batch did.
#[derive(Serialize)]
pub struct BatchResult<'a> {
    /// The line's number.
    pub line: usize,
    /// bd's name of the operation (`close`, `update`, `create`, `dep.add`,
    /// `dep.remove`).
    pub op: &'a str,
    /// The bead it acted on (`FROM->TO` for a dependency).
    pub target: &'a str,
}

impl Documented for Batched<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "batch",
        fields: &[
            Field::optional("dry_run"),
            Field::new("operations"),
            Field::optional("status"),
            Field::optional_noted("results", ": [{line, op, target}]"),
        ],
    };
}
