//! bd's smaller commands: `link`, `promote`, `ping`, `context`.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screens, stable_with};

#[test]
fn link_promote_ping_and_context() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let a = names.name(repo.create("Login page", &[]), "A");
    let b = names.name(repo.create("Auth service", &[]), "B");
    let wisp = repo.beads(&["create", "Scratch idea", "--ephemeral", "--silent"]);
    let wisp = names.name(wisp.trim(), "WISP");

    let linked = repo.beads_json(&["link", &a, &b]);
    assert_eq!(linked["status"], "added");
    assert_eq!(linked["type"], "blocks");
    assert_eq!(
        common::dep_pairs(&repo.beads_json(&["show", &a])[0]).len(),
        1
    );

    let promoted = repo.beads_json(&["promote", &wisp, "--reason", "worth keeping"]);
    assert_eq!(promoted["id"], wisp.as_str());
    assert!(promoted.get("ephemeral").is_none(), "{promoted}");
    assert_eq!(
        promoted["comments"][0]["text"],
        "Promoted from wisp to permanent bead: worth keeping"
    );
    let subject = repo.git(&["log", "-1", "--format=%s", "refs/beads/main"]);
    assert_eq!(subject.trim(), format!("promote {wisp}: Scratch idea"));
    let wisps = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/local/wisps"]);
    assert!(!wisps.contains(&wisp), "{wisps}");
    let head = repo.store_head();

    let text = screens(
        &repo,
        &[
            &["link", &a, &b, "--type", "related"],
            &["promote", &wisp],
            &["promote", "bd-nothere"],
            &["ping"],
            &["context"],
        ],
    );
    let ping = repo.beads_json(&["ping"]);
    assert_eq!(ping["status"], "ok");
    assert_eq!(ping["issue_count"], 3);
    assert_eq!(ping["head"], repo.store_head().as_str());
    // Only the related link wrote; the refused promotes changed nothing.
    assert_eq!(
        repo.git(&["rev-parse", "refs/beads/main~1"]).trim(),
        head.as_str()
    );
    let filters = [(r"\(\d+ms\)", "([MS])")];
    stable_with(&sb, &names, &filters, || assert_snapshot!("commands", text));

    // BEADS_DIR and a redirect choose the store, and say so.
    let beads_dir = repo.path.join(".beads");
    let away = Repo::at(&sb, sb.path(), "alice").with_env("BEADS_DIR", &beads_dir);
    let chosen = away.beads_json(&["context"]);
    assert_eq!(chosen["because"], "beads-dir");
    assert_eq!(chosen["store_ref"], "refs/beads/main");
    let rig = sb.path().join("rig");
    std::fs::create_dir_all(rig.join(".beads")).expect("rig");
    let target = format!("{}\n", beads_dir.display());
    std::fs::write(rig.join(".beads/redirect"), target).expect("redirect");
    let redirected = Repo::at(&sb, &rig, "alice").beads_json(&["context"]);
    assert_eq!(redirected["because"], "redirect");
    assert_eq!(redirected["is_redirected"], true);
}
