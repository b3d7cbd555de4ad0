//! Sync against remotes that misbehave: no beads yet, unreachable, refusing the
//! push, force-pushed, holding garbage, sending broken documents or extra refs. Every
//! case ends with a clear message and a local store that is untouched or moved
//! only to a complete merge.

use crate::common;

use std::path::Path;

use common::{Sandbox, expect_success, write_script};
use serde_json::Value;

/// Runs git in the repository at `git_dir` as plumber, feeding `input`.
fn plumb(sb: &Sandbox, git_dir: &Path, args: &[&str], input: &[u8]) -> String {
    sb.plumb("plumber", git_dir, args, input)
}

fn remote_head(sb: &Sandbox, remote: &Path) -> String {
    plumb(sb, remote, &["rev-parse", "refs/beads/main"], b"")
}

/// A tree object with one raw entry, written without git's checks.
fn raw_tree(sb: &Sandbox, remote: &Path, mode: &str, name: &[u8], oid_hex: &str) -> String {
    let mut bytes = format!("{mode} ").into_bytes();
    bytes.extend_from_slice(name);
    bytes.push(0);
    for i in (0..oid_hex.len()).step_by(2) {
        bytes.push(u8::from_str_radix(&oid_hex[i..i + 2], 16).expect("hex"));
    }
    plumb(
        sb,
        remote,
        &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        &bytes,
    )
}

/// A commit of `tree` on top of the remote's store, set as its `refs/beads/main`.
fn commit_on_remote(sb: &Sandbox, remote: &Path, tree: &str, parent: &str) -> String {
    let commit = plumb(
        sb,
        remote,
        &["commit-tree", tree, "-p", parent, "-m", "garbage"],
        b"",
    );
    plumb(sb, remote, &["update-ref", "refs/beads/main", &commit], b"");
    commit
}

#[test]
fn a_remote_without_beads_yet() {
    let sb = Sandbox::new();
    let remote = sb.bare("remote.git");
    let c1 = sb.clone(&remote, "c1", "alice");
    c1.git(&["commit", "-q", "--allow-empty", "-m", "code"]);
    c1.git(&["push", "-q", "origin", "HEAD:main"]);
    // Neither side has a store.
    let (code, err) = c1.beads_fail(&["sync"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no beads store"), "{err}");
    assert!(err.contains("git beads init"), "{err}");
    let pulled = c1.beads_json(&["pull"]);
    assert_eq!(pulled["outcome"], "up-to-date");
    // init on a clone of a remote without beads creates a store.
    let init = c1.beads_json(&["init", "--prefix", "bd"]);
    assert_eq!(init["created"], true);
    assert_eq!(init["adopted"], Value::Null);
    let head = c1.store_head();
    let pulled = c1.beads_json(&["pull"]);
    assert_eq!(pulled["outcome"], "up-to-date");
    assert_eq!(c1.store_head(), head);
    let pushed = c1.beads_json(&["push"]);
    assert_eq!(pushed["pushed"], true);
    assert_eq!(remote_head(&sb, &remote), head);
    // A plain fetch of a remote whose beads are gone prunes the tracking ref and
    // does not fail.
    plumb(&sb, &remote, &["update-ref", "-d", "refs/beads/main"], b"");
    c1.git(&["fetch", "-q", "--prune"]);
    let refs = c1.git(&["for-each-ref", "refs/beads/remotes/"]);
    assert!(refs.trim().is_empty(), "{refs}");
    assert_eq!(c1.store_head(), head);
}

#[test]
fn an_unreachable_remote() {
    let sb = Sandbox::new();
    let (_remote, c1) = sb.remote_with_store("c1");
    c1.create("local work", &[]);
    let head = c1.store_head();
    c1.git(&["remote", "add", "dead", "/nonexistent/remote.git"]);
    let (code, err) = c1.beads_fail(&["sync", "dead"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("git fetch from dead failed"), "{err}");
    assert_eq!(c1.store_head(), head);
    let (code, err) = c1.beads_fail(&["--json", "push", "dead"]);
    assert_eq!(code, 4, "{err}");
    // init in a fresh clone whose remote went away still makes a store, with a warning.
    let lonely = sb.repo("lonely", "bob");
    lonely.git(&["remote", "add", "origin", "/nonexistent/remote.git"]);
    let out = lonely.beads_output(&["init", "--prefix", "bd"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: could not look for beads"), "{err}");
    lonely.store_head();
}

/// `beads.syncTimeout` bounds the whole sync, not only the rounds after the first: a
/// remote that stops answering mid-fetch or mid-push stops the sync when the budget
/// runs out (exit 3, the step named), and the local store keeps its work.
#[test]
fn a_sync_that_runs_out_of_time_keeps_its_work() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let kept = c1.create("local work", &[]);
    let head = c1.store_head();
    let on_remote = sb.git(&remote, &["rev-parse", "refs/beads/main"]);
    // A sync with `budget` whose git side `key` (upload or receive) stalls: it stops
    // in `step`, exit 3, and neither the local store nor the remote moved.
    let stalled = |budget: &str, key: &str, command: &str, step: &str| {
        c1.git(&["config", "beads.syncTimeout", budget]);
        c1.git(&["config", key, &format!("sleep 30; {command}")]);
        let (code, err) = c1.beads_fail(&["sync"]);
        assert_eq!(code, 3, "{err}");
        let told = format!("ran out of its {budget} budget while {step}");
        assert!(err.contains(&told), "{err}");
        assert!(err.contains("nothing is lost"), "{err}");
        assert!(err.contains("beads.syncTimeout"), "{err}");
        assert_eq!(c1.store_head(), head);
        assert_eq!(
            sb.git(&remote, &["rev-parse", "refs/beads/main"]),
            on_remote
        );
        c1.git(&["config", "--unset", key]);
    };
    stalled(
        "1s",
        "remote.origin.uploadpack",
        "git-upload-pack",
        "fetching",
    );
    // The fetch goes through within the budget; the push does not.
    stalled(
        "5s",
        "remote.origin.receivepack",
        "git-receive-pack",
        "pushing",
    );

    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.bead_json(&kept);
}

#[test]
fn bad_remote_names() {
    let sb = Sandbox::new();
    let (_remote, c1) = sb.remote_with_store("c1");
    let head = c1.store_head();
    for bad in ["a;b", "../x", "x y", "--upload-pack=touch /tmp/pwned"] {
        let (code, err) = c1.beads_fail(&["sync", "--", bad]);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains("not a usable remote name"), "{err}");
    }
    let (code, err) = c1.beads_fail(&["pull", "nosuch"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no remote named \"nosuch\""), "{err}");
    let (code, err) = c1.beads_fail(&["remote", "setup", "nosuch"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(c1.store_head(), head);
    let alone = sb.repo_with_store("alone", "carol");
    let (code, err) = alone.beads_fail(&["sync"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no remote"), "{err}");
}

#[test]
fn a_push_rejected_by_a_hook() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let theirs = c2.create("bob's", &[]);
    c2.sync();
    let before = remote_head(&sb, &remote);
    let hook = remote.join("hooks").join("pre-receive");
    write_script(
        &hook,
        "#!/bin/sh\necho 'beads are frozen today' >&2\nexit 1\n",
    );

    let mine = c1.create("alice's", &[]);
    let local = c1.store_head();
    let (code, err) = c1.beads_fail(&["sync"]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("refused the push"), "{err}");
    assert!(err.contains("pre-receive hook declined"), "{err}");
    assert!(err.contains("beads are frozen today"), "{err}");
    assert_eq!(remote_head(&sb, &remote), before, "the remote is unchanged");
    // The local store moved only to the complete merge of both sides.
    let head = c1.store_head();
    assert_eq!(c1.git(&["rev-parse", &format!("{head}^1")]).trim(), local);
    assert_eq!(c1.git(&["rev-parse", &format!("{head}^2")]).trim(), before);
    c1.bead_json(&mine);
    c1.bead_json(&theirs);
    // Once the remote accepts again, push publishes the merge.
    std::fs::remove_file(&hook).expect("remove hook");
    let pushed = c1.beads_json(&["push"]);
    assert_eq!(pushed["pushed"], true);
    assert_eq!(remote_head(&sb, &remote), head);
}

#[test]
fn push_refuses_to_overwrite_what_it_has_not_merged() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.create("bob's", &[]);
    c2.sync();
    c1.create("alice's", &[]);
    let head = c1.store_head();
    let (code, err) = c1.beads_fail(&["push"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("git beads sync"), "{err}");
    assert_eq!(c1.store_head(), head);
}

#[test]
fn a_force_pushed_remote_history() {
    let sb = Sandbox::new();
    let (c1, c2, a) = sb.two_clones_sharing("before the rewrite", &[]);
    let b = c2.create("bob's, rewritten", &[]);
    // Bob rewrites the store's history: one root commit holding his tree.
    let tree = c2.store_tree();
    let root = c2.git(&["commit-tree", &tree, "-m", "squashed"]);
    c2.git(&[
        "push",
        "-q",
        "-f",
        "origin",
        &format!("{}:refs/beads/main", root.trim()),
    ]);
    let c = c1.create("alice's, after the rewrite", &[]);
    let v = c1.sync();
    assert_eq!(v["outcome"], "merged", "{v}");
    assert_eq!(v["pushed"], true);
    c2.sync();
    assert_eq!(c1.store_tree(), c2.store_tree());
    for id in [&a, &b, &c] {
        c2.bead_json(id);
    }
}

/// Every kind of garbage a remote's beads ref can hold is refused before anything is
/// merged, with the local store untouched.
#[test]
fn garbage_from_the_remote() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("precious", &[]);
    c1.sync();
    let good = remote_head(&sb, &remote);
    let good_tree = c1.store_tree();
    let blob = plumb(&sb, &remote, &["hash-object", "-w", "--stdin"], b"x: 1\n");
    let doc_dir = |name: &[u8], mode: &str, oid: &str| raw_tree(&sb, &remote, mode, name, oid);
    let huge = plumb(
        &sb,
        &remote,
        &["hash-object", "-w", "--stdin"],
        &vec![b'a'; 17 * 1024 * 1024],
    );
    let tag = plumb(
        &sb,
        &remote,
        &["mktag"],
        format!("object {good}\ntype commit\ntag t\ntagger x <x@example.com> 0 +0000\n\nt\n")
            .as_bytes(),
    );
    let on_top = |tree: String| commit_on_remote(&sb, &remote, &tree, &good);
    let nested = |inner: String| {
        plumb(
            &sb,
            &remote,
            &["mktree"],
            format!("040000 tree {inner}\tbeads\n").as_bytes(),
        )
    };
    type Make<'a> = Box<dyn Fn() -> String + 'a>;
    let cases: Vec<(&str, Make)> = vec![
        ("a blob", Box::new(|| blob.clone())),
        ("a tree", Box::new(|| good_tree.clone())),
        ("an annotated tag", Box::new(|| tag.clone())),
        ("../x", Box::new(|| on_top(doc_dir(b"..", "100644", &blob)))),
        (
            "a path with a slash",
            Box::new(|| on_top(doc_dir(b"/etc/passwd", "100644", &blob))),
        ),
        (
            "a nested ..",
            Box::new(|| on_top(nested(doc_dir(b"..", "40000", &good_tree)))),
        ),
        (
            "a symlink",
            Box::new(|| on_top(doc_dir(b"link.yaml", "120000", &blob))),
        ),
        (
            "a submodule",
            Box::new(|| on_top(doc_dir(b"sub", "160000", &good))),
        ),
        (
            "a huge blob",
            Box::new(|| on_top(nested(doc_dir(b"big.yaml", "100644", &huge)))),
        ),
        (
            "a commit that is not a store",
            Box::new(|| on_top(doc_dir(b"README.md", "100644", &blob))),
        ),
    ];
    let head = c1.store_head();
    for (what, make) in &cases {
        let target = make();
        plumb(
            &sb,
            &remote,
            &["update-ref", "refs/beads/main", &target],
            b"",
        );
        let out = c1.beads_output(&["sync"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{what}: {err}");
        assert!(
            err.contains("the beads on origin are damaged"),
            "{what}: {err}"
        );
        assert!(err.contains("untouched"), "{what}: {err}");
        if what.contains("not a store") {
            assert!(err.contains("has no meta.yaml"), "{err}");
            assert_eq!(remote_head(&sb, &remote), target, "the remote was written");
        }
        assert_eq!(c1.store_head(), head, "{what}: the local store moved");
        assert_eq!(c1.bead_json(&id)["title"], "precious");
        // Pull refuses it the same way.
        let (code, _) = c1.beads_fail(&["pull"]);
        assert_eq!(code, 4, "{what}");
        assert_eq!(c1.store_head(), head);
    }
    // With the remote repaired, sync works again.
    plumb(&sb, &remote, &["update-ref", "refs/beads/main", &good], b"");
    let v = c1.sync();
    assert_eq!(v["outcome"], "up-to-date", "{v}");
}

/// A document that does not parse on one side and was changed on both is kept
/// whole, never dropped: the version that parses stays in place, the other goes to
/// `lost+found/`, and the sync says so.
#[test]
fn a_broken_document_is_kept_and_reported() {
    let sb = Sandbox::new();
    let (c1, c2, id) = sb.two_clones_sharing("fragile", &[]);
    c1.beads(&["update", &id, "--title", "still fine"]);
    let path = common::doc_path(&id);
    let broken = b"id: [this does not parse\n";
    c2.put_raw_doc(&path, broken);
    c1.sync();
    let out = c2.beads_output(&["--json", "sync"]);
    expect_success("git beads --json sync", &out);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let kept = v["kept"].as_array().expect("kept");
    assert_eq!(kept.len(), 1, "{v}");
    assert_eq!(kept[0]["path"], path.as_str());
    assert!(
        kept[0]["reason"]
            .as_str()
            .expect("reason")
            .contains("does not parse"),
        "{v}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("could not be merged"), "{err}");
    c1.sync();
    assert_eq!(c1.store_tree(), c2.store_tree());
    assert_eq!(c1.bead_json(&id)["title"], "still fine");
    let other = kept[0]["other_version"].as_str().expect("path");
    assert!(other.starts_with("lost+found/"), "{other}");
    let saved = c1.git(&["show", &format!("refs/beads/main:{other}")]);
    assert_eq!(saved.as_bytes(), broken);
}

/// Whatever refs a remote holds, a sync writes only its tracking refs.
#[test]
fn fetched_refs_land_only_in_the_tracking_namespace() {
    let sb = Sandbox::new();
    let (_remote, c1) = sb.remote_with_store("c1");
    let evil = sb.repo_with_store("evil", "mallory");
    evil.create("from evil", &[]);
    let head = evil.store_head();
    for r in [
        "refs/beads/main-extra",
        "refs/beads/mainline",
        "refs/beads/local/wisps",
        "refs/heads/main-beads",
        "refs/remotes/origin/main",
        "refs/notes/beads",
    ] {
        evil.git(&["update-ref", r, &head]);
    }
    evil.git(&["tag", "-a", "-m", "t", "v-evil", &head]);
    c1.git(&["remote", "add", "evil", evil.path.to_str().expect("utf-8")]);
    let before = c1.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let v = c1.beads_json(&["pull", "evil"]);
    assert_eq!(v["outcome"], "merged", "{v}");
    let after = c1.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    for line in after.lines() {
        if before.lines().any(|l| l == line) {
            continue;
        }
        let name = line.split(' ').next().unwrap_or_default();
        // The store and the notes move by merging what was fetched; the fetch itself
        // writes only tracking refs.
        assert!(
            name == "refs/beads/main"
                || name == "refs/notes/beads"
                || name.starts_with("refs/beads/remotes/evil/"),
            "a fetch wrote {name}"
        );
    }
    assert!(after.contains("refs/beads/remotes/evil/main "), "{after}");
    assert!(after.contains("refs/beads/remotes/evil/notes "), "{after}");
    assert!(!after.contains("v-evil"), "tags are not followed");
    assert!(!after.contains("refs/beads/local/"), "{after}");
}
