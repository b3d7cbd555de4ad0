//! Snapshots of what a person reads while running a team of agents: `agent
//! create`, `sling` and `unsling`, the mail verbs past the inbox (`peek`, `reply`,
//! `thread`, `ack`, `search`), sessions (`list`, `show`, `usage`, `end`,
//! `handoff`), gates with none waiting, and a molecule poured, squashed and a wisp
//! burned.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screen, screens, stable, stable_with};

/// A two-step formula: build, then ship.
const SHIP: &str = "description: Ship a change\nsteps:\n  - id: build\n    title: Build\n  - id: ship\n    title: Ship\n    needs: [build]\n";

/// A store whose worktree is bound to the new agent `rig/nux` (role polecat).
fn agent() -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("rig/nux", &["--role", "polecat"]);
    (sb, repo)
}

#[test]
fn agent_create_and_list_show_the_new_identity() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(
        &repo,
        &[
            &["agent", "create", "rig/nux", "--role", "polecat"],
            &["agent", "create", "rig/nux"],
            &["agent", "bind", "rig/nux"],
            &["agent", "list"],
        ],
    );
    stable(&sb, &Names::default(), || {
        assert_snapshot!("agent_create_bind", text)
    });
}

#[test]
fn sling_and_unsling_move_work_on_and_off_a_hook() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    let login = names.name(repo.create("Fix login", &["-p", "1"]), "LOGIN");
    let text = screens(
        &repo,
        &[
            &["sling", &login, "rig/nux"],
            &["hook", "rig/nux"],
            &["unsling", "rig/nux", &login],
            &["hook", "rig/nux"],
            &["sling", &login, "rig/nobody"],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("sling_unsling", text));
}

#[test]
fn mail_peek_reply_thread_and_search() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    let first = repo.beads(&[
        "mail",
        "send",
        "rig/nux",
        "-s",
        "Review",
        "-m",
        "Please review.",
        "-p",
        "1",
    ]);
    let first = names.name(first.trim(), "REVIEW");
    let text = screen(&repo, &["mail", "reply", &first, "-m", "Done."]);
    names.name(second_line(&text), "REPLY");
    let text = format!(
        "{text}\n{}",
        screens(
            &repo,
            &[
                &["mail", "peek", &first],
                &["mail", "thread", &first],
                &["mail", "ack", &first],
                &["mail", "search", "nothing like this"],
            ],
        )
    );
    stable(&sb, &names, || assert_snapshot!("mail_reply_thread", text));
}

#[test]
fn session_list_show_usage_and_end() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    let session = names.name(repo.start_session(&["--model", "opus"]), "SESSION");
    let text = screens(
        &repo,
        &[
            &[
                "session",
                "usage",
                "--turn",
                "--tokens",
                "1200",
                "--spend",
                "0.25",
                "--tool-calls",
                "3",
            ],
            &["session", "list"],
            &["session", "show", &session],
            &["session", "end", "--reason", "handoff"],
            &["session", "end"],
        ],
    );
    // The host a session runs on is this machine's name.
    let host = (r"(?m)^(  worktree \S+) on \S+$", "$1 on [HOST]");
    stable_with(&sb, &names, &[host], || {
        assert_snapshot!("session_usage_end", text)
    });
}

#[test]
fn handoff_ends_the_session_with_a_note() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    names.name(repo.start_session(&[]), "SESSION");
    let text = screens(
        &repo,
        &[
            &["handoff", "-m", "Next: the tests of the login form."],
            &["handoff", "-m", "Again."],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("handoff", text));
}

#[test]
fn gates_with_none_waiting_say_so() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(&repo, &[&["gate", "list"], &["human"]]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("gates_empty", text)
    });
}

#[test]
fn mol_pour_squash_and_wisp_burn() {
    let (sb, repo) = Sandbox::with_store();
    repo.formula("ship.yaml", SHIP);
    let mut names = Names::default();
    let pour = screen(&repo, &["mol", "pour", "ship"]);
    let mol = names.name(second_line(&pour), "MOL");
    repo.beads(&["close", &format!("{mol}.1"), &format!("{mol}.2")]);
    let squash = screen(&repo, &["mol", "squash", &mol]);
    let wisp = screen(&repo, &["mol", "wisp", "ship"]);
    let burned = names.name(second_line(&wisp), "WISP");
    let burn = screen(&repo, &["mol", "burn", &burned]);
    let text = [pour, squash, wisp, burn].join("\n");
    stable(&sb, &names, || {
        assert_snapshot!("mol_pour_squash_wisp", text)
    });
}

/// The first line a command printed in a [`screen`]: the id it answered with.
fn second_line(screen: &str) -> String {
    screen.lines().nth(1).unwrap_or_default().trim().to_owned()
}
