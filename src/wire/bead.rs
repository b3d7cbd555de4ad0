//! The JSON form of a bead, as bd 1.x writes an issue: bd's field names (`issue_type`,
//! `close_reason`, dependencies as bd's records, `dependency_count` …), with
//! git-beads' own fields (`extra`, `conflicts`, the actors) riding along. A type of
//! its own, so that a document field can change without changing what scripts read
//! (and the other way round).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Serialize, Serializer};

use super::rfc3339;
use crate::model::{self, BeadId, BeadType, Conflict, DepKind, Status, Timestamp};
use crate::ops::{Detailed, Summary};

/// The fields bd writes at the top of an issue that git-beads keeps in a bead's
/// `extra` (as an import from bd found them, or as `create --design` put them): they
/// are written at the top too, where bd's tools look for them.
pub const BD_FIELDS: &[&str] = &[
    "design",
    "acceptance_criteria",
    "external_ref",
    "owner",
    "estimated_minutes",
    "due_at",
    "defer_until",
    "started_at",
    "spec_id",
    "metadata",
    "ephemeral",
    "wisp_type",
    "pinned",
    "is_template",
    "sender",
    "source_system",
    "closed_by_session",
    "event_kind",
    "actor",
    "target",
    "payload",
];

/// A bead in full, as `show`, `create` and the other commands that print one write it.
#[derive(Serialize)]
pub struct Bead<'a> {
    id: &'a BeadId,
    title: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    notes: &'a str,
    status: Status,
    priority: u8,
    issue_type: BeadType,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    #[serde(flatten)]
    lifted: Lifted<'a>,
    labels: &'a BTreeSet<String>,
    dependencies: Deps<'a>,
    dependency_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    dependent_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dependents: Option<Vec<Linked<'a>>>,
    comment_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    comments: Vec<Comment<'a>>,
    created_at: &'a Timestamp,
    created_by: &'a str,
    updated_at: &'a Timestamp,
    updated_by: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    closed_at: Option<&'a Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    close_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted_at: Option<&'a Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delete_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    extra: &'a BTreeMap<String, serde_json::Value>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    conflicts: &'a [Conflict],
}

/// bd's fields kept in `extra`, written at the top level.
struct Lifted<'a>(&'a BTreeMap<String, serde_json::Value>);

impl Serialize for Lifted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            BD_FIELDS
                .iter()
                .filter_map(|k| self.0.get(*k).map(|v| (*k, v))),
        )
    }
}

/// A bead's dependencies: bd's records (`issue_id`, `depends_on_id`, `type`) where
/// only the bead is at hand, the beads depended on (with `dependency_type`) where the
/// store was read around it, as `bd show` writes them.
#[derive(Serialize)]
#[serde(untagged)]
enum Deps<'a> {
    Records(Vec<DepRecord<'a>>),
    Linked(Vec<Linked<'a>>),
}

/// A dependency as bd records it.
#[derive(Serialize)]
pub struct DepRecord<'a> {
    issue_id: &'a str,
    depends_on_id: &'a str,
    #[serde(rename = "type")]
    kind: DepKind,
}

impl<'a> DepRecord<'a> {
    /// `issue` depends on `on` by `kind`.
    pub fn new(issue: &'a str, on: &'a str, kind: DepKind) -> Self {
        DepRecord {
            issue_id: issue,
            depends_on_id: on,
            kind,
        }
    }
}

/// A bead depended on, as `bd show` lists it: its fields and how it is depended on.
#[derive(Serialize)]
pub struct Linked<'a> {
    id: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    bead: Option<Brief<'a>>,
    dependency_type: DepKind,
}

impl<'a> Linked<'a> {
    /// Bead `id` (its fields from `bead`, when the store has it), linked by `kind`.
    pub fn new(id: &'a str, bead: Option<&'a Summary>, kind: DepKind) -> Self {
        Linked {
            id,
            bead: bead.map(Brief::from),
            dependency_type: kind,
        }
    }

    /// How it is linked.
    pub fn kind(&self) -> DepKind {
        self.dependency_type
    }
}

/// The fields of a bead depended on.
#[derive(Serialize)]
pub(super) struct Brief<'a> {
    title: &'a str,
    status: Status,
    priority: u8,
    issue_type: BeadType,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    labels: &'a [String],
    created_at: String,
    updated_at: String,
}

impl<'a> From<&'a Summary> for Brief<'a> {
    fn from(s: &'a Summary) -> Self {
        Brief {
            title: &s.title,
            status: s.status,
            priority: s.priority,
            issue_type: s.kind,
            assignee: s.assignee.as_deref(),
            labels: &s.labels,
            created_at: rfc3339(s.created_at()),
            updated_at: rfc3339(s.updated_at()),
        }
    }
}

/// A comment as bd writes it: with the id of its bead.
#[derive(Serialize)]
pub struct Comment<'a> {
    id: &'a str,
    issue_id: &'a str,
    author: &'a str,
    text: &'a str,
    created_at: &'a Timestamp,
}

impl<'a> Comment<'a> {
    /// Comment `c` of bead `issue`.
    pub fn new(issue: &'a str, c: &'a model::Comment) -> Self {
        Comment {
            id: &c.id,
            issue_id: issue,
            author: &c.author,
            text: &c.text,
            created_at: &c.created_at,
        }
    }
}

/// What a bead depends on, with the beads depended on, as `bd show` lists them;
/// items of other projects last, with their id and kind only (nothing here can read
/// them).
pub fn linked(d: &Detailed) -> Vec<Linked<'_>> {
    let beads = d
        .bead
        .dependencies
        .iter()
        .zip(&d.targets)
        .map(|(dep, target)| Linked {
            id: dep.id.as_str(),
            bead: target.as_ref().map(Brief::from),
            dependency_type: dep.kind,
        });
    let external = d.bead.external.iter().map(|dep| Linked {
        id: dep.id.as_str(),
        bead: None,
        dependency_type: dep.kind,
    });
    beads.chain(external).collect()
}

/// The parent of a bead: the target of its `parent-child` dependency.
pub fn parent_of<'a>(deps: impl IntoIterator<Item = (DepKind, &'a str)>) -> Option<&'a str> {
    deps.into_iter()
        .find(|(k, _)| *k == DepKind::ParentChild)
        .map(|(_, id)| id)
}

impl<'a> Bead<'a> {
    /// A bead on its own: its dependencies as bd's records.
    pub fn plain(b: &'a model::Bead) -> Self {
        let records = b
            .all_dependencies()
            .map(|(kind, on)| DepRecord::new(b.id.as_str(), on, kind))
            .collect();
        Bead::with(b, Deps::Records(records), None)
    }

    /// A bead with the store read around it: the beads it depends on, how many
    /// depend on it.
    pub fn detailed(d: &'a Detailed) -> Self {
        let dependents = d.dependents.iter().map(|(s, kind)| Linked {
            id: s.id.as_str(),
            bead: Some(Brief::from(s)),
            dependency_type: *kind,
        });
        Bead {
            dependents: Some(dependents.collect()),
            ..Bead::with(&d.bead, Deps::Linked(linked(d)), Some(d.dependent_count))
        }
    }

    fn with(b: &'a model::Bead, dependencies: Deps<'a>, dependent_count: Option<usize>) -> Self {
        Bead {
            id: &b.id,
            title: &b.title,
            description: &b.description,
            notes: &b.notes,
            status: b.status,
            priority: b.priority,
            issue_type: b.kind,
            assignee: b.assignee.as_deref(),
            lifted: Lifted(&b.extra),
            labels: &b.labels,
            dependencies,
            dependency_count: b.dependencies.len() + b.external.len(),
            dependent_count,
            dependents: None,
            comment_count: b.comments.len(),
            parent: parent_of(b.dependencies.iter().map(|d| (d.kind, d.id.as_str()))),
            comments: b
                .comments
                .iter()
                .map(|c| Comment::new(b.id.as_str(), c))
                .collect(),
            created_at: &b.created_at,
            created_by: &b.created_by,
            updated_at: &b.updated_at,
            updated_by: &b.updated_by,
            closed_at: b.closed_at.as_ref(),
            close_reason: b.close_reason.as_deref(),
            deleted_at: b.deleted_at.as_ref(),
            deleted_by: b.deleted_by.as_deref(),
            delete_reason: b.delete_reason.as_deref(),
            extra: &b.extra,
            conflicts: &b.conflicts,
        }
    }
}

/// Writes a bead as its wire type (`#[serde(serialize_with = "bead")]`).
pub(super) fn bead<S: Serializer>(b: &&model::Bead, s: S) -> Result<S::Ok, S::Error> {
    Bead::plain(b).serialize(s)
}

/// Writes beads as the wire type.
pub(super) fn beads<S: Serializer>(b: &&[model::Bead], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(b.iter().map(Bead::plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bd's names and shapes: `issue_type`, dependency records, counts, comments with
    /// their bead's id, bd's fields from `extra` at the top, git-beads' own beside.
    #[test]
    fn a_bead_is_written_as_bd_writes_an_issue() {
        let doc = serde_json::json!({
            "id": "bd-a1", "title": "T", "status": "closed", "priority": 1, "type": "bug",
            "labels": ["a"],
            "dependencies": [{"id": "bd-b2", "type": "parent-child"}],
            "comments": [{"id": "c1", "author": "bob", "created_at": "2026-01-01T00:00:00Z", "text": "hi"}],
            "created_at": "2026-01-01T00:00:00Z", "created_by": "ann",
            "updated_at": "2026-01-02T00:00:00Z", "updated_by": "bob",
            "closed_at": "2026-01-02T00:00:00Z", "close_reason": "done",
            "extra": {"design": "D", "n": 3},
        });
        let bead: model::Bead = serde_json::from_value(doc).expect("a document");
        let v = serde_json::to_value(Bead::plain(&bead)).expect("wire");
        assert_eq!(v["issue_type"], "bug");
        assert_eq!(v.get("type"), None);
        assert_eq!(
            v["dependencies"],
            serde_json::json!([{"issue_id": "bd-a1", "depends_on_id": "bd-b2", "type": "parent-child"}])
        );
        assert_eq!(v["dependency_count"], 1);
        assert_eq!(v["comment_count"], 1);
        assert_eq!(v["parent"], "bd-b2");
        assert_eq!(v["comments"][0]["issue_id"], "bd-a1");
        assert_eq!(v["design"], "D");
        assert_eq!(v["extra"]["n"], 3);
        assert_eq!(v["close_reason"], "done");
    }
}
