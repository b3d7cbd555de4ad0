//! bd's long tail of small commands: the shorthands of `update` (`assign`, `tag`,
//! `priority`), `todo`, the memories (`remember`, `recall`, `memories`, `forget`),
//! the state dimensions (`set-state`, `state`), `prune` and `batch`. Each test
//! prepares one store and runs all its checks on it.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screens, stable};

const STORE: &str = "refs/beads/main";

/// Runs `args`, which must fail with `code` and leave the store where it was.
fn refused(repo: &Repo, args: &[&str], code: i32) -> String {
    let before = repo.store_head();
    let (got, stderr) = repo.beads_fail(args);
    assert_eq!(got, code, "{args:?}: {stderr}");
    assert_eq!(repo.store_head(), before, "{args:?} changed the store");
    stderr
}

#[test]
fn assign_tag_and_priority_are_updates_of_one_field() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let id = names.name(repo.create("Fix login", &[]), "LOGIN");
    let commits = repo.commit_count(STORE);

    let b = repo.beads_json(&["assign", &id, "alice"]);
    assert_eq!(b["assignee"], "alice");
    assert_eq!(b["id"], id.as_str());
    let b = repo.beads_json(&["tag", &id, "auth"]);
    assert_eq!(b["labels"], serde_json::json!(["auth"]));
    let b = repo.beads_json(&["priority", &id, "P0"]);
    assert_eq!(b["priority"], 0);
    assert_eq!(repo.commit_count(STORE), commits + 3, "one commit each");

    // Asked for what it has already: nothing is written.
    repo.beads(&["assign", &id, "alice"]);
    repo.beads(&["tag", &id, "auth"]);
    repo.beads(&["priority", &id, "0"]);
    assert_eq!(repo.commit_count(STORE), commits + 3);

    // bd's exit codes: 1 for a bad priority or an unknown bead, 2 for a missing
    // argument; nothing changes.
    refused(&repo, &["priority", &id, "9"], 1);
    refused(&repo, &["assign", "bd-nope", "bob"], 1);
    refused(&repo, &["tag", &id, "bad\u{7}label"], 1);
    refused(&repo, &["assign", &id], 2);

    let text = screens(
        &repo,
        &[
            &["assign", &id, "bob"],
            &["assign", &id, "bob"],
            &["assign", &id, ""],
            &["tag", &id, "web"],
            &["tag", &id, "web"],
            &["priority", &id, "1"],
            &["priority", &id, "high"],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("shorthands", text));
    repo.assert_fsck_clean();
}

#[test]
fn memories_live_in_the_key_value_store_under_memory() {
    let (sb, repo) = Sandbox::with_store();
    let done = repo.beads_json(&["remember", "Always run tests with -race flag"]);
    let key = "always-run-tests-with-race-flag";
    assert_eq!(done["key"], key);
    assert_eq!(done["action"], "remembered");
    let again = repo.beads_json(&["remember", "Use -race", "--key", key]);
    assert_eq!(again["action"], "updated");
    repo.beads(&[
        "remember",
        "Auth uses JWT, not sessions",
        "--key",
        "auth-jwt",
    ]);

    // Where bd keeps them: kv.memory.<key>, so `kv` and sync see them.
    assert_eq!(
        repo.beads(&["kv", "get", &format!("memory.{key}")]).trim(),
        "Use -race"
    );
    let bare = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&repo.beads(&all)).expect("JSON")
    };
    let all = bare(&["memories"]);
    assert_eq!(
        all,
        serde_json::json!({key: "Use -race", "auth-jwt": "Auth uses JWT, not sessions"})
    );
    assert_eq!(
        bare(&["memories", "JWT"]).as_object().map(|o| o.len()),
        Some(1)
    );

    let found = repo.beads_json(&["recall", key]);
    assert_eq!(
        (&found["value"], &found["found"]),
        (&"Use -race".into(), &true.into())
    );
    // Not there: exit 1, `found` false with --json (and the store as it was).
    let (code, stdout, _) = repo.beads_fail_with_stdout(&["--json", "recall", "nope"]);
    assert_eq!(code, 1);
    let missing: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(missing["found"], false);
    refused(&repo, &["forget", "nope"], 1);
    refused(&repo, &["remember", "  "], 1);
    refused(&repo, &["remember", "¿?"], 1);

    // prime hands them to every new session, as bd's does.
    let prime = repo.beads(&["prime"]);
    assert!(
        prime.contains("### auth-jwt\nAuth uses JWT, not sessions"),
        "{prime}"
    );
    let forgot = repo.beads_json(&["forget", "auth-jwt"]);
    assert_eq!(forgot["deleted"], "true");

    let text = screens(
        &repo,
        &[
            &[
                "remember",
                "Dolt phantom DBs hide in three places",
                "--key",
                "dolt",
            ],
            &["memories"],
            &["memories", "dolt"],
            &["memories", "zzz"],
            &["recall", "dolt"],
            &["recall", "nope"],
            &["prime", "--memories-only"],
            &["forget", "dolt"],
        ],
    );
    stable(&sb, &Names::default(), || {
        assert_snapshot!("memories", text)
    });
    repo.assert_fsck_clean();
}

#[test]
fn todo_adds_lists_and_closes_tasks() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let added = repo.beads_json(&["todo", "add", "Write", "the", "docs", "-p", "1"]);
    assert_eq!(added["title"], "Write the docs");
    assert_eq!(added["issue_type"], "task");
    assert_eq!(added["priority"], 1);
    assert!(
        added["assignee"].is_string(),
        "assigned to who adds it: {added}"
    );
    let docs = names.name(added["id"].as_str().expect("id"), "DOCS");
    let fix = names.name(repo.create("Fix the build", &["-p", "0"]), "FIX");
    names.name(repo.create("Not a task", &["-t", "bug"]), "BUG");
    refused(&repo, &["todo", "add", "X", "-p", "7"], 1);

    let listed = repo.beads_json(&["todo", "list"]);
    let ids: Vec<&str> = common::items(&listed)
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert_eq!(ids, [fix.as_str(), docs.as_str()], "tasks by priority");

    let commits = repo.commit_count(STORE);
    let done = repo.beads_json(&["todo", "done", &docs, &fix, "--reason", "shipped"]);
    assert_eq!(done["closed"], serde_json::json!([docs, fix]));
    assert_eq!(done["reason"], "shipped");
    assert_eq!(repo.commit_count(STORE), commits + 1, "one commit");
    assert_eq!(repo.bead_json(&fix)["close_reason"], "shipped");
    refused(&repo, &["todo", "done", "bd-nope"], 1);

    let text = screens(
        &repo,
        &[
            &["todo", "add", "Tidy", "up"],
            &["todo"],
            &["todo", "list", "--all"],
        ],
    );
    let tidy = repo.beads_json(&["todo", "list"])[0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    names.name(tidy.clone(), "TIDY");
    let done = screens(&repo, &[&["todo", "done", &tidy], &["todo"]]);
    stable(&sb, &names, || {
        assert_snapshot!("todo", format!("{text}\n{done}"))
    });
}

#[test]
fn set_state_swaps_the_label_and_records_an_event_in_one_commit() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let id = names.name(repo.create("Witness", &["-l", "mode:normal"]), "WITNESS");
    let commits = repo.commit_count(STORE);

    let set = repo.beads_json(&["set-state", &id, "patrol=active"]);
    assert_eq!(set["changed"], true);
    assert!(set["old_value"].is_null(), "{set}");
    let first = set["event_id"].as_str().expect("event").to_owned();
    assert_eq!(first, format!("{id}.1"));
    let set = repo.beads_json(&["set-state", &id, "patrol=muted", "--reason", "stuck"]);
    assert_eq!(set["old_value"], "active");
    assert_eq!(set["new_value"], "muted");
    assert_eq!(repo.commit_count(STORE), commits + 2, "one commit each");

    let bead = repo.bead_json(&id);
    assert_eq!(common::labels(&bead), ["mode:normal", "patrol:muted"]);
    let event = repo.bead_json(&format!("{id}.2"));
    assert_eq!(
        (&event["issue_type"], &event["status"], &event["priority"]),
        (&"event".into(), &"closed".into(), &4.into())
    );
    assert!(
        event["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("Reason: stuck"))
    );

    let same = repo.beads_json(&["set-state", &id, "patrol=muted"]);
    assert_eq!(
        (&same["changed"], &same["value"]),
        (&false.into(), &"muted".into())
    );
    assert_eq!(repo.commit_count(STORE), commits + 2, "nothing to change");
    let got = repo.beads_json(&["state", &id, "patrol"]);
    assert_eq!(got["value"], "muted");
    assert!(repo.beads_json(&["state", &id, "health"])["value"].is_null());
    let all = repo.beads_json(&["state", "list", &id]);
    assert_eq!(
        all["states"],
        serde_json::json!({"mode": "normal", "patrol": "muted"})
    );

    refused(&repo, &["set-state", &id, "patrol"], 1);
    refused(&repo, &["set-state", &id, "=x"], 1);
    refused(&repo, &["set-state", "bd-nope", "a=b"], 1);
    refused(&repo, &["state", &id], 2);

    let text = screens(
        &repo,
        &[
            &["set-state", &id, "mode=degraded", "--reason", "errors"],
            &["set-state", &id, "mode=degraded"],
            &["state", &id, "mode"],
            &["state", &id, "health"],
            &["state", "list", &id],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("state", text));
    repo.assert_fsck_clean();
}

#[test]
fn prune_deletes_old_closed_beads_as_delete_does() {
    let (sb, repo) = Sandbox::with_store();
    let old = repo.create("Old work", &["-l", "x"]);
    let other = repo.create("Other old work", &["--deps", &old]);
    let pinned = repo.create("Pinned record", &[]);
    let open = repo.create("Still open", &[]);
    repo.beads(&["close", &old, &other, &pinned]);
    // bd's `pinned` field, as an import from bd keeps it.
    let doc = repo.git(&["show", &format!("{STORE}:{}", common::doc_path(&pinned))]);
    repo.put_raw_doc(
        &common::doc_path(&pinned),
        format!("{}\nextra:\n  pinned: true\n", doc.trim_end()).as_bytes(),
    );

    // bd's guard: one of --older-than and --pattern; without --force, a count.
    refused(&repo, &["prune", "--force"], 1);
    refused(&repo, &["prune", "--pattern", "*"], 1);
    let dry = repo.beads_json(&["prune", "--pattern", "*", "--dry-run"]);
    assert_eq!(
        (&dry["prune_count"], &dry["dry_run"]),
        (&2.into(), &true.into())
    );
    assert_eq!(
        (&dry["dependencies"], &dry["labels"]),
        (&1.into(), &1.into())
    );
    assert_eq!(dry["pinned_skipped"], 1);
    let none = repo.beads_json(&["prune", "--older-than", "30d", "--force"]);
    assert_eq!(none["pruned_count"], 0);

    let commits = repo.commit_count(STORE);
    let text = screens(
        &repo,
        &[
            &["prune", "--older-than", "7d"],
            &["prune", "--pattern", "*", "--dry-run"],
            &["prune", "--pattern", "*", "--force"],
            &["prune", "--pattern", "*", "--force"],
        ],
    );
    assert_eq!(repo.commit_count(STORE), commits + 1, "one commit");
    for id in [&old, &other] {
        let b = repo.bead_json(id);
        assert_eq!(b["status"], "deleted", "a tombstone, as delete makes: {b}");
    }
    assert_eq!(repo.bead_json(&pinned)["status"], "closed");
    assert_eq!(repo.bead_json(&open)["status"], "open");
    // The deleted beads stay in the store's history, as every deleted bead does.
    let before = format!("{STORE}~1:{}", common::doc_path(&old));
    assert!(repo.git(&["show", &before]).contains("Old work"));
    stable(&sb, &Names::default(), || assert_snapshot!("prune", text));
    repo.assert_fsck_clean();
}

#[test]
fn batch_is_one_commit_or_nothing() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let a = names.name(repo.create("First", &[]), "A");
    let b = names.name(repo.create("Second", &[]), "B");
    let script = sb.path().join("ops.txt");
    common::write_file(
        &script,
        &format!(
            "# tidy up\n\nupdate {a} status=in_progress assignee=bob priority=1\n\
             create bug 0 \"Crash on start\"\ndep add {b} {a}\nclose {a} all done\n\
             dep remove {b} {a}\nupdate {b} title=\"Second, renamed\"\n"
        ),
    );
    let file = script.to_str().expect("path");
    let dry = repo.beads_json(&["batch", "-f", file, "--dry-run"]);
    assert_eq!(
        (&dry["operations"], &dry["dry_run"]),
        (&6.into(), &true.into())
    );

    let commits = repo.commit_count(STORE);
    let done = repo.beads_json(&["batch", "-f", file, "-m", "nightly tidy"]);
    assert_eq!(repo.commit_count(STORE), commits + 1, "one commit");
    assert_eq!(done["status"], "ok");
    let results = common::items(&done["results"]);
    assert_eq!(results.len(), 6);
    assert_eq!(results[2]["op"], "dep.add");
    assert_eq!(results[2]["target"], format!("{b}->{a}"));
    let subject = repo.git(&["log", "-1", "--format=%s", STORE]);
    assert_eq!(subject.trim(), "nightly tidy");
    let first = repo.bead_json(&a);
    assert_eq!(
        (&first["status"], &first["assignee"]),
        (&"closed".into(), &"bob".into())
    );
    assert_eq!(first["close_reason"], "all done");
    assert_eq!(repo.bead_json(&b)["title"], "Second, renamed");
    let crash = results[1]["target"].as_str().expect("id");
    assert_eq!(repo.bead_json(crash)["issue_type"], "bug");

    // A bad line, or one that fails, writes nothing and names the line (exit 1).
    for bad in [
        format!("close {b}\nfrobnicate\n"),
        format!("close {b}\nclose bd-nope\n"),
        format!("update {b} colour=red\n"),
        format!("dep add {b} {b}\n"),
        format!("close {b} \"unterminated\n"),
    ] {
        common::write_file(&script, &bad);
        let err = refused(&repo, &["batch", "-f", file], 1);
        assert!(err.contains("line "), "{bad}: {err}");
    }
    let input = format!("close {b} done\n");
    let piped = common::feed(&mut repo.beads_command(&[], &["batch"]), input.as_bytes());
    assert!(piped.status.success(), "stdin: {piped:?}");
    assert_eq!(repo.bead_json(&b)["status"], "closed");

    common::write_file(&script, "create task 2 \"Third one\"\n# then\nfrob\n");
    let mut text = screens(&repo, &[&["batch", "-f", file]]);
    common::write_file(
        &script,
        &format!("create task 2 \"Third one\"\nupdate {a} status=open\n"),
    );
    text.push('\n');
    text.push_str(&screens(
        &repo,
        &[&["batch", "-f", file, "--dry-run"], &["batch", "-f", file]],
    ));
    common::write_file(&script, "# nothing\n");
    let empty = screens(&repo, &[&["batch", "-f", file]]);
    stable(&sb, &names, || {
        assert_snapshot!("batch", format!("{text}\n{empty}").replace(file, "[FILE]"))
    });
    repo.assert_fsck_clean();
}

/// `ops` as a library: a batch whose last line fails leaves the store as it was and
/// says which line; `set_state` and the memories answer in model values.
#[test]
fn the_ops_of_the_tail_work_as_a_library() {
    use git_beads::model::{DepKind, Status};
    use git_beads::ops::{self, BatchLine, BatchOp, ErrorKind, OpError};
    let lib = crate::library::Lib::new();
    let a = lib.create("First");
    let line = |n: usize, op: BatchOp| BatchLine {
        line: n,
        text: format!("op {n}"),
        op,
    };
    let close = BatchOp::Close {
        id: a.id.to_string(),
        reason: "done".into(),
    };
    let before = lib.repo.store_head();
    let lines = [
        line(1, close.clone()),
        line(
            2,
            BatchOp::DepAdd {
                from: a.id.to_string(),
                to: "bd-nope".into(),
                kind: DepKind::Blocks,
            },
        ),
    ];
    let err = ops::batch(&lib.store, &lib.me, &lines, None).expect_err("line 2 fails");
    assert!(matches!(err, OpError::Batch { line: 2, .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(lib.repo.store_head(), before, "nothing written");
    assert_eq!(lib.show(&a.id).status, Status::Open);

    let done = ops::batch(&lib.store, &lib.me, &[line(1, close)], Some("tidy")).expect("batch");
    assert_eq!(
        (done[0].op, done[0].target.as_str()),
        ("close", a.id.as_str())
    );
    assert_eq!(lib.show(&a.id).close_reason.as_deref(), Some("done"));

    let b = lib.create("Witness");
    let set = ops::set_state(&lib.store, &lib.me, &b.id, ("mode", "on"), None).expect("set");
    assert_eq!(
        (set.old, set.event.map(|e| e.to_string())),
        (None, Some(format!("{}.1", b.id)))
    );
    let again = ops::set_state(&lib.store, &lib.me, &b.id, ("mode", "on"), None).expect("same");
    assert!(again.event.is_none());
    assert_eq!(
        ops::state(&lib.store, &b.id, "mode")
            .expect("state")
            .as_deref(),
        Some("on")
    );

    let kept = ops::memory::remember(&lib.store, &lib.me, "k", "text").expect("remember");
    assert!(!kept.updated);
    assert_eq!(
        ops::memory::recall(&lib.store, "k")
            .expect("recall")
            .as_deref(),
        Some("text")
    );
    assert_eq!(
        ops::memory::forget(&lib.store, &lib.me, "k")
            .expect("forget")
            .as_deref(),
        Some("text")
    );
    assert_eq!(
        ops::memory::forget(&lib.store, &lib.me, "k").expect("forget"),
        None
    );
}
