//! git's own tools stay quiet after git-beads writes: many single writes leave no
//! pack without an index, no garbage to speak of, and nothing `git fsck`, `git gc`,
//! `git count-objects -v` or `git repack -ad` warns about.

use crate::common;

use common::Sandbox;

/// How many single writes the test makes: enough for the small packs to be merged
/// many times over (150; 500 under `GIT_BEADS_STRESS=1`).
fn writes() -> usize {
    crate::reliability::count(150, 500)
}

/// Runs `git ARGS` in the repository and returns (stdout, stderr), asserting success.
fn git_quietly(sb: &Sandbox, repo: &common::Repo, args: &[&str]) -> (String, String) {
    let out = sb.run(&repo.path, "git", args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "git {args:?} failed: {stderr}");
    (stdout, stderr)
}

/// The first lines of what a git command said, enough to see what it warns about.
fn head(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    format!(
        "{} lines: {}",
        lines.len(),
        lines[..lines.len().min(3)].join(" | ")
    )
}

/// The value of one `name: value` line of `git count-objects -v`.
fn count(report: &str, name: &str) -> u64 {
    report
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

/// `git count-objects -v` counts no garbage and few packs, and `git fsck`, `git gc`,
/// `git repack -ad` and `git count-objects -v` say nothing, before and after packing.
fn assert_git_has_nothing_to_say(sb: &Sandbox, repo: &common::Repo) {
    let (report, stderr) = git_quietly(sb, repo, &["count-objects", "-v"]);
    assert!(
        stderr.is_empty(),
        "git count-objects -v warned: {}",
        head(&stderr)
    );
    assert_eq!(count(&report, "garbage"), 0, "{report}");
    assert_eq!(count(&report, "size-garbage"), 0, "{report}");
    assert!(
        count(&report, "packs") <= 32,
        "small packs pile up: {report}"
    );
    for args in [
        &["fsck", "--no-progress"][..],
        &["gc", "--quiet"],
        &["repack", "-ad", "-q"],
        &["count-objects", "-v"],
        &["fsck", "--no-progress"],
    ] {
        let (_, stderr) = git_quietly(sb, repo, args);
        assert!(stderr.is_empty(), "git {args:?} warned: {}", head(&stderr));
    }
}

#[test]
fn many_single_writes_leave_git_nothing_to_warn_about() {
    let (sb, repo) = Sandbox::with_store();
    let id = repo.create("a bead written many times", &[]);
    let writes = writes();
    for n in 0..writes {
        repo.beads(&["update", &id, "--title", &format!("title {n}")]);
    }

    assert_git_has_nothing_to_say(&sb, &repo);
    assert_eq!(
        repo.beads_json(&["show", &id])[0]["title"],
        format!("title {}", writes - 1)
    );
}

/// Packs merged away go at once, so readers running meanwhile may find a pack they
/// had looked at gone: each must look again and find its objects in the merged pack.
#[test]
fn readers_never_miss_an_object_while_packs_are_merged_away() {
    let (_sb, repo) = Sandbox::with_store();
    let seeded = repo.create("there from the start", &[]);
    let done = std::sync::atomic::AtomicBool::new(false);
    let reads = std::thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut reads = 0;
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        for args in [&["list", "--all", "--json"][..], &["show", &seeded]] {
                            let out = repo.beads_output(args);
                            assert!(out.status.success(), "{args:?} failed: {out:?}");
                        }
                        reads += 1;
                    }
                    reads
                })
            })
            .collect();
        let created = common::concurrent_creates(&repo, 3, 40);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(created.concat().len(), 120);
        readers
            .into_iter()
            .map(|r| r.join().expect("a reader panicked"))
            .sum::<usize>()
    });
    assert!(reads > 0);
    assert_eq!(repo.all_beads().len(), 121);
    repo.assert_fsck_clean();
}

/// Leaves an empty `lock` five seconds old, as a git killed while holding it does.
fn plant_stale_lock(lock: &std::path::Path) {
    std::fs::write(lock, "").expect("plant a lock");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(lock)
        .and_then(|f| f.set_modified(old))
        .expect("age the lock");
}

/// A `git fetch --prune` killed while it rewrites `packed-refs` leaves git's lock on
/// it, and a packed store ref cannot be updated while it is there: once the lock is
/// older than git itself waits for one, writes take it for stale and go on.
#[test]
fn a_packed_refs_lock_left_by_a_killed_git_does_not_block_writes() {
    let (_sb, repo) = Sandbox::with_store();
    repo.create("before", &[]);
    repo.git(&["pack-refs", "--all"]);
    let lock = repo.common_dir().join("packed-refs.lock");
    plant_stale_lock(&lock);
    let id = repo.create("after", &[]);
    assert!(!lock.exists(), "the stale lock is gone");
    assert_eq!(repo.all_beads().len(), 2, "{id} is stored");
    repo.assert_fsck_clean();
}

/// A `git fetch` killed while it updated the tracking ref of a claim on the remote
/// leaves git's `.lock` beside it; the next sync clears it once it is stale instead
/// of failing on it for good.
#[test]
fn a_tracking_ref_lock_left_by_a_killed_fetch_does_not_block_syncs() {
    let sb = Sandbox::new();
    let (remote, a) = sb.remote_with_store("origin");
    let b = sb.synced_clone(&remote, "b", "bob");
    let id = b.create("claimed on the remote", &[]);
    b.sync();
    b.beads(&["update", &id, "--claim", "--remote", "origin"]);
    let claims = a.common_dir().join("refs/beads/remotes/origin/claims");
    std::fs::create_dir_all(&claims).expect("the tracking folder");
    let lock = claims.join(format!("{id}.lock"));
    plant_stale_lock(&lock);
    a.sync();
    assert!(!lock.exists(), "the stale lock is gone");
    let tracked = a.git(&["show-ref"]);
    assert!(
        tracked.contains(&format!("remotes/origin/claims/{id}")),
        "{tracked}"
    );
    assert_eq!(a.all_beads().len(), 1);
    a.assert_fsck_clean();
}

/// How many times the test pours the largest vendored formula: enough packs of a
/// thousand documents for them to be merged (4; 18 under `GIT_BEADS_STRESS=1`).
fn pours() -> usize {
    crate::reliability::count(4, 18)
}

/// A pour of a thousand steps writes its documents as one pack of its own, stored
/// uncompressed; merged with the others later, they stay readable and git finds
/// nothing to say, before or after it repacks them.
#[test]
fn pours_of_a_thousand_steps_leave_git_nothing_to_warn_about() {
    let (sb, repo) = Sandbox::with_store();
    let name = "towers-of-hanoi-10.formula.toml";
    let dir = repo.path.join(".beads/formulas");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let vendored = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formulas/gastown")
        .join(name);
    std::fs::copy(vendored, dir.join(name)).expect("copy the formula");
    let pours = pours();
    let molecules: Vec<String> = (0..pours)
        .map(|_| {
            let poured = repo.beads_json(&["mol", "pour", "towers-of-hanoi-10"]);
            assert_eq!(poured["steps"].as_array().map(Vec::len), Some(1025));
            poured["molecule"]["id"].as_str().expect("an id").to_owned()
        })
        .collect();

    assert_git_has_nothing_to_say(&sb, &repo);
    for m in &molecules {
        let last = repo.beads_json(&["show", &format!("{m}.1025")]);
        assert_eq!(last[0]["title"], "Verify final state", "{last}");
    }
    assert_eq!(repo.all_beads().len(), pours * 1026);
}
