//! `ops` as a library, for agents: create, sling and hook, sessions (start, usage,
//! end, and the crash the next start finds), and mail (send and inbox).

use crate::library;

use git_beads::model::{Actor, Budget, EndReason, Status};
use git_beads::ops::{self, Mark, NewMessage, StartOptions, UsageReport};
use library::{Lib, agent, ids};

#[test]
fn a_new_agent_is_listed_and_acts_under_its_own_name() {
    let lib = Lib::new();
    let nux = lib.agent("rig/nux");
    assert_eq!(nux.id, "rig/nux");
    assert_eq!(nux.agent, Some(agent("rig/nux")));
    assert_eq!(nux.session, None);
    let names: Vec<String> = ops::list_agents(&lib.store)
        .expect("list agents")
        .iter()
        .map(|a| a.name.to_string())
        .collect();
    assert_eq!(names, ["rig/nux"]);
    let made = lib.create_as(&nux, library::bead("Made by an agent"));
    assert_eq!(made.created_by, "rig/nux");
}

#[test]
fn a_child_agent_cannot_widen_its_parents_authority() {
    let lib = Lib::new();
    let parent = lib.agent("rig");
    let child = ops::NewAgent {
        name: Some(agent("rig/nux")),
        budget: Some(Budget::parse("tokens=1000").expect("a budget")),
        ..Default::default()
    };
    let made = ops::create_agent(&lib.store, &parent, child).expect("a narrower child");
    assert_eq!(made.parent, Some(agent("rig")));
    let grandchild = ops::NewAgent {
        name: Some(agent("rig/nux/sub")),
        budget: Some(Budget::parse("tokens=5000").expect("a budget")),
        ..Default::default()
    };
    let nux = ops::acting(&lib.store, Some(&agent("rig/nux")), false).expect("act as nux");
    assert!(ops::create_agent(&lib.store, &nux, grandchild).is_err());
}

#[test]
fn sling_puts_a_bead_on_the_hook_and_unsling_takes_it_off() {
    let lib = Lib::new();
    lib.agent("rig/nux");
    let b = lib.create("Fix login");
    let hooked = ops::sling(&lib.store, &lib.me, &b.id, &agent("rig/nux")).expect("sling");
    assert_eq!(hooked.status, Status::Hooked);
    assert_eq!(hooked.assignee.as_deref(), Some("rig/nux"));
    let hook = ops::hook(&lib.store, &agent("rig/nux")).expect("hook");
    assert_eq!(
        ids(hook.iter().map(|h| &h.bead)),
        std::slice::from_ref(&b.id)
    );
    assert!(hook[0].progress.is_none(), "a plain bead has no progress");
    assert_eq!(
        ops::show_agent(&lib.store, &agent("rig/nux"))
            .expect("agent")
            .hook,
        std::slice::from_ref(&b.id)
    );

    lib.agent("rig/other");
    assert!(
        ops::sling(&lib.store, &lib.me, &b.id, &agent("rig/other")).is_err(),
        "a bead is on one hook at a time"
    );
    ops::unsling(&lib.store, &lib.me, &agent("rig/nux"), Some(&b.id)).expect("unsling");
    assert!(
        ops::hook(&lib.store, &agent("rig/nux"))
            .expect("hook")
            .is_empty()
    );
}

/// Binds the worktree to `rig/nux` and starts a session of it; returns how the
/// agent then acts (in that session).
fn start(lib: &Lib, model: &str) -> Actor {
    ops::bind(&lib.store, &agent("rig/nux")).expect("bind");
    let opts = StartOptions {
        model: Some(model.into()),
        ..Default::default()
    };
    let s = ops::start_session(&lib.store, &agent("rig/nux"), opts).expect("start");
    let actor = ops::acting(&lib.store, None, false).expect("the bound agent acts");
    assert_eq!(actor.session, Some(s.id));
    actor
}

#[test]
fn a_session_records_its_usage_and_how_it_ended() {
    let lib = Lib::new();
    lib.agent("rig/nux");
    let nux = start(&lib, "opus");
    let id = nux.session.clone().expect("a session");
    for tokens in [100, 200] {
        let report = UsageReport {
            turn: true,
            tokens,
            spend: 0.5,
            tool_calls: 2,
        };
        ops::record_usage(&lib.store, &nux, report).expect("usage");
    }
    let s = ops::show_session(&lib.store, &id).expect("show session");
    assert_eq!(s.model.as_deref(), Some("opus"));
    assert_eq!(s.usage.turns, 2);
    assert_eq!(s.usage.tokens, 300);
    assert_eq!(s.usage.tool_calls, 4);
    assert!((s.usage.spend - 1.0).abs() < 1e-9, "{}", s.usage.spend);
    assert_eq!(s.ledger.len(), 2);
    assert_eq!(s.end, None);

    let ended = ops::end_session(&lib.store, &nux, EndReason::Clean).expect("end");
    assert_eq!(ended.end, Some(EndReason::Clean));
    assert!(ended.ended_at.is_some());
    assert!(
        ops::end_session(&lib.store, &nux, EndReason::Clean).is_err(),
        "a session ends once"
    );
}

#[test]
fn a_session_that_never_ended_is_found_crashed_by_the_next() {
    let lib = Lib::new();
    lib.agent("rig/nux");
    let b = lib.create("Fix login");
    ops::sling(&lib.store, &lib.me, &b.id, &agent("rig/nux")).expect("sling");
    let first = start(&lib, "opus").session.expect("a session");
    let second = start(&lib, "sonnet");
    let prime = ops::prime(&lib.store, &second).expect("prime");
    let previous = prime.previous.expect("a previous session");
    assert_eq!(previous.id, first);
    assert_eq!(previous.end, Some(EndReason::Crashed));
    assert_eq!(
        ids(prime.hook.iter().map(|h| &h.bead)),
        std::slice::from_ref(&b.id)
    );
    assert_eq!(
        ops::show_session(&lib.store, &first).expect("first").end,
        Some(EndReason::Crashed)
    );
}

#[test]
fn mail_reaches_the_inbox_unread_until_it_is_read() {
    let lib = Lib::new();
    lib.agent("rig/nux");
    let send = |subject: &str, priority: u8| {
        let new = NewMessage {
            to: vec!["rig/nux".into()],
            subject: subject.into(),
            body: "Body.".into(),
            priority: Some(priority),
            ..Default::default()
        };
        ops::send(&lib.store, &lib.me, new).expect("send")
    };
    let hello = send("Hello", 2);
    let urgent = send("Urgent", 0);
    let inbox = |all: bool| -> Vec<(String, bool)> {
        ops::inbox(&lib.store, &agent("rig/nux"), all)
            .expect("inbox")
            .iter()
            .map(|e| (e.summary.subject.clone(), e.read))
            .collect()
    };
    assert_eq!(
        inbox(false),
        [("Urgent".to_owned(), false), ("Hello".to_owned(), false)]
    );
    let unread = ops::unread(&lib.store, &agent("rig/nux"), 5)
        .expect("unread")
        .count;
    assert_eq!(unread, 2);

    let nux = ops::acting(&lib.store, Some(&agent("rig/nux")), false).expect("act as nux");
    ops::mark(&lib.store, &nux, &urgent.id, Mark::Read).expect("read");
    assert_eq!(
        inbox(false),
        [("Hello".to_owned(), false), ("Urgent".to_owned(), true)],
        "unread first"
    );
    ops::mark(&lib.store, &nux, &hello.id, Mark::Archive).expect("archive");
    assert_eq!(inbox(false), [("Urgent".to_owned(), true)]);
    assert_eq!(
        inbox(true).len(),
        2,
        "archived mail is still there with all"
    );
}

#[test]
fn mail_to_nobody_is_refused() {
    let lib = Lib::new();
    let new = NewMessage {
        to: vec!["rig/ghost".into()],
        subject: "Anyone?".into(),
        ..Default::default()
    };
    assert!(ops::send(&lib.store, &lib.me, new).is_err());
}
