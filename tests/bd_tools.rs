//! bd's own tools, unchanged, against git-beads: beads-mcp 1.3.2 (the MCP server for
//! bd, from PyPI) driven by the official MCP Python client through a whole story —
//! create, show, dep, ready, blocked, claim, comment, update, close, reopen, list,
//! stats — with `BEADS_PATH` pointing at a `bd` shim that runs `git beads`; and
//! beads-ui 0.12.0 (bd's browser board, from npm) with `BD_BIN` at the same shim,
//! asked over its HTTP and WebSocket API what its issues list, epics and board show.
//!
//! The tools are installed under `target/bd-tools/` (a virtualenv and an npm folder,
//! reused when they are there; `.ci/run` prepares them). Where they cannot be
//! installed the test says so on stderr and passes, except with `CI=true`, where it
//! fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Repo, Sandbox, expect_success, write_file, write_script};
use serde_json::{Value, json};

/// The pinned version of beads-mcp.
const BEADS_MCP: &str = "beads-mcp==1.3.2";

/// The pinned version of beads-ui.
const BEADS_UI: &str = "beads-ui@0.12.0";

/// The beads-mcp story, in Python.
const STORY: &str = include_str!("bd_tools/mcp_story.py");

/// The beads-ui story, in JavaScript.
const UI_STORY: &str = include_str!("bd_tools/ui_story.mjs");

/// Where the tools are installed.
fn cache(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bd-tools")
        .join(name)
}

/// The virtualenv's directory.
fn venv() -> PathBuf {
    cache("venv")
}

/// Runs an install step; its stderr is the reason when it fails.
fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// What an install gave, or `None` (with a visible reason) when the tool cannot be
/// had outside CI.
fn or_skip<T>(tool: &str, installed: Result<T, String>) -> Option<T> {
    match installed {
        Ok(found) => Some(found),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true and {tool} cannot be installed: {why}")
        }
        Err(why) => {
            eprintln!("skipping: {tool} cannot be installed here: {why}");
            None
        }
    }
}

/// The shim bd's tools call: `bd ARGS` runs `git beads ARGS`.
fn bd_shim(sb: &Sandbox) -> PathBuf {
    let shim = sb.path().join("bin/bd");
    write_script(&shim, "#!/bin/sh\nexec git beads \"$@\"\n");
    shim
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

/// beads-ui's package directory, installed with npm unless it is there; or why it
/// could not be.
fn install_ui() -> Result<PathBuf, String> {
    let dir = cache("npm");
    let pkg = dir.join("node_modules/beads-ui");
    let ready = |pkg: &Path| {
        std::fs::read_to_string(pkg.join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|manifest| manifest["version"] == "0.12.0")
    };
    if ready(&pkg) {
        return Ok(pkg);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(BEADS_UI),
        "npm install",
    )?;
    match ready(&pkg) {
        true => Ok(pkg),
        false => Err("beads-ui 0.12.0 is not there after npm install".to_owned()),
    }
}

/// A repository with what beads-ui's views tell apart: an epic with two children,
/// the second blocked by the first, and a bead of its own that is ready. Returns
/// the repository and the ids (epic, first child, second child, loose bead).
fn board(sb: &Sandbox) -> (Repo, [String; 4]) {
    let repo = sb.store();
    let epic = repo.create("Ship the board", &["-t", "epic"]);
    let first = repo.create("Draw the columns", &["--parent", &epic]);
    let second = repo.create("Drag the cards", &["--parent", &epic]);
    repo.beads(&["dep", "add", &second, &first]);
    let loose = repo.create("Write the notes", &[]);
    (repo, [epic, first, second, loose])
}

#[test]
fn beads_mcp_runs_a_whole_story_against_git_beads() {
    let Some(python) = or_skip("beads-mcp", install()) else {
        return;
    };
    let (sb, repo) = Sandbox::with_store();
    let shim = bd_shim(&sb);
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

#[test]
fn beads_ui_shows_the_issues_epics_and_board_of_git_beads() {
    let Some(pkg) = or_skip("beads-ui", install_ui()) else {
        return;
    };
    let sb = Sandbox::new();
    let shim = bd_shim(&sb);
    let (repo, [epic, first, second, loose]) = board(&sb);
    let story = sb.path().join("ui_story.mjs");
    write_file(&story, UI_STORY);
    let out = repo
        .command("node")
        .arg(&story)
        .arg(&pkg)
        .arg(&first)
        .env("BD_BIN", &shim)
        .output()
        .expect("node runs");
    let text = expect_success("the beads-ui story", &out);
    let seen: Value = serde_json::from_str(text.trim()).expect("the story prints JSON");
    let sorted = |ids: &[&String]| {
        let mut ids: Vec<&String> = ids.to_vec();
        ids.sort();
        json!(ids)
    };
    assert_eq!(seen["page"], true, "{seen}");
    assert_eq!(seen["issues"], sorted(&[&epic, &first, &second, &loose]));
    assert_eq!(
        seen["epics"],
        json!([{"id": epic, "total_children": 2, "closed_children": 0}])
    );
    assert_eq!(seen["ready"], sorted(&[&first, &loose]), "{seen}");
    assert_eq!(seen["blocked"], json!([second]));
    assert_eq!(
        seen["detail"],
        json!([{"id": first, "title": "Draw the columns", "status": "open"}])
    );
    assert_eq!(seen["moved"], "in_progress", "{seen}");
    assert_eq!(seen["in_progress"], json!([first]));
    assert_eq!(seen["priority"], 0, "{seen}");
    assert_eq!(seen["labels"], json!(["ui"]), "{seen}");
    assert_eq!(seen["acceptance"], "Cards move", "{seen}");
    assert_eq!(seen["comments"], json!(["On it"]), "{seen}");
    assert_eq!(seen["created"], true, "{seen}");
    assert_eq!(seen["created_type"], "bug", "{seen}");
    assert_eq!(seen["deleted"], true, "{seen}");
    assert_eq!(seen["closed_status"], "closed", "{seen}");
    assert_eq!(seen["closed"], json!([first]));
    assert_eq!(seen["ready_after"], sorted(&[&second, &loose]), "{seen}");
}
