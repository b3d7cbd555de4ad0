//! Claude Code hooks in `.claude/settings.json`: SessionStart starts (or continues, after
//! a compaction) the session and primes it; Stop and SubagentStop record the turn from
//! the transcript; PreToolUse and UserPromptSubmit hold a session over budget; PreCompact
//! folds the turns into the store; SessionEnd ends the session.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The hook commands written, by Claude Code event.
pub const HOOKS: &[(&str, &str)] = &[
    ("SessionStart", "git beads session start --hook-input"),
    ("UserPromptSubmit", "git beads session prompt --hook-input"),
    ("PreToolUse", "git beads session guard --hook-input"),
    ("Stop", "git beads session heartbeat --hook-input"),
    ("SubagentStop", "git beads session heartbeat --hook-input"),
    ("PreCompact", "git beads session flush --hook-input"),
    ("SessionEnd", "git beads session end --hook-input"),
];

/// Claude Code's answer from a PreToolUse hook that denies the tool call, telling the
/// model why.
pub fn deny_tool(reason: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
}

/// Claude Code's answer from a UserPromptSubmit hook that blocks the prompt.
pub fn block_prompt(reason: &str) -> Value {
    json!({"decision": "block", "reason": reason})
}

/// Claude Code's answer from a UserPromptSubmit hook that adds `text` to the context.
pub fn prompt_context(text: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": text,
        }
    })
}

/// What went wrong writing the settings.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The settings file could not be read or written.
    #[error("could not {what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The existing settings are not a JSON object.
    #[error("{path} is not a JSON object ({reason}); fix it by hand first, nothing was changed")]
    NotAnObject {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Merges git-beads' hooks into `<top>/.claude/settings.json`, keeping everything
/// already there; returns the file and how many hooks were added (0 when all were
/// present already).
pub fn install(top: &Path) -> Result<(PathBuf, usize), SetupError> {
    let path = top.join(".claude").join("settings.json");
    let mut settings: Value = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => json!({}),
        Ok(text) => serde_json::from_str(&text).map_err(|e| SetupError::NotAnObject {
            path: path.clone(),
            reason: e.to_string(),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(source) => {
            return Err(SetupError::Io {
                what: "read",
                path,
                source,
            });
        }
    };
    let not_object = |reason: &str| SetupError::NotAnObject {
        path: path.clone(),
        reason: reason.into(),
    };
    let hooks = settings
        .as_object_mut()
        .ok_or_else(|| not_object("the top level is not an object"))?
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_object("\"hooks\" is not an object"))?;
    let mut added = 0;
    for (event, command) in HOOKS {
        let list = hooks
            .entry(*event)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .ok_or_else(|| not_object("a hook event is not a list"))?;
        let present = list.iter().any(|group| {
            group["hooks"]
                .as_array()
                .is_some_and(|hs| hs.iter().any(|h| h["command"] == *command))
        });
        if !present {
            let hook = json!([{"type": "command", "command": command}]);
            // Tool events are matched by tool name: the guard sees every tool.
            list.push(if *event == "PreToolUse" {
                json!({"matcher": "*", "hooks": hook})
            } else {
                json!({"hooks": hook})
            });
            added += 1;
        }
    }
    if added > 0 {
        let dir = path.parent().unwrap_or(top);
        std::fs::create_dir_all(dir).map_err(|source| SetupError::Io {
            what: "create",
            path: dir.to_owned(),
            source,
        })?;
        let mut text = serde_json::to_string_pretty(&settings).unwrap_or_default();
        text.push('\n');
        std::fs::write(&path, text).map_err(|source| SetupError::Io {
            what: "write",
            path: path.clone(),
            source,
        })?;
    }
    Ok((path, added))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_is_idempotent() {
        let dir = tempfile::tempdir().expect("temp dir");
        let claude = dir.path().join(".claude");
        std::fs::create_dir_all(&claude).expect("mkdir");
        std::fs::write(
            claude.join("settings.json"),
            r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine"}]}]}}"#,
        )
        .expect("write");
        let (path, added) = install(dir.path()).expect("installs");
        assert_eq!(added, HOOKS.len());
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["model"], "opus");
        assert_eq!(v["hooks"]["Stop"].as_array().map(Vec::len), Some(2));
        assert_eq!(install(dir.path()).expect("again").1, 0);
        std::fs::write(claude.join("settings.json"), "[1]").expect("write");
        assert!(install(dir.path()).is_err());
    }
}
