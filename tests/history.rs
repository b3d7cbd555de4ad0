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

#[test]
fn diff_compares_two_states_by_revision_or_moment() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let stays = names.name(repo.create("Stays", &["-p", "3"]), "STAYS");
    let goes = names.name(repo.create("Goes", &[]), "GOES");
    let base = repo.store_head();
    names.name(base.as_str(), "BASE");
    repo.beads(&["update", &stays, "-s", "in_progress", "-p", "1"]);
    repo.beads(&["update", &stays, "--title", "Stays, renamed"]);
    repo.beads(&["delete", &goes, "--force"]);
    let arrives = names.name(repo.create("Arrives", &[]), "ARRIVES");
    let code = repo.commit_file("README", "code\n", "code");

    let all = repo.beads_json(&["diff", &base, "HEAD"]);
    let kinds: Vec<(&str, &str)> = common::items(&all)
        .iter()
        .map(|e| {
            (
                e["IssueID"].as_str().expect("IssueID"),
                e["DiffType"].as_str().expect("DiffType"),
            )
        })
        .collect();
    let mut expected = vec![
        (stays.as_str(), "modified"),
        (goes.as_str(), "removed"),
        (arrives.as_str(), "added"),
    ];
    expected.sort();
    assert_eq!(kinds, expected);
    let entry = |id: &str| {
        common::items(&all)
            .iter()
            .find(|e| e["IssueID"] == id)
            .expect("an entry")
    };
    let modified = entry(&stays);
    assert_eq!(modified["OldValue"]["title"], "Stays");
    assert_eq!(modified["NewValue"]["title"], "Stays, renamed");
    let fields: Vec<&str> = common::items(&modified["Changes"])
        .iter()
        .map(|c| c["Field"].as_str().expect("Field"))
        .collect();
    assert_eq!(fields[..3], ["title", "status", "priority"]);
    assert_eq!(modified["Changes"][1]["Old"], "open");
    assert_eq!(modified["Changes"][1]["New"], "in_progress");
    let removed = entry(&goes);
    assert!(removed["NewValue"].is_null() && removed["OldValue"]["title"] == "Goes");
    // The same state twice, and the store before it began against a moment after it.
    assert_eq!(
        repo.beads_json(&["diff", "HEAD~2", "refs/beads/main~2"]),
        serde_json::json!([])
    );
    let since_ever = repo.beads_json(&["diff", "2000-01-01", "2999-01-01T00:00:00Z"]);
    assert!(
        common::items(&since_ever)
            .iter()
            .all(|e| e["DiffType"] == "added")
    );
    assert_eq!(common::items(&since_ever).len(), 2);

    let head = repo.store_head();
    let text = screens(
        &repo,
        &[
            &["diff", &base, "HEAD"],
            &["diff", "HEAD", &head],
            &["diff", "no-such-rev", "HEAD"],
            &["diff", &code, "HEAD"],
        ],
    );
    assert_eq!(repo.store_head(), head, "a diff writes nothing");
    stable(&sb, &names, || assert_snapshot!("diff", text));
}

#[test]
fn diff_by_dates_reads_the_store_as_it_was_then() {
    let (sb, repo) = Sandbox::with_store();
    let id = repo.create("Dated", &[]);
    let path = common::doc_path(&id);
    let doc = repo.git(&["show", &format!("refs/beads/main:{path}")]);
    // Two later states, committed at known times (git-beads stamps its own commits
    // with the clock).
    for (year, title) in [("2090", "Title in 2090"), ("2091", "Title in 2091")] {
        let dated = common::Repo::at(&sb, &repo.path, "alice")
            .with_env("GIT_COMMITTER_DATE", format!("{year}-01-01T00:00:00Z"));
        let text = doc.replace("title: Dated", &format!("title: {title}"));
        dated.put_raw_doc(&path, text.as_bytes());
    }
    let title_change = |from: &str, to: &str| {
        let d = repo.beads_json(&["diff", from, to]);
        let e = &d[0];
        (
            e["DiffType"].as_str().unwrap_or_default().to_owned(),
            e["OldValue"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            e["NewValue"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    assert_eq!(
        title_change("2090-06-01", "2091-06-01T00:00:00+02:00"),
        (
            "modified".into(),
            "Title in 2090".into(),
            "Title in 2091".into()
        )
    );
    assert_eq!(
        title_change("2000-01-01", "2090-01-01T00:00:00Z"),
        ("added".into(), String::new(), "Title in 2090".into())
    );
}

#[test]
fn orphans_lists_open_beads_that_code_commits_name() {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    // Ids of our choosing: the list is in id order, and the snapshot with it.
    let done = names.name(
        repo.create("Done in code", &["-l", "web", "--id", "bd-done1"]),
        "DONE",
    );
    let half = names.name(repo.create("Half done", &["--id", "bd-half2"]), "HALF");
    let closed = names.name(repo.create("Closed already", &[]), "CLOSED");
    names.name(repo.create("Never named", &[]), "NEVER");
    repo.beads(&["close", &closed]);
    repo.beads(&["update", &half, "-s", "in_progress"]);
    // A long code history: 3000 commits in one fast-import, the oldest naming HALF.
    let mut stream = String::new();
    for n in 0..3000 {
        let named = if n == 0 {
            format!(" ({half})")
        } else {
            String::new()
        };
        let parent = if n == 0 {
            String::new()
        } else {
            format!("from :{n}\n")
        };
        let msg = format!("change {n}{named}");
        stream.push_str(&format!(
            "commit refs/heads/long\nmark :{}\ncommitter a <a@x> {} +0000\ndata {}\n{msg}\n{parent}\n",
            n + 1,
            1_700_000_000 + n,
            msg.len()
        ));
    }
    let imported = common::feed(
        repo.command("git").args(["fast-import", "--quiet"]),
        stream.as_bytes(),
    );
    assert!(imported.status.success(), "{imported:?}");
    repo.git(&[
        "merge",
        "-q",
        "--allow-unrelated-histories",
        "-m",
        "merge the long history",
        "long",
    ]);
    let dated = |date: &str| {
        common::Repo::at(&sb, &repo.path, "alice").with_env("GIT_COMMITTER_DATE", date)
    };
    dated("2026-02-01T00:00:00Z").commit_file("a", "1\n", &format!("start ({done})"));
    let latest = dated("2026-03-01T00:00:00Z").commit_file(
        "a",
        "2\n",
        &format!("finish ({done}), ({closed}) and ({}) (bd-nope)", "bd-zz"),
    );
    dated("2026-04-01T00:00:00Z").commit_file("a", "3\n", &format!("mention {done} bare"));

    let found = repo.beads_json(&["orphans"]);
    let lines: Vec<(&str, &str, &str)> = common::items(&found)
        .iter()
        .map(|o| {
            (
                o["issue_id"].as_str().expect("issue_id"),
                o["status"].as_str().expect("status"),
                o["latest_commit_message"].as_str().expect("message"),
            )
        })
        .collect();
    let expected = [
        (
            done.as_str(),
            "open",
            format!("finish ({done}), ({closed}) and (bd-zz) (bd-nope)"),
        ),
        (half.as_str(), "in_progress", format!("change 0 ({half})")),
    ];
    let expected: Vec<(&str, &str, &str)> = expected
        .iter()
        .map(|(a, b, c)| (*a, *b, c.as_str()))
        .collect();
    assert_eq!(lines, expected);
    let short = found[0]["latest_commit"].as_str().expect("commit");
    assert!(
        latest.starts_with(short) && short.len() >= 7,
        "{short} of {latest}"
    );
    let labelled = repo.beads_json(&["orphans", "-l", "web"]);
    assert_eq!(common::items(&labelled).len(), 1);
    assert_eq!(labelled[0]["issue_id"], done.as_str());
    assert_eq!(
        repo.beads_json(&["orphans", "--label-any", "none"]),
        serde_json::json!([])
    );

    let head = repo.store_head();
    let text = screens(
        &repo,
        &[&["orphans", "--details"], &["orphans", "-l", "none"]],
    );
    assert_eq!(repo.store_head(), head, "orphans alone writes nothing");
    let declined = common::feed(&mut repo.beads_command(&[], &["orphans", "--fix"]), b"n\n");
    assert_eq!(repo.store_head(), head, "declined: nothing closed");
    let fixed = common::feed(&mut repo.beads_command(&[], &["orphans", "--fix"]), b"\n");
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        repo.commit_count(&head) + 1,
        "one commit"
    );
    for id in [&done, &half] {
        assert_eq!(repo.bead_json(id)["close_reason"], "Implemented");
    }
    let text = [
        text,
        common::stdout(&declined),
        common::stdout(&fixed),
        render::screen(&repo, &["orphans"]),
    ]
    .join("\n");
    stable(&sb, &names, || assert_snapshot!("orphans", text));
}

#[test]
fn audit_entries_are_kept_in_the_store_and_merge_without_loss() {
    let sb = Sandbox::new();
    let (alice, bob, bead) = sb.two_clones_sharing("Audited", &[]);
    let mut names = Names::default();
    names.name(bead.as_str(), "BEAD");
    let call = alice.beads(&[
        "audit",
        "record",
        "--kind",
        "llm_call",
        "--model",
        "m-1",
        "--prompt",
        "why?",
        "--response",
        "because",
        "--issue-id",
        &bead,
    ]);
    let call = names.name(call.trim(), "CALL");
    assert!(call.starts_with("int-") && call.len() == 36, "{call}");
    let tool = alice.beads_json(&[
        "audit",
        "record",
        "--kind",
        "tool_call",
        "--tool-name",
        "ls",
        "--exit-code",
        "0",
    ]);
    assert_eq!(tool["kind"], "tool_call");
    let label = alice.beads_json(&[
        "audit", "label", &call, "--label", "good", "--reason", "right",
    ]);
    assert_eq!(
        (&label["parent_id"], &label["label"]),
        (&serde_json::json!(call), &serde_json::json!("good"))
    );
    // bd's JSON on stdin, with an id and a time of its own; the actor is who acts.
    let piped = common::feed(
        &mut alice.beads_command(&[], &["audit", "record"]),
        br#"{"id":"int-piped1","kind":"custom","created_at":"2026-01-02T03:04:05Z","actor":"someone","extra":{"n":[1,2]}}"#,
    );
    assert_eq!(common::stdout(&piped).trim(), "int-piped1");
    let doc = alice.git(&["show", "refs/beads/main:audit/pi/int-piped1.yaml"]);
    assert_eq!(
        doc,
        "id: int-piped1\nkind: custom\ncreated_at: 2026-01-02T03:04:05Z\nactor: alice\nextra:\n  n:\n  - 1\n  - 2\n"
    );

    // Refused, and nothing written.
    let head = alice.store_head();
    let text = screens(
        &alice,
        &[
            &["audit", "record"],
            &["audit", "label", &call],
            &["audit", "label", "int-none", "--label", "bad"],
        ],
    );
    let again = common::feed(
        &mut alice.beads_command(&[], &["audit", "record"]),
        br#"{"id":"int-piped1","kind":"custom"}"#,
    );
    let escape = common::feed(
        &mut alice.beads_command(&[], &["audit", "record"]),
        br#"{"id":"../../beads/x","kind":"custom"}"#,
    );
    for refused in [&again, &escape] {
        assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    }
    assert_eq!(alice.store_head(), head);
    let text = [
        text,
        String::from_utf8_lossy(&again.stderr).into_owned(),
        String::from_utf8_lossy(&escape.stderr).into_owned(),
    ]
    .join("");
    stable(&sb, &names, || assert_snapshot!("audit_refused", text));

    // Two clones append at once; after both sync each holds every entry.
    let theirs = bob.beads(&["audit", "record", "--kind", "llm_call", "--model", "m-2"]);
    alice.sync();
    bob.sync();
    alice.sync();
    let entries = |r: &common::Repo| {
        r.git(&["ls-tree", "-r", "--name-only", "refs/beads/main", "audit"])
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(entries(&alice).len(), 5);
    assert_eq!(entries(&alice), entries(&bob));
    assert!(
        entries(&bob)
            .iter()
            .any(|p| p.ends_with(&format!("{}.yaml", theirs.trim())))
    );
    alice.assert_fsck_clean();
    let doctor = alice.beads_output(&["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stderr).into_owned() + &common::stdout(&doctor);
    assert!(said.contains(" 0 findings"), "{said}");
}
