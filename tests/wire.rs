//! The JSON shapes the manual documents (generated from `git_beads::wire`) are the
//! shapes the commands print: every documented field is there (unless it may be left
//! out), and no field is printed that the manual does not name.

use crate::common;

use std::collections::BTreeSet;

use common::{Repo, Sandbox, write_file};
use git_beads::wire::{DOCUMENTS, Doc, Shape};
use serde_json::Value;

/// Documents no command below prints, each with the reason.
const NOT_RUN: &[(&str, &str)] = &[
    ("install-man", "installs pages outside the sandbox"),
    (
        "session resume",
        "needs a second clone; tests/snapshots.rs runs it",
    ),
    ("resolve", "needs a sync conflict; tests/sync.rs runs it"),
    (
        "kv list",
        "its fields are the keys (a bare object); tests/gastown.rs runs it",
    ),
    (
        "config list",
        "its fields are the settings' keys; tests/bd_compat.rs runs it",
    ),
    (
        "memories",
        "its fields are the keys (a bare object); tests/tail.rs runs it",
    ),
    (
        "worktree add",
        "needs installed hooks; tests/hooks.rs runs it",
    ),
];

fn doc(commands: &str) -> &'static Doc {
    DOCUMENTS
        .iter()
        .find(|d| d.commands == commands)
        .unwrap_or_else(|| panic!("no document for {commands:?}"))
}

/// Runs `args` with `--json` and checks its shape against the document of `commands`:
/// an object's top-level fields, or each object of a list; returns the output.
fn check(repo: &Repo, seen: &mut BTreeSet<&'static str>, commands: &str, args: &[&str]) -> Value {
    let d = doc(commands);
    seen.insert(d.commands);
    let v = repo.beads_json(args);
    match d.shape {
        Shape::Object => {
            let obj = v
                .as_object()
                .unwrap_or_else(|| panic!("{args:?}: not an object: {v}"));
            assert_eq!(obj["schema_version"], 1, "{args:?}: {v}");
            check_fields(d, args, obj, &v);
        }
        Shape::ListOf(_) => assert!(v.is_array(), "{args:?}: not a bare array: {v}"),
        Shape::List => {
            let items = v
                .as_array()
                .unwrap_or_else(|| panic!("{args:?}: not a bare array: {v}"));
            for item in items {
                match item.as_object() {
                    Some(obj) => check_fields(d, args, obj, &v),
                    None => assert!(d.fields.is_empty(), "{args:?}: {item} is no object"),
                }
            }
        }
    }
    v
}

/// Checks one object's fields (besides `schema_version`) against the document.
fn check_fields(d: &Doc, args: &[&str], obj: &serde_json::Map<String, Value>, v: &Value) {
    let commands = d.commands;
    let printed: BTreeSet<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "schema_version")
        .collect();
    let documented: BTreeSet<&str> = d.fields.iter().map(|f| f.name).collect();
    let undocumented: Vec<&&str> = printed.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "{args:?} prints fields the manual does not name ({commands}): {undocumented:?}\n{v}"
    );
    for f in d.fields.iter().filter(|f| !f.optional) {
        assert!(
            printed.contains(f.name),
            "{args:?} lacks documented field {} ({commands})\n{v}",
            f.name
        );
    }
}

/// Checks the object `v` printed in field `field` of the document of `commands`
/// against the fields its note names (`: {a, b}` or `: [{a, b}]`): none printed that
/// the note does not name, and with `all`, every one it names printed.
fn check_nested(commands: &str, field: &str, v: &Value, all: bool) {
    let f = doc(commands)
        .fields
        .iter()
        .find(|f| f.name == field)
        .unwrap_or_else(|| panic!("{commands}: no field {field}"));
    let inner = f
        .note
        .split_once('{')
        .and_then(|(_, rest)| rest.split_once('}'))
        .map(|(names, _)| names)
        .unwrap_or_else(|| panic!("{commands}: the note of {field} names no fields"));
    let documented: BTreeSet<&str> = inner.split(',').map(str::trim).collect();
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{field}: not an object: {v}"));
    let printed: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
    let undocumented: Vec<&&str> = printed.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "{commands}: {field} holds fields the manual does not name: {undocumented:?}\n{v}"
    );
    if all {
        let missing: Vec<&&str> = documented.difference(&printed).collect();
        assert!(
            missing.is_empty(),
            "{commands}: {field} lacks documented fields {missing:?}\n{v}"
        );
    }
}

/// The document of most commands that print one bead.
const MANY: &str = "show, update, close, reopen, delete, release, ready --claim, ready --mol, query, duplicate, supersede, dep relate";

/// The string at `v`, owned; panics with `what` when `v` is no string.
#[track_caller]
fn text(v: &Value, what: &str) -> String {
    v.as_str().expect(what).to_owned()
}

#[test]
fn every_document_matches_what_its_commands_print() {
    let sb = Sandbox::new();
    let (remote, origin) = sb.remote_with_store("origin");
    let repo = sb.clone(&remote, "repo", "bob");
    let mut seen = BTreeSet::new();
    let seen = &mut seen;

    check(&repo, seen, "init", &["init"]);
    let (a, b) = bead_documents(&repo, seen);
    graph_documents(&repo, seen, &a, &b);
    config_documents(&repo, seen);
    history_documents(&repo, seen, &a);
    agent_documents(&repo, seen, &b);
    formula_documents(&repo, seen);
    molecule_documents(&repo, seen);
    repo_documents(&repo, seen, &origin, &a, &b);
    tail_documents(&repo, seen);
    check(&repo, seen, MANY, &["delete", &b, "--force"]);

    let unchecked: Vec<&str> = DOCUMENTS
        .iter()
        .map(|d| d.commands)
        .filter(|c| !seen.contains(c) && !NOT_RUN.iter().any(|(n, _)| n == c))
        .collect();
    assert!(unchecked.is_empty(), "documents no test ran: {unchecked:?}");
}

/// The documents of making, changing and listing beads, on two new beads, which it
/// returns (the first depends on nothing, the second on the first).
fn bead_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>) -> (String, String) {
    let one = "create, dep add, dep remove, label add, label remove, edit";
    let a = text(&check(repo, seen, one, &["create", "First"])["id"], "id");
    let b = repo.create("Second", &[]);
    check(
        repo,
        seen,
        MANY,
        &["update", &a, "--title", "First, renamed"],
    );
    check(repo, seen, MANY, &["dep", "relate", &a, &b]);
    check(repo, seen, one, &["dep", "add", &b, &a]);
    check(repo, seen, one, &["label", "add", &a, "ui"]);
    check(repo, seen, MANY, &["show", &a]);
    let listing = "list, ready, search, children";
    check(repo, seen, listing, &["list"]);
    check(repo, seen, listing, &["ready"]);
    check(repo, seen, listing, &["search", "renamed"]);
    check(repo, seen, "blocked", &["blocked"]);
    check(repo, seen, "stale", &["stale"]);
    check(repo, seen, listing, &["children", &a]);
    check(repo, seen, "count", &["count"]);
    let by = "count --by-status, --by-priority, --by-type, --by-assignee, --by-label";
    check(repo, seen, by, &["count", "--by-label"]);
    check(repo, seen, "version", &["version"]);
    let moving = repo.create("Moving", &[]);
    check(repo, seen, "rename", &["rename", &moving, "bd-moved1"]);
    // The store's own prefix: the document, without moving the ids used below.
    check(repo, seen, "rename-prefix", &["rename-prefix", "bd"]);
    let fine = repo.create("Fine", &["--acceptance", "it works"]);
    check(repo, seen, "lint", &["lint", &fine]);
    check(repo, seen, "onboard, quickstart", &["onboard"]);
    check(repo, seen, "onboard, quickstart", &["quickstart"]);
    check(repo, seen, "stats, status", &["stats"]);
    check(repo, seen, "info, where", &["info"]);
    check(repo, seen, "info, where", &["where"]);
    check(repo, seen, "types", &["types"]);
    check(repo, seen, "statuses", &["statuses"]);
    check(repo, seen, "dep list", &["dep", "list", &b]);
    check(repo, seen, "dep cycles", &["dep", "cycles"]);
    (a, b)
}

/// The documents of the dependency graph, duplicates, epics and labels, with the
/// nested objects they hold, around beads `a` and `b`.
fn graph_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>, a: &str, b: &str) {
    let g = check(repo, seen, "graph ID", &["graph", b]);
    check_nested("graph ID", "root", &g["root"], false);
    let parts = check(repo, seen, "graph --all", &["graph", "--all"]);
    check_nested(
        "graph --all",
        "Dependencies",
        &parts[0]["Dependencies"][0],
        true,
    );
    check(repo, seen, "graph check", &["graph", "check"]);
    let alike = ["find-duplicates", "--threshold", "0", "-n", "1"];
    let pairs = check(repo, seen, "find-duplicates", &alike);
    check_nested("find-duplicates", "pairs", &pairs["pairs"][0], true);
    let epic = repo.create("Epic", &["-t", "epic"]);
    repo.create("Its child", &["--parent", &epic]);
    check(repo, seen, "epic status", &["epic", "status"]);
    check(
        repo,
        seen,
        "epic close-eligible",
        &["epic", "close-eligible", "--dry-run"],
    );
    check(repo, seen, "dep tree", &["dep", "tree", b]);
    check(repo, seen, "label list", &["label", "list", a]);
    check(repo, seen, "label list-all", &["label", "list-all"]);
}

/// The documents of settings, and of `types` and `statuses` once the project has
/// words of its own.
fn config_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>) {
    let setting = "config get, config set, config unset";
    check(
        repo,
        seen,
        setting,
        &["config", "set", "types.custom", "gate"],
    );
    check(repo, seen, setting, &["config", "get", "types.custom"]);
    check(repo, seen, setting, &["config", "unset", "types.custom"]);
    // With words of the project's own, `types` and `statuses` list them too.
    repo.beads(&["config", "set", "types.custom", "gizmo"]);
    repo.beads(&["config", "set", "status.custom", "review:active"]);
    let types = check(repo, seen, "types", &["types"]);
    assert_eq!(types["custom_types"], serde_json::json!(["gizmo"]));
    let statuses = check(repo, seen, "statuses", &["statuses"]);
    check_nested(
        "statuses",
        "custom_statuses",
        &statuses["custom_statuses"][0],
        true,
    );
    check_nested(
        "statuses",
        "built_in_statuses",
        &statuses["built_in_statuses"][0],
        true,
    );
}

/// The documents of comments, history, orphans, the audit log, closing and
/// reopening bead `a`, and a round trip through export and import.
fn history_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>, a: &str) {
    check(
        repo,
        seen,
        "comment, comments add",
        &["comment", a, "hello"],
    );
    check(repo, seen, "comments", &["comments", a]);
    check(repo, seen, "log, session log", &["log"]);
    check(repo, seen, "history", &["history", a]);
    check(repo, seen, "diff", &["diff", "2000-01-01", "HEAD"]);
    check(repo, seen, "diff", &["diff", "HEAD~1", "HEAD"]);
    let named = repo.create("Named by code", &[]);
    repo.commit_file("orphan.txt", "x\n", &format!("work ({named})"));
    let orphans = check(repo, seen, "orphans", &["orphans"]);
    assert_eq!(orphans[0]["issue_id"], named.as_str());
    let recorded = check(
        repo,
        seen,
        "audit record",
        &["audit", "record", "--kind", "x"],
    );
    let entry = recorded["id"].as_str().expect("an id");
    check(
        repo,
        seen,
        "audit label",
        &["audit", "label", entry, "--label", "good"],
    );
    check(repo, seen, MANY, &["ready", "--claim"]);
    check(repo, seen, MANY, &["close", a]);
    check(repo, seen, MANY, &["reopen", a]);

    let file = repo.path.join("export.jsonl");
    let file = file.to_str().expect("utf-8 path");
    check(repo, seen, "export -o FILE", &["export", "-o", file]);
    check(repo, seen, "import", &["import", file]);
}

/// The documents of an agent's life: slinging bead `b` to it, a session with its
/// snapshot and log, and mail.
fn agent_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>, b: &str) {
    check(
        repo,
        seen,
        "agent create, show, update, retire, bind",
        &["agent", "create", "rig/nux"],
    );
    check(repo, seen, "agent list", &["agent", "list"]);
    check(repo, seen, "sling", &["sling", b, "rig/nux"]);
    let hook = check(repo, seen, "hook AGENT", &["hook", "rig/nux"]);
    for item in hook["hook"].as_array().expect("the hook is a list") {
        check_nested("hook AGENT", "hook", item, false);
    }
    repo.beads(&["agent", "bind", "rig/nux"]);
    let started = check(repo, seen, "prime, session start", &["session", "start"]);
    let sid = text(&started["session"]["id"], "session id");
    check(repo, seen, "prime, session start", &["prime"]);
    let session = "session show, end, heartbeat, model, usage, handoff";
    check(repo, seen, session, &["session", "show", &sid]);
    check(repo, seen, "session list", &["session", "list"]);
    write_file(&repo.path.join("notes.txt"), "work in progress\n");
    check(repo, seen, "session snapshot", &["session", "snapshot"]);
    check(repo, seen, "log, session log", &["session", "log", &sid]);
    let message = "mail send, reply, read, peek, ack, archive";
    check(
        repo,
        seen,
        message,
        &["--as", "rig/nux", "mail", "send", "rig/nux", "-s", "hi"],
    );
    check(
        repo,
        seen,
        "mail inbox",
        &["--as", "rig/nux", "mail", "inbox"],
    );
    check(
        repo,
        seen,
        "mail thread, mail search",
        &["--as", "rig/nux", "mail", "search", "hi"],
    );
    check(repo, seen, session, &["session", "end"]);
    check(repo, seen, "unsling", &["unsling", "rig/nux"]);
}

/// The documents of formulas (a YAML `chore` and a TOML `signoff` with a human
/// gate) and of gates, on a poured `signoff`.
fn formula_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>) {
    write_file(
        &repo.path.join(".beads/formulas/chore.yaml"),
        "steps:\n  - id: sweep\n    title: Sweep\n  - id: mop\n    title: Mop\n    needs: [sweep]\n",
    );
    check(repo, seen, "formula list", &["formula", "list"]);
    check(repo, seen, "formula show", &["formula", "show", "chore"]);
    check(repo, seen, "formula validate", &["formula", "validate"]);
    write_file(
        &repo.path.join(".beads/formulas/signoff.formula.toml"),
        "formula = \"signoff\"\n[[steps]]\nid = \"ok\"\ntitle = \"Sign off\"\ntype = \"human\"\n",
    );
    check(repo, seen, "formula cook", &["formula", "cook", "signoff"]);
    check(repo, seen, "mol seed", &["mol", "seed", "signoff"]);
    let poured = repo.beads_json(&["mol", "pour", "signoff"]);
    let signed = text(&poured["steps"][0]["id"], "gate id");
    let gates = "gate list, gate resolve, human";
    check(repo, seen, gates, &["gate", "list"]);
    check(repo, seen, gates, &["human"]);
    check(repo, seen, gates, &["gate", "resolve", &signed]);
}

/// The documents of molecules and wisps poured from the formula `chore`, with a
/// plan, a query, purging and SQL on the side.
fn molecule_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>) {
    let poured = check(repo, seen, "mol pour, mol wisp", &["mol", "pour", "chore"]);
    let mol = text(&poured["molecule"]["id"], "molecule id");
    check(repo, seen, "mol progress", &["mol", "progress", &mol]);
    check(repo, seen, MANY, &["ready", "--mol", &mol]);
    let plan = repo.path.join("plan.json");
    write_file(&plan, r#"{"nodes":[{"key":"k","title":"From a plan"}]}"#);
    let plan = plan.to_str().expect("utf-8");
    check(repo, seen, "create --graph", &["create", "--graph", plan]);
    check(repo, seen, MANY, &["query", "status=open OR status=closed"]);
    let current = check(repo, seen, "mol current", &["mol", "current", &mol]);
    check_nested("mol current", "steps", &current[0]["steps"][0], true);
    check(repo, seen, "mol list", &["mol", "list"]);
    check(repo, seen, "mol bond", &["mol", "bond", "chore", &mol]);
    let made = check(repo, seen, "mol pour, mol wisp", &["mol", "wisp", "chore"]);
    let wisp = text(&made["molecule"]["id"], "wisp id");
    check(repo, seen, "mol wisp list", &["mol", "wisp", "list"]);
    check(repo, seen, "mol burn", &["mol", "burn", &wisp]);
    let wisp = text(
        &repo.beads_json(&["mol", "wisp", "chore"])["molecule"]["id"],
        "wisp id",
    );
    for step in repo.beads_json(&["mol", "progress", &wisp])["steps"]
        .as_array()
        .expect("steps")
    {
        repo.beads(&["close", step["id"].as_str().expect("step id")]);
    }
    check(repo, seen, "mol squash", &["mol", "squash", &wisp]);
    let closed = repo.create("Closed wisp", &["--ephemeral"]);
    repo.beads(&["close", &closed]);
    check(repo, seen, "purge", &["purge", "--dry-run"]);
    check(repo, seen, "purge", &["purge", "--force"]);
    check(repo, seen, "purge", &["purge", "--force"]);
    check(repo, seen, "mol wisp gc", &["mol", "wisp", "gc"]);
    let rows = check(
        repo,
        seen,
        "sql",
        &["sql", "SELECT id, priority FROM issues"],
    );
    assert!(rows[0]["priority"].is_i64(), "{rows}");
}

/// The documents of looking after the repository: upkeep, the remote `origin`,
/// hooks, setups, provenance, links between beads `a` and `b`, and the key-value
/// store.
fn repo_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>, origin: &Repo, a: &str, b: &str) {
    check(repo, seen, "gc", &["gc"]);
    check(repo, seen, "doctor", &["doctor"]);
    check(repo, seen, "remote setup", &["remote", "setup", "origin"]);
    check(repo, seen, "remote prune", &["remote", "prune"]);
    check(repo, seen, "sync, pull, push", &["sync"]);
    check(repo, seen, "sync, pull, push", &["pull"]);
    let hooks = "hooks install, uninstall, status";
    check(repo, seen, hooks, &["hooks", "status"]);
    check(repo, seen, hooks, &["hooks", "install"]);
    check(repo, seen, hooks, &["hooks", "uninstall"]);
    let all = "setup claude, setup codex, setup gemini, setup agents-md";
    check(repo, seen, all, &["setup", "claude"]);
    check(repo, seen, "setup status", &["setup", "status"]);
    let head = origin.head();
    repo.git(&["fetch", "-q", "origin"]);
    check(repo, seen, "provenance", &["provenance", &head]);
    check(repo, seen, "verify", &["verify"]);
    check(repo, seen, "whoami", &["whoami"]);
    check(repo, seen, "link", &["link", a, b, "--type", "related"]);
    let wisp = repo.beads(&["create", "A wisp", "--ephemeral", "--silent"]);
    check(repo, seen, "promote", &["promote", wisp.trim()]);
    check(repo, seen, "ping", &["ping"]);
    check(repo, seen, "context", &["context"]);
    check(repo, seen, "dep list ID ID…", &["dep", "list", a, b]);
    check(repo, seen, "kv set, kv get", &["kv", "set", "k", "v"]);
    check(repo, seen, "kv set, kv get", &["kv", "get", "k"]);
    check(repo, seen, "kv clear", &["kv", "clear", "k"]);
    check(repo, seen, "migrate", &["migrate"]);
}

/// The documents of bd's long tail (`assign`, `todo`, memories, states, `prune`,
/// `batch`), on beads of their own.
fn tail_documents(repo: &Repo, seen: &mut BTreeSet<&'static str>) {
    let one = "assign, tag, priority, todo add";
    let id = text(
        &check(repo, seen, one, &["todo", "add", "A task"])["id"],
        "id",
    );
    check(repo, seen, one, &["assign", &id, "ann"]);
    check(repo, seen, one, &["tag", &id, "t"]);
    check(repo, seen, one, &["priority", &id, "1"]);
    check(repo, seen, "todo, todo list", &["todo"]);
    check(
        repo,
        seen,
        "remember",
        &["remember", "An insight", "--key", "i"],
    );
    check(repo, seen, "recall", &["recall", "i"]);
    check(repo, seen, "forget", &["forget", "i"]);
    let set = "set-state";
    check(repo, seen, set, &["set-state", &id, "mode=on"]);
    check(repo, seen, set, &["set-state", &id, "mode=on"]);
    check(repo, seen, "state", &["state", &id, "mode"]);
    check(repo, seen, "state list", &["state", "list", &id]);
    check(repo, seen, "todo done", &["todo", "done", &id]);
    check(
        repo,
        seen,
        "prune",
        &["prune", "--pattern", &id, "--dry-run"],
    );
    check(repo, seen, "prune", &["prune", "--pattern", &id, "--force"]);
    let file = repo.path.join("batch.txt");
    write_file(&file, "create task 2 Batched\n");
    let file = file.to_str().expect("path");
    check(repo, seen, "batch", &["batch", "-f", file, "--dry-run"]);
    check(repo, seen, "batch", &["batch", "-f", file]);
}
