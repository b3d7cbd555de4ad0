//! The records of the beads `bd` tracker's JSONL export (`.beads/issues.jsonl`, one
//! JSON object per line) and how they map to beads and back. Pure data and pure
//! functions: reading the file and writing the store happen in `ops`.
//!
//! The mapping keeps everything:
//!
//! - Fields with a place of their own go there: title, description, notes, status,
//!   priority, type, assignee, labels, dependencies, comments, the timestamps and
//!   who made the bead, the close reason and the tombstone fields.
//! - Status `tombstone` becomes `deleted`, and the type comes from `original_type`
//!   (bd sets `issue_type` of many tombstones to `task`; when it differs from the type
//!   used, it is kept as [`EXTRA_ISSUE_TYPE`]).
//! - Dependency kinds map one to one, except `relates-to` → `related` and
//!   `blocked-by` → `blocks` in the same direction: in bd's data `A blocked-by B` means
//!   A waits on B (bd-fivze says "Blocked by: bd-find4" in its description), which is
//!   what `A blocks-dependency on B` means here. Every bd dependency is also kept as it
//!   was (kind word, `created_at`, `created_by`, `metadata`) in [`EXTRA_DEPENDENCIES`];
//!   one on another project's item (`external:gt-cm900:gt`) becomes an external
//!   dependency; one whose target is neither or whose kind has no equivalent lives
//!   only there, and export writes it back.
//! - Any other field (owner, ephemeral, external_ref, design, acceptance_criteria,
//!   agent_state, hook_bead, await_type, …) is kept under its own name in the bead's
//!   `extra` map, and export writes it back.
//! - Timestamps keep their instant (to the nanosecond) and are written back in UTC.
//!
//! Export writes git-beads' own fields that bd lacks (`updated_by` when it differs from
//! `created_by`, `conflicts`) under their own names, and reads them back, so that
//! export → import → export gives the same file.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::bead::{
    Bead, BeadType, Comment, Conflict, DepKind, Dependency, EXTRA_DEPENDENCIES, ExternalDependency,
    Status, Timestamp, format_time,
};
use super::id::{BeadId, DepTarget, ExternalRef, IdError};

/// Key in `extra` of bd's `issue_type` when it is not the type the bead got.
pub const EXTRA_ISSUE_TYPE: &str = "bd_issue_type";
/// Key in `extra` of comment fields that have no place in a comment, by comment id.
pub const EXTRA_COMMENT_FIELDS: &str = "bd_comment_fields";

/// The bd status word of a tombstone.
pub const TOMBSTONE: &str = "tombstone";

/// Why a record does not map to a bead.
#[derive(Debug, thiserror::Error)]
pub enum BdError {
    /// The line is not a JSON object of the expected shape.
    #[error("not a bd record: {0}")]
    Json(#[from] serde_json::Error),
    /// The id is not a valid bead id.
    #[error(transparent)]
    Id(#[from] IdError),
    /// The status is not one bd or git-beads knows.
    #[error("status {0:?} is not a bd status")]
    Status(String),
    /// The priority is out of range.
    #[error("priority {0} is out of range (0 = critical … 4 = backlog)")]
    Priority(i64),
    /// A timestamp does not parse.
    #[error("{field} {value:?} is not an RFC 3339 timestamp")]
    Time {
        /// Which field.
        field: &'static str,
        /// The text found.
        value: String,
    },
}

/// Treats `null` as the type's default, as bd writes `null` for some empty lists.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn default_dep_kind() -> String {
    DepKind::Blocks.as_str().to_owned()
}

/// One dependency of a bd record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BdDependency {
    /// The dependent record (always the record it is listed in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<String>,
    /// The record depended on.
    pub depends_on_id: String,
    /// bd's kind word.
    #[serde(rename = "type", default = "default_dep_kind")]
    pub kind: String,
    /// When the dependency was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Who added it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// Anything else (bd's `metadata`).
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

impl BdDependency {
    /// The dependency this maps to, if its target is a valid id and its kind has an
    /// equivalent.
    pub fn mapped(&self) -> Option<Dependency> {
        let id = BeadId::parse(&self.depends_on_id).ok()?;
        Some(Dependency {
            id,
            kind: self.mapped_kind()?,
        })
    }

    /// The external dependency this maps to, if its target is
    /// `external:<project>:<id>` and its kind has an equivalent.
    pub fn mapped_external(&self) -> Option<ExternalDependency> {
        let id = ExternalRef::parse(&self.depends_on_id).ok()?;
        Some(ExternalDependency {
            id,
            kind: self.mapped_kind()?,
        })
    }

    fn mapped_kind(&self) -> Option<DepKind> {
        match self.kind.as_str() {
            "relates-to" => Some(DepKind::Related),
            "blocked-by" => Some(DepKind::Blocks),
            word => word.parse().ok(),
        }
    }
}

/// One comment of a bd record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BdComment {
    /// bd's id, a number.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub id: Value,
    /// The record it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<String>,
    /// Who wrote it.
    #[serde(default, deserialize_with = "nullable")]
    pub author: String,
    /// What it says.
    #[serde(default, deserialize_with = "nullable")]
    pub text: String,
    /// When.
    pub created_at: String,
    /// Anything else.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// One line of a bd JSONL export. The field order is the key order export writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BdRecord {
    /// The id.
    pub id: String,
    /// The title.
    #[serde(default, deserialize_with = "nullable")]
    pub title: String,
    /// The description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Working notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The status word (`tombstone` for a deleted record).
    pub status: String,
    /// 0 … 4.
    pub priority: i64,
    /// The type word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_type: Option<String>,
    /// Who works on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// Labels.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub labels: Vec<String>,
    /// Dependencies.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub dependencies: Vec<BdDependency>,
    /// Comments.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub comments: Vec<BdComment>,
    /// When it was made.
    pub created_at: String,
    /// Who made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// When it last changed.
    pub updated_at: String,
    /// Who changed it last (git-beads' own field; bd has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<String>,
    /// When it was closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<String>,
    /// Why it was closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_reason: Option<String>,
    /// When it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<String>,
    /// Who deleted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_by: Option<String>,
    /// Why it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_reason: Option<String>,
    /// The type of a tombstone before it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_type: Option<String>,
    /// Values that lost a merge (git-beads' own field).
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conflicts: Vec<Conflict>,
    /// Every other field, kept as it is.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// The field names [`BdRecord`] gives a place of its own.
const KNOWN_FIELDS: &[&str] = &[
    "id",
    "title",
    "description",
    "notes",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "labels",
    "dependencies",
    "comments",
    "created_at",
    "created_by",
    "updated_at",
    "updated_by",
    "closed_at",
    "close_reason",
    "deleted_at",
    "deleted_by",
    "delete_reason",
    "original_type",
    "conflicts",
];

/// The `extra` keys that are the mapping's own bookkeeping, not bd fields.
const BOOKKEEPING: &[&str] = &[EXTRA_DEPENDENCIES, EXTRA_ISSUE_TYPE, EXTRA_COMMENT_FIELDS];

fn parse_time(field: &'static str, value: &str) -> Result<Timestamp, BdError> {
    chrono::DateTime::parse_from_rfc3339(value)
        .map(|t| t.to_utc())
        .map_err(|_| BdError::Time {
            field,
            value: value.to_owned(),
        })
}

fn parse_opt_time(
    field: &'static str,
    value: &Option<String>,
) -> Result<Option<Timestamp>, BdError> {
    value.as_deref().map(|v| parse_time(field, v)).transpose()
}

fn comment_id(id: &Value, position: usize) -> String {
    match id {
        Value::String(s) => s.clone(),
        Value::Null => (position + 1).to_string(),
        other => other.to_string(),
    }
}

impl BdRecord {
    /// Parses one line of a bd JSONL export.
    pub fn parse(line: &str) -> Result<BdRecord, BdError> {
        Ok(serde_json::from_str(line)?)
    }

    /// Whether this record is a tombstone (a deleted issue).
    pub fn is_tombstone(&self) -> bool {
        self.status == TOMBSTONE
    }

    /// The type word that decides what the record is: `original_type` for a tombstone
    /// that has one, else `issue_type` (`task` when missing).
    pub fn type_word(&self) -> &str {
        let original = self
            .original_type
            .as_deref()
            .filter(|_| self.is_tombstone());
        original
            .or(self.issue_type.as_deref())
            .unwrap_or(BeadType::Task.as_str())
    }

    /// How many of the record's dependencies have no equivalent here (kept only in
    /// [`EXTRA_DEPENDENCIES`]).
    pub fn unmapped_dependencies(&self) -> usize {
        self.dependencies
            .iter()
            .filter(|d| d.mapped_external().is_none())
            .filter(|d| d.mapped().is_none_or(|m| m.id.as_str() == self.id))
            .count()
    }

    /// The bead this record maps to (see the module docs for the rules).
    pub fn to_bead(&self) -> Result<Bead, BdError> {
        let id = BeadId::parse(&self.id)?;
        let status = match self.status.as_str() {
            TOMBSTONE => Status::Deleted,
            word => word
                .parse::<Status>()
                .map_err(|_| BdError::Status(word.to_owned()))?,
        };
        let priority = u8::try_from(self.priority)
            .ok()
            .filter(|p| *p <= 4)
            .ok_or(BdError::Priority(self.priority))?;
        let mut extra = self.other.clone();
        let candidates = if self.is_tombstone() {
            vec![self.original_type.as_deref(), self.issue_type.as_deref()]
        } else {
            vec![self.issue_type.as_deref()]
        };
        let kind = candidates
            .into_iter()
            .flatten()
            .find_map(|w| w.parse::<BeadType>().ok())
            .unwrap_or(BeadType::Task);
        if let Some(word) = self.issue_type.as_deref().filter(|w| *w != kind.as_str()) {
            extra.insert(EXTRA_ISSUE_TYPE.into(), Value::String(word.to_owned()));
        }
        if let Some(word) = self.original_type.as_deref()
            && (!self.is_tombstone() || word != kind.as_str())
        {
            extra.insert("original_type".into(), Value::String(word.to_owned()));
        }

        let created_at = parse_time("created_at", &self.created_at)?;
        let created_by = self.created_by.clone().unwrap_or_default();
        let mut bead = Bead::new(id, self.title.clone(), &created_by, created_at);
        bead.status = status;
        bead.priority = priority;
        bead.kind = kind;
        bead.assignee = self.assignee.clone().filter(|a| !a.is_empty());
        bead.labels = self.labels.iter().cloned().collect::<BTreeSet<_>>();
        bead.description = self.description.clone().unwrap_or_default();
        bead.notes = self.notes.clone().unwrap_or_default();
        bead.updated_at = parse_time("updated_at", &self.updated_at)?;
        bead.updated_by = self.updated_by.clone().unwrap_or(created_by);
        bead.closed_at = parse_opt_time("closed_at", &self.closed_at)?;
        bead.close_reason = self.close_reason.clone();
        bead.deleted_at = parse_opt_time("deleted_at", &self.deleted_at)?;
        bead.deleted_by = self.deleted_by.clone();
        bead.delete_reason = self.delete_reason.clone();
        bead.conflicts = self.conflicts.clone();

        if !self.dependencies.is_empty() {
            let mut kept = Vec::with_capacity(self.dependencies.len());
            for d in &self.dependencies {
                if let Some(dep) = d.mapped().filter(|m| m.id != bead.id) {
                    bead.add_dependency(dep);
                }
                if let Some(dep) = d.mapped_external() {
                    bead.add_target(&DepTarget::External(dep.id), dep.kind);
                }
                let mut d = d.clone();
                if d.issue_id.as_deref() == Some(self.id.as_str()) {
                    d.issue_id = None;
                }
                kept.push(serde_json::to_value(&d)?);
            }
            extra.insert(EXTRA_DEPENDENCIES.into(), Value::Array(kept));
        }

        let mut comment_fields = serde_json::Map::new();
        for (i, c) in self.comments.iter().enumerate() {
            let id = comment_id(&c.id, i);
            let mut rest = c.other.clone();
            if let Some(other) = c.issue_id.as_deref().filter(|o| *o != self.id) {
                rest.insert("issue_id".into(), Value::String(other.to_owned()));
            }
            if !rest.is_empty() {
                comment_fields.insert(id.clone(), Value::Object(rest.into_iter().collect()));
            }
            bead.comments.push(Comment {
                id,
                author: c.author.clone(),
                created_at: parse_time("comment created_at", &c.created_at)?,
                text: c.text.clone(),
            });
        }
        if !comment_fields.is_empty() {
            extra.insert(EXTRA_COMMENT_FIELDS.into(), Value::Object(comment_fields));
        }
        bead.extra = extra;
        Ok(bead)
    }

    /// The record a bead exports as: the inverse of [`BdRecord::to_bead`].
    pub fn from_bead(bead: &Bead) -> BdRecord {
        let id = bead.id.to_string();
        let tombstone = bead.status == Status::Deleted;
        let extra_str = |key: &str| {
            bead.extra
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        // bd's own type word is written back while it still describes the bead: on a
        // tombstone, or a word with no equivalent here (the bead became a task).
        let issue_type = match extra_str(EXTRA_ISSUE_TYPE) {
            Some(w)
                if tombstone || (bead.kind == BeadType::Task && w.parse::<BeadType>().is_err()) =>
            {
                w
            }
            _ => bead.kind.as_str().to_owned(),
        };
        let original_type = (tombstone && !bead.extra.contains_key("original_type"))
            .then(|| bead.kind.as_str().to_owned());
        let mut other: BTreeMap<String, Value> = bead
            .extra
            .iter()
            .filter(|(k, _)| !KNOWN_FIELDS.contains(&k.as_str()) || k.as_str() == "original_type")
            .filter(|(k, _)| !BOOKKEEPING.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // original_type kept in extra is a field of its own on the record.
        let original_type = original_type.or_else(|| {
            other
                .remove("original_type")
                .and_then(|v| v.as_str().map(str::to_owned))
        });

        let comment_fields = bead
            .extra
            .get(EXTRA_COMMENT_FIELDS)
            .and_then(Value::as_object);
        let comments = bead
            .comments
            .iter()
            .map(|c| {
                let mut rest: BTreeMap<String, Value> = comment_fields
                    .and_then(|m| m.get(&c.id))
                    .and_then(Value::as_object)
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default();
                let issue_id = rest
                    .remove("issue_id")
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| id.clone());
                let numeric = c.id.parse::<u64>().ok().filter(|n| n.to_string() == c.id);
                BdComment {
                    id: numeric.map_or_else(|| Value::String(c.id.clone()), Value::from),
                    issue_id: Some(issue_id),
                    author: c.author.clone(),
                    text: c.text.clone(),
                    created_at: format_time(&c.created_at),
                    other: rest,
                }
            })
            .collect();

        BdRecord {
            id: id.clone(),
            title: bead.title.clone(),
            description: Some(bead.description.clone()).filter(|d| !d.is_empty()),
            notes: Some(bead.notes.clone()).filter(|n| !n.is_empty()),
            status: if tombstone {
                TOMBSTONE.to_owned()
            } else {
                bead.status.as_str().to_owned()
            },
            priority: i64::from(bead.priority),
            issue_type: Some(issue_type),
            assignee: bead.assignee.clone(),
            labels: bead.labels.iter().cloned().collect(),
            dependencies: export_dependencies(bead),
            comments,
            created_at: format_time(&bead.created_at),
            created_by: Some(bead.created_by.clone()).filter(|c| !c.is_empty()),
            updated_at: format_time(&bead.updated_at),
            updated_by: Some(bead.updated_by.clone()).filter(|u| *u != bead.created_by),
            closed_at: bead.closed_at.as_ref().map(format_time),
            close_reason: bead.close_reason.clone(),
            deleted_at: bead.deleted_at.as_ref().map(format_time),
            deleted_by: bead.deleted_by.clone(),
            delete_reason: bead.delete_reason.clone(),
            original_type,
            conflicts: bead.conflicts.clone(),
            other,
        }
    }
}

/// The dependencies a bead exports: those kept from bd, as they were, as long as the
/// dependency they map to is still there (or they never mapped); then those added
/// since, with git-beads' kind word.
fn export_dependencies(bead: &Bead) -> Vec<BdDependency> {
    let kept: Vec<BdDependency> = bead
        .extra
        .get(EXTRA_DEPENDENCIES)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let mut covered = BTreeSet::new();
    let mut covered_external = BTreeSet::new();
    let mut out = Vec::new();
    for mut d in kept {
        match (d.mapped().filter(|m| m.id != bead.id), d.mapped_external()) {
            (Some(m), _) if bead.dependencies.contains(&m) => {
                covered.insert(m);
            }
            (_, Some(m)) if bead.external.contains(&m) => {
                covered_external.insert(m);
            }
            (Some(_), _) | (_, Some(_)) => continue,
            (None, None) => {}
        }
        d.issue_id = Some(d.issue_id.unwrap_or_else(|| bead.id.to_string()));
        out.push(d);
    }
    let fresh = (bead.dependencies.iter().filter(|d| !covered.contains(*d)))
        .map(|d| (d.kind, d.id.as_str()));
    let fresh_external = (bead
        .external
        .iter()
        .filter(|d| !covered_external.contains(*d)))
    .map(|d| (d.kind, d.id.as_str()));
    for (kind, target) in fresh.chain(fresh_external) {
        out.push(BdDependency {
            issue_id: Some(bead.id.to_string()),
            depends_on_id: target.to_owned(),
            kind: kind.as_str().to_owned(),
            created_at: None,
            created_by: None,
            other: BTreeMap::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOMB: &str = r#"{"id":"bd-06px","title":"gone","status":"tombstone","priority":1,"issue_type":"task","created_at":"2025-12-17T14:32:02.998106-08:00","updated_at":"2025-12-25T01:21:01.952723-08:00","deleted_at":"2025-12-25T01:21:01.952723-08:00","deleted_by":"batch delete","delete_reason":"batch delete","original_type":"message"}"#;

    const FULL: &str = r#"{"id":"bd-fivze","title":"Configure","description":"d","status":"closed","priority":2,"issue_type":"task","owner":"o@example.com","created_at":"2026-01-16T16:07:02.787877-08:00","created_by":"wolf","updated_at":"2026-01-16T16:08:33.876777-08:00","closed_at":"2026-01-16T16:08:33.876777-08:00","close_reason":"Moved","labels":["b","a"],"dependencies":[{"issue_id":"bd-fivze","depends_on_id":"bd-find4","type":"blocked-by","created_at":"2026-01-16T16:07:02.792016-08:00","created_by":"wolf","metadata":"{}"},{"issue_id":"bd-fivze","depends_on_id":"external:gt-cm900:gt","type":"tracks","created_at":"2026-01-16T16:07:02.792016-08:00","created_by":"wolf"},{"issue_id":"bd-fivze","depends_on_id":"bd-x1","type":"relates-to"}],"comments":[{"id":1,"issue_id":"bd-fivze","author":"giles","text":"hi","created_at":"2026-01-12T02:16:51Z"}],"ephemeral":true,"timeout":1800000000000}"#;

    #[test]
    fn tombstones_become_deleted_beads_of_their_original_type() {
        let r = BdRecord::parse(TOMB).expect("parses");
        let b = r.to_bead().expect("maps");
        assert_eq!(b.status, Status::Deleted);
        assert_eq!(b.kind, BeadType::Message);
        assert_eq!(b.deleted_by.as_deref(), Some("batch delete"));
        assert_eq!(b.extra[EXTRA_ISSUE_TYPE], "task");
        assert_eq!(
            b.deleted_at.map(|t| format_time(&t)).as_deref(),
            Some("2025-12-25T09:21:01.952723Z")
        );
        let back = BdRecord::from_bead(&b);
        assert_eq!(back.status, "tombstone");
        assert_eq!(back.issue_type.as_deref(), Some("task"));
        assert_eq!(back.original_type.as_deref(), Some("message"));
        assert!(back.other.is_empty(), "{:?}", back.other);
    }

    #[test]
    fn every_field_is_kept() {
        let r = BdRecord::parse(FULL).expect("parses");
        assert_eq!(r.unmapped_dependencies(), 0);
        let b = r.to_bead().expect("maps");
        let external: Vec<(&str, DepKind)> =
            b.external.iter().map(|d| (d.id.as_str(), d.kind)).collect();
        assert_eq!(external, [("external:gt-cm900:gt", DepKind::Tracks)]);
        assert_eq!(b.created_by, "wolf");
        assert_eq!(b.updated_by, "wolf");
        assert_eq!(b.close_reason.as_deref(), Some("Moved"));
        assert_eq!(b.labels.iter().collect::<Vec<_>>(), ["a", "b"]);
        let deps: Vec<(String, DepKind)> = b
            .dependencies
            .iter()
            .map(|d| (d.id.to_string(), d.kind))
            .collect();
        assert_eq!(
            deps,
            [
                ("bd-find4".to_owned(), DepKind::Blocks),
                ("bd-x1".to_owned(), DepKind::Related)
            ]
        );
        assert_eq!(b.extra["owner"], "o@example.com");
        assert_eq!(b.extra["ephemeral"], true);
        assert_eq!(b.extra["timeout"], 1_800_000_000_000_i64);
        assert_eq!(
            b.extra[EXTRA_DEPENDENCIES].as_array().map(Vec::len),
            Some(3)
        );
        assert_eq!(b.comments[0].id, "1");

        let back = BdRecord::from_bead(&b);
        assert_eq!(back.dependencies.len(), 3);
        assert_eq!(back.dependencies[0].kind, "blocked-by");
        assert_eq!(back.dependencies[0].other["metadata"], "{}");
        assert_eq!(back.dependencies[1].depends_on_id, "external:gt-cm900:gt");
        assert_eq!(back.comments[0].id, 1);
        assert_eq!(back.other["owner"], "o@example.com");
        // export → import → export is a fixed point
        let again = BdRecord::from_bead(&back.to_bead().expect("maps"));
        assert_eq!(again, back);
    }

    #[test]
    fn removed_dependencies_stay_removed_and_new_ones_export() {
        let mut b = BdRecord::parse(FULL)
            .expect("parses")
            .to_bead()
            .expect("maps");
        b.remove_dependency(&BeadId::parse("bd-find4").expect("id"), None);
        b.add_dependency(Dependency {
            id: BeadId::parse("bd-new1").expect("id"),
            kind: DepKind::ParentChild,
        });
        let out = BdRecord::from_bead(&b);
        let targets: Vec<&str> = out
            .dependencies
            .iter()
            .map(|d| d.depends_on_id.as_str())
            .collect();
        assert_eq!(targets, ["external:gt-cm900:gt", "bd-x1", "bd-new1"]);

        let gone = DepTarget::External(ExternalRef::parse("external:gt-cm900:gt").expect("ref"));
        assert_eq!(b.remove_target(&gone, None), 1);
        let blocker = DepTarget::External(ExternalRef::parse("external:up:cap").expect("ref"));
        assert!(b.add_target(&blocker, DepKind::Blocks));
        let out = BdRecord::from_bead(&b);
        let targets: Vec<(&str, &str)> = (out.dependencies.iter())
            .map(|d| (d.depends_on_id.as_str(), d.kind.as_str()))
            .collect();
        assert_eq!(
            targets,
            [
                ("bd-x1", "relates-to"),
                ("bd-new1", "parent-child"),
                ("external:up:cap", "blocks")
            ]
        );
    }

    #[test]
    fn bad_records_say_why() {
        let bad_status = TOMB.replace("tombstone", "Sleeping now");
        assert!(matches!(
            BdRecord::parse(&bad_status).and_then(|r| r.to_bead()),
            Err(BdError::Status(_))
        ));
        // A project's own status (bd's status.custom) is kept as it is.
        let custom = TOMB.replace("tombstone", "sleeping");
        let bead = BdRecord::parse(&custom)
            .and_then(|r| r.to_bead())
            .expect("bead");
        assert_eq!(bead.status.as_str(), "sleeping");
        let bad_priority = TOMB.replace("\"priority\":1", "\"priority\":9");
        assert!(matches!(
            BdRecord::parse(&bad_priority).and_then(|r| r.to_bead()),
            Err(BdError::Priority(9))
        ));
        let bad_time = TOMB.replace("2025-12-17T14:32:02.998106-08:00", "yesterday");
        assert!(matches!(
            BdRecord::parse(&bad_time).and_then(|r| r.to_bead()),
            Err(BdError::Time { .. })
        ));
        assert!(matches!(BdRecord::parse("{\"id\":"), Err(BdError::Json(_))));
        let bad_id = TOMB.replace("bd-06px", "BD 06");
        assert!(matches!(
            BdRecord::parse(&bad_id).and_then(|r| r.to_bead()),
            Err(BdError::Id(_))
        ));
    }
}
