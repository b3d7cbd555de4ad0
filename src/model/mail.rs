//! Mail between agents: messages with per-recipient read, acknowledged and archived state.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::agent::AgentName;
use super::bead::{Conflict, Timestamp};
use super::id::BeadId;

/// Where one recipient stands with a message. Each mark only ever goes from unset to
/// set, so merging two clones' marks never loses one or brings a message back.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// When the recipient read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<Timestamp>,
    /// When the recipient acknowledged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acked_at: Option<Timestamp>,
    /// When the recipient archived it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<Timestamp>,
}

/// A message from an agent (or a person) to agents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The message id.
    pub id: BeadId,
    /// Who sent it: an agent name or a person's identity.
    pub from: String,
    /// The addresses as written: agent names, `@role`, `@all`.
    pub to: Vec<String>,
    /// Agents copied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cc: Vec<AgentName>,
    /// One line saying what it is about.
    pub subject: String,
    /// The text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
    /// 0 (urgent) … 4 (routine).
    pub priority: u8,
    /// The first message of the conversation (itself for a new one).
    pub thread: BeadId,
    /// The message this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<BeadId>,
    /// When it was sent.
    pub sent_at: Timestamp,
    /// Every recipient (addresses expanded, copies included) and where each stands.
    pub delivery: BTreeMap<AgentName, Delivery>,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Who changed it last.
    pub updated_by: String,
    /// Values that lost a merge, for review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
}
