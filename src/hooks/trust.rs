//! What a harness asks of the user before it runs a project's hooks and servers, what
//! it will skip until then, and giving it with the user's consent (`setup --trust`).
//! Each harness keeps that consent in the user's own files, never in the project:
//!
//! - Claude Code keeps a project's `.mcp.json` server "pending approval" until the
//!   project's folder is trusted and the server approved, in `~/.claude.json` under
//!   `projects.<folder>` (`hasTrustDialogAccepted`, `enabledMcpjsonServers`).
//! - Codex ignores `.codex/` in a project not trusted in `$CODEX_HOME/config.toml`
//!   (`[projects."<folder>"] trust_level = "trusted"`), and skips every hook, the
//!   project's and the user's, whose hash is not trusted there
//!   (`[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash`).
//! - Gemini CLI drops a folder's workspace settings (hooks, MCP servers) unless the
//!   folder is trusted in `~/.gemini/trustedFolders.json` (folder trust is on unless
//!   the user's settings turn `security.folderTrust.enabled` off).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::harness::{Harness, Report, SetupError, not_an_object, read_json, read_text};
use super::harness::{write_json, write_text};
use super::mcp;
use crate::settings;

/// Where the user's own files are: their home, and the places the harnesses let an
/// environment variable move.
#[derive(Clone, Debug)]
pub struct UserFiles {
    home: PathBuf,
    codex_home: PathBuf,
    gemini_trusted: PathBuf,
}

impl UserFiles {
    /// The user's files as the environment says (`HOME`, `CODEX_HOME`,
    /// `GEMINI_CLI_TRUSTED_FOLDERS_PATH`); `None` without a home.
    pub fn from_env() -> Option<UserFiles> {
        let set = |name| {
            settings::env(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = set(settings::HOME)?;
        Some(UserFiles {
            codex_home: set(settings::CODEX_HOME).unwrap_or_else(|| home.join(".codex")),
            gemini_trusted: set(settings::GEMINI_TRUSTED_FOLDERS)
                .unwrap_or_else(|| home.join(".gemini").join("trustedFolders.json")),
            home,
        })
    }

    /// The file where `harness` keeps the user's consent.
    pub fn consent_file(&self, harness: Harness) -> PathBuf {
        match harness {
            Harness::Claude => self.home.join(".claude.json"),
            Harness::Codex => self.codex_home.join("config.toml"),
            Harness::Gemini => self.gemini_trusted.clone(),
        }
    }
}

/// One thing a harness will skip until the user consents, and the entry `--trust`
/// writes for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// What is skipped, in words.
    pub what: String,
    /// The consent it needs.
    entry: Entry,
}

/// A consent, as the harness records it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    /// Claude Code: the folder trusted and the `.mcp.json` server approved.
    ClaudeServer,
    /// Codex: `[projects."<folder>"] trust_level = "trusted"`.
    CodexProject,
    /// Codex: a hook's hash, under its key.
    CodexHook { key: String, hash: String },
    /// Gemini CLI: the folder in trustedFolders.json.
    GeminiFolder,
}

/// What `harness`, wired in `top` (the worktree; its settings under `dir`, the user's
/// with `global`), will skip until the user consents.
pub fn skipped(
    harness: Harness,
    files: &UserFiles,
    top: &Path,
    dir: &Path,
    global: bool,
) -> Result<Vec<Skipped>, SetupError> {
    let consent = files.consent_file(harness);
    Ok(match harness {
        Harness::Claude => claude_skipped(&consent, top, dir, global)?,
        Harness::Codex => {
            codex_skipped(&consent, top, &harness.settings_file(dir, global), global)?
        }
        Harness::Gemini => gemini_skipped(&consent, files, top)?,
    })
}

/// Records the consents `skipped` needs in `harness`' file for them.
pub fn trust(
    harness: Harness,
    files: &UserFiles,
    top: &Path,
    skipped: &[Skipped],
) -> Result<Report, SetupError> {
    let path = files.consent_file(harness);
    let mut report = Report {
        path: path.clone(),
        added: skipped.len(),
        ..Report::default()
    };
    if skipped.is_empty() {
        return Ok(report);
    }
    let folder = top.display().to_string();
    match harness {
        Harness::Claude => {
            let mut state = read_json(&path)?;
            let project = claude_project(&mut state, &path, &folder)?;
            project.insert("hasTrustDialogAccepted".into(), json!(true));
            let approved = project
                .entry("enabledMcpjsonServers")
                .or_insert_with(|| json!([]));
            match approved.as_array_mut() {
                Some(list) if !list.iter().any(|n| n == mcp::NAME) => list.push(json!(mcp::NAME)),
                Some(_) => {}
                None => *approved = json!([mcp::NAME]),
            }
            write_json(&path, &state)?;
        }
        Harness::Codex => {
            let mut text = read_text(&path)?.unwrap_or_default();
            for s in skipped {
                text = match &s.entry {
                    Entry::CodexProject => set_toml(
                        &text,
                        &format!("[projects.{}]", quoted(&folder)),
                        "trust_level",
                        "\"trusted\"",
                    ),
                    Entry::CodexHook { key, hash } => set_toml(
                        &text,
                        &format!("[hooks.state.{}]", quoted(key)),
                        "trusted_hash",
                        &quoted(hash),
                    ),
                    _ => text,
                };
            }
            toml::from_str::<toml::Table>(&text)
                .map_err(|e| not_an_object(&path, &e.to_string()))?;
            write_text(&path, &text)?;
        }
        Harness::Gemini => {
            let mut folders = read_json(&path)?;
            let Some(map) = folders.as_object_mut() else {
                return Err(not_an_object(&path, "the top level is not an object"));
            };
            map.insert(folder, json!("TRUST_FOLDER"));
            write_json(&path, &folders)?;
        }
    }
    report.drift = skipped.iter().map(|s| s.what.clone()).collect();
    Ok(report)
}

/// `projects.<folder>` of Claude Code's `~/.claude.json`, made when missing.
fn claude_project<'v>(
    state: &'v mut Value,
    path: &Path,
    folder: &str,
) -> Result<&'v mut serde_json::Map<String, Value>, SetupError> {
    state
        .as_object_mut()
        .ok_or_else(|| not_an_object(path, "the top level is not an object"))?
        .entry("projects")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_an_object(path, "\"projects\" is not an object"))?
        .entry(folder)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_an_object(path, "a project is not an object"))
}

fn claude_skipped(
    consent: &Path,
    top: &Path,
    dir: &Path,
    global: bool,
) -> Result<Vec<Skipped>, SetupError> {
    // A server of the user's own (~/.claude.json) needs no approval.
    let servers = read_json(&mcp::servers_file(Harness::Claude, dir, global))?;
    if global || servers["mcpServers"].get(mcp::NAME).is_none() {
        return Ok(Vec::new());
    }
    let state = read_json(consent)?;
    let project = &state["projects"][top.display().to_string()];
    let listed = |key: &str| {
        project[key]
            .as_array()
            .is_some_and(|l| l.iter().any(|n| n == mcp::NAME))
    };
    let approved = project["hasTrustDialogAccepted"] == true
        && (listed("enabledMcpjsonServers") || project["enableAllProjectMcpServers"] == true);
    Ok(match approved || listed("disabledMcpjsonServers") {
        true => Vec::new(),
        false => vec![Skipped {
            what: format!(
                "the MCP server {} in .mcp.json (pending approval in {})",
                mcp::NAME,
                consent.display()
            ),
            entry: Entry::ClaudeServer,
        }],
    })
}

fn codex_skipped(
    consent: &Path,
    top: &Path,
    hooks_file: &Path,
    global: bool,
) -> Result<Vec<Skipped>, SetupError> {
    let config: toml::Table = match read_text(consent)? {
        Some(text) => toml::from_str(&text).map_err(|e| not_an_object(consent, &e.to_string()))?,
        None => toml::Table::new(),
    };
    let mut out = Vec::new();
    let folder = top.display().to_string();
    let trusted = config
        .get("projects")
        .and_then(|p| p.get(&folder))
        .and_then(|p| p.get("trust_level"))
        .and_then(toml::Value::as_str)
        == Some("trusted");
    if !global && !trusted {
        out.push(Skipped {
            what: format!(
                "everything in .codex/ (the project is not trusted in {})",
                consent.display()
            ),
            entry: Entry::CodexProject,
        });
    }
    let states = config.get("hooks").and_then(|h| h.get("state"));
    for (key, hash, command) in codex_hooks(hooks_file)? {
        let current = states
            .and_then(|s| s.get(&key))
            .and_then(|s| s.get("trusted_hash"))
            .and_then(toml::Value::as_str);
        if current != Some(hash.as_str()) {
            out.push(Skipped {
                what: format!("the hook {command} (its hash is not trusted)"),
                entry: Entry::CodexHook { key, hash },
            });
        }
    }
    Ok(out)
}

/// git-beads' hooks in Codex's `hooks.json` at `path`: the key Codex trusts each under
/// (the file, the event in snake case, the group's and the handler's places), the hash
/// it trusts, and the command.
fn codex_hooks(path: &Path) -> Result<Vec<(String, String, String)>, SetupError> {
    let settings = read_json(path)?;
    let mut out = Vec::new();
    let Some(events) = settings["hooks"].as_object() else {
        return Ok(out);
    };
    for (event, groups) in events {
        let snake = snake_case(event);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group["matcher"].as_str();
            for (h, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                let Some(command) = handler["command"].as_str() else {
                    continue;
                };
                if !command.starts_with(super::harness::OURS) {
                    continue;
                }
                let key = format!("{}:{snake}:{g}:{h}", path.display());
                out.push((
                    key,
                    codex_hash(&snake, matcher, command),
                    command.to_owned(),
                ));
            }
        }
    }
    Ok(out)
}

/// The hash Codex trusts a command hook by: SHA-256 of the hook's normalized identity
/// (the event, the group's matcher, the handler with its timeout, not async), as JSON
/// with sorted keys and no spaces. The timeout is Codex's default, 600 seconds, but a
/// SessionEnd hook's is cut to 1 second.
fn codex_hash(event: &str, matcher: Option<&str>, command: &str) -> String {
    let timeout = if event == "session_end" { 1 } else { 600 };
    let handler =
        json!({"async": false, "command": command, "timeout": timeout, "type": "command"});
    let mut identity = json!({"event_name": event, "hooks": [handler]});
    if let Some(m) = matcher {
        identity["matcher"] = json!(m);
    }
    let digest = Sha256::digest(sorted(&identity).to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `value` with every object's keys in order, whatever order serde_json keeps.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `SessionStart` → `session_start`, as Codex names events in its keys.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// A TOML basic string (JSON's escapes are TOML's).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `text` with `key = value` set in the table `header`, edited as lines so the rest
/// of the file (comments, order) stays as it is; the table is added at the end when
/// there is none.
fn set_toml(text: &str, header: &str, key: &str, value: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let setting = format!("{key} = {value}");
    match lines.iter().position(|l| l.trim() == header) {
        Some(start) => {
            let end = (lines[start + 1..].iter())
                .position(|l| l.trim_start().starts_with('['))
                .map_or(lines.len(), |n| start + 1 + n);
            let at = (start + 1..end).find(|&n| {
                lines[n]
                    .split_once('=')
                    .is_some_and(|(k, _)| k.trim() == key)
            });
            match at {
                Some(n) => lines[n] = setting,
                None => lines.insert(start + 1, setting),
            }
        }
        None => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.push(header.to_owned());
            lines.push(setting);
        }
    }
    lines.join("\n") + "\n"
}

fn gemini_skipped(
    consent: &Path,
    files: &UserFiles,
    top: &Path,
) -> Result<Vec<Skipped>, SetupError> {
    let user = read_json(&files.home.join(".gemini").join("settings.json"))?;
    if user["security"]["folderTrust"]["enabled"] == false {
        return Ok(Vec::new());
    }
    let folders = read_json(consent)?;
    // The longest trusted (or distrusted) folder that holds `top` decides.
    let mut verdict: Option<(usize, bool)> = None;
    for (path, level) in folders.as_object().into_iter().flatten() {
        let level = level.as_str().unwrap_or_default();
        let path = Path::new(path);
        let folder = match level {
            "TRUST_PARENT" => path.parent().unwrap_or(path),
            _ => path,
        };
        let depth = folder.components().count();
        if top.starts_with(folder) && verdict.is_none_or(|(d, _)| depth >= d) {
            verdict = Some((depth, level != "DO_NOT_TRUST"));
        }
    }
    Ok(match verdict {
        Some((_, true)) => Vec::new(),
        _ => vec![Skipped {
            what: format!(
                "the hooks and MCP servers of .gemini/settings.json (the folder is not \
                 trusted in {})",
                consent.display()
            ),
            entry: Entry::GeminiFolder,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codex_hash_is_the_one_codex_computes() {
        // Hashes Codex 0.171 listed (`hooks/list`) for these hooks.
        assert_eq!(
            codex_hash(
                "pre_tool_use",
                None,
                "git beads session guard --hook-input=codex"
            ),
            "sha256:9fb38aea8664e2d5e63d3f19d97c657ae74815b5df3863715e9182c0df45c82c"
        );
        assert_eq!(
            codex_hash(
                "session_start",
                Some("startup|resume|clear"),
                "git beads session start --hook-input=codex"
            ),
            "sha256:1dc25bea5e75c093c23d96fe0349ec1d9bceaee333462a62325ad40bedc965f4"
        );
        assert_eq!(
            codex_hash(
                "session_end",
                None,
                "git beads session end --hook-input=codex"
            ),
            "sha256:cc32dde02424e608b442e971386ec28caf178d6bfa41bc2be3577769ac8641e4"
        );
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
    }

    #[test]
    fn a_toml_key_is_set_in_its_table_and_nothing_else_moves() {
        let text = "# mine\nmodel = \"o3\"\n\n[projects.\"/a\"]\ntrust_level = \"untrusted\"\n\n[x]\ny = 1\n";
        let set = set_toml(text, "[projects.\"/a\"]", "trust_level", "\"trusted\"");
        assert_eq!(set, text.replace("\"untrusted\"", "\"trusted\""));
        let added = set_toml(&set, "[hooks.state.\"k\"]", "trusted_hash", "\"h\"");
        assert_eq!(
            added,
            format!("{set}\n[hooks.state.\"k\"]\ntrusted_hash = \"h\"\n")
        );
        assert!(toml::from_str::<toml::Table>(&added).is_ok());
    }
}
