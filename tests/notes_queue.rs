//! The fold of provenance notes: the next git-beads command writes the notes of the
//! commits made in sessions since the last one, found in the worktrees' HEAD reflogs
//! by their trailers (no hook runs a process for them), and of the commits the
//! post-commit shim of earlier versions queued (one file per commit under the common
//! git dir; such a shim stays installed until `hooks install` removes it). No
//! interleaving of commits, shims and folds, and no fold killed halfway, may lose a
//! note or write one twice.
//!
//! Trial counts are small by default; `GIT_BEADS_STRESS=1` runs the full counts.

use crate::common;
use crate::reliability;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Repo, Rng, Sandbox, expect_success, feed, on_threads, write_script};
use reliability::count;

/// A store with the hooks installed and agent rig/nux at work in its main worktree;
/// returns it and the session's id.
fn hooked_session(sb: &Sandbox) -> (Repo, String) {
    let repo = sb.store();
    repo.beads(&["hooks", "install"]);
    let (_, session) = repo.agent_at_work();
    (repo, session)
}

/// `n` new commits (on a branch of their own, made by one `git fast-import`), oldest
/// first.
fn make_commits(repo: &Repo, n: usize) -> Vec<String> {
    let mut stream = String::new();
    for i in 0..n {
        let message = format!("queued commit {i}\n");
        stream.push_str(&format!(
            "commit refs/heads/queued\ncommitter t <t@example.com> 1767225600 +0000\ndata {}\n{message}\n",
            message.len()
        ));
    }
    expect_success(
        "git fast-import",
        &feed(
            repo.command("git").args(["fast-import", "--quiet"]),
            stream.as_bytes(),
        ),
    );
    let mut ids: Vec<String> = repo
        .git(&["rev-list", "refs/heads/queued"])
        .lines()
        .map(str::to_owned)
        .collect();
    ids.reverse();
    ids
}

/// A git dir of its own for each commit, as the post-commit shim sees a linked
/// worktree's right after git made the commit there: `commondir` naming the
/// repository's common dir, HEAD at the commit, and `beads/commit-pending` saying
/// who made it (what prepare-commit-msg writes).
fn shim_dirs(sb: &Sandbox, repo: &Repo, commits: &[String], session: &str) -> Vec<PathBuf> {
    let common = repo.common_dir();
    // prepare-commit-msg makes the queue's folder; a commit in the session makes it.
    let folder = common.join("beads").join("notes-queue.d");
    std::fs::create_dir_all(&folder).expect("queue folder");
    commits
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let dir = sb.path().join("shim-dirs").join(i.to_string());
            std::fs::create_dir_all(dir.join("beads")).expect("shim dir");
            std::fs::write(dir.join("commondir"), format!("{}\n", common.display()))
                .expect("commondir");
            std::fs::write(dir.join("HEAD"), format!("{c}\n")).expect("HEAD");
            std::fs::write(
                dir.join("beads").join("commit-pending"),
                format!("rig/nux {session}\n"),
            )
            .expect("commit-pending");
            dir
        })
        .collect()
}

/// The post-commit shim git-beads installed before this version (f67410a): it
/// queues the commit when prepare-commit-msg left `beads/commit-pending`.
const OLD_POST_COMMIT: &str = r#"d=${GIT_DIR:-.git}; [ -d "$d" ] || d=$(git rev-parse --git-dir) || exit 0; c=$d; if [ -f "$d/commondir" ]; then read -r c < "$d/commondir"; case $c in /*) ;; *) c=$d/$c ;; esac; fi; if [ -s "$d/beads/commit-pending" ] && [ -z "$GIT_BEADS_SYNC" ]; then read -r who < "$d/beads/commit-pending"; : > "$d/beads/commit-pending"; h=; read -r h < "$d/HEAD"; case $h in "ref: refs/heads/"*) r=${h#ref: }; h=; [ -f "$c/$r" ] && read -r h < "$c/$r" ;; esac; case $h in *[!0-9a-f]* | "") h=$(git rev-parse -q --verify HEAD) ;; esac; [ -n "$h" ] && echo "$who" > "$c/beads/notes-queue.d/$h"; fi; :"#;

/// Writes the post-commit shim of earlier versions as a script, and returns its path.
fn old_shim(repo: &Repo) -> PathBuf {
    let hook = repo.common_dir().join("old-post-commit");
    write_script(&hook, &format!("#!/bin/sh\n{OLD_POST_COMMIT}\n"));
    hook
}

/// Runs `hook` (see [`old_shim`], written once before any thread runs it: a script
/// run while another thread writes it fails) as git runs it for a commit in the git
/// dir `dir`.
fn run_shim(repo: &Repo, hook: &Path, dir: &Path) {
    let out = repo
        .command(hook.to_str().expect("utf-8"))
        .env("GIT_DIR", dir)
        .output()
        .expect("the hook runs");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "post-commit: {out:?}"
    );
}

/// Runs a git-beads command that folds the queue (any command does), asserting it
/// succeeds without a word on stderr.
fn fold(repo: &Repo) {
    let out = repo
        .beads_direct()
        .args(["list", "--json"])
        .output()
        .expect("git-beads runs");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "a folding command: {out:?}"
    );
}

/// Each commit with a note, and the note's text, as git itself reads them.
fn notes(repo: &Repo) -> BTreeMap<String, String> {
    let listed = repo.git(&["notes", "--ref=beads", "list"]);
    let pairs: Vec<(&str, &str)> = listed.lines().filter_map(|l| l.split_once(' ')).collect();
    let input: String = pairs.iter().map(|(blob, _)| format!("{blob}\n")).collect();
    let out = feed(
        repo.command("git").args(["cat-file", "--batch"]),
        input.as_bytes(),
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut rest = text.as_str();
    let mut found = BTreeMap::new();
    for (_, commit) in pairs {
        let (header, after) = rest.split_once('\n').expect("a cat-file header");
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .expect("a size");
        found.insert(commit.to_owned(), after[..size].to_owned());
        rest = &after[size + 1..];
    }
    found
}

/// Asserts every commit of `commits` has a note with exactly one record, of
/// `session`, and that the queue is empty (or was never made).
fn assert_noted_once(repo: &Repo, commits: &[String], session: &str) {
    let notes = notes(repo);
    for c in commits {
        let note = notes
            .get(c)
            .unwrap_or_else(|| panic!("commit {c} was queued but has no note"));
        assert_eq!(
            note.matches(&format!("session: {session}\n")).count(),
            1,
            "{c}: {note}"
        );
        assert_eq!(note.matches("agent: rig/nux\n").count(), 1, "{c}: {note}");
    }
    let left: Vec<_> = std::fs::read_dir(repo.common_dir().join("beads/notes-queue.d"))
        .map(|d| d.collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left in the queue: {left:?}");
}

/// Sets its flag when dropped, so a thread folding until the racers are done stops
/// however they end: a racer that panics would otherwise leave it folding forever and
/// the test hanging instead of failing.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[test]
fn earlier_post_commit_shims_racing_folds_lose_no_note() {
    let sb = Sandbox::new();
    let (repo, session) = hooked_session(&sb);
    let commits = make_commits(&repo, count(160, 1000));
    let dirs = shim_dirs(&sb, &repo, &commits, &session);
    let hook = old_shim(&repo);
    let shims = 4;
    let done = AtomicBool::new(false);
    let mut folds = 0;
    std::thread::scope(|s| {
        let folder = s.spawn(|| {
            let mut n = 0;
            while !done.load(Ordering::Relaxed) {
                fold(&repo);
                n += 1;
            }
            n
        });
        let stop = StopOnDrop(&done);
        on_threads(0..shims, |t| {
            for dir in dirs.iter().skip(t).step_by(shims) {
                run_shim(&repo, &hook, dir);
            }
        });
        drop(stop);
        folds = folder.join().expect("the folding thread");
    });
    fold(&repo);
    eprintln!("{} shims raced {folds} folds", commits.len());
    assert_noted_once(&repo, &commits, &session);
    repo.assert_fsck_clean();
}

#[test]
fn commits_in_several_worktrees_racing_folds_all_get_their_notes() {
    let sb = Sandbox::new();
    let (repo, _) = hooked_session(&sb);
    let agents = ["rig/ace", "rig/bo", "rig/cy"];
    let worktrees: Vec<(Repo, String)> = agents
        .iter()
        .map(|a| {
            repo.beads(&["agent", "create", a, "--role", "polecat"]);
            let wt = repo.worktree(&a.replace('/', "-"));
            wt.beads(&["agent", "bind", a]);
            let session = wt.start_session(&[]);
            (wt, session)
        })
        .collect();
    let each = count(6, 40);
    let done = AtomicBool::new(false);
    let mut made: Vec<Vec<String>> = Vec::new();
    std::thread::scope(|s| {
        let folder = s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                fold(&repo);
            }
        });
        let stop = StopOnDrop(&done);
        made = on_threads(&worktrees, |(wt, _)| {
            (0..each)
                .map(|i| {
                    let name = wt.path.file_name().expect("a name").to_string_lossy();
                    let file = format!("{name}-{i}.txt");
                    wt.commit_file(&file, &format!("{i}\n"), &format!("change {i}"))
                })
                .collect()
        });
        drop(stop);
        folder.join().expect("the folding thread");
    });
    for ((wt, session), commits) in worktrees.iter().zip(&made) {
        for c in commits {
            let p = wt.beads_json(&["provenance", c]);
            assert_eq!(p["records"].as_array().map(Vec::len), Some(1), "{c}: {p}");
            assert_eq!(p["records"][0]["session"], session.as_str(), "{c}: {p}");
        }
    }
    repo.assert_fsck_clean();
}

/// Runs a folding command, killing it after a random part of `span_us`; returns
/// whether it finished first.
fn fold_killed(repo: &Repo, rng: &mut Rng, span_us: u64) -> bool {
    let mut victim: Command = repo.beads_direct();
    victim.args(["list", "--json"]).process_group(0);
    let mut victim = victim.spawn().expect("spawn a folding command");
    std::thread::sleep(Duration::from_micros(rng.below(span_us)));
    let _ = victim.kill();
    let out = victim.wait_with_output().expect("victim reaped");
    out.status.success()
}

/// How long a command that folds takes here, to spread the kills over it and a
/// little past it, so that some finish. Only used for that; nothing asserts on it.
fn fold_span_us(repo: &Repo) -> u64 {
    let t0 = Instant::now();
    fold(repo);
    (t0.elapsed().as_micros() as u64 * 3 / 2).clamp(2_000, 1_000_000)
}

/// Makes a first batch of things to fold (`batch(0)`) and times a fold of it, then
/// `trials` times makes the next batch and runs a fold killed at a random moment of
/// that time (or finishing first), and at last a fold left to finish.
fn folds_killed_at_random(repo: &Repo, name: &str, trials: usize, mut batch: impl FnMut(usize)) {
    let mut rng = Rng::new(name);
    fold(repo);
    batch(0);
    let span_us = fold_span_us(repo);
    let (mut finished, mut killed) = (0, 0);
    for i in 1..=trials {
        batch(i);
        if fold_killed(repo, &mut rng, span_us) {
            finished += 1;
        } else {
            killed += 1;
        }
    }
    fold(repo);
    eprintln!("{trials} folds over {span_us}us: {killed} killed, {finished} finished first");
}

#[test]
fn folds_killed_at_random_moments_lose_no_note_and_write_none_twice() {
    let sb = Sandbox::new();
    let (repo, session) = hooked_session(&sb);
    // Commits in the session, as an agent makes them: `git commit -m`, the
    // installed hooks and nothing else.
    let per_trial = 3;
    let mut commits = Vec::new();
    folds_killed_at_random(
        &repo,
        "folds_killed_at_random_moments_lose_no_note_and_write_none_twice",
        count(20, 200),
        |i| {
            for j in 0..per_trial {
                let n = i * per_trial + j;
                let name = format!("k{n}.txt");
                commits.push(repo.commit_file(&name, "k\n", &format!("k: commit {n}")));
            }
        },
    );
    assert_noted_once(&repo, &commits, &session);
    repo.assert_fsck_clean();
}

#[test]
fn folds_of_an_earlier_shims_queue_killed_at_random_moments_lose_no_note() {
    let sb = Sandbox::new();
    let (repo, session) = hooked_session(&sb);
    let trials = count(15, 200);
    let per_trial = 4;
    let commits = make_commits(&repo, (trials + 1) * per_trial);
    let dirs = shim_dirs(&sb, &repo, &commits, &session);
    let batches: Vec<&[PathBuf]> = dirs.chunks(per_trial).collect();
    let hook = old_shim(&repo);
    folds_killed_at_random(
        &repo,
        "folds_of_an_earlier_shims_queue_killed_at_random_moments_lose_no_note",
        trials,
        |i| {
            for dir in batches[i] {
                run_shim(&repo, &hook, dir);
            }
        },
    );
    assert_noted_once(&repo, &commits, &session);
    repo.assert_fsck_clean();
}
