//! Snapshots of what a person reads about the store as a whole: `doctor`, clean
//! and with findings, and the reports of `sync`, `pull` and `push` against a local
//! bare remote.

use crate::common;
use crate::render;

use common::Sandbox;
use insta::assert_snapshot;
use render::{Names, screen, screens, stable};

#[test]
fn doctor_on_a_healthy_store() {
    let (sb, repo) = Sandbox::with_store();
    let a = repo.create("a", &[]);
    repo.create("b", &["--deps", &a]);
    repo.beads(&["agent", "create", "x"]);
    let text = screen(&repo, &["doctor"]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("doctor_clean", text)
    });
}

#[test]
fn doctor_reports_cycles_broken_documents_and_running_sessions() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    // A bead blocking itself: a cycle is reported from its smallest id, and only a
    // cycle of one has the same smallest id on every run.
    let a = names.name(repo.create("a", &[]), "A");
    let a_path = common::doc_path(&a);
    let mut doc = repo.git(&["show", &format!("refs/beads/main:{a_path}")]);
    doc.push_str(&format!("dependencies:\n- id: {a}\n  type: blocks\n"));
    repo.put_raw_doc(&a_path, doc.as_bytes());
    repo.put_raw_doc("beads/zz/bd-zzzz.yaml", b"id: [unclosed\n");
    repo.bind_new_agent("rig/nux", &[]);
    names.name(repo.start_session(&[]), "SESSION");
    let text = screen(&repo, &["doctor"]);
    stable(&sb, &names, || assert_snapshot!("doctor_findings", text));
}

#[test]
fn sync_reports_what_came_in_and_went_out() {
    let sb = Sandbox::new();
    let remote = sb.bare("remote.git");
    let first = sb.clone(&remote, "c1", "alice");
    first.commit_file("README", "code\n", "code");
    first.git(&["push", "-q", "origin", "HEAD:main"]);
    first.init();
    let mut names = Names::default();
    let pushed = screen(&first, &["sync"]);
    let second = sb.clone(&remote, "c2", "bob");
    let adopted = screen(&second, &["sync"]);
    names.name(first.create("From alice", &[]), "ALICE");
    let sent = screen(&first, &["sync"]);
    names.name(second.create("From bob", &[]), "BOB");
    // bob's push is refused until he has merged alice's bead.
    let exchanged = screens(&second, &[&["push"], &["pull"], &["push"], &["sync"]]);
    let caught_up = screen(&first, &["pull"]);
    // Both ways at once: bob's new bead goes out while alice's comes in.
    names.name(first.create("Again from alice", &[]), "ALICE2");
    first.sync();
    names.name(second.create("Again from bob", &[]), "BOB2");
    let both = screen(&second, &["sync"]);
    let text = [pushed, adopted, sent, exchanged, caught_up, both].join("\n");
    stable(&sb, &names, || assert_snapshot!("sync_reports", text));
}

#[test]
fn sync_reports_the_conflicts_it_kept() {
    let sb = Sandbox::new();
    let (c1, c2, id) = sb.two_clones_sharing("Shared", &[]);
    let mut names = Names::default();
    names.name(id.as_str(), "SHARED");
    c1.beads(&["update", &id, "--title", "alice's title"]);
    c1.sync();
    c2.beads(&["update", &id, "--title", "bob's title"]);
    let text = screens(&c2, &[&["sync"], &["show", &id]]);
    stable(&sb, &names, || assert_snapshot!("sync_conflict", text));
}
