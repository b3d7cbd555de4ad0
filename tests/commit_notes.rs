//! The provenance notes of a session's code commits, with git-beads' hooks installed:
//! the prepare-commit-msg shim adds the `Beads-Agent:`/`Beads-Session:` trailers (in
//! the shell for a plain message, through git-beads for the rest), no hook runs after
//! the commit, and the next git-beads command finds the commits in the worktrees'
//! HEAD reflogs and writes their notes. Every way git makes a commit is tried here.

use crate::common;

use common::{Repo, Sandbox, write_script};
use serde_json::Value;

/// A store with the hooks installed and agent rig/nux at work in its main worktree;
/// returns it, the bead on the agent's hook and the session.
fn at_work(sb: &Sandbox) -> (Repo, String, String) {
    let repo = sb.store();
    repo.beads(&["hooks", "install"]);
    let (bead, session) = repo.agent_at_work();
    (repo, bead, session)
}

fn provenance(repo: &Repo, commit: &str) -> Value {
    repo.beads_json(&["provenance", commit])
}

/// Asserts `commit`'s note holds one record, of `session`.
fn assert_noted(repo: &Repo, commit: &str, session: &str) {
    let p = provenance(repo, commit);
    assert_eq!(
        p["records"].as_array().map(Vec::len),
        Some(1),
        "{commit}: {p}"
    );
    assert_eq!(p["records"][0]["session"], session, "{commit}: {p}");
}

fn message(repo: &Repo, commit: &str) -> String {
    repo.git(&["log", "-1", "--format=%B", commit])
}

/// Whether git itself (no git-beads command) sees a note on `commit`.
fn git_sees_note(repo: &Repo, commit: &str) -> bool {
    repo.git_output(&["notes", "--ref=beads", "show", commit])
        .status
        .success()
}

/// Runs the installed prepare-commit-msg hook on a message file holding `text`,
/// as git runs it for `git commit -m` (source `message`), with no git-beads on PATH:
/// the file as the shim left it, and whether it left the message to git-beads.
fn shim_on(repo: &Repo, sb: &Sandbox, text: &str) -> (String, bool) {
    let file = sb.path().join("shim-message");
    std::fs::write(&file, text).expect("write");
    let hook = repo.common_dir().join("hooks").join("prepare-commit-msg");
    let only_sh = sb.path().join("no-git-beads");
    std::fs::create_dir_all(&only_sh).expect("mkdir");
    let out = repo
        .command(hook.to_str().expect("utf-8"))
        .args([file.to_str().expect("utf-8"), "message"])
        .env("PATH", &only_sh)
        .output()
        .expect("the hook runs");
    let err = String::from_utf8_lossy(&out.stderr);
    let fell_back = err.contains("not found on PATH; the prepare-commit-msg hook did not run");
    assert!(fell_back || err.is_empty(), "{err}");
    (std::fs::read_to_string(&file).expect("read"), fell_back)
}

#[test]
fn the_shim_places_trailers_as_git_interpret_trailers_does_or_leaves_the_message_to_git_beads() {
    let sb = Sandbox::new();
    let (repo, _, session) = at_work(&sb);
    let plain = [
        "Fix the parser\n",
        "Fix the parser",
        "Fix\n\nBody text.\n",
        "Fix\n\nBody.\n\nSigned-off-by: A <a@example.com>\n",
        "Fix\n\nBeads-Agent: rig/nux\nBeads-Session: SESSION\n",
        "Fix\n\nBeads-Agent: rig/nux\nBeads-Session: ses-0\n",
        "Fix\n\nBeads-Agent: rig/other\n",
        "Fix\n\n\n\nBody.\n\n\n",
        "fix: the parser\n",
        "Fix\n\nSee: the docs\nand then some more text\nand more\nand more\nand more\n",
        "Fix\n\nBody.\n\nSigned-off-by: A <a@example.com>\nplain words\nmore words\n",
        "Fix\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
        "Fix\n\nBody: with a colon\n\nReviewed-by: B <b@example.com>\nRefs: #12\n",
        "Fix\n\n(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)\n",
        "Fix\n\nwords (cherry picked from commit 0123)\nmore\nmore\nmore\nmore\n",
        "Fix ünïcode — 🤖\n\nBody ünïcode.\n",
        "Fix\n\nkey-with-digits-2: v\n",
    ];
    let left = [
        "Fix\n\n# Please enter the commit message for your changes.\n#\n# On branch main\n",
        "Fix\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n",
        "\n# Please enter the commit message for your changes.\n",
        "",
        "\n\nFix: leading blank lines\n",
        "Fix\n\nCo-authored-by: X <x@example.com>\n  continued\n",
        "Fix\n\nbeads-agent: rig/nux\n",
        "Fix\n\nBeads-Agent:  rig/nux\n",
        "Fix \n",
        "Fix\n\n---\nnot a trailer: x\n",
        "Fix\n\nKey : value\n",
        "Fix\twith a tab\n",
        "Fix\r\n",
    ];
    for (texts, should_fall_back) in [(&plain[..], false), (&left[..], true)] {
        for text in texts {
            let text = text.replace("SESSION", &session);
            let (ours, fell_back) = shim_on(&repo, &sb, &text);
            assert_eq!(fell_back, should_fall_back, "{text:?} gave {ours:?}");
            if fell_back {
                assert_eq!(ours, text, "left untouched");
                continue;
            }
            let file = sb.path().join("by-git");
            std::fs::write(&file, &text).expect("write");
            repo.git(&[
                "interpret-trailers",
                "--in-place",
                "--if-exists",
                "addIfDifferent",
                "--trailer",
                "Beads-Agent: rig/nux",
                "--trailer",
                &format!("Beads-Session: {session}"),
                file.to_str().expect("utf-8"),
            ]);
            let by_git = std::fs::read_to_string(&file).expect("read");
            assert_eq!(ours, by_git, "for the message {text:?}");
        }
    }
}

#[test]
fn every_way_git_makes_a_commit_in_a_session_gets_its_note() {
    let sb = Sandbox::new();
    let (repo, bead, session) = at_work(&sb);
    let mut made = Vec::new();

    // A message that already has trailers keeps them, and gets ours in its block.
    repo.commit_file(
        "a.rs",
        "// a\n",
        "a: first\n\nCo-Authored-By: Claude <noreply@anthropic.com>",
    );
    let m = message(&repo, "HEAD");
    assert!(
        m.trim_end().ends_with(&format!(
            "Co-Authored-By: Claude <noreply@anthropic.com>\nBeads-Agent: rig/nux\nBeads-Session: {session}"
        )),
        "{m}"
    );
    made.push(repo.head());
    // --no-verify skips pre-commit and commit-msg, not prepare-commit-msg.
    std::fs::write(repo.path.join("b.rs"), "// b\n").expect("write");
    repo.git(&["add", "b.rs"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "b: unverified"]);
    made.push(repo.head());
    // A message from a file.
    let file = sb.path().join("msg");
    std::fs::write(&file, "c: from a file\n\nWith a body.\n").expect("write");
    repo.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-F",
        file.to_str().expect("utf-8"),
    ]);
    made.push(repo.head());
    // No git-beads ran since the first commit: no note yet, as git sees it.
    assert!(made.iter().all(|c| !git_sees_note(&repo, c)));
    // Amends, keeping the message and replacing it (the post-rewrite hook that
    // follows an amend runs git-beads, which writes the notes so far).
    repo.git(&["commit", "-q", "--amend", "--no-edit", "--allow-empty"]);
    made.push(repo.head());
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "--allow-empty",
        "-m",
        "c: reworded",
    ]);
    made.push(repo.head());
    // A merge commit, a cherry-pick, a revert and a squashed merge (git-beads' other
    // hooks run on the checkouts and the merge: they write the notes so far).
    repo.git(&["checkout", "-q", "-b", "side", "HEAD~2"]);
    let side = repo.commit_file("s.rs", "// s\n", "s: on the side");
    made.push(side.clone());
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    made.push(repo.head());
    repo.git(&["checkout", "-q", "-b", "picks", "HEAD~1"]);
    repo.git(&["cherry-pick", side.as_str()]);
    made.push(repo.head());
    repo.git(&["revert", "--no-edit", "HEAD"]);
    made.push(repo.head());
    repo.git(&["checkout", "-q", "-b", "squashed", "main~1"]);
    repo.git(&["merge", "-q", "--squash", "side"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    made.push(repo.head());
    let merges = repo.git(&["log", "--merges", "-1", "--format=%B", "main"]);
    assert!(merges.contains("Beads-Agent: rig/nux\n"), "{merges}");

    for c in &made {
        assert_noted(&repo, c, &session);
        // (A squashed merge quotes the squashed commits' messages, indented.)
        let text = message(&repo, c);
        let ours = text.lines().filter(|l| l.starts_with("Beads-Session:"));
        assert_eq!(ours.count(), 1, "{c}: {text}");
    }
    assert_eq!(provenance(&repo, &made[0])["records"][0]["beads"][0], bead);

    // A commit after the session ended carries no trailers and gets no note.
    repo.beads(&["session", "end"]);
    let after = repo.commit_file("z.rs", "// z\n", "z: after");
    assert!(!message(&repo, &after).contains("Beads-"));
    assert!(provenance(&repo, &after)["note"].is_null());
    repo.assert_fsck_clean();
}

#[test]
fn a_rebase_keeps_the_trailers_and_adds_no_session_of_its_own() {
    let sb = Sandbox::new();
    let (repo, _, first) = at_work(&sb);
    repo.git(&["checkout", "-q", "-b", "topic"]);
    let a = repo.commit_file("a.rs", "// a\n", "a: in the first session");
    // The first session ends (its commits are folded), a second one rebases.
    repo.beads(&["session", "end"]);
    let second = repo.start_session(&[]);
    repo.git(&["checkout", "-q", "main"]);
    let m = repo.commit_file("m.rs", "// m\n", "m: in the second session");
    repo.git(&["checkout", "-q", "topic"]);
    repo.git(&["rebase", "-q", "main"]);
    let rebased = repo.head();
    assert_ne!(rebased, a);
    let text = message(&repo, &rebased);
    assert!(
        text.contains(&format!("Beads-Session: {first}\n")),
        "{text}"
    );
    assert!(!text.contains(&second), "{text}");
    // git copied the first session's note; the second adds nothing to it.
    assert_noted(&repo, &rebased, &first);
    assert_noted(&repo, &m, &second);
}

#[test]
fn a_commit_whose_trailers_name_another_agents_session_gets_no_note() {
    let sb = Sandbox::new();
    let (repo, _, _) = at_work(&sb);
    repo.beads(&["session", "end"]);
    repo.beads(&["agent", "create", "rig/max", "--role", "polecat"]);
    let wt = repo.worktree("max-wt");
    wt.beads(&["agent", "bind", "rig/max"]);
    let theirs = wt.start_session(&[]);
    // Typed by hand outside any session: the session runs, but it is rig/max's.
    let forged = repo.commit_file(
        "f.rs",
        "// f\n",
        &format!("f: forged\n\nBeads-Agent: rig/nux\nBeads-Session: {theirs}"),
    );
    assert!(provenance(&repo, &forged)["note"].is_null());
}

#[test]
fn commits_of_a_worktree_removed_before_any_fold_still_get_their_notes() {
    let sb = Sandbox::new();
    let (repo, _, _) = at_work(&sb);
    repo.beads(&["agent", "create", "rig/max", "--role", "polecat"]);
    let wt = repo.worktree("max-wt");
    wt.beads(&["agent", "bind", "rig/max"]);
    let session = wt.start_session(&[]);
    let one = wt.commit_file("w1.rs", "// 1\n", "w: one");
    let two = wt.commit_file("w2.rs", "// 2\n", "w: two");
    // Its reflog goes with it; its branch stays.
    repo.git(&[
        "worktree",
        "remove",
        "--force",
        wt.path.to_str().expect("utf-8"),
    ]);
    for c in [&one, &two] {
        assert_noted(&repo, c, &session);
    }
}

#[test]
fn a_reflog_rewritten_or_a_lost_fold_record_loses_no_note_and_writes_none_twice() {
    let sb = Sandbox::new();
    let (repo, _, session) = at_work(&sb);
    let early = repo.commit_file("e.rs", "// e\n", "e: early");
    repo.beads(&["list"]);
    let later = repo.commit_file("l.rs", "// l\n", "l: later");
    // git rewrites the reflog (as `git reflog expire` does): the fold's place in it
    // means nothing now, so it reads it again from the start.
    let log = repo.common_dir().join("logs").join("HEAD");
    let text = std::fs::read_to_string(&log).expect("reflog");
    let kept: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&log, kept).expect("rewrite");
    assert_noted(&repo, &later, &session);
    assert_noted(&repo, &early, &session);
    // Where the folds stopped is lost: everything is read again, nothing doubled.
    std::fs::remove_file(repo.common_dir().join("beads").join("reflogs-folded")).expect("remove");
    let notes_before = repo.git(&["rev-parse", "refs/notes/beads"]);
    assert_noted(&repo, &later, &session);
    assert_eq!(repo.git(&["rev-parse", "refs/notes/beads"]), notes_before);
}

#[test]
fn a_worktree_of_a_bare_repository_without_reflogs_gets_its_notes() {
    let sb = Sandbox::new();
    let (repo, _, _) = at_work(&sb);
    repo.beads(&["session", "end"]);
    // git logs no HEAD moves here; git-beads makes the reflog so that it does.
    repo.git(&["config", "core.logAllRefUpdates", "false"]);
    repo.beads(&["agent", "create", "rig/max", "--role", "polecat"]);
    let wt = repo.worktree("bare-like");
    let name = wt.path.file_name().expect("name").to_owned();
    let log = repo.common_dir().join("worktrees").join(name).join("logs");
    let _ = std::fs::remove_dir_all(&log);
    wt.beads(&["agent", "bind", "rig/max"]);
    let session = wt.start_session(&[]);
    let c = wt.commit_file("b.rs", "// b\n", "b: no reflogs by default");
    assert_noted(&repo, &c, &session);
}

#[test]
fn commits_pulled_from_another_clone_get_no_note_here() {
    let sb = Sandbox::new();
    let (remote, a) = sb.remote_with_store("a");
    a.beads(&["hooks", "install"]);
    let (_, session) = a.agent_at_work();
    // Clone B knows the session (open), the agent and the bead.
    a.beads(&["sync"]);
    let b = sb.clone(&remote, "b", "bob");
    b.init();
    b.beads(&["hooks", "install"]);
    // A commit made in clone A's session reaches B before its note is written.
    let theirs = a.commit_file("t.rs", "// t\n", "t: theirs");
    a.git(&["push", "-q", "--no-verify", "origin", "main"]);
    b.git(&["pull", "-q", "--no-rebase", "origin", "main"]);
    assert_eq!(b.head(), theirs);
    b.beads(&["list"]);
    assert!(
        !git_sees_note(&b, &theirs),
        "clone B writes no note for a commit clone A made"
    );
    // Clone A writes it, and B gets it with the notes.
    assert_noted(&a, &theirs, &session);
    a.beads(&["sync"]);
    b.beads(&["sync"]);
    assert_noted(&b, &theirs, &session);
}

#[test]
fn a_hook_line_calling_post_commit_still_writes_the_note_at_once() {
    let sb = Sandbox::new();
    let (repo, _, session) = at_work(&sb);
    // lefthook and earlier shims call git-beads for post-commit.
    let hooks = repo.common_dir().join("hooks");
    write_script(
        &hooks.join("post-commit"),
        "#!/bin/sh\ngit beads git-hook post-commit \"$@\"\n",
    );
    let c = repo.commit_file("p.rs", "// p\n", "p: with a post-commit line");
    assert!(git_sees_note(&repo, &c));
    assert_noted(&repo, &c, &session);
}
