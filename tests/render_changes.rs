//! Snapshots of what a person reads after changing beads: the one line each write
//! answers with (`create`, `update`, `close`, `reopen`, `dep`, `label`, `note`,
//! `defer`, `duplicate`, `supersede`, `delete`, `release`, `rename`,
//! `rename-prefix`, `comment`) and the errors a refused write gives.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screens, stable};

/// A store with two beads: "Fix login" (bug, P0, `LOGIN`) and "Write docs" (task,
/// `DOCS`).
fn two() -> (Sandbox, Repo, Names) {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    names.name(repo.create("Fix login", &["-t", "bug", "-p", "0"]), "LOGIN");
    names.name(repo.create("Write docs", &["-t", "task"]), "DOCS");
    (sb, repo, names)
}

#[test]
fn create_and_q_print_the_new_id() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(
        &repo,
        &[
            &["create", "Fix login", "-t", "bug", "-p", "0"],
            &["q", "Write docs"],
            &[
                "create",
                "Write docs",
                "-l",
                "docs",
                "-d",
                "For the login page.",
            ],
            &["create", "Bad priority", "-p", "9"],
        ],
    );
    stable(&sb, &Names::default(), || assert_snapshot!("create", text));
}

#[test]
fn update_and_claim_name_the_bead() {
    let (sb, repo, ids) = two();
    let (login, docs) = (ids.id("LOGIN"), ids.id("DOCS"));
    let text = screens(
        &repo,
        &[
            &["update", login, "--status", "in_progress"],
            &["update", docs, "--claim"],
            &["update", docs, "--claim", "--actor", "bob"],
            &["update", login, "--priority", "7"],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("update_claim", text));
}

#[test]
fn close_and_reopen_name_each_bead() {
    let (sb, repo, ids) = two();
    let (login, docs) = (ids.id("LOGIN"), ids.id("DOCS"));
    let text = screens(
        &repo,
        &[
            &["close", login, docs, "-r", "done"],
            &["reopen", login],
            &["close", "bd-nothere"],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("close_reopen", text));
}

#[test]
fn dep_add_list_and_remove_say_which_way_it_runs() {
    let (sb, repo, ids) = two();
    let (login, docs) = (ids.id("LOGIN"), ids.id("DOCS"));
    let text = screens(
        &repo,
        &[
            &["dep", "add", docs, login],
            &["dep", "add", login, docs, "-t", "related"],
            &["dep", "list", docs],
            &["dep", "remove", docs, login],
            &["dep", "list", docs],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("dep_add_list_remove", text));
}

#[test]
fn label_add_list_and_remove() {
    let (sb, repo, ids) = two();
    let login = ids.id("LOGIN");
    let text = screens(
        &repo,
        &[
            &["label", "add", login, "auth"],
            &["label", "add", login, "web"],
            &["label", "list", login],
            &["label", "remove", login, "auth"],
            &["label", "list", login],
        ],
    );
    stable(&sb, &ids, || {
        assert_snapshot!("label_add_list_remove", text)
    });
}

#[test]
fn note_defer_and_undefer() {
    let (sb, repo, ids) = two();
    let (login, docs) = (ids.id("LOGIN"), ids.id("DOCS"));
    let text = screens(
        &repo,
        &[
            &["note", login, "Tried clearing the cache."],
            &["defer", docs],
            &["undefer", docs],
            &["comment", login, "Reproduced on Firefox."],
            &["comments", login],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("note_defer_comment", text));
}

#[test]
fn duplicate_and_supersede_close_with_a_link() {
    let (sb, repo, mut ids) = two();
    let old = ids.name(repo.create("Old docs", &[]), "OLD");
    let (login, docs) = (ids.id("LOGIN"), ids.id("DOCS"));
    let text = screens(
        &repo,
        &[
            &["duplicate", docs, "--of", login],
            &["supersede", &old, "--with", login],
            &["show", &old],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("duplicate_supersede", text));
}

#[test]
fn delete_previews_until_forced() {
    let (sb, repo, ids) = two();
    let docs = ids.id("DOCS");
    let text = screens(
        &repo,
        &[
            &["delete", docs],
            &["delete", docs, "--force"],
            &["list", "--all"],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("delete", text));
}

#[test]
fn release_gives_held_work_back() {
    let (sb, repo, ids) = two();
    let (login, docs) = (ids.id("LOGIN"), ids.id("DOCS"));
    repo.beads(&["update", login, "--claim"]);
    let text = screens(
        &repo,
        &[
            &["release", login, "-r", "blocked on review"],
            &["release", docs],
            &["comments", login],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("release", text));
}

#[test]
fn rename_and_rename_prefix_say_where_beads_went() {
    let (sb, repo, mut ids) = two();
    let (login, docs) = (ids.id("LOGIN").to_owned(), ids.id("DOCS").to_owned());
    ids.name(docs.replacen("bd-", "kw-", 1), "KW_DOCS");
    ids.name("bd-login", "RENAMED");
    let (login, docs) = (login.as_str(), docs.as_str());
    repo.beads(&["dep", "add", docs, login]);
    let text = screens(
        &repo,
        &[
            &["rename", login, "bd-login"],
            &["rename", docs, "bd-login"],
            &["dep", "list", docs],
            &["rename-prefix", "kw"],
            &["list"],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("rename", text));
}
