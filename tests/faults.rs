//! Fault injection with real processes and real git: syncs killed at random
//! moments, a full disk, a read-only object store, and a ref moved by another
//! process while git-beads writes. After each: the store reads, `git fsck` is
//! clean, and every write that reported success is there.
//!
//! Trial counts are small by default; `GIT_BEADS_STRESS=1` runs the full counts.

use crate::common;
use crate::reliability;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Repo, Rng, Sandbox, doc_path, heavy, stdout};
use reliability::{Mount, assert_bare_fsck_clean, assert_clean_failure, beads, count};
use serde_json::Value;

/// Every bead id in the store, through the CLI (so the store must read).
fn stored_ids(repo: &Repo) -> BTreeSet<String> {
    repo.all_beads()
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_owned())
        .collect()
}

/// Asserts every acknowledged bead is stored with its labels.
fn assert_all_there(repo: &Repo, beads: &BTreeMap<String, BTreeSet<String>>, what: &str) {
    let all = repo.all_beads();
    let stored: BTreeMap<&str, &Value> = all
        .iter()
        .map(|b| (b["id"].as_str().expect("id"), b))
        .collect();
    for (id, labels) in beads {
        let b = stored
            .get(id.as_str())
            .unwrap_or_else(|| panic!("{what}: {id} was acknowledged but is gone"));
        let have: BTreeSet<&str> = b["labels"]
            .as_array()
            .expect("labels")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for l in labels {
            assert!(
                have.contains(l.as_str()),
                "{what}: label {l} of {id} was acknowledged but is gone"
            );
        }
    }
}

/// A bare remote, a first clone `a` with a store, and a second clone `b` that has it.
/// The remote's side of a push runs in its own session, as a real remote does on
/// another machine, so that killing a local sync's process group does not kill it.
fn two_clones(sb: &Sandbox) -> (PathBuf, Repo, Repo) {
    let (remote, a) = sb.remote_with_store("a");
    let b = sb.synced_clone(&remote, "b", "bob");
    let wrapper = sb.path().join("receive-pack");
    common::write_script(
        &wrapper,
        "#!/bin/sh\nexec setsid -w git-receive-pack \"$@\"\n",
    );
    for r in [&a, &b] {
        r.git(&[
            "config",
            "remote.origin.receivepack",
            wrapper.to_str().expect("utf-8"),
        ]);
    }
    (remote, a, b)
}

#[test]
fn syncs_killed_at_random_moments_lose_nothing_acknowledged() {
    let _heavy = heavy();
    let mut rng = Rng::new("syncs_killed_at_random_moments_lose_nothing_acknowledged");
    let sb = Sandbox::new();
    let (remote, a, b) = two_clones(&sb);
    let clones = [&a, &b];
    // bead id → labels acknowledged on it.
    let mut acked: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();

    // How long one sync with work to do takes here, to spread the kills over its
    // whole run. Only used for that; nothing asserts on it.
    let t0 = Instant::now();
    for (i, r) in clones.iter().enumerate() {
        let id = r.create(&format!("timing {i}"), &[]);
        acked.insert(id, BTreeSet::new());
        r.beads(&["sync"]);
    }
    let span_us = (t0.elapsed().as_micros() as u64 / 2).clamp(5_000, 2_000_000);

    let trials = count(10, 300);
    let (mut finished, mut killed, mut group_kills) = (0, 0, 0);
    for trial in 0..trials {
        let who = clones[rng.below(2) as usize];
        // Acknowledged local work for the sync to carry: a new bead, sometimes a label
        // on a bead from earlier (perhaps from the other clone).
        let id = who.create(&format!("trial {trial}"), &["-l", &format!("t{trial}")]);
        acked.insert(id.clone(), BTreeSet::from([format!("t{trial}")]));
        if rng.below(2) == 0 {
            let known = stored_ids(who);
            let known: Vec<&String> = acked.keys().filter(|k| known.contains(*k)).collect();
            let target = known[rng.below(known.len() as u64) as usize].clone();
            let label = format!("u{trial}");
            who.beads(&["update", &target, "--add-label", &label]);
            acked.get_mut(&target).expect("known").insert(label);
        }
        // The victim runs in its own process group with the git it starts.
        let mut victim = who.beads_direct();
        victim.arg("sync").process_group(0);
        let mut victim = victim.spawn().expect("spawn sync");
        let pgid = victim.id();
        std::thread::sleep(Duration::from_micros(rng.below(span_us)));
        if rng.below(2) == 0 {
            // The whole process tree dies at once (a crashed session or machine)...
            reliability::kill_group(pgid);
            group_kills += 1;
        } else {
            // ...or only git-beads, and the git it started carries on alone.
            let _ = victim.kill();
        }
        let out = victim.wait_with_output().expect("victim reaped");
        reliability::wait_group(pgid);
        if out.status.success() {
            finished += 1;
        } else {
            killed += 1;
        }
        // The store always reads, with no warning.
        let listed = beads(who, &["--json", "list", "--all"]);
        assert!(
            listed.status.success() && listed.stderr.is_empty(),
            "trial {trial}: {listed:?}"
        );
        if trial % 10 == 9 {
            who.assert_fsck_clean();
            assert_bare_fsck_clean(who, &remote);
        }
    }

    // Everyone syncs until both clones and the remote agree.
    let mut rounds = 0;
    loop {
        rounds += 1;
        for r in clones {
            let out = beads(r, &["sync"]);
            assert!(
                out.status.success(),
                "final sync of {}: {}",
                r.path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let remote_head = a.git(&["ls-remote", "origin", "refs/beads/main"]);
        let remote_head = remote_head.split('\t').next().unwrap_or_default();
        if a.store_head() == b.store_head() && b.store_head() == remote_head {
            break;
        }
        assert!(rounds < 4, "the clones do not converge");
    }
    eprintln!(
        "{trials} sync trials over {span_us}us: {killed} killed ({group_kills} with their \
         whole process group), {finished} finished first; {} beads acknowledged, \
         {} labels acknowledged",
        acked.len(),
        acked.values().map(BTreeSet::len).sum::<usize>()
    );
    assert_eq!(a.store_tree(), b.store_tree());
    for r in clones {
        assert_all_there(r, &acked, &r.path.display().to_string());
        let listed = r.beads_output(&["list", "--all"]);
        let warned = String::from_utf8_lossy(&listed.stderr);
        assert!(!warned.contains("does not parse"), "{warned}");
        r.assert_fsck_clean();
    }
    assert_bare_fsck_clean(&a, &remote);
}

/// Who the remote's claim ref of `id` names as holder, if the remote holds one.
fn remote_claim_holder(repo: &Repo, remote: &Path, id: &str) -> Option<String> {
    let git_dir = remote.to_str().expect("utf-8");
    let spec = format!("refs/beads/claims/{id}:{}", doc_path(id));
    let out = repo.git_output(&["--git-dir", git_dir, "show", &spec]);
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("assignee: ").map(str::to_owned))
}

#[test]
fn remote_claims_and_closes_killed_at_random_moments_acknowledge_only_what_the_remote_holds() {
    let _heavy = heavy();
    let mut rng = Rng::new("remote_claims_killed_at_random_moments");
    let sb = Sandbox::new();
    let (remote, a, b) = two_clones(&sb);
    // How long one remote claim takes here, to spread the kills over it.
    let first = a.create("timing", &[]);
    let t0 = Instant::now();
    a.beads(&["update", &first, "--claim", "--remote", "origin"]);
    let span_us = (t0.elapsed().as_micros() as u64).clamp(5_000, 2_000_000);
    let trials = count(6, 100);
    let (mut acked, mut killed, mut closed) = (0, 0, 0);
    for trial in 0..trials {
        let (who, other) = if rng.below(2) == 0 {
            (&a, &b)
        } else {
            (&b, &a)
        };
        let id = who.create(&format!("trial {trial}"), &[]);
        who.beads(&["sync"]);
        other.beads(&["sync"]);
        let mut victim = who.beads_direct();
        victim
            .args(["update", &id, "--claim", "--remote", "origin"])
            .process_group(0);
        let mut victim = victim.spawn().expect("spawn a claim");
        let pgid = victim.id();
        std::thread::sleep(Duration::from_micros(rng.below(span_us)));
        if rng.below(2) == 0 {
            reliability::kill_group(pgid);
        } else {
            let _ = victim.kill();
        }
        let out = victim.wait_with_output().expect("victim reaped");
        reliability::wait_group(pgid);
        let held = remote_claim_holder(who, &remote, &id);
        if out.status.success() {
            acked += 1;
            assert_eq!(held.as_deref(), Some(who.user.as_str()), "trial {trial}");
        } else {
            killed += 1;
        }
        // The other clone's claim is acknowledged exactly when the remote had none.
        let theirs = beads(other, &["update", &id, "--claim", "--remote", "origin"]);
        match &held {
            Some(h) => {
                assert_eq!(theirs.status.code(), Some(3), "trial {trial}: {theirs:?}");
                assert_eq!(*h, who.user);
            }
            None => {
                assert!(theirs.status.success(), "trial {trial}: {theirs:?}");
                let now = remote_claim_holder(other, &remote, &id);
                assert_eq!(now.as_deref(), Some(other.user.as_str()), "trial {trial}");
            }
        }
        // The holder's close, confirmed by the remote, killed at random too: once
        // acknowledged, the remote holds no claim ref of the bead, and a sync of the
        // other clone brings the bead closed.
        let (holder, watcher) = if held.is_some() {
            (who, other)
        } else {
            (other, who)
        };
        let mut closer = holder.beads_direct();
        closer
            .args(["close", &id, "--remote", "origin"])
            .process_group(0);
        let closer = closer.spawn().expect("spawn a close");
        let pgid = closer.id();
        std::thread::sleep(Duration::from_micros(rng.below(span_us)));
        reliability::kill_group(pgid);
        let out = closer.wait_with_output().expect("close reaped");
        reliability::wait_group(pgid);
        if out.status.success() {
            closed += 1;
            assert_eq!(
                remote_claim_holder(holder, &remote, &id),
                None,
                "trial {trial}"
            );
            assert!(beads(watcher, &["sync"]).status.success(), "trial {trial}");
            let shown = beads(watcher, &["--json", "show", &id]);
            let doc: Value = serde_json::from_slice(&shown.stdout).expect("show --json");
            assert_eq!(doc[0]["status"], "closed", "trial {trial}");
        }
        for r in [&a, &b] {
            let listed = beads(r, &["--json", "list", "--all"]);
            assert!(
                listed.status.success() && listed.stderr.is_empty(),
                "trial {trial}: {listed:?}"
            );
        }
        if trial % 5 == 4 {
            a.assert_fsck_clean();
            b.assert_fsck_clean();
            assert_bare_fsck_clean(&a, &remote);
        }
    }
    eprintln!(
        "{trials} remote claims over {span_us}us: {killed} killed, {acked} acknowledged; \
         {closed} remote closes acknowledged"
    );
}

/// Fills the file system holding `dir` until not one more byte fits; returns the filler.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).expect("create filler");
    let mut chunk = 1 << 20;
    let block = vec![0x5au8; chunk];
    while chunk > 0 {
        match f.write(&block[..chunk]) {
            Ok(0) | Err(_) => chunk /= 2,
            Ok(_) => {}
        }
    }
    let _ = f.sync_all();
    path
}

/// Text zlib cannot shrink much, so that a blob takes about as much room as the text.
fn incompressible(rng: &mut Rng, len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..len)
        .map(|i| {
            if i % 80 == 79 {
                '\n'
            } else {
                ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char
            }
        })
        .collect()
}

#[test]
fn a_full_disk_fails_cleanly_and_recovers() {
    let _heavy = heavy();
    let mut rng = Rng::new("a_full_disk_fails_cleanly_and_recovers");
    let sb = Sandbox::new();
    let disk = sb.path().join("disk");
    let Some(_mount) = Mount::tmpfs(&disk, "6m") else {
        return;
    };
    let repo = sb.repo("disk/work", "alice");
    repo.init();
    let mut acked: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for i in 0..5 {
        acked.insert(repo.create(&format!("before {i}"), &[]), BTreeSet::new());
    }
    repo.beads(&["agent", "create", "ann"]);
    repo.beads(&["agent", "create", "bob"]);

    // A full disk: every kind of write fails with a clear error and changes nothing.
    let filler = fill(&disk);
    let head = repo.store_head();
    let some = acked.keys().next().expect("a bead").clone();
    let big = incompressible(&mut rng, 60_000);
    for args in [
        vec!["create", "on a full disk", "-d", &big],
        vec!["create", "small"],
        vec!["update", &some, "--claim"],
        vec!["comment", &some, &big],
        vec![
            "--as", "ann", "mail", "send", "bob", "-s", "hello", "-m", &big,
        ],
        vec!["agent", "create", "cy"],
    ] {
        let out = beads(&repo, &args);
        if out.status.success() {
            // Small writes may still fit in a page the file system had left.
            let id = stdout(&out);
            if args[0] == "create" {
                acked.insert(id, BTreeSet::new());
            }
            continue;
        }
        assert_clean_failure(&out, &format!("{:?}", &args[..2]));
        assert_eq!(out.status.code(), Some(4), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.to_lowercase().contains("no space left"),
            "{args:?}: the error should say the disk is full: {err}"
        );
        assert_eq!(repo.store_head(), head, "{args:?} moved the ref");
    }
    // Reads go on while the disk is full.
    let listed = beads(&repo, &["--json", "list", "--all"]);
    assert!(listed.status.success(), "{listed:?}");

    // The disk fills up at every point of a write: leave 0, 1, 2, … pages free and
    // write a bead whose blob needs several.
    let mut outcomes = BTreeMap::<String, usize>::new();
    for pages in 0..count(24, 64) {
        let before = repo.store_head();
        std::fs::remove_file(&filler).expect("remove filler");
        let filler = fill(&disk);
        let len = std::fs::metadata(&filler).expect("stat").len();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&filler)
            .expect("open filler");
        f.set_len(len.saturating_sub(pages as u64 * 4096))
            .expect("free some pages");
        drop(f);
        let len = 4096 + rng.below(16_384) as usize;
        let text = incompressible(&mut rng, len);
        let out = beads(
            &repo,
            &[
                "create",
                &format!("squeezed {pages}"),
                "-l",
                "squeezed",
                "-d",
                &text,
            ],
        );
        if out.status.success() {
            acked.insert(stdout(&out), BTreeSet::from(["squeezed".to_owned()]));
            *outcomes.entry("written".into()).or_default() += 1;
        } else {
            assert_clean_failure(&out, &format!("squeezed {pages}"));
            assert_eq!(repo.store_head(), before, "a failed write moved the ref");
            *outcomes.entry("refused".into()).or_default() += 1;
        }
        let listed = beads(&repo, &["--json", "list", "--all"]);
        assert!(listed.status.success(), "pages {pages}: {listed:?}");
    }
    eprintln!("writes on a nearly full disk: {outcomes:?}");

    // Space again: the store reads, git fsck is clean, nothing acknowledged is gone,
    // and writing goes on.
    std::fs::remove_file(disk.join("filler")).expect("free the disk");
    repo.assert_fsck_clean();
    assert_all_there(&repo, &acked, "after the disk was freed");
    let (ok, doctor) = doctor(&repo);
    assert!(ok, "{doctor}");
    let id = repo.create("after the disk was freed", &["-d", &big]);
    repo.beads(&[
        "--as", "ann", "mail", "send", "bob", "-s", "hello", "-m", "again",
    ]);
    repo.beads(&["close", &id]);
    repo.assert_fsck_clean();
    // No temporary file of a failed write was left to eat the space.
    let leftovers: Vec<String> = walkdir::WalkDir::new(repo.path.join(".git"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            (name.contains("tmp") || name.ends_with(".lock"))
                && ![
                    "write.lock",
                    "flush.lock",
                    "repack.lock",
                    "sync.lock",
                    "notes-queue.lock",
                ]
                .contains(&name.as_ref())
        })
        .map(|e| e.path().display().to_string())
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

fn doctor(repo: &Repo) -> (bool, Value) {
    let out = beads(repo, &["--json", "doctor"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("doctor prints JSON");
    (out.status.success(), v)
}

#[test]
fn a_read_only_object_store_fails_cleanly_and_changes_nothing() {
    let _heavy = heavy();
    let sb = Sandbox::new();
    let (remote, repo) = sb.remote_with_code("work");
    repo.init();
    let mut acked: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for i in 0..3 {
        acked.insert(repo.create(&format!("before {i}"), &[]), BTreeSet::new());
    }
    repo.beads(&["agent", "create", "ann"]);
    repo.beads(&["sync"]);
    // Another clone has news to pull.
    let other = sb.synced_clone(&remote, "other", "bob");
    let news = other.create("news from the other clone", &[]);
    other.beads(&["sync"]);

    let head = repo.store_head();
    let refs = repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let some = acked.keys().next().expect("a bead").clone();
    {
        let Some(_ro) = Mount::read_only(&repo.common_dir().join("objects")) else {
            return;
        };
        for args in [
            vec!["create", "into a read-only store"],
            vec!["update", &some, "--claim"],
            vec!["comment", &some, "a comment"],
            vec!["--as", "ann", "mail", "send", "ann", "-s", "note"],
            vec!["agent", "create", "bob"],
            vec!["sync"],
        ] {
            let out = beads(&repo, &args);
            assert_clean_failure(&out, &format!("{args:?}"));
            assert_eq!(out.status.code(), Some(4), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.to_lowercase().contains("read-only"),
                "{args:?}: the error should say the store is read-only: {err}"
            );
            assert_eq!(repo.store_head(), head, "{args:?} moved the ref");
        }
        // Reads still work.
        assert_eq!(stored_ids(&repo), acked.keys().cloned().collect());
        repo.beads(&["show", &some]);
        repo.beads(&["ready"]);
        let out = beads(&repo, &["--json", "doctor"]);
        assert!(out.status.success(), "{out:?}");
    }
    let after = repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let changed: Vec<&str> = after
        .lines()
        .filter(|l| !refs.lines().any(|x| x == *l))
        .filter(|l| !l.starts_with("refs/beads/remotes/"))
        .collect();
    assert!(changed.is_empty(), "refs changed: {changed:?}");
    repo.assert_fsck_clean();
    // Writable again: everything is there and the pull that failed now works.
    assert_all_there(&repo, &acked, "after the read-only store");
    repo.beads(&["sync"]);
    repo.beads(&["show", &news]);
    repo.create("after the read-only store", &[]);
    repo.assert_fsck_clean();

    // The whole repository read-only: reads work, writes fail clearly.
    let head = repo.store_head();
    let Some(_ro) = Mount::read_only(&repo.common_dir()) else {
        return;
    };
    repo.beads(&["--json", "list", "--all"]);
    repo.beads(&["show", &news]);
    let out = beads(&repo, &["create", "into a read-only repository"]);
    assert_clean_failure(&out, "create");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .to_lowercase()
            .contains("read-only"),
        "{out:?}"
    );
    assert_eq!(repo.store_head(), head);
}

/// Commits a new bead document on top of `refs/beads/main` and moves the ref by
/// compare-and-swap with `git update-ref refs/beads/main NEW OLD`, bypassing
/// git-beads and its lock. The commit is built in process (gix), so that the
/// intruder is quick enough to land inside git-beads' writes. Returns whether the
/// swap won.
fn intrude(repo: &Repo, git: &mut gix::Repository, id: &str, doc: &[u8]) -> bool {
    let head = |git: &gix::Repository| {
        git.find_reference("refs/beads/main")
            .expect("the store ref")
            .peel_to_id()
            .map(|id| id.detach())
    };
    // git-beads writes each change as a small pack and merges packs as they pile up;
    // a gix handle held across that churn can miss a commit in a pack made since it
    // last looked, and keeps missing it. A fresh handle finds it.
    let old = head(git).unwrap_or_else(|_| {
        *git = gix::open(&repo.path).expect("open the repository again");
        head(git).expect("a commit")
    });
    let tree = git
        .find_commit(old)
        .expect("commit")
        .tree_id()
        .expect("tree")
        .detach();
    let blob = git.write_blob(doc).expect("write blob").detach();
    let mut editor = git.edit_tree(tree).expect("edit tree");
    editor
        .upsert(doc_path(id), gix::object::tree::EntryKind::Blob, blob)
        .expect("place the document");
    let tree = editor.write().expect("write tree").detach();
    let who = gix::actor::Signature {
        name: "intruder".into(),
        email: "intruder@example.com".into(),
        time: gix::date::Time::new(1_767_225_600, 0),
    };
    let commit = gix::objs::Commit {
        tree,
        parents: [old].into_iter().collect(),
        author: who.clone(),
        committer: who,
        encoding: None,
        message: format!("intruder adds {id}\n").into(),
        extra_headers: Vec::new(),
    };
    let commit = git.write_object(&commit).expect("write commit").detach();
    repo.command("git")
        .args([
            "update-ref",
            "refs/beads/main",
            &commit.to_string(),
            &old.to_string(),
        ])
        .stderr(Stdio::null())
        .status()
        .expect("git update-ref runs")
        .success()
}

/// A bead document as git-beads writes it, for the intruder to commit.
fn bead_doc(id: &str, title: &str) -> Vec<u8> {
    let at = chrono::DateTime::from_timestamp(1_767_225_600, 0).expect("time");
    let bead = git_beads::model::Bead::new(
        git_beads::model::BeadId::parse(id).expect("id"),
        title.into(),
        "intruder",
        at,
    );
    git_beads::store::codec::encode(&bead)
        .expect("encode")
        .into_bytes()
}

#[test]
fn a_ref_moved_by_another_process_mid_write_loses_nothing() {
    const WRITERS: usize = 4;
    let each = count(8, 60);
    let _heavy = heavy();
    let sb = Sandbox::new();
    let repo = sb.repo("work", "alice");
    repo.init();
    repo.git(&["config", "core.fsync", "none"]);
    let done = AtomicBool::new(false);
    let start = Barrier::new(WRITERS + 1);
    let mut rng = Rng::new("a_ref_moved_by_another_process_mid_write_loses_nothing");
    let pauses: Vec<u64> = (0..100_000).map(|_| rng.below(8_000)).collect();

    let (intruded, lost_swaps, written, gave_up) = std::thread::scope(|s| {
        let intruder = s.spawn(|| {
            let mut git = gix::open(&repo.path).expect("open the repository");
            start.wait();
            let (mut mine, mut lost) = (Vec::new(), 0);
            let mut n = 0;
            let mut after = 0;
            while !done.load(Ordering::Relaxed) || (mine.len() < 5 && after < 500) {
                if done.load(Ordering::Relaxed) {
                    after += 1;
                }
                let id = format!("bd-zz{n}");
                n += 1;
                std::thread::sleep(Duration::from_micros(pauses[n % pauses.len()]));
                // gix's object store may also trip over its own consistency check
                // while packs are merged away under it ("if the generation changed,
                // the slot index must have changed", gix-odb 0.87) before the ref is
                // swapped: the intruder, a stand-in for another program, opens the
                // repository again and counts the swap lost.
                let doc = bead_doc(&id, "from the side");
                let swapped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    intrude(&repo, &mut git, &id, &doc)
                }));
                match swapped {
                    Ok(true) => mine.push(id),
                    Ok(false) => lost += 1,
                    Err(_) => {
                        git = gix::open(&repo.path).expect("open the repository again");
                        lost += 1;
                    }
                }
            }
            (mine, lost)
        });
        // However the writers end (a failed assertion too), the intruder stops.
        struct Stop<'a>(&'a AtomicBool, bool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                if self.1 || std::thread::panicking() {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }
        let stop = Stop(&done, true);
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (repo, start, done) = (&repo, &start, &done);
                s.spawn(move || {
                    let _stop = Stop(done, false);
                    start.wait();
                    let mut mine: Vec<(String, Option<String>)> = Vec::new();
                    let mut gave_up = 0;
                    // A writer that loses the race 32 times in a row gives up with a
                    // clear error and changes nothing (an intruder this fast, on a
                    // loaded machine, can do that): then it is not acknowledged.
                    let refused = |out: &Output| {
                        let err = String::from_utf8_lossy(&out.stderr);
                        out.status.code() == Some(3) && err.contains("kept moving")
                    };
                    for i in 0..each {
                        let out = beads(repo, &["create", &format!("writer {w} bead {i}")]);
                        if refused(&out) {
                            gave_up += 1;
                            continue;
                        }
                        assert!(out.status.success(), "writer {w} create {i}: {out:?}");
                        let id = stdout(&out);
                        // Changes to existing beads are re-applied on the moved ref too.
                        let label = format!("w{w}i{i}");
                        let out = beads(repo, &["update", &id, "--add-label", &label]);
                        if refused(&out) {
                            gave_up += 1;
                            mine.push((id, None));
                            continue;
                        }
                        assert!(out.status.success(), "writer {w} update {i}: {out:?}");
                        mine.push((id, Some(label)));
                    }
                    (mine, gave_up)
                })
            })
            .collect();
        let results: Vec<_> = writers
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect();
        drop(stop);
        let gave_up: usize = results.iter().map(|(_, g)| g).sum();
        let written: Vec<(String, Option<String>)> =
            results.into_iter().flat_map(|(m, _)| m).collect();
        let (intruded, lost) = intruder.join().expect("intruder");
        (intruded, lost, written, gave_up)
    });

    let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (id, label) in &written {
        want.entry(id.clone())
            .or_default()
            .extend(label.iter().cloned());
    }
    for id in &intruded {
        want.insert(id.clone(), BTreeSet::new());
    }
    assert_all_there(&repo, &want, "after the intruder");
    assert_eq!(stored_ids(&repo).len(), want.len(), "nothing extra either");
    // The history is one line: every write landed on top of the one before.
    let merges = repo.git(&["rev-list", "--merges", "refs/beads/main"]);
    assert!(merges.trim().is_empty());
    let authors = repo.git(&["log", "--format=%an", "refs/beads/main"]);
    let switches = authors
        .lines()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| (w[0] == "intruder") != (w[1] == "intruder"))
        .count();
    eprintln!(
        "{} git-beads writes acknowledged ({gave_up} gave up, the ref kept moving) and {} \
         intruder commits interleaved ({switches} switches between them in the history; \
         the intruder lost {lost_swaps} swaps)",
        written
            .iter()
            .map(|(_, l)| 1 + usize::from(l.is_some()))
            .sum::<usize>(),
        intruded.len()
    );
    repo.assert_fsck_clean();
    let (ok, report) = doctor(&repo);
    assert!(ok, "{report}");
}
