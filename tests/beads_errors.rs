//! Bad input and broken stores: a clear one-line error naming the thing, the
//! documented exit code (1 user error, 2 usage, 3 conflict, 4 store failure), and
//! nothing changed. A broken document never hides the other beads.

use crate::common;

use common::{Repo, Sandbox, doc_path, ids};

/// Runs a command that must fail with `code`, must leave the store where it was and
/// must say what is wrong on its first line, naming `names`.
fn refused(repo: &Repo, code: i32, args: &[&str], names: &str) -> String {
    let head = repo.store_head();
    let out = repo.beads_output(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed data: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    if args.contains(&"--json") {
        // Under --json the error is bd's JSON object on stderr.
        let v: serde_json::Value = serde_json::from_str(&err).expect("a JSON error");
        assert_eq!(v["schema_version"], 1, "{err}");
        let message = v["error"].as_str().expect("error");
        assert!(
            message.contains(names),
            "{args:?} should name {names:?}: {err}"
        );
        assert!(v["code"].is_string(), "{err}");
        assert_eq!(repo.store_head(), head, "{args:?} changed the store");
        return err;
    }
    let first = err.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: "), "{args:?}: {err}");
    assert!(
        first.contains(names),
        "{args:?} should name {names:?}: {err}"
    );
    if code != 2 {
        // Our own errors: one message line, then only causes and hints.
        for l in err.lines().skip(1) {
            assert!(
                l.starts_with("caused by: ") || l.starts_with("hint: "),
                "{args:?}: unexpected line {l:?} in {err}"
            );
        }
    }
    assert_eq!(repo.store_head(), head, "{args:?} changed the store");
    err
}

#[test]
fn unknown_ids_are_refused_and_change_nothing() {
    let (_sb, repo) = Sandbox::with_store();
    let known = repo.create("Known", &["-l", "x"]);
    let unknown = "bd-zzzzz";
    for args in [
        vec!["show", unknown],
        vec!["show", &known, unknown],
        vec!["update", unknown, "--title", "x"],
        vec!["update", unknown, "--claim"],
        vec!["close", unknown],
        vec!["close", &known, unknown],
        vec!["reopen", unknown],
        vec!["delete", unknown, "--force"],
        vec!["delete", &known, unknown, "--force"],
        vec!["comments", unknown],
        vec!["comments", "add", unknown, "text"],
        vec!["comment", unknown, "text"],
        vec!["dep", "add", unknown, &known],
        vec!["dep", "add", &known, unknown],
        vec!["dep", "remove", unknown, &known],
        vec!["dep", "tree", unknown],
        vec!["label", "add", unknown, "y"],
        vec!["label", "remove", unknown, "x"],
        vec!["label", "list", unknown],
        vec!["create", "Child", "--parent", unknown],
        vec!["create", "Dependent", "--deps", unknown],
        vec![
            "create",
            "Dependent",
            "--deps",
            &format!("{known},related:{unknown}"),
        ],
        vec!["log", unknown],
        vec!["children", unknown],
        vec!["show", "--children", unknown],
        vec!["list", "--parent", unknown],
        vec!["count", "--parent", unknown],
        vec!["ready", "--parent", unknown],
        vec!["blocked", "--parent", unknown],
        vec!["search", "Known", "--parent", unknown],
    ] {
        refused(&repo, 1, &args, unknown);
    }
    refused(
        &repo,
        2,
        &["children", &known, "--parent", unknown],
        "--parent",
    );
    // The known bead was not touched by the half-valid commands either.
    let b = repo.bead_json(&known);
    assert_eq!(b["status"], "open");
    assert_eq!(repo.all_beads().len(), 1);
}

/// A stderr nobody reads (a pipe whose reader is gone) does not turn an error into a
/// crash: the exit code still says what went wrong, for the parser's errors and ours,
/// in text and under `--json`.
#[test]
fn an_error_told_to_a_closed_stderr_keeps_its_exit_code() {
    let (_sb, repo) = Sandbox::with_store();
    for (args, code) in [
        (&["--no-such-flag"][..], 2),
        (&["--json", "--no-such-flag"][..], 2),
        (&["show", "bd-zzzzz"][..], 1),
        (&["show", "--json", "bd-zzzzz"][..], 1),
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = repo
            .beads_command(&[], args)
            .stderr(writer)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
}

#[test]
fn malformed_ids_are_usage_errors() {
    let (_sb, repo) = Sandbox::with_store();
    let known = repo.create("Known", &[]);
    for bad in [
        "../x", "BD-1", "bd-1/..", "bd-a1 b", "bd-", "bd-a1..2", "-x",
    ] {
        for args in [
            vec!["show", bad],
            vec!["update", bad, "--title", "x"],
            vec!["close", &known, bad],
            vec!["delete", bad, "--force"],
            vec!["comment", bad, "x"],
            vec!["dep", "add", &known, bad],
            vec!["dep", "tree", bad],
            vec!["label", "add", bad, "x"],
            vec!["log", bad],
            vec!["create", "x", "--parent", bad],
            vec!["create", "x", "--deps", bad],
            vec!["create", "x", "--deps", &format!("related:{bad}")],
            vec!["list", "--parent", bad],
            vec!["children", bad],
        ] {
            // `-x` looks like a flag to the parser; the rest must be named.
            let names = if bad == "-x" { "" } else { bad };
            refused(&repo, 2, &args, names);
        }
    }
}

/// A malformed session or message id is said to be no id of its kind (with an example
/// of that kind), not no bead id.
#[test]
fn malformed_session_and_message_ids_name_their_kind() {
    let (_sb, repo) = Sandbox::with_store();
    let cases: [(&[&str], &str); 8] = [
        (
            &["session", "show", "../x"],
            "session id (expected something like ses-",
        ),
        (
            &["session", "log", "../x"],
            "session id (expected something like ses-",
        ),
        (
            &["session", "resume", "../x"],
            "session id (expected something like ses-",
        ),
        (
            &["mail", "read", "../x"],
            "message id (expected something like msg-",
        ),
        (
            &["mail", "ack", "../x"],
            "message id (expected something like msg-",
        ),
        (
            &["mail", "reply", "../x", "-m", "hi"],
            "message id (expected something like msg-",
        ),
        (
            &[
                "mail",
                "send",
                "rig/a",
                "--subject",
                "s",
                "--reply-to",
                "../x",
            ],
            "message id (expected something like msg-",
        ),
        (
            &["mail", "peek", "../x"],
            "message id (expected something like msg-",
        ),
    ];
    for (args, says) in cases {
        let out = repo.beads_output(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains(&format!("\"../x\" is not a {says}")) && !err.contains("bead id"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn bad_text_and_numbers_are_refused() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Fine", &[]);

    refused(&repo, 1, &["create", ""], "title is empty");
    refused(&repo, 1, &["create", "   "], "title is empty");
    refused(&repo, 1, &["update", &id, "--title", ""], "title is empty");

    for p in ["5", "9", "-1", "P5", "high", "256"] {
        refused(&repo, 2, &["create", "x", "-p", p], p);
        refused(&repo, 2, &["update", &id, "--priority", p], p);
        refused(&repo, 2, &["list", "--priority", p], p);
    }

    refused(&repo, 1, &["create", "bell\u{7}"], "control character");
    refused(&repo, 1, &["create", "two\nlines"], "control character");
    refused(
        &repo,
        1,
        &["update", &id, "--title", "esc\u{1b}[31m"],
        "control character",
    );
    refused(&repo, 1, &["create", "x", "-l", "bad\u{1}label"], "label");
    // A comma separates labels, as in bd: `-l a,b` is two labels.
    refused(&repo, 1, &["create", "x", "-l", "a b"], "label");
    refused(&repo, 1, &["create", "x", "-l", ""], "label is empty");
    refused(&repo, 1, &["label", "add", &id, "tab\tbed"], "label");
    refused(&repo, 1, &["label", "remove", &id, "nul\u{1}"], "label");
    refused(
        &repo,
        1,
        &["update", &id, "--add-label", "new\nline"],
        "label",
    );
    refused(&repo, 1, &["create", "x", "-a", "bo\u{8}b"], "assignee");
    refused(&repo, 1, &["create", "x", "-a", ""], "assignee is empty");
    refused(&repo, 1, &["update", &id, "-a", "eve\u{1b}"], "assignee");
    refused(
        &repo,
        1,
        &["comment", &id, "hi", "--author", "ma\u{7}llory"],
        "author",
    );
    refused(&repo, 1, &["comment", &id, "   "], "comment is empty");
    refused(&repo, 1, &["comment", &id, "ansi \u{1b}[2J"], "comment");
    refused(
        &repo,
        1,
        &["create", "x", "-d", "ansi \u{1b}[2J"],
        "description",
    );
    refused(&repo, 1, &["close", &id, "--reason", "bell\u{7}"], "reason");
    refused(&repo, 1, &["update", &id, "--status", "deleted"], "delete");

    // A well-formed word the project has not named (types.custom, status.custom) is
    // refused; one that cannot be a word does not parse.
    refused(&repo, 1, &["create", "x", "-t", "nope"], "nope");
    refused(&repo, 1, &["update", &id, "--status", "flying"], "flying");
    refused(&repo, 1, &["list", "--status", "flying"], "flying");
    refused(&repo, 2, &["create", "x", "-t", "No pe"], "No pe");
    refused(&repo, 2, &["list", "--status", "Flying"], "Flying");
    refused(
        &repo,
        2,
        &["dep", "add", &id, &id, "--type", "owns"],
        "owns",
    );
    refused(
        &repo,
        2,
        &["create", "x", "--deps", &format!("owns:{id}")],
        "owns",
    );
    refused(&repo, 2, &["init", "--prefix", "Bad/Prefix"], "Bad/Prefix");
    refused(&repo, 2, &["frobnicate"], "frobnicate");
    // (A bare `show` shows the bead last touched here, as bd's does.)
    refused(&repo, 2, &["show", "--current", &id], "--current");

    // None of it left a trace.
    let b = repo.bead_json(&id);
    assert_eq!(b["title"], "Fine");
    assert_eq!(repo.all_beads().len(), 1);
}

#[test]
fn a_repository_without_a_store_or_identity_says_so() {
    let sb = Sandbox::new();
    let repo = sb.repo("bare-of-beads", "alice");
    for args in [
        vec!["list"],
        vec!["create", "x"],
        vec!["ready"],
        vec!["log"],
    ] {
        let (code, err) = repo.beads_fail(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: this repository has no beads store yet"),
            "{err}"
        );
        assert!(err.contains("git beads init"), "{err}");
    }
    assert!(repo.git(&["for-each-ref", "refs/beads"]).is_empty());

    let outside = sb.path().join("not-a-repo");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let out = repo
        .beads_command(&[], &["list"])
        .current_dir(&outside)
        .env("GIT_CEILING_DIRECTORIES", sb.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");

    // No user.name and no GIT_AUTHOR_NAME: nobody to author the commit.
    repo.git(&["config", "--unset", "user.name"]);
    let (code, err) = repo.beads_fail(&["init"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("identity"), "{err}");
    assert!(repo.git(&["for-each-ref", "refs/beads"]).is_empty());
}

/// A store with two good beads and one document that does not parse.
fn broken_store(sb: &Sandbox, content: &[u8]) -> (Repo, String, String, String) {
    let repo = sb.store();
    let good = repo.create("Good", &["-p", "1"]);
    let other = repo.create("Other", &["--deps", &good]);
    let broken = "bd-zzzz".to_owned();
    repo.put_raw_doc(&doc_path(&broken), content);
    (repo, good, other, broken)
}

#[test]
fn a_broken_document_is_reported_and_hides_nothing() {
    for content in [
        &b"id: [unclosed\n"[..],
        b"\xff\xfe not utf-8",
        b"id: bd-zzzz\ntitle: x\nstatus: flying\n",
        b"just a string",
        b"",
    ] {
        let sb = Sandbox::new();
        let (repo, good, other, broken) = broken_store(&sb, content);
        let path = doc_path(&broken);
        let shown = String::from_utf8_lossy(content);

        // Reads answer with every good bead and warn about the broken one.
        for args in [
            vec!["list"],
            vec!["list", "--all"],
            vec!["ready"],
            vec!["blocked"],
            vec!["search", "o"],
            vec!["stats"],
            vec!["dep", "cycles"],
            vec!["epic", "status"],
            vec!["export"],
        ] {
            let out = repo.beads_output(&args);
            assert!(out.status.success(), "{args:?} {shown:?}: {out:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("warning:") && err.contains(&path),
                "{args:?} {shown:?}: {err}"
            );
        }
        assert_eq!(
            ids(&repo.beads_json(&["list"])),
            [good.as_str(), other.as_str()]
        );
        assert_eq!(ids(&repo.beads_json(&["ready"])), [good.as_str()]);
        for args in [["--json", "list"], ["--json", "blocked"]] {
            let err = stderr_of(&repo, &args);
            assert!(
                err.contains(&path) && err.contains("does not parse"),
                "{err}"
            );
        }
        let v = repo.beads_json(&["blocked"]);
        assert_eq!(v[0]["id"], other.as_str());
        // `lint` exits 1 for what the beads lack, and warns as well.
        let out = repo.beads_output(&["lint"]);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&path),
            "{out:?}"
        );
        // Even --quiet keeps the warning.
        let out = repo.beads_output(&["--quiet", "list"]);
        assert!(String::from_utf8_lossy(&out.stderr).contains(&path));

        // The broken bead itself: a store error naming the document, nothing changed.
        for args in [
            vec!["show", broken.as_str()],
            vec!["show", good.as_str(), broken.as_str()],
            vec!["update", broken.as_str(), "--title", "fixed"],
            vec!["update", broken.as_str(), "--claim"],
            vec!["close", broken.as_str()],
            vec!["close", good.as_str(), broken.as_str()],
            vec!["delete", broken.as_str(), "--force"],
            vec!["comment", broken.as_str(), "hello"],
            vec!["label", "add", broken.as_str(), "x"],
            vec!["dep", "add", good.as_str(), broken.as_str()],
            vec!["create", "Child", "--parent", broken.as_str()],
        ] {
            refused(&repo, 4, &args, &path);
        }

        // Everything else still works.
        repo.beads(&["show", &good]);
        repo.beads(&["update", &good, "--claim"]);
        let fresh = repo.create("Fresh", &[]);
        assert!(ids(&repo.beads_json(&["list"])).contains(&fresh));
        repo.beads(&["log"]);
        repo.beads(&["log", &broken]);
        assert!(
            repo.store_paths().contains(&path),
            "the broken document is kept as it is"
        );
        assert_eq!(
            repo.git(&["cat-file", "blob", &format!("refs/beads/main:{path}")])
                .as_bytes(),
            String::from_utf8_lossy(content).as_bytes()
        );
    }
}

#[test]
fn a_repaired_document_comes_back() {
    let sb = Sandbox::new();
    let (repo, good, other, broken) = broken_store(&sb, b"id: [unclosed\n");
    // Warm the index with the broken state, then repair the document by hand.
    assert!(stderr_of(&repo, &["--json", "list"]).contains("does not parse"));
    let yaml = format!(
        "id: {broken}\ntitle: Repaired\nstatus: open\npriority: 0\ntype: bug\n\
         created_at: 2026-01-01T00:00:00Z\ncreated_by: alice\n\
         updated_at: 2026-01-01T00:00:00Z\nupdated_by: alice\n"
    );
    repo.put_raw_doc(&doc_path(&broken), yaml.as_bytes());
    let v = repo.beads_json(&["list"]);
    assert_eq!(ids(&v), [broken.as_str(), good.as_str(), other.as_str()]);
    let out = repo.beads_output(&["list"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
    repo.beads(&["close", &broken]);
}

#[test]
fn a_document_under_the_wrong_name_is_broken() {
    let (_sb, repo) = Sandbox::with_store();
    let good = repo.create("Good", &[]);
    // A copy of a good bead's document, placed under another bead's name.
    let yaml = repo.git(&["show", &format!("refs/beads/main:{}", doc_path(&good))]);
    let impostor = "bd-yyyy";
    let path = doc_path(impostor);
    repo.put_raw_doc(&path, yaml.as_bytes());
    let v = repo.beads_json(&["list"]);
    assert_eq!(ids(&v), [good.as_str()]);
    assert!(stderr_of(&repo, &["--json", "list"]).contains(&path));
    // Reading or changing it must not act on the bead its content names.
    refused(&repo, 4, &["show", impostor], &path);
    refused(
        &repo,
        4,
        &["update", impostor, "--title", "hijacked"],
        &path,
    );
    refused(&repo, 4, &["close", impostor], &path);
    let b = repo.bead_json(&good);
    assert_eq!(b["title"], "Good");
    assert_eq!(b["status"], "open");
}

#[test]
fn a_broken_meta_document_stops_writes_but_not_reads() {
    let (_sb, repo) = Sandbox::with_store();
    let good = repo.create("Good", &[]);
    repo.put_raw_doc("meta.yaml", b"format: [1\n");
    refused(&repo, 4, &["create", "New"], "meta.yaml");
    refused(&repo, 4, &["init"], "meta.yaml");
    assert_eq!(ids(&repo.beads_json(&["list"])), [good.as_str()]);
    repo.beads(&["show", &good]);
}

#[test]
fn a_store_of_a_newer_format_is_neither_read_nor_written() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Old", &[]);
    repo.put_raw_doc("meta.yaml", b"format: 2\nprefix: bd\n");
    for args in [
        &["create", "New"][..],
        &["update", &id, "--title", "Renamed"],
        &["close", &id],
        &["list"],
        &["list", "--json"],
        &["ready"],
        &["show", &id],
        &["search", "Old"],
        &["init"],
    ] {
        let err = refused(&repo, 4, args, "the store has format 2");
        assert!(err.contains("reads format 1"), "{args:?}: {err}");
    }
}

#[test]
fn a_copy_in_another_fan_out_directory_does_not_shadow_the_bead() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Real", &[]);
    let yaml = repo.git(&["show", &format!("refs/beads/main:{}", doc_path(&id))]);
    let stray = format!("beads/qq/{id}.yaml");
    assert_ne!(stray, doc_path(&id));
    repo.put_raw_doc(
        &stray,
        yaml.replace("title: Real", "title: Stray").as_bytes(),
    );
    let title_listed = |repo: &Repo| {
        let v = repo.beads_json(&["list"]);
        assert_eq!(ids(&v), [id.as_str()]);
        v[0]["title"].as_str().expect("title").to_owned()
    };
    assert_eq!(title_listed(&repo), "Real");
    assert_eq!(repo.bead_json(&id)["title"], "Real");
    repo.beads(&["update", &id, "--title", "Renamed"]);
    assert_eq!(title_listed(&repo), "Renamed");
    // The answer does not depend on how the index came to be.
    std::fs::remove_file(repo.index_file()).expect("delete index");
    assert_eq!(title_listed(&repo), "Renamed");
    assert_eq!(
        ids(&repo.beads_json(&["search", "Stray"])),
        Vec::<String>::new()
    );
}

#[test]
fn malformed_values_are_usage_errors_as_the_readme_and_manual_say() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Real", &[]);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("doc");
    let readme = read("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        readme.contains("1 refused (a well-formed command the store says no to: an unknown id")
            && readme.contains("2 usage (the command line does not parse: an unknown flag, or a value of the wrong shape such as a malformed id or `-p 9`)"),
        "README's exit codes"
    );
    let man = read("man/git-beads.1").replace("\\-", "-");
    assert!(
        man.contains("a malformed id, a priority outside 0-4"),
        "the manual's EXIT STATUS"
    );

    refused(&repo, 2, &["create", "x", "-p", "9"], "9");
    refused(&repo, 2, &["show", "../x"], "../x");
    refused(
        &repo,
        2,
        &["update", "not an id", "--title", "t"],
        "not an id",
    );
    refused(&repo, 1, &["show", "bd-zzzz"], "bd-zzzz");
    refused(
        &repo,
        1,
        &["update", &id, "--title", &"x".repeat(3000)],
        "limit",
    );
    // Times: past the year 9999, past what a count can hold, not ASCII, not ahead.
    for (args, names) in [
        (
            vec!["create", "x", "--due", "+99999999999d"],
            "+99999999999d",
        ),
        (vec!["update", &id, "--defer", "+1000000w"], "out of range"),
        (
            vec!["defer", &id, "--until", "+9999999999999999m"],
            "not a time",
        ),
        (vec!["defer", &id, "--until", "+1é"], "not a time"),
        (vec!["defer", &id, "--until", "+é"], "not a time"),
        (vec!["defer", &id, "--until", "+-5d"], "not a time"),
        (vec!["defer", &id, "--until", "12345-01-01"], "not a time"),
    ] {
        refused(&repo, 2, &args, names);
    }
    // What the parser refuses: JSON under --json; the values it quotes escaped, on
    // the error's own line, and cut short.
    refused(&repo, 2, &["create", "x", "--due", "bad", "--json"], "bad");
    refused(
        &repo,
        2,
        &["count", "--by-weather", "--json"],
        "--by-weather",
    );
    refused(&repo, 2, &["create", "x", "--id", "r-a\nb"], "'r-a\\nb'");
    let err = refused(
        &repo,
        2,
        &[
            "create",
            "x",
            "--assignee",
            "a",
            "--id",
            "r-\u{1b}]0;t\u{7}",
        ],
        "",
    );
    assert!(!err.contains(['\u{1b}', '\u{7}']), "{err:?}");
    let long = format!("r-{}", "a".repeat(100_000));
    let err = refused(&repo, 2, &["create", "x", "--id", &long], "…");
    assert!(err.len() < 2_000, "{} bytes", err.len());
    // Our own errors quote a long value cut short too.
    let external = format!("external:{}:x", "a".repeat(100_000));
    for args in [vec!["show", &long], vec!["dep", "add", &id, &external]] {
        let err = refused(&repo, 2, &args, "…");
        assert!(err.len() < 1_000, "{} bytes", err.len());
    }
}

/// What `git beads ARGS` says on stderr (it must succeed): where broken documents
/// are reported, `--json` or not.
fn stderr_of(repo: &Repo, args: &[&str]) -> String {
    let out = repo.beads_output(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}
