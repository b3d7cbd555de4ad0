//! A first end-to-end check of the harness and the core commands.

use crate::common;

#[test]
fn create_show_close_round_trip() {
    let (_sb, repo) = common::Sandbox::with_store();
    let id = repo.create("Write the tests", &["-p", "1", "-l", "qa"]);
    assert!(id.starts_with("bd-"), "{id}");
    let shown = repo.beads_json(&["show", &id]);
    assert_eq!(shown[0]["title"], "Write the tests");
    assert_eq!(shown[0]["created_by"], "alice");
    repo.beads(&["close", &id, "--reason", "done"]);
    let shown = repo.beads_json(&["show", &id]);
    assert_eq!(shown[0]["status"], "closed");
    let yaml = repo.git(&[
        "show",
        &format!("refs/beads/main:beads/{}/{id}.yaml", &id[3..5]),
    ]);
    assert!(yaml.contains("close_reason: done"), "{yaml}");
    let author = repo.git(&["log", "-1", "--format=%an <%ae>", "refs/beads/main"]);
    assert_eq!(author.trim(), "alice <alice@example.com>");
}
