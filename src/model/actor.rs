//! Who is acting: the identity that authors a change, and what it may do.

use super::agent::{AgentName, Authority, Capability};
use super::id::BeadId;

/// The identity a command acts as. Its `id` is what lands in `assignee`,
/// `created_by` and `updated_by`; `name` and `email` author the store commit.
#[derive(Clone, Debug, PartialEq)]
pub struct Actor {
    /// The short identity written into documents.
    pub id: String,
    /// The commit author's name.
    pub name: String,
    /// The commit author's email.
    pub email: String,
    /// The agent acting, when it is one (a person has none).
    pub agent: Option<AgentName>,
    /// The session it acts in, if one is running in this worktree.
    pub session: Option<BeadId>,
    /// What it may do; `None` for a person, who may do everything.
    pub authority: Option<Authority>,
    /// The budget ceilings its session has crossed, in words. While any is, the agent
    /// may only report usage, hand off or end the session, until the budget is raised.
    pub over_budget: Vec<String>,
}

impl Actor {
    /// A person acting under their git identity; their id is their name.
    pub fn person(name: &str, email: &str) -> Actor {
        Actor {
            id: name.to_owned(),
            name: name.to_owned(),
            email: email.to_owned(),
            agent: None,
            session: None,
            authority: None,
            over_budget: Vec::new(),
        }
    }

    /// An agent acting under `authority`, in `session` when one runs.
    pub fn agent(name: &AgentName, session: Option<BeadId>, authority: Authority) -> Actor {
        Actor {
            id: name.to_string(),
            name: name.to_string(),
            email: format!(
                "{}@agents.git-beads.invalid",
                name.as_str().replace('/', ".")
            ),
            agent: Some(name.clone()),
            session,
            authority: Some(authority),
            over_budget: Vec::new(),
        }
    }

    /// Whether this actor may do `cap`.
    pub fn may(&self, cap: Capability) -> bool {
        self.authority
            .as_ref()
            .is_none_or(|a| a.capabilities.contains(&cap))
    }
}
