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

use crate::common;

use common::tools::{npm_package, or_skip, python_tools};
use common::{Repo, Sandbox, bd_shim, expect_success, write_file};
use serde_json::{Value, json};

/// The pinned version of beads-ui.
const BEADS_UI: &str = "0.12.0";

/// The beads-mcp story, in Python.
const STORY: &str = include_str!("bd_tools/mcp_story.py");

/// The beads-ui story, in JavaScript.
const UI_STORY: &str = include_str!("bd_tools/ui_story.mjs");

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
    let Some(python) = or_skip("beads-mcp", python_tools()) else {
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
    let Some(pkg) = or_skip("beads-ui", npm_package("beads-ui", BEADS_UI)) else {
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
