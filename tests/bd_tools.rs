//! bd's own tools, unchanged, against git-beads: beads-mcp 1.3.2 (the MCP server for
//! bd, from PyPI) driven by the official MCP Python client through a whole story —
//! create, show, dep, ready, blocked, claim, comment, update, close, reopen, list,
//! stats — with `BEADS_PATH` pointing at a `bd` shim that runs `git beads`.
//!
//! The tools are installed into a virtualenv under `target/bd-tools/` (reused when it
//! is there; `.ci/run` prepares it). Where they cannot be installed the test says so
//! on stderr and passes, except with `CI=true`, where it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Sandbox, expect_success, write_file, write_script};

/// The pinned version of beads-mcp.
const BEADS_MCP: &str = "beads-mcp==1.3.2";

/// The story, in Python.
const STORY: &str = include_str!("bd_tools/mcp_story.py");

/// The virtualenv's directory.
fn venv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bd-tools/venv")
}

/// Whether the virtualenv has beads-mcp and the MCP client.
fn ready(python: &Path) -> bool {
    Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m, mcp; assert m.version('beads-mcp') == '1.3.2'",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Makes the virtualenv with beads-mcp and the MCP client, unless it is there;
/// returns its python, or why it could not.
fn install() -> Result<PathBuf, String> {
    let dir = venv();
    let python = dir.join("bin/python");
    if ready(&python) {
        return Ok(python);
    }
    let run = |cmd: &mut Command, what: &str| -> Result<(), String> {
        let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(format!(
                "{what} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    };
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&dir),
        "python3 -m venv",
    )?;
    run(
        Command::new(&python).args(["-m", "pip", "install", "-q", BEADS_MCP, "mcp"]),
        "pip install",
    )?;
    match ready(&python) {
        true => Ok(python),
        false => Err("beads-mcp is not importable after pip install".to_owned()),
    }
}

/// The tools' python, or `None` (with a visible reason) when they cannot be had
/// outside CI.
fn tools() -> Option<PathBuf> {
    match install() {
        Ok(python) => Some(python),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true and beads-mcp cannot be installed: {why}")
        }
        Err(why) => {
            eprintln!("skipping: beads-mcp cannot be installed here: {why}");
            None
        }
    }
}

#[test]
fn beads_mcp_runs_a_whole_story_against_git_beads() {
    let Some(python) = tools() else {
        return;
    };
    let (sb, repo) = Sandbox::with_store();
    let shim = sb.path().join("bin/bd");
    write_script(&shim, "#!/bin/sh\nexec git beads \"$@\"\n");
    let story = sb.path().join("mcp_story.py");
    write_file(&story, STORY);
    let server = python.with_file_name("beads-mcp");
    let out = repo
        .command(python.to_str().expect("utf-8 path"))
        .arg(&story)
        .arg(&server)
        .env("BEADS_PATH", &shim)
        .env("BEADS_WORKING_DIR", &repo.path)
        .output()
        .expect("python runs");
    let text = expect_success("the beads-mcp story", &out);
    assert_eq!(text.lines().last(), Some("story ok"), "{text}");
}
