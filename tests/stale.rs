//! Stale work comes back: `stale` lists beads in progress whose holder is not working
//! on them, from synced data; `release` gives them back, recording who and why.

use crate::common;

use common::*;
use serde_json::Value;

/// The stale beads `stale --json ARGS` lists: (id, holder, why) (the one place this
/// file reads its shape).
fn stale(repo: &Repo, args: &[&str]) -> Vec<(String, String, String)> {
    let mut all = vec!["stale"];
    all.extend_from_slice(args);
    repo.beads_json(&all)
        .as_array()
        .expect("a stale array")
        .iter()
        .map(|s| {
            let field = |k: &str| s[k].as_str().unwrap_or_default().to_owned();
            (field("id"), field("holder"), field("why"))
        })
        .collect()
}

/// The bead `show --json` prints.
fn shown(repo: &Repo, id: &str) -> Value {
    repo.beads_json(&["show", id])[0].clone()
}

#[test]
fn release_gives_work_back_with_who_and_why() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("a job", &[]);
    repo.beads(&["update", &id, "--claim"]);
    repo.beads(&["release", &id, "--reason", "the host died"]);
    let b = shown(&repo, &id);
    assert_eq!(b["status"], "open");
    assert!(b.get("assignee").is_none_or(Value::is_null), "{b}");
    let last = b["comments"].as_array().expect("comments").last().cloned();
    assert_eq!(
        last.expect("a comment")["text"],
        "released from alice by alice: the host died"
    );
    // Nobody holds it now: a second release is refused and changes nothing.
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["release", &id]);
    assert_ne!(code, 0);
    assert!(err.contains("nothing to release"), "{err}");
    assert_eq!(repo.store_head(), head);
    // It is ready again, for anyone.
    assert_eq!(repo.beads(&["ready", "--claim"]).trim(), id);
}

#[test]
fn stale_names_holders_without_a_live_session_and_nothing_is_released() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let person = c1.create("a person's", &[]);
    let idle = c1.create("an idle agent's", &[]);
    let working = c1.create("a working agent's", &[]);
    let retired = c1.create("a retired agent's", &[]);
    c1.beads(&["update", &person, "--claim"]);
    for agent in ["idle", "old"] {
        c1.beads(&["agent", "create", agent]);
    }
    c1.bind_new_agent("busy", &[]);
    c1.start_session(&[]);
    c1.beads(&["--as-person", "sling", &idle, "idle"]);
    c1.beads(&["--as-person", "sling", &working, "busy"]);
    c1.beads(&["--as-person", "sling", &retired, "old"]);
    c1.beads(&["--as-person", "agent", "retire", "old"]);
    let mut want = vec![
        (idle.clone(), "idle".to_owned(), "no-session".to_owned()),
        (retired.clone(), "old".to_owned(), "retired".to_owned()),
    ];
    want.sort();
    assert_eq!(
        stale(&c1, &[]),
        want,
        "a fresh claim by a person is not stale"
    );
    let mut with_person = want.clone();
    with_person.push((person.clone(), "alice".into(), "old-claim".into()));
    with_person.sort();
    assert_eq!(stale(&c1, &["--older-than", "0s"]), with_person);
    // The busy agent's session ends: its work is stale too, on every clone that syncs.
    c1.beads(&["session", "end"]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let listed = stale(&c2, &[]);
    assert!(
        listed.contains(&(working.clone(), "busy".into(), "ended".into())),
        "{listed:?}"
    );
    assert_eq!(listed.len(), 3, "{listed:?}");
    // Listing released nothing.
    assert_eq!(shown(&c2, &idle)["status"], "hooked");
    // Released, the work leaves the agent's hook.
    c2.beads(&["release", &idle, "--reason", "nobody runs idle"]);
    let agent = c2.beads_json(&["agent", "show", "idle"]);
    assert!(
        agent["hook"].as_array().is_none_or(Vec::is_empty),
        "{agent}"
    );
}

#[test]
fn a_released_bead_can_be_claimed_on_the_remote_again() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("a job", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c1.beads(&["update", &id, "--claim", "--remote", "origin"]);
    c1.beads(&["release", &id]);
    // The sync that carries the release deletes the claim ref.
    c1.sync();
    let refs = sb.git(&remote, &["for-each-ref", "refs/beads/claims/"]);
    assert_eq!(refs.trim(), "", "{refs}");
    c2.sync();
    c2.beads(&["update", &id, "--claim", "--remote", "origin"]);
    assert_eq!(shown(&c2, &id)["assignee"], "bob");
}
