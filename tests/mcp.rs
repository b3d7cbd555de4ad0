//! `git beads mcp`: the MCP server driven by a client no one here wrote (the official
//! MCP Python SDK, `mcp` from PyPI) through an agent's session, and by raw JSON-RPC
//! lines: a write by the CLI between two calls is seen by the second, bad input gets
//! an error and changes nothing, and the server lives on until its input closes.
//! `setup` registers it with the harnesses.
//!
//! The SDK is the one `.ci/run` installs into `target/bd-tools/venv` (beside
//! beads-mcp, see tests/bd_tools.rs); where it cannot be had the story says so on
//! stderr and passes, except with `CI=true`, where it fails.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use common::tools::{or_skip, python_tools};
use common::{Repo, Sandbox, expect_success, write_file};
use serde_json::{Value, json};

/// The agent's session, in Python.
const STORY: &str = include_str!("mcp/story.py");

/// The tools the server offers.
const TOOLS: [&str; 24] = [
    "blocked",
    "claim",
    "close",
    "comment",
    "comments",
    "create",
    "dep_add",
    "dep_remove",
    "handoff",
    "list",
    "mail_inbox",
    "mail_read",
    "mail_reply",
    "mail_send",
    "mol_current",
    "mol_progress",
    "prime",
    "ready",
    "reopen",
    "search",
    "session_usage",
    "show",
    "stats",
    "update",
];

/// A running `git beads mcp`, spoken to one JSON-RPC line at a time.
struct Server {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    /// Starts the server in `repo` (with `args` after `mcp`) and initializes it.
    fn start(repo: &Repo, args: &[&str]) -> Server {
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        let mut child = repo
            .beads_command(&[], &all)
            .stdin(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            input,
            output,
            next: 0,
        };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "tests/mcp.rs", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    /// Writes one line.
    fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("stdin open");
        input.write_all(line.as_bytes()).expect("write");
        input.write_all(b"\n").expect("write");
        input.flush().expect("flush");
    }

    /// Reads one answer.
    fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.output.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "the server ended");
        serde_json::from_str(&line).expect("an answer is one line of JSON")
    }

    /// Sends request `method` and returns the whole answer.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string());
        let answer = self.receive();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Calls tool `name`; returns the call's result (a JSON-RPC error fails).
    fn call(&mut self, name: &str, args: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": name, "arguments": args}));
        assert!(answer["error"].is_null(), "{name}: {answer}");
        answer["result"].clone()
    }

    /// Calls tool `name` and returns the document it answered with.
    fn doc(&mut self, name: &str, args: Value) -> Value {
        let result = self.call(name, args);
        assert_eq!(result["isError"], false, "{name}: {result}");
        let text = result["content"][0]["text"].as_str().expect("text");
        serde_json::from_str(text).expect("the text is the JSON document")
    }

    /// Calls tool `name`, which must fail; returns the failure's kind.
    fn failed(&mut self, name: &str, args: Value) -> String {
        let result = self.call(name, args);
        assert_eq!(result["isError"], true, "{name}: {result}");
        result["structuredContent"]["kind"]
            .as_str()
            .expect("a kind")
            .to_owned()
    }

    /// Closes stdin and waits for the server to end; returns its exit code.
    fn close(mut self) -> Option<i32> {
        drop(self.input.take());
        self.child.wait().expect("the server ends").code()
    }
}

/// The JSON-RPC error code of an answer.
fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| {
        panic!("not a JSON-RPC error: {answer}");
    })
}

/// A store with an agent bound and a session running, and one bead ready.
fn agent_store(sb: &Sandbox) -> (Repo, String) {
    let repo = sb.store();
    repo.bind_new_agent("nux", &[]);
    repo.beads(&["agent", "create", "rival"]);
    repo.start_session(&[]);
    let id = repo.create("Fix the login page", &[]);
    (repo, id)
}

#[test]
fn the_python_sdk_runs_an_agent_session_through_the_server() {
    let Some(python) = or_skip("the MCP Python SDK", python_tools()) else {
        return;
    };
    let sb = Sandbox::new();
    let (repo, id) = agent_store(&sb);
    let story = sb.path().join("story.py");
    write_file(&story, STORY);
    let out = repo
        .command(python.to_str().expect("utf-8 path"))
        .arg(&story)
        .args([&id, "nux", "rival"])
        .output()
        .expect("python runs");
    let text = expect_success("the MCP story", &out);
    let seen: Value = serde_json::from_str(text.trim()).expect("the story prints JSON");

    assert_eq!(seen["server"], "git-beads");
    assert_eq!(seen["tools"], json!(TOOLS));
    assert_eq!(seen["prime"]["agent"]["name"], "nux", "{seen}");
    assert_eq!(seen["ready"][0]["id"], id.as_str());
    assert_eq!(seen["claim"][0]["status"], "in_progress");
    assert_eq!(seen["claim"][0]["assignee"], "nux");
    assert_eq!(seen["other_claim"]["kind"], "conflict", "{seen}");
    assert_eq!(seen["comment"]["text"], "halfway there", "{seen}");
    assert_eq!(seen["show"][0]["comments"][0]["text"], "halfway there");
    assert_eq!(seen["close"][0]["status"], "closed");
    assert_eq!(seen["close"][0]["close_reason"], "done");
    assert_eq!(seen["unknown"]["kind"], "not_found");
    let sent = seen["sent"]["id"].as_str().expect("a message id");
    let inbox: Vec<&str> = seen["inbox"]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert!(inbox.contains(&sent), "{seen}");
    assert_eq!(seen["read"]["subject"], "note to self");
    assert_eq!(seen["handoff"]["end"], "handoff", "{seen}");
    assert_eq!(seen["resources"], json!(["beads://prime"]));
    assert!(
        seen["prime_text"]
            .as_str()
            .expect("text")
            .contains("you are agent nux"),
        "{seen}"
    );

    // What the tools did is what the CLI sees.
    let bead = repo.bead_json(&id);
    assert_eq!(bead["status"], "closed");
    assert_eq!(bead["comments"][0]["author"], "nux");
}

#[test]
fn a_write_by_the_cli_between_two_calls_is_seen_by_the_second() {
    let sb = Sandbox::new();
    let (repo, id) = agent_store(&sb);
    let mut server = Server::start(&repo, &[]);
    let ready = server.doc("ready", json!({}));
    assert_eq!(common::ids(&ready), vec![id.clone()]);
    let second = repo.create("Write the release notes", &["-p", "0"]);
    let ready = server.doc("ready", json!({}));
    assert_eq!(common::ids(&ready), vec![second.clone(), id.clone()]);
    // The same call again with nothing written between has the same answer (the
    // server gives it from memory); a write by the CLI is in the next one.
    assert_eq!(server.doc("ready", json!({})), ready);
    repo.beads(&["update", &id, "--title", "Fix the login form"]);
    assert_eq!(
        server.doc("ready", json!({}))[1]["title"],
        "Fix the login form"
    );
    assert_eq!(
        common::ids(&server.doc("ready", json!({"limit": 1}))),
        vec![second.clone()]
    );
    assert_eq!(
        server.doc("show", json!({"id": id}))[0]["title"],
        "Fix the login form"
    );
    // And the other way: the server's write is the CLI's next read.
    server.doc("claim", json!({"id": second}));
    assert_eq!(repo.bead_json(&second)["assignee"], "nux");
    // Without an id, a claim takes the next ready bead, until none is left.
    assert_eq!(server.doc("claim", json!({}))[0]["id"], id.as_str());
    assert_eq!(server.doc("claim", json!({})), json!([]));
    assert_eq!(server.close(), Some(0));
}

/// The server keeps its store open between calls, and opens it anew when the packs it
/// may have seen go: every CLI write adds a pack, every sixteenth or so merges them,
/// `git repack -a -d` replaces them all and `git pack-refs` moves the store's ref into
/// `packed-refs`. Each call after each of these sees the write before it.
#[test]
fn the_store_kept_between_calls_follows_merges_repacks_and_packed_refs() {
    let sb = Sandbox::new();
    let (repo, id) = agent_store(&sb);
    let mut server = Server::start(&repo, &[]);
    let title = |server: &mut Server| server.doc("show", json!({"id": id}))[0]["title"].clone();
    for round in 0..40 {
        let name = format!("Title of round {round}");
        repo.beads(&["update", &id, "--title", &name]);
        assert_eq!(title(&mut server), name.as_str(), "round {round}");
        assert_eq!(server.doc("ready", json!({}))[0]["title"], name.as_str());
    }
    repo.git(&["repack", "-a", "-d", "-q"]);
    assert_eq!(title(&mut server), "Title of round 39");
    repo.beads(&["update", &id, "--title", "After a repack"]);
    assert_eq!(title(&mut server), "After a repack");
    repo.git(&["pack-refs", "--all"]);
    repo.beads(&["update", &id, "--title", "After packed refs"]);
    assert_eq!(
        server.doc("ready", json!({}))[0]["title"],
        "After packed refs"
    );
    repo.git(&["gc", "-q", "--prune=now"]);
    assert_eq!(title(&mut server), "After packed refs");
    server.doc(
        "update",
        json!({"id": id, "title": "Written by the server"}),
    );
    assert_eq!(repo.bead_json(&id)["title"], "Written by the server");
    assert_eq!(server.close(), Some(0));
}

/// `n` bd records, `bd-r0` … (the lower the number the older), at `priority` of
/// `k`, updated at `updated`.
fn records(n: usize, updated: &str, priority: impl Fn(usize) -> usize) -> String {
    (0..n)
        .map(|k| {
            let created = format!("2025-01-01T{:02}:{:02}:00Z", k / 60, k % 60);
            let r = json!({
                "id": format!("bd-r{k}"), "title": format!("Ready \"bead\" {k} \\ é"),
                "status": "open", "priority": priority(k), "issue_type": "task",
                "created_at": created, "created_by": "gen", "updated_at": updated,
            });
            r.to_string() + "\n"
        })
        .collect()
}

/// The server keeps the JSON text of the beads its `ready` listed, by their row in
/// the index's table and their dependent count; its answer is still byte for byte
/// what a `ready --json` process prints after a dependency moves the dependent count
/// of a bead listed (its row unchanged), and after a change of more beads than the
/// index's delta holds folds it into a new table whose rows hold other beads.
#[test]
fn ready_from_the_server_is_what_a_ready_process_prints() {
    let sb = Sandbox::new();
    let repo = sb.store();
    let import = |name: &str, text: String| {
        let file = sb.path().join(name);
        std::fs::write(&file, text).expect("write");
        repo.beads(&["import", "-q", file.to_str().expect("utf-8")]);
    };
    import("first.jsonl", records(300, "2025-01-02T00:00:00Z", |_| 2));
    let mut server = Server::start(&repo, &[]);
    let same = |server: &mut Server, why: &str| {
        let result = server.call("ready", json!({}));
        let printed = repo.beads(&["ready", "--json"]);
        assert_eq!(
            result["content"][0]["text"].as_str(),
            Some(printed.trim_end()),
            "{why}"
        );
        let doc: Value = serde_json::from_str(&printed).expect("JSON");
        assert_eq!(result["structuredContent"]["items"], doc, "{why}");
    };
    same(&mut server, "the first call");
    // The first call built the table; from the second on, it is read from its file.
    repo.beads(&["update", "bd-r7", "--title", "Retitled \"7\" \\"]);
    same(&mut server, "a bead listed was retitled");
    repo.beads(&["dep", "add", "bd-r150", "bd-r5", "--type", "blocks"]);
    assert_eq!(repo.bead_json("bd-r5")["dependent_count"], 1);
    same(&mut server, "a bead listed gained a dependent");
    import(
        "second.jsonl",
        records(300, "2025-01-03T00:00:00Z", |k| 4 - k % 5),
    );
    same(&mut server, "the index was folded into a new table");
    repo.beads(&["dep", "add", "bd-r9", "bd-r4", "--type", "related"]);
    same(&mut server, "a bead of the new table gained a dependent");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn dep_add_takes_another_projects_item_and_it_blocks() {
    let sb = Sandbox::new();
    let (repo, id) = agent_store(&sb);
    let mut server = Server::start(&repo, &[]);
    let ext = "external:upstream:release";
    let bead = server.doc("dep_add", json!({"id": id, "depends_on": ext}));
    assert_eq!(bead["dependencies"][0]["depends_on_id"], ext, "{bead}");
    assert_eq!(server.doc("ready", json!({})), json!([]));
    let bad = json!({"id": id, "depends_on": "external:upstream"});
    assert_eq!(server.failed("dep_add", bad), "invalid");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn bad_input_gets_an_error_changes_nothing_and_the_server_lives_on() {
    let sb = Sandbox::new();
    let (repo, id) = agent_store(&sb);
    let before = repo.store_head();
    let mut server = Server::start(&repo, &[]);

    let unknown = server.request("tools/call", json!({"name": "rm_rf", "arguments": {}}));
    assert_eq!(error_code(&unknown), -32602, "{unknown}");
    let method = server.request("beads/explode", json!({}));
    assert_eq!(error_code(&method), -32601, "{method}");
    for args in [
        json!({"id": id, "reason": 7}),
        json!({"id": id, "force": true}),
        json!({"reason": "no id"}),
        json!([id]),
    ] {
        let bad = server.request("tools/call", json!({"name": "close", "arguments": args}));
        assert_eq!(error_code(&bad), -32602, "{args}: {bad}");
    }
    let priority = server.request(
        "tools/call",
        json!({"name": "create", "arguments": {"title": "x", "priority": 9}}),
    );
    assert_eq!(error_code(&priority), -32602, "{priority}");
    server.send("{this is not json");
    assert_eq!(error_code(&server.receive()), -32700);
    server.send("[1, 2, 3]");
    assert_eq!(error_code(&server.receive()), -32600);

    let hostile = format!("{id}\u{1b}]0;owned\u{7}\n../../HEAD");
    for (tool, args) in [
        ("show", json!({"id": hostile})),
        ("claim", json!({"id": hostile})),
        ("close", json!({"id": hostile})),
        ("comment", json!({"id": hostile, "text": "x"})),
        ("mail_read", json!({"id": hostile})),
    ] {
        assert_eq!(server.failed(tool, args), "invalid", "{tool}");
    }
    // A malformed message id is said to be no message id, not no bead id.
    let said = server.call("mail_read", json!({"id": "../x"}));
    let error = said["structuredContent"]["error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        error.contains("is not a message id (expected something like msg-"),
        "{said}"
    );
    let huge = "x".repeat(1 << 20);
    assert_eq!(server.failed("create", json!({"title": huge})), "invalid");
    assert_eq!(
        server.failed("comment", json!({"id": id, "text": "x".repeat(17 << 20)})),
        "invalid"
    );
    assert_eq!(
        server.failed("mail_read", json!({"id": "msg-nosuch"})),
        "not_found"
    );

    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    assert_eq!(
        repo.store_head(),
        before,
        "a refused call changed the store"
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn tools_list_describes_every_tool_with_a_schema() {
    let (_sb, repo) = Sandbox::with_store();
    let mut server = Server::start(&repo, &[]);
    let listed = server.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, TOOLS);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["inputSchema"]["additionalProperties"], false, "{t}");
    }
    let close = tools.iter().find(|t| t["name"] == "close").expect("close");
    assert_eq!(close["inputSchema"]["required"], json!(["id"]));
    assert_eq!(server.close(), Some(0));
}

#[test]
fn it_acts_as_the_agent_as_names_and_denies_what_it_may_not_do() {
    let sb = Sandbox::new();
    let (repo, id) = agent_store(&sb);
    repo.beads(&["agent", "create", "reader", "--can", "create"]);
    let mut server = Server::start(&repo, &["--as", "reader"]);
    assert_eq!(server.doc("prime", json!({}))["agent"]["name"], "reader");
    assert_eq!(server.failed("claim", json!({"id": id})), "denied");
    assert_eq!(server.close(), Some(0));
    let mut person = Server::start(&repo, &["--as-person"]);
    assert_eq!(person.failed("mail_inbox", json!({"all": true})), "invalid");
    assert_eq!(person.close(), Some(0));
}

#[test]
fn setup_registers_the_server_with_each_harness_once() {
    let (sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".mcp.json"),
        r#"{"mcpServers":{"beads":{"command":"beads-mcp"}}}"#,
    );
    repo.beads(&["setup", "claude"]);
    let path = repo.path.join(".mcp.json");
    let once = std::fs::read_to_string(&path).expect(".mcp.json");
    let v: Value = serde_json::from_str(&once).expect("JSON");
    assert_eq!(
        v["mcpServers"]["git-beads"],
        json!({"command": "git", "args": ["beads", "mcp"]})
    );
    assert_eq!(v["mcpServers"]["beads"]["command"], "beads-mcp");
    repo.beads(&["setup", "claude"]);
    assert_eq!(std::fs::read_to_string(&path).expect(".mcp.json"), once);
    repo.beads(&["setup", "claude", "--check"]);
    repo.beads(&["setup", "claude", "--remove"]);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect(".mcp.json")).expect("JSON");
    assert_eq!(v, json!({"mcpServers":{"beads":{"command":"beads-mcp"}}}));

    repo.beads(&["setup", "gemini"]);
    let gemini: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path.join(".gemini/settings.json")).expect("settings"),
    )
    .expect("JSON");
    assert_eq!(gemini["mcpServers"]["git-beads"]["command"], "git");
    common::write_file(
        &repo.path.join(".gemini/settings.json"),
        &json!({"hooks": gemini["hooks"]}).to_string(),
    );
    let (code, out, _) = repo.beads_fail_with_stdout(&["setup", "gemini", "--check"]);
    assert_eq!(code, 1);
    assert!(out.contains("mcpServers.git-beads (missing)"), "{out}");

    repo.beads(&["setup", "codex", "--global"]);
    let config = std::fs::read_to_string(sb.path().join(".codex/config.toml")).expect("config");
    assert!(
        config
            .contains("[mcp_servers.git-beads]\ncommand = \"git\"\nargs = [\"beads\", \"mcp\"]\n"),
        "{config}"
    );
}

#[test]
fn an_agent_can_look_for_work_beyond_ready() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("Fix the login", &["-p", "1", "-l", "auth"]);
    let b = repo.create("Write docs", &["--deps", &a]);
    repo.beads(&["comment", &a, "seen on Firefox"]);
    let mut server = Server::start(&repo, &[]);
    let listed = server.doc("list", json!({"labels": ["auth"]}));
    assert_eq!(common::ids(&listed), [a.as_str()]);
    let found = server.doc("list", json!({"query": "docs"}));
    assert_eq!(common::ids(&found), [b.as_str()]);
    let found = server.doc("search", json!({"query": "LOGIN"}));
    assert_eq!(common::ids(&found), [a.as_str()]);
    let blocked = server.doc("blocked", json!({}));
    assert_eq!(common::ids(&blocked), [b.as_str()]);
    let stats = server.doc("stats", json!({}));
    assert_eq!(stats, repo.beads_json(&["stats"]));
    let comments = server.doc("comments", json!({"id": a}));
    assert_eq!(comments[0]["text"], "seen on Firefox", "{comments}");
    let removed = server.doc("dep_remove", json!({"id": b, "depends_on": a}));
    assert_eq!(removed["dependencies"], json!([]), "{removed}");
    assert_eq!(server.doc("blocked", json!({})), json!([]));
    repo.beads(&["close", &a]);
    let reopened = server.doc("reopen", json!({"issue_ids": [a], "reason": "back again"}));
    assert_eq!(reopened[0]["status"], "open", "{reopened}");
    assert_eq!(repo.bead_json(&a)["status"], "open");
    assert_eq!(server.close(), Some(0));
}
