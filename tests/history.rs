//! bd's git-flavoured commands: `history` (a bead's states through the store's
//! commits), `diff` (what changed between two states of the store), `audit`
//! (entries kept in the store) and `orphans` (open beads that code commits name).

use crate::common;
use crate::render;

use common::Sandbox;
use insta::assert_snapshot;
use render::{Names, screens, stable};

#[test]
fn history_shows_each_state_of_a_bead_newest_first() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let a = names.name(repo.create("History test", &["-p", "3"]), "A");
    repo.create("Someone else", &[]);
    repo.beads(&["update", &a, "--status", "in_progress"]);
    repo.beads(&["update", &a, "-p", "1", "--title", "History test updated"]);

    let all = repo.beads_json(&["history", &a]);
    let states: Vec<(&str, &str, i64)> = common::items(&all)
        .iter()
        .map(|e| {
            let issue = &e["Issue"];
            (
                issue["title"].as_str().expect("title"),
                issue["status"].as_str().expect("status"),
                issue["priority"].as_i64().expect("priority"),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("History test updated", "in_progress", 1),
            ("History test", "in_progress", 3),
            ("History test", "open", 3),
        ]
    );
    let newest = &all[0];
    assert_eq!(
        newest["CommitHash"].as_str(),
        Some(repo.store_head().as_str())
    );
    assert_eq!(newest["Committer"], "alice");
    assert!(
        newest["CommitDate"]
            .as_str()
            .is_some_and(|d| d.ends_with('Z'))
    );

    let limited = repo.beads_json(&["history", &a, "--limit", "2"]);
    assert_eq!(common::items(&limited).len(), 2);
    assert_eq!(limited[1]["Issue"]["title"], "History test");
    // An id the store never held has no history: bd's empty answer, exit 0.
    assert_eq!(
        repo.beads_json(&["history", "bd-nothere"]),
        serde_json::json!([])
    );

    let text = screens(
        &repo,
        &[&["history", &a, "--limit", "2"], &["history", "bd-nothere"]],
    );
    stable(&sb, &names, || assert_snapshot!("history", text));
}
