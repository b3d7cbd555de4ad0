//! Sessions: each ephemeral run of an agent (the "cattle"), with its model, usage,
//! authority and how it ended.

use serde::{Deserialize, Serialize};

use super::agent::{AgentName, Authority, Budget};
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
    /// Turns whose spend is unknown (a model without a price): `spend` leaves them out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced_turns: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Adds one ledger line to the totals.
    pub fn add(&mut self, line: &UsageLine) {
        self.turns += u64::from(line.turn);
        self.tokens = self.tokens.saturating_add(line.tokens);
        // Cents of a cent are plenty; rounding keeps totals canonical across machines.
        self.spend = ((self.spend + line.spend) * 1e6).round() / 1e6;
        self.tool_calls = self.tool_calls.saturating_add(line.tool_calls);
        self.unpriced_turns += u64::from(line.unpriced);
    }

    /// What one turn cost on average, in tokens and dollars (`None` before the first turn).
    pub fn per_turn(&self) -> Option<(u64, f64)> {
        (self.turns > 0).then(|| {
            (
                self.tokens / self.turns,
                ((self.spend / self.turns as f64) * 1e6).round() / 1e6,
            )
        })
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
    /// The model that answered (the last one, when several did), as the harness names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tokens by kind, as the harness reported them (`tokens` is their sum).
    #[serde(default, skip_serializing_if = "TokenKinds::is_empty")]
    pub by_kind: TokenKinds,
    /// Whether the spend is unknown: some model of the turn has no price (`spend` leaves it out).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unpriced: bool,
}

/// Tokens of one turn by kind, as Anthropic's API reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenKinds {
    /// Input tokens not read from or written to the prompt cache.
    #[serde(default)]
    pub input: u64,
    /// Output tokens.
    #[serde(default)]
    pub output: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: u64,
}

impl TokenKinds {
    /// Whether no token of any kind is counted.
    pub fn is_empty(&self) -> bool {
        *self == TokenKinds::default()
    }

    /// All of them.
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_write)
            .saturating_add(self.cache_read)
    }

    /// Adds `other` kind by kind.
    pub fn add(&mut self, other: &TokenKinds) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
    }
}

/// Where a harness hook stopped reading a transcript: the next read starts at `offset`
/// if the `last_len` bytes before it (the last line consumed) still hash to `hash`;
/// else the file was rewritten, and it is read again from the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptCursor {
    /// The transcript file.
    pub path: String,
    /// Bytes consumed.
    pub offset: u64,
    /// The length of the last line consumed, with its newline.
    pub last_len: u64,
    /// A hash (64-bit FNV-1a) of the last line consumed.
    pub hash: u64,
    /// The running token totals the transcript reported up to here (Codex CLI's
    /// rollouts count cumulatively; a turn is the difference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<TokenKinds>,
}

/// One entry of a session's local ledger: the append-only file a harness hook writes
/// at every turn, before (and between) folding the turns into the shared store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LedgerEntry {
    /// The first entry: what the guard needs to judge without the store.
    Start {
        /// When the session started.
        started_at: Timestamp,
        /// Its ceilings.
        budget: Budget,
        /// Its usage in the store when the ledger began.
        usage: Usage,
    },
    /// One turn.
    Turn {
        /// What it used.
        line: UsageLine,
        /// The ids of the harness' messages it counted (each is counted once).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        messages: Vec<String>,
        /// Model swaps seen during the turn.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        swaps: Vec<ModelSwap>,
        /// Where the transcript was read up to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cursor: Option<TranscriptCursor>,
    },
    /// The turns so far are in the store.
    Flushed {
        /// When.
        at: Timestamp,
        /// How many turn entries the store holds now.
        turns: usize,
    },
    /// Messages handed to the running session as context (each is handed once).
    Delivered {
        /// When.
        at: Timestamp,
        /// The message ids.
        mail: Vec<String>,
    },
    /// The session ended.
    Ended {
        /// When.
        at: Timestamp,
        /// How.
        reason: EndReason,
        /// The ceilings it crossed, in words, when it ended over budget.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        over: Vec<String>,
    },
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
        BudgetLeft::of(&self.authority.budget, &self.usage, self.started_at, now)
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
    /// What `usage` leaves of `budget` for a session that started at `started_at`, as
    /// of `now`.
    pub fn of(budget: &Budget, usage: &Usage, started_at: Timestamp, now: Timestamp) -> BudgetLeft {
        let wall = (now - started_at).num_seconds().max(0) as u64;
        BudgetLeft {
            tokens: budget.tokens.map(|c| c as i128 - usage.tokens as i128),
            spend: budget
                .spend
                .map(|c| ((c - usage.spend) * 1e6).round() / 1e6),
            tool_calls: budget
                .tool_calls
                .map(|c| c as i128 - usage.tool_calls as i128),
            wall_secs: budget.wall_secs.map(|c| c as i128 - wall as i128),
        }
    }

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
