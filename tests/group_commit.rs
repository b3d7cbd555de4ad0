//! Group commit: a write's objects land as one pack that git reads, writers that
//! queue behind one another share one flush, and neither killed writers nor a
//! queue left by another boot lose, duplicate or tear anything.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{Repo, Rng, Sandbox, concurrent_creates, doc_path, heavy, stdout};

/// The queue directory of `refs/beads/main`.
fn queue_dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("beads/pending/refs-beads-main")
}

/// A `git count-objects -v` field.
fn objects_field(repo: &Repo, field: &str) -> usize {
    repo.git(&["count-objects", "-v"])
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}: ")))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_default()
}

fn packs(repo: &Repo) -> usize {
    std::fs::read_dir(repo.common_dir().join("objects/pack"))
        .expect("pack dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".idx"))
        .count()
}

#[test]
fn a_small_write_is_one_pack_that_git_reads() {
    let (_sb, repo) = Sandbox::with_store();
    let loose = objects_field(&repo, "count");
    let before = objects_field(&repo, "in-pack");
    let id = repo.create("packed", &["-d", "a description"]);
    repo.beads(&["update", &id, "--add-label", "x"]);
    repo.beads(&["comment", &id, "hello"]);
    assert_eq!(objects_field(&repo, "count"), loose, "no loose object");
    // Packs are merged as they come (see tests/housekeeping.rs): count objects.
    assert!(
        objects_field(&repo, "in-pack") > before,
        "the writes went to packs"
    );
    let doc = repo.git(&[
        "cat-file",
        "-p",
        &format!("refs/beads/main:{}", doc_path(&id)),
    ]);
    assert!(doc.contains("packed") && doc.contains("- x"), "{doc}");
    repo.git(&["fsck", "--strict", "--no-dangling"]);
    repo.assert_fsck_clean();
    // git can repack what git-beads packed, and git-beads reads the result.
    repo.git(&["gc", "-q", "--prune=now"]);
    assert!(repo.beads(&["show", &id, "--json"]).contains("packed"));
}

/// Writes a chain file naming `commit` on top of the store's head, as a queue from
/// `boot` would, with an objects file of `objects` bytes.
fn plant_queue(repo: &Repo, boot: &str, commit: &str, objects: &[u8]) -> PathBuf {
    let dir = queue_dir(repo);
    std::fs::create_dir_all(&dir).expect("queue dir");
    let head = repo.store_head();
    std::fs::write(
        dir.join("chain"),
        format!("git-beads pending 1\nboot {boot}\nbase {head}\n{commit}\n"),
    )
    .expect("chain");
    std::fs::write(dir.join(commit), objects).expect("objects");
    dir
}

fn this_boot() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_owned())
}

#[test]
fn a_queue_from_another_boot_or_with_a_missing_file_is_dropped() {
    let (_sb, repo) = Sandbox::with_store();
    let first = repo.create("first", &[]);
    let fake = "1234567890123456789012345678901234567890";
    // A power cut lost the queue's files: whatever they hold now is not trusted.
    let dir = plant_queue(&repo, "another-boot", fake, b"\x03garbage");
    let second = repo.create("second", &[]);
    assert!(!dir.join(fake).exists(), "the stale queue's files went");
    // The same boot, but the objects file is gone: the chain cannot be built on.
    if let Some(boot) = this_boot() {
        let dir = plant_queue(&repo, &boot, fake, b"");
        std::fs::remove_file(dir.join(fake)).expect("remove");
        repo.create("third", &[]);
    }
    let stored: BTreeSet<String> = repo.listed("title").into_iter().collect();
    assert!(stored.contains("first") && stored.contains("second") && stored.contains("third"));
    assert_eq!(stored.len(), 3, "{stored:?}");
    assert!(
        !repo
            .git(&["log", "--format=%H", "refs/beads/main"])
            .contains(fake)
    );
    repo.beads(&["show", &first]);
    repo.beads(&["show", &second]);
    repo.assert_fsck_clean();
}

#[test]
fn writers_queued_behind_one_another_each_get_their_own_commit() {
    const WRITERS: usize = 12;
    const EACH: usize = 6;
    let _heavy = heavy();
    let (_sb, repo) = Sandbox::with_store();
    let packs_before = packs(&repo);
    let made = concurrent_creates(&repo, WRITERS, EACH);
    let printed: BTreeSet<String> = made.into_iter().flatten().collect();
    assert_eq!(printed.len(), WRITERS * EACH);
    let stored: BTreeSet<String> = repo.listed("id").into_iter().collect();
    assert_eq!(stored, printed);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        1 + WRITERS * EACH,
        "one commit per create, in one line"
    );
    let flushes = packs(&repo).saturating_sub(packs_before);
    eprintln!("{} creates went to disk in {flushes} packs", WRITERS * EACH);
    assert!(flushes <= WRITERS * EACH);
    repo.git(&["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn writers_killed_while_others_queue_lose_nothing_acknowledged_and_write_nothing_twice() {
    const WRITERS: usize = 6;
    let trials = crate::reliability::count(20, 300);
    let _heavy = heavy();
    let (_sb, repo) = Sandbox::with_store();
    let mut rng = Rng::new("writers_killed_while_others_queue");
    let delays: Vec<u64> = (0..trials).map(|_| rng.below(40_000)).collect();
    let done = AtomicBool::new(false);
    let acked = Mutex::new(BTreeMap::<String, String>::new());
    std::thread::scope(|s| {
        // Steady writers keep the queue busy the whole time.
        let steady: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (repo, done, acked) = (&repo, &done, &acked);
                s.spawn(move || {
                    let mut i = 0;
                    while !done.load(Ordering::Relaxed) {
                        let title = format!("steady {w} {i}");
                        i += 1;
                        let out = repo.beads_output(&["create", &title]);
                        assert!(out.status.success(), "{title}: {out:?}");
                        acked.lock().expect("lock").insert(stdout(&out), title);
                    }
                })
            })
            .collect();
        for (trial, delay) in delays.iter().enumerate() {
            let title = format!("victim {trial}");
            let mut victim = repo
                .beads_direct()
                .args(["create", &title])
                .spawn()
                .expect("spawn victim");
            std::thread::sleep(Duration::from_micros(*delay));
            let _ = victim.kill();
            let out = victim.wait_with_output().expect("victim reaped");
            if out.status.success() {
                acked.lock().expect("lock").insert(stdout(&out), title);
            }
        }
        done.store(true, Ordering::Relaxed);
        for h in steady {
            h.join().expect("steady writer");
        }
    });
    // One more write takes along whatever a killed writer left queued.
    repo.create("last", &[]);
    let all = repo.all_beads();
    let mut titles = BTreeMap::<String, usize>::new();
    let ids: BTreeSet<&str> = all.iter().filter_map(|b| b["id"].as_str()).collect();
    for b in &all {
        *titles
            .entry(b["title"].as_str().expect("title").to_owned())
            .or_default() += 1;
    }
    let twice: Vec<_> = titles.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "written twice: {twice:?}");
    let acked = acked.into_inner().expect("lock");
    for (id, title) in &acked {
        assert!(
            ids.contains(id.as_str()),
            "{title} ({id}) was acknowledged but is gone"
        );
    }
    eprintln!(
        "{} beads stored, {} acknowledged, {} victims killed",
        all.len(),
        acked.len(),
        trials
    );
    repo.assert_fsck_clean();
    assert_no_torn_queue(&repo.common_dir());
}

/// Whatever is queued names commits that are in the ref already (the last write
/// flushed everything), so the queue holds at most the files of the last chain.
fn assert_no_torn_queue(common: &Path) {
    let dir = common.join("beads/pending/refs-beads-main");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".new")),
        "a temporary file was left: {names:?}"
    );
    assert!(
        names.len() <= 3,
        "the queue keeps only the last chain: {names:?}"
    );
}
