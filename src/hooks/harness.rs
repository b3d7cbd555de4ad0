//! Agent harnesses: which of their hook events run which `git beads session` verb,
//! how each harness wants to be answered, and the settings files that wire them
//! (merged with what is there, checked, and removed again without touching the
//! user's own hooks).
//!
//! - Claude Code, `.claude/settings.json`: SessionStart starts (or, after a
//!   compaction, continues) the session and primes it; UserPromptSubmit and
//!   PreToolUse hold a session over budget (and bring new mail); Stop and SubagentStop
//!   record the turn from the transcript; PreCompact folds the turns into the store;
//!   SessionEnd ends the session.
//! - Codex CLI, `.codex/hooks.json` (with `hooks = true` under `[features]` in
//!   `.codex/config.toml`): the same events; Codex runs them only once their hashes
//!   are trusted in the user's config (see [`super::trust`]).
//! - Gemini CLI, `.gemini/settings.json`: SessionStart, BeforeAgent, BeforeTool,
//!   AfterAgent, PreCompress and SessionEnd.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A harness git-beads wires itself into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Harness {
    /// Claude Code.
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
}

/// One hook: a harness event, the matcher its group needs (if any), and the
/// `git beads session` verb it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The harness' event.
    pub event: &'static str,
    /// The matcher of its group (tool events match tool names).
    pub matcher: Option<&'static str>,
    /// The `git beads session` verb.
    pub verb: &'static str,
}

const fn hook(event: &'static str, matcher: Option<&'static str>, verb: &'static str) -> Hook {
    Hook {
        event,
        matcher,
        verb,
    }
}

const CLAUDE: &[Hook] = &[
    hook("SessionStart", None, "start"),
    hook("UserPromptSubmit", None, "prompt"),
    hook("PreToolUse", Some("*"), "guard"),
    hook("Stop", None, "heartbeat"),
    hook("SubagentStop", None, "heartbeat"),
    hook("PreCompact", None, "flush"),
    hook("SessionEnd", None, "end"),
];

/// Codex starts a session on `startup`, `resume`, `clear`, after a compaction
/// (`compact`, so the session is primed again) and on a `fork`.
const CODEX: &[Hook] = &[
    hook(
        "SessionStart",
        Some("startup|resume|clear|compact|fork"),
        "start",
    ),
    hook("UserPromptSubmit", None, "prompt"),
    hook("PreToolUse", None, "guard"),
    hook("Stop", None, "heartbeat"),
    hook("SubagentStop", None, "heartbeat"),
    hook("PreCompact", Some("manual|auto"), "flush"),
    hook("SessionEnd", None, "end"),
];

const GEMINI: &[Hook] = &[
    hook("SessionStart", None, "start"),
    hook("BeforeAgent", None, "prompt"),
    hook("BeforeTool", None, "guard"),
    hook("AfterAgent", None, "heartbeat"),
    hook("PreCompress", None, "flush"),
    hook("SessionEnd", None, "end"),
];

/// The start of every command git-beads writes into a harness' settings: how its own
/// hooks are told from the user's.
pub(super) const OURS: &str = "git beads session ";

impl Harness {
    /// Its name, as `setup` and `--hook-input=` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
        }
    }

    /// The hooks it gets.
    pub fn hooks(self) -> &'static [Hook] {
        match self {
            Harness::Claude => CLAUDE,
            Harness::Codex => CODEX,
            Harness::Gemini => GEMINI,
        }
    }

    /// The command a hook runs in this harness (Claude Code's protocol is the default).
    pub fn command(self, h: &Hook) -> String {
        match self {
            Harness::Claude => format!("{OURS}{} --hook-input", h.verb),
            other => format!("{OURS}{} --hook-input={}", h.verb, other.name()),
        }
    }

    /// Its hooks file under `dir` (a worktree's top, or the user's config directory
    /// for this harness with `global`).
    pub fn settings_file(self, dir: &Path, global: bool) -> PathBuf {
        let (sub, file) = match self {
            Harness::Claude => (".claude", "settings.json"),
            Harness::Codex => (".codex", "hooks.json"),
            Harness::Gemini => (".gemini", "settings.json"),
        };
        if global && self == Harness::Codex {
            return dir.join(file);
        }
        dir.join(sub).join(file)
    }

    /// The answer to a tool call that must not run.
    pub fn deny_tool(self, reason: &str) -> Value {
        match self {
            Harness::Gemini => json!({"decision": "deny", "reason": reason}),
            _ => json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            }),
        }
    }

    /// The answer to a prompt that must not be taken.
    pub fn block_prompt(self, reason: &str) -> Value {
        match self {
            Harness::Gemini => json!({"decision": "deny", "reason": reason}),
            _ => json!({"decision": "block", "reason": reason}),
        }
    }

    /// The answer that adds `text` to the context of a new prompt.
    pub fn prompt_context(self, text: &str) -> Value {
        let event = match self {
            Harness::Gemini => "BeforeAgent",
            _ => "UserPromptSubmit",
        };
        json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})
    }

    /// The answer that gives a starting session `text` as context; `None` where the
    /// harness takes plain text on stdout (Claude Code).
    pub fn start_context(self, text: &str) -> Option<Value> {
        (self != Harness::Claude).then(|| {
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
        })
    }
}

/// What `setup` is to do with a harness' settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Add what is missing and drop git-beads hooks no longer wired.
    Install,
    /// Change nothing; report what differs.
    Check,
    /// Remove git-beads' hooks only.
    Remove,
}

/// What `setup` did to, or found in, one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The file.
    pub path: PathBuf,
    /// Hooks (or sections, lines) added.
    pub added: usize,
    /// git-beads hooks removed.
    pub removed: usize,
    /// What differs from what setup writes, in words (for `--check`).
    pub drift: Vec<String>,
}

/// What went wrong writing the settings.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The settings file could not be read or written.
    #[error(transparent)]
    Io(#[from] super::FileError),
    /// The existing settings are not a JSON object.
    #[error("{path} is not a JSON object ({reason}); fix it by hand first, nothing was changed")]
    NotAnObject {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The refusal of settings file `path`, which is not the JSON object it must be.
pub(super) fn not_an_object(path: &Path, reason: &str) -> SetupError {
    SetupError::NotAnObject {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

/// The JSON settings in `path` (an empty object when there are none yet).
pub(super) fn read_json(path: &Path) -> Result<Value, SetupError> {
    Ok(match read_text(path)? {
        Some(text) if !text.trim().is_empty() => {
            serde_json::from_str(&text).map_err(|e| not_an_object(path, &e.to_string()))?
        }
        _ => json!({}),
    })
}

/// Writes JSON settings to `path`, pretty-printed as the harnesses write them. Settings
/// left empty (`{}`, once `setup --remove` took git-beads' part out) remove the file
/// instead, and its directory when that is a harness' own (`.claude/`) and empty.
pub(super) fn write_json(path: &Path, settings: &Value) -> Result<(), SetupError> {
    if settings.as_object().is_some_and(|o| o.is_empty()) {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(super::FileError::on("remove", path)(source).into()),
        }
        if let Some(dir) = path.parent()
            && dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            // Only an empty directory goes; one holding anything else stays.
            let _ = std::fs::remove_dir(dir);
        }
        return Ok(());
    }
    let mut text = serde_json::to_string_pretty(settings).unwrap_or_default();
    text.push('\n');
    write_text(path, &text)
}

pub(super) fn read_text(path: &Path) -> Result<Option<String>, SetupError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(super::FileError::on("read", path)(source).into()),
    }
}

pub(super) fn write_text(path: &Path, text: &str) -> Result<(), SetupError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(super::FileError::on("create", dir))?;
    }
    crate::ops::replace_file(path, text.as_bytes(), false)
        .map_err(super::FileError::on("write", path))?;
    Ok(())
}

/// Wires `harness`' hooks into its settings file `path` as `mode` says, keeping
/// everything that is not git-beads'.
pub fn apply(harness: Harness, path: &Path, mode: Mode) -> Result<Report, SetupError> {
    let not_object = |reason: &str| not_an_object(path, reason);
    let mut settings = read_json(path)?;
    let hooks = settings
        .as_object_mut()
        .ok_or_else(|| not_object("the top level is not an object"))?
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_object("\"hooks\" is not an object"))?;
    // A hook is git-beads' current one when its event, command and group matcher are.
    let wanted: Vec<(&str, String, Option<&str>)> = match mode {
        Mode::Remove => Vec::new(),
        _ => harness
            .hooks()
            .iter()
            .map(|h| (h.event, harness.command(h), h.matcher))
            .collect(),
    };
    let mut report = Report {
        path: path.to_owned(),
        ..Report::default()
    };
    // Drop git-beads hooks that are not wanted (older variants, or all on remove).
    for (event, list) in hooks.iter_mut() {
        let Some(groups) = list.as_array_mut() else {
            return Err(not_object("a hook event is not a list"));
        };
        for group in groups.iter_mut() {
            let matcher = group["matcher"].as_str().map(str::to_owned);
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            handlers.retain(|h| {
                let cmd = h["command"].as_str().unwrap_or_default();
                let stale = cmd.starts_with(OURS)
                    && !wanted
                        .iter()
                        .any(|(e, c, m)| e == event && c == cmd && *m == matcher.as_deref());
                if stale {
                    report.removed += 1;
                    report
                        .drift
                        .push(format!("{event}: {cmd} (not wired by setup)"));
                }
                !stale
            });
        }
        groups.retain(|g| g["hooks"].as_array().is_none_or(|h| !h.is_empty()));
    }
    hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    for h in harness.hooks().iter().filter(|_| mode != Mode::Remove) {
        let command = harness.command(h);
        let list = hooks
            .entry(h.event)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .ok_or_else(|| not_object("a hook event is not a list"))?;
        let present = list.iter().any(|group| {
            group["matcher"].as_str() == h.matcher
                && group["hooks"]
                    .as_array()
                    .is_some_and(|hs| hs.iter().any(|x| x["command"] == command.as_str()))
        });
        if present {
            continue;
        }
        report.added += 1;
        report
            .drift
            .push(format!("{}: {command} (missing)", h.event));
        let mut handler = json!({"type": "command", "command": command});
        if harness == Harness::Gemini {
            handler["name"] = json!(format!("git-beads-{}", h.verb));
        }
        let mut group = json!({"hooks": [handler]});
        if let Some(m) = h.matcher {
            group["matcher"] = json!(m);
        }
        list.push(group);
    }
    if settings["hooks"].as_object().is_some_and(|h| h.is_empty())
        && let Some(top) = settings.as_object_mut()
    {
        top.remove("hooks");
    }
    if mode != Mode::Check && report.added + report.removed > 0 {
        write_json(path, &settings)?;
    }
    Ok(report)
}

/// Codex runs hooks only with this feature on, in `config.toml` (on by default in
/// current versions, which still honour `false`).
const CODEX_FEATURE: &str = "hooks = true";

/// The feature's old name: Codex still reads it, with a deprecation notice on every run.
const CODEX_OLD_FEATURE: &str = "codex_hooks";

/// Turns Codex's hooks feature on in its `config.toml` at `path`, replacing the
/// deprecated `codex_hooks` (or, with [`Mode::Check`], reports that it is off or
/// spelled the old way). Removing leaves the file alone: other hooks may need the
/// feature.
pub fn codex_feature(path: &Path, mode: Mode) -> Result<Report, SetupError> {
    let text = read_text(path)?.unwrap_or_default();
    let mut report = Report {
        path: path.to_owned(),
        ..Report::default()
    };
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut in_features = false;
    let mut features_at = None;
    let mut on = false;
    let mut old = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_features = line == "[features]";
            if in_features {
                features_at = Some(n);
            }
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        match (in_features, key.trim()) {
            (true, "hooks") if value.trim() == "true" => on = true,
            (true, "hooks") => report.drift.push(format!("{line} under [features]")),
            (true, CODEX_OLD_FEATURE) => {
                report.drift.push(format!(
                    "{line} under [features] (deprecated: Codex reads `hooks`)"
                ));
                old.push(n);
            }
            _ => {}
        }
    }
    if mode == Mode::Remove || (on && old.is_empty()) {
        report.drift.clear();
        return Ok(report);
    }
    report.removed = old.len();
    if !on {
        report.added = 1;
        report
            .drift
            .push(format!("{CODEX_FEATURE} under [features] (missing)"));
    }
    if mode == Mode::Check {
        return Ok(report);
    }
    for n in old.iter().rev() {
        lines.remove(*n);
    }
    if !on {
        match features_at {
            Some(n) => lines.insert(n + 1, CODEX_FEATURE.to_owned()),
            None => {
                if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                    lines.push(String::new());
                }
                lines.push("[features]".to_owned());
                lines.push(CODEX_FEATURE.to_owned());
            }
        }
    }
    write_text(path, &(lines.join("\n") + "\n"))?;
    Ok(report)
}

/// The first and last lines of git-beads' section in an instructions file.
const BEGIN: &str = "<!-- git-beads: begin (written by `git beads setup agents-md`) -->";
const END: &str = "<!-- git-beads: end -->";

/// What an agent without harness hooks is told to do itself: every command here runs
/// as written (tests/harnesses.rs runs them in order).
const SECTION: &str = "\
## Work tracking: git beads

This repository keeps its work items, agents, sessions and mail in git (`git beads`).

- Start your session first: `git beads session start --agent NAME`, where NAME is the
  agent you work as (`git beads agent create NAME` makes one; `git beads agent bind NAME`
  makes it this worktree's, and then `git beads session start` is enough). It prints who
  you are, the work on your hook and your mail: follow it. After the context was
  compacted, run `git beads prime` for the same again.
- Take work with `git beads ready --claim`; close it with `git beads close ID`.
- After each turn, report what it cost: `git beads session usage --turn --tokens N
  --spend USD --tool-calls N`. A report over budget fails: stop then.
- When your context is large or a turn costs a lot, hand off:
  `git beads handoff -m NOTE` ends the session and leaves the work and the note for a
  fresh one.
- When you are done, end the session: `git beads session end`.
- Where the harness' sandbox makes `.git` read-only (Codex's default `workspace-write`
  sandbox does), `git beads` cannot write there: run its commands with the harness'
  leave to run outside the sandbox (Codex asks for approval to run a command with
  escalated permissions); if that is not allowed, tell the user that git beads needs
  write access to the git directory (`git rev-parse --git-common-dir`), and go on
  without recording rather than around it.
";

/// Writes, checks or removes git-beads' marked section in the instructions file at
/// `path` (AGENTS.md, CLAUDE.md, GEMINI.md), leaving the rest of it as it is.
pub fn instructions(path: &Path, mode: Mode) -> Result<Report, SetupError> {
    let text = read_text(path)?.unwrap_or_default();
    let mut report = Report {
        path: path.to_owned(),
        ..Report::default()
    };
    let wanted = format!("{BEGIN}\n{SECTION}{END}\n");
    let (before, current, after) = match (text.find(BEGIN), text.find(END)) {
        (Some(b), Some(e)) if e > b => {
            let end = text[e..].find('\n').map_or(text.len(), |n| e + n + 1);
            (&text[..b], Some(&text[b..end]), &text[end..])
        }
        _ => (text.as_str(), None, ""),
    };
    let new = match (mode, current) {
        (Mode::Remove, None) => return Ok(report),
        (Mode::Remove, Some(_)) => {
            report.removed = 1;
            let kept = before.trim_end_matches('\n');
            match (kept, after) {
                ("", "") => String::new(),
                (kept, "") => format!("{kept}\n"),
                _ => format!("{before}{after}"),
            }
        }
        (_, Some(c)) if c == wanted => return Ok(report),
        (_, Some(_)) => {
            report.drift.push("the git-beads section differs".into());
            report.added = 1;
            report.removed = 1;
            format!("{before}{wanted}{after}")
        }
        (_, None) => {
            report.drift.push("the git-beads section is missing".into());
            report.added = 1;
            let sep = match before {
                "" => "",
                b if b.ends_with("\n\n") => "",
                b if b.ends_with('\n') => "\n",
                _ => "\n\n",
            };
            format!("{before}{sep}{wanted}")
        }
    };
    match mode {
        Mode::Check => {}
        Mode::Remove if new.is_empty() => {
            std::fs::remove_file(path).map_err(super::FileError::on("remove", path))?;
        }
        _ => write_text(path, &new)?,
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_checks_and_removes_only_its_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = Harness::Claude.settings_file(dir.path(), false);
        write_text(
            &path,
            r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine"},{"type":"command","command":"git beads session old --hook-input"}]}]}}"#,
        )
        .expect("write");
        let r = apply(Harness::Claude, &path, Mode::Install).expect("installs");
        assert_eq!((r.added, r.removed), (CLAUDE.len(), 1));
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["model"], "opus");
        assert_eq!(v["hooks"]["Stop"].as_array().map(Vec::len), Some(2));
        let again = apply(Harness::Claude, &path, Mode::Check).expect("checks");
        assert!(again.drift.is_empty(), "{again:?}");
        apply(Harness::Claude, &path, Mode::Remove).expect("removes");
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(
            v,
            json!({"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine"}]}]}})
        );
        write_text(&path, "[1]").expect("write");
        assert!(apply(Harness::Claude, &path, Mode::Install).is_err());
    }

    #[test]
    fn codex_feature_is_added_once_under_features() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("config.toml");
        write_text(&path, "model = \"o3\"\n\n[features]\nweb = true\n").expect("write");
        assert_eq!(codex_feature(&path, Mode::Install).expect("adds").added, 1);
        assert_eq!(codex_feature(&path, Mode::Install).expect("again").added, 0);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "model = \"o3\"\n\n[features]\nhooks = true\nweb = true\n"
        );
        // The deprecated name is replaced by the current one.
        write_text(&path, "[features]\ncodex_hooks = true\n").expect("write");
        assert_eq!(
            codex_feature(&path, Mode::Check).expect("checks").removed,
            1
        );
        let r = codex_feature(&path, Mode::Install).expect("renames");
        assert_eq!((r.added, r.removed), (1, 1));
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "[features]\nhooks = true\n"
        );
    }

    #[test]
    fn the_instructions_section_is_marked_and_removable() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("AGENTS.md");
        write_text(&path, "# Project\n\nBe nice.\n").expect("write");
        instructions(&path, Mode::Install).expect("adds");
        let once = std::fs::read_to_string(&path).expect("read");
        assert!(
            once.starts_with("# Project\n\nBe nice.\n\n<!-- git-beads: begin"),
            "{once}"
        );
        instructions(&path, Mode::Install).expect("again");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), once);
        assert!(
            instructions(&path, Mode::Check)
                .expect("checks")
                .drift
                .is_empty()
        );
        instructions(&path, Mode::Remove).expect("removes");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "# Project\n\nBe nice.\n"
        );
    }
}
