//! A hostile remote, beyond the garbage `sync_faults.rs` already refuses: trees
//! that reach for `.git`, the parent directory or absolute paths at any depth,
//! notes on objects that do not exist, snapshots that try to write outside the
//! worktree, and documents that claim more authority than their delegation chain
//! gives. Throughout: no ref outside the beads namespaces changes, no file outside
//! `.git` is written, the repository's hooks and config stay as they were, and
//! delegation only ever narrows.

use crate::common;
use crate::reliability;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{Repo, Sandbox};
use reliability::{assert_clean_failure, beads, files_outside_git, refs_outside_beads};
use serde_json::Value;

/// Runs git in the repository at `git_dir` as mallory, feeding `input`.
fn plumb(sb: &Sandbox, git_dir: &Path, args: &[&str], input: &[u8]) -> String {
    sb.plumb("mallory", git_dir, args, input)
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A tree object with the given raw entries (mode, name, object), written without
/// git's checks, in the sorted order git wants (so that only the names are hostile).
fn raw_tree(sb: &Sandbox, git_dir: &Path, entries: &[(&str, &[u8], &str)]) -> String {
    let mut entries = entries.to_vec();
    entries.sort_by(|a, b| {
        let key = |e: &(&str, &[u8], &str)| {
            let mut k = e.1.to_vec();
            if e.0 == "40000" {
                k.push(b'/');
            }
            k
        };
        key(a).cmp(&key(b))
    });
    let mut bytes = Vec::new();
    for (mode, name, oid) in entries {
        bytes.extend_from_slice(format!("{mode} ").as_bytes());
        bytes.extend_from_slice(name);
        bytes.push(0);
        bytes.extend(hex_bytes(oid));
    }
    plumb(
        sb,
        git_dir,
        &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        &bytes,
    )
}

/// The entries of `tree` as raw (mode, name, id) triples.
fn tree_entries(sb: &Sandbox, git_dir: &Path, tree: &str) -> Vec<(String, Vec<u8>, String)> {
    plumb(sb, git_dir, &["ls-tree", tree], b"")
        .lines()
        .map(|l| {
            let (meta, name) = l.split_once('\t').expect("ls-tree line");
            let mut parts = meta.split(' ');
            let mode = parts
                .next()
                .expect("mode")
                .trim_start_matches('0')
                .to_owned();
            let _kind = parts.next();
            let id = parts.next().expect("id").to_owned();
            (mode, name.as_bytes().to_vec(), id)
        })
        .collect()
}

/// `tree` with one more entry at its root.
fn with_entry(
    sb: &Sandbox,
    git_dir: &Path,
    tree: &str,
    mode: &str,
    name: &[u8],
    oid: &str,
) -> String {
    let mut entries = tree_entries(sb, git_dir, tree);
    entries.retain(|(_, n, _)| n != name);
    entries.push((mode.to_owned(), name.to_vec(), oid.to_owned()));
    let borrowed: Vec<(&str, &[u8], &str)> = entries
        .iter()
        .map(|(m, n, o)| (m.as_str(), n.as_slice(), o.as_str()))
        .collect();
    raw_tree(sb, git_dir, &borrowed)
}

/// The harness's remote with a store (clone `c1`, alice), holding one bead.
fn remote_with_store(sb: &Sandbox) -> (PathBuf, Repo) {
    let (remote, c1) = sb.remote_with_store("c1");
    c1.create("precious", &[]);
    c1.beads(&["sync"]);
    (remote, c1)
}

/// Everything a hostile remote must not touch: refs outside the beads namespaces,
/// files around the repository (outside `.git`), its hooks and config.
fn untouchable(sb: &Sandbox, repo: &Repo) -> (BTreeSet<String>, BTreeSet<String>) {
    (refs_outside_beads(repo), files_outside_git(sb.path(), repo))
}

#[test]
fn trees_reaching_outside_are_refused_at_any_depth() {
    let sb = Sandbox::new();
    let (remote, c1) = remote_with_store(&sb);
    let good = plumb(&sb, &remote, &["rev-parse", "refs/beads/main"], b"");
    let good_tree = plumb(&sb, &remote, &["rev-parse", "refs/beads/main^{tree}"], b"");
    let blob = plumb(&sb, &remote, &["hash-object", "-w", "--stdin"], b"x: 1\n");
    let hook = plumb(
        &sb,
        &remote,
        &["hash-object", "-w", "--stdin"],
        b"#!/bin/sh\ntouch \"$HOME/pwned\"\n",
    );
    let hooks_dir = raw_tree(&sb, &remote, &[("100755", b"post-checkout", &hook)]);
    let dot_git = raw_tree(&sb, &remote, &[("40000", b"hooks", &hooks_dir)]);
    let mut deep = raw_tree(&sb, &remote, &[("100644", b"x.yaml", &blob)]);
    for _ in 0..40 {
        deep = raw_tree(&sb, &remote, &[("40000", b"d", &deep)]);
    }
    // A snapshot-shaped subtree: snapshots/zz/ses-zz1/1/<inner>.
    let snapshot = |inner: String| {
        let n = raw_tree(&sb, &remote, &[("40000", b"1", &inner)]);
        let s = raw_tree(&sb, &remote, &[("40000", b"ses-zz1", &n)]);
        raw_tree(&sb, &remote, &[("40000", b"zz", &s)])
    };
    let one = |mode: &str, name: &[u8], oid: &str| raw_tree(&sb, &remote, &[(mode, name, oid)]);
    let cases: Vec<(&str, String, &[u8])> = vec![
        (".git at the root", dot_git.clone(), b".git"),
        (".GIT at the root", dot_git.clone(), b".GIT"),
        (
            ".git inside beads/",
            one("40000", b".git", &dot_git),
            b"beads",
        ),
        (
            ".git inside a snapshot",
            snapshot(one("40000", b".git", &dot_git)),
            b"snapshots",
        ),
        (
            "../ inside a snapshot",
            snapshot(one("100644", b"..", &blob)),
            b"snapshots",
        ),
        (
            "an absolute name",
            one("100644", b"/tmp/pwned", &blob),
            b"beads",
        ),
        (
            "a Windows path",
            one("100644", b"..\\..\\pwned", &blob),
            b"beads",
        ),
        ("a NUL in a name", one("100644", b"a\0b", &blob), b"beads"),
        ("an empty name", one("100644", b"", &blob), b"beads"),
        ("nesting 40 deep", deep.clone(), b"beads"),
        (
            "nesting 40 deep in a snapshot",
            snapshot(deep.clone()),
            b"snapshots",
        ),
    ];
    let before = untouchable(&sb, &c1);
    let head = c1.store_head();
    for (what, subtree, at) in &cases {
        let tree = with_entry(&sb, &remote, &good_tree, "40000", at, subtree);
        let commit = plumb(
            &sb,
            &remote,
            &["commit-tree", &tree, "-p", &good, "-m", what],
            b"",
        );
        plumb(
            &sb,
            &remote,
            &["update-ref", "refs/beads/main", &commit],
            b"",
        );
        for verb in ["sync", "pull"] {
            let out = beads(&c1, &[verb]);
            assert_clean_failure(&out, &format!("{what}: {verb}"));
            let err = String::from_utf8_lossy(&out.stderr);
            // Refused by git-beads' checks, by git's own checks of what it receives,
            // or (a NUL in a name) by the remote's git, which cannot even send it.
            assert!(
                err.contains("damaged") || err.contains("fetch from origin failed"),
                "{what}: {verb}: {err}"
            );
            assert_eq!(c1.store_head(), head, "{what}: the local store moved");
            assert_eq!(
                untouchable(&sb, &c1),
                before,
                "{what}: {verb} touched something"
            );
        }
        // A fresh clone does not adopt it either: it says why and starts its own.
        let fresh = sb.clone(&remote, "fresh", "carol");
        let out = beads(&fresh, &["init"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            (err.contains("damaged") || err.contains("fetch from origin failed"))
                && !err.contains("panicked"),
            "{what}: {err}"
        );
        if out.status.success() {
            assert_ne!(fresh.store_tree(), c1.store_tree(), "{what}");
            assert!(
                !fresh
                    .git(&["ls-tree", "-r", "refs/beads/main"])
                    .contains(".git")
            );
        }
        std::fs::remove_dir_all(&fresh.path).expect("remove the fresh clone");
    }
    assert!(!sb.path().join("pwned").exists() && !Path::new("/tmp/pwned").exists());
    plumb(&sb, &remote, &["update-ref", "refs/beads/main", &good], b"");
    c1.beads(&["sync"]);
    c1.assert_fsck_clean();
}

#[test]
fn notes_on_objects_that_do_not_exist_change_nothing_else() {
    let sb = Sandbox::new();
    let (remote, c1) = remote_with_store(&sb);
    let note = plumb(
        &sb,
        &remote,
        &["hash-object", "-w", "--stdin"],
        b"agent: mallory\nsession: ses-zz\n",
    );
    let bomb = plumb(
        &sb,
        &remote,
        &["hash-object", "-w", "--stdin"],
        format!("{}x{}", "{a: ".repeat(200_000), "}".repeat(200_000)).as_bytes(),
    );
    let missing = "0123456789abcdef0123456789abcdef01234567";
    let fanned = raw_tree(&sb, &remote, &[("100644", &missing.as_bytes()[2..], &note)]);
    let link = plumb(
        &sb,
        &remote,
        &["hash-object", "-w", "--stdin"],
        b"/etc/passwd",
    );
    let tree = raw_tree(
        &sb,
        &remote,
        &[
            ("100644", missing.as_bytes(), &note),
            ("100644", b"fedcba9876543210fedcba9876543210fedcba98", &bomb),
            ("40000", &missing.as_bytes()[..2], &fanned),
            ("120000", b"abababababababababababababababababababab", &link),
            (
                "160000",
                b"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
                missing,
            ),
            ("100644", b"../../x", &note),
        ],
    );
    let commit = plumb(&sb, &remote, &["commit-tree", &tree, "-m", "notes"], b"");
    plumb(
        &sb,
        &remote,
        &["update-ref", "refs/notes/beads", &commit],
        b"",
    );
    let before = untouchable(&sb, &c1);
    // git's own checks of what it receives refuse the notes tree at once.
    let out = beads(&c1, &["sync"]);
    assert_clean_failure(&out, "sync with hostile notes");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged"), "{err}");
    assert!(
        c1.git(&["for-each-ref", "refs/notes/"]).is_empty(),
        "the notes were taken in"
    );
    assert_eq!(untouchable(&sb, &c1), before, "the notes touched something");
    // A plain `git fetch` (the remote is configured to bring the beads and notes)
    // does not check what it receives; the sync after it does, before merging: the
    // beads sync, the notes are refused with a warning saying why.
    c1.git(&["fetch", "-q", "origin"]);
    let out = beads(&c1, &["sync"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("notes were not synced") && err.contains("unsafe path"),
        "{err}"
    );
    assert!(
        c1.git(&["for-each-ref", "refs/notes/"]).is_empty(),
        "the notes were taken in"
    );
    // Without the path that git refuses, notes on objects that do not exist are
    // just notes: taken in, harmless.
    let tame = raw_tree(
        &sb,
        &remote,
        &[
            ("100644", missing.as_bytes(), &note),
            ("100644", b"fedcba9876543210fedcba9876543210fedcba98", &bomb),
            ("40000", &missing.as_bytes()[..2], &fanned),
        ],
    );
    let commit = plumb(&sb, &remote, &["commit-tree", &tame, "-m", "notes"], b"");
    plumb(
        &sb,
        &remote,
        &["update-ref", "refs/notes/beads", &commit],
        b"",
    );
    let out = beads(&c1, &["sync"]);
    assert!(out.status.success(), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    assert_eq!(untouchable(&sb, &c1), before, "the notes touched something");
    // git itself still reads the repository and its notes; and with what the plain
    // fetch brought no longer reachable, fsck is clean.
    c1.git(&["log", "--notes=beads", "-1"]);
    c1.git(&["reflog", "expire", "--expire=now", "--all"]);
    c1.git(&["prune", "--expire=now"]);
    c1.assert_fsck_clean();
    // And the store goes on.
    c1.create("after the notes", &[]);
    c1.beads(&["sync"]);
}

/// A snapshot that reaches for `.git`, two ways: in the remote's history (git's
/// own checks of what a sync fetches refuse it), and named by a session's record
/// while the object is already here (resuming must not write it).
#[test]
fn a_hostile_snapshot_writes_nothing_outside_the_worktree() {
    let sb = Sandbox::new();
    let (remote, c1) = remote_with_store(&sb);
    // The attacker's clone has a real session with a real snapshot.
    let evil = sb.clone(&remote, "evil", "mallory");
    evil.beads(&["sync"]);
    evil.beads(&["agent", "create", "nux"]);
    evil.beads(&["agent", "bind", "nux"]);
    let sid = evil.beads_json(&["session", "start"])["session"]["id"]
        .as_str()
        .expect("session id")
        .to_owned();
    std::fs::write(evil.path.join("work.txt"), "half done\n").expect("write");
    evil.beads(&["session", "snapshot"]);
    evil.beads(&["session", "end"]);
    evil.beads(&["agent", "unbind"]);
    evil.beads(&["sync"]);
    c1.beads(&["sync"]);

    // A tree of the worktree's files plus .git/hooks/post-checkout.
    let hostile_in = |git_dir: &Path| {
        let hook = plumb(
            &sb,
            git_dir,
            &["hash-object", "-w", "--stdin"],
            b"#!/bin/sh\ntouch \"$HOME/pwned\"\n",
        );
        let hooks = raw_tree(&sb, git_dir, &[("100755", b"post-checkout", &hook)]);
        let dot_git = raw_tree(&sb, git_dir, &[("40000", b"hooks", &hooks)]);
        let readme = plumb(&sb, git_dir, &["hash-object", "-w", "--stdin"], b"code\n");
        raw_tree(
            &sb,
            git_dir,
            &[("40000", b".git", &dot_git), ("100644", b"README", &readme)],
        )
    };
    let path = format!("sessions/{}/{sid}.yaml", &sid[4..6]);
    let pointing = |repo: &Repo, tree: &str| {
        let mut doc: Value =
            serde_yaml::from_str(&repo.git(&["show", &format!("refs/beads/main:{path}")]))
                .expect("session yaml");
        doc["snapshots"][0]["tree"] = Value::String(tree.to_owned());
        repo.put_raw_doc(&path, serde_yaml::to_string(&doc).expect("yaml").as_bytes())
    };

    // 1. In the remote's history: commit A points the snapshot at the tree, B adds
    // the tree (so that a fetch would bring it), C is A's tree again.
    let git_dir = evil.path.join(".git");
    let hostile = hostile_in(&git_dir);
    let a = pointing(&evil, &hostile);
    let a_tree = evil.store_tree();
    let with_it = with_entry(&sb, &git_dir, &a_tree, "40000", b"zz-hidden", &hostile);
    let b = plumb(
        &sb,
        &git_dir,
        &["commit-tree", &with_it, "-p", &a, "-m", "hide"],
        b"",
    );
    let c = plumb(
        &sb,
        &git_dir,
        &["commit-tree", &a_tree, "-p", &b, "-m", "point"],
        b"",
    );
    evil.git(&["update-ref", "refs/beads/main", &c]);
    evil.git(&[
        "push",
        "-q",
        "-f",
        "origin",
        "refs/beads/main:refs/beads/main",
    ]);
    let before = untouchable(&sb, &c1);
    let head = c1.store_head();
    let out = beads(&c1, &["sync"]);
    assert_clean_failure(&out, "sync of a history holding .git");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("damaged"),
        "{out:?}"
    );
    assert_eq!(c1.store_head(), head);
    assert_eq!(untouchable(&sb, &c1), before);
    c1.assert_fsck_clean();

    // 2. The object is here already (how it came does not matter) and a session's
    // record names it: resuming that session must not write .git/hooks.
    let local = hostile_in(&c1.path.join(".git"));
    pointing(&c1, &local);
    let before = untouchable(&sb, &c1);
    let hooks_before = files_outside_git(&c1.path.join(".git/hooks"), &c1);
    let out = beads(&c1, &["session", "resume", &sid]);
    if !out.status.success() {
        assert_clean_failure(&out, "resume of a hostile snapshot");
    }
    eprintln!(
        "resume of a hostile snapshot: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    assert!(
        !sb.path().join("pwned").exists(),
        "a hook from the remote ran"
    );
    assert_eq!(
        files_outside_git(&c1.path.join(".git/hooks"), &c1),
        hooks_before,
        "the repository's hooks changed"
    );
    // Resuming may change the worktree's own files (that is what it is for), never
    // anything around it, in .git, or the repository's config.
    let after = untouchable(&sb, &c1);
    let outside = |set: &BTreeSet<String>| -> BTreeSet<String> {
        set.iter()
            .filter(|l| !l.starts_with("c1/"))
            .cloned()
            .collect()
    };
    assert_eq!(
        outside(&after.1),
        outside(&before.1),
        "something outside the worktree changed"
    );
    // The hostile tree was only ever a loose object; with it gone, fsck is clean.
    c1.git(&["prune", "--expire=now"]);
    c1.assert_fsck_clean();
}

/// Agents the remote widened, or whose delegation chain is broken, act only within
/// what their chain gives them — whatever their documents claim.
#[test]
fn a_widened_agent_from_a_remote_acts_only_within_its_parent() {
    let sb = Sandbox::new();
    let (remote, c1) = remote_with_store(&sb);
    let work = c1.create("work", &[]);
    c1.beads(&[
        "agent",
        "create",
        "mayor",
        "--can",
        "create,claim,spawn,comment",
    ]);
    c1.beads(&[
        "--as", "mayor", "agent", "create", "mayor/w", "--can", "create",
    ]);
    c1.beads(&["sync"]);

    // The remote's side: widen mayor/w, add a widened sibling, an orphan whose
    // parent does not exist, and two agents that are each other's parent.
    let evil = sb.clone(&remote, "evil", "mallory");
    evil.beads(&["sync"]);
    let all = "[create, update, claim, close, delete, comment, sling, mail, spawn, sync]";
    let doc = |name: &str, parent: Option<&str>| {
        let parent = parent.map(|p| format!("parent: {p}\n")).unwrap_or_default();
        format!(
            "name: {name}\n{parent}status: active\nauthority:\n  capabilities: {all}\n\
             created_at: 2026-01-01T00:00:00Z\ncreated_by: mallory\n\
             updated_at: 2026-01-01T00:00:00Z\nupdated_by: mallory\n"
        )
    };
    for (name, parent) in [
        ("mayor/w", Some("mayor")),
        ("mayor/x", Some("mayor")),
        ("orphan", Some("ghost")),
        ("loop/a", Some("loop/b")),
        ("loop/b", Some("loop/a")),
    ] {
        evil.put_raw_doc(&format!("agents/{name}.yaml"), doc(name, parent).as_bytes());
    }
    evil.beads(&["sync"]);
    c1.beads(&["sync"]);
    assert_eq!(
        c1.beads_json(&["agent", "show", "mayor/x"])["authority"]["capabilities"]
            .as_array()
            .map(Vec::len),
        Some(10),
        "the document claims everything"
    );

    let head = c1.store_head();
    for (who, args) in [
        ("mayor/w", vec!["close", &work]),
        ("mayor/w", vec!["delete", &work, "--force"]),
        ("mayor/x", vec!["close", &work]),
        ("mayor/x", vec!["sync"]),
        (
            "mayor/x",
            vec!["agent", "create", "mayor/x/y", "--can", "close"],
        ),
        ("orphan", vec!["create", "x"]),
        ("loop/a", vec!["create", "x"]),
        ("loop/b", vec!["comment", &work, "x"]),
    ] {
        let mut all_args = vec!["--as", who];
        all_args.extend(&args);
        let out = beads(&c1, &all_args);
        assert_eq!(out.status.code(), Some(5), "{who} {args:?}: {out:?}");
        assert_clean_failure(&out, &format!("{who} {args:?}"));
        assert_eq!(c1.store_head(), head, "{who} {args:?} changed the store");
    }
    // Within the parent's authority they still work.
    c1.beads(&["--as", "mayor/x", "create", "allowed"]);
    c1.beads(&["--as", "mayor/w", "create", "allowed too"]);
    c1.beads(&["--as", "mayor/x", "comment", &work, "allowed"]);
    // A session started by a widened agent runs under the narrowed authority.
    c1.beads(&["agent", "bind", "mayor/x"]);
    let started = c1.beads_json(&["session", "start"]);
    let caps: BTreeSet<String> = started["session"]["authority"]["capabilities"]
        .as_array()
        .or_else(|| started["agent"]["authority"]["capabilities"].as_array())
        .expect("capabilities")
        .iter()
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect();
    let sid = started["session"]["id"].as_str().expect("id");
    let session = c1.beads_json(&["session", "show", sid]);
    let session_caps: BTreeSet<String> = session["authority"]["capabilities"]
        .as_array()
        .expect("session capabilities")
        .iter()
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect();
    let mayor: BTreeSet<String> = ["create", "claim", "spawn", "comment"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert!(session_caps.is_subset(&mayor), "{session}");
    let _ = caps;
    let out = beads(&c1, &["close", &work]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    c1.beads(&["session", "end"]);
    c1.beads(&["agent", "unbind"]);
    // doctor names every one of them.
    let doctor: Value =
        serde_json::from_slice(&beads(&c1, &["--json", "doctor"]).stdout).expect("json");
    let flagged: BTreeSet<&str> = doctor["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["check"] == "authority")
        .filter_map(|f| f["path"].as_str())
        .collect();
    for name in ["mayor/w", "mayor/x", "orphan", "loop/a", "loop/b"] {
        assert!(
            flagged.contains(format!("agents/{name}.yaml").as_str()),
            "{name}: {doctor}"
        );
    }
}

/// Some YAML decodes to values the encoder cannot write back (a mapping whose only
/// key is a tagged null, `!t ~: 1`). A merge that comes to such a value keeps both
/// versions whole; the sync goes on.
#[test]
fn a_merge_the_encoder_cannot_write_keeps_both_versions() {
    let sb = Sandbox::new();
    let (remote, c1) = remote_with_store(&sb);
    c1.put_raw_doc("unknown/odd.yaml", b"!t ~: 1\na: 1\nb: 1\n");
    c1.beads(&["sync"]);
    let c2 = sb.clone(&remote, "c2", "bob");
    c2.beads(&["sync"]);
    // Each side removes one key; merged, only the tagged one is left.
    c1.put_raw_doc("unknown/odd.yaml", b"!t ~: 1\nb: 1\n");
    c2.put_raw_doc("unknown/odd.yaml", b"!t ~: 1\na: 1\n");
    c1.beads(&["sync"]);
    let out = beads(&c2, &["--json", "sync"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["kept"][0]["path"], "unknown/odd.yaml", "{v}");
    c1.beads(&["sync"]);
    assert_eq!(c1.store_tree(), c2.store_tree());
    // Both versions are there: one in place, one under lost+found/.
    let all = c1.git(&[
        "grep",
        "-h",
        "-e",
        "a: 1",
        "-e",
        "b: 1",
        "refs/beads/main",
        "--",
        "unknown",
        "lost+found",
    ]);
    assert!(all.contains("a: 1") && all.contains("b: 1"), "{all}");
}

/// A bead from a remote that breaks the rules commands keep (a title of OSC and CSI
/// sequences, priority 99) is kept by sync exactly as it came, byte for byte, and
/// `doctor` names its path and what is wrong.
#[test]
fn an_invalid_bead_from_a_remote_is_kept_as_it_is_and_flagged_by_doctor() {
    let sb = Sandbox::new();
    let (remote, c1) = remote_with_store(&sb);
    let evil = sb.clone(&remote, "evil", "mallory");
    evil.beads(&["sync"]);
    let id = "bd-evil1";
    let path = common::doc_path(id);
    let doc = format!(
        "id: {id}\ntitle: \"\\e]0;owned\\a\\e[2Jwiped\"\nstatus: open\npriority: 99\n\
         type: task\ncreated_at: 2026-01-01T00:00:00Z\ncreated_by: mallory\n\
         updated_at: 2026-01-01T00:00:00Z\nupdated_by: mallory\n"
    );
    evil.put_raw_doc(&path, doc.as_bytes());
    evil.beads(&["sync"]);
    c1.create("meanwhile", &[]);
    c1.beads(&["sync"]);

    let blob = |r: &Repo| r.git(&["rev-parse", &format!("refs/beads/main:{path}")]);
    assert_eq!(blob(&c1), blob(&evil), "kept byte for byte");
    let out = c1.beads_output(&["--json", "doctor"]);
    assert_eq!(out.status.code(), Some(4));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let flagged: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["check"] == "valid" && f["path"] == path.as_str())
        .map(|f| f["message"].as_str().expect("message"))
        .collect();
    assert_eq!(flagged.len(), 2, "{report}");
    assert!(flagged[0].contains("control character"), "{flagged:?}");
    assert!(flagged[1].contains("priority 99"), "{flagged:?}");
}
