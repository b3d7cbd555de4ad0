//! The documents of bd's git-flavoured commands: `history` (a bead's states), `diff`
//! (what changed between two states of the store), `orphans` (open beads that code
//! commits name) and `audit` (entries recorded). bd writes the first two from Go
//! structs without JSON tags, so their fields are Go's names (`CommitHash`,
//! `IssueID`); the others have bd's snake-case tags.

use serde::Serialize;

use super::{Bead, Doc, Documented, Field, Shape, rfc3339};
use crate::model::Status;
use crate::ops::{BeadVersion, Orphan, StoreDiff};

/// One state of a bead, as bd's `history --json` writes a `HistoryEntry`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct HistoryEntry<'a> {
    commit_hash: &'a str,
    committer: &'a str,
    commit_date: String,
    issue: Option<Bead<'a>>,
}

/// A bead's history, newest first: a bare array of [`HistoryEntry`].
#[derive(Serialize)]
#[serde(transparent)]
pub struct History<'a>(Vec<HistoryEntry<'a>>);

impl<'a> History<'a> {
    /// The document of `versions`.
    pub fn new(versions: &'a [BeadVersion]) -> Self {
        History(
            versions
                .iter()
                .map(|v| HistoryEntry {
                    commit_hash: &v.commit,
                    committer: &v.author,
                    commit_date: rfc3339(v.time),
                    issue: v.bead.as_ref().map(Bead::plain),
                })
                .collect(),
        )
    }
}

impl Documented for History<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "history",
        fields: &[
            Field::new("CommitHash"),
            Field::noted("Committer", ": the commit's author"),
            Field::new("CommitDate"),
            Field::noted(
                "Issue",
                ": the bead as the commit left it, as `show` writes one",
            ),
        ],
    };
}

/// One bead that differs between two states of the store, as bd's `diff --json`
/// writes a `DiffEntry`, with git-beads' `Changes` beside bd's fields.
#[derive(Serialize)]
pub struct DiffEntry<'a> {
    #[serde(rename = "IssueID")]
    issue_id: &'a str,
    #[serde(rename = "DiffType")]
    diff_type: &'static str,
    #[serde(rename = "OldValue")]
    old_value: Option<Bead<'a>>,
    #[serde(rename = "NewValue")]
    new_value: Option<Bead<'a>>,
    /// The fields of a modified bead that differ, in [`FIELD_ORDER`] and then by name.
    #[serde(rename = "Changes", skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<FieldChange>,
}

/// One field of a bead that differs between two states: its JSON values before and
/// after (`null` where it was left out).
#[derive(Serialize)]
pub struct FieldChange {
    /// The field, as `show --json` names it.
    #[serde(rename = "Field")]
    pub field: String,
    /// Before.
    #[serde(rename = "Old")]
    pub old: serde_json::Value,
    /// After.
    #[serde(rename = "New")]
    pub new: serde_json::Value,
}

/// The fields bd's `diff` names first, in its order; the others follow by name.
pub const FIELD_ORDER: &[&str] = &["title", "status", "priority", "description"];

/// The beads that differ between two states of the store, by id: a bare array of
/// [`DiffEntry`].
#[derive(Serialize)]
#[serde(transparent)]
pub struct Diff<'a>(pub Vec<DiffEntry<'a>>);

impl<'a> Diff<'a> {
    /// The document of `diff`.
    pub fn new(diff: &'a StoreDiff) -> serde_json::Result<Self> {
        let entries = diff.beads.iter().map(|d| {
            let (old, new) = (
                d.old.as_ref().map(Bead::plain),
                d.new.as_ref().map(Bead::plain),
            );
            let changes = match (&old, &new) {
                (Some(o), Some(n)) => field_changes(o, n)?,
                _ => Vec::new(),
            };
            Ok(DiffEntry {
                issue_id: d.id.as_str(),
                diff_type: d.kind.as_str(),
                old_value: old,
                new_value: new,
                changes,
            })
        });
        entries.collect::<serde_json::Result<_>>().map(Diff)
    }
}

/// The fields whose JSON differs between `old` and `new`.
fn field_changes(old: &Bead, new: &Bead) -> serde_json::Result<Vec<FieldChange>> {
    let as_map = |b: &Bead| -> serde_json::Result<serde_json::Map<String, serde_json::Value>> {
        match serde_json::to_value(b)? {
            serde_json::Value::Object(m) => Ok(m),
            _ => Ok(Default::default()),
        }
    };
    let (old, new) = (as_map(old)?, as_map(new)?);
    let mut fields: Vec<&String> = old.keys().chain(new.keys()).collect();
    let rank = |f: &str| {
        FIELD_ORDER
            .iter()
            .position(|o| *o == f)
            .unwrap_or(FIELD_ORDER.len())
    };
    fields.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    fields.dedup();
    let null = serde_json::Value::Null;
    Ok(fields
        .into_iter()
        .filter_map(|f| {
            let (o, n) = (old.get(f).unwrap_or(&null), new.get(f).unwrap_or(&null));
            (o != n).then(|| FieldChange {
                field: f.clone(),
                old: o.clone(),
                new: n.clone(),
            })
        })
        .collect())
}

impl Documented for Diff<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "diff",
        fields: &[
            Field::new("IssueID"),
            Field::noted("DiffType", ": added, modified or removed"),
            Field::noted(
                "OldValue",
                ": the bead before, as `show` writes one (null if added)",
            ),
            Field::noted("NewValue", ": the bead after (null if removed)"),
            Field::optional_noted(
                "Changes",
                ": [{Field, Old, New}], the fields of a modified bead that differ",
            ),
        ],
    };
}

/// A bead still open that a commit of the code names, as bd's `orphans --json`
/// writes one.
#[derive(Serialize)]
pub struct OrphanLine<'a> {
    issue_id: &'a str,
    title: &'a str,
    status: Status,
    latest_commit: &'a str,
    latest_commit_message: &'a str,
}

/// The orphans, by id: a bare array of [`OrphanLine`].
#[derive(Serialize)]
#[serde(transparent)]
pub struct Orphans<'a>(Vec<OrphanLine<'a>>);

impl<'a> Orphans<'a> {
    /// The document of `orphans`.
    pub fn new(orphans: &'a [Orphan]) -> Self {
        Orphans(
            orphans
                .iter()
                .map(|o| OrphanLine {
                    issue_id: &o.id,
                    title: &o.title,
                    status: o.status,
                    latest_commit: &o.commit,
                    latest_commit_message: &o.subject,
                })
                .collect(),
        )
    }
}

impl Documented for Orphans<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "orphans",
        fields: &[
            Field::new("issue_id"),
            Field::new("title"),
            Field::noted("status", ": open or in_progress"),
            Field::noted(
                "latest_commit",
                ": the newest commit naming it, abbreviated",
            ),
            Field::noted("latest_commit_message", ": that commit's subject"),
        ],
    };
}

/// What `audit record` prints with `--json`: bd's fields.
#[derive(Serialize)]
pub struct AuditRecorded<'a> {
    /// The entry's id.
    pub id: &'a str,
    /// Its kind.
    pub kind: &'a str,
}

impl Documented for AuditRecorded<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "audit record",
        fields: &[Field::new("id"), Field::new("kind")],
    };
}

/// What `audit label` prints with `--json`: bd's fields.
#[derive(Serialize)]
pub struct AuditLabelled<'a> {
    /// The label entry's id.
    pub id: &'a str,
    /// The entry it judges.
    pub parent_id: &'a str,
    /// The label.
    pub label: &'a str,
}

impl Documented for AuditLabelled<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "audit label",
        fields: &[
            Field::new("id"),
            Field::new("parent_id"),
            Field::new("label"),
        ],
    };
}
