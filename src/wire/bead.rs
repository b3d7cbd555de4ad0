//! The JSON form of a bead: today the fields of its document, in the document's order,
//! but a type of its own, so that a document field can change without changing what
//! scripts read (and the other way round).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Serialize, Serializer};

use crate::model::{self, BeadId, BeadType, Comment, Conflict, Dependency, Status, Timestamp};

/// A bead in full, as `show`, `create` and the other commands that print one write it.
#[derive(Serialize)]
pub struct Bead<'a> {
    id: &'a BeadId,
    title: &'a str,
    status: Status,
    priority: u8,
    #[serde(rename = "type")]
    kind: BeadType,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    labels: &'a BTreeSet<String>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    dependencies: &'a [Dependency],
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    notes: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    comments: &'a [Comment],
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

impl<'a> From<&'a model::Bead> for Bead<'a> {
    fn from(b: &'a model::Bead) -> Self {
        Bead {
            id: &b.id,
            title: &b.title,
            status: b.status,
            priority: b.priority,
            kind: b.kind,
            assignee: b.assignee.as_deref(),
            labels: &b.labels,
            dependencies: &b.dependencies,
            description: &b.description,
            notes: &b.notes,
            comments: &b.comments,
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
    Bead::from(*b).serialize(s)
}

/// Writes a bead or `null` as the wire type.
pub(super) fn maybe_bead<S: Serializer>(b: &Option<&model::Bead>, s: S) -> Result<S::Ok, S::Error> {
    b.map(Bead::from).serialize(s)
}

/// Writes beads as the wire type.
pub(super) fn beads<S: Serializer>(b: &&[model::Bead], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(b.iter().map(Bead::from))
}

#[cfg(test)]
mod tests {
    use super::super::written_as_document;
    use super::*;

    /// Today the wire form is the document's: byte for byte, for a bead with every
    /// field set and one with none of the optional ones.
    #[test]
    fn a_bead_is_written_as_its_document() {
        let full = serde_json::json!({
            "id": "bd-a1", "title": "T", "status": "closed", "priority": 1, "type": "bug",
            "assignee": "ann", "labels": ["a", "b"],
            "dependencies": [{"id": "bd-b2", "type": "blocks"}],
            "description": "D", "notes": "N",
            "comments": [{"id": "c1", "author": "bob", "created_at": "2026-01-01T00:00:00Z", "text": "hi"}],
            "created_at": "2026-01-01T00:00:00Z", "created_by": "ann",
            "updated_at": "2026-01-02T00:00:00.5Z", "updated_by": "bob",
            "closed_at": "2026-01-02T00:00:00Z", "close_reason": "done",
            "deleted_at": "2026-01-03T00:00:00Z", "deleted_by": "cy", "delete_reason": "dup",
            "extra": {"owner": "x", "n": 3},
            "conflicts": [{"field": "title", "value": "U", "actor": "cy", "at": "2026-01-02T00:00:00Z"}],
        });
        let bare = serde_json::json!({
            "id": "bd-c3", "title": "T", "status": "open", "priority": 2, "type": "task",
            "created_at": "2026-01-01T00:00:00Z", "created_by": "ann",
            "updated_at": "2026-01-01T00:00:00Z", "updated_by": "ann",
        });
        written_as_document(&[full, bare], |b: &model::Bead| {
            serde_json::to_string(&Bead::from(b)).expect("wire")
        });
    }
}
