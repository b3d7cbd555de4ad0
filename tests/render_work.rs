//! Snapshots of what a person reads about beads: `show`, `list`, `ready`,
//! `blocked` and `log`, on one small store of a login fix, its docs and an epic.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screen, screens, stable};

/// A store with an epic, a login bug in it (labels, an assignee, a description and
/// a comment), docs that the bug blocks, a deferred chore and a closed chore.
/// Returns the sandbox, the repository and the names of the beads' ids.
fn work() -> (Sandbox, Repo, Names) {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let epic = names.name(repo.create("Accounts", &["-t", "epic", "-p", "1"]), "EPIC");
    let login = repo.create(
        "Fix login",
        &[
            "-t",
            "bug",
            "-p",
            "0",
            "-l",
            "auth",
            "-l",
            "web",
            "-a",
            "alice",
            "--parent",
            &epic,
            "-d",
            "The form posts twice.\nSee the network tab.",
        ],
    );
    let login = names.name(login, "LOGIN");
    repo.beads(&["comment", &login, "Reproduced on Firefox."]);
    names.name(
        repo.create("Write docs", &["-t", "chore", "--deps", &login]),
        "DOCS",
    );
    let later = names.name(
        repo.create("Tidy the build", &["-t", "chore", "-p", "4"]),
        "LATER",
    );
    repo.beads(&["update", &later, "--status", "deferred"]);
    let done = names.name(
        repo.create("Old chore", &["-t", "chore", "-p", "3"]),
        "DONE",
    );
    repo.beads(&["close", &done, "-r", "done already"]);
    (sb, repo, names)
}

#[test]
fn show_prints_every_field_a_bead_has() {
    let (sb, repo, ids) = work();
    let text = screen(&repo, &["show", ids.id("LOGIN")]);
    stable(&sb, &ids, || assert_snapshot!("show_full", text));
}

#[test]
fn show_of_several_beads_includes_closed_and_deferred_ones() {
    let (sb, repo, ids) = work();
    let text = screen(
        &repo,
        &["show", ids.id("EPIC"), ids.id("DONE"), ids.id("LATER")],
    );
    stable(&sb, &ids, || assert_snapshot!("show_several", text));
}

#[test]
fn list_prints_one_line_a_bead() {
    let (sb, repo, ids) = work();
    let text = screens(
        &repo,
        &[&["list"], &["list", "--all"], &["list", "--label", "auth"]],
    );
    stable(&sb, &ids, || assert_snapshot!("list", text));
}

#[test]
fn list_of_an_empty_store() {
    let (sb, repo) = Sandbox::with_store();
    let text = screen(&repo, &["list"]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("list_empty", text)
    });
}

#[test]
fn ready_shows_what_nothing_blocks() {
    let (sb, repo, ids) = work();
    let text = screen(&repo, &["ready"]);
    stable(&sb, &ids, || assert_snapshot!("ready", text));
}

#[test]
fn blocked_shows_what_blocks_what() {
    let (sb, repo, ids) = work();
    let text = screen(&repo, &["blocked"]);
    stable(&sb, &ids, || assert_snapshot!("blocked", text));
}

#[test]
fn an_empty_queue_says_so() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(&repo, &[&["ready"], &["blocked"]]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("ready_blocked_empty", text)
    });
}

#[test]
fn log_shows_each_change_and_a_beads_diffs() {
    let (sb, repo, ids) = work();
    let text = screens(&repo, &[&["log", "-n", "3"], &["log", ids.id("LATER")]]);
    stable(&sb, &ids, || assert_snapshot!("log", text));
}

#[test]
fn dep_tree_label_counts_search_and_comments() {
    let (sb, repo, ids) = work();
    let text = screens(
        &repo,
        &[
            &["dep", "tree", ids.id("DOCS")],
            &["label", "list-all"],
            &["search", "docs"],
            &["comments", ids.id("LOGIN")],
        ],
    );
    stable(&sb, &ids, || {
        assert_snapshot!("dep_label_search_comments", text)
    });
}
