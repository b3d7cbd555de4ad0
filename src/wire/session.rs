//! The JSON form of a session: today the fields of its document, in the document's
//! order, but a type of its own (as [`super::Bead`] is).

use serde::{Serialize, Serializer};

use super::Field;

use crate::model::{
    self, AgentName, Authority, BeadId, Conflict, CrashNote, EndReason, ModelSwap, Snapshot,
    Timestamp, Usage, UsageLine,
};

/// The fields of a session, as [`Session`] writes them.
pub(super) const SESSION_FIELDS: &[Field] = &[
    Field::new("id"),
    Field::new("agent"),
    Field::new("worktree"),
    Field::new("host"),
    Field::optional("harness_id"),
    Field::optional("model"),
    Field::optional("models"),
    Field::new("started_at"),
    Field::new("heartbeat_at"),
    Field::optional("ended_at"),
    Field::optional_noted("end", "how it ended: clean, handoff, crashed or budget"),
    Field::optional("handoff"),
    Field::optional("crash"),
    Field::noted("authority", ": {capabilities, budget}"),
    Field::noted("usage", ": {turns, tokens, spend, tool_calls, ...}"),
    Field::optional("ledger"),
    Field::new("store_at_start"),
    Field::optional("store_at_end"),
    Field::optional("previous"),
    Field::optional("resumes"),
    Field::optional("parent_session"),
    Field::optional("snapshots"),
    Field::new("updated_at"),
    Field::new("updated_by"),
    Field::optional("conflicts"),
];

/// A session, as the `session` commands print it.
#[derive(Serialize)]
pub struct Session<'a> {
    id: &'a BeadId,
    agent: &'a AgentName,
    worktree: &'a str,
    host: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    harness_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    models: &'a [ModelSwap],
    started_at: &'a Timestamp,
    heartbeat_at: &'a Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    ended_at: Option<&'a Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<EndReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handoff: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    crash: Option<&'a CrashNote>,
    authority: &'a Authority,
    usage: &'a Usage,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    ledger: &'a [UsageLine],
    store_at_start: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    store_at_end: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<&'a BeadId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resumes: Option<&'a BeadId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_session: Option<&'a BeadId>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    snapshots: &'a [Snapshot],
    updated_at: &'a Timestamp,
    updated_by: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    conflicts: &'a [Conflict],
}

impl<'a> From<&'a model::Session> for Session<'a> {
    fn from(s: &'a model::Session) -> Self {
        Session {
            id: &s.id,
            agent: &s.agent,
            worktree: &s.worktree,
            host: &s.host,
            harness_id: s.harness_id.as_deref(),
            model: s.model.as_deref(),
            models: &s.models,
            started_at: &s.started_at,
            heartbeat_at: &s.heartbeat_at,
            ended_at: s.ended_at.as_ref(),
            end: s.end,
            handoff: s.handoff.as_deref(),
            crash: s.crash.as_ref(),
            authority: &s.authority,
            usage: &s.usage,
            ledger: &s.ledger,
            store_at_start: &s.store_at_start,
            store_at_end: s.store_at_end.as_deref(),
            previous: s.previous.as_ref(),
            resumes: s.resumes.as_ref(),
            parent_session: s.parent_session.as_ref(),
            snapshots: &s.snapshots,
            updated_at: &s.updated_at,
            updated_by: &s.updated_by,
            conflicts: &s.conflicts,
        }
    }
}

/// Writes a session as its wire type (`#[serde(serialize_with = "session")]`).
pub(super) fn session<S: Serializer>(v: &&model::Session, s: S) -> Result<S::Ok, S::Error> {
    Session::from(*v).serialize(s)
}

/// Writes sessions as the wire type.
pub(super) fn sessions<S: Serializer>(v: &&[model::Session], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(Session::from))
}

#[cfg(test)]
mod tests {
    use super::super::written_as_document;
    use super::*;

    #[test]
    fn a_session_is_written_as_its_document() {
        let usage = serde_json::json!({"turns": 3, "tokens": 10, "spend": 0.5, "tool_calls": 2});
        let full = serde_json::json!({
            "id": "ses-a1", "agent": "rig/nux", "worktree": "/w", "host": "h",
            "harness_id": "x", "model": "opus",
            "started_at": "2026-01-01T00:00:00Z", "heartbeat_at": "2026-01-01T00:01:00Z",
            "ended_at": "2026-01-01T00:02:00Z", "end": "handoff", "handoff": "note",
            "authority": {"capabilities": ["claim"]}, "usage": usage,
            "store_at_start": "abc", "store_at_end": "def", "previous": "ses-b2",
            "resumes": "ses-c3", "parent_session": "ses-d4",
            "updated_at": "2026-01-01T00:02:00Z", "updated_by": "rig/nux",
            "conflicts": [{"field": "model", "value": "x", "actor": "cy", "at": "2026-01-02T00:00:00Z"}],
        });
        let bare = serde_json::json!({
            "id": "ses-e5", "agent": "nux", "worktree": "/w", "host": "h",
            "started_at": "2026-01-01T00:00:00Z", "heartbeat_at": "2026-01-01T00:00:00Z",
            "authority": {"capabilities": []}, "usage": usage, "store_at_start": "abc",
            "updated_at": "2026-01-01T00:00:00Z", "updated_by": "nux",
        });
        written_as_document(&[full, bare], |v: &model::Session| {
            serde_json::to_string(&Session::from(v)).expect("wire")
        });
    }
}
