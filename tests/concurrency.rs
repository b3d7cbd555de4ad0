//! Many writers at once and writers killed at random moments, with real processes:
//! no acknowledged write is lost, a claim has exactly one winner, and a killed
//! writer leaves a store that reads, a clean `git fsck`, and no lock in the way.

use crate::common;

use std::collections::BTreeSet;
use std::process::{Child, Output};
use std::sync::Barrier;
use std::time::Duration;

use common::{Repo, Rng, Sandbox, concurrent_creates, doc_path, heavy, on_threads, stdout};

#[test]
fn twenty_processes_creating_beads_at_once_make_exactly_as_many() {
    const WRITERS: usize = 20;
    // 15 each (50 under `GIT_BEADS_STRESS=1`, a thousand in all).
    let each = crate::reliability::count(15, 50);
    let _heavy = heavy();
    let (_sb, repo) = Sandbox::with_store();
    // What this proves (serialized writers, nothing lost) does not rest on fsync, which
    // guards against power loss and would make so many commits a slow test.
    repo.git(&["config", "core.fsync", "none"]);
    let made = concurrent_creates(&repo, WRITERS, each);
    let printed: BTreeSet<&String> = made.iter().flatten().collect();
    assert_eq!(
        printed.len(),
        WRITERS * each,
        "every create printed a distinct id"
    );
    let stored = repo.listed("id");
    assert_eq!(stored.len(), WRITERS * each);
    let stored: BTreeSet<String> = stored.into_iter().collect();
    assert_eq!(stored, printed.into_iter().cloned().collect());
    let titles: BTreeSet<String> = repo.listed("title").into_iter().collect();
    assert_eq!(
        titles.len(),
        WRITERS * each,
        "no write was replaced by another"
    );
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        1 + WRITERS * each,
        "one commit per create"
    );
    assert_eq!(
        repo.git(&["rev-list", "--merges", "refs/beads/main"])
            .trim(),
        ""
    );
    repo.assert_fsck_clean();
}

#[test]
fn ten_processes_racing_a_claim_have_exactly_one_winner() {
    const RACERS: usize = 10;
    let _heavy = heavy();
    let (_sb, repo) = Sandbox::with_store();
    for round in 0..3 {
        let id = repo.create(&format!("Contested {round}"), &[]);
        let commits = repo.commit_count("refs/beads/main");
        let children: Vec<(String, Child)> = (0..RACERS)
            .map(|r| {
                let name = format!("agent{r}");
                let child = repo
                    .beads_command(
                        &[
                            ("GIT_AUTHOR_NAME", &name),
                            ("GIT_AUTHOR_EMAIL", &format!("{name}@example.com")),
                        ],
                        &["update", &id, "--claim"],
                    )
                    .spawn()
                    .expect("spawn racer");
                (name, child)
            })
            .collect();
        let results: Vec<(String, Output)> = children
            .into_iter()
            .map(|(n, c)| (n, c.wait_with_output().expect("racer ends")))
            .collect();
        let winners: Vec<&String> = results
            .iter()
            .filter(|(_, o)| o.status.success())
            .map(|(n, _)| n)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let winner = winners[0];
        for (name, out) in results.iter().filter(|(n, _)| n != winner) {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(3), "{name}: {err}");
            assert!(
                err.contains(&format!("already claimed by {winner}")),
                "{err}"
            );
        }
        let bead = repo.bead_json(&id);
        assert_eq!(bead["assignee"], winner.as_str());
        assert_eq!(bead["status"], "in_progress");
        assert_eq!(
            repo.commit_count("refs/beads/main"),
            commits + 1,
            "only the winner committed"
        );
        let author = repo.git(&["log", "-1", "--format=%an", "refs/beads/main"]);
        assert_eq!(author.trim(), winner);
    }

    // `ready --claim` racing over three ready beads: each goes to exactly one agent.
    let ready: BTreeSet<String> = (0..3).map(|i| repo.create(&format!("r{i}"), &[])).collect();
    let children: Vec<Child> = (0..RACERS)
        .map(|r| {
            repo.beads_command(
                &[("GIT_AUTHOR_NAME", &format!("worker{r}"))],
                &["ready", "--claim"],
            )
            .spawn()
            .expect("spawn")
        })
        .collect();
    let mut claimed = Vec::new();
    for c in children {
        let out = c.wait_with_output().expect("ends");
        assert!(out.status.success(), "{out:?}");
        let id = stdout(&out);
        if !id.is_empty() {
            claimed.push(id);
        }
    }
    claimed.sort();
    assert_eq!(claimed, ready.into_iter().collect::<Vec<_>>());
}

#[test]
fn linked_worktrees_writing_at_once_share_one_store() {
    const EACH: usize = 30;
    let _heavy = heavy();
    let sb = Sandbox::new();
    let main = sb.store();
    main.git(&["config", "core.fsync", "none"]);
    let trees = [main.worktree("wt-one"), main.worktree("wt-two")];
    let writers: Vec<&Repo> = std::iter::once(&main).chain(&trees).collect();
    let start = Barrier::new(writers.len());
    let made: Vec<Vec<String>> = on_threads(writers.iter().enumerate(), |(w, repo)| {
        start.wait();
        (0..EACH)
            .map(|i| {
                let id = repo.create(&format!("tree {w} bead {i}"), &[]);
                // Readers run alongside the writers.
                if i % 10 == 0 {
                    repo.beads_json(&["list", "--all"]);
                }
                id
            })
            .collect()
    });
    let want: BTreeSet<String> = made.into_iter().flatten().collect();
    assert_eq!(want.len(), writers.len() * EACH);
    for repo in &writers {
        assert_eq!(repo.store_head(), main.store_head());
        let seen: BTreeSet<String> = repo.listed("id").into_iter().collect();
        assert_eq!(seen, want, "{} sees the same store", repo.path.display());
        assert_eq!(repo.common_dir(), main.common_dir());
    }
    assert_eq!(main.commit_count("refs/beads/main"), 1 + want.len());

    // A hook runs with GIT_DIR pointing into .git/worktrees/<name>, from anywhere.
    let git_dir = trees[0].git(&["rev-parse", "--absolute-git-dir"]);
    let out = main
        .beads_command(
            &[("GIT_DIR", git_dir.trim())],
            &["--json", "create", "From a hook"],
        )
        .current_dir(sb.path())
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let id = v["id"].as_str().expect("id");
    main.beads(&["show", id]);
    main.assert_fsck_clean();
}

#[test]
fn a_stale_ref_lock_does_not_block_writes() {
    let (_sb, repo) = Sandbox::with_store();
    let common = repo.common_dir();
    let lock = common.join("refs/beads/main.lock");
    std::fs::write(&lock, "0000000000000000000000000000000000000000\n").expect("write lock");
    // The write lock's own file, left behind, is just a file: the OS lock died with its owner.
    std::fs::write(common.join("beads/write.lock"), "").expect("write");
    let id = repo.create("After a crash", &[]);
    repo.beads(&["show", &id]);
    assert!(!lock.exists(), "the stale lock was cleared");
    repo.beads(&["close", &id]);
    repo.assert_fsck_clean();
}

/// How many kill trials to run: a handful in CI, many more under `GIT_BEADS_STRESS=1`.
fn trials() -> usize {
    crate::reliability::count(20, 400)
}

#[test]
fn writers_killed_at_random_moments_lose_nothing_acknowledged() {
    let _heavy = heavy();
    let mut rng = Rng::new("writers_killed_at_random_moments_lose_nothing_acknowledged");
    let (_sb, repo) = Sandbox::with_store();
    let base: Vec<String> = (0..20)
        .map(|i| repo.create(&format!("base {i}"), &["-l", "base"]))
        .collect();
    // How long one writer takes here from spawn to exit, so that kills land before,
    // during and after its work. Only used to spread the kills; nothing asserts on it.
    let t0 = std::time::Instant::now();
    for i in 0..5 {
        let out = repo
            .beads_direct()
            .args(["create", &format!("timing {i}")])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{out:?}");
    }
    let span_us = (t0.elapsed().as_micros() as u64 / 5).clamp(2_000, 500_000) * 2;

    let mut acknowledged = Vec::new();
    let mut bystanders = Vec::new();
    let mut killed_before_ack = 0;
    for trial in 0..trials() {
        // The victim: the binary itself, so that the kill reaches the writer.
        let mut victim = repo.beads_direct();
        match rng.below(3) {
            0 => victim.args(["create", &format!("victim {trial}"), "-l", "victim"]),
            1 => victim.args([
                "create",
                &format!("victim {trial}"),
                "-l",
                "victim",
                "-d",
                &"long text\n".repeat(2000),
            ]),
            // Some victims change an existing bead instead.
            _ => victim.args([
                "update",
                &base[rng.below(base.len() as u64) as usize],
                "--add-label",
                &format!("touched-{trial}"),
            ]),
        };
        let mut victim = victim.spawn().expect("spawn victim");
        // Sometimes another writer races the victim; it must never be held up for good.
        let bystander = (rng.below(3) == 0).then(|| {
            repo.beads_direct()
                .args(["create", &format!("bystander {trial}")])
                .spawn()
                .expect("spawn bystander")
        });
        std::thread::sleep(Duration::from_micros(rng.below(span_us)));
        let _ = victim.kill();
        let out = victim.wait_with_output().expect("victim reaped");
        let printed = stdout(&out);
        if printed.starts_with("bd-") {
            acknowledged.push(printed);
        } else if !out.status.success() {
            killed_before_ack += 1;
        }
        if let Some(b) = bystander {
            let out = b.wait_with_output().expect("bystander ends");
            assert!(
                out.status.success(),
                "trial {trial}: bystander failed: {out:?}"
            );
            bystanders.push(stdout(&out));
        }
        // The store always reads.
        let out = repo.beads_output(&["--json", "list", "--all"]);
        assert!(
            out.status.success(),
            "trial {trial}: store unreadable: {out:?}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("warning"),
            "trial {trial}: {out:?}"
        );
        if trial % 10 == 9 {
            repo.assert_fsck_clean();
        }
    }
    let victims = repo
        .beads_json(&["list", "--all", "--label", "victim"])
        .as_array()
        .map_or(0, Vec::len);
    eprintln!(
        "{} trials over {span_us}us: {} writes acknowledged, {killed_before_ack} killed \
         before acknowledging, {victims} victim beads stored",
        trials(),
        acknowledged.len()
    );

    repo.assert_fsck_clean();
    let stored: BTreeSet<String> = repo.listed("id").into_iter().collect();
    for id in acknowledged.iter().chain(&bystanders) {
        assert!(stored.contains(id), "{id} was acknowledged but is gone");
        let yaml = repo.git(&[
            "cat-file",
            "-p",
            &format!("refs/beads/main:{}", doc_path(id)),
        ]);
        assert!(yaml.starts_with(&format!("id: {id}\n")), "{yaml}");
    }
    // Every commit in the chain is complete: its tree reads, its documents parse.
    let listing = repo.beads_output(&["--json", "list", "--all", "--label", "base"]);
    let listed: serde_json::Value = serde_json::from_slice(&listing.stdout).expect("json");
    assert_eq!(listed.as_array().map(Vec::len), Some(20));
    let warned = String::from_utf8_lossy(&listing.stderr);
    assert!(!warned.contains("does not parse"), "{warned}");
    // And writing goes on as before.
    let after = repo.create("after the storm", &[]);
    repo.beads(&["close", &after]);
}
