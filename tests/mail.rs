//! Mail between agents, with the real binary: per-recipient state, threads, roles,
//! handoffs, and mail sent on two clones at once.

use crate::common;

use common::{Repo, Sandbox};
use serde_json::Value;

fn inbox(repo: &Repo, agent: &str) -> Value {
    repo.beads_json(&["--as", agent, "mail", "inbox"])
}

/// The ids of the messages of a mail listing (a bare array, or an inbox), in order.
fn ids(v: &Value) -> Vec<String> {
    match v.is_array() {
        true => common::ids(v),
        false => common::ids_in(v, "messages"),
    }
}

#[test]
fn three_agents_in_two_worktrees_send_read_reply_and_ack() {
    let (_sb, repo) = Sandbox::with_store();
    for (name, role) in [("ann", "lead"), ("bob", "dev"), ("cy", "dev")] {
        repo.beads(&["agent", "create", name, "--role", role]);
    }
    let bobs = repo.worktree_on("wt-bob", "bob");
    repo.beads(&["agent", "bind", "ann"]);
    bobs.beads(&["agent", "bind", "bob"]);

    let low = repo.beads(&[
        "mail", "send", "bob", "cy", "-s", "FYI", "-m", "routine", "-p", "4",
    ]);
    let urgent = repo.beads(&[
        "mail",
        "send",
        "bob",
        "-s",
        "Build is red",
        "-m",
        "please look",
        "-p",
        "0",
    ]);
    let (low, urgent) = (low.trim().to_owned(), urgent.trim().to_owned());

    let bob_inbox = bobs.beads_json(&["mail", "inbox"]);
    assert_eq!(bob_inbox["agent"], "bob");
    assert_eq!(bob_inbox["unread"], 2);
    assert_eq!(
        ids(&bob_inbox),
        vec![urgent.clone(), low.clone()],
        "by priority"
    );
    let prime = bobs.beads_json(&["prime"]);
    assert_eq!(prime["unread_mail"], 2);
    assert_eq!(prime["mail"][0]["id"], urgent.as_str());

    // Peek does not mark; read does; state is per recipient.
    bobs.beads(&["mail", "peek", &low]);
    assert_eq!(bobs.beads_json(&["mail", "inbox"])["unread"], 2);
    let read = bobs.beads_json(&["mail", "read", &low]);
    assert!(read["delivery"]["bob"]["read_at"].is_string());
    assert!(read["delivery"]["cy"].get("read_at").is_none());
    let after = bobs.beads_json(&["mail", "inbox"]);
    assert_eq!(after["unread"], 1);
    assert_eq!(
        ids(&after),
        vec![urgent.clone(), low.clone()],
        "unread first"
    );
    assert_eq!(inbox(&repo, "cy")["unread"], 1, "cy still has it unread");

    let reply = bobs.beads(&["mail", "reply", &urgent, "-m", "on it"]);
    let reply = reply.trim();
    let ann = repo.beads_json(&["mail", "inbox"]);
    assert_eq!(ids(&ann), vec![reply.to_owned()]);
    let thread = repo.beads_json(&["mail", "thread", reply]);
    assert_eq!(ids(&thread), vec![urgent.clone(), reply.to_owned()]);
    assert_eq!(thread[1]["subject"], "Re: Build is red");

    let acked = bobs.beads_json(&["mail", "ack", &urgent]);
    assert!(acked["delivery"]["bob"]["acked_at"].is_string());
    assert!(acked["delivery"]["bob"]["read_at"].is_string());
    bobs.beads(&["mail", "archive", &low]);
    assert_eq!(
        ids(&bobs.beads_json(&["mail", "inbox"])),
        vec![urgent.clone()]
    );
    assert_eq!(ids(&bobs.beads_json(&["mail", "inbox", "--all"])).len(), 2);
    let found = bobs.beads_json(&["mail", "search", "ROUTINE"]);
    assert_eq!(found.as_array().map(Vec::len), Some(1));

    // Reading again changes nothing.
    let head = repo.store_head();
    bobs.beads(&["mail", "read", &low]);
    assert_eq!(repo.store_head(), head);
    // Someone else's message cannot be marked.
    let (code, err) = repo.beads_fail(&["mail", "read", &low]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn a_role_broadcast_and_all_reach_every_matching_agent() {
    let (_sb, repo) = Sandbox::with_store();
    for (name, role) in [("lead", "lead"), ("d1", "dev"), ("d2", "dev")] {
        repo.beads(&["agent", "create", name, "--role", role]);
    }
    let m = repo
        .beads_json(&["--as", "lead", "mail", "send", "@dev", "-s", "standup"])
        .clone();
    let to: Vec<&str> = m["delivery"]
        .as_object()
        .expect("delivery")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(to, vec!["d1", "d2"]);
    let all = repo
        .beads_json(&["--as", "lead", "mail", "send", "@all", "-s", "release"])
        .clone();
    assert_eq!(
        all["delivery"].as_object().map(|o| o.len()),
        Some(2),
        "the sender is left out"
    );
    assert_eq!(inbox(&repo, "d2")["unread"], 2);
}

#[test]
fn bad_mail_is_refused_and_changes_nothing() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&["agent", "create", "a1", "--role", "dev"]);
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["mail", "send", "nobody", "-s", "hi"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown recipient \"nobody\""), "{err}");
    let (_, err) = repo.beads_fail(&["mail", "send", "@ghosts", "-s", "hi"]);
    assert!(err.contains("@ghosts"), "{err}");
    let (code, err) = repo.beads_fail(&["mail", "send", "a1", "-s", "  "]);
    assert_eq!(code, 1);
    assert!(err.contains("subject is empty"), "{err}");
    let (code, err) = repo.beads_fail(&["mail", "send", "a1", "-s", "hi", "-m", "bell\u{7}"]);
    assert_eq!(code, 1);
    assert!(err.contains("control character"), "{err}");
    let (code, _) = repo.beads_fail(&["mail", "send", "a1", "-s", "hi", "-p", "9"]);
    assert_eq!(code, 2);
    assert_eq!(repo.store_head(), head, "nothing changed");
    // An agent without the mail capability may not send.
    repo.beads(&["agent", "create", "mute", "--can", "create"]);
    let (code, _) = repo.beads_fail(&["--as", "mute", "mail", "send", "a1", "-s", "hi"]);
    assert_eq!(code, 5);
}

#[test]
fn a_handoff_is_mail_to_oneself() {
    let (_sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("solo", &[]);
    repo.beads(&["session", "start"]);
    let before = repo.commit_count("refs/beads/main");
    repo.beads(&["handoff", "-m", "resume at the parser"]);
    let after = repo.commit_count("refs/beads/main");
    assert_eq!(after, before + 1, "one commit");
    let inbox = repo.beads_json(&["mail", "inbox"]);
    assert_eq!(inbox["unread"], 1);
    assert_eq!(inbox["messages"][0]["from"], "solo");
    repo.beads(&["agent", "create", "boss"]);
    repo.beads(&[
        "--as", "boss", "mail", "send", "solo", "-s", "Hello", "-m", "hi",
    ]);
    let text = repo.beads(&["session", "start"]);
    assert!(
        text.contains("HANDOFF") && text.contains("resume at the parser"),
        "{text}"
    );
    // The note shows once: its copy in the mailbox is not listed again as unread mail.
    assert!(!text.contains("handoff from session"), "{text}");
    assert!(text.contains("Unread mail: 1"), "{text}");
    assert!(text.contains("from boss: Hello"), "{text}");
    let prime = repo.beads_json(&["prime"]);
    assert_eq!(prime["unread_mail"], 1, "{prime}");
    assert_eq!(repo.beads_json(&["mail", "inbox"])["unread"], 2);
}
#[test]
fn mail_sent_on_two_clones_at_once_is_on_both_after_sync() {
    let sb = Sandbox::new();
    let remote = sb.bare("remote.git");
    let origin = sb.repo("origin", "alice");
    origin.git(&["remote", "add", "origin", remote.to_str().expect("utf-8")]);
    origin.git(&["push", "-q", "origin", "main"]);
    origin.init();
    origin.beads(&["agent", "create", "x1"]);
    origin.beads(&["agent", "create", "x2"]);
    let seed = origin.beads_json(&["--as", "x1", "mail", "send", "x2", "-s", "seed"])["id"]
        .as_str()
        .expect("id")
        .to_owned();
    origin.beads(&["sync"]);
    let a = sb.synced_clone(&remote, "a", "alice");
    let b = sb.synced_clone(&remote, "b", "bob");
    let from_a = a
        .beads(&["--as", "x1", "mail", "send", "x2", "-s", "from a"])
        .trim()
        .to_owned();
    let from_b = b
        .beads(&["--as", "x2", "mail", "send", "x1", "-s", "from b"])
        .trim()
        .to_owned();
    a.beads(&["--as", "x2", "mail", "read", &seed]);
    b.beads(&["--as", "x2", "mail", "ack", &seed]);
    a.beads(&["sync"]);
    b.beads(&["sync"]);
    a.beads(&["sync"]);
    for clone in [&a, &b] {
        assert_eq!(ids(&inbox(clone, "x1")), vec![from_b.clone()]);
        let x2 = inbox(clone, "x2");
        let mut got = ids(&x2);
        got.sort();
        let mut want = vec![from_a.clone(), seed.clone()];
        want.sort();
        assert_eq!(got, want);
        let s = clone.beads_json(&["mail", "peek", &seed]);
        assert!(s["delivery"]["x2"]["read_at"].is_string(), "{s}");
        assert!(s["delivery"]["x2"]["acked_at"].is_string(), "{s}");
    }
    assert_eq!(a.store_tree(), b.store_tree());
}
