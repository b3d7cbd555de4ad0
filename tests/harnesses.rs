//! The agent harnesses as they ship (Claude Code, Codex CLI, Gemini CLI, from npm):
//! what `setup` writes for each, what each will skip until the user trusts it, `--trust`
//! recording that consent in the user's own files (HOME is the sandbox), and the real
//! CLIs running git-beads' hooks and MCP server afterwards against a loopback
//! endpoint that stands in for the model's API, with no login.
//!
//! The CLIs are installed under `target/bd-tools/npm` (beside beads-ui) by `.ci/tools`;
//! where one is missing its part says so on stderr and passes, except with `CI=true`.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use common::tools::{npm_package, or_skip};
use common::{Repo, Sandbox, expect_success};
use serde_json::{Value, json};

/// The pinned versions.
const CLAUDE: (&str, &str) = ("@anthropic-ai/claude-code", "2.1.332");
const CODEX: (&str, &str) = ("@openai/codex", "0.171.0");
const GEMINI: (&str, &str) = ("@google/gemini-cli", "0.61.0");

/// The harness' command line (`node_modules/.bin/NAME`), installed if need be.
fn cli(tool: (&str, &str), bin: &str) -> Option<PathBuf> {
    let pkg = or_skip(tool.0, npm_package(tool.0, tool.1))?;
    let up = if tool.0.contains('/') { 2 } else { 1 };
    let modules = pkg.ancestors().nth(up).expect("node_modules");
    Some(modules.join(".bin").join(bin))
}

/// A store with an agent bound in the worktree, so the hooks start its sessions.
fn store() -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("rig/nux", &[]);
    (sb, repo)
}

/// The sessions of the store, newest last: (ended, how).
fn sessions(repo: &Repo) -> Vec<(bool, String)> {
    let list = repo.beads_json(&["session", "list"]);
    let mut all: Vec<(bool, String)> = common::items(&list)
        .iter()
        .map(|s| {
            (
                s["ended_at"].is_string(),
                s["end"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    all.reverse();
    all
}

/// `setup HARNESS EXTRA…`, its stderr.
fn setup(repo: &Repo, args: &[&str]) -> String {
    let mut all = vec!["setup"];
    all.extend_from_slice(args);
    let out = repo.beads_output(&all);
    expect_success(format_args!("setup {args:?}"), &out);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `setup status --json`: harness → (wired, skipped).
fn status(repo: &Repo) -> Vec<(String, bool, usize)> {
    let v = repo.beads_json(&["setup", "status"]);
    (v["harnesses"].as_array().expect("harnesses").iter())
        .map(|h| {
            (
                h["harness"].as_str().expect("name").to_owned(),
                h["wired"] == true,
                h["skipped"].as_array().expect("skipped").len(),
            )
        })
        .collect()
}

/// `setup NAME`, which says the harness will skip one thing (`says` tells what), then
/// `setup NAME --trust`, after which it skips nothing; returns the user's JSON file
/// the consent went to (`file`, under HOME).
fn set_up_and_trust(sb: &Sandbox, repo: &Repo, name: &str, says: &str, file: &str) -> Value {
    let said = setup(repo, &[name]);
    assert!(said.contains(says), "{said}");
    assert!(status(repo).contains(&(name.into(), true, 1)));
    setup(repo, &[name, "--trust"]);
    assert!(status(repo).contains(&(name.into(), true, 0)));
    let text = std::fs::read_to_string(sb.path().join(file)).expect("the user's file");
    serde_json::from_str(&text).expect("json")
}

/// Runs `cmd` (a harness) in `repo`'s hermetic environment, with the loopback model's
/// variables; returns its output.
fn harness(repo: &Repo, program: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = repo.command(&program.to_string_lossy());
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null());
    cmd.output().expect("the harness runs")
}

#[test]
fn codex_gets_every_event_it_has_and_runs_them_once_trusted() {
    let (sb, repo) = store();
    let said = setup(&repo, &["codex"]);
    let hooks: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path.join(".codex/hooks.json")).expect("hooks.json"),
    )
    .expect("json");
    let events = hooks["hooks"].as_object().expect("events");
    for event in ["SessionEnd", "SubagentStop"] {
        assert!(events.contains_key(event), "{event} in {hooks}");
    }
    assert_eq!(
        hooks["hooks"]["SessionStart"][0]["matcher"],
        "startup|resume|clear|compact|fork"
    );
    let config = std::fs::read_to_string(repo.path.join(".codex/config.toml")).expect("config");
    assert!(
        config.contains("[features]\nhooks = true\n") && !config.contains("codex_hooks"),
        "{config}"
    );
    // Codex skips an untrusted project's .codex/ and every hook whose hash it has not
    // trusted: setup says so, and so does `setup status`.
    assert!(
        said.contains("codex will skip") && said.contains("--trust"),
        "{said}"
    );
    assert!(status(&repo).contains(&("codex".into(), true, 1 + 7)));
    let said = setup(&repo, &["codex", "--trust"]);
    assert!(said.contains("trusted in"), "{said}");
    let user = std::fs::read_to_string(sb.path().join(".codex/config.toml")).expect("user");
    let top = repo.path.display().to_string();
    assert!(
        user.contains(&format!("[projects.\"{top}\"]\ntrust_level = \"trusted\"")),
        "{user}"
    );
    assert_eq!(
        user.matches("trusted_hash = \"sha256:").count(),
        7,
        "{user}"
    );
    assert!(status(&repo).contains(&("codex".into(), true, 0)));

    let Some(codex) = cli(CODEX, "codex") else {
        return;
    };
    // Codex itself lists every git-beads hook as trusted.
    let listed = codex_hooks(&repo, &codex);
    let ours: Vec<&Value> = (listed.iter())
        .filter(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.starts_with("git beads "))
        })
        .collect();
    assert_eq!(ours.len(), 7, "{listed:?}");
    for h in &ours {
        assert_eq!(h["trustStatus"], "trusted", "{h}");
    }
    // And runs them in `codex exec`, the model being a loopback endpoint.
    let model = Model::start();
    let provider = format!(
        "model_providers.fake={{name=\"fake\",base_url=\"{}/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}}",
        model.url
    );
    let out = harness(
        &repo,
        &codex,
        &[
            "exec",
            "-c",
            "model_provider=\"fake\"",
            "-c",
            &provider,
            "-m",
            "gpt-5",
            "say done",
        ],
        &[("OPENAI_API_KEY", "sk-test".into())],
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    for hook in ["SessionStart", "UserPromptSubmit", "Stop"] {
        assert!(
            text.contains(&format!("hook: {hook} Completed")),
            "{hook}: {text}"
        );
    }
    assert!(!text.contains("deprecated"), "{text}");
    // SessionEnd (which `codex exec` runs without printing it) ended the session the
    // SessionStart hook started.
    assert_eq!(sessions(&repo), vec![(true, "clean".into())]);
}

/// The hooks Codex lists for `repo` (`hooks/list` of `codex app-server`).
fn codex_hooks(repo: &Repo, codex: &Path) -> Vec<Value> {
    let mut child = repo
        .command(&codex.to_string_lossy())
        .arg("app-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("app-server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let top = repo.path.display().to_string();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [top]}}),
    ] {
        writeln!(stdin, "{msg}").expect("send");
    }
    let answer = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
        .find(|v| v["id"] == 2)
        .expect("an answer to hooks/list");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer["result"]["data"][0]["hooks"]
        .as_array()
        .expect("hooks")
        .clone()
}

#[test]
fn claude_runs_the_session_hooks_and_the_approved_server() {
    let (sb, repo) = store();
    let state = set_up_and_trust(&sb, &repo, "claude", "pending approval", ".claude.json");
    let project = &state["projects"][repo.path.display().to_string()];
    assert_eq!(project["hasTrustDialogAccepted"], true, "{state}");
    assert_eq!(project["enabledMcpjsonServers"], json!(["git-beads"]));

    let Some(claude) = cli(CLAUDE, "claude") else {
        return;
    };
    let got = harness(&repo, &claude, &["mcp", "get", "git-beads"], &[]);
    let got = String::from_utf8_lossy(&got.stdout).into_owned();
    assert!(got.contains("Connected"), "{got}");
    let model = Model::start();
    let out = harness(
        &repo,
        &claude,
        &[
            "-p",
            "say done",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        &[
            ("ANTHROPIC_BASE_URL", model.url.clone()),
            ("ANTHROPIC_API_KEY", "sk-test".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let started = lines
        .iter()
        .find(|l| l["subtype"] == "hook_response" && l["hook_event"] == "SessionStart")
        .unwrap_or_else(|| panic!("no SessionStart hook: {text}"));
    assert!(
        started["output"]
            .as_str()
            .is_some_and(|o| o.contains("you are agent rig/nux")),
        "{started}"
    );
    let init = lines.iter().find(|l| l["subtype"] == "init").expect("init");
    assert!(
        (init["mcp_servers"].as_array().into_iter().flatten())
            .any(|s| s["name"] == "git-beads" && s["status"] == "connected"),
        "{init}"
    );
    // SessionEnd ended the session the SessionStart hook started.
    assert_eq!(sessions(&repo), vec![(true, "clean".into())]);
}

#[test]
fn gemini_loads_the_hooks_in_a_folder_setup_trusted() {
    let (sb, repo) = store();
    let folders = set_up_and_trust(
        &sb,
        &repo,
        "gemini",
        "not trusted",
        ".gemini/trustedFolders.json",
    );
    assert_eq!(folders[repo.path.display().to_string()], "TRUST_FOLDER");
    // A turn's heartbeat says nothing on stderr, which Gemini would show every turn.
    let session = repo.start_session(&[]);
    let mut beat = repo.beads_command(&[], &["session", "heartbeat", "--hook-input=gemini"]);
    let out = common::feed(&mut beat, br#"{"hook_event_name":"AfterAgent"}"#);
    expect_success("heartbeat", &out);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    repo.beads(&["session", "end"]);

    let Some(gemini) = cli(GEMINI, "gemini") else {
        return;
    };
    let model = Model::start();
    std::fs::write(
        sb.path().join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .expect("user settings");
    let out = harness(
        &repo,
        &gemini,
        &[
            "-m",
            "gemini-2.5-flash",
            "-p",
            "say done",
            "-o",
            "stream-json",
        ],
        &[
            ("GEMINI_API_KEY", "test".into()),
            ("GOOGLE_GEMINI_BASE_URL", model.url.clone()),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("you are agent rig/nux"), "{text}");
    let all = sessions(&repo);
    assert_eq!(all.len(), 2, "{all:?} ({session})");
    assert!(all.iter().all(|(ended, _)| *ended), "{all:?}");
}

#[test]
fn the_agents_md_section_says_what_runs_as_written() {
    let (_sb, repo) = Sandbox::with_store();
    setup(&repo, &["agents-md"]);
    let text = std::fs::read_to_string(repo.path.join("AGENTS.md")).expect("AGENTS.md");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let bead = repo.create("Write the docs", &[]);
    // Each command as the section spells it (NAME, N, USD, ID, NOTE filled in), in the
    // order an agent meets them.
    for (written, args) in [
        (
            "git beads agent create NAME",
            vec!["agent", "create", "rig/nux"],
        ),
        (
            "git beads session start --agent NAME",
            vec!["session", "start", "--agent", "rig/nux"],
        ),
        ("git beads ready --claim", vec!["ready", "--claim"]),
        (
            "git beads session usage --turn --tokens N --spend USD --tool-calls N",
            vec![
                "session",
                "usage",
                "--turn",
                "--tokens",
                "10",
                "--spend",
                "0.01",
                "--tool-calls",
                "1",
            ],
        ),
        ("git beads prime", vec!["prime"]),
        (
            "git beads handoff -m NOTE",
            vec!["handoff", "-m", "next: the docs"],
        ),
        (
            "git beads agent bind NAME",
            vec!["agent", "bind", "rig/nux"],
        ),
        ("git beads session start", vec!["session", "start"]),
        ("git beads close ID", vec!["close", &bead]),
        ("git beads session end", vec!["session", "end"]),
    ] {
        assert!(
            flat.contains(&format!("`{written}`")),
            "{written} in {text}"
        );
        repo.beads(&args);
    }
    assert_eq!(
        sessions(&repo),
        vec![(true, "handoff".into()), (true, "clean".into())]
    );
    assert!(flat.contains("read-only"), "{text}");
}

/// A loopback endpoint that stands in for the models' APIs: Anthropic's Messages,
/// OpenAI's Responses and Gemini's generateContent, each answering "done" with a small
/// usage, in the streaming form when asked.
struct Model {
    url: String,
}

impl Model {
    fn start() -> Model {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                std::thread::spawn(move || answer(stream));
            }
        });
        Model { url }
    }
}

/// Reads one request and answers it.
fn answer(stream: TcpStream) {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    let mut length = 0;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let body = match chunked {
        true => read_chunked(&mut reader),
        false => {
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            body
        }
    };
    let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (kind, text) = reply(&path, &request);
    let mut stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    // Closing with unread input would reset the connection under the client's feet.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = std::io::copy(&mut stream, &mut std::io::sink());
}

fn read_chunked(reader: &mut impl BufRead) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        if reader.read_line(&mut size).unwrap_or(0) == 0 {
            return body;
        }
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let mut chunk = vec![0; n + 2];
        let _ = reader.read_exact(&mut chunk);
        if n == 0 {
            return body;
        }
        body.extend_from_slice(&chunk[..n]);
    }
}

/// Server-sent events, `(event, data)` each.
fn events(list: &[(&str, Value)]) -> String {
    list.iter()
        .map(|(event, data)| match event.is_empty() {
            true => format!("data: {data}\n\n"),
            false => format!("event: {event}\ndata: {data}\n\n"),
        })
        .collect()
}

/// The answer to a request for `path`: its content type and body.
fn reply(path: &str, request: &Value) -> (&'static str, String) {
    const SSE: &str = "text/event-stream";
    const JSON: &str = "application/json";
    let model = request["model"].as_str().unwrap_or("model");
    if path.contains("/messages") && !path.contains("count_tokens") {
        let usage = json!({"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
        let message = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage});
        if request["stream"] != true {
            let mut whole = message;
            whole["content"] = json!([{"type": "text", "text": "done"}]);
            whole["stop_reason"] = json!("end_turn");
            return (JSON, whole.to_string());
        }
        return (
            SSE,
            events(&[
                (
                    "message_start",
                    json!({"type": "message_start", "message": message}),
                ),
                (
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ),
                (
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}}),
                ),
                (
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": 0}),
                ),
                (
                    "message_delta",
                    json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 2}}),
                ),
                ("message_stop", json!({"type": "message_stop"})),
            ]),
        );
    }
    if path.contains("count_tokens") {
        return (JSON, json!({"input_tokens": 10}).to_string());
    }
    if path.ends_with("/responses") {
        let item = json!({"type": "message", "id": "m1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "done", "annotations": []}]});
        let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 12});
        return (
            SSE,
            events(&[
                (
                    "response.created",
                    json!({"type": "response.created", "response": {"id": "r1"}}),
                ),
                (
                    "response.output_item.done",
                    json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                ),
                (
                    "response.completed",
                    json!({"type": "response.completed", "response": {"id": "r1", "usage": usage}}),
                ),
            ]),
        );
    }
    // Gemini's methods: `:generateContent`, `:streamGenerateContent`, `:countTokens`.
    if path.contains("enerateContent") {
        let answer = json!({"candidates": [{"content": {"parts": [{"text": "done"}], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}, "modelVersion": model});
        return match path.contains("streamGenerate") {
            true => (SSE, events(&[("", answer)])),
            false => (JSON, answer.to_string()),
        };
    }
    if path.contains("countTokens") {
        return (JSON, json!({"totalTokens": 10}).to_string());
    }
    (JSON, "{}".into())
}
