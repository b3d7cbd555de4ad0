//! Agents and sessions, played with the real binary: the identity outlives every
//! session, the hook is kept, crashes are noticed, handoffs arrive first.

use crate::common;

use common::{Repo, Sandbox};
use serde_json::Value;

fn prime(repo: &Repo, agent: &str) -> Value {
    repo.beads_json(&["--as", agent, "prime"])
}

#[test]
fn the_whole_story_of_an_agent_across_three_sessions() {
    let (_sb, repo) = Sandbox::with_store();
    let bead = repo.create("Fix the login page", &["-p", "1"]);
    repo.beads(&[
        "agent",
        "create",
        "rig/nux",
        "--role",
        "polecat",
        "--budget",
        "tokens=1000",
    ]);
    repo.beads(&["sling", &bead, "rig/nux"]);
    repo.beads(&["agent", "bind", "rig/nux"]);

    let s1 = repo.beads_json(&["session", "start", "--model", "opus"]);
    let p1 = &s1;
    assert_eq!(p1["agent"]["name"], "rig/nux");
    assert_eq!(p1["hook"][0]["bead"]["id"], bead.as_str());
    assert_eq!(p1["hook"][0]["bead"]["status"], "hooked");
    let s1_id = p1["session"]["id"].as_str().expect("session id").to_owned();
    repo.beads(&[
        "session",
        "usage",
        "--turn",
        "--tokens",
        "300",
        "--spend",
        "0.25",
        "--tool-calls",
        "4",
    ]);
    repo.beads(&["session", "model", "sonnet"]);
    let shown = repo.beads_json(&["session", "show", &s1_id]);
    assert_eq!(shown["model"], "sonnet");
    assert_eq!(shown["models"][0]["from"], "opus");
    assert_eq!(shown["usage"]["tokens"], 300);
    assert_eq!(shown["usage"]["turns"], 1);
    assert_eq!(shown["ledger"].as_array().map(Vec::len), Some(1));
    // Session 1 dies here without ending: nothing is said, the process is just gone.

    let s2 = repo.beads_json(&["session", "start"]);
    let s2_id = s2["session"]["id"].as_str().expect("id").to_owned();
    assert_ne!(s2_id, s1_id);
    assert_eq!(s2["previous"]["id"], s1_id.as_str());
    assert_eq!(s2["previous"]["end"], "crashed");
    assert!(
        s2["previous"]["crash"]["step"]
            .as_str()
            .expect("where it stood")
            .contains(&bead),
        "{s2}"
    );
    assert_eq!(
        s2["hook"][0]["bead"]["id"],
        bead.as_str(),
        "the hook survives the crash"
    );
    let text = repo.beads(&["prime"]);
    assert!(text.contains("CRASHED"), "{text}");
    let old = repo.beads_json(&["session", "show", &s1_id]);
    assert_eq!(old["end"], "crashed");

    repo.beads(&[
        "handoff",
        "-m",
        "CSRF check still missing; start in auth.rs",
    ]);
    let ended = repo.beads_json(&["session", "show", &s2_id]);
    assert_eq!(ended["end"], "handoff");
    assert!(ended["store_at_end"].is_string());

    let s3 = repo.beads(&["session", "start"]);
    let first = s3.lines().nth(1).unwrap_or_default();
    assert!(first.contains("HANDOFF"), "the note comes first:\n{s3}");
    assert!(s3.contains("CSRF check still missing"), "{s3}");
    assert!(s3.contains(&bead), "the hook is still there:\n{s3}");

    // Everything but the worktree binding lives in the store.
    let tree = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/main"]);
    assert!(tree.contains("agents/rig/nux.yaml"), "{tree}");
    assert_eq!(
        tree.lines().filter(|l| l.starts_with("sessions/")).count(),
        3,
        "{tree}"
    );
    assert!(!tree.contains("worktree"), "{tree}");
    let agent_yaml = repo.git(&["show", "refs/beads/main:agents/rig/nux.yaml"]);
    assert!(agent_yaml.contains(&bead), "{agent_yaml}");
    let authors = repo.git(&["log", "--format=%an", "refs/beads/main", "-3"]);
    assert!(authors.lines().all(|a| a == "rig/nux"), "{authors}");
}

#[test]
fn finished_work_leaves_the_hook_in_the_commit_that_finishes_it() {
    let (_sb, repo) = Sandbox::with_store();
    let done = repo.create("Fix the login page", &[]);
    let gone = repo.create("Drop the old page", &[]);
    let kept = repo.create("Write the docs", &[]);
    repo.beads(&["agent", "create", "rig/nux"]);
    for id in [&done, &gone, &kept] {
        repo.beads(&["sling", id, "rig/nux"]);
    }
    repo.beads(&["close", &done]);
    let changed = repo.git(&["diff-tree", "-r", "--name-only", "refs/beads/main"]);
    assert!(
        changed.contains("agents/rig/nux.yaml") && changed.contains(&common::doc_path(&done)),
        "one commit closes it and takes it off the hook:\n{changed}"
    );
    repo.beads(&["delete", &gone, "--force"]);
    let hook: Vec<Value> = prime(&repo, "rig/nux")["hook"]
        .as_array()
        .expect("hook")
        .clone();
    let on_hook: Vec<&str> = hook
        .iter()
        .filter_map(|h| h["bead"]["id"].as_str())
        .collect();
    assert_eq!(on_hook, [kept.as_str()]);
    let text = repo.beads(&["--as", "rig/nux", "prime"]);
    assert!(!text.contains(&done) && !text.contains(&gone), "{text}");
    let out = repo.beads_output(&["doctor"]);
    let report = common::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(!report.contains("[hooks]"), "{report}");
}

#[test]
fn budget_overrun_exits_non_zero_and_prime_shows_what_is_left() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("a1", &["--budget", "tokens=1000,spend=2,tool-calls=10"]);
    repo.beads(&["session", "start"]);
    repo.beads(&["session", "usage", "--tokens", "400", "--spend", "0.5"]);
    let left = prime(&repo, "a1")["budget_left"].clone();
    assert_eq!(left["tokens"], 600);
    assert_eq!(left["spend"], 1.5);
    assert_eq!(left["tool_calls"], 10);
    let (code, err) = repo.beads_fail(&["session", "usage", "--tokens", "700"]);
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("over budget") && err.contains("fresh session"),
        "{err}"
    );
    let sessions = repo.beads_json(&["session", "list"]);
    assert_eq!(
        sessions[0]["usage"]["tokens"], 1100,
        "the usage itself is recorded"
    );
}

#[test]
fn a_session_over_budget_may_only_report_hand_off_or_end() {
    let (_sb, repo) = Sandbox::with_store();
    let bead = repo.create("Work", &[]);
    repo.bind_new_agent("a1", &["--budget", "tokens=1000"]);
    repo.beads(&["session", "start"]);
    repo.beads(&["update", &bead, "--title", "Within budget"]);
    let (code, _) = repo.beads_fail(&["session", "usage", "--tokens", "1500"]);
    assert_eq!(code, 5);

    let head = repo.store_head();
    for args in [
        &["create", "More"][..],
        &["update", &bead, "--title", "Over budget"],
        &["close", &bead],
        &["ready", "--claim"],
    ] {
        let (code, err) = repo.beads_fail(args);
        assert_eq!(code, 5, "{args:?}: {err}");
        assert!(
            err.starts_with("error: session ")
                && err.contains("of a1 is over budget (tokens over by 500)"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("--apply-now") && err.contains("session end"),
            "{err}"
        );
    }
    assert_eq!(repo.store_head(), head, "nothing was written");
    // Reporting usage goes on (and still says it is over).
    let (code, _) = repo.beads_fail(&["session", "usage", "--tokens", "10"]);
    assert_eq!(code, 5);

    // Raised for the running session, the budget lets it work again.
    repo.beads(&[
        "--as-person",
        "agent",
        "update",
        "a1",
        "--budget",
        "tokens=5000",
        "--apply-now",
    ]);
    repo.beads(&["update", &bead, "--title", "Raised"]);
    // Over again, it may still hand off and end.
    let (code, _) = repo.beads_fail(&["session", "usage", "--tokens", "9000"]);
    assert_eq!(code, 5);
    repo.beads(&["handoff", "-m", "out of budget; next: the tests"]);
    repo.beads(&["update", &bead, "--title", "The next session"]);
}

#[test]
fn a_child_can_only_narrow_its_parent() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&[
        "agent",
        "create",
        "mayor",
        "--can",
        "create,claim,spawn,sling",
        "--budget",
        "tokens=1000",
    ]);
    let before = repo.store_head();
    let (code, err) = repo.beads_fail(&[
        "agent",
        "create",
        "mayor/x",
        "--parent",
        "mayor",
        "--can",
        "create,sync",
    ]);
    assert_eq!(code, 5);
    assert!(err.contains("sync"), "{err}");
    let (code, err) = repo.beads_fail(&[
        "agent",
        "create",
        "mayor/y",
        "--parent",
        "mayor",
        "--budget",
        "tokens=5000",
    ]);
    assert_eq!(code, 5);
    assert!(err.contains("tokens"), "{err}");
    assert_eq!(repo.store_head(), before, "nothing changed");
    // Acting as the parent, a child inherits and narrows.
    repo.beads(&[
        "--as", "mayor", "agent", "create", "mayor/z", "--can", "create",
    ]);
    let z = repo.beads_json(&["agent", "show", "mayor/z"]);
    assert_eq!(z["parent"], "mayor");
    assert_eq!(
        z["authority"]["capabilities"],
        serde_json::json!(["create"])
    );
    assert_eq!(z["authority"]["budget"]["tokens"], 1000);
    // The child may not act beyond its capabilities, nor create agents.
    let (code, _) = repo.beads_fail(&["--as", "mayor/z", "agent", "create", "mayor/z/w"]);
    assert_eq!(code, 5);
    let id = repo.create("t", &[]);
    let (code, err) = repo.beads_fail(&["--as", "mayor/z", "close", &id]);
    assert_eq!(code, 5, "{err}");
    // Narrowing the parent narrows its children.
    repo.beads(&["agent", "update", "mayor", "--can", "claim,spawn"]);
    let z = repo.beads_json(&["agent", "show", "mayor/z"]);
    assert_eq!(z["authority"]["capabilities"], serde_json::json!([]));
    assert!(!z["decisions"].as_array().expect("decisions").is_empty());
}

#[test]
fn hostile_agent_names_are_refused() {
    let (_sb, repo) = Sandbox::with_store();
    let before = repo.store_head();
    for bad in [
        "../x",
        "a//b",
        "A",
        "a\tb",
        "x.lock",
        "post-commit",
        "a/../../etc",
        "/abs",
        "a b",
    ] {
        let (code, err) = repo.beads_fail(&["agent", "create", bad]);
        assert_eq!(code, 2, "{bad:?}: {err}");
    }
    assert_eq!(repo.store_head(), before);
}

/// GIT_BEADS_AGENT set but empty (a harness that clears it) means no agent, as unset
/// does; one that names no agent is refused; `--as-person` ignores it.
#[test]
fn an_empty_agent_variable_means_none() {
    let (_sb, repo) = Sandbox::with_store();
    let made = |env: &[(&str, &str)], args: &[&str]| {
        let out = repo.beads_output_env(env, &[&["--json", "create", "x"][..], args].concat());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        v["created_by"].as_str().expect("created_by").to_owned()
    };
    let person = made(&[], &[]);
    assert_eq!(made(&[("GIT_BEADS_AGENT", "")], &[]), person);
    repo.beads(&["agent", "create", "rig/nux"]);
    assert_eq!(made(&[("GIT_BEADS_AGENT", "rig/nux")], &[]), "rig/nux");
    assert_eq!(
        made(&[("GIT_BEADS_AGENT", "rig/nux")], &["--as-person"]),
        person
    );
    let before = repo.store_head();
    let out = repo.beads_output_env(&[("GIT_BEADS_AGENT", "Not An Agent")], &["create", "y"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("error: GIT_BEADS_AGENT: \"Not An Agent\" is not a valid agent name"),
        "{err}"
    );
    assert_eq!(repo.store_head(), before);
}

#[test]
fn two_worktrees_bound_to_two_agents_see_their_own_hooks() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("for alpha", &[]);
    let b = repo.create("for beta", &[]);
    repo.beads(&["agent", "create", "alpha"]);
    repo.beads(&["agent", "create", "beta"]);
    repo.beads(&["sling", &a, "alpha"]);
    repo.beads(&["sling", &b, "beta"]);
    let other = repo.worktree_on("wt-beta", "beta-work");
    repo.beads(&["agent", "bind", "alpha"]);
    other.beads(&["agent", "bind", "beta"]);
    repo.beads(&["session", "start"]);
    other.beads(&["session", "start"]);
    let pa = repo.beads_json(&["prime"]);
    let pb = other.beads_json(&["prime"]);
    assert_eq!(pa["agent"]["name"], "alpha");
    assert_eq!(pa["hook"][0]["bead"]["id"], a.as_str());
    assert_eq!(pb["agent"]["name"], "beta");
    assert_eq!(pb["hook"][0]["bead"]["id"], b.as_str());
    assert_eq!(pb["hook"].as_array().map(Vec::len), Some(1));
}

#[test]
fn racing_slings_have_exactly_one_winner() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("contested", &[]);
    let agents: Vec<String> = (0..6).map(|i| format!("racer{i}")).collect();
    for a in &agents {
        repo.beads(&["agent", "create", a]);
    }
    let children: Vec<_> = agents
        .iter()
        .map(|a| {
            repo.beads_command(&[], &["sling", &id, a])
                .spawn()
                .expect("spawns")
        })
        .collect();
    let codes: Vec<i32> = children
        .into_iter()
        .map(|c| {
            c.wait_with_output()
                .expect("waits")
                .status
                .code()
                .unwrap_or(-1)
        })
        .collect();
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 1, "{codes:?}");
    assert!(codes.iter().all(|c| *c == 0 || *c == 3), "{codes:?}");
    let bead = repo.bead_json(&id);
    assert_eq!(bead["status"], "hooked");
    let holder = bead["assignee"].as_str().expect("assignee").to_owned();
    let hooked: Vec<String> = agents
        .iter()
        .filter(|a| {
            repo.beads_json(&["hook", a])["hook"]
                .as_array()
                .is_some_and(|h| !h.is_empty())
        })
        .cloned()
        .collect();
    assert_eq!(hooked, vec![holder]);
}

#[test]
fn authority_granted_mid_session_waits_for_the_next_session() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("w", &["--can", "create"]);
    repo.beads(&["session", "start"]);
    let id = repo.create("x", &[]);
    repo.beads(&[
        "--as-person",
        "agent",
        "update",
        "w",
        "--can",
        "create,close",
    ]);
    let (code, _) = repo.beads_fail(&["close", &id]);
    assert_eq!(
        code, 5,
        "the running session keeps the authority it started with"
    );
    repo.beads(&["session", "end"]);
    repo.beads(&["session", "start"]);
    repo.beads(&["close", &id]);
    let decisions = repo.beads_json(&["agent", "show", "w"])["decisions"].clone();
    assert!(
        decisions[0]["what"]
            .as_str()
            .expect("what")
            .contains("grant close"),
        "{decisions}"
    );
}

#[test]
fn a_live_session_elsewhere_is_refused_unless_taken_over() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("solo", &[]);
    let first = repo.start_session(&[]);
    let other = repo.worktree_on("wt2", "other");
    let (code, err) = other.beads_fail(&["session", "start", "--agent", "solo"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("--take-over"), "{err}");
    other.beads(&["session", "start", "--agent", "solo", "--take-over"]);
    let old = repo.beads_json(&["session", "show", &first]);
    assert_eq!(old["end"], "superseded");
    // A restart in the same worktree simply supersedes (as crashed).
    other.beads(&["session", "start", "--agent", "solo"]);
}

#[test]
fn claude_code_hooks_record_the_harness_session_and_continue_it() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("claude1", &[]);
    repo.beads(&["setup", "claude"]);
    let settings =
        std::fs::read_to_string(repo.path.join(".claude/settings.json")).expect("written");
    assert!(
        settings.contains("git beads session start --hook-input"),
        "{settings}"
    );
    repo.beads(&["setup", "claude"]);
    let again = std::fs::read_to_string(repo.path.join(".claude/settings.json")).expect("written");
    assert_eq!(settings, again, "setup is idempotent");
    let input =
        r#"{"session_id":"abc-123","cwd":".","hook_event_name":"SessionStart","source":"startup"}"#;
    let run = |args: &[&str]| {
        let out = common::feed(&mut repo.beads_command(&[], args), input.as_bytes());
        common::expect_success(format_args!("git beads {args:?}"), &out)
    };
    let primed = run(&["session", "start", "--hook-input"]);
    assert!(primed.contains("you are agent claude1"), "{primed}");
    run(&["session", "start", "--hook-input"]);
    let sessions = repo.beads_json(&["session", "list"]);
    assert_eq!(
        sessions.as_array().map(Vec::len),
        Some(1),
        "a resume continues the session"
    );
    assert_eq!(sessions[0]["harness_id"], "abc-123");
    run(&["session", "heartbeat", "--hook-input"]);
    run(&["session", "end", "--hook-input"]);
    run(&["session", "end", "--hook-input"]);
    let s = repo.beads_json(&["session", "list"])[0].clone();
    assert_eq!(s["end"], "clean");
}

#[test]
fn a_worktree_bound_to_a_retired_agent_is_told_how_to_unbind() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("rig/old", &[]);
    repo.beads(&["--as-person", "agent", "retire", "rig/old"]);
    let (code, err) = repo.beads_fail(&["create", "By whom?"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.starts_with("error: this worktree is bound to agent rig/old, which is retired\n"),
        "{err}"
    );
    assert!(err.contains("hint: `git beads agent unbind`"), "{err}");
    repo.beads(&["agent", "unbind"]);
    repo.create("By the person", &[]);
}

/// A Claude Code hook that runs outside the repository opens the store from the `cwd`
/// its input names.
#[test]
fn claude_code_hooks_open_the_store_at_the_inputs_cwd() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("claude1", &[]);
    let elsewhere = common::tempdir();
    let input = serde_json::json!({
        "session_id": "abc-123",
        "cwd": repo.path,
        "hook_event_name": "SessionStart",
    })
    .to_string();
    let run = |args: &[&str]| {
        let mut cmd = repo.beads_command(&[], args);
        cmd.current_dir(elsewhere.path());
        let out = common::feed(&mut cmd, input.as_bytes());
        common::expect_success(format_args!("git beads {args:?}"), &out)
    };
    let primed = run(&["session", "start", "--hook-input"]);
    assert!(primed.contains("you are agent claude1"), "{primed}");
    run(&["session", "end", "--hook-input"]);
    let s = repo.beads_json(&["session", "list"])[0].clone();
    assert_eq!(
        (&s["harness_id"], &s["end"]),
        (&"abc-123".into(), &"clean".into()),
        "{s}"
    );
}
