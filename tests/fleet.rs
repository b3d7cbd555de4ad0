//! A fleet: many clones of one real bare remote, each a loop of real processes
//! (`sync; ready --claim; create; sync`) running at once. No sync gives up, no
//! bead is acknowledged to two claimers, the remote advertises at most one replica
//! ref per clone and none once they are quiet, and after a final round every clone
//! holds the same store with every acknowledged write in it, as does the remote's
//! `refs/beads/main`.
//!
//! 6 clones × 4 rounds by default; `GIT_BEADS_STRESS=1` runs 50 × 10, and
//! `GIT_BEADS_FLEET=20x5` any other size.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;

/// What one clone's loop saw.
#[derive(Default)]
struct Tally {
    /// Syncs that failed, with their stderr.
    failed_syncs: Vec<String>,
    /// Beads acknowledged (exit 0) to this clone by `ready --claim`.
    claimed: Vec<String>,
    /// Beads this clone created.
    created: Vec<String>,
}

/// The fleet's size: (clones, rounds).
fn size() -> (usize, usize) {
    if let Some((n, r)) = std::env::var("GIT_BEADS_FLEET")
        .ok()
        .and_then(|v| v.split_once('x').map(|(n, r)| (n.parse(), r.parse())))
        && let (Ok(n), Ok(r)) = (n, r)
    {
        return (n, r);
    }
    if crate::reliability::stress() {
        (50, 10)
    } else {
        (6, 4)
    }
}

/// The id `ready --claim` printed, if it claimed one.
fn claimed_id(stdout: &str) -> Option<String> {
    let id = stdout.trim();
    (!id.is_empty()).then(|| id.to_owned())
}

/// One clone's loop: `rounds` times sync, claim, create, sync.
fn work(c: &Repo, who: usize, rounds: usize) -> Tally {
    let mut t = Tally::default();
    let sync = |t: &mut Tally| {
        let out = c.beads_output(&["sync"]);
        if !out.status.success() {
            t.failed_syncs.push(format!(
                "clone {who}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    };
    for round in 0..rounds {
        sync(&mut t);
        let out = c.beads_output(&["ready", "--claim"]);
        if out.status.success()
            && let Some(id) = claimed_id(&String::from_utf8_lossy(&out.stdout))
        {
            t.claimed.push(id);
        }
        let out = c.beads_output(&["create", &format!("clone {who} round {round}")]);
        t.created.push(
            expect_success(format_args!("clone {who} create"), &out)
                .trim()
                .to_owned(),
        );
        sync(&mut t);
    }
    t
}

#[test]
fn a_fleet_shares_one_remote_without_losing_or_doubling() {
    let (n, rounds) = size();
    let sb = Sandbox::new();
    let (remote, first) = sb.remote_with_store("c0");
    let mut seeded = Vec::new();
    for i in 0..n {
        seeded.push(first.create(&format!("seed {i}"), &[]));
    }
    first.sync();
    let mut clones = vec![first];
    for i in 1..n {
        clones.push(sb.synced_clone(&remote, &format!("c{i}"), &format!("agent{i}")));
    }
    for c in &clones {
        c.git(&["config", "beads.claimRemote", "origin"]);
    }
    let start = std::sync::Barrier::new(n);
    let done = std::sync::atomic::AtomicBool::new(false);
    let replica_refs = |sb: &Sandbox| -> usize {
        sb.git(
            &remote,
            &[
                "for-each-ref",
                "--format=%(refname)",
                "refs/beads/replicas/",
            ],
        )
        .lines()
        .count()
    };
    let (tallies, most) = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(replica_refs(&sb));
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            most
        });
        let tallies = on_threads(clones.iter().enumerate(), |(who, c)| {
            start.wait();
            work(c, who, rounds)
        });
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (tallies, watcher.join().expect("the watcher"))
    });
    eprintln!("fleet of {n}: at most {most} replica refs on the remote at once");
    assert!(most <= n, "one replica ref per clone at most, saw {most}");

    let failed: Vec<&String> = tallies.iter().flat_map(|t| &t.failed_syncs).collect();
    assert!(
        failed.is_empty(),
        "{} syncs failed: {failed:#?}",
        failed.len()
    );

    let mut holders: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (who, t) in tallies.iter().enumerate() {
        for id in &t.claimed {
            holders.entry(id).or_default().push(who);
        }
    }
    let doubled: Vec<_> = holders.iter().filter(|(_, w)| w.len() > 1).collect();
    assert!(
        doubled.is_empty(),
        "{} of {} claimed beads were acknowledged to two claimers: {doubled:?}",
        doubled.len(),
        holders.len()
    );
    assert!(!holders.is_empty(), "somebody claimed something");

    let all: Vec<&Repo> = clones.iter().collect();
    let tree = converge(&all);
    assert_eq!(replica_refs(&sb), 0, "quiet clones leave no replica refs");
    assert_eq!(
        sb.git(&remote, &["rev-parse", "refs/beads/main^{tree}"])
            .trim(),
        tree,
        "the remote's main holds it all"
    );
    let created: BTreeSet<&str> = tallies
        .iter()
        .flat_map(|t| &t.created)
        .map(String::as_str)
        .chain(seeded.iter().map(String::as_str))
        .collect();
    assert_eq!(
        created.len(),
        n * rounds + n,
        "every create minted its own id"
    );
    for c in &clones {
        let have = beads_by_id(&c.all_beads());
        for id in &created {
            assert!(
                have.contains_key(*id),
                "{id} is missing on {}",
                c.path.display()
            );
        }
        for (id, who) in &holders {
            let bead = &have[*id];
            assert_eq!(
                bead["status"],
                "in_progress",
                "{id} on {}",
                c.path.display()
            );
            assert_eq!(
                bead["assignee"],
                clones[who[0]].user.as_str(),
                "{id}: the acknowledged claimer holds it on {}",
                c.path.display()
            );
        }
    }
}

/// The beads of a listing by id (the one place this file reads the listing's shape).
fn beads_by_id(beads: &[serde_json::Value]) -> BTreeMap<String, serde_json::Value> {
    beads
        .iter()
        .map(|b| (b["id"].as_str().expect("an id").to_owned(), b.clone()))
        .collect()
}

/// Two clones that each add a child to the same parent offline both mint
/// `<parent>.1`; after syncing both children are there, on every clone, the one made
/// later under the next free number with the id it was minted with recorded.
#[test]
fn two_children_minted_alike_stay_two_beads() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let parent = c1.create("the parent", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let first = c1.create("alice's child", &["--parent", &parent]);
    let second = c2.create("bob's child", &["--parent", &parent]);
    assert_eq!(first, second, "both minted the same child id");
    c1.sync();
    c2.sync();
    converge(&[&c1, &c2]);
    let beads = beads_by_id(&c1.all_beads());
    let children: Vec<(&String, &str)> = beads
        .iter()
        .filter(|(id, _)| id.starts_with(&format!("{parent}.")))
        .map(|(id, b)| (id, b["title"].as_str().expect("a title")))
        .collect();
    assert_eq!(children.len(), 2, "{children:?}");
    let titles: BTreeSet<&str> = children.iter().map(|(_, t)| *t).collect();
    assert_eq!(titles, BTreeSet::from(["alice's child", "bob's child"]));
    let moved = children
        .iter()
        .find(|(id, _)| **id != first)
        .expect("one was renumbered");
    let doc = c2.bead_json(moved.0);
    assert_eq!(doc["extra"]["renumbered_from"], first.as_str(), "{doc}");
    assert!(
        doc["conflicts"].as_array().is_none_or(Vec::is_empty),
        "no values were lost: {doc}"
    );
    let kept = c2.bead_json(&first);
    assert!(
        kept["conflicts"].as_array().is_none_or(Vec::is_empty),
        "{kept}"
    );
}

/// Two groups of clones sync only within their group, through two remotes, claiming
/// one bead offline and adding children to one parent; then all sync through one.
/// Everything converges, the contested claim ends with one holder and the others in
/// `conflicts:`, and every child is a bead of its own.
#[test]
fn a_partition_heals_without_losing_or_merging_work() {
    let sb = Sandbox::new();
    let (r1, c0) = sb.remote_with_store("c0");
    let parent = c0.create("the parent", &[]);
    let contested = c0.create("everyone wants this", &[]);
    c0.sync();
    let r2 = sb.bare("r2.git");
    c0.git(&[
        "push",
        "-q",
        r2.to_str().expect("utf-8"),
        "HEAD:main",
        "refs/beads/main",
    ]);
    let names = ["a1", "a2", "b1", "b2"];
    let clones: Vec<Repo> = names
        .iter()
        .map(|n| sb.synced_clone(&r1, n, &format!("agent-{n}")))
        .collect();
    for c in &clones[2..] {
        c.git(&["remote", "set-url", "origin", r2.to_str().expect("utf-8")]);
    }
    let mut children = Vec::new();
    for (n, c) in names.iter().zip(&clones) {
        c.beads(&["update", &contested, "--claim", "--offline"]);
        children.push(format!("{n}'s child"));
        c.create(&format!("{n}'s child"), &["--parent", &parent]);
    }
    converge(&[&clones[0], &clones[1]]);
    converge(&[&clones[2], &clones[3]]);
    for c in &clones[2..] {
        c.git(&["remote", "set-url", "origin", r1.to_str().expect("utf-8")]);
    }
    let all: Vec<&Repo> = clones.iter().collect();
    converge(&all);

    let beads = beads_by_id(&clones[0].all_beads());
    let mut titles: Vec<&str> = beads
        .iter()
        .filter(|(id, _)| id.starts_with(&format!("{parent}.")))
        .map(|(_, b)| b["title"].as_str().expect("a title"))
        .collect();
    titles.sort();
    assert_eq!(titles, children, "every child is its own bead");
    let doc = clones[3].bead_json(&contested);
    let holder = doc["assignee"].as_str().expect("one holder").to_owned();
    let mut everyone: BTreeSet<String> = conflict_values(&doc, "assignee")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    everyone.insert(holder);
    let claimers: BTreeSet<String> = clones.iter().map(|c| c.user.clone()).collect();
    assert_eq!(
        everyone, claimers,
        "the holder and every other claimer: {doc}"
    );
}

/// The clone whose child a merge renumbered goes on naming it by the id it minted:
/// `show OLD` and `dep add X OLD` reach the renumbered bead, and a dependency written
/// offline against the old id follows it after sync. Elsewhere the old id names the
/// bead that kept it.
#[test]
fn a_renumbered_child_keeps_its_old_id_where_it_was_minted() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let parent = c1.create("the parent", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let clones = [&c1, &c2];
    let mut waiting = Vec::new();
    let mut old = String::new();
    for (c, who) in clones.iter().zip(["alice", "bob"]) {
        old = c.create(&format!("{who}'s child"), &["--parent", &parent]);
        let w = c.create(&format!("{who} waits for the child"), &[]);
        c.beads(&["dep", "add", &w, &old]);
        waiting.push(w);
    }
    converge(&clones);
    let (new, moved) = beads_by_id(&c1.all_beads())
        .into_keys()
        .filter(|id| id.starts_with(&format!("{parent}.")))
        .map(|id| {
            let doc = c1.bead_json(&id);
            (id, doc)
        })
        .find(|(_, b)| b["extra"]["renumbered_from"] == old.as_str())
        .expect("one child was renumbered");
    let new = &new;
    let title = moved["title"].as_str().expect("a title");
    let m = usize::from(title.starts_with("bob"));
    let (minter, other) = (clones[m], clones[1 - m]);

    assert_eq!(minter.bead_json(&old)["id"], new.as_str());
    assert_eq!(other.bead_json(&old)["id"], old.as_str());
    assert_eq!(
        dep_pairs(&minter.bead_json(&waiting[m])),
        [(new.clone(), "blocks".to_owned())],
        "the dependency written offline follows the renumbered child"
    );
    assert_eq!(
        dep_pairs(&other.bead_json(&waiting[1 - m])),
        [(old.clone(), "blocks".to_owned())],
        "the other clone's dependency stays on the child that kept the id"
    );
    let later = minter.create("later work", &[]);
    minter.beads(&["dep", "add", &later, &old]);
    assert_eq!(
        dep_pairs(&minter.bead_json(&later)),
        [(new.clone(), "blocks".to_owned())]
    );
    converge(&clones);
    for c in clones {
        assert_eq!(
            dep_pairs(&c.bead_json(&waiting[m])),
            [(new.clone(), "blocks".to_owned())]
        );
        assert_eq!(
            dep_pairs(&c.bead_json(&later)),
            [(new.clone(), "blocks".to_owned())]
        );
    }
}

/// The replica refs a remote holds.
fn replica_refs(sb: &Sandbox, remote: &std::path::Path) -> Vec<String> {
    sb.ref_names(remote, "refs/beads/replicas/")
}

/// `remote prune` deletes the replica refs whose work the remote's `refs/beads/main`
/// holds, and leaves the others.
#[test]
fn remote_prune_deletes_only_merged_replica_refs() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    c1.create("one", &[]);
    c1.sync();
    let merged = "refs/beads/replicas/r-aaaaaaaaaa";
    let waiting = "refs/beads/replicas/r-bbbbbbbbbb";
    c1.git(&["push", "-q", "origin", &format!("refs/beads/main:{merged}")]);
    c1.create("two", &[]);
    c1.git(&[
        "push",
        "-q",
        "origin",
        &format!("refs/beads/main:{waiting}"),
    ]);
    let pruned = c1.beads_json(&["remote", "prune", "--json"]);
    assert_eq!(pruned["remote"], "origin");
    assert_eq!(pruned["removed"], serde_json::json!([merged]));
    assert_eq!(pruned["kept"], serde_json::json!([waiting]));
    assert_eq!(replica_refs(&sb, &remote), [waiting]);

    // Once a sync folds the other in, it is gone too; a quiet clone's ref is listed.
    c1.sync();
    assert_eq!(replica_refs(&sb, &remote), Vec::<String>::new());
    c1.git(&["push", "-q", "origin", &format!("refs/beads/main:{merged}")]);
    let out = c1.beads_output(&["remote", "prune", "origin"]);
    assert_eq!(stdout(&out), merged);
    assert_eq!(replica_refs(&sb, &remote), Vec::<String>::new());
}

/// A sync that fetches several replica heads merges them all in one commit, whose
/// parents are the local head and each head, and loses nothing: three replicas that
/// each minted the same child id keep three children.
#[test]
fn a_sync_merges_every_replica_in_one_commit() {
    let sb = Sandbox::new();
    let (remote, c0) = sb.remote_with_store("c0");
    let parent = c0.create("the parent", &[]);
    c0.sync();
    let names = ["r1", "r2", "r3"];
    let clones: Vec<Repo> = names
        .iter()
        .map(|name| sb.synced_clone(&remote, name, &format!("agent-{name}")))
        .collect();
    let mut heads = Vec::new();
    for (n, (name, c)) in names.iter().zip(&clones).enumerate() {
        c.create(&format!("{name}'s child"), &["--parent", &parent]);
        c.create(&format!("{name}'s own"), &[]);
        let replica = format!(
            "refs/beads/replicas/r-{}",
            "abc".repeat(4).get(n..n + 10).expect("ten")
        );
        c.git(&[
            "push",
            "-q",
            "origin",
            &format!("refs/beads/main:{replica}"),
        ]);
        heads.push(c.store_head());
    }
    c0.create("c0's own", &[]);
    let before = c0.store_head();
    c0.sync();

    let after = c0.store_head();
    let parents: BTreeSet<String> = c0
        .git(&["rev-list", "--parents", "-n", "1", &after])
        .split_whitespace()
        .skip(1)
        .map(str::to_owned)
        .collect();
    let expected: BTreeSet<String> = std::iter::once(before.clone())
        .chain(heads.clone())
        .collect();
    assert_eq!(
        parents, expected,
        "one merge of the local head and every replica"
    );
    let mut not_theirs = vec!["rev-list".to_owned(), after.clone(), "--not".into(), before];
    not_theirs.extend(heads);
    let args: Vec<&str> = not_theirs.iter().map(String::as_str).collect();
    assert_eq!(c0.git(&args).lines().count(), 1, "one commit made");

    let titles: BTreeSet<String> = c0
        .all_beads()
        .iter()
        .map(|b| b["title"].as_str().expect("a title").to_owned())
        .collect();
    let mut expected: BTreeSet<String> = ["the parent", "c0's own"].map(str::to_owned).into();
    for name in names {
        expected.insert(format!("{name}'s child"));
        expected.insert(format!("{name}'s own"));
    }
    assert_eq!(titles, expected, "nothing lost, every child its own bead");
    assert_eq!(
        replica_refs(&sb, &remote),
        Vec::<String>::new(),
        "all folded"
    );
    let remote_head = sb.git(&remote, &["rev-parse", "refs/beads/main"]);
    assert_eq!(remote_head.trim(), after);
}
