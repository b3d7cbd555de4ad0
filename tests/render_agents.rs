//! Snapshots of what an agent reads: `prime` in each state a session can start
//! in, `hook`, `agent show` and `list`, `formula list`, `show` and `validate`,
//! `mol progress`, `current` and `list`, and `mail inbox`.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screen, screens, stable};

/// A three-step formula: design, then build, then ship.
const RELEASE: &str = "description: Release a version\nsteps:\n  - id: design\n    title: Design\n  - id: build\n    title: Build\n    needs: [design]\n  - id: ship\n    title: Ship\n    needs: [build]\n";

/// A store whose worktree is bound to the new agent `rig/nux` (role polecat).
fn agent() -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("rig/nux", &["--role", "polecat"]);
    (sb, repo)
}

/// [`agent`], with a new bead "Fix login" (P1, named `LOGIN`) on `rig/nux`'s hook.
fn agent_with_login() -> (Sandbox, Repo, Names) {
    let (sb, repo) = agent();
    let mut names = Names::default();
    let id = names.name(repo.create("Fix login", &["-p", "1"]), "LOGIN");
    repo.beads(&["sling", &id, "rig/nux"]);
    (sb, repo, names)
}

/// Pours the release formula, slings the molecule onto `rig/nux`'s hook and
/// closes its first step; returns the molecule's id.
fn sling_release(repo: &Repo) -> String {
    repo.formula("release.yaml", RELEASE);
    let mol = repo.beads(&["mol", "pour", "release"]).trim().to_owned();
    repo.beads(&["sling", &mol, "rig/nux"]);
    repo.beads(&["close", &format!("{mol}.1")]);
    mol
}

#[test]
fn prime_for_a_person_lists_ready_work() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    names.name(repo.create("Fix login", &[]), "LOGIN");
    let text = screen(&repo, &["prime"]);
    stable(&sb, &names, || assert_snapshot!("prime_person", text));
}

#[test]
fn prime_for_a_fresh_agent_says_its_hook_is_empty() {
    let (sb, repo) = agent();
    let text = screen(&repo, &["prime"]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("prime_fresh_agent", text)
    });
}

#[test]
fn prime_shows_the_hook_the_molecule_and_unread_mail() {
    let (sb, repo, mut names) = agent_with_login();
    names.name(sling_release(&repo), "MOL");
    repo.beads(&[
        "--as-person",
        "mail",
        "send",
        "rig/nux",
        "-s",
        "Review wanted",
        "-m",
        "Look at the diff.",
    ]);
    names.name(repo.start_session(&["--model", "opus"]), "SESSION");
    let text = screen(&repo, &["prime"]);
    stable(&sb, &names, || {
        assert_snapshot!("prime_hook_mol_mail", text)
    });
}

#[test]
fn prime_after_a_crash_says_where_the_last_session_stood() {
    let (sb, repo, mut names) = agent_with_login();
    names.name(repo.start_session(&["--model", "opus"]), "CRASHED");
    // The first session dies without ending: the next one finds it crashed.
    names.name(repo.start_session(&["--model", "sonnet"]), "SESSION");
    let text = screen(&repo, &["prime"]);
    stable(&sb, &names, || assert_snapshot!("prime_after_crash", text));
}

#[test]
fn prime_after_a_handoff_shows_the_note_first() {
    let (sb, repo, mut names) = agent_with_login();
    names.name(repo.start_session(&[]), "PREVIOUS");
    repo.beads(&[
        "handoff",
        "-m",
        "CSRF check still missing.\nStart in auth.rs.",
    ]);
    names.name(repo.start_session(&[]), "SESSION");
    let text = screen(&repo, &["prime"]);
    stable(&sb, &names, || {
        assert_snapshot!("prime_after_handoff", text)
    });
}

#[test]
fn session_start_prints_the_prime() {
    let (sb, repo, names) = agent_with_login();
    let text = screen(&repo, &["session", "start", "--model", "opus"]);
    stable(&sb, &names, || assert_snapshot!("session_start", text));
}

#[test]
fn hook_lists_beads_and_molecules_with_their_steps() {
    let (sb, repo, mut names) = agent_with_login();
    names.name(sling_release(&repo), "MOL");
    let text = screens(&repo, &[&["hook"], &["hook", "rig/nux"]]);
    stable(&sb, &names, || assert_snapshot!("hook", text));
}

#[test]
fn an_empty_hook_says_so() {
    let (sb, repo) = agent();
    let text = screen(&repo, &["hook"]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("hook_empty", text)
    });
}

#[test]
fn agent_show_and_list_give_role_authority_budget_and_hook() {
    let (sb, repo, names) = agent_with_login();
    repo.beads(&[
        "agent",
        "create",
        "rig/nux/helper",
        "--role",
        "helper",
        "--budget",
        "tokens=1000,spend=2",
    ]);
    let text = screens(
        &repo,
        &[
            &["agent", "show", "rig/nux"],
            &["agent", "show", "rig/nux/helper"],
            &["agent", "list"],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("agent_show_list", text));
}

#[test]
fn formula_list_show_and_validate_describe_the_workflows() {
    let (sb, repo) = Sandbox::with_store();
    repo.formula("release.yaml", RELEASE);
    repo.formula(
        "broken.yaml",
        "steps:\n  - id: a\n    title: t\n    needs: [zz]\n",
    );
    let text = screens(
        &repo,
        &[
            &["formula", "list"],
            &["formula", "show", "release"],
            &["formula", "validate"],
        ],
    );
    stable(&sb, &Names::default(), || assert_snapshot!("formula", text));
}

#[test]
fn mol_current_and_list_say_what_to_do_now() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    let mol = names.name(sling_release(&repo), "MOL");
    let text = screens(&repo, &[&["mol", "current", &mol], &["mol", "list"]]);
    stable(&sb, &names, || assert_snapshot!("mol_current_list", text));
}

#[test]
fn mol_progress_checks_off_the_steps() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    let mol = names.name(sling_release(&repo), "MOL");
    let before = screen(&repo, &["mol", "progress", &mol]);
    repo.beads(&["close", &format!("{mol}.2"), &format!("{mol}.3")]);
    let after = screen(&repo, &["mol", "progress", &mol]);
    let text = format!("{before}\n{after}");
    stable(&sb, &names, || assert_snapshot!("mol_progress", text));
}

#[test]
fn mail_inbox_puts_unread_first() {
    let (sb, repo) = agent();
    let mut names = Names::default();
    for (subject, priority) in [("Old news", "3"), ("Urgent", "0"), ("Hello", "2")] {
        let id = repo.beads(&[
            "--as-person",
            "mail",
            "send",
            "rig/nux",
            "-s",
            subject,
            "-m",
            "Body.",
            "--priority",
            priority,
        ]);
        names.name(id.trim(), &subject.replace(' ', "-").to_uppercase());
    }
    repo.beads(&["mail", "read", names.id("OLD-NEWS")]);
    repo.beads(&["mail", "archive", names.id("HELLO")]);
    let text = screens(&repo, &[&["mail", "inbox"], &["mail", "inbox", "--all"]]);
    stable(&sb, &names, || assert_snapshot!("mail_inbox", text));
}
