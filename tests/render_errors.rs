//! Snapshots of errors as a person reads them on stderr: `error: …`, the causes,
//! the hints, and the exit code.

use crate::common;
use crate::render;

use common::Sandbox;
use insta::assert_snapshot;
use render::{Names, screens, stable};

#[test]
fn errors_about_beads_name_the_bead_and_hint_at_a_way_out() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let id = names.name(repo.create("Fix login", &[]), "LOGIN");
    repo.beads(&["agent", "create", "rig/nux"]);
    repo.beads(&["--as", "rig/nux", "update", &id, "--claim"]);
    let closed = names.name(repo.create("Old", &[]), "OLD");
    repo.beads(&["delete", &closed, "--force"]);
    let text = screens(
        &repo,
        &[
            &["show", "bd-nope"],
            &["update", &id, "--claim"],
            &["update", &closed, "--title", "New"],
            &["create", "Too urgent", "-p", "7"],
            &["create", "Odd", "-t", "wish"],
            &["dep", "add", &id, &id],
            &["--as", "nobody", "create", "Unowned"],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("errors_beads", text));
}

#[test]
fn errors_about_the_repository_and_its_files_hint_at_a_way_out() {
    let sb = Sandbox::new();
    let repo = sb.repo("work", "alice");
    let uninitialized = screens(&repo, &[&["list"], &["prime"]]);
    repo.init();
    let missing = sb.path().join("missing.jsonl");
    let missing = missing.to_str().expect("utf-8");
    let rest = screens(
        &repo,
        &[&["sync"], &["push", "nowhere"], &["import", missing]],
    );
    let text = format!("{uninitialized}\n{rest}");
    stable(&sb, &Names::default(), || {
        assert_snapshot!("errors_repository", text)
    });
}
