//! Who a command acts as, by the rules a person expects: a variable or flag applies to
//! the command it is given to; a session's binding of a worktree ends with the session
//! (also one that stopped without ending); a worktree bound on purpose stays bound; a
//! write made as an agent outside any session of its, not named on the command line,
//! says so in one line; `whoami` tells who a command here would act as, and why.

use crate::common;

use common::{Repo, Sandbox};
use serde_json::Value;

/// A store of alice's with agent `lead` and its child `lead/bob`, who may only create
/// and update.
fn team() -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    repo.lead_and_child("lead/bob", "create,update");
    (sb, repo)
}

/// `whoami --json` with `env` and `flags`: (actor, because).
fn whoami(repo: &Repo, env: &[(&str, &str)], flags: &[&str]) -> (String, String) {
    let mut args = flags.to_vec();
    args.extend(["--json", "whoami"]);
    let out = repo.beads_command(env, &args).output().expect("runs");
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    (
        v["actor"].as_str().expect("actor").to_owned(),
        v["because"].as_str().expect("because").to_owned(),
    )
}

/// The `Beads-Actor` trailer of the store's newest commit.
fn last_actor(repo: &Repo) -> String {
    repo.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Beads-Actor,valueonly)",
        "refs/beads/main",
    ])
    .trim()
    .to_owned()
}

/// Starts a session for `lead/bob` in `repo`, named by `GIT_BEADS_AGENT` for that
/// command alone (with `extra` arguments).
fn bob_starts(repo: &Repo, extra: &[&str]) {
    let mut args = vec!["session", "start"];
    args.extend_from_slice(extra);
    let out = repo
        .beads_command(&[("GIT_BEADS_AGENT", "lead/bob")], &args)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_one_off_session_binds_the_worktree_only_until_it_ends() {
    let (_sb, repo) = team();
    bob_starts(&repo, &[]);
    // During the session, plain commands here are the session's.
    assert_eq!(
        whoami(&repo, &[], &[]),
        ("lead/bob".into(), "session".into())
    );
    repo.create("during the session", &[]);
    assert_eq!(last_actor(&repo), "lead/bob");
    repo.beads(&["session", "end"]);
    // After it, the person again: authored by alice, with her authority.
    assert_eq!(whoami(&repo, &[], &[]), ("alice".into(), "person".into()));
    repo.create("after the session", &[]);
    assert_eq!(last_actor(&repo), "alice");
    repo.beads(&["agent", "create", "scout"]);
}

#[test]
fn a_session_that_stopped_without_ending_here_binds_nothing() {
    let (sb, repo) = team();
    bob_starts(&repo, &[]);
    // The session is superseded from another worktree (as a crashed one is, by the
    // next start elsewhere); this worktree's binding still names it.
    let other = sb.path().join("other");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        other.to_str().expect("utf-8"),
        "-b",
        "o",
    ]);
    let there = Repo::at(&sb, &other, "alice");
    bob_starts(&there, &["--take-over"]);
    assert_eq!(whoami(&repo, &[], &[]), ("alice".into(), "person".into()));
    assert_eq!(
        whoami(&there, &[], &[]),
        ("lead/bob".into(), "session".into())
    );
}

#[test]
fn a_worktree_bound_on_purpose_stays_bound_through_sessions() {
    let (_sb, repo) = team();
    repo.beads(&["agent", "bind", "lead"]);
    assert_eq!(whoami(&repo, &[], &[]), ("lead".into(), "bound".into()));
    repo.beads(&["session", "start"]);
    assert_eq!(whoami(&repo, &[], &[]), ("lead".into(), "bound".into()));
    repo.beads(&["session", "end"]);
    assert_eq!(whoami(&repo, &[], &[]), ("lead".into(), "bound".into()));
    repo.beads(&["agent", "unbind"]);
    assert_eq!(whoami(&repo, &[], &[]), ("alice".into(), "person".into()));
}

#[test]
fn whoami_says_which_flag_or_variable_named_the_actor() {
    let (_sb, repo) = team();
    let bob = [("GIT_BEADS_AGENT", "lead/bob")];
    assert_eq!(whoami(&repo, &bob, &[]), ("lead/bob".into(), "env".into()));
    assert_eq!(
        whoami(&repo, &bob, &["--as", "lead"]),
        ("lead".into(), "as-flag".into())
    );
    assert_eq!(
        whoami(&repo, &bob, &["--as-person"]),
        ("alice".into(), "as-person".into())
    );
    assert_eq!(
        whoami(&repo, &[], &["--actor", "lead"]),
        ("lead".into(), "actor-flag".into())
    );
    // The variable applied to those commands only.
    assert_eq!(whoami(&repo, &[], &[]), ("alice".into(), "person".into()));
}

#[test]
fn a_write_as_an_agent_outside_its_session_says_so_in_one_line() {
    let (_sb, repo) = team();
    let said = |env: &[(&str, &str)], args: &[&str]| {
        let out = repo.beads_command(env, args).output().expect("runs");
        assert!(out.status.success(), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (stderr.lines())
            .filter(|l| l.starts_with("note: "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let note = "note: this wrote as agent lead outside any session of its (`git beads \
                whoami` says why; `git beads session start` starts one)";
    // Named by a variable set for the command, or by the worktree's binding.
    let lead = [("GIT_BEADS_AGENT", "lead")];
    assert_eq!(said(&lead, &["create", "by the variable"]), [note]);
    repo.beads(&["agent", "bind", "lead"]);
    assert_eq!(said(&[], &["create", "by the binding"]), [note]);
    // Named on the command line, it is no surprise; a read writes nothing; a write in
    // the agent's session is the session's.
    assert!(said(&[], &["--as", "lead", "create", "named"]).is_empty());
    assert!(said(&[], &["list"]).is_empty());
    repo.beads(&["session", "start"]);
    assert!(said(&[], &["create", "inside"]).is_empty());
}
