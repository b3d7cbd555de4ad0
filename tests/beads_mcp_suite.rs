//! beads-mcp's own integration tests, unchanged, against git-beads: the tests of the
//! sdist of the beads-mcp release on PyPI that drive a real `bd` (its client over
//! `bd` and its MCP server over stdio), with the README's `bd` wrapper first on PATH.
//! Every test passes except the one that looks for bd's own database files on disk,
//! and none is skipped: each starts with `bd init --prefix test --non-interactive
//! --skip-agents --skip-hooks` in a plain temporary directory (no repository yet),
//! with `BEADS_DIR` at its `.beads`.
//!
//! The suite and pytest are installed under `target/bd-tools/` (`.ci/run` prepares
//! them); where they cannot be, the test says so on stderr and passes, except with
//! `CI=true`, where it fails.

use crate::common;

use common::tools::{beads_mcp_suite, or_skip};
use common::{Sandbox, bd_shim, path_env, write_file};

/// The suite's files that drive a real `bd`.
const FILES: [&str; 2] = [
    "tests/test_bd_client_integration.py",
    "tests/test_mcp_server_integration.py",
];

/// Tests left out, each because it checks bd's own files rather than what bd does.
const NOT_RUN: [(&str, &str); 1] = [(
    "test_init_creates_beads_directory",
    "asserts bd's Dolt files (metadata.json, embeddeddolt/) under .beads",
)];

#[test]
fn beads_mcps_own_integration_tests_pass_against_git_beads() {
    let Some((python, suite)) = or_skip("beads-mcp's test suite", beads_mcp_suite()) else {
        return;
    };
    let sb = Sandbox::new();
    let shim = bd_shim(&sb);
    // bd needs no git identity; git does: the person running the suite has one.
    let gitconfig = sb.path().join("gitconfig");
    write_file(
        &gitconfig,
        "[user]\n\tname = tester\n\temail = tester@example.com\n",
    );
    let mut path = vec![shim.parent().expect("the shim's folder").to_owned()];
    path.extend(std::env::split_paths(&path_env()));
    let deselect = NOT_RUN.map(|(name, _)| format!("not {name}")).join(" and ");
    let out = std::process::Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rfEs",
            "-k",
            &deselect,
        ])
        .args(FILES)
        .current_dir(&suite)
        .env_clear()
        .env("PATH", std::env::join_paths(path).expect("PATH joins"))
        .env("HOME", sb.path())
        .env("TMPDIR", sb.path())
        .env("GIT_CONFIG_GLOBAL", &gitconfig)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("pytest runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "beads-mcp's tests failed:\n{text}");
    let summary = text
        .lines()
        .rev()
        .find(|l| l.contains(" passed"))
        .unwrap_or_else(|| panic!("no pytest summary:\n{text}"));
    for word in [" skipped", " failed", " error"] {
        assert!(!summary.contains(word), "{summary}\n{text}");
    }
}
