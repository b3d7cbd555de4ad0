//! `ops` as a library, for beads: create, show, update, close, claims,
//! dependencies with `ready` and `blocked`, and labels, against a store in a temp
//! repository opened in this process.

use crate::common;
use crate::library;

use git_beads::model::{Actor, BeadId, BeadType, DepKind, DepTarget, Dependency, Status};
use git_beads::ops::{self, BeadError, Changes, ListFilter, NewBead, OpError};
use library::{Lib, bead, ids, open};

#[test]
fn create_then_show_gives_back_what_was_asked_for() {
    let lib = Lib::new();
    let new = NewBead {
        title: "Fix login".into(),
        description: "The form posts twice.".into(),
        kind: Some(BeadType::Bug),
        priority: Some(1),
        assignee: Some("alice".into()),
        labels: vec!["web".into(), "auth".into()],
        ..Default::default()
    };
    let made = lib.create_as(&lib.me, new);
    assert!(made.id.as_str().starts_with("bd-"), "{}", made.id);
    let shown = lib.show(&made.id);
    assert_eq!(shown.title, "Fix login");
    assert_eq!(shown.description, "The form posts twice.");
    assert_eq!(shown.kind, BeadType::Bug);
    assert_eq!(shown.priority, 1);
    assert_eq!(shown.status, Status::Open);
    assert_eq!(shown.assignee.as_deref(), Some("alice"));
    assert_eq!(
        Vec::from_iter(shown.labels.iter().map(String::as_str)),
        ["auth", "web"]
    );
    assert_eq!(shown.created_by, "alice");
}

#[test]
fn a_child_gets_the_next_number_of_its_parent() {
    let lib = Lib::new();
    let epic = lib.create("Accounts");
    let child = |title: &str| {
        lib.create_as(
            &lib.me,
            NewBead {
                parent: Some(epic.id.clone()),
                ..bead(title)
            },
        )
    };
    assert_eq!(child("one").id, epic.id.child(1));
    assert_eq!(child("two").id, epic.id.child(2));
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let lib = Lib::new();
    let head = lib.repo.store_head();
    let too_urgent = NewBead {
        priority: Some(5),
        ..bead("Too urgent")
    };
    assert!(ops::create(&lib.store, &lib.me, too_urgent).is_err());
    assert!(ops::create(&lib.store, &lib.me, bead("")).is_err());
    let nobody: BeadId = "bd-nope".parse().expect("an id");
    assert!(matches!(
        ops::show(&lib.store, &[nobody]),
        Err(OpError::Bead(BeadError::NotFound(id))) if id.as_str() == "bd-nope"
    ));
    assert_eq!(lib.repo.store_head(), head, "nothing was written");
}

#[test]
fn update_changes_only_the_fields_it_is_given() {
    let lib = Lib::new();
    let b = lib.create("Fix login");
    let changed = ops::update(
        &lib.store,
        &lib.me,
        std::slice::from_ref(&b.id),
        Changes {
            title: Some("Fix the login form".into()),
            priority: Some(0),
            notes: Some("Firefox only.".into()),
            ..Default::default()
        },
    )
    .expect("update")
    .remove(0)
    .bead;
    assert_eq!(changed.title, "Fix the login form");
    assert_eq!(changed.priority, 0);
    assert_eq!(changed.notes, "Firefox only.");
    assert_eq!(changed.kind, b.kind);
    assert_eq!(changed.status, Status::Open);
    assert_eq!(lib.show(&b.id).title, "Fix the login form");
}

#[test]
fn close_and_reopen_move_a_bead_out_of_and_back_into_the_list() {
    let lib = Lib::new();
    let b = lib.create("Fix login");
    let listed = |lib: &Lib| -> Vec<String> {
        let l = ops::list(&lib.store, &ListFilter::default()).expect("list");
        l.beads().map(|r| r.id().to_owned()).collect()
    };
    assert_eq!(listed(&lib), [b.id.as_str()]);
    let closed = ops::close(
        &lib.store,
        &lib.me,
        std::slice::from_ref(&b.id),
        Some("done"),
    )
    .expect("close");
    assert_eq!(closed[0].bead.status, Status::Closed);
    assert_eq!(lib.show(&b.id).close_reason.as_deref(), Some("done"));
    assert!(
        listed(&lib).is_empty(),
        "closed beads are not listed by default"
    );
    ops::reopen(&lib.store, &lib.me, std::slice::from_ref(&b.id), None).expect("reopen");
    assert_eq!(lib.show(&b.id).status, Status::Open);
    assert_eq!(listed(&lib), [b.id.as_str()]);
}

#[test]
fn a_deleted_bead_becomes_a_tombstone() {
    let lib = Lib::new();
    let b = lib.create("Old");
    ops::delete(
        &lib.store,
        &lib.me,
        std::slice::from_ref(&b.id),
        Some("dup"),
    )
    .expect("delete");
    let gone = lib.show(&b.id);
    assert_eq!(gone.status, Status::Deleted);
    assert_eq!(gone.deleted_by.as_deref(), Some("alice"));
    let retitle = Changes {
        title: Some("New".into()),
        ..Default::default()
    };
    assert!(ops::update(&lib.store, &lib.me, std::slice::from_ref(&b.id), retitle).is_err());
}

fn claim() -> Changes {
    Changes {
        claim: true,
        ..Default::default()
    }
}

#[test]
fn a_claim_takes_the_bead_and_a_second_claimant_is_refused() {
    let lib = Lib::new();
    let b = lib.create("Fix login");
    let claimed = ops::update(&lib.store, &lib.me, std::slice::from_ref(&b.id), claim())
        .expect("claim")
        .remove(0)
        .bead;
    assert_eq!(claimed.status, Status::InProgress);
    assert_eq!(claimed.assignee.as_deref(), Some("alice"));
    let bob = Actor::person("bob", "bob@example.com");
    assert!(matches!(
        ops::update(&lib.store, &bob, std::slice::from_ref(&b.id), claim()),
        Err(OpError::Bead(BeadError::ClaimedBy { id, holder })) if id == b.id && holder == "alice"
    ));
    assert_eq!(lib.show(&b.id).assignee.as_deref(), Some("alice"));
    // Claiming again what one already holds is fine.
    ops::update(&lib.store, &lib.me, std::slice::from_ref(&b.id), claim()).expect("claim again");
}

#[test]
fn two_claims_at_once_have_exactly_one_winner() {
    let lib = Lib::new();
    let b = lib.create("Contested");
    let start = std::sync::Barrier::new(2);
    let results = common::on_threads(["ann", "bob"], |who| {
        // Each claimant opens the store on its own, as two processes would.
        let store = open(&lib.repo.path);
        let actor = Actor::person(who, &format!("{who}@example.com"));
        start.wait();
        ops::update(&store, &actor, std::slice::from_ref(&b.id), claim()).map(|_| who)
    });
    let winners: Vec<&str> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .copied()
        .collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    assert!(
        results.iter().any(|r| matches!(
            r,
            Err(OpError::Bead(BeadError::ClaimedBy { holder, .. })) if holder == winners[0]
        )),
        "the loser is told who holds it: {results:?}"
    );
    assert_eq!(lib.show(&b.id).assignee.as_deref(), Some(winners[0]));
}

#[test]
fn ready_claim_takes_the_most_urgent_ready_bead() {
    let lib = Lib::new();
    lib.create("Routine");
    let urgent = lib.create_as(
        &lib.me,
        NewBead {
            priority: Some(0),
            ..bead("Urgent")
        },
    );
    let taken = ops::ready_claim(&lib.store, &lib.me, &ops::ListFilter::default())
        .expect("ready claim")
        .expect("something is ready");
    assert_eq!(taken.id, urgent.id);
    assert_eq!(lib.show(&urgent.id).status, Status::InProgress);
}

#[test]
fn a_blocker_keeps_its_dependent_out_of_ready_until_it_is_closed() {
    let lib = Lib::new();
    let login = lib.create("Fix login");
    let docs = lib.create("Write docs");
    let with_dep = ops::add_dependency(
        &lib.store,
        &lib.me,
        &docs.id,
        &DepTarget::Bead(login.id.clone()),
        DepKind::Blocks,
    )
    .expect("add dependency")
    .bead;
    assert_eq!(
        with_dep.dependencies,
        [Dependency {
            id: login.id.clone(),
            kind: DepKind::Blocks
        }]
    );
    let ready = |lib: &Lib| -> Vec<String> {
        let r = ops::ready(&lib.store, &ops::ListFilter::default()).expect("ready");
        r.beads().map(|b| b.id().to_owned()).collect()
    };
    assert_eq!(ready(&lib), [login.id.as_str()]);
    let blocked = ops::blocked(&lib.store, None).expect("blocked");
    let waits: Vec<(String, Vec<String>)> = blocked
        .beads()
        .map(|(b, by)| {
            (
                b.id().to_owned(),
                by.iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(waits, [(docs.id.to_string(), vec![login.id.to_string()])]);

    ops::close(&lib.store, &lib.me, std::slice::from_ref(&login.id), None).expect("close");
    assert_eq!(ready(&lib), [docs.id.as_str()]);
    assert_eq!(
        ops::blocked(&lib.store, None)
            .expect("blocked")
            .beads()
            .len(),
        0
    );
}

#[test]
fn an_external_blocker_holds_its_bead_and_the_children_of_it_back() {
    let lib = Lib::new();
    let epic = lib.create("Upgrade");
    let child = lib.create("Step");
    let free = lib.create("Free");
    let on = |id: &BeadId, target: DepTarget, kind| {
        ops::add_dependency(&lib.store, &lib.me, id, &target, kind).expect("add dependency")
    };
    on(
        &child.id,
        DepTarget::Bead(epic.id.clone()),
        DepKind::ParentChild,
    );
    let ext: DepTarget = "external:upstream:release".parse().expect("a reference");
    let edited = on(&epic.id, ext.clone(), DepKind::Blocks);
    assert_eq!(edited.bead.external.len(), 1);
    let ready = ops::ready(&lib.store, &ops::ListFilter::default()).expect("ready");
    let ready: Vec<&str> = ready.beads().map(|b| b.id()).collect();
    assert_eq!(ready, [free.id.as_str()]);
    let blocked = ops::blocked(&lib.store, None).expect("blocked");
    let waits: Vec<(String, Vec<String>)> = (blocked.beads())
        .map(|(b, by)| {
            (
                b.id().to_owned(),
                by.iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect();
    let mut expected = vec![
        (epic.id.to_string(), vec![ext.to_string()]),
        (child.id.to_string(), vec![ext.to_string()]),
    ];
    expected.sort();
    let mut waits = waits;
    waits.sort();
    assert_eq!(waits, expected);

    ops::remove_dependency(&lib.store, &lib.me, &epic.id, &ext, None).expect("remove");
    assert_eq!(
        ops::blocked(&lib.store, None)
            .expect("blocked")
            .beads()
            .len(),
        0
    );
}

#[test]
fn dependencies_that_would_make_a_cycle_or_point_nowhere_are_refused() {
    let lib = Lib::new();
    let a = lib.create("a");
    let b = lib.create("b");
    ops::add_dependency(
        &lib.store,
        &lib.me,
        &b.id,
        &DepTarget::Bead(a.id.clone()),
        DepKind::Blocks,
    )
    .expect("b on a");
    assert!(
        ops::add_dependency(
            &lib.store,
            &lib.me,
            &a.id,
            &DepTarget::Bead(b.id.clone()),
            DepKind::Blocks
        )
        .is_err()
    );
    assert!(
        ops::add_dependency(
            &lib.store,
            &lib.me,
            &a.id,
            &DepTarget::Bead(a.id.clone()),
            DepKind::Blocks
        )
        .is_err()
    );
    let nowhere: BeadId = "bd-nope".parse().expect("an id");
    assert!(
        ops::add_dependency(
            &lib.store,
            &lib.me,
            &a.id,
            &DepTarget::Bead(nowhere.clone()),
            DepKind::Related
        )
        .is_err()
    );
    // A link that does not block may point back.
    ops::add_dependency(
        &lib.store,
        &lib.me,
        &a.id,
        &DepTarget::Bead(b.id.clone()),
        DepKind::Related,
    )
    .expect("related");
    let removed = ops::remove_dependency(
        &lib.store,
        &lib.me,
        &b.id,
        &DepTarget::Bead(a.id.clone()),
        None,
    )
    .expect("remove dependency");
    assert!(removed.dependencies.is_empty());
}

#[test]
fn labels_are_a_set_counted_across_the_store() {
    let lib = Lib::new();
    let a = lib.create("a");
    let b = lib.create("b");
    for (bead, label) in [(&a, "auth"), (&a, "web"), (&b, "web"), (&b, "web")] {
        ops::add_label(&lib.store, &lib.me, &bead.id, label).expect("add label");
    }
    assert_eq!(
        Vec::from_iter(lib.show(&b.id).labels.iter().map(String::as_str)),
        ["web"]
    );
    let counts: Vec<(String, usize)> = ops::labels_all(&lib.store)
        .expect("labels")
        .into_iter()
        .map(|c| (c.label, c.count))
        .collect();
    assert_eq!(counts, [("auth".to_owned(), 1), ("web".to_owned(), 2)]);
    let web = ListFilter {
        labels: vec!["web".into()],
        ..Default::default()
    };
    let listed = ops::list(&lib.store, &web).expect("list");
    let mut found: Vec<String> = listed.beads().map(|r| r.id().to_owned()).collect();
    found.sort();
    let mut want: Vec<String> = ids([&a, &b]).iter().map(|i| i.to_string()).collect();
    want.sort();
    assert_eq!(found, want);
    ops::remove_label(&lib.store, &lib.me, &a.id, "web").expect("remove label");
    assert_eq!(
        Vec::from_iter(lib.show(&a.id).labels.iter().map(String::as_str)),
        ["auth"]
    );
}
