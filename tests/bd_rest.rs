//! bd's smaller commands: `link`, `promote`, `ping`, `context`; and the table of
//! docs/coming-from-bd.md, which must name every top-level command of bd.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screens, stable_with};

/// bd's top-level commands, as cmd/bd at bd's commit fbcee6c6246c adds them to its
/// root command (the `Use` of each; the deprecated hidden alias `migrate-issues`
/// aside).
const BD_COMMANDS: &[&str] = &[
    "admin",
    "ado",
    "assign",
    "audit",
    "backup",
    "batch",
    "blocked",
    "bootstrap",
    "branch",
    "children",
    "close",
    "codex-hook",
    "comment",
    "comments",
    "compact",
    "config",
    "context",
    "cook",
    "count",
    "create",
    "create-form",
    "db-proxy-child",
    "defer",
    "delete",
    "dep",
    "diff",
    "doctor",
    "dolt",
    "duplicate",
    "duplicates",
    "edit",
    "epic",
    "export",
    "federation",
    "find-duplicates",
    "flatten",
    "forget",
    "formula",
    "gate",
    "gc",
    "github",
    "gitlab",
    "graph",
    "history",
    "hooks",
    "human",
    "import",
    "info",
    "init",
    "init-safety",
    "jira",
    "kv",
    "label",
    "linear",
    "link",
    "lint",
    "list",
    "mail",
    "memories",
    "merge-slot",
    "migrate",
    "mol",
    "note",
    "notion",
    "onboard",
    "orphans",
    "ping",
    "preflight",
    "prime",
    "priority",
    "promote",
    "prune",
    "purge",
    "q",
    "query",
    "quickstart",
    "ready",
    "recall",
    "remember",
    "rename",
    "rename-prefix",
    "reopen",
    "repo",
    "restore",
    "rules",
    "search",
    "set-state",
    "setup",
    "ship",
    "show",
    "sql",
    "stale",
    "state",
    "status",
    "statuses",
    "supersede",
    "swarm",
    "tag",
    "todo",
    "types",
    "undefer",
    "update",
    "upgrade",
    "vc",
    "version",
    "where",
    "worktree",
];

#[test]
fn the_table_names_every_command_of_bd() {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/coming-from-bd.md"),
    )
    .expect("docs/coming-from-bd.md");
    // A command is named when a code span of a row's first cell starts with it.
    let named: std::collections::BTreeSet<&str> = page
        .lines()
        .filter(|l| l.starts_with("| "))
        .filter_map(|l| l.split(" | ").next())
        .flat_map(|cell| cell.split('`').skip(1).step_by(2))
        .filter_map(|span| span.split_whitespace().next())
        .collect();
    let missing: Vec<&str> = BD_COMMANDS
        .iter()
        .copied()
        .filter(|c| !named.contains(c))
        .collect();
    assert!(missing.is_empty(), "bd commands without a row: {missing:?}");
}

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

    // A child's dependency on its parent would deadlock: refused, as bd refuses it.
    let epic = repo.create("An epic", &["-t", "epic"]);
    let child = repo.beads(&["create", "Its child", "--parent", &epic, "--silent"]);
    let before = repo.store_head();
    let (code, err) = repo.beads_fail(&["link", child.trim(), &epic]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("already a child of"), "{err}");
    assert_eq!(repo.store_head(), before, "a refusal changes nothing");

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
    assert_eq!(ping["issue_count"], 5);
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
