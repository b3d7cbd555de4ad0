//! Agents: persistent worker identities, with what they may do and spend.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::bead::{Conflict, Timestamp};
use super::id::{BeadId, is_device_name};

/// Why an agent name, capability or budget was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The name is not a safe, lowercase, path-like name.
    #[error(
        "{0:?} is not a valid agent name (lowercase letters, digits, '-', '_' and '.', in segments separated by '/', e.g. myrig/polecats/nux)"
    )]
    BadName(String),
    /// The name is reserved for something else.
    #[error("{0:?} is reserved and cannot be an agent name")]
    Reserved(String),
    /// The budget text does not parse.
    #[error("{0}")]
    BadBudget(String),
}

/// Names that `git beads hook NAME` reads as git hook names, so no agent may take them.
pub const GIT_HOOK_NAMES: &[&str] = &[
    "post-checkout",
    "post-commit",
    "prepare-commit-msg",
    "post-merge",
    "post-rewrite",
    "pre-push",
];

/// A validated agent name: lowercase and path-like (`myrig/polecats/nux`), safe in a
/// file path and in a ref name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AgentName(String);

impl AgentName {
    /// Validates a name: segments of `[a-z0-9][a-z0-9._-]*` joined by `/`, at most 128
    /// bytes; no empty segment, no `..`, no segment ending in `.lock` or `.`, and no
    /// segment that Windows reserves for a device (`aux`, `con`, `nul`, `prn`, `com1`…).
    pub fn parse(s: &str) -> Result<AgentName, AgentError> {
        let bad = || AgentError::BadName(s.to_owned());
        if s.is_empty() || s.len() > 128 {
            return Err(bad());
        }
        for seg in s.split('/') {
            let mut chars = seg.chars();
            let first = chars.next().ok_or_else(bad)?;
            if !(first.is_ascii_lowercase() || first.is_ascii_digit())
                || !seg
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
                || seg.contains("..")
                || seg.ends_with('.')
                || seg.ends_with(".lock")
            {
                return Err(bad());
            }
        }
        if GIT_HOOK_NAMES.contains(&s) || s.split('/').any(is_device_name) {
            return Err(AgentError::Reserved(s.to_owned()));
        }
        Ok(AgentName(s.to_owned()))
    }

    /// The name as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AgentName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for AgentName {
    type Error = AgentError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        AgentName::parse(&s)
    }
}

impl From<AgentName> for String {
    fn from(n: AgentName) -> String {
        n.0
    }
}

impl std::str::FromStr for AgentName {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentName::parse(s)
    }
}

super::bead::word_enum!(
    /// Something an agent may be allowed to do.
    Capability, "capability", {
        /// Create beads.
        Create = "create",
        /// Change fields of beads, their labels and dependencies.
        Update = "update",
        /// Claim beads.
        Claim = "claim",
        /// Close and reopen beads.
        Close = "close",
        /// Delete beads.
        Delete = "delete",
        /// Comment on beads.
        Comment = "comment",
        /// Put work on agents' hooks.
        Sling = "sling",
        /// Send mail.
        Mail = "mail",
        /// Create child agents.
        Spawn = "spawn",
        /// Sync with remotes.
        Sync = "sync",
    }
);

/// Ceilings on what one session may use. `None` means no ceiling.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Spend in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<f64>,
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u64>,
    /// Wall-clock seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_secs: Option<u64>,
}

impl Budget {
    /// Parses `tokens=N,spend=USD,tool-calls=N,wall=DURATION` (any subset; durations
    /// like `90s`, `30m`, `2h`, `1d`).
    pub fn parse(s: &str) -> Result<Budget, AgentError> {
        let mut b = Budget::default();
        let mut seen = BTreeSet::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| AgentError::BadBudget(format!("{part:?} is not KEY=VALUE")))?;
            if !seen.insert(k) {
                return Err(AgentError::BadBudget(format!("{k} is given twice")));
            }
            let num = |v: &str| {
                v.parse::<u64>()
                    .map_err(|_| AgentError::BadBudget(format!("{k}: {v:?} is not a whole number")))
            };
            match k {
                "tokens" => b.tokens = Some(num(v)?),
                "tool-calls" | "tool_calls" => b.tool_calls = Some(num(v)?),
                "spend" => {
                    let usd = v
                        .trim_start_matches('$')
                        .parse::<f64>()
                        .ok()
                        .filter(|x| (0.0..=MAX_SPEND_USD).contains(x));
                    b.spend = Some(usd.ok_or_else(|| {
                        AgentError::BadBudget(format!(
                            "spend: {v:?} is not an amount of dollars (0 to {MAX_SPEND_USD})"
                        ))
                    })?);
                }
                "wall" => b.wall_secs = Some(parse_duration(v)?),
                _ => {
                    return Err(AgentError::BadBudget(format!(
                        "unknown budget key {k:?} (expected tokens, spend, tool-calls, wall)"
                    )));
                }
            }
        }
        Ok(b)
    }

    /// Fills every ceiling this budget leaves open from `parent`.
    pub fn inherit(&self, parent: &Budget) -> Budget {
        Budget {
            tokens: self.tokens.or(parent.tokens),
            spend: self.spend.or(parent.spend),
            tool_calls: self.tool_calls.or(parent.tool_calls),
            wall_secs: self.wall_secs.or(parent.wall_secs),
        }
    }

    /// The ceilings where this budget asks for more than `parent` allows.
    pub fn widenings(&self, parent: &Budget) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |name: &str, child: Option<f64>, parent: Option<f64>| {
            if let Some(p) = parent {
                match child {
                    None => out.push(format!("{name} (parent's ceiling is {p}, child has none)")),
                    Some(c) if c > p => out.push(format!("{name} {c} > parent's {p}")),
                    _ => {}
                }
            }
        };
        let f = |v: Option<u64>| v.map(|v| v as f64);
        check("tokens", f(self.tokens), f(parent.tokens));
        check("spend", self.spend, parent.spend);
        check("tool-calls", f(self.tool_calls), f(parent.tool_calls));
        check("wall", f(self.wall_secs), f(parent.wall_secs));
        out
    }

    /// Whether no ceiling is set.
    pub fn is_empty(&self) -> bool {
        *self == Budget::default()
    }
}

/// The largest amount of dollars a budget or a usage line takes.
pub const MAX_SPEND_USD: f64 = 1e9;

/// The longest duration [`parse_duration`] takes: a hundred years, in seconds.
pub const MAX_DURATION_SECS: u64 = 100 * 365 * 86_400;

/// Parses `90s`, `30m`, `2h`, `1d` or a bare number of seconds, up to a hundred years.
pub fn parse_duration(v: &str) -> Result<u64, AgentError> {
    let bad = || {
        AgentError::BadBudget(format!(
            "{v:?} is not a duration (like 90s, 30m, 2h, 1d; at most 100 years)"
        ))
    };
    let (num, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
    let n: u64 = num.parse().map_err(|_| bad())?;
    let mult = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    n.checked_mul(mult)
        .filter(|secs| *secs <= MAX_DURATION_SECS)
        .ok_or_else(bad)
}

/// The capabilities and budget an agent, or a session, acts under.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Authority {
    /// What it may do.
    pub capabilities: BTreeSet<Capability>,
    /// What one session may use.
    #[serde(default, skip_serializing_if = "Budget::is_empty")]
    pub budget: Budget,
}

impl Authority {
    /// Everything: what a person, or an agent without a parent, starts with.
    pub fn all() -> Authority {
        Authority {
            capabilities: Capability::ALL.iter().copied().collect(),
            budget: Budget::default(),
        }
    }
}

super::bead::word_enum!(
    /// Whether an agent still works.
    AgentStatus, "agent status", {
        /// It works.
        Active = "active",
        /// It was retired and starts no more sessions.
        Retired = "retired",
    }
);

/// A change to an agent's authority, recorded with who made it and when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// When.
    pub at: Timestamp,
    /// Who decided.
    pub by: String,
    /// What changed, in words.
    pub what: String,
    /// The session the change was applied to at once, if any (otherwise it applies
    /// from the next session on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_to: Option<BeadId>,
}

/// The namespace of the signature that endorses an agent's key.
pub const ENDORSE_NAMESPACE: &str = "git-beads-agent-key";

/// A public key an agent signs store commits with, endorsed by whoever gave it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentKey {
    /// The public key, in OpenSSH format (`ssh-ed25519 AAAA…`).
    pub key: String,
    /// Since when it is the agent's key.
    pub since: Timestamp,
    /// When it was retired (rotated out); commits it signs after that are not the
    /// agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<Timestamp>,
    /// Who endorsed it: the person or parent agent that created or rotated it.
    pub endorsed_by: String,
    /// The endorser's public key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endorser_key: Option<String>,
    /// The endorser's armored signature over [`endorsement_payload`], in namespace
    /// [`ENDORSE_NAMESPACE`]; none when the endorser had no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endorsement: Option<String>,
}

/// What an endorsement signs: the agent's name and its public key.
pub fn endorsement_payload(name: &AgentName, key: &str) -> Vec<u8> {
    format!("git-beads agent key\n{name}\n{}\n", key.trim()).into_bytes()
}

/// A persistent worker identity (the "pet"). Sessions come and go; the agent endures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    /// The name.
    pub name: AgentName,
    /// What it is for (`polecat`, `reviewer`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The agent that created it: its delegation chain goes through here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<AgentName>,
    /// The model its sessions start with unless told otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether it still works.
    pub status: AgentStatus,
    /// What it may do and spend; never more than its parent.
    pub authority: Authority,
    /// The work pinned to it: what its next session must do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook: Vec<BeadId>,
    /// Its current session, if one is running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<BeadId>,
    /// Its last session, running or ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_session: Option<BeadId>,
    /// When it was made.
    pub created_at: Timestamp,
    /// Who made it.
    pub created_by: String,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Who changed it last.
    pub updated_by: String,
    /// Changes to its authority, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<Decision>,
    /// Its signing keys, oldest first: the last one not retired is current.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<AgentKey>,
    /// Values that lost a merge, for review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in [
            "nux",
            "myrig/polecats/nux",
            "a1",
            "crew-7/x_y",
            "v1.2",
            "auxiliary",
            "com0",
            "console.x",
        ] {
            assert!(AgentName::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "Nux", "a//b", "/a", "a/", "../x", "a/../b", "a b", "a\u{7}", "x.lock", "a.", "-a",
            "a:b", "a~1", "a^", "a@{1}", "a\\b",
        ] {
            assert!(AgentName::parse(bad).is_err(), "{bad:?}");
        }
        for reserved in [
            "post-commit",
            "aux/a",
            "rig/con",
            "nul.d",
            "com1",
            "x/lpt0.y",
        ] {
            assert!(
                matches!(AgentName::parse(reserved), Err(AgentError::Reserved(_))),
                "{reserved:?}"
            );
        }
    }

    #[test]
    fn budgets() {
        let b = Budget::parse("tokens=1000,spend=2.5,tool-calls=30,wall=2h").expect("parses");
        assert_eq!(b.tokens, Some(1000));
        assert_eq!(b.spend, Some(2.5));
        assert_eq!(b.wall_secs, Some(7200));
        assert!(Budget::parse("tokens=x").is_err());
        assert!(Budget::parse("speed=1").is_err());
        assert!(Budget::parse("spend=-1").is_err());
        assert!(Budget::parse("spend=1e300").is_err());
        assert!(Budget::parse("tokens=1,tokens=2").is_err());
        assert!(Budget::parse("wall=99999999999999d").is_err());
        assert!(Budget::parse("wall=36500d").is_ok());
        assert!(Budget::parse("wall=36501d").is_err());
        let parent = Budget::parse("tokens=100").expect("parses");
        assert_eq!(Budget::default().widenings(&parent).len(), 1);
        assert!(
            Budget::default()
                .inherit(&parent)
                .widenings(&parent)
                .is_empty()
        );
        assert_eq!(
            Budget::parse("tokens=200")
                .expect("ok")
                .widenings(&parent)
                .len(),
            1
        );
    }
}
