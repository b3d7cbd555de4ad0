//! Sessions as a durable execution identity: worktree snapshots that travel with
//! sync, resume on another clone, one live session per agent, and the evidence log.

use crate::common;

use std::fs;

use common::{Repo, Sandbox, log_subjects};

/// A bare remote, a first clone `a` with a store and an agent bound, and a second
/// clone `b` that has synced the store.
fn two_clones(sb: &Sandbox) -> (Repo, Repo) {
    let remote = sb.bare("remote.git");
    let seed = sb.repo("seed", "alice");
    std::fs::write(seed.path.join(".gitignore"), "secret.env\ntarget/\n").expect("write");
    std::fs::write(seed.path.join("lib.rs"), "fn main() {}\n").expect("write");
    seed.git(&["add", "."]);
    seed.git(&["commit", "-q", "-m", "code"]);
    seed.git(&["remote", "add", "origin", remote.to_str().expect("utf-8")]);
    seed.git(&["push", "-q", "origin", "main"]);
    seed.init();
    seed.beads(&["sync"]);
    let a = sb.synced_clone(&remote, "a", "alice");
    let b = sb.synced_clone(&remote, "b", "bob");
    (a, b)
}

#[test]
fn a_session_resumes_on_another_clone_byte_for_byte() {
    let sb = Sandbox::new();
    let (a, b) = two_clones(&sb);
    let step = a.create("Rewrite the parser", &[]);
    let docs = a.create("Write the docs", &[]);
    a.beads(&["agent", "create", "nux"]);
    a.beads(&["sling", &step, "nux"]);
    a.beads(&["agent", "bind", "nux"]);
    let sid = a.start_session(&[]);

    // Work in progress: a tracked change, a staged file, an untracked file, an ignored one.
    let tracked = "fn main() { println!(\"half done\"); }\n";
    fs::write(a.path.join("lib.rs"), tracked).expect("write");
    fs::write(a.path.join("staged.rs"), "pub mod x;\n").expect("write");
    a.git(&["add", "staged.rs"]);
    let binary: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    fs::create_dir_all(a.path.join("notes")).expect("mkdir");
    fs::write(a.path.join("notes/plan.bin"), &binary).expect("write");
    fs::write(a.path.join("secret.env"), "TOKEN=never-captured\n").expect("write");

    let snap = a.beads_json(&["session", "snapshot"]);
    assert_eq!(snap["snapshot"]["n"], 1);
    let tree = snap["snapshot"]["tree"].as_str().expect("tree").to_owned();
    let files = a.git(&["ls-tree", "-r", "--name-only", &tree]);
    assert!(
        files.contains("notes/plan.bin") && files.contains("staged.rs"),
        "{files}"
    );
    assert!(
        !files.contains("secret.env"),
        "ignored files are never captured:\n{files}"
    );

    // Nothing changed: no new snapshot, no new commit.
    let head = a.store_head();
    let again = a.beads_json(&["session", "snapshot"]);
    assert!(again["snapshot"].is_null());
    assert_eq!(a.store_head(), head);

    // No ref per session: the snapshot hangs off the store's tree.
    let refs = a.git(&["for-each-ref", "--format=%(refname)", "refs/beads/"]);
    assert_eq!(
        refs.lines()
            .filter(|r| r.contains("snapshot") || r.contains(&sid))
            .count(),
        0,
        "{refs}"
    );
    // After the snapshot the session still finishes a bead: the files behind that may
    // be missing from whatever resumes from the snapshot.
    a.beads(&["close", &docs]);
    a.beads(&["sync"]);
    // Clone A "dies" here: its session never ends.

    a.git(&["gc", "-q", "--prune=now"]);
    assert!(
        a.git(&["cat-file", "-t", &tree]).trim() == "tree",
        "snapshots survive gc"
    );

    b.beads(&["sync"]);
    let wt = sb.path().join("b-resumed");
    let resumed = b.beads_json(&[
        "session",
        "resume",
        &sid,
        "--worktree",
        wt.to_str().expect("utf-8"),
    ]);
    assert_eq!(resumed["from"], sid.as_str());
    assert_eq!(
        fs::read_to_string(wt.join("lib.rs")).expect("read"),
        tracked
    );
    assert_eq!(fs::read(wt.join("notes/plan.bin")).expect("read"), binary);
    assert_eq!(
        fs::read_to_string(wt.join("staged.rs")).expect("read"),
        "pub mod x;\n"
    );
    assert!(
        !wt.join("secret.env").exists(),
        "ignored files were never captured"
    );

    let there = Repo::at(&sb, &wt, "bob");
    let prime = there.beads_json(&["prime"]);
    assert_eq!(prime["agent"]["name"], "nux");
    assert_eq!(prime["resumed"]["session"], sid.as_str());
    assert!(prime["resumed"]["snapshot_at"].is_string());
    assert_eq!(prime["hook"][0]["bead"]["id"], step.as_str());
    let new_id = prime["session"]["id"].as_str().expect("id").to_owned();
    let later = prime["resumed"]["after_snapshot"]
        .as_array()
        .expect("after_snapshot");
    assert_eq!(later.len(), 1, "{later:?}");
    assert!(
        later[0]["subject"]
            .as_str()
            .is_some_and(|s| s.starts_with(&format!("close {docs}"))),
        "{later:?}"
    );
    // Its place in the evidence: the store commits of it and the session it resumes,
    // as many as `session log` lists.
    let so_far = there.beads_json(&["session", "log", &new_id]);
    let so_far = so_far.as_array().map_or(0, Vec::len);
    assert!(so_far > 2, "{so_far}");
    assert_eq!(prime["evidence"], so_far);
    let text = there.beads(&["prime"]);
    assert!(
        text.contains(&format!("RESUMED from session {sid}")),
        "{text}"
    );
    assert!(text.contains(&format!("; evidence at {so_far}.")), "{text}");
    assert!(
        text.contains(&format!(
            "after that snapshot session {sid} changed the store"
        )),
        "{text}"
    );
    let old = there.beads_json(&["session", "show", &sid]);
    assert_eq!(old["end"], "crashed", "the resumed session never ended");

    // The evidence log follows the resume chain.
    there.beads(&["comment", &step, "picked up on clone b"]);
    let log = there.beads_json(&["session", "log", &new_id]);
    let subjects = log_subjects(&log);
    assert!(
        subjects.iter().any(|s| s.starts_with("comment on")),
        "{subjects:?}"
    );
    assert!(
        subjects
            .iter()
            .any(|s| s.starts_with(&format!("session snapshot {sid}"))),
        "{subjects:?}"
    );
}

#[test]
fn resume_refuses_a_dirty_worktree_unless_forced() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("w", &[]);
    let sid = repo.start_session(&[]);
    fs::write(repo.path.join("README"), "snapshotted\n").expect("write");
    repo.beads(&["session", "snapshot"]);
    fs::write(repo.path.join("README"), "newer, unsaved work\n").expect("write");
    let (code, err) = repo.beads_fail(&["session", "resume", &sid]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        fs::read_to_string(repo.path.join("README")).expect("read"),
        "newer, unsaved work\n"
    );
    repo.beads(&["session", "resume", &sid, "--force"]);
    assert_eq!(
        fs::read_to_string(repo.path.join("README")).expect("read"),
        "snapshotted\n"
    );
}

#[test]
fn size_cap_retention_and_snapshots_on_end() {
    let (_sb, repo) = Sandbox::with_store();
    repo.git(&["config", "beads.snapshotMaxFile", "1k"]);
    repo.bind_new_agent("w", &[]);
    for round in 0..3 {
        repo.beads(&["session", "start"]);
        fs::write(repo.path.join("small.txt"), format!("round {round}\n")).expect("write");
        fs::write(repo.path.join("big.bin"), vec![b'x'; 4096]).expect("write");
        let ended = repo.beads_json(&["session", "end"]);
        let snap = &ended["snapshots"][0];
        assert_eq!(snap["skipped"][0]["path"], "big.bin", "{ended}");
        assert_eq!(snap["skipped"][0]["size"], 4096);
        let files = repo.git(&[
            "ls-tree",
            "-r",
            "--name-only",
            snap["tree"].as_str().expect("tree"),
        ]);
        assert!(
            files.contains("small.txt") && !files.contains("big.bin"),
            "{files}"
        );
    }
    let pruned = repo.beads_json(&["gc", "--keep", "1"]);
    assert_eq!(pruned["pruned"], 2);
    let snaps = repo.git(&[
        "ls-tree",
        "-r",
        "-d",
        "--name-only",
        "refs/beads/main",
        "snapshots",
    ]);
    assert_eq!(
        snaps
            .lines()
            .filter(|l| l.matches('/').count() == 3)
            .count(),
        1,
        "{snaps}"
    );
    let sessions = repo.beads_json(&["session", "list"]);
    let pruned_records = sessions
        .as_array()
        .expect("sessions")
        .iter()
        .filter(|s| s["snapshots"][0]["pruned"] == true)
        .count();
    assert_eq!(pruned_records, 2, "records stay, marked pruned");
}

#[test]
fn a_child_session_records_its_parents_live_session() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&["agent", "create", "boss"]);
    repo.beads(&["agent", "create", "boss/kid", "--parent", "boss"]);
    let boss = repo.start_session(&["--agent", "boss"]);
    let kid = repo.worktree("kid");
    let s = kid.beads_json(&["session", "start", "--agent", "boss/kid"])["session"].clone();
    assert_eq!(s["parent_session"], boss);
}
