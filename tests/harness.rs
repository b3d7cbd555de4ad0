//! The harness keeps the caller's shell out of every command it runs: this suite
//! runs one of its own tests again as a child with settings that would change what
//! git and git-beads do, and that test checks that none of them reaches a command.

use crate::common;

use std::process::Command;

use common::{Sandbox, write_file};

/// The caller's settings that must not leak: an agent to act as, a `git -c`
/// setting, and a config folder (set to a real one with a formula in it).
const LEAKS: [&str; 3] = [
    "GIT_BEADS_AGENT",
    "GIT_CONFIG_PARAMETERS",
    "XDG_CONFIG_HOME",
];

#[test]
fn the_callers_environment_does_not_reach_commands() {
    let config = common::tempdir();
    write_file(
        &config.path().join("git-beads/formulas/leaked.yaml"),
        "steps:\n  - id: a\n    title: Leaked\n",
    );
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(exe)
        .args([
            "--exact",
            "harness::commands_run_without_the_callers_settings",
            "--ignored",
        ])
        .env("GIT_BEADS_AGENT", "leaked-agent")
        .env("GIT_CONFIG_PARAMETERS", "'user.name'='leaked'")
        .env("XDG_CONFIG_HOME", config.path())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "run by the_callers_environment_does_not_reach_commands, with the leaks set"]
fn commands_run_without_the_callers_settings() {
    for name in LEAKS {
        assert!(
            std::env::var_os(name).is_some(),
            "{name} is not set: this test is run by \
             the_callers_environment_does_not_reach_commands, which sets it"
        );
    }
    let (sb, repo) = Sandbox::with_store();

    let env = common::stdout(&repo.command("env").output().expect("env runs"));
    for name in LEAKS {
        let set = format!("{name}=");
        assert!(!env.lines().any(|l| l.starts_with(&set)), "{env}");
    }
    assert_eq!(repo.git(&["config", "user.name"]).trim(), "alice");
    let id = repo.create("As the person", &[]);
    assert_eq!(repo.bead_json(&id)["created_by"], "alice");
    let formulas = repo.beads_json(&["formula", "list"]);
    assert!(
        !formulas.to_string().contains("leaked"),
        "{formulas} in {}",
        sb.path().display()
    );
}
