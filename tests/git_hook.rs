//! The git-hook runner: `git beads git-hook NAME ARGS…` is what the installed shims
//! call, and the shims of earlier versions, which call `git beads hook NAME ARGS…`,
//! keep working until `hooks install` rewrites them.

use crate::common;

use common::{Repo, Sandbox, write_script};
use serde_json::Value;

const BEGIN: &str = "# >>> git-beads >>>";
const END: &str = "# <<< git-beads <<<";

/// A repository with a store and an agent `rig/nux` at work in it
/// ([`Repo::agent_at_work`]); returns the session.
fn agent_at_work(sb: &Sandbox) -> (Repo, String) {
    let repo = sb.store();
    let (_, session) = repo.agent_at_work();
    (repo, session)
}

/// Checks that the last commit carries the session's trailers and provenance note.
fn assert_recorded(repo: &Repo, session: &str) {
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Beads-Agent: rig/nux\n"), "{message}");
    assert!(
        message.contains(&format!("Beads-Session: {session}")),
        "{message}"
    );
    let head = repo.head();
    let p = repo.beads_json(&["provenance", &head]);
    assert_eq!(p["records"][0]["session"], session, "{p}");
}

/// The post-commit entry of a `hooks` report.
fn post_commit(report: &Value) -> &Value {
    report["hooks"]
        .as_array()
        .and_then(|hooks| hooks.iter().find(|h| h["hook"] == "post-commit"))
        .unwrap_or_else(|| panic!("no post-commit in {report}"))
}

#[test]
fn installed_shims_call_git_hook() {
    let sb = Sandbox::new();
    let (repo, session) = agent_at_work(&sb);
    repo.beads(&["hooks", "install"]);
    let hooks = repo.common_dir().join("hooks");
    let hook = std::fs::read_to_string(hooks.join("prepare-commit-msg")).expect("read the hook");
    assert!(
        hook.contains("git-beads git-hook prepare-commit-msg \"$@\""),
        "{hook}"
    );
    // No post-commit hook: the next command finds the commit by its trailers.
    assert!(!hooks.join("post-commit").exists());
    repo.commit_file("login.rs", "fn login() {}\n", "login: check the password");
    assert_recorded(&repo, &session);
}

#[test]
fn shims_of_earlier_versions_keep_working_until_reinstalled() {
    let sb = Sandbox::new();
    let (repo, session) = agent_at_work(&sb);
    let dir = repo.common_dir().join("hooks");
    for hook in ["prepare-commit-msg", "post-commit"] {
        write_script(
            &dir.join(hook),
            &format!("#!/bin/sh\n{BEGIN}\ngit beads hook {hook} \"$@\"\n{END}\n"),
        );
    }
    repo.commit_file("login.rs", "fn login() {}\n", "login: check the password");
    assert_recorded(&repo, &session);

    let status = repo.beads_json(&["hooks", "status"]);
    assert_eq!(post_commit(&status)["state"], "outdated", "{status}");
    assert!(
        post_commit(&status)["advice"]
            .as_str()
            .is_some_and(|a| a.contains("no post-commit hook")),
        "{status}"
    );
    let installed = repo.beads_json(&["hooks", "install"]);
    // The file held nothing but git-beads' block: it goes.
    assert_eq!(post_commit(&installed)["change"], "deleted", "{installed}");
    assert!(!dir.join("post-commit").exists());
    let text = std::fs::read_to_string(dir.join("prepare-commit-msg")).expect("read the hook");
    assert!(!text.contains("git beads hook "), "{text}");
    let status = repo.beads_json(&["hooks", "status"]);
    assert!(
        status["hooks"].as_array().is_some_and(|h| h
            .iter()
            .all(|h| h["hook"] != "post-commit" && h["state"] == "installed")),
        "{status}"
    );
    repo.commit_file("login2.rs", "fn login() {}\n", "login: again");
    assert_recorded(&repo, &session);
}

#[test]
fn git_hook_refuses_what_is_not_a_git_hook() {
    let sb = Sandbox::new();
    let repo = sb.store();
    let (code, err) = repo.beads_fail(&["git-hook", "pre-commit"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pre-commit"), "{err}");
}

#[test]
fn git_hook_is_hidden_from_help() {
    let cli = git_beads::cli::command();
    let git_hook = cli.find_subcommand("git-hook").expect("git-hook");
    assert!(git_hook.is_hide_set());
}

#[test]
fn trailers_are_placed_as_git_interpret_trailers_places_them() {
    let sb = Sandbox::new();
    let repo = sb.repo("work", "alice");
    let trailers = [("Beads-Agent", "rig/nux"), ("Beads-Session", "ses-1")];
    let messages = [
        "Fix the parser\n",
        "Fix\n\nBody text.\n",
        "Fix\n\nBody.\n\nSigned-off-by: A <a@example.com>\n",
        "Fix\n\nBeads-Agent: rig/nux\nBeads-Session: ses-1\n",
        "Fix\n\nBeads-Agent: rig/other\n",
        "Fix\n\n# Please enter the commit message for your changes.\n#\n# On branch main\n",
        "Fix\n\n# ------------------------ >8 ------------------------\n# Do not modify or remove the line above.\ndiff --git a/x b/x\n",
        "\n# Please enter the commit message for your changes.\n",
        "# Please enter the commit message for your changes.\n",
        "Fix\n\n\n\nBody.\n\n\n",
        "fix: the parser\n",
        "Fix\n\nSee: the docs\nand then some more text\nand more\nand more\nand more\n",
        "Fix\n\nCo-authored-by: X <x@example.com>\n  continued\n",
        "Fix\n\nBody.\n\nSigned-off-by: A <a@example.com>\nplain words\nmore words\n",
    ];
    let file = sb.path().join("message");
    for text in messages {
        std::fs::write(&file, text).expect("write");
        let mut args = vec![
            "interpret-trailers".to_owned(),
            "--in-place".to_owned(),
            "--if-exists".to_owned(),
            "addIfDifferent".to_owned(),
        ];
        for (k, v) in trailers {
            args.push("--trailer".to_owned());
            args.push(format!("{k}: {v}"));
        }
        args.push(file.to_string_lossy().into_owned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        repo.git(&args);
        let by_git = std::fs::read_to_string(&file).expect("read");
        let ours = git_beads::model::with_trailers(text, &trailers, '#')
            .unwrap_or_else(|| text.to_owned());
        assert_eq!(ours, by_git, "for the message {text:?}");
    }
}

#[test]
fn a_commit_outside_a_session_starts_no_git_beads() {
    let sb = Sandbox::new();
    let (repo, session) = agent_at_work(&sb);
    repo.beads(&["hooks", "install"]);
    // A `git-beads` first on PATH that notes each start, then runs the real one.
    let wrapper = sb.path().join("counting-bin");
    std::fs::create_dir_all(&wrapper).expect("wrapper dir");
    let starts = sb.path().join("starts");
    write_script(
        &wrapper.join("git-beads"),
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            starts.display(),
            common::bin().display()
        ),
    );
    let mut path = std::ffi::OsString::from(&wrapper);
    path.push(":");
    path.push(common::path_env());
    let repo = repo.with_env("PATH", path);
    // The hooks' starts (the test's own `git beads` commands go through it too).
    let started = || -> String {
        let all = std::fs::read_to_string(&starts).unwrap_or_default();
        all.lines()
            .filter(|l| l.starts_with("git-hook "))
            .map(|l| format!("{l}\n"))
            .collect()
    };

    // In the session, a message given with -m: the shim adds the trailers itself.
    repo.commit_file("a.rs", "// a\n", "a: in the session");
    assert_eq!(started(), "", "no git-beads for a plain message");
    assert_recorded(&repo, &session);
    // A message with comment lines (as an editor shows it) is left to git-beads.
    std::fs::write(repo.path.join("a2.rs"), "// a2\n").expect("write");
    repo.git(&["add", "a2.rs"]);
    let message = sb.path().join("message");
    std::fs::write(
        &message,
        "a2: edited\n\n# Please enter the commit message\n",
    )
    .expect("write");
    repo.git(&[
        "commit",
        "-q",
        "--cleanup=strip",
        "-F",
        message.to_str().expect("utf-8"),
    ]);
    let said = started();
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.starts_with("git-hook prepare-commit-msg "), "{said}");
    assert_recorded(&repo, &session);

    // Outside any session (ended, or the agent unbound): no git-beads at all.
    repo.beads(&["session", "end"]);
    std::fs::remove_file(&starts).expect("reset");
    let plain = repo.commit_file("b.rs", "// b\n", "b: after the session");
    repo.beads(&["agent", "unbind"]);
    repo.commit_file("c.rs", "// c\n", "c: unbound");
    assert_eq!(started(), "", "no git-beads starts outside a session");
    let message = repo.git(&["log", "-1", "--format=%B", &plain]);
    assert!(!message.contains("Beads-"), "{message}");
    assert!(
        repo.beads_json(&["provenance", &plain])["note"].is_null(),
        "no note outside a session"
    );
}

#[test]
fn install_takes_the_earlier_post_commit_block_out_and_keeps_the_users_lines() {
    let sb = Sandbox::new();
    let repo = sb.store();
    let hook = repo.common_dir().join("hooks").join("post-commit");
    write_script(
        &hook,
        &format!("#!/bin/sh\n{BEGIN}\ngit beads hook post-commit \"$@\"\n{END}\necho mine\n"),
    );
    let said = repo.beads_output(&["hooks", "install"]);
    let err = String::from_utf8_lossy(&said.stderr);
    assert!(said.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "post-commit: no longer needed; removed git-beads' block from {}",
            hook.display()
        )),
        "{err}"
    );
    assert!(err.contains("5 of 5 git hooks installed"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&hook).expect("read"),
        "#!/bin/sh\necho mine\n"
    );
}
