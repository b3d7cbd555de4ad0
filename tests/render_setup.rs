//! Snapshots of what a person reads while setting a repository up: `init`,
//! `hooks install`, `status` and `uninstall`, `remote setup`, `import` with a bad
//! line, `gc`, `worktree add`, and the texts of `onboard` and `quickstart`.

use crate::common;
use crate::render;

use common::{Sandbox, write_file};
use insta::assert_snapshot;
use render::{Names, screen, screens, stable};

#[test]
fn init_makes_the_store_once() {
    let sb = Sandbox::new();
    let repo = sb.repo("work", "alice");
    let text = screens(
        &repo,
        &[
            &["list"],
            &["init", "--prefix", "bd"],
            &["init"],
            &["init", "--prefix", "BAD PREFIX"],
        ],
    );
    stable(&sb, &Names::default(), || assert_snapshot!("init", text));
}

#[test]
fn hooks_install_status_and_uninstall_name_each_file() {
    let (sb, repo) = Sandbox::with_store();
    let text = screens(
        &repo,
        &[
            &["hooks", "status"],
            &["hooks", "install"],
            &["hooks", "status"],
            &["hooks", "uninstall"],
        ],
    );
    stable(&sb, &Names::default(), || assert_snapshot!("hooks", text));
}

#[test]
fn remote_setup_says_what_fetch_now_brings() {
    let sb = Sandbox::new();
    let (remote, repo) = sb.remote_with_code("work");
    repo.init();
    // `init` set up origin already; a second remote is set up by hand.
    repo.git(&[
        "remote",
        "add",
        "backup",
        remote.to_str().expect("utf-8 path"),
    ]);
    let text = screens(
        &repo,
        &[
            &["remote", "setup", "origin"],
            &["remote", "setup", "backup"],
            &["remote", "setup", "backup"],
            &["remote", "setup", "nowhere"],
        ],
    );
    stable(&sb, &Names::default(), || {
        assert_snapshot!("remote_setup", text)
    });
}

#[test]
fn import_reports_what_it_added_and_the_lines_it_skipped() {
    let (sb, repo) = Sandbox::with_store();
    let file = sb.path().join("issues.jsonl");
    write_file(
        &file,
        concat!(
            r#"{"id":"bd-a1","title":"From bd","status":"open","priority":1,"issue_type":"task","#,
            r#""created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"}"#,
            "\nnot json\n"
        ),
    );
    let file = file.to_str().expect("utf-8 path");
    let text = screens(
        &repo,
        &[
            &["import", file],
            &["import", "--skip-bad", file],
            &["import", "--skip-bad", file],
        ],
    );
    stable(&sb, &Names::default(), || assert_snapshot!("import", text));
}

#[test]
fn gc_says_how_many_snapshots_it_pruned() {
    let (sb, repo) = Sandbox::with_store();
    let text = screen(&repo, &["gc"]);
    stable(&sb, &Names::default(), || assert_snapshot!("gc", text));
}

#[test]
fn worktree_add_binds_the_new_worktree() {
    let (sb, repo) = Sandbox::with_store();
    repo.beads(&["agent", "create", "rig/nux"]);
    let mut names = Names::default();
    let login = names.name(repo.create("Fix login", &[]), "LOGIN");
    let place = sb.path().join("nux");
    let place = place.to_str().expect("utf-8 path");
    let text = screens(
        &repo,
        &[
            &[
                "worktree", "add", "--agent", "rig/nux", "--bead", &login, place,
            ],
            &["worktree", "add", "--agent", "rig/nobody", place],
        ],
    );
    stable(&sb, &names, || assert_snapshot!("worktree_add", text));
}

#[test]
fn onboard_prints_the_section_for_agents_md() {
    let (sb, repo) = Sandbox::with_store();
    let text = screen(&repo, &["onboard"]);
    stable(&sb, &Names::default(), || assert_snapshot!("onboard", text));
}

#[test]
fn quickstart_prints_the_first_steps() {
    let (sb, repo) = Sandbox::with_store();
    let text = screen(&repo, &["quickstart"]);
    stable(&sb, &Names::default(), || {
        assert_snapshot!("quickstart", text)
    });
}
