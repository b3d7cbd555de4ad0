//! What the index keeps of each bead and message, and of a document that does not parse.

use super::*;

/// What the index knows of one bead: everything list, ready, blocked and search need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The id.
    pub id: String,
    /// The title.
    pub title: String,
    /// The status.
    pub status: Status,
    /// The priority.
    pub priority: u8,
    /// The type.
    pub kind: BeadType,
    /// The assignee.
    pub assignee: Option<String>,
    /// The labels, sorted.
    pub labels: Vec<String>,
    /// The dependencies, sorted.
    pub dependencies: Vec<Dependency>,
    /// The dependencies on other projects' items, sorted.
    #[serde(default)]
    pub external: Vec<ExternalDependency>,
    /// The description, for search: a changed bead keeps it until it is folded into
    /// the search text of a new table; [`BeadRow::to_summary`] leaves it empty.
    pub description: String,
    /// Creation time, microseconds since the epoch.
    pub created_us: i64,
    /// Last change, microseconds since the epoch.
    pub updated_us: i64,
}

impl Summary {
    pub(super) fn of(bead: &Bead) -> Summary {
        Summary {
            id: bead.id.to_string(),
            title: bead.title.clone(),
            status: bead.status,
            priority: bead.priority,
            kind: bead.kind,
            assignee: bead.assignee.clone(),
            labels: bead.labels.iter().cloned().collect(),
            dependencies: bead.dependencies.clone(),
            external: bead.external.clone(),
            description: bead.description.clone(),
            created_us: bead.created_at.timestamp_micros(),
            updated_us: bead.updated_at.timestamp_micros(),
        }
    }

    /// When the bead was made.
    pub fn created_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.created_us).unwrap_or_default()
    }

    /// When the bead last changed.
    pub fn updated_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.updated_us).unwrap_or_default()
    }
}

/// What the index knows of one message: everything inbox, thread and prime need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MailSummary {
    /// The message id.
    pub id: String,
    /// The sender.
    pub from: String,
    /// The subject.
    pub subject: String,
    /// The priority.
    pub priority: u8,
    /// The thread it belongs to.
    pub thread: String,
    /// When it was sent, microseconds since the epoch.
    pub sent_us: i64,
    /// Each recipient and its marks, sorted by recipient.
    pub delivery: Vec<MailMarks>,
}

/// One recipient's marks on a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailMarks {
    /// The recipient.
    pub agent: String,
    /// Read.
    pub read: bool,
    /// Acknowledged.
    pub acked: bool,
    /// Archived.
    pub archived: bool,
}

impl MailSummary {
    pub(super) fn of(m: &Message) -> MailSummary {
        MailSummary {
            id: m.id.to_string(),
            from: m.from.clone(),
            subject: m.subject.clone(),
            priority: m.priority,
            thread: m.thread.to_string(),
            sent_us: m.sent_at.timestamp_micros(),
            delivery: m
                .delivery
                .iter()
                .map(|(agent, d)| MailMarks {
                    agent: agent.to_string(),
                    read: d.read_at.is_some(),
                    acked: d.acked_at.is_some(),
                    archived: d.archived_at.is_some(),
                })
                .collect(),
        }
    }

    /// `agent`'s marks, if it is a recipient.
    pub fn marks(&self, agent: &str) -> Option<&MailMarks> {
        self.delivery
            .binary_search_by(|m| m.agent.as_str().cmp(agent))
            .ok()
            .map(|i| &self.delivery[i])
    }

    /// When it was sent.
    pub fn sent_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.sent_us).unwrap_or_default()
    }
}

/// A document that is in the store but does not parse. It is reported, never hidden
/// and never dropped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Broken {
    /// The document's path in the store's tree.
    pub path: String,
    /// Why it does not parse.
    pub error: String,
}
