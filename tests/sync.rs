//! Sync between clones through a bare remote: every kind of field edited
//! concurrently, several sync orders, symmetry, clones syncing at once, fresh
//! clones, plain `git fetch`, and a real network transport (`git daemon`).

use crate::common;

use std::path::Path;
use std::process::Child;

use common::{
    Repo, Sandbox, conflict_values, converge, expect_success, git_daemon_available, labels,
    start_daemon, write_script,
};
use serde_json::Value;

/// Edits every kind of field on three clones concurrently, syncs them in `order`,
/// and checks that every edit is present or recorded in `conflicts:`.
fn every_field_kind(order: &[usize]) {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let x = c1.create(
        "Shared bead",
        &["-l", "keep", "-l", "drop", "-d", "one\ntwo\nthree\n"],
    );
    let other = c1.create("Other bead", &[]);
    c1.sync();
    let c2 = sb.clone(&remote, "c2", "bob");
    c2.beads(&["init"]);
    let c3 = sb.clone(&remote, "c3", "carol");
    let adopted = c3.sync();
    assert_eq!(adopted["outcome"], "adopted", "{adopted}");
    assert_eq!(c2.store_head(), c1.store_head());
    assert_eq!(c3.store_head(), c1.store_head());

    // alice: title, a label in and one out, a comment, priority, the first line, a dependency.
    c1.beads(&["update", &x, "--title", "Title by alice", "-p", "1"]);
    c1.beads(&["label", "add", &x, "alice-l"]);
    c1.beads(&["label", "remove", &x, "drop"]);
    c1.beads(&["comment", &x, "from alice"]);
    c1.beads(&["update", &x, "-d", "ONE\ntwo\nthree\n"]);
    c1.beads(&["dep", "add", &x, &other, "--type", "related"]);
    // bob: a label, a comment, priority, the last line, notes, assignee.
    c2.beads(&["label", "add", &x, "bob-l"]);
    c2.beads(&["comment", &x, "from bob"]);
    c2.beads(&["update", &x, "-p", "3", "--notes", "bob's notes"]);
    c2.beads(&["update", &x, "-d", "one\ntwo\nTHREE\n", "-a", "bob"]);
    // carol: a label, a comment, priority (the latest), a new bead, closes the other.
    c3.beads(&["label", "add", &x, "carol-l"]);
    c3.beads(&["comment", &x, "from carol"]);
    c3.beads(&["update", &x, "-p", "0"]);
    let z = c3.create("Carol's new bead", &[]);
    c3.beads(&["close", &other, "--reason", "done by carol"]);

    let clones = [&c1, &c2, &c3];
    for &i in order {
        clones[i].sync();
    }
    converge(&clones);

    let b = c1.bead_json(&x);
    assert_eq!(b["title"], "Title by alice");
    let mut labels = labels(&b);
    labels.sort();
    assert_eq!(labels, ["alice-l", "bob-l", "carol-l", "keep"]);
    let comments: Vec<&str> = b["comments"]
        .as_array()
        .expect("comments")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect();
    for text in ["from alice", "from bob", "from carol"] {
        assert!(comments.contains(&text), "{text} lost: {comments:?}");
    }
    assert_eq!(comments.len(), 3);
    assert_eq!(b["description"], "ONE\ntwo\nTHREE\n");
    assert_eq!(b["notes"], "bob's notes");
    assert_eq!(b["assignee"], "bob");
    assert_eq!(b["dependencies"][0]["id"], other.as_str());
    // Carol changed the priority last: hers wins, the other two are kept.
    assert_eq!(b["priority"], 0);
    let mut lost: Vec<i64> = conflict_values(&b, "priority")
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    lost.sort();
    lost.dedup();
    assert_eq!(lost, [1, 3], "{b}");
    assert_eq!(c2.bead_json(&z)["title"], "Carol's new bead");
    let o = c2.bead_json(&other);
    assert_eq!(o["status"], "closed");
    assert_eq!(o["close_reason"], "done by carol");
    // The derived index agrees with the documents.
    let listed = c3.listed("id");
    assert_eq!(listed.len(), 3, "{listed:?}");
    c1.assert_fsck_clean();
}

#[test]
fn every_field_kind_in_order_1_2_3() {
    every_field_kind(&[0, 1, 2]);
}

#[test]
fn every_field_kind_in_order_3_1_2() {
    every_field_kind(&[2, 0, 1]);
}

#[test]
fn every_field_kind_in_order_2_3_2_1() {
    every_field_kind(&[1, 2, 1, 0]);
}

fn copy_repo(from: &Path, to: &Path) {
    let out = common::tool("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .expect("cp runs");
    assert!(out.status.success(), "cp -a failed");
}

/// Merging A into B and B into A gives byte-identical trees.
#[test]
fn merge_is_symmetric_at_the_tree_level() {
    let sb = Sandbox::new();
    let (c1, c2, x) = sb.two_clones_sharing("Shared", &["-d", "a\nb\nc\n"]);
    c1.beads(&[
        "update",
        &x,
        "--title",
        "alice",
        "-p",
        "1",
        "-d",
        "A\nb\nc\n",
    ]);
    c1.beads(&["label", "add", &x, "a"]);
    c1.create("Only alice", &[]);
    c2.beads(&["update", &x, "--title", "bob", "-p", "3", "-d", "a\nb\nC\n"]);
    c2.beads(&["comment", &x, "bob says"]);
    c2.create("Only bob", &[]);
    // Snapshots of both before either merges.
    let snap1 = sb.path().join("snap1");
    let snap2 = sb.path().join("snap2");
    copy_repo(&c1.path, &snap1);
    copy_repo(&c2.path, &snap2);
    c1.git(&["remote", "add", "peer", snap2.to_str().expect("utf-8")]);
    c2.git(&["remote", "add", "peer", snap1.to_str().expect("utf-8")]);
    let one = c1.beads_json(&["pull", "peer"]);
    let two = c2.beads_json(&["pull", "peer"]);
    assert_eq!(one["outcome"], "merged");
    assert_eq!(two["outcome"], "merged");
    assert_eq!(one["conflicts"], two["conflicts"]);
    assert_eq!(c1.store_tree(), c2.store_tree());
    assert_ne!(c1.store_head(), c2.store_head(), "the merge commits differ");
    // Merging again is a no-op in both directions (idempotent).
    let again = c1.beads_json(&["pull", "peer"]);
    assert_eq!(again["outcome"], "up-to-date");
    let b = c1.bead_json(&x);
    assert_eq!(b["description"], "A\nb\nC\n");
    assert_eq!(b["title"], "bob");
    assert_eq!(conflict_values(&b, "title"), [Value::from("alice")]);

    // The two merges criss-cross: the next merge between them has two merge bases.
    c1.beads(&["label", "add", &x, "after-a"]);
    c2.beads(&["update", &x, "--notes", "after b"]);
    c1.git(&[
        "remote",
        "set-url",
        "peer",
        c2.path.to_str().expect("utf-8"),
    ]);
    c2.git(&[
        "remote",
        "set-url",
        "peer",
        c1.path.to_str().expect("utf-8"),
    ]);
    let bases = c1.git(&[
        "merge-base",
        "--all",
        "refs/beads/main",
        "refs/beads/remotes/peer/main",
    ]);
    assert_eq!(bases.lines().count(), 1, "before fetching, one base");
    let v = c1.beads_json(&["pull", "peer"]);
    assert_eq!(v["outcome"], "merged", "{v}");
    let two_bases = c1.git(&[
        "merge-base",
        "--all",
        "refs/beads/main^1",
        "refs/beads/main^2",
    ]);
    assert_eq!(
        two_bases.lines().count(),
        2,
        "a criss-cross merge: {two_bases}"
    );
    assert_eq!(v["conflicts"], 0, "{v}");
    c2.beads_json(&["pull", "peer"]);
    assert_eq!(c1.store_tree(), c2.store_tree());
    let b = c2.bead_json(&x);
    assert_eq!(b["labels"], serde_json::json!(["a", "after-a"]));
    assert_eq!(b["notes"], "after b");
    assert_eq!(conflict_values(&b, "title"), [Value::from("alice")]);
}

/// Two clones syncing at the same moment against the same remote both finish,
/// and nothing is lost.
#[test]
fn clones_syncing_at_the_same_time() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let mut made = Vec::new();
    for round in 0..4 {
        for (who, c) in [("alice", &c1), ("bob", &c2)] {
            for i in 0..3 {
                made.push(c.create(&format!("{who} {round}.{i}"), &[]));
            }
        }
        let spawn = |r: &Repo| -> Child {
            r.beads_command(&[], &["--json", "sync"])
                .spawn()
                .expect("spawn sync")
        };
        let (a, b) = (spawn(&c1), spawn(&c2));
        for child in [a, b] {
            let out = child.wait_with_output().expect("sync finishes");
            expect_success("a concurrent sync", &out);
        }
    }
    converge(&[&c1, &c2]);
    let have = c1.listed("id");
    for id in &made {
        assert!(have.contains(id), "{id} lost");
    }
    assert_eq!(have.len(), made.len());
}

/// When the remote moves between the fetch and the push, the push's lease fails, and
/// sync publishes to the clone's own replica ref instead, at once; the next sync of
/// any clone merges it and folds it into `refs/beads/main`.
#[test]
fn a_remote_that_moves_during_sync_is_merged_again() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let marker = sb.path().join("moved-once");
    // Right after c1's fetch updates its tracking ref, bob pushes a new bead.
    let hook = c1.path.join(".git/hooks/reference-transaction");
    write_script(
        &hook,
        &format!(
            "#!/bin/sh\n\
             [ \"$1\" = committed ] || exit 0\n\
             grep -q refs/beads/remotes/origin/main || exit 0\n\
             [ -e '{marker}' ] && exit 0\n\
             touch '{marker}'\n\
             cd '{c2}' || exit 1\n\
             unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX\n\
             git beads create 'sneaked in' >/dev/null 2>&1\n\
             git beads sync >/dev/null 2>&1\n\
             exit 0\n",
            marker = marker.display(),
            c2 = c2.path.display()
        ),
    );
    let mine = c1.create("alice's", &[]);
    // Something new on the remote, so that c1's fetch moves its tracking ref.
    c2.create("bob's first", &[]);
    c2.sync();
    let v = c1.sync();
    assert!(marker.exists(), "the hook ran");
    assert_eq!(v["rounds"], 1, "{v}");
    assert_eq!(v["pushed"], true, "{v}");
    let replica = v["replica"].as_str().expect("pushed to its replica ref");
    assert!(replica.starts_with("refs/beads/replicas/r-"), "{v}");
    let on_remote =
        |prefix: &str| sb.git(&remote, &["for-each-ref", "--format=%(refname)", prefix]);
    assert_eq!(on_remote("refs/beads/replicas/").trim(), replica);
    std::fs::remove_file(&hook).expect("remove hook");
    // While only the replica ref holds alice's bead, a plain `git fetch` brings it into
    // the tracking refs, and a fresh clone's `init` merges it in.
    c2.git(&["fetch", "origin"]);
    let tracked = c2.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/beads/remotes/origin/replicas/",
    ]);
    assert_eq!(
        tracked.trim(),
        replica.replace("refs/beads/", "refs/beads/remotes/origin/")
    );
    let fresh = sb.clone(&remote, "fresh", "carol");
    fresh.beads(&["init"]);
    fresh.bead_json(&mine);
    let folded = c2.sync();
    assert_eq!(folded["replica"], Value::Null, "{folded}");
    c2.bead_json(&mine);
    assert_eq!(
        on_remote("refs/beads/replicas/"),
        "",
        "folded into main and deleted"
    );
    c1.sync();
    assert_eq!(c1.store_tree(), c2.store_tree());
    let titles = c1.listed("title");
    assert!(titles.contains(&"sneaked in".to_owned()), "{titles:?}");
}

/// A fresh clone gets every bead with `sync`, or with `init`; plain `git fetch`
/// brings beads into tracking refs that `git branch -a` does not show, and a plain
/// `git push` pushes code only.
#[test]
fn fresh_clones_and_plain_git() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let ids: Vec<String> = (0..5)
        .map(|i| c1.create(&format!("bead {i}"), &[]))
        .collect();
    c1.sync();
    let c2 = sb.clone(&remote, "c2", "bob");
    let init = c2.beads_json(&["init"]);
    assert_eq!(init["adopted"], "origin", "{init}");
    assert_eq!(init["prefix"], "bd");
    assert_eq!(init["created"], false);
    assert_eq!(c2.store_head(), c1.store_head());
    assert_eq!(c2.all_beads().len(), 5);
    // A second init changes nothing.
    let again = c2.beads_json(&["init"]);
    assert_eq!(again["adopted"], Value::Null);
    assert_eq!(again["remotes_configured"], serde_json::json!([]));

    // Plain git fetch brings the beads into the tracking ref.
    c1.create("after the clone", &[]);
    c1.sync();
    c2.git(&["fetch", "-q"]);
    assert_eq!(
        c2.git(&["rev-parse", "refs/beads/remotes/origin/main"])
            .trim(),
        c1.store_head()
    );
    let branches = c2.git(&["branch", "-a"]);
    assert!(!branches.contains("beads"), "{branches}");
    // The local store is untouched by a plain fetch; pull merges (fast-forward).
    assert_ne!(c2.store_head(), c1.store_head());
    let pulled = c2.beads_json(&["pull"]);
    assert_eq!(pulled["outcome"], "fast-forward");
    assert_eq!(c2.store_head(), c1.store_head());

    // A plain git push of code does not push beads.
    c2.create("local only", &[]);
    c2.commit_file("more", "x\n", "more");
    c2.git(&["push", "-q", "origin", "HEAD:main"]);
    let remote_head = sb.git(&remote, &["rev-parse", "refs/beads/main"]);
    assert_eq!(remote_head.trim(), c1.store_head());

    // `remote setup` on a remote added later.
    c2.git(&["remote", "add", "mirror", remote.to_str().expect("utf-8")]);
    let set = c2.beads_json(&["remote", "setup", "mirror"]);
    assert_eq!(set["added"], true);
    let set = c2.beads_json(&["remote", "setup", "mirror"]);
    assert_eq!(set["added"], false);
    let specs = c2.git(&["config", "--get-all", "remote.mirror.fetch"]);
    assert!(
        specs.contains("+refs/beads/main*:refs/beads/remotes/mirror/main*"),
        "{specs}"
    );

    // A fresh clone that syncs (rather than init) adopts too.
    let c3 = sb.clone(&remote, "c3", "carol");
    let v = c3.sync();
    assert_eq!(v["outcome"], "adopted");
    for id in &ids {
        c3.bead_json(id);
    }
}

/// A clone set up before replica refs existed fetches only the store's and the notes'
/// refs: its next sync adds the replica refs' refspec and merges the work a replica
/// ref holds, so nothing another clone published there is missed or misread.
#[test]
fn a_clone_set_up_before_replica_refs_takes_them_in_at_its_next_sync() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.git(&["config", "--unset", "remote.origin.fetch", "replicas"]);
    let before = c2.git(&["config", "--get-all", "remote.origin.fetch"]);
    assert!(!before.contains("replicas"), "{before}");
    // alice's new bead is on her replica ref only.
    let hers = c1.create("published on a replica ref", &[]);
    c1.git(&[
        "push",
        "-q",
        "origin",
        "refs/beads/main:refs/beads/replicas/r-0000000001",
    ]);
    c2.git(&["fetch", "-q", "origin"]);
    let tracked = c2.git(&["for-each-ref", "refs/beads/remotes/origin/replicas/"]);
    assert_eq!(tracked, "", "the old refspecs do not fetch replica refs");
    let v = c2.sync();
    assert_eq!(v["configured"], true, "{v}");
    c2.bead_json(&hers);
    let after = c2.git(&["config", "--get-all", "remote.origin.fetch"]);
    assert!(
        after.contains("+refs/beads/replicas/*:refs/beads/remotes/origin/replicas/*"),
        "{after}"
    );
    let left = sb.git(&remote, &["for-each-ref", "refs/beads/replicas/"]);
    assert_eq!(left, "", "folded into main");
}

/// A deletion on one side and an edit on the other: the tombstone wins as a
/// state, the edit is kept, and nothing disappears.
#[test]
fn deletion_is_a_tombstone_that_merges() {
    let sb = Sandbox::new();
    let (c1, c2, x) = sb.two_clones_sharing("Doomed", &[]);
    c1.beads(&["delete", &x, "--reason", "duplicate", "--force"]);
    c2.beads(&["update", &x, "--title", "Edited meanwhile"]);
    c1.sync();
    c2.sync();
    converge(&[&c1, &c2]);
    let b = c1.bead_json(&x);
    assert_eq!(b["status"], "deleted");
    assert_eq!(b["title"], "Edited meanwhile");
}

/// Conflicts recorded by a sync are shown by `show`, cleared by `resolve` in one
/// commit, and the clearing syncs.
#[test]
fn resolve_clears_conflicts() {
    let sb = Sandbox::new();
    let (c1, c2, x) = sb.two_clones_sharing("Contested", &[]);
    c1.beads(&["update", &x, "-p", "1"]);
    c2.beads(&["update", &x, "-p", "4"]);
    c1.sync();
    let v = c2.sync();
    assert_eq!(v["conflicts"], 1, "{v}");
    c1.sync();
    let shown = c1.beads(&["show", &x]);
    assert!(shown.contains("conflicts"), "{shown}");
    assert!(shown.contains("git beads resolve"), "{shown}");
    let before = c1.store_head();
    let r = c1.beads_json(&["resolve", &x]);
    assert_eq!(r["cleared"], 1);
    assert_eq!(
        c1.commit_count(&format!("{before}..refs/beads/main")),
        1,
        "one commit"
    );
    let r = c1.beads_json(&["resolve", &x]);
    assert_eq!(r["cleared"], 0);
    converge(&[&c1, &c2]);
    assert_eq!(c2.bead_json(&x)["conflicts"], Value::Null);
    let (code, err) = c1.beads_fail(&["resolve", "bd-nope"]);
    assert_eq!(code, 1, "{err}");
}

/// Documents of kinds the merge does not know (other top-level directories) merge
/// field by field, losing values kept in their `conflicts:`.
#[test]
fn unknown_documents_merge_field_by_field() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let path = "gadgets/ab/g-1.yaml";
    c1.put_raw_doc(
        path,
        b"name: widget\ncolour: red\nparts:\n- a\nupdated_at: 2026-01-01T00:00:00Z\nupdated_by: alice\n",
    );
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c1.put_raw_doc(
        path,
        b"name: WIDGET\ncolour: blue\nparts:\n- a\n- b\nupdated_at: 2026-01-01T00:00:01Z\nupdated_by: alice\n",
    );
    c2.put_raw_doc(
        path,
        b"name: widget\ncolour: green\nparts:\n- a\n- c\nupdated_at: 2026-01-01T00:00:02Z\nupdated_by: bob\n",
    );
    c1.sync();
    let v = c2.sync();
    assert_eq!(v["conflicts"], 1, "{v}");
    converge(&[&c1, &c2]);
    let doc = c1.git(&["show", &format!("refs/beads/main:{path}")]);
    let doc: serde_json::Value = serde_yaml::from_str(&doc).expect("yaml");
    assert_eq!(doc["name"], "WIDGET");
    assert_eq!(doc["colour"], "green");
    assert_eq!(doc["parts"], serde_json::json!(["a", "c", "b"]));
    assert_eq!(doc["updated_by"], "bob");
    assert_eq!(
        doc["conflicts"],
        serde_json::json!([{"field": "colour", "value": "blue", "actor": "alice", "at": "2026-01-01T00:00:01Z"}])
    );
}

/// Worktree snapshots are trees of files as they are — symbolic links, executables,
/// submodules — and travel whole, modes and all; one removed on one side (`gc`)
/// stays removed.
#[test]
fn snapshot_trees_travel_whole() {
    let sb = Sandbox::new();
    let (c1, c2, x) = sb.two_clones_sharing("Shared", &[]);
    let blob = |r: &Repo, text: &str| {
        let f = sb.path().join("blob-input");
        std::fs::write(&f, text).expect("write");
        r.git(&["hash-object", "-w", f.to_str().expect("utf-8")])
            .trim()
            .to_owned()
    };
    let code_commit = c1.head();
    let snap = |r: &Repo, n: u32| {
        let dir = format!("snapshots/ab/ses-ab{n}/1");
        let link = blob(r, "target/file");
        let script = blob(r, &format!("#!/bin/sh\necho {n}\n"));
        r.edit_store(
            &[
                &["--cacheinfo", &format!("120000,{link},{dir}/link")],
                &["--cacheinfo", &format!("100755,{script},{dir}/run.sh")],
                &["--cacheinfo", &format!("160000,{code_commit},{dir}/sub")],
            ],
            "by hand",
        );
        dir
    };
    let one = snap(&c1, 1);
    c1.beads(&["update", &x, "-p", "1"]);
    let two = snap(&c2, 2);
    c2.beads(&["label", "add", &x, "b"]);
    c1.sync();
    let v = c2.sync();
    assert_eq!(v["outcome"], "merged", "{v}");
    c1.sync();
    assert_eq!(c1.store_tree(), c2.store_tree());
    for dir in [&one, &two] {
        let listing = c1.git(&["ls-tree", "-r", "refs/beads/main", dir]);
        assert!(listing.contains("120000 blob"), "{listing}");
        assert!(listing.contains("100755 blob"), "{listing}");
        assert!(listing.contains("160000 commit"), "{listing}");
    }
    // gc on one side, an edit on the other: the snapshot stays gone.
    c1.edit_store(
        &[
            &["--force-remove", &format!("{one}/link")],
            &["--force-remove", &format!("{one}/run.sh")],
            &["--force-remove", &format!("{one}/sub")],
        ],
        "by hand",
    );
    c2.beads(&["update", &x, "--title", "renamed"]);
    c1.sync();
    c2.sync();
    c1.sync();
    assert_eq!(c1.store_tree(), c2.store_tree());
    let paths = c2.store_paths();
    assert!(!paths.iter().any(|p| p.starts_with(&one)), "{paths:?}");
    assert!(paths.iter().any(|p| p.starts_with(&two)), "{paths:?}");
    assert_eq!(c2.bead_json(&x)["title"], "renamed");
}

// ---- a real network transport ---------------------------------------------------

#[test]
fn sync_over_git_daemon() {
    let sb = Sandbox::new();
    if !git_daemon_available() {
        eprintln!("note: `git daemon` is not installed; skipping the network transport test");
        return;
    }
    let remote = sb.bare("net.git");
    let Some(daemon) = start_daemon(&sb) else {
        eprintln!("note: could not start `git daemon` on 127.0.0.1; skipping");
        return;
    };
    let url = format!("git://127.0.0.1:{}/net.git", daemon.port);
    let c1 = sb.repo("n1", "alice");
    c1.git(&["remote", "add", "origin", &url]);
    c1.git(&["push", "-q", "origin", "HEAD:main"]);
    c1.init();
    let x = c1.create("Over the wire", &[]);
    let v = c1.sync();
    assert_eq!(v["pushed"], true, "{v}");
    let served = sb.git(&remote, &["rev-parse", "refs/beads/main"]);
    assert_eq!(served.trim(), c1.store_head());

    let c2 = sb.clone(Path::new(&url), "n2", "bob");
    let init = c2.beads_json(&["init"]);
    assert_eq!(init["adopted"], "origin");
    c2.beads(&["update", &x, "-p", "0"]);
    c1.beads(&["label", "add", &x, "net"]);
    c2.sync();
    let v = c1.sync();
    assert_eq!(v["outcome"], "merged", "{v}");
    c2.sync();
    assert_eq!(c1.store_tree(), c2.store_tree());
    let b = c2.bead_json(&x);
    assert_eq!(b["priority"], 0);
    assert_eq!(b["labels"], serde_json::json!(["net"]));
    drop(daemon);
}

/// `sent` says how many documents a push changed on the remote, and is null when the
/// remote had everything already: the first push of a store, a sync that only pulls,
/// one that only pushes, one that does both, one with nothing to do.
#[test]
fn sync_says_what_it_sent() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_code("c1");
    c1.init();
    let first = c1.sync();
    assert_eq!(first["pushed"], true, "{first}");
    assert!(first["sent"].as_u64().is_some_and(|n| n > 0), "{first}");
    let c2 = sb.clone(&remote, "c2", "bob");
    let adopted = c2.sync();
    assert_eq!(adopted["outcome"], "adopted", "{adopted}");
    assert!(adopted["sent"].is_null(), "{adopted}");
    c1.create("one", &[]);
    let out = c1.sync();
    assert_eq!(
        (out["sent"].as_u64(), out["fetched"].as_u64()),
        (Some(1), Some(0)),
        "{out}"
    );
    c2.create("two", &[]);
    let both = c2.sync();
    assert_eq!(both["outcome"], "merged", "{both}");
    assert_eq!(
        (both["sent"].as_u64(), both["fetched"].as_u64()),
        (Some(1), Some(1)),
        "{both}"
    );
    let idle = c2.sync();
    assert_eq!(idle["outcome"], "up-to-date", "{idle}");
    assert!(idle["sent"].is_null(), "{idle}");
}
