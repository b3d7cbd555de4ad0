//! Sessions that know what they spent: Claude Code's hooks fed the JSON its hook
//! reference documents, with transcripts in its JSONL format, record one ledger line
//! per turn locally (no store commit per turn), price it, notice model swaps, survive
//! a transcript that shrinks, and hold a session over budget at its next tool call.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Repo, Sandbox};
use serde_json::{Value, json};

/// The sessions of a `session list --json` answer.
fn sessions(v: &Value) -> &Vec<Value> {
    v.as_array().expect("a list of sessions")
}

/// A Claude Code transcript: one JSON object per line.
struct Transcript {
    path: PathBuf,
    lines: Vec<Value>,
}

impl Transcript {
    fn new(dir: &Path) -> Transcript {
        Transcript {
            path: dir.join("transcript.jsonl"),
            lines: Vec::new(),
        }
    }

    fn user(&mut self, text: &str) -> &mut Self {
        let n = self.lines.len();
        self.lines.push(json!({
            "type": "user", "uuid": format!("u-{n}"), "sessionId": "abc-123",
            "message": {"role": "user", "content": text},
        }));
        self
    }

    /// One assistant message written as `blocks` lines sharing its id (as Claude Code
    /// writes a streamed message), each repeating its usage; `tools` tool_use blocks.
    fn assistant(
        &mut self,
        id: &str,
        model: &str,
        [input, output, cache_write, cache_read]: [u64; 4],
        tools: usize,
    ) -> &mut Self {
        let mut content = vec![json!({"type": "text", "text": "Working on it."})];
        content.extend((0..tools).map(|t| {
            json!({"type": "tool_use", "id": format!("toolu_{id}_{t}"), "name": "Bash",
                   "input": {"command": "ls"}})
        }));
        for (n, block) in content.into_iter().enumerate() {
            self.lines.push(json!({
                "type": "assistant", "uuid": format!("{id}-{n}"), "requestId": format!("req_{id}"),
                "sessionId": "abc-123",
                "message": {
                    "id": id, "type": "message", "role": "assistant", "model": model,
                    "content": [block],
                    "usage": {
                        "input_tokens": input, "output_tokens": output,
                        "cache_creation_input_tokens": cache_write,
                        "cache_read_input_tokens": cache_read,
                    },
                },
            }));
        }
        self
    }

    fn write(&self) {
        let text: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&self.path, text).expect("write the transcript");
    }
}

/// Runs `git beads ARGS` as the Claude Code hook `event`, fed the hook's JSON; returns
/// stdout.
fn hook(repo: &Repo, event: &str, transcript: &Path, extra: Value, args: &[&str]) -> String {
    let mut input = json!({
        "session_id": "abc-123",
        "transcript_path": transcript,
        "cwd": repo.path,
        "hook_event_name": event,
    });
    if let (Some(i), Some(e)) = (input.as_object_mut(), extra.as_object()) {
        i.extend(e.clone());
    }
    let out = common::feed(
        &mut repo.beads_command(&[], args),
        input.to_string().as_bytes(),
    );
    common::expect_success(format_args!("{event}: git beads {args:?}"), &out)
}

fn stop(repo: &Repo, t: &Transcript) -> String {
    hook(
        repo,
        "Stop",
        &t.path,
        json!({"stop_hook_active": false}),
        &["session", "heartbeat", "--hook-input"],
    )
}

fn guard(repo: &Repo, t: &Transcript) -> String {
    hook(
        repo,
        "PreToolUse",
        &t.path,
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        &["session", "guard", "--hook-input"],
    )
}

fn prompt(repo: &Repo, t: &Transcript) -> String {
    hook(
        repo,
        "UserPromptSubmit",
        &t.path,
        json!({"prompt": "go on"}),
        &["session", "prompt", "--hook-input"],
    )
}

/// A store with agent claude1 bound (with `extra` for `agent create`) and a session
/// started by Claude Code's SessionStart hook; returns its id.
fn started(extra: &[&str]) -> (Sandbox, Repo, Transcript, String) {
    let (sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("claude1", extra);
    let t = Transcript::new(sb.path());
    t.write();
    hook(
        &repo,
        "SessionStart",
        &t.path,
        json!({"source": "startup"}),
        &["session", "start", "--hook-input"],
    );
    let id = sessions(&repo.beads_json(&["session", "list"]))[0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    (sb, repo, t, id)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn turns_from_the_transcript_are_ledger_lines_with_spend_and_swaps_and_no_commit_each() {
    let (_sb, repo, mut t, id) = started(&[]);
    let commits = repo.commit_count("refs/beads/main");

    t.user("fix the bug")
        .assistant(
            "msg_1",
            "claude-opus-4-5-20251101",
            [10, 200, 1000, 5000],
            2,
        )
        .assistant("msg_2", "claude-opus-4-5-20251101", [5, 50, 0, 6000], 0);
    t.write();
    stop(&repo, &t);
    t.user("and the test")
        .assistant("msg_3", "claude-sonnet-4-5-20250929", [20, 100, 0, 6000], 1);
    t.write();
    stop(&repo, &t);
    stop(&repo, &t);
    t.user("only a prompt, no answer yet");
    t.write();
    stop(&repo, &t);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        commits,
        "no store commit per turn"
    );

    let s = repo.beads_json(&["session", "show", &id]);
    let ledger = s["ledger"].as_array().expect("ledger");
    assert_eq!(
        ledger.len(),
        2,
        "one line per turn, none for a turn with nothing new: {s}"
    );
    assert_eq!(ledger[0]["model"], "claude-opus-4-5-20251101");
    assert_eq!(
        ledger[0]["by_kind"],
        json!({"input": 15, "output": 250, "cache_write": 1000, "cache_read": 11000})
    );
    assert_eq!(ledger[0]["tokens"], 12265);
    assert_eq!(ledger[0]["tool_calls"], 2, "a message's lines count once");
    let first = (15.0 * 5.0 + 250.0 * 25.0 + 1000.0 * 6.25 + 11000.0 * 0.5) / 1e6;
    assert!(
        close(ledger[0]["spend"].as_f64().expect("spend"), first),
        "{s}"
    );
    let second = (20.0 * 3.0 + 100.0 * 15.0 + 6000.0 * 0.3) / 1e6;
    assert!(
        close(ledger[1]["spend"].as_f64().expect("spend"), second),
        "{s}"
    );
    assert_eq!(s["model"], "claude-sonnet-4-5-20250929");
    assert_eq!(
        s["models"]
            .as_array()
            .map(|m| (m.len(), m[0]["from"].clone(), m[0]["to"].clone())),
        Some((
            1,
            "claude-opus-4-5-20251101".into(),
            "claude-sonnet-4-5-20250929".into()
        )),
        "the model change is a swap: {s}"
    );
    assert_eq!(s["usage"]["turns"], 2);
    assert_eq!(s["usage"]["tokens"], 12265 + 6120);
    assert_eq!(s["usage"]["tool_calls"], 3);
    assert!(close(
        s["usage"]["spend"].as_f64().expect("spend"),
        first + second
    ));

    // Compaction rewrites the transcript shorter: the summary and what follows. A
    // message counted before is not counted again.
    let mut compacted = Transcript::new(t.path.parent().expect("dir"));
    compacted
        .user("This session is being continued from a previous conversation…")
        .assistant("msg_3", "claude-sonnet-4-5-20250929", [20, 100, 0, 6000], 1)
        .assistant("msg_4", "claude-mystery-9", [100, 10, 0, 0], 0);
    compacted.write();
    hook(
        &repo,
        "PreCompact",
        &t.path,
        json!({"trigger": "auto", "custom_instructions": ""}),
        &["session", "flush", "--hook-input"],
    );
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        commits + 1,
        "compaction folds the turns into the store, in one commit"
    );
    let primed = hook(
        &repo,
        "SessionStart",
        &t.path,
        json!({"source": "compact"}),
        &["session", "start", "--hook-input"],
    );
    assert!(primed.contains("you are agent claude1"), "{primed}");
    assert_eq!(sessions(&repo.beads_json(&["session", "list"])).len(), 1);
    let commits = repo.commit_count("refs/beads/main");

    let s = repo.beads_json(&["session", "show", &id]);
    let ledger = s["ledger"].as_array().expect("ledger");
    assert_eq!(ledger.len(), 3, "{s}");
    assert_eq!(ledger[2]["tokens"], 110, "only the new message counts: {s}");
    assert_eq!(ledger[2]["unpriced"], true, "a model without a price: {s}");
    assert_eq!(s["usage"]["unpriced_turns"], 1);
    assert!(close(
        s["usage"]["spend"].as_f64().expect("spend"),
        first + second
    ));
    let shown = repo.beads(&["session", "show", &id]);
    assert!(shown.contains("spend unknown for 1 turn"), "{shown}");
    assert!(shown.contains("per turn"), "{shown}");

    hook(
        &repo,
        "SessionEnd",
        &t.path,
        json!({"reason": "other"}),
        &["session", "end", "--hook-input"],
    );
    assert_eq!(repo.commit_count("refs/beads/main"), commits + 1);
    let s = repo.beads_json(&["session", "show", &id]);
    assert_eq!(s["end"], "clean");
    assert_eq!(s["ledger"].as_array().map(Vec::len), Some(3));
}

#[test]
fn a_price_in_git_config_prices_a_model_the_defaults_do_not_know() {
    let (_sb, repo, mut t, id) = started(&[]);
    repo.git(&[
        "config",
        "--add",
        "beads.price",
        "claude-mystery 2 10 2.5 0.2",
    ]);
    t.assistant("msg_1", "claude-mystery-9", [1000, 100, 0, 0], 0);
    t.write();
    stop(&repo, &t);
    let s = repo.beads_json(&["session", "show", &id]);
    let line = &s["ledger"][0];
    assert!(
        close(line["spend"].as_f64().expect("spend"), 0.003),
        "{line}"
    );
    assert!(line.get("unpriced").is_none(), "{line}");
}

#[test]
fn turns_reach_the_store_once_per_ledger_interval() {
    let (_sb, repo, mut t, _id) = started(&[]);
    repo.git(&["config", "beads.ledgerInterval", "0s"]);
    let commits = repo.commit_count("refs/beads/main");
    t.assistant("msg_1", "claude-haiku-4-5-20251001", [10, 10, 0, 0], 0);
    t.write();
    stop(&repo, &t);
    stop(&repo, &t);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        commits + 1,
        "a due interval folds new turns in; nothing new, no commit"
    );
    let log = repo.beads(&["log"]);
    assert!(log.contains("session ledger"), "{log}");
}

#[test]
fn a_budget_crossed_mid_session_denies_the_next_tool_call_and_ends_the_session() {
    let (_sb, repo, mut t, id) = started(&["--budget", "tokens=5000"]);
    assert_eq!(guard(&repo, &t), "", "an allowed tool call prints nothing");
    t.assistant(
        "msg_1",
        "claude-sonnet-4-5-20250929",
        [100, 100, 0, 1000],
        1,
    );
    t.write();
    stop(&repo, &t);
    assert_eq!(guard(&repo, &t), "");
    let commits = repo.commit_count("refs/beads/main");
    t.assistant(
        "msg_2",
        "claude-sonnet-4-5-20250929",
        [100, 100, 0, 4000],
        1,
    );
    t.write();
    stop(&repo, &t);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        commits + 1,
        "the crossing folds the turns in and ends the session, in one commit"
    );
    let denied: Value = serde_json::from_str(&guard(&repo, &t)).expect("a JSON answer");
    let out = &denied["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    assert_eq!(out["permissionDecision"], "deny");
    let reason = out["permissionDecisionReason"].as_str().expect("reason");
    assert!(
        reason.contains("over budget") && reason.contains("hand off"),
        "{reason}"
    );
    let blocked: Value = serde_json::from_str(&prompt(&repo, &t)).expect("a JSON answer");
    assert_eq!(blocked["decision"], "block", "{blocked}");
    let s = repo.beads_json(&["session", "show", &id]);
    assert_eq!(s["end"], "budget");
    assert_eq!(s["usage"]["tokens"], 5400);
    assert_eq!(repo.commit_count("refs/beads/main"), commits + 1);
    hook(
        &repo,
        "SessionEnd",
        &t.path,
        json!({"reason": "other"}),
        &["session", "end", "--hook-input"],
    );
    let s = repo.beads_json(&["session", "show", &id]);
    assert_eq!(s["end"], "budget", "the end hook leaves it so");
}

#[test]
fn a_wall_time_ceiling_is_enforced_by_the_guard_itself() {
    let (_sb, repo, t, id) = started(&["--budget", "wall=1s"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let denied: Value = serde_json::from_str(&guard(&repo, &t)).expect("a JSON answer");
    assert_eq!(denied["hookSpecificOutput"]["permissionDecision"], "deny");
    let s = repo.beads_json(&["session", "show", &id]);
    assert_eq!(s["end"], "budget");
    let again: Value = serde_json::from_str(&guard(&repo, &t)).expect("a JSON answer");
    assert_eq!(again, denied, "still denied once ended");
}

#[test]
fn a_prompt_hears_new_mail_once_and_when_a_turn_cost_too_much() {
    let (_sb, repo, mut t, _id) = started(&[]);
    assert_eq!(prompt(&repo, &t), "", "nothing to say, nothing printed");
    repo.beads(&[
        "--as-person",
        "mail",
        "send",
        "claude1",
        "-s",
        "rebase first",
        "-m",
        "please",
    ]);
    let said: Value = serde_json::from_str(&prompt(&repo, &t)).expect("a JSON answer");
    let context = said["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context");
    assert_eq!(
        said["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert!(context.contains("rebase first"), "{context}");
    assert_eq!(prompt(&repo, &t), "", "each message is told once");
    repo.beads(&[
        "--as-person",
        "mail",
        "send",
        "claude1",
        "-s",
        "also this",
        "-m",
        "x",
    ]);
    let primed = repo.beads(&["prime"]);
    assert!(primed.contains("also this"), "{primed}");
    assert_eq!(prompt(&repo, &t), "", "what prime showed is not told again");

    repo.git(&["config", "beads.freshAfter", "1k"]);
    t.assistant("msg_1", "claude-opus-4-5-20251101", [10, 500, 0, 2000], 0);
    t.write();
    stop(&repo, &t);
    let said: Value = serde_json::from_str(&prompt(&repo, &t)).expect("a JSON answer");
    let context = said["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context");
    assert!(context.contains("beads.freshAfter"), "{context}");
    let primed = repo.beads(&["prime"]);
    assert!(primed.contains("beads.freshAfter"), "{primed}");
}

#[test]
fn setup_claude_wires_every_hook_once() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&["setup", "claude"]);
    let path = repo.path.join(".claude/settings.json");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON");
    for (event, verb) in [
        ("SessionStart", "start"),
        ("UserPromptSubmit", "prompt"),
        ("PreToolUse", "guard"),
        ("Stop", "heartbeat"),
        ("SubagentStop", "heartbeat"),
        ("PreCompact", "flush"),
        ("SessionEnd", "end"),
    ] {
        assert_eq!(
            v["hooks"][event][0]["hooks"][0]["command"],
            format!("git beads session {verb} --hook-input"),
            "{event}"
        );
    }
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "*");
    let before = std::fs::read_to_string(&path).expect("written");
    repo.beads(&["setup", "claude"]);
    assert_eq!(std::fs::read_to_string(&path).expect("written"), before);
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("written")).expect("JSON")
}

#[test]
fn setup_merges_checks_and_removes_the_hooks_of_every_harness() {
    let (sb, repo) = Sandbox::with_store();
    let gemini = repo.path.join(".gemini/settings.json");
    common::write_file(
        &gemini,
        r#"{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./mine.sh"}]}]}}"#,
    );
    repo.beads(&["setup", "gemini"]);
    let v = read_json(&gemini);
    assert_eq!(v["theme"], "dark");
    assert_eq!(
        v["hooks"]["BeforeTool"][1]["hooks"][0]["command"],
        "git beads session guard --hook-input=gemini"
    );
    for event in [
        "SessionStart",
        "BeforeAgent",
        "AfterAgent",
        "PreCompress",
        "SessionEnd",
    ] {
        assert!(v["hooks"][event].is_array(), "{event}: {v}");
    }
    repo.beads(&["setup", "gemini", "--check"]);
    let mut edited = v.clone();
    edited["hooks"]["AfterAgent"] = json!([]);
    common::write_file(&gemini, &edited.to_string());
    let (code, out, _) = repo.beads_fail_with_stdout(&["setup", "gemini", "--check"]);
    assert_eq!(code, 1);
    assert!(out.contains("AfterAgent"), "{out}");
    repo.beads(&["setup", "gemini"]);
    repo.beads(&["setup", "gemini", "--check"]);
    repo.beads(&["setup", "gemini", "--remove"]);
    assert_eq!(
        read_json(&gemini),
        json!({"theme":"dark","hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./mine.sh"}]}]}})
    );

    repo.beads(&["setup", "codex"]);
    let hooks = read_json(&repo.path.join(".codex/hooks.json"));
    assert_eq!(
        hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "git beads session guard --hook-input=codex"
    );
    assert_eq!(
        hooks["hooks"]["SessionStart"][0]["matcher"],
        "startup|resume|clear|compact|fork"
    );
    let config = std::fs::read_to_string(repo.path.join(".codex/config.toml")).expect("config");
    assert_eq!(
        config,
        "[features]\nhooks = true\n\n[mcp_servers.git-beads]\ncommand = \"git\"\nargs = [\"beads\", \"mcp\"]\n"
    );
    repo.beads(&["setup", "codex", "--check"]);

    common::write_file(&repo.path.join("AGENTS.md"), "# Rules\n\nBe kind.\n");
    repo.beads(&["setup", "agents-md"]);
    repo.beads(&["setup", "agents-md"]);
    let md = std::fs::read_to_string(repo.path.join("AGENTS.md")).expect("AGENTS.md");
    assert_eq!(md.matches("<!-- git-beads: begin").count(), 1, "{md}");
    assert!(md.contains("git beads prime"), "{md}");
    repo.beads(&["setup", "agents-md", "--check"]);
    repo.beads(&["setup", "agents-md", "--remove"]);
    assert_eq!(
        std::fs::read_to_string(repo.path.join("AGENTS.md")).expect("AGENTS.md"),
        "# Rules\n\nBe kind.\n"
    );

    repo.beads(&["setup", "claude", "--global"]);
    let global = read_json(&sb.path().join(".claude/settings.json"));
    assert!(global["hooks"]["PreToolUse"].is_array(), "{global}");
    assert!(!repo.path.join(".claude").exists());
}

#[test]
fn gemini_hooks_are_answered_in_gemini_protocol() {
    let (_sb, repo, mut t, _id) = started(&["--budget", "tokens=100"]);
    let primed = hook(
        &repo,
        "SessionStart",
        &t.path,
        json!({"source": "startup"}),
        &["session", "start", "--hook-input=gemini"],
    );
    let primed: Value = serde_json::from_str(&primed).expect("JSON only on stdout");
    let context = primed["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context");
    assert!(context.contains("you are agent claude1"), "{context}");
    t.assistant("msg_1", "claude-haiku-4-5-20251001", [100, 100, 0, 0], 0);
    t.write();
    hook(
        &repo,
        "AfterAgent",
        &t.path,
        json!({"prompt": "go", "prompt_response": "done"}),
        &["session", "heartbeat", "--hook-input=gemini"],
    );
    let denied = hook(
        &repo,
        "BeforeTool",
        &t.path,
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
        &["session", "guard", "--hook-input=gemini"],
    );
    let denied: Value = serde_json::from_str(&denied).expect("JSON");
    assert_eq!(denied["decision"], "deny", "{denied}");
    assert!(
        denied["reason"]
            .as_str()
            .is_some_and(|r| r.contains("over budget"))
    );
}

/// A Codex CLI rollout line: `{timestamp, type, payload}`.
fn rollout(kind: &str, payload: Value) -> String {
    format!(
        "{}\n",
        json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload})
    )
}

fn token_count(input: u64, cached: u64, output: u64) -> String {
    let usage = json!({"input_tokens": input, "cached_input_tokens": cached,
                       "output_tokens": output, "reasoning_output_tokens": 0,
                       "total_tokens": input + output});
    rollout(
        "event_msg",
        json!({"type": "token_count",
               "info": {"total_token_usage": usage, "last_token_usage": usage}}),
    )
}

#[test]
fn codex_rollouts_count_the_growth_of_their_running_totals() {
    let (sb, repo, _t, id) = started(&[]);
    let path = sb.path().join("rollout-2026-01-01T00-00-00-abc.jsonl");
    let mut text = rollout("session_meta", json!({"id": "abc-123", "cwd": repo.path}))
        + &rollout(
            "turn_context",
            json!({"model": "gpt-5-codex", "cwd": repo.path}),
        )
        + &rollout(
            "response_item",
            json!({"type": "function_call", "name": "shell", "call_id": "call_1",
                   "arguments": "{\"command\":[\"ls\"]}"}),
        )
        + &token_count(1000, 800, 100)
        + &token_count(1000, 800, 100);
    std::fs::write(&path, &text).expect("write");
    let stop = |repo: &Repo| {
        hook(
            repo,
            "Stop",
            &path,
            json!({"stop_hook_active": false}),
            &["session", "heartbeat", "--hook-input=codex"],
        )
    };
    stop(&repo);
    text += &rollout("turn_context", json!({"model": "gpt-5.1-codex"}));
    text += &token_count(2500, 1800, 300);
    std::fs::write(&path, &text).expect("write");
    stop(&repo);
    let s = repo.beads_json(&["session", "show", &id]);
    let ledger = s["ledger"].as_array().expect("ledger");
    assert_eq!(ledger.len(), 2, "{s}");
    assert_eq!(
        ledger[0]["by_kind"],
        json!({"input": 200, "output": 100, "cache_write": 0, "cache_read": 800}),
        "a repeated token count counts once: {s}"
    );
    assert_eq!(ledger[0]["tool_calls"], 1);
    assert_eq!(ledger[1]["tokens"], 1700, "the growth of the totals: {s}");
    assert_ne!(
        ledger[1]["unpriced"], true,
        "OpenAI models have prices: {s}"
    );
    // gpt-5.1-codex at gpt-5's price: 500 input, 200 output, 1 000 cached input.
    let spend = ledger[1]["spend"].as_f64().expect("spend");
    assert!(
        close(spend, (500.0 * 1.25 + 200.0 * 10.0 + 1000.0 * 0.125) / 1e6),
        "{s}"
    );
    assert_eq!(s["models"][0]["to"], "gpt-5.1-codex", "{s}");
}

#[test]
fn a_session_found_crashed_keeps_the_turns_only_its_local_ledger_had() {
    let (_sb, repo, mut t, id) = started(&[]);
    t.assistant("msg_1", "claude-haiku-4-5-20251001", [10, 20, 0, 0], 1);
    t.write();
    stop(&repo, &t);
    repo.beads(&["session", "start"]);
    let s = repo.beads_json(&["session", "show", &id]);
    assert_eq!(s["end"], "crashed", "{s}");
    assert_eq!(s["usage"]["tokens"], 30, "{s}");
    assert_eq!(s["ledger"].as_array().map(Vec::len), Some(1), "{s}");
}

#[test]
fn hooks_set_up_for_every_project_do_nothing_outside_a_repository() {
    let (sb, repo) = Sandbox::with_store();
    let nowhere = sb.path().join("not-a-repo");
    std::fs::create_dir_all(&nowhere).expect("mkdir");
    for (event, verb) in [
        ("PreToolUse", "guard"),
        ("Stop", "heartbeat"),
        ("UserPromptSubmit", "prompt"),
    ] {
        let input = json!({"session_id": "x", "cwd": nowhere, "hook_event_name": event});
        let mut cmd = repo.beads_command(&[], &["session", verb, "--hook-input"]);
        cmd.current_dir(&nowhere);
        let out = common::feed(&mut cmd, input.to_string().as_bytes());
        let stdout = common::expect_success(format_args!("{event} outside a repository"), &out);
        assert_eq!(stdout, "", "{event}");
    }
}

#[test]
fn a_turn_over_fresh_after_is_named_by_prime_and_the_prompt_hook() {
    let (_sb, repo, mut t, _id) = started(&[]);
    repo.git(&["config", "beads.freshAfter", "100"]);
    t.assistant("msg_1", "claude-haiku-4-5-20251001", [10, 20, 0, 0], 0);
    t.write();
    stop(&repo, &t);
    let quiet = repo.beads_json(&["prime"]);
    assert!(quiet["fresh"].is_null(), "30 tokens: {quiet}");

    t.assistant("msg_2", "claude-haiku-4-5-20251001", [100, 30, 0, 0], 0);
    t.write();
    stop(&repo, &t);
    let primed = repo.beads_json(&["prime"]);
    let fresh = &primed["fresh"];
    assert_eq!(fresh["tokens"], 130, "{primed}");
    assert_eq!(fresh["after_tokens"], 100, "{primed}");
    assert!(fresh.get("after_spend").is_none(), "{primed}");
    assert!(
        repo.beads(&["prime"])
            .contains("more than beads.freshAfter (100 tokens)"),
        "human prime says so too"
    );
    assert!(
        prompt(&repo, &t).contains("more than beads.freshAfter"),
        "and the prompt hook"
    );
}

/// A Gemini CLI session record (its JSONL session file): `gemini` messages are written
/// again as their tokens and tool calls are filled in.
fn gemini_record(id: &str, model: &str, tokens: Option<[u64; 4]>, calls: &[&str]) -> String {
    let mut r = json!({"id": id, "timestamp": "2026-01-01T00:00:00.000Z", "type": "gemini",
                       "content": "working on it", "model": model});
    if let Some([input, output, cached, thoughts]) = tokens {
        r["tokens"] = json!({"input": input, "output": output, "cached": cached,
                             "thoughts": thoughts, "tool": 0,
                             "total": input + output + thoughts});
    }
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c, "name": "run_shell_command", "args": {"command": "ls"},
                            "status": "success", "timestamp": "2026-01-01T00:00:01.000Z"})
            })
            .collect();
        r["toolCalls"] = Value::Array(calls);
    }
    format!("{r}\n")
}

#[test]
fn gemini_session_files_count_each_response_once_with_its_model() {
    let (sb, repo, _t, id) = started(&[]);
    let path = sb.path().join("session-2026-01-01T00-00-abc.jsonl");
    let after_agent = |repo: &Repo| {
        hook(
            repo,
            "AfterAgent",
            &path,
            json!({"prompt": "go", "prompt_response": "done"}),
            &["session", "heartbeat", "--hook-input=gemini"],
        )
    };
    let meta =
        json!({"sessionId": "abc", "projectHash": "h", "startTime": "2026-01-01T00:00:00.000Z"});
    let user = json!({"id": "u1", "timestamp": "2026-01-01T00:00:00.000Z", "type": "user", "content": "go"});
    let mut text = format!("{meta}\n{user}\n")
        + &gemini_record("g1", "gemini-2.5-pro", None, &[])
        + &gemini_record("g1", "gemini-2.5-pro", Some([1000, 200, 600, 50]), &[])
        + &gemini_record(
            "g1",
            "gemini-2.5-pro",
            Some([1000, 200, 600, 50]),
            &["call-1"],
        );
    std::fs::write(&path, &text).expect("write");
    after_agent(&repo);
    text += &gemini_record(
        "g1",
        "gemini-2.5-pro",
        Some([1000, 200, 600, 50]),
        &["call-1"],
    );
    text += &gemini_record(
        "g2",
        "gemini-2.5-flash",
        Some([2000, 100, 0, 0]),
        &["call-2"],
    );
    std::fs::write(&path, &text).expect("write");
    after_agent(&repo);

    let s = repo.beads_json(&["session", "show", &id]);
    let ledger = s["ledger"].as_array().expect("ledger");
    assert_eq!(ledger.len(), 2, "{s}");
    assert_eq!(
        ledger[0]["by_kind"],
        json!({"input": 400, "output": 250, "cache_write": 0, "cache_read": 600}),
        "cached tokens are read from the cache, thoughts bill as output: {s}"
    );
    assert_eq!(ledger[0]["tool_calls"], 1, "{s}");
    let first = (400.0 * 1.25 + 250.0 * 10.0 + 600.0 * 0.125) / 1e6;
    assert!(
        close(ledger[0]["spend"].as_f64().expect("spend"), first),
        "{s}"
    );
    assert_eq!(
        ledger[1]["tokens"], 2100,
        "a record written again counts once: {s}"
    );
    assert_eq!(ledger[1]["tool_calls"], 1, "{s}");
    assert_eq!(s["models"][0]["to"], "gemini-2.5-flash", "{s}");
}
