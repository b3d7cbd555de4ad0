//! Housekeeping without a daemon (issue 39): a write costs what it changes. Long loops
//! of single writes on a store whose folder of fan-out folders is full (1 296 entries,
//! as at 10 000 beads) grow `.git/objects` by a few KB a write without any `git gc`,
//! keep the number of packs logarithmic, and lose nothing, also when writers are
//! killed at random points.
//!
//! A hundred writes and a few kills by default; `GIT_BEADS_STRESS=1` runs thousands
//! of writes and hundreds of kills.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{Repo, Sandbox};

/// How many beads the store holds: enough for every one of the 1 296 fan-out folders.
const BEADS: usize = 1500;

/// The most `.git/objects` may grow per write, on average.
const GROWTH_PER_WRITE: u64 = 4096;

fn base36(n: usize) -> char {
    char::from_digit((n % 36) as u32, 36).expect("a digit")
}

/// A store of [`BEADS`] beads, one in each fan-out folder and then some, imported in
/// one write; returns the repository and the ids.
fn full_store(sb: &Sandbox) -> (Repo, Vec<String>) {
    store_of(sb, BEADS)
}

/// A store of `beads` beads imported in one write; returns the repository and the ids.
fn store_of(sb: &Sandbox, beads: usize) -> (Repo, Vec<String>) {
    let repo = sb.repo_with_store("work", "writer");
    let ids: Vec<String> = (0..beads)
        .map(|n| format!("bd-{}{}h{n}", base36(n), base36(n / 36)))
        .collect();
    let jsonl: String = ids
        .iter()
        .map(|id| {
            format!(
                "{{\"id\":\"{id}\",\"title\":\"{id} at first\",\"status\":\"open\",\"priority\":2,\
                 \"issue_type\":\"task\",\"created_at\":\"2025-01-01T00:00:00Z\",\
                 \"updated_at\":\"2025-01-01T00:00:00Z\"}}\n"
            )
        })
        .collect();
    let file = sb.path().join("beads.jsonl");
    std::fs::write(&file, jsonl).expect("write the import");
    repo.beads(&["import", file.to_str().expect("utf-8"), "-q"]);
    (repo, ids)
}

/// The bytes of every file under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    walk(dir)
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// How many packs the repository has.
fn packs(repo: &Repo) -> usize {
    walk(&repo.common_dir().join("objects/pack"))
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .count()
}

/// `git fsck --full` finds nothing wrong (dangling objects of a killed write are no
/// fault).
fn assert_fsck_full(repo: &Repo, when: &str) {
    let out = repo
        .command("git")
        .args(["fsck", "--full", "--no-dangling", "--no-progress"])
        .output()
        .expect("git fsck runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "git fsck --full {when}: {}\n{said}",
        out.status
    );
}

/// Every bead's title, as the store reads them.
fn titles(repo: &Repo) -> BTreeMap<String, String> {
    repo.all_beads()
        .iter()
        .map(|b| {
            (
                b["id"].as_str().expect("an id").to_owned(),
                b["title"].as_str().expect("a title").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_long_run_of_writes_grows_git_by_what_they_change() {
    let sb = Sandbox::new();
    let (repo, ids) = full_store(&sb);
    let writes = crate::reliability::count(100, 3000);
    let mut want = titles(&repo);
    assert_eq!(want.len(), BEADS);
    let objects = repo.common_dir().join("objects");
    let before = bytes_under(&objects);
    let mut rng = common::Rng::new("a_long_run_of_writes_grows_git_by_what_they_change");
    let mut most_packs = 0;
    for n in 0..writes {
        let id = &ids[rng.below(ids.len() as u64) as usize];
        let title = format!("{id} written {n}");
        repo.beads(&["update", id, "--title", &title, "-q"]);
        want.insert(id.clone(), title);
        most_packs = most_packs.max(packs(&repo));
    }
    let grown = bytes_under(&objects).saturating_sub(before);
    let per_write = grown / writes as u64;
    eprintln!("{writes} writes grew .git/objects by {grown} bytes, {per_write} a write");
    assert!(
        per_write <= GROWTH_PER_WRITE,
        "{writes} writes grew .git/objects by {grown} bytes: {per_write} a write"
    );
    // Logarithmic: a binary counter of packs, plus the import's and the first ones.
    let bound = 2 * (usize::BITS - writes.leading_zeros()) as usize + 4;
    assert!(
        most_packs <= bound,
        "{most_packs} packs at once, over {bound}"
    );
    assert_fsck_full(&repo, "after the writes");
    assert_eq!(titles(&repo), want);
    // git's own tools find little to do and nothing to say.
    let out = repo
        .command("git")
        .args(["gc", "--quiet"])
        .output()
        .expect("gc");
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert_fsck_full(&repo, "after git gc");
    assert_eq!(titles(&repo), want);
}

/// A writer killed at a random point of its write (its housekeeping included) leaves
/// a repository that `git fsck --full` finds whole, in which every bead reads as its
/// last whole write made it or as a killed write after that made it (a killed write
/// queued for the ref may still land with the next write); later writes go on and
/// merge what it left.
#[test]
fn writers_killed_at_random_points_lose_nothing() {
    let sb = Sandbox::new();
    // A small store by default: a kill lands in the same steps of a write at any size.
    let (repo, ids) = match crate::reliability::stress() {
        true => full_store(&sb),
        false => store_of(&sb, 100),
    };
    let kills = crate::reliability::count(16, 300);
    let mut rng = common::Rng::new("writers_killed_at_random_points_lose_nothing");
    let mut allowed: BTreeMap<String, Vec<String>> = titles(&repo)
        .into_iter()
        .map(|(id, title)| (id, vec![title]))
        .collect();
    let check = |allowed: &BTreeMap<String, Vec<String>>, when: &str| {
        assert_fsck_full(&repo, when);
        let now = titles(&repo);
        assert_eq!(now.len(), allowed.len(), "{when}");
        for (id, title) in &now {
            assert!(
                allowed[id].contains(title),
                "{when}: {id} reads {title:?}, none of {:?}",
                allowed[id]
            );
        }
    };
    // How long a whole write takes here, to kill writers anywhere inside one.
    let started = std::time::Instant::now();
    for id in &ids[..5] {
        let title = format!("{id} warmed");
        repo.beads(&["update", id, "--title", &title, "-q"]);
        allowed.insert(id.clone(), vec![title]);
    }
    let write_us = (started.elapsed().as_micros() / 5).max(1000) as u64;
    for n in 0..kills {
        let id = &ids[rng.below(ids.len() as u64) as usize];
        let title = format!("{id} killed {n}");
        // git-beads itself, not `git beads`: killing the git in front of it leaves
        // git-beads running on alone, and its housekeeping then deletes packs under
        // the `git fsck` below (which fails as it fails beside a `git repack -d`).
        let mut child = repo
            .beads_direct()
            .args(["update", id, "--title", &title, "-q"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("a writer starts");
        std::thread::sleep(std::time::Duration::from_micros(
            rng.below(write_us * 3 / 2),
        ));
        let _ = child.kill();
        let _ = child.wait();
        allowed.get_mut(id).expect("a bead").push(title);
        check(&allowed, &format!("after killing write {n}"));
        // Now and then a whole write, so that housekeeping runs to its end too.
        if n % 4 == 3 {
            let id = &ids[rng.below(ids.len() as u64) as usize];
            let title = format!("{id} whole {n}");
            repo.beads(&["update", id, "--title", &title, "-q"]);
            allowed.insert(id.clone(), vec![title]);
            check(&allowed, &format!("after whole write {n}"));
        }
    }
}
