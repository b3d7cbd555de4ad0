//! `query`: bd's query language (fields, comparisons, AND / OR / NOT, parentheses)
//! over the store's beads and this machine's wisps, with bd's exit codes.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use serde_json::Value;

/// The ids `query ARGS --json` answers, in its order.
fn ids(repo: &Repo, args: &[&str]) -> Vec<String> {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    common::items(&repo.beads_json(&all))
        .iter()
        .map(|b| b["id"].as_str().expect("id").to_owned())
        .collect()
}

/// A store of five beads and a wisp: (sandbox, repo, [login, docs, old, review,
/// epic, wisp]).
fn store() -> (Sandbox, Repo, [String; 6]) {
    let (sb, repo) = Sandbox::with_store();
    let login = repo.create("Fix login", &["-p", "1", "-t", "bug", "-l", "urgent"]);
    let docs = repo.create("Write docs", &["-a", "bob", "-d", "About the login page"]);
    let old = repo.create("Old thing", &["-p", "3"]);
    repo.beads(&["close", &old]);
    let review = repo.create(
        "Review it",
        &[
            "-l",
            "gt:merge-request",
            "--metadata",
            r#"{"branch":"main"}"#,
        ],
    );
    let epic = repo.create("The epic", &["-t", "epic", "-p", "0"]);
    repo.beads(&["update", &docs, "--parent", &epic]);
    let wisp = repo
        .beads(&[
            "create",
            "Merge it",
            "--ephemeral",
            "-l",
            "gt:merge-request",
        ])
        .trim()
        .to_owned();
    (sb, repo, [login, docs, old, review, epic, wisp])
}

#[test]
fn query_reads_bds_grammar_and_answers_with_bds_json_and_exit_codes() {
    let (sb, repo, [login, docs, old, review, epic, wisp]) = store();
    assert_eq!(
        ids(&repo, &["status=open AND priority<=1"]),
        [epic.as_str(), login.as_str()],
        "highest priority first"
    );
    assert_eq!(
        ids(
            &repo,
            &[
                "(label=urgent OR assignee=bob) AND NOT type=epic",
                "--sort",
                "id"
            ]
        ),
        {
            let mut v = [login.clone(), docs.clone()];
            v.sort();
            v
        }
    );
    assert_eq!(
        ids(&repo, &["ephemeral=true", "AND", "label=gt:merge-request"]),
        [wisp.as_str()],
        "wisps are searched too; several words are one query"
    );
    assert_eq!(
        ids(&repo, &["label=GT:MERGE-REQUEST and not ephemeral=true"]),
        [review.as_str()]
    );
    assert_eq!(ids(&repo, &["metadata.branch=main"]), [review.as_str()]);
    assert_eq!(ids(&repo, &["description=login"]), [docs.as_str()]);
    assert_eq!(ids(&repo, &[&format!("parent={epic}")]), [docs.as_str()]);
    assert_eq!(
        ids(&repo, &["title=thing"]),
        Vec::<String>::new(),
        "closed beads are left out"
    );
    assert_eq!(ids(&repo, &["title=thing", "--all"]), [old.as_str()]);
    assert_eq!(
        ids(&repo, &["status=closed"]),
        [old.as_str()],
        "named status"
    );
    assert_eq!(
        ids(&repo, &["created>1d AND updated<=now", "-n", "2"]).len(),
        2
    );
    assert_eq!(
        ids(&repo, &["priority>=0", "--limit=0", "--all"]).len(),
        6,
        "--limit=0: all"
    );

    // What Gas Town's `query --json <QUERY> --all --limit=<N>` decodes.
    let json = repo.beads_json(&["query", "--json", "status=open", "--all", "--limit=10"]);
    for b in common::items(&json) {
        for (field, is) in [
            ("id", Value::is_string as fn(&Value) -> bool),
            ("title", Value::is_string),
            ("status", Value::is_string),
            ("priority", Value::is_u64),
            ("issue_type", Value::is_string),
            ("created_at", Value::is_string),
        ] {
            assert!(is(&b[field]), "{field}: {b}");
        }
    }

    // A bad query: one line, exit 1 as bd's, nothing changed.
    let head = repo.store_head();
    for (bad, says) in [
        ("status=open AND", "expected field name at position 15"),
        ("(status=open", "expected ')'"),
        ("colour=red", "unknown field: colour"),
        ("priority=high", "invalid priority"),
        ("status>open", "status does not support > operator"),
        ("status=bogus", "bogus is not a status"),
        ("updated>someday", "cannot parse time"),
    ] {
        let (code, err) = repo.beads_fail(&["query", bad]);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains(says), "{bad}: {err}");
    }
    let (code, err) = repo.beads_fail(&["query"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("query expression is required"), "{err}");
    assert_eq!(repo.store_head(), head);

    let mut names = render::Names::default();
    for (id, name) in [(&login, "LOGIN"), (&docs, "DOCS"), (&epic, "EPIC")] {
        names.name(id, name);
    }
    let text = render::screens(
        &repo,
        &[
            &[
                "query",
                "status=open AND NOT ephemeral=true AND priority<=2",
            ],
            &["query", "--long", "assignee=bob OR label=urgent"],
            &["query", "--parse-only", "a=1 or b=2 and not (c=3 or d>7d)"],
            &["query", "title=nothing"],
            &["query", "status=open AND"],
        ],
    );
    render::stable(&sb, &names, || insta::assert_snapshot!("query", text));
}
