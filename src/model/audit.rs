//! bd's audit log entry (`audit record|label`): one interaction of an agent (an LLM
//! call, a tool call) or a label on one, kept append-only. The fields and their JSON
//! names are bd's `audit.Entry`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Timestamp;

/// The prefix of the ids bd gives entries (`int-` and 32 hex digits).
pub const AUDIT_ID_PREFIX: &str = "int-";

/// The longest id an entry may have.
const MAX_ID: usize = 100;

/// One audit entry, as bd's `audit.Entry` holds it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Its id (`int-…`).
    #[serde(default)]
    pub id: String,
    /// What it records: `llm_call`, `tool_call`, `label`, or a word of the caller's.
    #[serde(default)]
    pub kind: String,
    /// When (`None` in input: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    /// Who acted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub actor: String,
    /// The bead it concerns.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub issue_id: String,
    /// An LLM call's model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// An LLM call's prompt.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    /// An LLM call's response.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub response: String,
    /// What failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// A tool call's tool.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// A tool call's exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The entry a label is about.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent_id: String,
    /// A label's value (`good`, `bad` …).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Why.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Anything else.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Whether `id` may name an audit entry: 1 to 100 letters, digits, `_`, `-` or `.`,
/// not starting with `.` (it becomes a file name in the store's tree).
pub fn audit_id_ok(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The two-character folder an entry's document is fanned out into: the first two
/// characters after the id's last `-`, lowercased (`int-3fa2…` → `3f`), anything but
/// a letter or digit read as `_`.
pub fn audit_fanout(id: &str) -> String {
    let hash = id.rsplit('-').next().unwrap_or(id);
    let mut out: String = hash
        .chars()
        .take(2)
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_lowercase(),
            false => '_',
        })
        .collect();
    while out.len() < 2 {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_their_folders_stay_inside_the_tree() {
        assert!(audit_id_ok("int-0123abcd"));
        assert!(audit_id_ok("My_entry.1"));
        for bad in ["", ".hidden", "a/b", "a b", "é", &"x".repeat(101)] {
            assert!(!audit_id_ok(bad), "{bad:?}");
        }
        assert_eq!(audit_fanout("int-3Fa2"), "3f");
        assert_eq!(audit_fanout("x-."), "__");
        assert_eq!(audit_fanout("a"), "a_");
    }
}
