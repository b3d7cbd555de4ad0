//! Snapshots of what a person reads when asking about the store: `stats` and
//! `count`, `epic status` and `children`, `types` and `statuses`, `info` and
//! `where`, `stale`, `lint`, `config` and `search`.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screen, screens, stable, stable_with};

/// A store with an epic (`EPIC`) of two children, one closed (`DONE`) and one open
/// (`OPEN`), and a bug outside it (`BUG`) that the open child waits for.
fn epic() -> (Sandbox, Repo, Names) {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let epic = names.name(repo.create("Accounts", &["-t", "epic"]), "EPIC");
    let bug = names.name(repo.create("Fix login", &["-t", "bug", "-p", "0"]), "BUG");
    names.name(
        repo.create("Sign up", &["--parent", &epic, "--deps", &bug]),
        "OPEN",
    );
    let done = names.name(repo.create("Sign in", &["--parent", &epic]), "DONE");
    repo.beads(&["close", &done]);
    (sb, repo, names)
}

#[test]
fn stats_and_count_add_up_the_store() {
    let (sb, repo, ids) = epic();
    let text = screens(
        &repo,
        &[
            &["stats"],
            &["count"],
            &["count", "--status", "open"],
            &["count", "--type", "bug"],
        ],
    );
    // How long closed beads took depends on the clock, not on the layout.
    let lead_time = (r"mean lead time +[0-9.]+ h", "mean lead time [HOURS] h");
    stable_with(&sb, &ids, &[lead_time], || {
        assert_snapshot!("stats_count", text)
    });
}

#[test]
fn epic_status_and_children_show_how_far_an_epic_is() {
    let (sb, repo, ids) = epic();
    let text = screens(
        &repo,
        &[
            &["epic", "status"],
            &["children", ids.id("EPIC")],
            &["children", ids.id("BUG")],
        ],
    );
    stable(&sb, &ids, || assert_snapshot!("epic_children", text));
}

#[test]
fn types_and_statuses_explain_each_value() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(&repo, &[&["types"], &["statuses"]]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("types_statuses", text)
    });
}

#[test]
fn info_and_where_say_where_the_store_is() {
    let (sb, repo, ids) = epic();
    let text = screens(&repo, &[&["info"], &["where"]]);
    stable(&sb, &ids, || assert_snapshot!("info_where", text));
}

#[test]
fn stale_lists_work_whose_holder_runs_no_session() {
    let (sb, repo, ids) = epic();
    let quiet = screen(&repo, &["stale"]);
    repo.beads(&["agent", "create", "rig/nux"]);
    repo.beads(&["update", ids.id("BUG"), "--claim", "--as", "rig/nux"]);
    let text = format!("{quiet}\n{}", screen(&repo, &["stale"]));
    stable(&sb, &ids, || assert_snapshot!("stale", text));
}

#[test]
fn lint_names_what_each_bead_lacks() {
    let (sb, repo) = Sandbox::with_store();
    // Lint lists beads by id: ids of the test's choosing keep that order fixed.
    for (id, title, kind, extra) in [
        ("bd-lint1", "Fix login", "bug", None),
        ("bd-lint2", "Accounts", "epic", None),
        ("bd-lint3", "Sign up", "task", None),
        ("bd-lint4", "Complete", "task", Some("The page loads.")),
    ] {
        let mut args = vec!["create", title, "--id", id, "-t", kind];
        if let Some(acceptance) = extra {
            args.extend(["--acceptance", acceptance]);
        }
        repo.beads(&args);
    }
    let text = screen(&repo, &["lint"]);
    stable(&sb, &Names::default(), || assert_snapshot!("lint", text));
}

#[test]
fn config_set_get_list_and_unset() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(
        &repo,
        &[
            &["config", "list"],
            &["config", "set", "project.name", "demo"],
            &["config", "get", "project.name"],
            &["config", "list"],
            &["config", "unset", "project.name"],
            &["config", "get", "beads.freshAfter"],
        ],
    );
    stable(&sb, &Names::default(), || assert_snapshot!("config", text));
}

#[test]
fn search_finds_by_text_and_says_when_nothing_matches() {
    let (sb, repo, ids) = epic();
    let text = screens(
        &repo,
        &[&["search", "sign"], &["search", "nothing like this"]],
    );
    stable(&sb, &ids, || assert_snapshot!("search", text));
}
