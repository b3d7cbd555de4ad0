//! bd's words on git-beads: the commands and flags bd's tools and prompts use, and
//! `--json` in bd 1.x's shapes, through the real binary in real repositories.

use crate::common;

use common::{Repo, Sandbox, write_file};
use serde_json::Value;

/// The items of a list document (a bare array, as bd prints lists).
fn items(v: &Value) -> &Vec<Value> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a bare array: {v}"))
}

/// The ids of a list document, in order.
fn ids(v: &Value) -> Vec<&str> {
    items(v)
        .iter()
        .map(|b| b["id"].as_str().expect("id"))
        .collect()
}

/// `git beads --json ARGS` with `env`, asserting success: (stdout parsed, stderr).
fn json_env(repo: &Repo, env: &[(&str, &str)], args: &[&str]) -> (Value, String) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = repo.beads_output_env(env, &all);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {err}");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    (v, err)
}

#[test]
fn json_has_bds_shapes_and_the_envelope_wraps_every_document() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("First", &["-t", "bug", "-p", "1"]);
    let b = repo.create("Second", &["--deps", &a]);

    // A list is a bare array; `jq '.[0].id'` works.
    let ready = repo.beads_json(&["ready"]);
    assert_eq!(ids(&ready), [a.as_str()]);
    let item = &items(&ready)[0];
    assert_eq!(item["issue_type"], "bug");
    assert_eq!(item.get("type"), None, "{item}");
    assert_eq!(item["dependency_count"], 0);
    assert_eq!(item["dependent_count"], 1, "{b} depends on it");
    assert!(item.get("schema_version").is_none(), "{item}");
    let listed = repo.beads_json(&["list"]);
    let second = items(&listed)
        .iter()
        .find(|x| x["id"] == b.as_str())
        .expect("listed");
    assert_eq!(
        second["dependencies"],
        serde_json::json!([{"issue_id": b, "depends_on_id": a, "type": "blocks"}])
    );

    // One thing is an object with schema_version beside its fields.
    let made = repo.beads_json(&["create", "Third", "-p", "3"]);
    assert_eq!(made["schema_version"], 1);
    assert_eq!(made["title"], "Third");
    assert_eq!(made["issue_type"], "task");
    // show is bd's array of beads in full, what they depend on named.
    let shown = repo.beads_json(&["show", &b]);
    let full = &items(&shown)[0];
    assert_eq!(full["dependencies"][0]["id"], a.as_str());
    assert_eq!(full["dependencies"][0]["title"], "First");
    assert_eq!(full["dependencies"][0]["dependency_type"], "blocks");
    assert_eq!(full["dependency_count"], 1);

    // BD_JSON_ENVELOPE=1: {"schema_version":1,"data":...} for lists and objects alike.
    let env = [("BD_JSON_ENVELOPE", "1")];
    let (v, _) = json_env(&repo, &env, &["ready"]);
    assert_eq!(v["schema_version"], 1);
    let third = made["id"].as_str().expect("id");
    assert_eq!(ids(&v["data"]), [a.as_str(), third]);
    let (v, _) = json_env(&repo, &env, &["count"]);
    assert_eq!(
        v,
        serde_json::json!({"schema_version": 1, "data": {"count": 3}})
    );
    // blocked writes its array to stdout's file itself: between the envelope's two
    // halves, after what the file already holds.
    let path = repo.path.join("blocked.out");
    std::fs::write(&path, "before\n").expect("write");
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    let status = repo
        .beads_command(&env, &["--json", "blocked"])
        .stdout(file)
        .status()
        .expect("run");
    assert!(status.success());
    let text = std::fs::read_to_string(&path).expect("read");
    let doc = text.strip_prefix("before\n").expect("kept what was there");
    let v: Value = serde_json::from_str(doc).expect("one JSON document");
    assert_eq!(ids(&v["data"]), [b.as_str()]);

    // An error under --json is bd's object on stderr, with git-beads' exit code.
    let out = repo.beads_output(&["--json", "show", "bd-zzzzz"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let e: Value = serde_json::from_slice(&out.stderr).expect("a JSON error");
    assert_eq!(e["schema_version"], 1);
    assert_eq!(e["code"], "not_found", "bd's code");
    assert!(
        e["error"].as_str().is_some_and(|m| m.contains("bd-zzzzz")),
        "{e}"
    );
    let out = repo.beads_output_env(&env, &["--json", "show", "bd-zzzzz"]);
    let e: Value = serde_json::from_slice(&out.stderr).expect("a JSON error");
    assert_eq!(e["data"]["code"], "not_found", "{e}");
}

#[test]
fn version_speaks_as_bd_does() {
    let (_sb, repo) = Sandbox::with_store();
    let text = repo.beads(&["version"]);
    assert!(text.starts_with("bd version 1."), "{text}");
    assert!(text.contains("git-beads"), "{text}");
    let v = repo.beads_json(&["version"]);
    assert_eq!(v["build"], "git-beads");
    assert_eq!(v["git_beads_version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn filters_take_comma_lists_and_all() {
    let (_sb, repo) = Sandbox::with_store();
    let bug = repo.create("Bug", &["-t", "bug", "-p", "0", "-l", "ui,api"]);
    let feat = repo.create("Feature", &["-t", "feature", "-p", "1", "-l", "api"]);
    let task = repo.create("Task", &["-p", "3", "-a", "bob"]);
    let done = repo.create("Done", &["-p", "2"]);
    repo.beads(&["close", done.as_str()]);
    repo.beads(&["update", feat.as_str(), "--status", "in_progress"]);
    let list = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        ids(&repo.beads_json(&all))
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        list(&["--status", "open,in_progress"]),
        [bug.as_str(), feat.as_str(), task.as_str()]
    );
    assert_eq!(
        list(&["--status", "all"]),
        [bug.as_str(), feat.as_str(), done.as_str(), task.as_str()]
    );
    assert_eq!(list(&["-p", "0,1"]), [bug.as_str(), feat.as_str()]);
    assert_eq!(list(&["-l", "ui,api"]), [bug.as_str()]);
    assert_eq!(list(&["--label-any", "ui,nothing"]), [bug.as_str()]);
    assert_eq!(list(&["--exclude-label", "api"]), [task.as_str()]);
    assert_eq!(list(&["-t", "bug,feat"]), [bug.as_str(), feat.as_str()]);
    assert_eq!(list(&["--exclude-type", "bug,task"]), [feat.as_str()]);
    assert_eq!(list(&["--no-assignee"]), [bug.as_str(), feat.as_str()]);
    assert_eq!(list(&["--title", "eat"]), [feat.as_str()]);
    assert_eq!(list(&["--title-contains", "TASK"]), [task.as_str()]);
    assert_eq!(list(&["--sort", "id", "-r"]).len(), 3);
    assert_eq!(
        list(&["--sort", "priority", "-r"]),
        [task.as_str(), feat.as_str(), bug.as_str()]
    );
    assert_eq!(
        list(&["--tree=false"]),
        [bug.as_str(), feat.as_str(), task.as_str()]
    );
    assert_eq!(list(&["--flat", "--limit", "1"]), [bug.as_str()]);

    // ready: -u, -l, -t, -p, sorts, bd's default limit.
    let ready = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["ready"];
        all.extend_from_slice(args);
        ids(&repo.beads_json(&all))
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(ready(&[]), [bug.as_str(), task.as_str()]);
    assert_eq!(ready(&["-u"]), [bug.as_str()]);
    assert_eq!(
        ready(&["--unassigned", "-t", "bug", "-p", "0", "-l", "ui"]),
        [bug.as_str()]
    );
    assert_eq!(ready(&["-s", "oldest"]), [bug.as_str(), task.as_str()]);
    assert_eq!(ready(&["-s", "hybrid", "--limit", "1"]), [bug.as_str()]);
    for i in 0..101 {
        repo.create(&format!("More {i}"), &["-p", "4"]);
    }
    assert_eq!(ready(&[]).len(), 100, "bd's default limit");
    assert_eq!(ready(&["--limit", "0"]).len(), 103);
    assert_eq!(repo.beads_json(&["count", "-p", "4"])["count"], 101);
    assert_eq!(
        repo.beads_json(&["count", "--status", "closed"])["count"],
        1
    );
}

#[test]
fn create_update_and_close_take_bds_flags() {
    let (sb, repo) = Sandbox::with_store();
    let body = sb.path().join("body.md");
    write_file(&body, "From a file.\n");
    let v = repo.beads_json(&[
        "create",
        "--title",
        "Flagged",
        "--body-file",
        body.to_str().expect("utf-8"),
        "--design",
        "REST",
        "--acceptance",
        "Two reviews",
        "--notes",
        "N",
        "--external-ref",
        "gh-9",
        "-l",
        "a,b",
    ]);
    assert_eq!(v["description"], "From a file.\n");
    assert_eq!(v["design"], "REST");
    assert_eq!(v["acceptance_criteria"], "Two reviews");
    assert_eq!(v["external_ref"], "gh-9");
    assert_eq!(v["notes"], "N");
    assert_eq!(v["labels"], serde_json::json!(["a", "b"]));
    let id = v["id"].as_str().expect("id").to_owned();

    // --id, --silent, --dry-run, q.
    let given = repo.beads(&["--json", "create", "Named", "--id", "bd-named1", "--silent"]);
    assert_eq!(given.trim(), "bd-named1", "--silent prints only the id");
    let (code, _) = repo.beads_fail(&["create", "Again", "--id", "bd-named1"]);
    assert_eq!(code, 3, "an id that is taken");
    let head = repo.store_head();
    let v = repo.beads_json(&["create", "Maybe", "--dry-run"]);
    assert_eq!(v["title"], "Maybe");
    assert_eq!(repo.store_head(), head, "--dry-run writes nothing");
    let quick = repo.beads(&["--json", "q", "Quick one", "-t", "bug"]);
    let quick = quick.trim();
    assert!(quick.starts_with("bd-"), "q prints only the id: {quick}");

    // update: several ids, --append-notes, --set-labels, --parent, bd's fields.
    let parent = repo.create("Parent", &["-t", "epic"]);
    let v = repo.beads_json(&[
        "update",
        &id,
        quick,
        "--append-notes",
        "more",
        "--set-labels",
        "x,y",
        "--parent",
        &parent,
        "--design",
        "gRPC",
    ]);
    let updated = items(&v);
    assert_eq!(updated.len(), 2);
    assert_eq!(updated[0]["notes"], "N\nmore");
    assert_eq!(updated[1]["notes"], "more");
    for b in updated {
        assert_eq!(b["labels"], serde_json::json!(["x", "y"]));
        assert_eq!(b["parent"], parent.as_str());
        assert_eq!(b["design"], "gRPC");
    }
    let children = repo.beads_json(&["children", &parent]);
    assert_eq!(ids(&children).len(), 2);
    // The parent a child of its own child: refused as `dep add` refuses a cycle.
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["update", &parent, "--parent", quick]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("would close a cycle"), "{err}");
    assert_eq!(repo.store_head(), head);
    let v = repo.beads_json(&["update", &id, "--parent", ""]);
    assert!(items(&v)[0].get("parent").is_none(), "{v}");

    // close --reason-file, note, reopen --reason.
    let why = sb.path().join("why.txt");
    write_file(&why, "Shipped in 1.2\n");
    let v = repo.beads_json(&["close", &id, "--reason-file", why.to_str().expect("utf-8")]);
    assert_eq!(items(&v)[0]["close_reason"], "Shipped in 1.2");
    let v = repo.beads_json(&["reopen", &id, "--reason", "Regressed"]);
    let reopened = &items(&v)[0];
    assert_eq!(reopened["status"], "open");
    assert_eq!(reopened["comments"][0]["text"], "Reopened: Regressed");
    repo.beads(&["note", &id, "last words"]);

    // close --suggest-next names the next ready bead, --claim-next takes it.
    let next = repo.create("Next up", &["-p", "0"]);
    let out = repo.beads_output(&["close", quick, "--suggest-next"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("ready next: {next}")), "{said}");
    let out = repo.beads_output(&["close", &id, "--claim-next"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("claimed {next}")), "{said}");
    assert_eq!(repo.bead_json(&next)["status"], "in_progress");
    let current = repo.beads_json(&["show", "--current"]);
    assert_eq!(ids(&current), [next.as_str()], "what alice works on");
    assert_eq!(repo.bead_json(&id)["notes"], "N\nmore\nlast words");
}

#[test]
fn show_update_and_close_without_an_id_act_on_the_bead_last_touched_in_this_worktree() {
    let (sb, repo) = Sandbox::with_store();
    let one = |v: &Value| items(v)[0]["id"].as_str().expect("an id").to_owned();
    // Nothing touched yet: a usage error, and nothing changes.
    let head = repo.store_head();
    for args in [
        vec!["update", "-p", "0"],
        vec!["close"],
        vec!["show"],
        vec!["show", "--current"],
    ] {
        let (code, err) = repo.beads_fail(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("no bead id given"), "{err}");
    }
    assert_eq!(repo.store_head(), head);

    let a = repo.create("Alpha", &[]);
    let v = repo.beads_json(&["update", "-p", "0"]);
    assert_eq!((one(&v), &items(&v)[0]["priority"]), (a.clone(), &0.into()));
    let b = repo.create("Beta", &[]);
    assert_eq!(one(&repo.beads_json(&["show"])), b);
    repo.beads(&["show", &a]);
    let v = repo.beads_json(&["close", "-r", "done"]);
    assert_eq!(
        (one(&v), &items(&v)[0]["status"]),
        (a.clone(), &"closed".into())
    );
    repo.beads(&["comment", &b, "a word"]);
    assert_eq!(
        one(&repo.beads_json(&["show", "--current"])),
        b,
        "nothing in progress"
    );
    repo.beads(&["label", "add", &a, "x"]);
    assert_eq!(one(&repo.beads_json(&["show"])), a);
    let q = repo.beads(&["q", "Gamma"]).trim().to_owned();
    repo.beads(&["update", "--status", "in_progress"]);
    assert_eq!(repo.bead_json(&q)["status"], "in_progress");

    // Kept on this machine, per worktree, outside the store.
    let file = repo.path.join(".git/beads/last-touched.yaml");
    let kept = std::fs::read_to_string(&file).expect("the file");
    assert!(kept.contains(&q), "{kept}");
    assert!(!repo.store_paths().iter().any(|p| p.contains("touched")));
    // Rewritten (a new file renamed over it) only when it names another bead.
    let inode = || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&file).expect("file"));
    let before = inode();
    repo.beads(&["show", &q]);
    assert_eq!(
        inode(),
        before,
        "the same bead again: the file is left as it is"
    );
    repo.beads(&["show", &b]);
    assert_ne!(inode(), before, "another bead: the file is written");
    repo.beads(&["show", &q]);
    let linked = sb.path().join("linked");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        linked.to_str().expect("path"),
        "-b",
        "side",
    ]);
    let there = Repo::at(&sb, &linked, "alice");
    let (code, err) = there.beads_fail(&["show"]);
    assert_eq!(code, 2, "another worktree touched nothing yet: {err}");
    there.beads(&["show", &b]);
    assert_eq!(one(&there.beads_json(&["show"])), b);
    assert_eq!(one(&repo.beads_json(&["show"])), q, "each worktree its own");
}

/// A new bead reached by its id without `prefix` (and its `-`): shown, then updated;
/// its id and the id without the prefix.
fn by_short_id(repo: &Repo, prefix: &str) -> (String, String) {
    let a = repo.create("Alpha", &[]);
    let short = a.strip_prefix(prefix).expect("prefix").to_owned();
    assert_eq!(
        items(&repo.beads_json(&["show", &short]))[0]["id"],
        a.as_str()
    );
    repo.beads(&["update", &short, "-p", "0"]);
    (a, short)
}

#[test]
fn an_id_without_a_prefix_that_has_a_dash_of_its_own() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&["rename-prefix", "my-proj"]);
    by_short_id(&repo, "my-proj-");
}

#[test]
fn a_wisp_is_found_by_its_hash_or_the_start_of_its_id() {
    let (_sb, repo) = Sandbox::with_store();
    let wisp = repo.beads(&["create", "Scratch", "--ephemeral", "--silent"]);
    let wisp = wisp.trim();
    let hash = wisp.strip_prefix("bd-wisp-").expect("a wisp id");
    for given in [hash, &hash[..3], &wisp[..wisp.len() - 1]] {
        let shown = repo.beads_json(&["show", given]);
        assert_eq!(items(&shown)[0]["id"], wisp, "{given}");
    }
    repo.beads(&["update", hash, "--status", "in_progress"]);
    let shown = repo.beads_json(&["show", wisp]);
    assert_eq!(items(&shown)[0]["status"], "in_progress");
}

#[test]
fn ids_without_prefix_actor_and_the_small_commands() {
    let (_sb, repo) = Sandbox::with_store();
    let (a, _) = by_short_id(&repo, "bd-");
    let (code, err) = repo.beads_fail(&["show", "zzzzzz"]);
    assert_eq!(code, 1, "{err}");
    let (code, err) = repo.beads_fail(&["show", "Not An Id"]);
    assert_eq!(code, 2, "{err}");

    // --actor: recorded under that name.
    let v = repo.beads_json(&["--actor", "reviewer", "update", &a, "--claim"]);
    assert_eq!(items(&v)[0]["assignee"], "reviewer");
    assert_eq!(items(&v)[0]["updated_by"], "reviewer");

    // show --short, stats, info, where, types, statuses.
    let line = repo.beads(&["show", &a, "--short"]);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("Alpha"), "{line}");
    let b = repo.create("Beta", &["--deps", &a]);
    let epic = repo.create("Epic", &["-t", "epic"]);
    let child = repo.create("Child", &["--parent", &epic]);
    let s = repo.beads_json(&["stats"])["summary"].clone();
    assert_eq!(s["total_issues"], 4);
    assert_eq!(s["in_progress_issues"], 1);
    assert_eq!(s["blocked_issues"], 1, "{s}");
    assert_eq!(s["ready_issues"], 1, "the child; the epic is no work: {s}");
    assert_eq!(repo.beads_json(&["status"])["summary"], s);
    // A status of the project's own is counted under its name.
    repo.beads(&["config", "set", "status.custom", "review"]);
    repo.beads(&["update", &child, "--status", "review"]);
    let custom = repo.beads_json(&["stats"])["summary"].clone();
    assert_eq!(
        custom["custom_status_issues"],
        serde_json::json!({"review": 1})
    );
    assert_eq!(custom["total_issues"], 4);
    assert!(repo.beads(&["stats"]).contains("review"));
    repo.beads(&["update", &child, "--status", "open"]);
    let info = repo.beads_json(&["info"]);
    assert_eq!(info["prefix"], "bd");
    assert_eq!(info["issue_count"], 4);
    let place = repo.beads(&["where"]);
    assert!(place.trim().ends_with(".git"), "{place}");
    let types = repo.beads_json(&["types"]);
    assert!(
        items(&types["core_types"])
            .iter()
            .any(|t| t["name"] == "epic")
    );
    let statuses = repo.beads_json(&["statuses"]);
    assert!(
        items(&statuses["built_in_statuses"])
            .iter()
            .any(|t| t["name"] == "in_progress")
    );

    // epic status and close-eligible.
    let v = repo.beads_json(&["epic", "status"]);
    assert_eq!(items(&v)[0]["epic"]["id"], epic.as_str());
    assert_eq!(items(&v)[0]["total_children"], 1);
    assert_eq!(items(&v)[0]["eligible_for_close"], false);
    repo.beads(&["close", &child]);
    let v = repo.beads_json(&["epic", "close-eligible", "--dry-run"]);
    assert_eq!(v["closed"], serde_json::json!([epic]));
    assert_eq!(repo.bead_json(&epic)["status"], "open", "a dry run");
    repo.beads(&["epic", "close-eligible"]);
    assert_eq!(repo.bead_json(&epic)["status"], "closed");

    // dep list, dep cycles (none can be made here).
    let deps = repo.beads_json(&["dep", "list", &b]);
    assert_eq!(items(&deps)[0]["id"], a.as_str());
    assert_eq!(items(&deps)[0]["dependency_type"], "blocks");
    assert_eq!(repo.beads_json(&["dep", "cycles"]), serde_json::json!([]));

    // defer --until, undefer.
    let v = repo.beads_json(&["defer", &b, "--until", "2030-01-02"]);
    assert_eq!(items(&v)[0]["status"], "deferred");
    assert_eq!(items(&v)[0]["defer_until"], "2030-01-02T00:00:00Z");
    let v = repo.beads_json(&["undefer", &b]);
    assert_eq!(items(&v)[0]["status"], "open");
    assert!(items(&v)[0].get("defer_until").is_none(), "{v}");
}

#[test]
fn bds_newer_types_are_there() {
    let (_sb, repo) = Sandbox::with_store();
    for (word, kind) in [
        ("adr", "decision"),
        ("decision", "decision"),
        ("spike", "spike"),
        ("story", "story"),
        ("milestone", "milestone"),
    ] {
        let v = repo.beads_json(&["create", word, "-t", word]);
        assert_eq!(v["issue_type"], kind);
    }
    assert_eq!(repo.beads_json(&["count", "-t", "dec"])["count"], 2);
}

#[test]
fn config_is_kept_in_the_store_and_syncs_key_by_key() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");

    c1.beads(&["config", "set", "types.custom", "gate,review"]);
    assert_eq!(
        c1.beads(&["config", "get", "types.custom"]),
        "gate,review\n"
    );
    let (got, _) = json_env(&c1, &[], &["config", "get", "types.custom"]);
    assert_eq!(got["key"], "types.custom");
    assert_eq!(got["value"], "gate,review");
    let (unset, _) = json_env(&c1, &[], &["config", "get", "nothing.here"]);
    assert_eq!(unset["value"], Value::Null, "{unset}");
    // Setting the value it has makes no commit.
    let head = c1.store_head();
    c1.beads(&["config", "set", "types.custom", "gate,review"]);
    assert_eq!(c1.store_head(), head);

    // Each clone sets its own key; after syncing both have both.
    c2.beads(&["config", "set", "status.custom", "review"]);
    c1.sync();
    c2.sync();
    c1.sync();
    for clone in [&c1, &c2] {
        let (all, _) = json_env(clone, &[], &["config", "list"]);
        assert_eq!(all["types.custom"], "gate,review", "{all}");
        assert_eq!(all["status.custom"], "review", "{all}");
    }
    let (doctor, _) = json_env(&c1, &[], &["doctor"]);
    assert_eq!(doctor["findings"], serde_json::json!([]), "{doctor}");

    c2.beads(&["config", "unset", "types.custom"]);
    c2.sync();
    c1.sync();
    assert_eq!(c1.beads(&["config", "list"]), "status.custom = review\n");

    // A machine's own setting stays in git config, and the store is untouched.
    let head = c1.store_head();
    let (code, err) = c1.beads_fail(&["config", "set", "beads.claimRemote", "origin"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("git config beads.claimRemote"), "{err}");
    assert_eq!(c1.store_head(), head);
    // A value of several lines is told back on one line, escaped.
    let out = c1.beads_output(&["config", "set", "note", "one\ntwo"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "set note = one\\ntwo\n"
    );
}

#[test]
fn json_errors_carry_bds_code_for_what_is_not_there_and_git_beads_kinds_for_the_rest() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Taken", &[]);
    repo.beads(&["update", &id, "--claim"]);
    let code = |args: &[&str], exit: i32| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = repo.beads_output(&all);
        assert_eq!(out.status.code(), Some(exit), "{args:?}");
        let e: Value = serde_json::from_slice(&out.stderr).expect("a JSON error");
        e["code"].as_str().expect("code").to_owned()
    };
    assert_eq!(code(&["show", "bd-zzzzz"], 1), "not_found");
    assert_eq!(code(&["agent", "show", "nobody"], 1), "not_found");
    assert_eq!(code(&["sync", "nowhere"], 1), "not_found");
    assert_eq!(code(&["create", " "], 1), "user");
    assert_eq!(
        code(&["--actor", "bob", "update", &id, "--claim"], 3),
        "conflict"
    );
}

#[test]
fn custom_types_and_statuses_are_the_projects_own_words_as_bd_has_them() {
    let sb = Sandbox::new();
    let (remote, repo) = sb.remote_with_store("c1");

    // Before the project names them, the words are refused and nothing changes.
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["create", "Widget", "-t", "gizmo"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("types.custom"), "{err}");
    let (code, err) = repo.beads_fail(&["config", "set", "status.custom", "open,qa"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("open is a built-in status"), "{err}");
    let (_, err) = repo.beads_fail(&["config", "set", "status.custom", "qa:later"]);
    assert!(err.contains("not a category"), "{err}");
    assert_eq!(repo.store_head(), head);

    repo.beads(&["config", "set", "types.custom", r#"["gizmo"]"#]);
    repo.beads(&[
        "config",
        "set",
        "status.custom",
        "in_review:active,qa:wip,archived:done,legacy",
    ]);
    let types = repo.beads_json(&["types"]);
    assert_eq!(types["custom_types"], serde_json::json!(["gizmo"]));
    let statuses = repo.beads_json(&["statuses"]);
    let custom = items(&statuses["custom_statuses"]);
    assert_eq!(custom[0]["name"], "in_review");
    assert_eq!(custom[0]["category"], "active");
    assert_eq!(custom[3]["category"], "unspecified");
    assert!(repo.beads(&["statuses"]).contains("archived"));

    // Created, changed, listed and filtered; the index keeps them beside the
    // assignee and labels.
    let widget = repo.create("Widget", &["-t", "gizmo", "-a", "ann", "-l", "x,y"]);
    let review = repo.create("Review me", &[]);
    let qa = repo.create("In QA", &[]);
    let old = repo.create("Old", &[]);
    repo.beads(&["update", &review, "--status", "in_review"]);
    repo.beads(&["update", &qa, &old, "--status", "qa"]);
    repo.beads(&["update", &old, "--status", "archived"]);
    let gizmos = repo.beads_json(&["list", "-t", "gizmo"]);
    let w = &items(&gizmos)[0];
    assert_eq!(
        (&w["id"], &w["issue_type"], &w["assignee"], &w["labels"]),
        (
            &Value::from(widget.as_str()),
            &Value::from("gizmo"),
            &Value::from("ann"),
            &serde_json::json!(["x", "y"])
        )
    );
    let mut ready = ids(&repo.beads_json(&["ready"]))
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    ready.sort();
    let mut want = vec![widget.clone(), review.clone()];
    want.sort();
    assert_eq!(ready, want, "an active status is work to take; wip is not");
    let listed = ids(&repo.beads_json(&["list"]))
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    assert!(listed.contains(&qa) && !listed.contains(&old), "{listed:?}");
    assert_eq!(
        ids(&repo.beads_json(&["list", "--status", "archived"])),
        [old.as_str()]
    );
    assert_eq!(repo.beads_json(&["count", "-t", "gizmo"])["count"], 1);
    let (code, err) = repo.beads_fail(&["list", "--status", "nowhere"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("status.custom"), "{err}");
    let (_, err) = repo.beads_fail(&["update", &qa, "--status", "legacyy"]);
    assert!(err.contains("not a status of this project"), "{err}");

    // Through export and import into a fresh store, and through sync.
    let jsonl = repo.beads(&["export"]);
    let file = sb.path().join("issues.jsonl");
    write_file(&file, &jsonl);
    let fresh = sb.repo_with_store("fresh", "carol");
    fresh.beads(&["import", file.to_str().expect("utf-8")]);
    assert_eq!(fresh.beads(&["export"]), jsonl, "export → import → export");
    repo.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    assert_eq!(c2.bead_json(&review)["status"], "in_review");
    assert_eq!(
        ids(&c2.beads_json(&["list", "-t", "gizmo"])),
        [widget.as_str()]
    );
    assert_eq!(c2.beads_json(&["ready"]).as_array().map(Vec::len), Some(2));
}

#[test]
fn create_and_update_take_bds_due_defer_estimate_and_metadata() {
    let (_sb, repo) = Sandbox::with_store();
    let (made, _) = json_env(
        &repo,
        &[],
        &[
            "create",
            "Planned",
            "--due",
            "2027-01-15",
            "--defer",
            "2027-01-01T09:30:00Z",
            "--estimate",
            "90",
        ],
    );
    let id = made["id"].as_str().expect("id").to_owned();
    assert_eq!(made["status"], "deferred", "{made}");
    assert_eq!(made["due_at"], "2027-01-15T00:00:00Z", "{made}");
    assert_eq!(made["defer_until"], "2027-01-01T09:30:00Z", "{made}");
    assert_eq!(made["estimated_minutes"], 90, "{made}");
    let (ready, _) = json_env(&repo, &[], &["ready"]);
    assert!(!ids(&ready).contains(&id.as_str()), "{ready}");

    // An empty --due removes it; the estimate is a number, in the export too.
    repo.beads(&["update", &id, "--due", "", "--estimate", "30", "-s", "open"]);
    let (shown, _) = json_env(&repo, &[], &["show", &id]);
    let bead = &items(&shown)[0];
    assert_eq!(bead["due_at"], Value::Null, "{bead}");
    assert_eq!(bead["estimated_minutes"], 30, "{bead}");
    assert_eq!(bead["status"], "open", "{bead}");
    let export = repo.beads(&["export"]);
    let record: Value =
        serde_json::from_str(export.lines().next().expect("a record")).expect("a JSON record");
    assert_eq!(record["estimated_minutes"], 30, "{record}");

    // --defer on update puts it off again.
    repo.beads(&["update", &id, "--defer", "2027-02-01"]);
    let (shown, _) = json_env(&repo, &[], &["show", &id]);
    assert_eq!(items(&shown)[0]["status"], "deferred", "{shown}");
    assert_eq!(items(&shown)[0]["defer_until"], "2027-02-01T00:00:00Z");

    let (code, err) = repo.beads_fail(&["create", "Bad", "--due", "someday"]);
    assert_eq!(code, 2, "{err}");
    // A negative estimate is refused as one, not taken for an unknown flag.
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["update", &id, "--estimate", "-5"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("estimate must be a non-negative number"),
        "{err}"
    );
    assert_eq!(repo.store_head(), head);

    // bd's --metadata: a JSON object in place of the one there, "" removes it.
    repo.beads(&["update", &id, "--metadata", r#"{"team":"ui","points":3}"#]);
    let (shown, _) = json_env(&repo, &[], &["show", &id]);
    assert_eq!(
        items(&shown)[0]["metadata"],
        serde_json::json!({"team": "ui", "points": 3})
    );
    let (code, err) = repo.beads_fail(&["update", &id, "--metadata", "[1]"]);
    assert_eq!(code, 2, "{err}");
    repo.beads(&["update", &id, "--metadata", ""]);
    let (shown, _) = json_env(&repo, &[], &["show", &id]);
    assert_eq!(items(&shown)[0]["metadata"], Value::Null, "{shown}");
}

#[test]
fn duplicate_supersede_and_dep_relate_link_as_bd_does() {
    let (_sb, repo) = Sandbox::with_store();
    let canonical = repo.create("Login fails", &[]);
    let dup = repo.create("Cannot log in", &[]);
    let old = repo.create("Old plan", &[]);
    let new = repo.create("New plan", &[]);

    let (closed, _) = json_env(&repo, &[], &["duplicate", &dup, "--of", &canonical]);
    let bead = &items(&closed)[0];
    assert_eq!(bead["status"], "closed", "{bead}");
    assert_eq!(bead["close_reason"], format!("duplicate of {canonical}"));
    let head = repo.store_head();
    repo.beads(&["duplicate", &dup, "--of", &canonical]);
    assert_eq!(repo.store_head(), head, "marking it again changes nothing");

    // bd's direction: the old bead carries `supersedes` on its replacement.
    repo.beads(&["supersede", &old, "--with", &new]);
    let (shown, _) = json_env(&repo, &[], &["show", &dup, &old]);
    let links: Vec<(Value, Value)> = items(&shown)
        .iter()
        .map(|b| {
            let d = &b["dependencies"][0];
            (d["id"].clone(), d["dependency_type"].clone())
        })
        .collect();
    assert_eq!(
        links,
        [
            (Value::from(canonical.as_str()), Value::from("duplicates")),
            (Value::from(new.as_str()), Value::from("supersedes")),
        ]
    );
    assert_eq!(items(&shown)[1]["status"], "closed");

    // dep relate links both ways, in one commit.
    let before = repo.commit_count("refs/beads/main");
    repo.beads(&["dep", "relate", &canonical, &new]);
    assert_eq!(repo.commit_count("refs/beads/main"), before + 1);
    let (shown, _) = json_env(&repo, &[], &["show", &canonical, &new]);
    for (bead, other) in items(&shown).iter().zip([&new, &canonical]) {
        assert!(
            bead["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .any(|d| d["id"] == other.as_str() && d["dependency_type"] == "related"),
            "{bead}"
        );
    }

    let (code, err) = repo.beads_fail(&["supersede", &new, "--with", &new]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn external_dependencies_block_show_and_travel() {
    let sb = Sandbox::new();
    let (remote, repo) = sb.remote_with_store("c1");
    let a = repo.create("Needs the other project", &[]);
    let free = repo.create("Free", &[]);
    let ext = "external:upstream:mol-run";

    // Refused with a clear word when the reference is not bd's shape.
    let (code, err) = repo.beads_fail(&["dep", "add", &a, "external:upstream"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("external:<project>:<id>"), "{err}");

    repo.beads(&["dep", "add", &a, ext]);
    let head = repo.store_head();
    repo.beads(&["dep", "add", &a, ext]);
    assert_eq!(repo.store_head(), head, "adding it again changes nothing");

    // Shown in bd's shapes: records on the bead, linked in show.
    let shown = repo.beads_json(&["show", &a]);
    let bead = &items(&shown)[0];
    assert_eq!(
        bead["dependencies"],
        serde_json::json!([{"id": ext, "dependency_type": "blocks"}])
    );
    assert_eq!(bead["dependency_count"], 1);
    let listed = repo.beads_json(&["list"]);
    let record = items(&listed)
        .iter()
        .find(|x| x["id"] == a.as_str())
        .expect("listed");
    assert_eq!(
        record["dependencies"],
        serde_json::json!([{"issue_id": a, "depends_on_id": ext, "type": "blocks"}])
    );
    let human = repo.beads(&["show", &a]);
    assert!(
        human.contains(&format!("depends on {ext} (blocks)")),
        "{human}"
    );

    // An unresolved blocker: not ready, listed by blocked (and counted by stats).
    assert_eq!(ids(&repo.beads_json(&["ready"])), [free.as_str()]);
    let blocked = repo.beads_json(&["blocked"]);
    assert_eq!(ids(&blocked), [a.as_str()]);
    assert_eq!(items(&blocked)[0]["blocked_by"], serde_json::json!([ext]));
    assert_eq!(repo.beads_json(&["stats"])["summary"]["blocked_issues"], 1);

    // Through export and import into a fresh store.
    let jsonl = repo.beads(&["export"]);
    assert!(
        jsonl.contains(&format!(r#""depends_on_id":"{ext}""#)),
        "{jsonl}"
    );
    let file = sb.path().join("issues.jsonl");
    write_file(&file, &jsonl);
    let fresh = sb.repo_with_store("fresh", "carol");
    fresh.beads(&["import", file.to_str().expect("utf-8")]);
    assert_eq!(ids(&fresh.beads_json(&["blocked"])), [a.as_str()]);
    assert_eq!(fresh.beads(&["export"]), jsonl, "export → import → export");

    // Through sync: a second clone sees it, and its removal travels back.
    repo.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    assert_eq!(ids(&c2.beads_json(&["blocked"])), [a.as_str()]);
    c2.beads(&["dep", "remove", &a, ext]);
    c2.sync();
    repo.sync();
    let ready = repo.beads_json(&["ready"]);
    assert!(ids(&ready).contains(&a.as_str()), "{ready}");
    assert_eq!(repo.beads_json(&["show", &a])[0]["dependency_count"], 0);
}

/// The commands a guide names (`git beads WORD [WORD]`), each as it runs with `--help`.
fn named_commands(text: &str) -> Vec<Vec<String>> {
    text.split("git beads ")
        .skip(1)
        .filter_map(|rest| {
            let words: Vec<String> = rest
                .split(' ')
                .take(2)
                .take_while(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()))
                .map(str::to_owned)
                .collect();
            (!words.is_empty()).then_some(words)
        })
        .collect()
}

#[test]
fn onboard_and_quickstart_name_only_commands_that_exist() {
    let (_sb, repo) = Sandbox::with_store();
    for guide in ["onboard", "quickstart"] {
        let text = repo.beads(&[guide]);
        for needed in ["ready", "update ID --claim", "close ID", "sync", "prime"] {
            assert!(text.contains(needed), "{guide} names {needed}: {text}");
        }
        let v = repo.beads_json(&[guide]);
        assert_eq!(v["guide"], guide);
        assert_eq!(v["text"].as_str().map(str::trim_end), Some(text.trim_end()));
        let named = named_commands(&text);
        assert!(named.len() >= 8, "{guide}: {named:?}");
        for words in named {
            let runs = |w: &[String]| {
                let mut args: Vec<&str> = w.iter().map(String::as_str).collect();
                args.push("--help");
                repo.beads_output(&args).status.success()
            };
            assert!(
                runs(&words) || runs(&words[..1]),
                "{guide} names `git beads {}`, which is no command",
                words.join(" ")
            );
        }
    }
}

#[test]
fn rename_moves_a_bead_and_every_link_to_it() {
    let (_sb, repo) = Sandbox::with_store();
    let epic = repo.create("Epic", &["-t", "epic"]);
    let child = repo.create("Child", &["--parent", &epic]);
    let waits = repo.create("Waits", &["--deps", &epic]);
    let other = repo.create("Other", &[]);

    let before = repo.commit_count("refs/beads/main");
    let v = repo.beads_json(&["rename", &epic, "bd-roadmap"]);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        before + 1,
        "one commit"
    );
    assert_eq!(v["old_id"], epic.as_str());
    assert_eq!(v["new_id"], "bd-roadmap");
    let mut relinked = vec![child.clone(), waits.clone()];
    relinked.sort();
    assert_eq!(v["relinked"], serde_json::json!(relinked));

    let shown = repo.beads_json(&["show", "bd-roadmap"]);
    assert_eq!(items(&shown)[0]["title"], "Epic");
    let shown = repo.beads_json(&["show", &child, &waits]);
    assert_eq!(items(&shown)[0]["parent"], "bd-roadmap");
    assert_eq!(items(&shown)[1]["dependencies"][0]["id"], "bd-roadmap");
    // The old id still answers: a tombstone saying where the bead went.
    let old = repo.beads_json(&["show", &epic]);
    assert_eq!(items(&old)[0]["status"], "deleted");
    assert_eq!(
        items(&old)[0]["delete_reason"],
        "renamed to bd-roadmap",
        "{old}"
    );
    assert_eq!(ids(&repo.beads_json(&["blocked"])), [waits.as_str()]);
    let jsonl = repo.beads(&["export"]);
    assert!(jsonl.contains(r#""depends_on_id":"bd-roadmap""#), "{jsonl}");

    // Refused, changing nothing: a taken id, a tombstone's id, a malformed id.
    let head = repo.store_head();
    for (args, code) in [
        (["rename", other.as_str(), "bd-roadmap"], 3),
        (["rename", other.as_str(), epic.as_str()], 3),
        (["rename", other.as_str(), "Bad Id"], 2),
        (["rename", epic.as_str(), "bd-again"], 3),
    ] {
        let (got, err) = repo.beads_fail(&args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
    assert_eq!(repo.store_head(), head);
}

#[test]
fn rename_takes_agents_hooks_mail_and_molecules_along_in_the_same_commit() {
    let (_sb, repo) = Sandbox::with_store();
    let work = repo.create("Work", &[]);
    let kept = repo.create("Kept", &[]);
    repo.beads(&["agent", "create", "rig/nux"]);
    repo.beads(&["agent", "create", "rig/max"]);
    repo.beads(&["sling", &work, "rig/nux"]);
    repo.beads(&["sling", &kept, "rig/max"]);
    let subject = format!("About {work}");
    let body = format!("{work} is red. {work}.1 and x{work} are not it.");
    let sent = repo.beads(&["mail", "send", "rig/nux", "-s", &subject, "-m", &body]);
    let sent = sent.trim();
    let untouched = repo.beads(&["mail", "send", "rig/max", "-s", "Lunch"]);
    write_file(
        &repo.path.join(".beads/formulas/fix.yaml"),
        "name: fix\nvariables:\n  issue:\n    required: true\nsteps:\n  - id: a\n    title: Fix {{issue}}\n",
    );
    let poured = repo.beads_json(&["mol", "pour", "fix", "--var", &format!("issue={work}")]);
    let mol = poured["molecule"]["id"]
        .as_str()
        .expect("molecule")
        .to_owned();

    let before = repo.commit_count("refs/beads/main");
    let v = repo.beads_json(&["rename", &work, "bd-moved"]);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        before + 1,
        "one commit"
    );
    assert_eq!(v["agents"], serde_json::json!(["rig/nux"]));
    assert_eq!(v["messages"], serde_json::json!([sent]));
    assert_eq!(v["relinked"], serde_json::json!([mol]));
    assert_eq!(
        repo.beads_json(&["agent", "show", "rig/nux"])["hook"],
        serde_json::json!(["bd-moved"])
    );
    assert_eq!(
        repo.beads_json(&["agent", "show", "rig/max"])["hook"],
        serde_json::json!([kept])
    );
    let read = repo.beads_json(&["mail", "peek", sent]);
    assert_eq!(read["subject"], "About bd-moved");
    assert_eq!(
        read["body"],
        format!("bd-moved is red. {work}.1 and x{work} are not it.")
    );
    let lunch = repo.beads_json(&["mail", "peek", untouched.trim()]);
    assert_eq!(lunch["subject"], "Lunch");
    let shown = repo.beads_json(&["show", &mol]);
    assert_eq!(
        items(&shown)[0]["extra"]["variables"]["issue"],
        "bd-moved",
        "{shown}"
    );

    // rename-prefix takes them along too.
    let v = repo.beads_json(&["rename-prefix", "kw"]);
    let mut agents = v["agents"].as_array().expect("agents").clone();
    agents.sort_by_key(|a| a.to_string());
    assert_eq!(
        agents,
        [serde_json::json!("rig/max"), serde_json::json!("rig/nux")]
    );
    assert_eq!(
        repo.beads_json(&["agent", "show", "rig/nux"])["hook"],
        serde_json::json!(["kw-moved"])
    );
    assert_eq!(
        repo.beads_json(&["mail", "peek", sent])["subject"],
        "About kw-moved"
    );
}

#[test]
fn rename_takes_sessions_notes_and_this_machines_wisps_along() {
    let (_sb, repo) = Sandbox::with_store();
    let work = repo.create("Work", &[]);
    repo.beads(&["agent", "create", "rig/nux"]);
    repo.beads(&["sling", &work, "rig/nux"]);
    repo.beads(&["agent", "bind", "rig/nux"]);
    let crashed = repo.beads_json(&["session", "start"])["session"]["id"]
        .as_str()
        .expect("session")
        .to_owned();
    // The first session dies; the next one notes where it stood, then hands off.
    let handed = repo.beads_json(&["session", "start"])["session"]["id"]
        .as_str()
        .expect("session")
        .to_owned();
    repo.beads(&[
        "handoff",
        "-m",
        &format!("{work} half done; {work}.1 is not it"),
    ]);
    let step = repo.beads_json(&["session", "show", &crashed])["crash"]["step"]
        .as_str()
        .expect("a crash note")
        .to_owned();
    assert!(step.contains(&work), "{step}");
    write_file(
        &repo.path.join(".beads/formulas/fix.yaml"),
        "name: fix\nvariables:\n  issue:\n    required: true\nsteps:\n  - id: a\n    title: Fix {{issue}}\n",
    );
    let wisp = repo
        .beads(&["mol", "wisp", "fix", "--var", &format!("issue={work}")])
        .trim()
        .to_owned();

    let (main, wisps) = (
        repo.commit_count("refs/beads/main"),
        repo.commit_count("refs/beads/local/wisps"),
    );
    let v = repo.beads_json(&["rename", &work, "bd-moved"]);
    assert_eq!(repo.commit_count("refs/beads/main"), main + 1, "one commit");
    assert_eq!(
        repo.commit_count("refs/beads/local/wisps"),
        wisps + 1,
        "and one of the wisp ref, which sync never pushes"
    );
    let mut sessions = vec![crashed.clone(), handed.clone()];
    sessions.sort();
    assert_eq!(v["sessions"], serde_json::json!(sessions), "{v}");
    assert_eq!(v["wisps"], serde_json::json!([wisp]), "{v}");
    let moved_step = repo.beads_json(&["session", "show", &crashed])["crash"]["step"]
        .as_str()
        .expect("a crash note")
        .to_owned();
    assert_eq!(moved_step, step.replace(&work, "bd-moved"));
    assert_eq!(
        repo.beads_json(&["session", "show", &handed])["handoff"],
        format!("bd-moved half done; {work}.1 is not it")
    );
    let files = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/local/wisps"]);
    let file = files
        .lines()
        .find(|f| f.ends_with(&format!("/{wisp}.yaml")))
        .expect("the wisp's document");
    let doc = repo.git(&["show", &format!("refs/beads/local/wisps:{file}")]);
    assert!(
        doc.contains("issue: bd-moved") && !doc.contains(&work),
        "{doc}"
    );

    // A rename nothing else names leaves the sessions and the wisp ref alone.
    let other = repo.create("Other", &[]);
    let wisps = repo.commit_count("refs/beads/local/wisps");
    let v = repo.beads_json(&["rename", &other, "bd-other"]);
    assert_eq!(v["sessions"], serde_json::json!([]));
    assert_eq!(v["wisps"], serde_json::json!([]));
    assert_eq!(repo.commit_count("refs/beads/local/wisps"), wisps);
}

#[test]
fn lint_reports_what_each_types_template_expects() {
    let (_sb, repo) = Sandbox::with_store();
    let bug = repo.create(
        "Crash",
        &["-t", "bug", "-d", "## Steps to Reproduce\n1. run it"],
    );
    let task = repo.create("Tidy", &[]);
    let done = repo.create("Done right", &["--acceptance", "the tests pass"]);
    let chore = repo.create("Sweep", &["-t", "chore"]);
    let closed = repo.create("Old", &[]);
    repo.beads(&["close", &closed]);

    let out = repo.beads_output(&["--json", "lint"]);
    assert_eq!(out.status.code(), Some(1), "problems exit non-zero");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    assert_eq!(v["checked"], 3, "{v}: open beads whose type has a template");
    assert_eq!(v["issues"], 2, "{v}");
    let mut found: Vec<(String, Value)> = items(&v["results"])
        .iter()
        .map(|r| {
            (
                r["id"].as_str().expect("id").to_owned(),
                r["missing"].clone(),
            )
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want = vec![
        (bug.clone(), serde_json::json!(["Acceptance Criteria"])),
        (task.clone(), serde_json::json!(["Acceptance Criteria"])),
    ];
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(found, want);
    assert!(items(&v["results"])[0]["issue_type"].is_string(), "{v}");

    let (code, text, err) = repo.beads_fail_with_stdout(&["lint"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        text.contains(&format!("{bug} [bug] Crash: missing Acceptance Criteria")),
        "{text}"
    );
    assert!(err.contains("2 beads lack"), "{err}");

    // Fixed, or never lacking: exit 0.
    repo.beads(&["update", &bug, "--acceptance", "no crash"]);
    repo.beads(&["lint", &bug, &done, &chore]);
    let v = repo.beads_json(&["lint", &done]);
    assert_eq!(
        (v["checked"].clone(), v["issues"].clone()),
        (1.into(), 0.into())
    );
}

#[test]
fn edit_opens_the_editor_on_one_field_and_writes_one_commit() {
    let (sb, repo) = Sandbox::with_store();
    let id = repo.create("Crash", &["-t", "bug", "-d", "It crashes."]);
    // The editor: keeps what it was shown, then writes $EDIT_WITH's text (if set).
    let editor = sb.path().join("editor.sh");
    common::write_script(
        &editor,
        "#!/bin/sh\ncp \"$1\" \"$EDIT_SEEN\"\n[ -n \"$EDIT_WITH\" ] && cat \"$EDIT_WITH\" > \"$1\"\nexit 0\n",
    );
    let seen = sb.path().join("seen.txt");
    let with = sb.path().join("with.txt");
    let (editor, seen_s, with_s) = (
        editor.to_str().expect("utf-8"),
        seen.to_str().expect("utf-8"),
        with.to_str().expect("utf-8"),
    );
    let run = |args: &[&str], new: Option<&str>| {
        let mut env = vec![("EDITOR", editor), ("EDIT_SEEN", seen_s)];
        if let Some(text) = new {
            write_file(&with, text);
            env.push(("EDIT_WITH", with_s));
        }
        repo.beads_output_env(&env, args)
    };

    let before = repo.commit_count("refs/beads/main");
    let out = run(
        &["edit", &id],
        Some("It crashes on start.\n\nSteps: run it.\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&seen).expect("seen"), "It crashes.");
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        before + 1,
        "one commit"
    );
    let shown = repo.beads_json(&["show", &id]);
    assert_eq!(
        items(&shown)[0]["description"],
        "It crashes on start.\n\nSteps: run it."
    );

    // Saved as it was (or with only a trailing newline more): nothing written.
    let head = repo.store_head();
    let out = run(&["edit", &id], None);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unchanged"));
    let out = run(
        &["edit", &id, "--description"],
        Some("It crashes on start.\n\nSteps: run it.\n\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.store_head(), head, "no commit when unchanged");

    // Other fields: the title, the acceptance criteria (bd's field in extra).
    let out = run(&["edit", &id, "--title"], Some("Crash on start\n"));
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&seen).expect("seen"), "Crash");
    let out = run(&["--json", "edit", &id, "--acceptance"], Some("- starts\n"));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["title"], "Crash on start");
    assert_eq!(v["acceptance_criteria"], "- starts");

    // A failing editor, a title the store refuses, two fields at once: nothing changes.
    let head = repo.store_head();
    let out = repo.beads_output_env(&[("EDITOR", "false")], &["edit", &id]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["edit", &id, "--title"], Some("two\nlines\n"));
    assert_ne!(out.status.code(), Some(0));
    let out = run(&["edit", &id, "--title", "--notes"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(repo.store_head(), head);

    // The field changed by another command while the editor was open: that change
    // stays, and what was saved is kept for the next edit, which starts from it.
    let meanwhile = sb.path().join("meanwhile.sh");
    common::write_script(
        &meanwhile,
        &format!(
            "#!/bin/sh\n'{}' update {id} --notes 'changed meanwhile' -q\nprintf 'typed\\n' > \"$1\"\n",
            common::bin().display()
        ),
    );
    let out = repo.beads_output_env(
        &[("EDITOR", meanwhile.to_str().expect("utf-8"))],
        &["edit", &id, "--notes"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("changed while it was being edited"), "{err}");
    assert_eq!(
        items(&repo.beads_json(&["show", &id]))[0]["notes"],
        "changed meanwhile"
    );
    let out = run(&["edit", &id, "--notes"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&seen).expect("seen"), "typed\n");
    assert_eq!(items(&repo.beads_json(&["show", &id]))[0]["notes"], "typed");
}

#[test]
fn rename_prefix_moves_every_bead_of_the_prefix_and_refuses_bad_ones() {
    let (_sb, repo) = Sandbox::with_store();
    let epic = repo.create("Epic", &["-t", "epic"]);
    let child = repo.create("Child", &["--parent", &epic]);
    let waits = repo.create("Waits", &["--deps", &child]);
    let rest = |id: &str| id.strip_prefix("bd-").expect("bd- id").to_owned();

    // Hostile or invalid prefixes: one line, exit 2, nothing written.
    let head = repo.store_head();
    for bad in [
        "",
        "../x",
        "a b",
        "\x1b[31mred",
        "Bad",
        "a--b",
        "seventeen-letters",
        "-",
    ] {
        let (code, err) = repo.beads_fail(&["rename-prefix", bad]);
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{bad:?}: {err}");
        assert!(
            !err.contains('\x1b'),
            "{bad:?}: the escape is shown, not sent: {err}"
        );
    }
    assert_eq!(repo.store_head(), head);
    let v = repo.beads_json(&["rename-prefix", "bd"]);
    assert_eq!(v["renamed"], 0);
    assert_eq!(repo.store_head(), head, "the same prefix changes nothing");

    let before = repo.commit_count("refs/beads/main");
    let v = repo.beads_json(&["rename-prefix", "kw-"]);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        before + 1,
        "one commit"
    );
    assert_eq!(
        (v["old_prefix"].clone(), v["new_prefix"].clone()),
        ("bd".into(), "kw".into())
    );
    assert_eq!(v["renamed"], 3);

    let (epic2, child2, waits2) = (
        format!("kw-{}", rest(&epic)),
        format!("kw-{}", rest(&child)),
        format!("kw-{}", rest(&waits)),
    );
    let shown = repo.beads_json(&["show", &child2, &waits2]);
    assert_eq!(items(&shown)[0]["parent"], epic2.as_str());
    assert_eq!(items(&shown)[1]["dependencies"][0]["id"], child2.as_str());
    assert_eq!(ids(&repo.beads_json(&["blocked"])), [waits2.as_str()]);
    assert_eq!(repo.beads_json(&["info"])["prefix"], "kw");
    assert!(repo.create("New", &[]).starts_with("kw-"));
    let old = repo.beads_json(&["show", &epic]);
    assert_eq!(
        items(&old)[0]["delete_reason"],
        format!("renamed to {epic2}")
    );
}

#[test]
fn a_rename_travels_by_sync_and_an_edit_of_the_old_id_meanwhile_is_not_lost() {
    let sb = Sandbox::new();
    let (c1, c2, old) = sb.two_clones_sharing("Shared", &[]);
    let waits = c1.create("Waits", &["--deps", &old]);
    c1.sync();
    c2.sync();
    c1.beads(&["rename", &old, "bd-renamed1"]);
    // Meanwhile the other clone, not knowing, comments on the old id.
    c2.beads(&["comment", &old, "seen on c2"]);
    c1.sync();
    c2.sync();
    c1.sync();
    for c in [&c1, &c2] {
        let shown = c.beads_json(&["show", "bd-renamed1", &waits, &old]);
        let [new, waiting, tomb] = &items(&shown)[..] else {
            panic!("three beads: {shown}");
        };
        assert_eq!(new["title"], "Shared");
        assert_eq!(waiting["dependencies"][0]["id"], "bd-renamed1");
        assert_eq!(tomb["status"], "deleted", "{tomb}");
        // The comment made meanwhile stays on the tombstone, where it was made.
        assert_eq!(tomb["comments"][0]["text"], "seen on c2", "{tomb}");
    }
    assert_eq!(c1.store_head(), c2.store_head(), "converged");
}

/// `blocked --json` of the whole store, with its stderr, asserting success.
fn blocked_json(repo: &Repo, env: &[(&str, &str)]) -> (Vec<u8>, String) {
    let out = repo.beads_output_env(env, &["blocked", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (out.stdout, err)
}

#[test]
fn blocked_json_asked_again_at_one_head_is_kept_and_never_stale() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("Blocker", &["-p", "1"]);
    let b = repo.create("Waits", &["--deps", &a]);
    let epic = repo.create("Epic", &["-t", "epic"]);
    let c = repo.create("Child", &["--parent", &epic, "--deps", &a]);
    repo.put_raw_doc(&common::doc_path("bd-zzzz"), b"id: [unclosed\n");
    let dir = repo.common_dir().join("beads");
    // The kept answer's file, when there is one.
    let answer = || {
        std::fs::read_dir(&dir)
            .expect("cache")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with("-main-answer.bin"))
    };

    // The first call at a head only marks it; the second keeps what it prints; the
    // third prints what was kept: the same bytes, the same warning.
    let (first, warned) = blocked_json(&repo, &[]);
    assert!(
        warned.contains("bd-zzzz") && warned.contains("does not parse"),
        "{warned}"
    );
    assert!(answer().is_none(), "kept at the first call");
    let second = blocked_json(&repo, &[]);
    assert!(answer().is_some(), "not kept at the second call");
    let third = blocked_json(&repo, &[]);
    assert_eq!(
        (&second, &third),
        (&(first.clone(), warned.clone()), &(first.clone(), warned))
    );
    let listed: Value = serde_json::from_slice(&first).expect("json");
    assert_eq!(ids(&listed).len(), 2);
    assert!(ids(&listed).contains(&b.as_str()) && ids(&listed).contains(&c.as_str()));

    // The envelope wraps it; `--parent` narrows it, never taken for the whole.
    let (enveloped, _) = blocked_json(&repo, &[("BD_JSON_ENVELOPE", "1")]);
    let enveloped: Value = serde_json::from_slice(&enveloped).expect("json");
    assert_eq!(enveloped["data"], listed);
    for _ in 0..3 {
        let narrowed = repo.beads_json(&["blocked", "--parent", &epic]);
        assert_eq!(ids(&narrowed), [c.as_str()]);
    }

    // A write moves the head: the next call answers for the new one.
    repo.beads(&["close", &a]);
    for _ in 0..3 {
        assert_eq!(blocked_json(&repo, &[]).0, b"[]\n");
    }
    repo.beads(&["reopen", &a]);
    for _ in 0..3 {
        let again: Value = serde_json::from_slice(&blocked_json(&repo, &[]).0).expect("json");
        assert_eq!(again, listed);
    }

    // A damaged answer is never printed: it is worked out again (and kept anew).
    let path = answer().expect("an answer kept");
    let mut bytes = std::fs::read(&path).expect("answer");
    let at = bytes.len() - 10;
    bytes[at] ^= 0x20;
    std::fs::write(&path, &bytes).expect("damage the answer");
    for _ in 0..3 {
        assert_eq!(blocked_json(&repo, &[]).0, first);
    }
    std::fs::write(&path, b"GBIX").expect("truncate the answer");
    assert_eq!(blocked_json(&repo, &[]).0, first);
}
