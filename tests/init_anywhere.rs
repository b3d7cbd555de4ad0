//! `init` where bd's works: in a directory that is no repository yet (it runs
//! `git init` there, as bd does), with bd's `--non-interactive --skip-agents
//! --skip-hooks`, confirming on stdout in bd's words; `BEADS_DIR` naming the `.beads`
//! whose repository holds the store, whatever the current directory; and a
//! `.beads/redirect` pointing one repository's commands at another's store.

use crate::common;

use std::path::Path;

use common::{Repo, Sandbox, write_file};

/// `git beads ARGS` in `cwd` with `env`, asserting success; returns stdout.
fn beads_in(sb: &Sandbox, cwd: &Path, env: &[(&str, &Path)], args: &[&str]) -> String {
    let repo = env
        .iter()
        .fold(Repo::at(sb, cwd, "tester"), |r, (k, v)| r.with_env(k, v));
    repo.beads(args)
}

/// A sandbox whose person has a git identity of their own (as people do), since a
/// directory with no repository has no config to take one from.
fn sandbox_with_identity() -> (Sandbox, std::path::PathBuf) {
    let sb = Sandbox::new();
    let config = sb.path().join("gitconfig");
    write_file(
        &config,
        "[user]\n\tname = tester\n\temail = tester@example.com\n",
    );
    (sb, config)
}

#[test]
fn init_in_a_plain_directory_makes_the_repository_and_says_so_on_stdout() {
    let (sb, config) = sandbox_with_identity();
    let dir = sb.path().join("plain");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let env = [("GIT_CONFIG_GLOBAL", config.as_path())];
    let said = beads_in(
        &sb,
        &dir,
        &env,
        &[
            "init",
            "--prefix",
            "test",
            "--non-interactive",
            "--skip-agents",
            "--skip-hooks",
        ],
    );
    assert_eq!(
        said.trim(),
        "✓ bd initialized successfully! (the store is refs/beads/main, prefix test)"
    );
    assert!(dir.join(".git").is_dir(), "git init ran");
    assert!(dir.join(".beads").is_dir(), "bd's tools look for .beads");
    let id = beads_in(&sb, &dir, &env, &["create", "first"]);
    assert!(id.trim().starts_with("test-"), "{id}");
    let repo = Repo::at(&sb, &dir, "tester").with_env("GIT_CONFIG_GLOBAL", &config);
    repo.git(&["fsck", "--no-progress"]);
    assert_eq!(repo.commit_count("refs/beads/main"), 2);
    // A second init finds the store and changes nothing.
    let again = beads_in(&sb, &dir, &env, &["init"]);
    assert_eq!(again.trim(), "the beads store already exists (prefix test)");
    assert_eq!(repo.commit_count("refs/beads/main"), 2);
}

#[test]
fn init_help_lists_the_flags_bds_tools_pass() {
    let (sb, _) = sandbox_with_identity();
    let help = beads_in(&sb, sb.path(), &[], &["init", "--help"]);
    for flag in ["--non-interactive", "--skip-agents", "--skip-hooks"] {
        assert!(help.contains(flag), "{flag} missing from\n{help}");
    }
}

#[test]
fn beads_dir_names_the_store_whatever_the_current_directory() {
    let (sb, config) = sandbox_with_identity();
    let beads_dir = sb.path().join("workspace/.beads");
    let elsewhere = sb.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    let env = [
        ("GIT_CONFIG_GLOBAL", config.as_path()),
        ("BEADS_DIR", beads_dir.as_path()),
    ];
    // The workspace does not exist yet: init makes it, its repository and its .beads.
    beads_in(&sb, &elsewhere, &env, &["init", "--prefix", "ws"]);
    assert!(beads_dir.is_dir());
    assert!(sb.path().join("workspace/.git").is_dir());
    assert!(
        !elsewhere.join(".git").exists(),
        "nothing made where it ran"
    );
    let id = beads_in(&sb, &elsewhere, &env, &["create", "from elsewhere"]);
    let listed = beads_in(&sb, &sb.path().join("workspace"), &env[..1], &["list"]);
    assert!(listed.contains(id.trim()), "{listed}");
}

#[test]
fn a_redirect_points_a_repositorys_commands_at_another_store() {
    let sb = Sandbox::new();
    let rig = sb.repo_with_store("rig", "alice");
    let crew = sb.repo("crew", "bob");
    write_file(
        &crew.path.join(".beads/redirect"),
        "# the rig's store\n../rig/.beads\n",
    );
    let id = crew.create("made from the crew's worktree", &[]);
    assert!(id.starts_with("bd-"), "the rig's prefix: {id}");
    let shown = rig.beads_json(&["show", &id]);
    assert_eq!(shown[0]["title"], "made from the crew's worktree");
    assert!(
        crew.git_output(&["rev-parse", "--verify", "-q", "refs/beads/main"])
            .stdout
            .is_empty(),
        "the crew's own repository has no store"
    );
}
