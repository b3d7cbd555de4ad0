//! Git hooks, installed and fired by real `git`: blocks inside the user's hook files,
//! worktrees bound to the agent whose work waits for them, provenance notes that
//! follow their commits, and beads that travel with `git pull` and `git push`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{Repo, Sandbox, expect_success, write_file, write_script};
use serde_json::Value;

const BEGIN: &str = "# >>> git-beads >>>";

fn hooks_dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("hooks")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A remote with a store ([`Sandbox::remote_with_store`]), alice's first clone `a`,
/// and bob's clone `b`, which ran `init` (and so adopted the store).
fn two_clones(sb: &Sandbox) -> (Repo, Repo) {
    let (remote, a) = sb.remote_with_store("a");
    let b = sb.clone(&remote, "b", "bob");
    b.init();
    (a, b)
}

/// A repository with a store and git-beads' hooks installed.
fn hooked_store(sb: &Sandbox) -> Repo {
    let repo = sb.store();
    repo.beads(&["hooks", "install"]);
    repo
}

/// The args of `git beads worktree add PATH --agent AGENT --bead BEAD EXTRA…`.
fn worktree_add<'a>(
    path: &'a Path,
    agent: &'a str,
    bead: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "worktree",
        "add",
        path.to_str().expect("utf-8"),
        "--agent",
        agent,
        "--bead",
        bead,
    ];
    args.extend_from_slice(extra);
    args
}

/// Whether every hook of a `hooks` report is in `state`.
fn all_in_state(report: &Value, state: &str) -> bool {
    report["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .all(|h| h["state"] == state)
}

fn provenance(repo: &Repo, commit: &str) -> Value {
    repo.beads_json(&["provenance", commit])
}

#[test]
fn install_keeps_the_users_hooks_and_both_run() {
    let sb = Sandbox::new();
    let repo = sb.store();
    let dir = hooks_dir(&repo);
    let marker = sb.path().join("marks");
    let user_commit_msg = format!(
        "#!/bin/sh\necho prepare-commit-msg >> '{}'\nexit 0\n",
        marker.display()
    );
    write_script(&dir.join("prepare-commit-msg"), &user_commit_msg);
    write_script(
        &dir.join("pre-commit"),
        &format!("#!/bin/sh\necho pre-commit >> '{}'\n", marker.display()),
    );
    let (bead, session) = repo.agent_at_work();

    let report = repo.beads_json(&["hooks", "install"]);
    let hooks = report["hooks"].as_array().expect("hooks");
    assert_eq!(hooks.len(), 5, "{report}");
    assert!(all_in_state(&report, "installed"), "{report}");
    let prepare = hooks
        .iter()
        .find(|h| h["hook"] == "prepare-commit-msg")
        .expect("prepare-commit-msg");
    assert_eq!(prepare["change"], "added", "{report}");
    let text = read(&dir.join("prepare-commit-msg"));
    assert!(text.starts_with(&format!("#!/bin/sh\n{BEGIN}")), "{text}");
    assert!(text.ends_with("exit 0\n"), "the user's lines stay: {text}");
    // git-beads installs no post-commit hook.
    assert!(!dir.join("post-commit").exists(), "{report}");

    let head = repo.commit_file("a.txt", "a\n", "work on the login page");
    let marks = read(&marker);
    assert_eq!(
        marks, "pre-commit\nprepare-commit-msg\n",
        "the user's hooks ran"
    );
    let p = provenance(&repo, &head);
    assert_eq!(p["records"][0]["agent"], "rig/nux", "{p}");
    assert_eq!(p["records"][0]["session"], session.as_str(), "{p}");
    assert_eq!(p["records"][0]["beads"][0], bead.as_str(), "{p}");
}

#[test]
fn install_twice_is_one_block_and_uninstall_leaves_the_users_hook() {
    let (_sb, repo) = Sandbox::with_store();
    let dir = hooks_dir(&repo);
    let user = "#!/bin/bash\n# mine\necho checked out\n";
    write_script(&dir.join("post-checkout"), user);

    repo.beads(&["hooks", "install"]);
    let first = read(&dir.join("post-checkout"));
    let again = repo.beads_json(&["hooks", "install"]);
    assert!(
        again["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .all(|h| h.get("change").is_none()),
        "a second install changes nothing: {again}"
    );
    let second = read(&dir.join("post-checkout"));
    assert_eq!(first, second);
    assert_eq!(second.matches(BEGIN).count(), 1, "{second}");
    let status = repo.beads_json(&["hooks", "status"]);
    assert!(all_in_state(&status, "installed"), "{status}");
    assert_eq!(status["notes_rewrite"], true, "{status}");
    assert_eq!(
        repo.git(&["config", "--get-all", "notes.rewriteRef"])
            .trim(),
        "refs/notes/beads"
    );
    let text = repo.beads(&["hooks", "status"]);
    assert!(text.lines().all(|l| l.starts_with("installed")), "{text}");

    repo.beads(&["hooks", "uninstall"]);
    assert_eq!(
        read(&dir.join("post-checkout")),
        user,
        "the user's hook is intact"
    );
    for gone in ["pre-push", "prepare-commit-msg"] {
        assert!(
            !dir.join(gone).exists(),
            "{gone} held only git-beads' block"
        );
    }
    let status = repo.beads_json(&["hooks", "status"]);
    assert!(all_in_state(&status, "missing"), "{status}");
}

#[test]
fn core_hooks_path_is_honoured() {
    let (_sb, repo) = Sandbox::with_store();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let (_, session) = repo.agent_at_work();
    let report = repo.beads_json(&["hooks", "install"]);
    let custom = repo.path.join(".githooks");
    assert!(custom.join("prepare-commit-msg").exists(), "{report}");
    assert!(
        !hooks_dir(&repo).join("prepare-commit-msg").exists(),
        "{report}"
    );
    let head = repo.commit_file("b.txt", "b\n", "in a custom hooks dir");
    assert_eq!(
        provenance(&repo, &head)["records"][0]["session"],
        session.as_str()
    );
}

#[test]
fn husky_pre_commit_and_lefthook_setups_are_chained() {
    let (_sb, repo) = Sandbox::with_store();
    let (_, session) = repo.agent_at_work();
    // husky 9: git runs .husky/_/<hook>, which runs the script .husky/<hook>.
    let husky = repo.path.join(".husky");
    for hook in ["post-commit", "prepare-commit-msg", "pre-push"] {
        write_script(
            &husky.join("_").join(hook),
            &format!(
                "#!/bin/sh\ns=\"$(dirname \"$(dirname \"$0\")\")/{hook}\"\n[ -f \"$s\" ] || exit 0\nsh -e \"$s\" \"$@\"\n"
            ),
        );
    }
    std::fs::write(husky.join("prepare-commit-msg"), "echo husky-user-line\n").expect("write");
    repo.git(&["config", "core.hooksPath", ".husky/_"]);
    let report = repo.beads_json(&["hooks", "install"]);
    assert!(
        report["layout"]["managers"]
            .as_array()
            .expect("managers")
            .contains(&Value::from("husky"))
    );
    let script = read(&husky.join("prepare-commit-msg"));
    assert!(script.starts_with(BEGIN), "{script}");
    assert!(script.ends_with("echo husky-user-line\n"), "{script}");
    assert!(!read(&husky.join("_").join("prepare-commit-msg")).contains(BEGIN));
    let out = repo.git_output(&["commit", "-q", "--allow-empty", "-m", "under husky"]);
    assert!(out.status.success());
    // git shows a hook's stdout on stderr.
    assert!(String::from_utf8_lossy(&out.stderr).contains("husky-user-line"));
    let head = repo.head();
    assert_eq!(
        provenance(&repo, &head)["records"][0]["session"],
        session.as_str()
    );

    // pre-commit: its generated hook runs <hook>.legacy; lefthook: the lines to add.
    repo.git(&["config", "--unset", "core.hooksPath"]);
    let dir = hooks_dir(&repo);
    write_script(
        &dir.join("post-merge"),
        "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\nexit 0\n",
    );
    write_script(
        &dir.join("pre-push"),
        "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-push \"$@\"\n",
    );
    write_script(
        &dir.join("post-rewrite"),
        "#!/usr/bin/env python3\nprint('hi')\n",
    );
    let report = repo.beads_json(&["hooks", "install"]);
    let hook = |name: &str| {
        report["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .find(|h| h["hook"] == name)
            .cloned()
            .expect("hook")
    };
    assert_eq!(hook("post-merge")["via"], "pre-commit", "{report}");
    assert!(read(&dir.join("post-merge.legacy")).contains(BEGIN));
    assert!(!read(&dir.join("post-merge")).contains(BEGIN));
    assert_eq!(hook("pre-push")["state"], "skipped", "{report}");
    let advice = hook("pre-push")["advice"]
        .as_str()
        .expect("advice")
        .to_owned();
    assert!(
        advice.contains("run: git beads git-hook pre-push {1} {2}"),
        "the entry point the shims call: {report}"
    );
    assert!(!advice.contains("git beads hook "), "{report}");
    assert_eq!(hook("post-rewrite")["state"], "skipped", "{report}");
    assert!(!read(&dir.join("post-rewrite")).contains(BEGIN));
    let forced = repo.beads_json(&["hooks", "install", "--force"]);
    assert!(read(&dir.join("pre-push")).contains(BEGIN), "{forced}");
    repo.beads(&["hooks", "uninstall"]);
    assert!(!dir.join("post-merge.legacy").exists());
    assert!(!read(&dir.join("pre-push")).contains(BEGIN));
}

#[test]
fn worktree_add_binds_the_agent_and_the_first_prime_shows_its_hook() {
    let sb = Sandbox::new();
    let repo = sb.store();
    let bead = repo.create("Write the parser", &[]);
    let other = repo.create("Write the lexer", &[]);
    repo.beads(&["agent", "create", "rig/nux"]);
    repo.beads(&["agent", "create", "rig/max"]);
    repo.beads(&["hooks", "install"]);

    // Through the post-checkout hook.
    let wt = sb.path().join("wt-nux");
    let added = repo.beads_json(&worktree_add(
        &wt,
        "rig/nux",
        &bead,
        &["-b", "feature/parser"],
    ));
    assert_eq!(added["agent"], "rig/nux", "{added}");
    assert_eq!(added["by_hook"], true, "{added}");
    assert_eq!(added["branch"], "feature/parser", "{added}");
    let there = Repo::at(&sb, &wt, "alice");
    let primed = there.beads_json(&["prime"]);
    assert_eq!(primed["agent"]["name"], "rig/nux", "{primed}");
    assert_eq!(primed["hook"][0]["bead"]["id"], bead.as_str(), "{primed}");
    assert!(
        !repo
            .common_dir()
            .join("beads")
            .join("pending-worktrees.yaml")
            .exists(),
        "the plan was consumed"
    );

    // A session in the linked worktree: hooks open the worktree git points them at.
    let session = there.start_session(&[]);
    let head = there.commit_file("parser.rs", "fn parse() {}\n", "parser: first cut");
    let p = provenance(&repo, &head);
    assert_eq!(p["records"][0]["agent"], "rig/nux", "{p}");
    assert_eq!(p["records"][0]["session"], session.as_str(), "{p}");
    // The main worktree is not bound by any of this.
    assert!(repo.beads_json(&["prime"])["agent"].is_null());

    // Plain `git worktree add` on an agent's branch.
    let max = repo.worktree_on("wt-max", "agent/rig/max/lexer");
    assert_eq!(max.beads_json(&["prime"])["agent"]["name"], "rig/max");

    // Without hooks, `worktree add` binds by itself.
    repo.beads(&["hooks", "uninstall"]);
    let wt3 = sb.path().join("wt-nohooks");
    let added = repo.beads_json(&worktree_add(&wt3, "rig/max", &other, &["--detach"]));
    assert_eq!(added["by_hook"], false, "{added}");
    let third = Repo::at(&sb, &wt3, "alice");
    let primed = third.beads_json(&["prime"]);
    assert_eq!(primed["agent"]["name"], "rig/max", "{primed}");
    assert_eq!(primed["hook"][0]["bead"]["id"], other.as_str(), "{primed}");

    // A bead on another agent's hook is refused before any worktree is made.
    let wt4 = sb.path().join("wt-refused");
    let (code, err) = repo.beads_fail(&worktree_add(&wt4, "rig/nux", &other, &[]));
    assert_eq!(code, 3, "{err}");
    assert!(!wt4.exists());
}

#[test]
fn a_commit_in_a_session_carries_a_note_through_amend_and_rebase() {
    let sb = Sandbox::new();
    let repo = hooked_store(&sb);
    let (bead, session) = repo.agent_at_work();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    let head = repo.commit_file("login.rs", "fn login() {}\n", "login: check the password");

    let p = provenance(&repo, &head);
    let rec = p["records"][0].clone();
    assert_eq!(p["records"].as_array().map(Vec::len), Some(1), "{p}");
    assert_eq!(rec["agent"], "rig/nux", "{p}");
    assert_eq!(rec["session"], session.as_str(), "{p}");
    assert_eq!(rec["model"], "opus", "{p}");
    assert_eq!(rec["beads"][0], bead.as_str(), "{p}");
    assert_eq!(rec["store"].as_str().map(str::len), Some(40), "{p}");
    let log = repo.git(&["log", "--notes=beads", "-1"]);
    assert!(log.contains("Notes (beads):"), "{log}");
    assert!(log.contains("agent: rig/nux"), "{log}");
    let shown = repo.git(&["notes", "--ref=beads", "show", "HEAD"]);
    assert!(shown.contains(&format!("session: {session}")), "{shown}");
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Beads-Agent: rig/nux\n"), "{message}");
    assert!(
        message.contains(&format!("Beads-Session: {session}")),
        "{message}"
    );
    let human = repo.beads(&["provenance"]);
    assert!(human.contains("agent:    rig/nux"), "{human}");

    // Amend: the note follows, once; the trailers are not repeated.
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "-m",
        "login: check the password (amended)",
    ]);
    let amended = repo.head();
    assert_ne!(amended, head);
    let p = provenance(&repo, &amended);
    assert_eq!(p["records"].as_array().map(Vec::len), Some(1), "{p}");
    assert_eq!(p["records"][0], rec, "{p}");
    repo.git(&["commit", "-q", "--amend", "--no-edit"]);
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert_eq!(message.matches("Beads-Agent:").count(), 1, "{message}");
    assert_eq!(message.matches("Beads-Session:").count(), 1, "{message}");

    // Rebase while a later session runs (git runs post-commit for each commit it
    // picks): the rewritten commit keeps the note of the session that made it, and
    // the rebasing session adds none.
    let topic = repo.head();
    repo.beads(&["session", "end"]);
    repo.beads(&["session", "start"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.commit_file("other.rs", "// other\n", "other: meanwhile on main");
    repo.git(&["checkout", "-q", "topic"]);
    repo.git(&["rebase", "-q", "main"]);
    let rebased = repo.head();
    assert_ne!(rebased, topic);
    let p = provenance(&repo, &rebased);
    assert_eq!(p["records"].as_array().map(Vec::len), Some(1), "{p}");
    assert_eq!(p["records"][0], rec, "{p}");
    assert!(
        repo.git(&["log", "--notes=beads", "-1"])
            .contains("agent: rig/nux")
    );
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert_eq!(message.matches("Beads-Session:").count(), 1, "{message}");
    assert!(
        message.contains(&format!("Beads-Session: {session}")),
        "{message}"
    );

    // A commit without a running session gets no note.
    repo.beads(&["session", "end"]);
    let plain = repo.commit_file("c.txt", "c\n", "no session");
    let p = provenance(&repo, &plain);
    assert!(p["note"].is_null(), "{p}");
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(!message.contains("Beads-Agent"), "{message}");
}

/// Whether git itself (no git-beads command) sees a provenance note on `commit`.
fn git_sees_note(repo: &Repo, commit: &str) -> bool {
    repo.git_output(&["notes", "--ref=beads", "show", commit])
        .status
        .success()
}

#[test]
fn the_post_commit_shim_queues_the_note_and_the_next_command_writes_it() {
    let sb = Sandbox::new();
    let repo = hooked_store(&sb);
    let (bead, session) = repo.agent_at_work();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    let first = repo.commit_file("a.rs", "// a\n", "a: first");
    // No git-beads command ran since: the note waits in the queue.
    assert!(!git_sees_note(&repo, &first));
    // An amend before that still carries the note of the commit it replaces.
    repo.git(&["commit", "-q", "--amend", "-m", "a: first (amended)"]);
    let amended = repo.head();
    let second = repo.commit_file("b.rs", "// b\n", "b: second");
    // So does a rebase of queued commits.
    repo.git(&["checkout", "-q", "main"]);
    repo.commit_file("m.rs", "// m\n", "m: meanwhile on main");
    repo.git(&["checkout", "-q", "topic"]);
    repo.git(&["rebase", "-q", "main"]);
    let rebased = repo.head();
    assert_ne!(rebased, second);
    for c in [&first, &amended, &second, &rebased] {
        let p = provenance(&repo, c);
        assert_eq!(p["records"].as_array().map(Vec::len), Some(1), "{c}: {p}");
        assert_eq!(p["records"][0]["session"], session.as_str(), "{p}");
        assert_eq!(p["records"][0]["beads"][0], bead.as_str(), "{p}");
        assert!(git_sees_note(&repo, c), "{c}");
    }
    // A commit in a linked worktree is queued where every worktree's commands fold.
    repo.beads(&["agent", "create", "rig/max", "--role", "polecat"]);
    let wt = repo.worktree("wt");
    wt.beads(&["agent", "bind", "rig/max"]);
    let wt_session = wt.start_session(&[]);
    let there = wt.commit_file("w.rs", "// w\n", "w: in the worktree");
    let p = provenance(&repo, &there);
    assert_eq!(p["records"][0]["session"], wt_session.as_str(), "{p}");
    // A commit after the session ended is queued for nothing.
    wt.beads(&["session", "end"]);
    let plain = wt.commit_file("x.rs", "// x\n", "x: no session");
    assert!(provenance(&repo, &plain)["note"].is_null());
}

#[test]
fn notes_written_by_git_with_fan_out_are_read_and_extended() {
    let sb = Sandbox::new();
    let repo = hooked_store(&sb);
    // 300 commits with a note each, written by git fast-import (which fans out).
    let mut stream = String::new();
    for i in 1..=300 {
        stream.push_str(&format!(
            "commit refs/heads/many\nmark :{i}\ncommitter A <a@example.com> 1700000000 +0000\ndata 2\nc\n{}\n",
            if i == 1 { String::new() } else { format!("from :{}\n", i - 1) }
        ));
    }
    stream.push_str(
        "commit refs/notes/beads\ncommitter A <a@example.com> 1700000000 +0000\ndata 5\nnotes\n",
    );
    for i in 1..=300 {
        stream.push_str(&format!("N inline :{i}\ndata 12\n---\nby: git\n\n"));
    }
    let file = sb.path().join("stream");
    std::fs::write(&file, stream).expect("write");
    let out = repo
        .command("sh")
        .args([
            "-c",
            &format!("git fast-import --quiet < '{}'", file.display()),
        ])
        .output()
        .expect("fast-import");
    expect_success("git fast-import", &out);
    let tree = repo.git(&["ls-tree", "refs/notes/beads"]);
    assert!(
        tree.lines().all(|l| l.contains(" tree ")),
        "fanned out: {tree}"
    );
    let one = repo.git(&["rev-parse", "many~17"]).trim().to_owned();
    let p = provenance(&repo, &one);
    assert_eq!(p["other"][0], "by: git", "{p}");

    let (_, session) = repo.agent_at_work();
    let head = repo.commit_file("d.txt", "d\n", "in a session");
    // The next git-beads command writes the queued note.
    repo.beads(&["provenance", &head]);
    let shown = repo.git(&["notes", "--ref=beads", "show", &head]);
    assert!(shown.contains(&session), "{shown}");
    let listed = repo.git(&["notes", "--ref=beads", "list"]);
    assert_eq!(listed.lines().count(), 301);
    repo.assert_fsck_clean();
}

#[test]
fn git_pull_folds_in_the_beads_that_came_with_it() {
    let sb = Sandbox::new();
    let (a, b) = two_clones(&sb);
    b.beads(&["hooks", "install"]);

    let id = a.create("Came with the code", &[]);
    a.beads(&["sync"]);
    a.commit_file("code.rs", "fn main() {}\n", "code: more");
    a.git(&["push", "-q", "origin", "HEAD:main"]);

    // A plain `git pull`: the fetch refspecs `init` set up bring the beads along.
    b.git(&["pull", "-q"]);
    assert_eq!(b.bead_json(&id)["title"], "Came with the code");
    assert_eq!(
        b.store_head(),
        a.store_head(),
        "a fast-forward, no new commit"
    );
    let reflog = b.git(&["reflog", "--format=%gs", "refs/beads/main"]);
    assert!(
        !reflog.contains("sync"),
        "no `git beads sync` ran: {reflog}"
    );

    // `git pull --rebase` over a local commit: post-rewrite folds them in.
    let id2 = a.create("Came with a rebase", &[]);
    a.beads(&["sync"]);
    a.commit_file(
        "code2.rs",
        "fn two() {}
",
        "code: two",
    );
    a.git(&["push", "-q", "origin", "HEAD:main"]);
    b.commit_file(
        "local.rs",
        "// mine
",
        "local work",
    );
    b.git(&["pull", "-q", "--rebase"]);
    assert_eq!(b.bead_json(&id2)["title"], "Came with a rebase");
}

#[test]
fn git_pull_with_an_explicit_refspec_still_brings_the_beads() {
    let sb = Sandbox::new();
    let (a, b) = two_clones(&sb);
    b.beads(&["hooks", "install"]);
    let id = a.create("Came with origin main", &[]);
    a.beads(&["sync"]);
    a.commit_file("code.rs", "fn main() {}\n", "code: more");
    a.git(&["push", "-q", "origin", "HEAD:main"]);

    // `git pull origin main` fetches only main: the post-merge hook fetches the beads.
    let out = b.git_output(&["pull", "-q", "origin", "main"]);
    expect_success("git pull origin main", &out);
    assert_eq!(b.bead_json(&id)["title"], "Came with origin main");
    assert_eq!(b.store_head(), a.store_head());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("folded in the beads fetched from origin"),
        "{err}"
    );
}

/// What ref `name` of `remote` points at, as `repo` sees it with `git ls-remote`.
fn remote_ref(repo: &Repo, remote: &Path, name: &str) -> Option<String> {
    repo.git(&["ls-remote", remote.to_str().expect("utf-8"), name])
        .split_whitespace()
        .next()
        .map(str::to_owned)
}

#[test]
fn git_push_takes_the_beads_and_notes_along() {
    let sb = Sandbox::new();
    let (remote, a) = sb.remote_with_store("a");
    a.beads(&["hooks", "install"]);
    let (_bead, _session) = a.agent_at_work();
    a.commit_file("work.rs", "// work\n", "work in a session");
    let ls = |r: &str| remote_ref(&a, &remote, r);
    assert_ne!(ls("refs/beads/main"), Some(a.store_head()));
    a.git(&["push", "-q", "origin", "HEAD:main"]);
    assert_eq!(ls("refs/beads/main"), Some(a.store_head()));
    let notes = a.git(&["rev-parse", "refs/notes/beads"]).trim().to_owned();
    assert_eq!(ls("refs/notes/beads"), Some(notes));
    assert_eq!(ls("refs/heads/main"), Some(a.head()));

    // A remote whose store has moved on keeps its main; alice's store goes to her
    // replica ref there, and the code push goes through.
    let c = sb.clone(&remote, "c", "carol");
    c.init();
    c.create("From carol", &[]);
    c.beads(&["sync"]);
    let hers = a.create("From alice", &[]);
    let before = ls("refs/beads/main");
    a.commit_file("more.rs", "// more\n", "more work");
    let out = a.git_output(&["push", "-q", "origin", "HEAD:main"]);
    expect_success("git push", &out);
    assert_eq!(ls("refs/beads/main"), before);
    assert_eq!(ls("refs/heads/main"), Some(a.head()));
    let replicas = a.git(&[
        "ls-remote",
        remote.to_str().expect("utf-8"),
        "refs/beads/replicas/*",
    ]);
    assert_eq!(replicas.lines().count(), 1, "{replicas}");
    assert!(replicas.starts_with(&a.store_head()), "{replicas}");
    // carol's next sync takes alice's bead in and folds the replica ref.
    c.beads(&["sync"]);
    c.bead_json(&hers);
    assert_eq!(ls("refs/beads/main"), Some(c.store_head()));
}

#[test]
fn git_push_leaves_the_beads_of_an_agent_that_may_not_sync() {
    let sb = Sandbox::new();
    let (remote, a) = sb.remote_with_store("a");
    a.beads(&["hooks", "install"]);
    a.bind_new_agent("rig/nux", &["--can", "create,update"]);
    a.create("Not to be pushed", &[]);
    a.commit_file("work.rs", "// work\n", "work by an agent without sync");
    let ls = |r: &str| remote_ref(&a, &remote, r);
    let before = ls("refs/beads/main");
    assert_ne!(before, Some(a.store_head()));
    let out = a.git_output(&["push", "-q", "origin", "HEAD:main"]);
    expect_success("git push", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "git-beads: rig/nux may not sync, so its beads were not pushed to origin; the code push goes on"
        ],
        "{err}"
    );
    assert_eq!(ls("refs/heads/main"), Some(a.head()));
    assert_eq!(ls("refs/beads/main"), before);
}

#[test]
fn sync_merges_provenance_notes_per_commit() {
    let sb = Sandbox::new();
    let (a, b) = two_clones(&sb);
    let code = a.head();
    a.git(&["notes", "--ref=beads", "add", "-m", "---\nagent: a", &code]);
    b.git(&["notes", "--ref=beads", "add", "-m", "---\nagent: b", &code]);
    let shared = a.commit_file("s.txt", "s\n", "shared");
    a.git(&["push", "-q", "origin", "HEAD:main"]);
    b.git(&["pull", "-q", "origin", "main"]);
    for r in [&a, &b] {
        r.git(&[
            "notes",
            "--ref=beads",
            "add",
            "-m",
            "---\nagent: same",
            &shared,
        ]);
    }

    let v = a.beads_json(&["sync"]);
    assert_eq!(v["notes"]["pushed"], true, "{v}");
    let v = b.beads_json(&["sync"]);
    assert_eq!(v["notes"]["joined"], 1, "{v}");
    assert_eq!(v["notes"]["pushed"], true, "{v}");
    a.beads(&["sync"]);
    for r in [&a, &b] {
        let p = provenance(r, &code);
        assert_eq!(
            p["other"],
            serde_json::json!(["agent: a", "agent: b"]),
            "{p}"
        );
        let p = provenance(r, &shared);
        assert_eq!(p["other"], serde_json::json!(["agent: same"]), "{p}");
    }
    assert_eq!(
        a.git(&["rev-parse", "refs/notes/beads^{tree}"]),
        b.git(&["rev-parse", "refs/notes/beads^{tree}"])
    );
}

/// Adds `file` and commits it as `message` with PATH set to `path`, the message
/// followed by a comment line (as an editor shows it), which the prepare-commit-msg
/// shim leaves to git-beads.
fn commit_with_path(repo: &Repo, path: &std::ffi::OsStr, file: &str, message: &str) -> Output {
    std::fs::write(repo.path.join(file), "content\n").expect("write");
    repo.git(&["add", file]);
    let text = repo.path.join(".git").join("test-message");
    std::fs::write(
        &text,
        format!("{message}\n\n# a comment, as an editor shows\n"),
    )
    .expect("write the message");
    let text = text.to_string_lossy().into_owned();
    repo.git_output_env(
        &[("PATH", path)],
        &["commit", "-q", "--cleanup=strip", "-F", &text],
    )
}

/// Commits `file` with `git commit -m message` and PATH set to `path`.
fn commit_plainly_with_path(
    repo: &Repo,
    path: &std::ffi::OsStr,
    file: &str,
    message: &str,
) -> Output {
    std::fs::write(repo.path.join(file), "content\n").expect("write");
    repo.git(&["add", file]);
    repo.git_output_env(&[("PATH", path)], &["commit", "-q", "-m", message])
}

#[test]
fn a_broken_git_beads_does_not_stop_a_commit_unless_strict() {
    let sb = Sandbox::new();
    let repo = hooked_store(&sb);
    // prepare-commit-msg starts git-beads only while a session runs here.
    repo.agent_at_work();
    let broken = sb.path().join("broken-bin");
    write_script(
        &broken.join("git-beads"),
        "#!/bin/sh\necho 'git-beads: boom' >&2\nexit 1\n",
    );
    let mut path = std::ffi::OsString::from(&broken);
    path.push(":");
    path.push(common::path_env());

    let out = commit_with_path(&repo, &path, "e.txt", "despite a broken git-beads");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("git-beads: the prepare-commit-msg hook failed and was skipped"),
        "{err}"
    );
    // A plain message gets its trailers from the shim itself: no git-beads runs.
    let out = commit_plainly_with_path(&repo, &path, "g.txt", "plain message");
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Beads-Agent: rig/nux\n"), "{message}");
    let before = repo.head();

    repo.git(&["config", "beads.hooks.strict", "true"]);
    let out = commit_with_path(&repo, &path, "f.txt", "stopped by a strict hook");
    assert!(!out.status.success(), "strict: the commit is stopped");
    assert_eq!(repo.head(), before);

    // With a working git-beads, strict changes nothing for a healthy hook.
    repo.git(&["commit", "-q", "-m", "fine again"]);
}

#[test]
fn a_missing_git_beads_costs_one_line_per_hook() {
    let sb = Sandbox::new();
    let repo = hooked_store(&sb);
    repo.agent_at_work();
    // A PATH with git and nothing else: no git-beads anywhere git looks.
    let only_git = sb.path().join("only-git");
    std::fs::create_dir_all(&only_git).expect("mkdir");
    let git = std::env::split_paths(&common::path_env())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .expect("git on PATH");
    std::os::unix::fs::symlink(&git, only_git.join("git")).expect("symlink");

    let out = commit_with_path(&repo, only_git.as_os_str(), "m.txt", "without git-beads");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        ["git-beads: not found on PATH; the prepare-commit-msg hook did not run"],
        "{err}"
    );
    // A plain message needs no git-beads: the shim adds the trailers itself.
    let out = commit_plainly_with_path(&repo, only_git.as_os_str(), "p.txt", "plain");
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Beads-Agent: rig/nux\n"), "{message}");
    // Outside a session that hook has nothing to do, so it does not look.
    repo.beads(&["session", "end"]);
    let out = commit_with_path(&repo, only_git.as_os_str(), "n.txt", "no session");
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}

#[test]
fn the_note_names_the_molecule_step_being_worked() {
    let sb = Sandbox::new();
    let repo = hooked_store(&sb);
    write_file(
        &repo.path.join(".beads/formulas/chore.yaml"),
        "steps:\n  - id: sweep\n    title: Sweep\n  - id: mop\n    title: Mop\n    needs: [sweep]\n",
    );
    let mol = repo.beads(&["mol", "pour", "chore"]).trim().to_owned();
    repo.beads(&["agent", "create", "rig/nux"]);
    repo.beads(&["sling", &mol, "rig/nux"]);
    repo.beads(&["agent", "bind", "rig/nux"]);
    repo.beads(&["session", "start"]);
    let first = repo.commit_file("floor.txt", "swept\n", "sweep the floor");
    let rec = provenance(&repo, &first)["records"][0].clone();
    assert_eq!(rec["molecule"], mol.as_str(), "{rec}");
    assert_eq!(rec["step"], format!("{mol}.1"), "{rec}");
    assert!(
        rec["position"]
            .as_str()
            .expect("position")
            .starts_with("step 1 of 2"),
        "{rec}"
    );
    assert_eq!(rec["beads"][0], mol.as_str(), "{rec}");
    repo.beads(&["close", &format!("{mol}.1")]);
    let second = repo.commit_file("floor.txt", "mopped\n", "mop the floor");
    let rec = provenance(&repo, &second)["records"][0].clone();
    assert_eq!(rec["step"], format!("{mol}.2"), "{rec}");
    let human = repo.beads(&["provenance", &second]);
    assert!(
        human.contains(&format!("molecule: {mol} — step 2 of 2")),
        "{human}"
    );
}
