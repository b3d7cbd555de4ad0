//! Sessions: each ephemeral run of an agent (the "cattle"), with its model, usage,
//! authority and how it ended.

use serde::{Deserialize, Serialize};

use super::agent::{AgentName, Authority};
use super::bead::{Conflict, Timestamp};
use super::id::BeadId;

super::bead::word_enum!(
    /// How a session ended.
    EndReason, "end reason", {
        /// It finished its work and ended.
        Clean = "clean",
        /// It handed its work to its next session.
        Handoff = "handoff",
        /// It stopped without ending (detected later).
        Crashed = "crashed",
        /// It hit a budget ceiling.
        Budget = "budget",
        /// Another session of the agent took over explicitly.
        Superseded = "superseded",
    }
);

/// A model swap during a session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSwap {
    /// When.
    pub at: Timestamp,
    /// The model before, if one was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The model after.
    pub to: String,
}

/// Running totals of what a session used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Turns taken.
    pub turns: u64,
    /// Tokens used.
    pub tokens: u64,
    /// Dollars spent.
    pub spend: f64,
    /// Tool calls made.
    pub tool_calls: u64,
}

impl Usage {
    /// Adds one ledger line to the totals.
    pub fn add(&mut self, line: &UsageLine) {
        self.turns += u64::from(line.turn);
        self.tokens = self.tokens.saturating_add(line.tokens);
        // Cents of a cent are plenty; rounding keeps totals canonical across machines.
        self.spend = ((self.spend + line.spend) * 1e6).round() / 1e6;
        self.tool_calls = self.tool_calls.saturating_add(line.tool_calls);
    }
}

/// One line of a session's usage ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsageLine {
    /// When it was recorded.
    pub at: Timestamp,
    /// Whether it closes a turn.
    #[serde(default)]
    pub turn: bool,
    /// Tokens used.
    #[serde(default)]
    pub tokens: u64,
    /// Dollars spent.
    #[serde(default)]
    pub spend: f64,
    /// Tool calls made.
    #[serde(default)]
    pub tool_calls: u64,
}

/// A file a snapshot left out for being over the size cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    /// Its path in the worktree.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A snapshot of a session's worktree: its files as they were, as a tree kept in the
/// store (so it syncs and survives `git gc`), with the commit they sat on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Its number within the session, from 1.
    pub n: u32,
    /// When it was taken.
    pub at: Timestamp,
    /// The commit the worktree sat on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The tree of the worktree's files.
    pub tree: String,
    /// The store's commit when it was taken (evidence cursor).
    pub store_commit: String,
    /// Files left out for being over the size cap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
    /// Whether `git beads gc` removed its files from the store (the record stays).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pruned: bool,
}

/// What was found when a session was discovered to have crashed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrashNote {
    /// When the crash was noticed.
    pub detected_at: Timestamp,
    /// The session that noticed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_session: Option<BeadId>,
    /// The last sign of life.
    pub last_heartbeat: Timestamp,
    /// Where it stood, in words (e.g. "at step 3 of 7 (…) of bd-x1: Write tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

/// One run of an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The session id.
    pub id: BeadId,
    /// The agent it runs.
    pub agent: AgentName,
    /// The worktree it runs in.
    pub worktree: String,
    /// The host it runs on.
    pub host: String,
    /// The harness's own id of the session (e.g. Claude Code's session_id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_id: Option<String>,
    /// The model it runs now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Every model swap, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelSwap>,
    /// When it started.
    pub started_at: Timestamp,
    /// Its last sign of life.
    pub heartbeat_at: Timestamp,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Timestamp>,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<EndReason>,
    /// The note it left for the next session, when it handed off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<String>,
    /// What was found when it was discovered to have crashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<CrashNote>,
    /// The authority it runs under, fixed when it started.
    pub authority: Authority,
    /// What it used, in total.
    pub usage: Usage,
    /// What it used, line by line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ledger: Vec<UsageLine>,
    /// The store's commit when it started (its evidence cursor).
    pub store_at_start: String,
    /// The store's commit when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_at_end: Option<String>,
    /// The agent's session before this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<BeadId>,
    /// The session this one resumes (its record continues here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumes: Option<BeadId>,
    /// The session of the parent agent that was live when this one started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<BeadId>,
    /// Snapshots of its worktree, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<Snapshot>,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Who changed it last.
    pub updated_by: String,
    /// Values that lost a merge, for review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
}

impl Session {
    /// Whether it is still running (has not ended, as far as the store knows).
    pub fn is_open(&self) -> bool {
        self.end.is_none()
    }

    /// What the session has left under its budget, ceiling by ceiling (`None` where
    /// there is no ceiling), as of `now`.
    pub fn budget_left(&self, now: Timestamp) -> BudgetLeft {
        let b = &self.authority.budget;
        let wall = (now - self.started_at).num_seconds().max(0) as u64;
        BudgetLeft {
            tokens: b.tokens.map(|c| c as i128 - self.usage.tokens as i128),
            spend: b
                .spend
                .map(|c| ((c - self.usage.spend) * 1e6).round() / 1e6),
            tool_calls: b
                .tool_calls
                .map(|c| c as i128 - self.usage.tool_calls as i128),
            wall_secs: b.wall_secs.map(|c| c as i128 - wall as i128),
        }
    }
}

/// What is left of a budget, ceiling by ceiling; negative means overrun.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BudgetLeft {
    /// Tokens left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<i128>,
    /// Dollars left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend: Option<f64>,
    /// Tool calls left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<i128>,
    /// Wall-clock seconds left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_secs: Option<i128>,
}

impl BudgetLeft {
    /// The ceilings that are overrun, in words.
    pub fn overruns(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(t) = self.tokens.filter(|t| *t < 0) {
            out.push(format!("tokens over by {}", -t));
        }
        if let Some(s) = self.spend.filter(|s| *s < 0.0) {
            out.push(format!("spend over by ${:.2}", -s));
        }
        if let Some(t) = self.tool_calls.filter(|t| *t < 0) {
            out.push(format!("tool calls over by {}", -t));
        }
        if let Some(w) = self.wall_secs.filter(|w| *w < 0) {
            out.push(format!("wall time over by {}s", -w));
        }
        out
    }

    /// Whether any ceiling is set.
    pub fn is_empty(&self) -> bool {
        *self == BudgetLeft::default()
    }
}
