//! Every bead command of the core, run through the real binary in real repositories,
//! with `--json` parsed and asserted.

use crate::common;

use common::{Repo, Sandbox, dep_pairs, doc_path, ids, log_subjects, strs};
use serde_json::Value;

/// The bead `id` as `show --json` prints it, asserting it comes alone.
fn bead(repo: &Repo, id: &str) -> Value {
    one(&repo.beads_json(&["show", "--all", id]))
}

/// The one bead a command printed: the object (without `schema_version`), or the
/// only item of the array (`Null` for an empty one, as `ready --claim` prints when
/// nothing is ready).
fn one(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            assert!(items.len() <= 1, "{v}");
            items.first().cloned().unwrap_or(Value::Null)
        }
        Value::Object(fields) => {
            let mut fields = fields.clone();
            fields.remove("schema_version");
            Value::Object(fields)
        }
        _ => panic!("not a bead: {v}"),
    }
}

#[test]
fn init_is_idempotent_and_derives_the_prefix_from_the_repository_name() {
    let sb = Sandbox::new();
    let repo = sb.repo("My-Repo", "alice");
    let first = repo.beads_json(&["init"]);
    assert_eq!(first["prefix"], "myrepo");
    assert_eq!(first["created"], true);
    let head = repo.store_head();
    let meta = repo.git(&["show", "refs/beads/main:meta.yaml"]);
    assert!(meta.contains("format: 1"), "{meta}");
    assert!(meta.contains("prefix: myrepo"), "{meta}");

    let again = repo.beads_json(&["init"]);
    assert_eq!(again["prefix"], "myrepo");
    assert_eq!(again["created"], false);
    let same = repo.beads_json(&["init", "--prefix", "myrepo"]);
    assert_eq!(same["created"], false);
    assert_eq!(repo.store_head(), head, "a repeated init commits nothing");

    let (code, err) = repo.beads_fail(&["init", "--prefix", "other"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("myrepo") && err.contains("other"), "{err}");
    assert_eq!(repo.store_head(), head);

    let id = repo.create("First", &[]);
    assert!(id.starts_with("myrepo-"), "{id}");

    // Run first in a linked worktree, the prefix still comes from the repository.
    let main = sb.repo("Main-Repo", "carol");
    let wt = main.worktree("agent-worktree");
    let v = wt.beads_json(&["init"]);
    assert_eq!(v["prefix"], "mainrepo");
    assert_eq!(main.beads_json(&["init"])["created"], false);

    let other = sb.repo("elsewhere", "bob");
    let made = other.beads_json(&["init", "--prefix", "xy"]);
    assert_eq!(made["prefix"], "xy");
    let id = other.create("Second", &[]);
    assert!(id.starts_with("xy-"), "{id}");
    // Short ids in a small store: the prefix, a dash and five base36 digits.
    assert_eq!(id.len(), "xy-".len() + 5, "{id}");
}

#[test]
fn create_takes_every_flag() {
    let (_sb, repo) = Sandbox::with_store();
    let plain = repo.create("Plain", &[]);
    let b = bead(&repo, &plain);
    assert_eq!(b["status"], "open");
    assert_eq!(b["priority"], 2);
    assert_eq!(b["issue_type"], "task");
    assert_eq!(b["created_by"], "alice");
    assert!(
        b.get("assignee").is_none() || b["assignee"].is_null(),
        "{b}"
    );

    let v = repo.beads_json(&[
        "create",
        "Full",
        "-d",
        "line one\nline two",
        "-t",
        "bug",
        "-p",
        "0",
        "-a",
        "bob",
        "-l",
        "ui",
        "-l",
        "urgent",
    ]);
    let full = &one(&v);
    assert_eq!(full["title"], "Full");
    assert_eq!(full["description"], "line one\nline two");
    assert_eq!(full["issue_type"], "bug");
    assert_eq!(full["priority"], 0);
    assert_eq!(full["assignee"], "bob");
    assert_eq!(strs(&full["labels"]), ["ui", "urgent"]);
    let full_id = full["id"].as_str().expect("id").to_owned();
    assert_eq!(
        bead(&repo, &full_id),
        *full,
        "show returns what create stored"
    );

    for (flag, kind) in [
        ("feature", "feature"),
        ("epic", "epic"),
        ("chore", "chore"),
        ("task", "task"),
    ] {
        let v = repo.beads_json(&["create", "Typed", "--type", flag, "--priority", "P4"]);
        assert_eq!(one(&v)["issue_type"], kind);
        assert_eq!(one(&v)["priority"], 4);
    }

    // --parent gives <parent>.<n>, numbered in order, nesting further down.
    let epic = repo.create("Epic", &["-t", "epic"]);
    let c1 = repo.create("Child one", &["--parent", &epic]);
    let c2 = repo.create("Child two", &["--parent", &epic]);
    let g1 = repo.create("Grandchild", &["--parent", &c1]);
    assert_eq!(c1, format!("{epic}.1"));
    assert_eq!(c2, format!("{epic}.2"));
    assert_eq!(g1, format!("{epic}.1.1"));
    let child = bead(&repo, &c2);
    assert_eq!(
        dep_pairs(&child),
        [(epic.clone(), "parent-child".to_owned())]
    );
    assert_eq!(child["parent"], epic.as_str());
    assert_eq!(
        child["dependencies"][0]["title"], "Epic",
        "show names what it depends on"
    );

    // --deps: a bare id means blocks; KIND:ID for the rest; comma-separated and repeatable.
    let v = repo.beads_json(&[
        "create",
        "Dependent",
        "--deps",
        &format!("{plain},related:{full_id}"),
        "--deps",
        &format!("discovered-from:{epic}"),
    ]);
    let mut deps = dep_pairs(&one(&v));
    deps.sort();
    let mut want = vec![
        (plain.clone(), "blocks".to_owned()),
        (full_id.clone(), "related".to_owned()),
        (epic.clone(), "discovered-from".to_owned()),
    ];
    want.sort();
    assert_eq!(deps, want);
}

#[test]
fn show_takes_several_ids_in_the_order_asked() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("Alpha", &["-d", "the alpha text"]);
    let b = repo.create("Beta", &["-l", "x"]);
    let v = repo.beads_json(&["show", &b, &a]);
    assert_eq!(ids(&v), [b.as_str(), a.as_str()]);
    let text = repo.beads(&["show", &a, &b]);
    assert!(text.contains(&a) && text.contains("Alpha"), "{text}");
    assert!(text.contains("the alpha text"), "{text}");
    assert!(text.contains(&b) && text.contains("Beta"), "{text}");
}

#[test]
fn list_filters_and_limits() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("A bug", &["-t", "bug", "-p", "1", "-a", "bob", "-l", "ui"]);
    let b = repo.create(
        "B feature",
        &["-t", "feature", "-p", "3", "-l", "ui", "-l", "api"],
    );
    let c = repo.create("C task", &["-p", "1", "-a", "carol"]);
    let d = repo.create("D closed", &["-p", "0"]);
    let e = repo.create("E deleted", &["-p", "0"]);
    let f = repo.create("F deferred", &["-p", "2"]);
    repo.beads(&["close", &d]);
    repo.beads(&["delete", &e, "--force"]);
    repo.beads(&["update", &f, "--status", "deferred"]);

    // Default: everything but closed and deleted, priority first, then oldest.
    let v = repo.beads_json(&["list"]);
    assert_eq!(ids(&v), [a.as_str(), c.as_str(), f.as_str(), b.as_str()]);
    let first = &v[0];
    assert_eq!(first["title"], "A bug");
    assert_eq!(first["status"], "open");
    assert_eq!(first["priority"], 1);
    assert_eq!(first["issue_type"], "bug");
    assert_eq!(first["assignee"], "bob");
    assert_eq!(strs(&first["labels"]), ["ui"]);
    assert!(first["created_at"].as_str().is_some(), "{first}");

    // --all adds closed ones, never tombstones.
    assert_eq!(
        ids(&repo.beads_json(&["list", "--all"])),
        [d.as_str(), a.as_str(), c.as_str(), f.as_str(), b.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "--status", "closed"])),
        [d.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "--status", "deleted"])),
        [e.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "--status", "deferred", "--status", "closed"])),
        [d.as_str(), f.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "--type", "bug"])),
        [a.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "-t", "bug", "-t", "feature"])),
        [a.as_str(), b.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "--priority", "1"])),
        [a.as_str(), c.as_str()]
    );
    assert_eq!(ids(&repo.beads_json(&["list", "-p", "P3"])), [b.as_str()]);
    assert_eq!(
        ids(&repo.beads_json(&["list", "--assignee", "carol"])),
        [c.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "--label", "ui"])),
        [a.as_str(), b.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "-l", "ui", "-l", "api"])),
        [b.as_str()],
        "every label must match"
    );
    assert_eq!(
        ids(&repo.beads_json(&["list", "-l", "ui", "-a", "bob", "-t", "bug", "-p", "1"])),
        [a.as_str()]
    );
    assert!(ids(&repo.beads_json(&["list", "--label", "nothing"])).is_empty());

    let limited = repo.beads_json(&["list", "--limit", "2"]);
    assert_eq!(ids(&limited), [a.as_str(), c.as_str()]);
    let out = repo.beads_output(&["list", "-n", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains(&a) && text.contains("A bug"), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 of 4"),
        "the cut is reported on stderr"
    );
}

#[test]
fn list_all_lifts_the_default_limit() {
    let (_sb, repo) = Sandbox::with_store();
    for i in 0..53 {
        repo.create(&format!("bead {i}"), &[]);
    }
    let v = repo.beads_json(&["list"]);
    assert_eq!(ids(&v).len(), 50);
    assert_eq!(ids(&repo.beads_json(&["list", "--all"])).len(), 53);
    assert_eq!(ids(&repo.beads_json(&["list", "--limit", "0"])).len(), 53);
}

#[test]
fn update_changes_every_field() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Before", &["-l", "old", "-l", "keep"]);
    let v = repo.beads_json(&[
        "update",
        &id,
        "--title",
        "After",
        "-d",
        "new text",
        "--notes",
        "some notes",
        "--status",
        "blocked",
        "-p",
        "1",
        "-t",
        "feature",
        "-a",
        "dave",
        "--add-label",
        "new",
        "--add-label",
        "more",
        "--remove-label",
        "old",
    ]);
    let b = &one(&v);
    assert_eq!(b["id"], id.as_str());
    assert_eq!(b["title"], "After");
    assert_eq!(b["description"], "new text");
    assert_eq!(b["notes"], "some notes");
    assert_eq!(b["status"], "blocked");
    assert_eq!(b["priority"], 1);
    assert_eq!(b["issue_type"], "feature");
    assert_eq!(b["assignee"], "dave");
    assert_eq!(strs(&b["labels"]), ["keep", "more", "new"]);
    assert_eq!(b["updated_by"], "alice");
    assert_eq!(bead(&repo, &id), *b);

    for status in ["in_progress", "deferred", "hooked", "pinned", "open"] {
        let v = repo.beads_json(&["update", &id, "-s", status]);
        assert_eq!(one(&v)["status"], status);
    }
    // An empty assignee clears it.
    let v = repo.beads_json(&["update", &id, "-a", ""]);
    assert!(one(&v).get("assignee").is_none(), "{v}");
    // Closing through update records the time; moving away clears it.
    let v = repo.beads_json(&["update", &id, "--status", "closed"]);
    assert!(one(&v)["closed_at"].is_string(), "{v}");
    let v = repo.beads_json(&["update", &id, "--status", "open"]);
    assert!(one(&v).get("closed_at").is_none(), "{v}");
}

#[test]
fn claim_is_exclusive() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Contested", &[]);
    let v = repo.beads_json(&["update", &id, "--claim"]);
    assert_eq!(one(&v)["status"], "in_progress");
    assert_eq!(one(&v)["assignee"], "alice");
    // Claiming again as the holder is fine.
    let v = repo.beads_json(&["update", &id, "--claim"]);
    assert_eq!(one(&v)["assignee"], "alice");

    let head = repo.store_head();
    let out = repo.beads_output_env(
        &[
            ("GIT_AUTHOR_NAME", "mallory"),
            ("GIT_AUTHOR_EMAIL", "m@example.com"),
        ],
        &["update", &id, "--claim"],
    );
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&id) && err.contains("alice"), "{err}");
    assert_eq!(repo.store_head(), head, "a refused claim changes nothing");

    // A closed bead cannot be claimed.
    let done = repo.create("Done", &[]);
    repo.beads(&["close", &done]);
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["update", &done, "--claim"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(repo.store_head(), head);
}

#[test]
fn close_reopen_and_delete() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("A", &[]);
    let b = repo.create("B", &[]);
    let c = repo.create("C", &[]);
    let commits_before = repo.commit_count("refs/beads/main");
    let v = repo.beads_json(&["close", &a, &b, "--reason", "shipped"]);
    let closed = v.as_array().expect("beads");
    assert_eq!(closed.len(), 2);
    for bd in closed {
        assert_eq!(bd["status"], "closed");
        assert_eq!(bd["close_reason"], "shipped");
        assert!(bd["closed_at"].is_string());
    }
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        commits_before + 1,
        "closing several beads is one commit"
    );
    assert_eq!(ids(&repo.beads_json(&["list"])), [c.as_str()]);

    let v = repo.beads_json(&["reopen", &a]);
    assert_eq!(v[0]["status"], "open");
    assert!(v[0].get("close_reason").is_none(), "{v}");
    assert!(v[0].get("closed_at").is_none(), "{v}");
    assert_eq!(ids(&repo.beads_json(&["list"])), [a.as_str(), c.as_str()]);

    // Without --force, or with --dry-run, delete previews (as bd's does): it names
    // what it would delete and changes nothing.
    let head = repo.store_head();
    let preview = repo.beads(&["delete", &c]);
    assert!(preview.starts_with("DELETE PREVIEW"), "{preview}");
    assert!(preview.contains(&format!("{c}  C")), "{preview}");
    let v = repo.beads_json(&["delete", &c, "--force", "--dry-run"]);
    assert_eq!(
        (v[0]["id"].as_str(), v[0]["status"].as_str()),
        (Some(c.as_str()), Some("open"))
    );
    assert_eq!(repo.store_head(), head);
    assert_eq!(bead(&repo, &c)["status"], "open");
    let (code, err) = repo.beads_fail(&["delete", &c, "bd-nope"]);
    assert_eq!(code, 1, "{err}");

    // Delete makes a tombstone: still shown, never listed, status deleted in the YAML.
    let v = repo.beads_json(&["delete", &c, "--reason", "duplicate", "--force"]);
    assert_eq!(v[0]["status"], "deleted");
    let shown = bead(&repo, &c);
    assert_eq!(shown["status"], "deleted");
    assert_eq!(shown["title"], "C");
    assert_eq!(shown["deleted_by"], "alice");
    assert_eq!(shown["delete_reason"], "duplicate");
    assert!(shown["deleted_at"].is_string());
    assert_eq!(ids(&repo.beads_json(&["list"])), [a.as_str()]);
    assert_eq!(
        ids(&repo.beads_json(&["list", "--all"])),
        [a.as_str(), b.as_str()]
    );
    let yaml = repo.git(&["show", &format!("refs/beads/main:{}", doc_path(&c))]);
    assert!(yaml.contains("status: deleted"), "{yaml}");
    assert!(yaml.contains("title: C"), "{yaml}");
    assert!(!repo.beads(&["ready"]).contains(&c));

    // A tombstone takes no more changes.
    let head = repo.store_head();
    for args in [
        vec!["update", c.as_str(), "--title", "x"],
        vec!["close", c.as_str()],
        vec!["reopen", c.as_str()],
        vec!["comment", c.as_str(), "hello"],
        vec!["delete", c.as_str()],
    ] {
        let (code, err) = repo.beads_fail(&args);
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(err.contains(&c) && err.contains("deleted"), "{err}");
    }
    assert_eq!(repo.store_head(), head);
}

/// Runs `args`, asserting it succeeds, says `said` on stderr and writes nothing.
fn no_op(repo: &Repo, args: &[&str], said: &str) {
    let head = repo.store_head();
    let log = repo.beads_json(&["log"]);
    let out = repo.beads_output(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    assert!(err.contains(said), "{args:?}: {err}");
    assert_eq!(repo.store_head(), head, "{args:?} wrote to the store");
    assert_eq!(repo.beads_json(&["log"]), log, "{args:?}");
}

#[test]
fn no_op_commands_write_nothing_and_say_it_is_already_so() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("A", &["-p", "1", "-l", "ui"]);
    let b = repo.create("B", &[]);
    repo.beads(&["close", &a]);
    repo.beads(&["dep", "add", &b, &a]);
    no_op(&repo, &["close", &a], &format!("{a} is already closed"));
    no_op(&repo, &["reopen", &b], &format!("{b} is already open"));
    no_op(
        &repo,
        &["update", &a, "-p", "1"],
        &format!("{a} already has"),
    );
    no_op(
        &repo,
        &["update", &b, "--title", "B"],
        &format!("{b} already has"),
    );
    no_op(
        &repo,
        &["label", "add", &a, "ui"],
        &format!("{a} already has label ui"),
    );
    no_op(
        &repo,
        &["label", "remove", &b, "ui"],
        &format!("{b} already has no label ui"),
    );
    no_op(
        &repo,
        &["dep", "add", &b, &a],
        &format!("{b} already depends on {a}"),
    );
    repo.beads(&["update", &b, "--claim"]);
    no_op(
        &repo,
        &["update", &b, "--claim"],
        &format!("{b} is already claimed"),
    );
    let v = repo.beads_json(&["close", &a]);
    assert_eq!(v[0]["id"], a.as_str(), "the bead as it is: {v}");

    // Of several, only the ones that change are written, in one commit.
    let commits = repo.commit_count("refs/beads/main");
    let out = repo.beads_output(&["close", &a, &b]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("{a} is already closed")), "{err}");
    assert!(err.contains(&format!("closed {b}: B")), "{err}");
    assert_eq!(repo.commit_count("refs/beads/main"), commits + 1);
    let subject = repo.git(&["log", "-1", "--format=%s", "refs/beads/main"]);
    assert_eq!(subject.trim(), format!("close {b}: B"));
}

#[test]
fn comments_are_added_and_listed() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Talked about", &[]);
    let v = repo.beads_json(&["comments", &id]);
    assert_eq!(v, serde_json::json!([]));

    let v = repo.beads_json(&["comments", "add", &id, "first words"]);
    assert_eq!(v["issue_id"], id.as_str());
    assert_eq!(v["text"], "first words");
    assert_eq!(v["author"], "alice");
    let v = repo.beads_json(&["comment", &id, "second\nwith two lines", "--author", "bob"]);
    assert_eq!(v["author"], "bob");
    repo.beads(&["comments", "add", &id, "third"]);

    let v = repo.beads_json(&["comments", &id]);
    let list = v.as_array().expect("comments");
    let texts: Vec<&str> = list
        .iter()
        .map(|c| c["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, ["first words", "second\nwith two lines", "third"]);
    let cids: std::collections::BTreeSet<&str> =
        list.iter().map(|c| c["id"].as_str().expect("id")).collect();
    assert_eq!(cids.len(), 3, "comment ids are distinct");
    assert!(list.iter().all(|c| c["created_at"].is_string()));

    let text = repo.beads(&["comments", &id]);
    assert!(
        text.contains("bob") && text.contains("with two lines"),
        "{text}"
    );
    assert_eq!(
        bead(&repo, &id)["comments"].as_array().map(Vec::len),
        Some(3)
    );
}

#[test]
fn dependencies_add_remove_and_tree() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("A", &[]);
    let b = repo.create("B", &[]);
    let c = repo.create("C", &[]);
    let d = repo.create("D", &[]);

    let v = repo.beads_json(&["dep", "add", &b, &a]);
    assert_eq!(
        one(&v)["dependencies"],
        serde_json::json!([{"issue_id": b, "depends_on_id": a, "type": "blocks"}])
    );
    // The commit says what the dependency means: B waits on A.
    let subject = repo.git(&["log", "-1", "--format=%s", "refs/beads/main"]);
    assert_eq!(
        subject.trim(),
        format!("dep add: {b} depends on {a} (blocks)")
    );
    repo.beads(&["dep", "add", &c, &b, "--type", "blocks"]);
    repo.beads(&["dep", "add", &c, &d, "-t", "related"]);
    for kind in [
        "parent-child",
        "discovered-from",
        "duplicates",
        "supersedes",
    ] {
        let v = repo.beads_json(&["dep", "add", &d, &a, "--type", kind]);
        let has = one(&v)["dependencies"]
            .as_array()
            .expect("deps")
            .iter()
            .any(|x| x["depends_on_id"] == a.as_str() && x["type"] == kind);
        assert!(has, "{kind}: {v}");
    }
    // Adding an existing edge again is harmless and commits nothing.
    let head = repo.store_head();
    repo.beads(&["dep", "add", &b, &a]);
    assert_eq!(repo.store_head(), head);

    // bd's flat tree: the bead asked about first, each node followed by those below
    // it, every node a bead in full with its depth, the node above and the edge.
    let v = repo.beads_json(&["dep", "tree", &c]);
    let nodes = v.as_array().expect("a bare array, as bd prints it");
    let at = |id: &str| {
        nodes
            .iter()
            .find(|n| n["id"] == id)
            .unwrap_or_else(|| panic!("{id} in {v}"))
    };
    assert_eq!(nodes.len(), 4, "{v}");
    let root = &nodes[0];
    assert_eq!(root["id"], c.as_str());
    assert_eq!(root["title"], "C");
    assert_eq!(root["status"], "open");
    assert_eq!(root["issue_type"], "task");
    assert_eq!(root["depth"], 0);
    assert_eq!(root["parent_id"], "");
    assert_eq!(root["truncated"], false);
    assert_eq!(root.get("edge_from_parent"), None);
    assert_eq!(root["dependency_count"], 2);
    let via_b = at(&b);
    assert_eq!(
        (
            &via_b["depth"],
            &via_b["parent_id"],
            &via_b["edge_from_parent"]
        ),
        (&1.into(), &c.as_str().into(), &"blocks".into())
    );
    let via_d = at(&d);
    assert_eq!(via_d["edge_from_parent"], "related");
    assert_eq!(via_d["depth"], 1);
    // A, reached through B and through D, is listed once, below the first of them.
    let under = at(&a);
    assert_eq!((&under["depth"], &under["title"]), (&2.into(), &"A".into()));
    let above = nodes
        .iter()
        .position(|n| n["id"] == under["parent_id"])
        .expect("A's parent is listed");
    assert_eq!(nodes[above + 1]["id"], a.as_str(), "depth first: {v}");
    let text = repo.beads(&["dep", "tree", &c]);
    assert!(text.lines().count() >= 4, "{text}");
    assert!(text.contains(&a) && text.contains("[blocks]"), "{text}");

    // Refusals: on itself, on an unknown bead, closing a cycle of blocking kinds.
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["dep", "add", &a, &a]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("itself"), "{err}");
    let (code, err) = repo.beads_fail(&["dep", "add", &a, "bd-zzzzz"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bd-zzzzz"), "{err}");
    let (code, err) = repo.beads_fail(&["dep", "add", "bd-zzzzz", &a]);
    assert_eq!(code, 1, "{err}");
    let (code, err) = repo.beads_fail(&["dep", "add", &a, &c]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cycle"), "{err}");
    let (code, err) = repo.beads_fail(&["dep", "add", &a, &b, "--type", "parent-child"]);
    assert_eq!(code, 1, "parent-child blocks too: {err}");
    assert_eq!(repo.store_head(), head, "refusals change nothing");
    // A loose link may point back.
    repo.beads(&["dep", "add", &a, &c, "--type", "related"]);

    // Remove one kind, then every kind.
    let v = repo.beads_json(&["dep", "remove", &d, &a, "--type", "duplicates"]);
    let removed = one(&v);
    let kinds: Vec<&str> = removed["dependencies"]
        .as_array()
        .expect("deps")
        .iter()
        .map(|x| x["type"].as_str().expect("type"))
        .collect();
    assert_eq!(kinds, ["parent-child", "discovered-from", "supersedes"]);
    let v = repo.beads_json(&["dep", "remove", &d, &a]);
    assert_eq!(one(&v)["dependencies"], serde_json::json!([]), "{v}");
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["dep", "remove", &d, &a]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(repo.store_head(), head);
    repo.beads(&["dep", "remove", &c, &b]);
    let v = repo.beads_json(&["dep", "tree", &c]);
    assert_eq!(v.as_array().map(Vec::len), Some(2), "C and D: {v}");
}

#[test]
fn labels_add_remove_list_and_list_all() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("A", &["-l", "ui"]);
    let b = repo.create("B", &[]);
    let c = repo.create("C", &["-l", "ui", "-l", "gone"]);

    let v = repo.beads_json(&["label", "add", &a, "area:cli"]);
    assert_eq!(strs(&one(&v)["labels"]), ["area:cli", "ui"]);
    repo.beads(&["label", "add", &b, "ui"]);
    let v = repo.beads_json(&["label", "remove", &a, "ui"]);
    assert_eq!(strs(&one(&v)["labels"]), ["area:cli"]);

    let v = repo.beads_json(&["label", "list", &a]);
    assert_eq!(strs(&v), ["area:cli"]);
    assert_eq!(repo.beads(&["label", "list", &b]).trim(), "ui");

    repo.beads(&["delete", &c, "--force"]);
    let v = repo.beads_json(&["label", "list-all"]);
    assert_eq!(
        v,
        serde_json::json!([
            {"label": "area:cli", "count": 1},
            {"label": "ui", "count": 1},
        ]),
        "tombstones do not count"
    );
    let text = repo.beads(&["label", "list-all"]);
    assert!(text.contains("area:cli") && text.contains("ui"), "{text}");
}

#[test]
fn ready_is_transitive_over_blocks_and_parents() {
    let (_sb, repo) = Sandbox::with_store();
    let blocker = repo.create("Blocker", &[]);
    let epic = repo.create("Epic", &["-t", "epic", "--deps", &blocker]);
    let child = repo.create("Child", &["--parent", &epic]);
    let grandchild = repo.create("Grandchild", &["--parent", &child]);
    let free = repo.create("Free", &[]);
    let loose = repo.create("Loosely linked", &["--deps", &format!("related:{blocker}")]);

    let ready = ids(&repo.beads_json(&["ready"]));
    assert_eq!(ready, [blocker.as_str(), free.as_str(), loose.as_str()]);

    let v = repo.beads_json(&["blocked"]);
    let blocked: Vec<(String, Vec<String>)> = v
        .as_array()
        .expect("blocked")
        .iter()
        .map(|x| {
            (
                x["id"].as_str().expect("id").to_owned(),
                strs(&x["blocked_by"]),
            )
        })
        .collect();
    assert_eq!(
        blocked,
        [
            (epic.clone(), vec![blocker.clone()]),
            (child.clone(), vec![blocker.clone()]),
            (grandchild.clone(), vec![blocker.clone()]),
        ]
    );
    let text = repo.beads(&["blocked"]);
    assert!(text.contains(&format!("blocked by {blocker}")), "{text}");

    // An in-progress blocker still blocks; a closed one frees everything below it.
    repo.beads(&["update", &blocker, "--claim"]);
    assert_eq!(
        ids(&repo.beads_json(&["ready"])),
        [free.as_str(), loose.as_str()]
    );
    repo.beads(&["close", &blocker]);
    assert_eq!(
        ids(&repo.beads_json(&["ready"])),
        [
            child.as_str(),
            grandchild.as_str(),
            free.as_str(),
            loose.as_str()
        ],
        "the epic is a container: its open children are the work, not it"
    );
    assert!(
        repo.beads_json(&["blocked"])
            .as_array()
            .expect("blocked")
            .is_empty()
    );

    // A parent marked blocked or deferred holds back its whole subtree.
    repo.beads(&["update", &epic, "--status", "deferred"]);
    assert_eq!(
        ids(&repo.beads_json(&["ready"])),
        [free.as_str(), loose.as_str()]
    );
    let v = repo.beads_json(&["blocked"]);
    let by_child: Vec<String> = v
        .as_array()
        .expect("blocked")
        .iter()
        .filter(|x| x["id"] == grandchild.as_str())
        .flat_map(|x| strs(&x["blocked_by"]))
        .collect();
    assert_eq!(by_child, [epic.as_str()]);
    repo.beads(&["update", &epic, "--status", "open"]);

    // A deleted blocker blocks nothing either.
    let b2 = repo.create("Second blocker", &[]);
    repo.beads(&["dep", "add", &free, &b2]);
    assert!(!ids(&repo.beads_json(&["ready"])).contains(&free));
    repo.beads(&["delete", &b2, "--force"]);
    assert!(ids(&repo.beads_json(&["ready"])).contains(&free));
}

#[test]
fn ready_orders_by_priority_then_age_and_claims() {
    let (_sb, repo) = Sandbox::with_store();
    let old_p2 = repo.create("old P2", &["-p", "2"]);
    let p1 = repo.create("P1", &["-p", "1"]);
    let new_p2 = repo.create("new P2", &["-p", "2", "-a", "bob"]);
    let p0 = repo.create("P0", &["-p", "0"]);
    let p4 = repo.create("P4", &["-p", "4", "-a", "bob"]);
    let busy = repo.create("Busy", &["-p", "0"]);
    repo.beads(&["update", &busy, "--status", "in_progress"]);
    let waiting = repo.create("Waiting", &["-p", "0"]);
    repo.beads(&["update", &waiting, "--status", "blocked"]);

    let v = repo.beads_json(&["ready"]);
    assert_eq!(
        ids(&v),
        [
            p0.as_str(),
            p1.as_str(),
            old_p2.as_str(),
            new_p2.as_str(),
            p4.as_str()
        ]
    );
    let v = repo.beads_json(&["ready", "--limit", "2"]);
    assert_eq!(ids(&v), [p0.as_str(), p1.as_str()]);
    assert_eq!(
        ids(&repo.beads_json(&["ready", "--assignee", "bob"])),
        [new_p2.as_str(), p4.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["ready", "-a", "bob", "-n", "1"])),
        [new_p2.as_str()]
    );

    // --claim takes the first ready one.
    let v = repo.beads_json(&["ready", "--claim"]);
    assert_eq!(one(&v)["id"], p0.as_str());
    assert_eq!(one(&v)["status"], "in_progress");
    assert_eq!(one(&v)["assignee"], "alice");
    assert_eq!(repo.beads(&["ready", "--claim"]).trim(), p1);
    // It skips what someone else holds, and honours --assignee.
    assert_eq!(repo.beads(&["ready", "--claim"]).trim(), old_p2);
    let v = repo.beads_json(&["ready", "--claim", "--assignee", "alice"]);
    assert!(one(&v).is_null(), "{v}");
    let out = repo.beads_output_env(&[("GIT_AUTHOR_NAME", "bob")], &["ready", "--claim"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), new_p2);
    let out = repo.beads_output_env(
        &[("GIT_AUTHOR_NAME", "bob")],
        &["ready", "--claim", "-a", "bob"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), p4);
    // Nothing left: an empty answer, not an error, and no commit.
    let head = repo.store_head();
    let v = repo.beads_json(&["ready", "--claim"]);
    assert!(one(&v).is_null(), "{v}");
    assert_eq!(repo.store_head(), head);
    assert!(ids(&repo.beads_json(&["ready"])).is_empty());
}

#[test]
fn search_matches_text_with_filters() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("Login page crashes", &["-t", "bug"]);
    let b = repo.create(
        "Rework",
        &["-d", "the LOGIN flow needs work", "-t", "feature"],
    );
    let c = repo.create("Old login", &[]);
    let d = repo.create("Removed login", &[]);
    let e = repo.create("Unrelated", &[]);
    repo.beads(&["close", &c]);
    repo.beads(&["delete", &d, "--force"]);

    let v = repo.beads_json(&["search", "login"]);
    let mut found = ids(&v);
    found.sort();
    let mut want = vec![a.clone(), b.clone()];
    want.sort();
    assert_eq!(
        found, want,
        "as bd searches: closed beads and tombstones are not found"
    );
    let mut found = ids(&repo.beads_json(&["search", "--query", "login", "--status", "all"]));
    found.sort();
    let mut want = vec![a.clone(), b.clone(), c.clone()];
    want.sort();
    assert_eq!(found, want, "`--status all` finds the closed ones too");
    assert_eq!(
        ids(&repo.beads_json(&["search", "login", "--sort", "title", "-r", "-n", "1"])),
        [b.as_str()],
        "sorted and limited as list is"
    );
    assert_eq!(
        ids(&repo.beads_json(&["search", "login", "--type", "bug"])),
        [a.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["search", "login", "--status", "closed"])),
        [c.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["search", "login", "--status", "deleted"])),
        [d.as_str()]
    );
    assert_eq!(
        ids(&repo.beads_json(&["search", &e])),
        [e.as_str()],
        "ids match too"
    );
    assert!(ids(&repo.beads_json(&["search", "no such words"])).is_empty());
    let text = repo.beads(&["search", "CRASHES"]);
    assert!(text.contains(&a), "{text}");
}

#[test]
fn log_shows_history_with_readable_diffs() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Logged", &["-d", "one\ntwo\nthree\nfour\nfive"]);
    let other = repo.create("Other", &[]);
    repo.beads(&["update", &id, "-d", "one\ntwo\nTHREE\nfour\nfive"]);
    repo.beads(&["close", &id, "--reason", "done"]);

    let v = repo.beads_json(&["log"]);
    let log = v.as_array().expect("log");
    assert_eq!(
        log_subjects(&v),
        [
            format!("close {id}: Logged"),
            format!("update {id}: Logged"),
            format!("create {other}: Other"),
            format!("create {id}: Logged"),
            "init: beads store with prefix bd".to_owned(),
        ]
    );
    assert_eq!(log[0]["author"], "alice");
    assert_eq!(log[0]["email"], "alice@example.com");
    assert_eq!(log[0]["commit"].as_str().map(str::len), Some(40));
    assert_eq!(log[0]["commit"], repo.store_head().as_str());
    assert_eq!(log[0]["changes"][0]["path"], doc_path(&id).as_str());
    assert_eq!(log[0]["changes"][0]["change"], "modified");
    assert_eq!(log[3]["changes"][0]["change"], "added");
    assert_eq!(
        repo.beads_json(&["log", "-n", "2"])
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    let v = repo.beads_json(&["log", &id]);
    let log = v.as_array().expect("log");
    assert_eq!(log.len(), 3, "only the steps that touched {id}: {v}");
    let update_diff = log[1]["changes"][0]["diff"].as_str().expect("diff");
    assert!(
        update_diff.contains("-  three") && update_diff.contains("+  THREE"),
        "{update_diff}"
    );
    assert!(
        !update_diff.contains("+  one"),
        "only what changed: {update_diff}"
    );
    let close_diff = log[0]["changes"][0]["diff"].as_str().expect("diff");
    assert!(close_diff.contains("-status: open"), "{close_diff}");
    assert!(close_diff.contains("+status: closed"), "{close_diff}");
    assert!(close_diff.contains("+close_reason: done"), "{close_diff}");
    let create_diff = log[2]["changes"][0]["diff"].as_str().expect("diff");
    assert!(create_diff.contains("+title: Logged"), "{create_diff}");

    let text = repo.beads(&["log", &id]);
    assert!(text.contains(&format!("close {id}")), "{text}");
    assert!(text.contains("+status: closed"), "{text}");
    let text = repo.beads(&["log"]);
    assert!(
        text.contains(&format!("modified {}", doc_path(&id))),
        "{text}"
    );
}

#[test]
fn tricky_text_round_trips_through_yaml_and_the_index() {
    let (_sb, repo) = Sandbox::with_store();
    let titles = [
        "null",
        "~",
        "true",
        "no",
        "123",
        "0x10",
        "1e3",
        ".nan",
        "2026-01-01",
        "#hash",
        "key: value",
        "a #b",
        "'single'",
        "\"double\"",
        "[bracket",
        "{brace",
        "&anchor",
        "*alias",
        "!tag",
        "%percent",
        "@at",
        "`tick`",
        "| pipe",
        "> gt",
        "? q",
        "...",
        "  leading",
        "trailing  ",
        "émoji 🎉 ünïcode",
        "back\\slash",
    ];
    let mut made = Vec::new();
    for t in titles {
        let description = format!("{t}\n{t}   \r\n\tindented\n\n- not a list\n");
        let v = repo.beads_json(&["create", t, "-d", &description, "-a", t]);
        let id = one(&v)["id"].as_str().expect("id").to_owned();
        let b = repo.bead_json(&id);
        assert_eq!(b["title"], t);
        assert_eq!(b["description"], description.as_str());
        assert_eq!(b["assignee"], t);
        made.push((id, t));
    }
    // Titles starting with a dash need the usual `--`.
    let id = repo.beads(&["create", "--", "- dash"]).trim().to_owned();
    assert_eq!(repo.bead_json(&id)["title"], "- dash");
    // The index keeps the text exactly too.
    let listed = repo.beads_json(&["list", "--all"]);
    for (id, t) in &made {
        let b = listed
            .as_array()
            .expect("beads")
            .iter()
            .find(|b| b["id"] == id.as_str())
            .expect("listed");
        assert_eq!(b["title"], *t);
        assert_eq!(b["assignee"], *t);
    }
    // And the commands work from anywhere inside the worktree.
    let sub = repo.path.join("deep/down");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let out = repo
        .beads_command(&[], &["--json", "show", &made[0].0])
        .current_dir(&sub)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_child_is_ready_while_its_parent_is_open_and_a_container_is_not_work() {
    let (_sb, repo) = Sandbox::with_store();
    let epic = repo.create("Epic", &["-t", "epic"]);
    let one = repo.create("One", &["--parent", &epic]);
    let two = repo.create("Two", &["--parent", &epic]);
    let ready = || ids(&repo.beads_json(&["ready"]));
    // As in bd (beads#5583): the epic's open children are the work, not the epic; an
    // open parent holds no child back.
    assert_eq!(ready(), [one.as_str(), two.as_str()]);
    // A parent that is a plain task is work of its own, ready beside its children.
    let task = repo.create("Task", &[]);
    let sub = repo.create("Sub", &["--parent", &task]);
    assert_eq!(
        ready(),
        [one.as_str(), two.as_str(), task.as_str(), sub.as_str()]
    );
    repo.beads(&["close", &sub, &task]);
    repo.beads(&["update", &epic, "--claim"]);
    assert_eq!(ready(), [one.as_str(), two.as_str()]);
    repo.beads(&["close", &one]);
    assert_eq!(ready(), [two.as_str()]);
    // A parent held back itself holds its children back.
    repo.beads(&["update", &epic, "--status", "blocked"]);
    assert!(ready().is_empty());
    let help = repo.beads(&["ready", "--help"]);
    assert!(
        help.contains("a child is ready while its parent is open"),
        "{help}"
    );
}

#[test]
fn the_not_found_hint_says_where_the_deleted_beads_are() {
    let (_sb, repo) = Sandbox::with_store();
    let kept = repo.create("Kept", &[]);
    let gone = repo.create("Gone", &[]);
    repo.beads(&["delete", &gone, "--force"]);
    let (code, err) = repo.beads_fail(&["show", "bd-zzzz"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`git beads list --all` shows every bead but the deleted ones")
            && err.contains("`git beads list --status deleted` those"),
        "{err}"
    );
    assert_eq!(ids(&repo.beads_json(&["list", "--all"])), [kept.as_str()]);
    assert_eq!(
        ids(&repo.beads_json(&["list", "--status", "deleted"])),
        [gone.as_str()]
    );
}

#[test]
fn list_blocked_and_show_short_line_up_ids_longer_than_the_column() {
    let (_sb, repo) = Sandbox::with_store();
    let short = repo.create("Short", &[]);
    let long = repo.create("Long", &["--id", "bd-abcdefghijklm.1"]);
    let blocker = repo.create("Blocker", &[]);
    for id in [&short, &long] {
        repo.beads(&["dep", "add", id, &blocker]);
    }
    for args in [
        vec!["list"],
        vec!["blocked"],
        vec!["show", "--short", short.as_str(), long.as_str()],
    ] {
        let text = repo.beads(&args);
        let starts: Vec<usize> = text
            .lines()
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.find(" P2 ").unwrap_or(usize::MAX))
            .collect();
        assert!(starts.len() >= 2, "{args:?}: {text}");
        assert!(starts.windows(2).all(|w| w[0] == w[1]), "{args:?}:\n{text}");
    }
}
