//! The JSON forms of an agent and a message: today the fields of their documents, in
//! the documents' order, but types of their own (as [`super::Bead`] is).

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use super::Field;

use crate::model::{
    self, AgentName, AgentStatus, Authority, BeadId, Conflict, Decision, Delivery, Timestamp,
};

/// The fields of an agent, as [`Agent`] writes them.
pub(super) const AGENT_FIELDS: &[Field] = &[
    Field::new("name"),
    Field::optional("role"),
    Field::optional("parent"),
    Field::optional("model"),
    Field::new("status"),
    Field::noted("authority", ": {capabilities, budget}"),
    Field::optional("hook"),
    Field::optional("session"),
    Field::optional("last_session"),
    Field::new("created_at"),
    Field::new("created_by"),
    Field::new("updated_at"),
    Field::new("updated_by"),
    Field::optional("decisions"),
    Field::optional("conflicts"),
];

/// The fields of a message, as [`Message`] writes them.
pub(super) const MESSAGE_FIELDS: &[Field] = &[
    Field::new("id"),
    Field::new("from"),
    Field::new("to"),
    Field::optional("cc"),
    Field::new("subject"),
    Field::optional("body"),
    Field::new("priority"),
    Field::new("thread"),
    Field::optional("reply_to"),
    Field::new("sent_at"),
    Field::noted("delivery", ": {AGENT: {read_at, acked_at, archived_at}}"),
    Field::new("updated_at"),
    Field::new("updated_by"),
    Field::optional("conflicts"),
];

/// An agent, as the `agent` commands print it.
#[derive(Serialize)]
pub struct Agent<'a> {
    name: &'a AgentName,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a AgentName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    status: AgentStatus,
    authority: &'a Authority,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    hook: &'a [BeadId],
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a BeadId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_session: Option<&'a BeadId>,
    created_at: &'a Timestamp,
    created_by: &'a str,
    updated_at: &'a Timestamp,
    updated_by: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    decisions: &'a [Decision],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    conflicts: &'a [Conflict],
}

impl<'a> From<&'a model::Agent> for Agent<'a> {
    fn from(a: &'a model::Agent) -> Self {
        Agent {
            name: &a.name,
            role: a.role.as_deref(),
            parent: a.parent.as_ref(),
            model: a.model.as_deref(),
            status: a.status,
            authority: &a.authority,
            hook: &a.hook,
            session: a.session.as_ref(),
            last_session: a.last_session.as_ref(),
            created_at: &a.created_at,
            created_by: &a.created_by,
            updated_at: &a.updated_at,
            updated_by: &a.updated_by,
            decisions: &a.decisions,
            conflicts: &a.conflicts,
        }
    }
}

/// A message, as the `mail` commands print it.
#[derive(Serialize)]
pub struct Message<'a> {
    id: &'a BeadId,
    from: &'a str,
    to: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    cc: &'a [AgentName],
    subject: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    body: &'a str,
    priority: u8,
    thread: &'a BeadId,
    #[serde(skip_serializing_if = "Option::is_none")]
    reply_to: Option<&'a BeadId>,
    sent_at: &'a Timestamp,
    delivery: &'a BTreeMap<AgentName, Delivery>,
    updated_at: &'a Timestamp,
    updated_by: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    conflicts: &'a [Conflict],
}

impl<'a> From<&'a model::Message> for Message<'a> {
    fn from(m: &'a model::Message) -> Self {
        Message {
            id: &m.id,
            from: &m.from,
            to: &m.to,
            cc: &m.cc,
            subject: &m.subject,
            body: &m.body,
            priority: m.priority,
            thread: &m.thread,
            reply_to: m.reply_to.as_ref(),
            sent_at: &m.sent_at,
            delivery: &m.delivery,
            updated_at: &m.updated_at,
            updated_by: &m.updated_by,
            conflicts: &m.conflicts,
        }
    }
}

/// Writes an agent as its wire type (`#[serde(serialize_with = "agent")]`).
pub(super) fn agent<S: Serializer>(a: &&model::Agent, s: S) -> Result<S::Ok, S::Error> {
    Agent::from(*a).serialize(s)
}

/// Writes agents as the wire type.
pub(super) fn agents<S: Serializer>(a: &&[model::Agent], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(a.iter().map(Agent::from))
}

/// Writes a message as its wire type.
pub(super) fn message<S: Serializer>(m: &&model::Message, s: S) -> Result<S::Ok, S::Error> {
    Message::from(*m).serialize(s)
}

/// Writes messages as the wire type.
pub(super) fn messages<S: Serializer>(m: &&[model::Message], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(m.iter().map(Message::from))
}

#[cfg(test)]
mod tests {
    use super::super::written_as_document as same;
    use super::*;

    #[test]
    fn an_agent_is_written_as_its_document() {
        same(
            &[
                serde_json::json!({
                    "name": "rig/nux", "role": "polecat", "parent": "rig", "model": "opus",
                    "status": "retired",
                    "authority": {"capabilities": ["claim", "create"], "budget": {"tokens": 5, "spend": 1.5}},
                    "hook": ["bd-a1"], "session": "ses-a1", "last_session": "ses-b2",
                    "created_at": "2026-01-01T00:00:00Z", "created_by": "ann",
                    "updated_at": "2026-01-02T00:00:00Z", "updated_by": "bob",
                    "decisions": [{"at": "2026-01-02T00:00:00Z", "by": "ann", "what": "w", "applied_to": "ses-a1"}],
                    "conflicts": [{"field": "role", "value": "x", "actor": "cy", "at": "2026-01-02T00:00:00Z"}],
                }),
                serde_json::json!({
                    "name": "nux", "status": "active", "authority": {"capabilities": []},
                    "created_at": "2026-01-01T00:00:00Z", "created_by": "ann",
                    "updated_at": "2026-01-01T00:00:00Z", "updated_by": "ann",
                }),
            ],
            |a: &model::Agent| serde_json::to_string(&Agent::from(a)).expect("wire"),
        );
    }

    #[test]
    fn a_message_is_written_as_its_document() {
        same(
            &[
                serde_json::json!({
                    "id": "msg-a1", "from": "ann", "to": ["@all"], "cc": ["bob"], "subject": "S",
                    "body": "B", "priority": 1, "thread": "msg-a1", "reply_to": "msg-b2",
                    "sent_at": "2026-01-01T00:00:00Z",
                    "delivery": {"bob": {"read_at": "2026-01-01T00:00:01Z", "acked_at": "2026-01-01T00:00:02Z"}},
                    "updated_at": "2026-01-01T00:00:00Z", "updated_by": "ann",
                    "conflicts": [{"field": "subject", "value": "T", "actor": "cy", "at": "2026-01-02T00:00:00Z"}],
                }),
                serde_json::json!({
                    "id": "msg-c3", "from": "ann", "to": ["bob"], "subject": "S", "priority": 2,
                    "thread": "msg-c3", "sent_at": "2026-01-01T00:00:00Z", "delivery": {"bob": {}},
                    "updated_at": "2026-01-01T00:00:00Z", "updated_by": "ann",
                }),
            ],
            |m: &model::Message| serde_json::to_string(&Message::from(m)).expect("wire"),
        );
    }
}
