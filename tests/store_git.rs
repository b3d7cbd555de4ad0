//! The store as git sees it: readable YAML in `refs/beads/main`, a history that
//! reads as a log, commits authored by the acting identity, a disposable index,
//! and ids that stay unique across clones working offline.

use crate::common;

use std::collections::BTreeSet;

use common::{Repo, Sandbox, doc_path, on_threads};

#[test]
fn beads_are_readable_yaml_in_the_store_ref() {
    let (_sb, repo) = Sandbox::with_store();
    let head_before = repo.head();
    let id = repo.create(
        "Fix: the login page",
        &[
            "-d",
            "first line\nsecond line",
            "-p",
            "1",
            "-l",
            "ui",
            "-a",
            "bob",
        ],
    );
    let child = repo.create("Child", &["--parent", &id]);

    let path = doc_path(&id);
    assert!(path.starts_with(&format!("beads/{}/", &id[3..5])), "{path}");
    let paths: BTreeSet<String> = repo.store_paths().into_iter().collect();
    let want: BTreeSet<String> = [path.clone(), doc_path(&child), "meta.yaml".to_owned()].into();
    assert_eq!(paths, want, "children live next to their parent");

    let yaml = repo.git(&["show", &format!("refs/beads/main:{path}")]);
    let keys: Vec<&str> = yaml
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('-'))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k))
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "title",
            "status",
            "priority",
            "type",
            "assignee",
            "labels",
            "description",
            "created_at",
            "created_by",
            "updated_at",
            "updated_by"
        ],
        "keys in their fixed order: {yaml}"
    );
    assert!(yaml.starts_with(&format!("id: {id}\n")), "{yaml}");
    assert!(yaml.contains("title: 'Fix: the login page'\n"), "{yaml}");
    assert!(
        yaml.contains("status: open\npriority: 1\ntype: task\nassignee: bob\n"),
        "{yaml}"
    );
    assert!(yaml.contains("labels:\n- ui\n"), "{yaml}");
    assert!(
        yaml.contains("  first line\n  second line\n"),
        "long text stays readable: {yaml}"
    );
    assert!(
        !yaml.contains('&') && !yaml.contains('*'),
        "no anchors: {yaml}"
    );
    let parsed: serde_json::Value = serde_yaml::from_str(&yaml).expect("plain YAML");
    assert_eq!(parsed["description"], "first line\nsecond line");

    // git diff between two states of the store reads like a changelog.
    repo.beads(&["close", &id, "--reason", "fixed it"]);
    let diff = repo.git(&["diff", "refs/beads/main~1", "refs/beads/main"]);
    assert!(diff.contains("-status: open\n+status: closed\n"), "{diff}");
    assert!(diff.contains("+close_reason: fixed it\n"), "{diff}");

    // The store lives beside the code: no branch, no worktree change, no HEAD move.
    assert_eq!(repo.head(), head_before);
    assert!(repo.git(&["status", "--porcelain"]).trim().is_empty());
    assert!(!repo.git(&["branch", "-a"]).contains("beads"));
}

#[test]
fn entries_no_field_holds_outlive_a_rewrite_and_fields_do_not_come_back() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Carried", &["-a", "bob", "-l", "ui"]);
    let path = doc_path(&id);
    let show = |repo: &Repo| repo.git(&["show", &format!("refs/beads/main:{path}")]);
    // What a newer git-beads, another tool or a hand edit left in the document.
    let unknown =
        "future_field: hello\nnested:\n  deep: [1, 2]\n  text: |-\n    two\n\n    lines\n";
    repo.put_raw_doc(&path, format!("{}{unknown}", show(&repo)).as_bytes());

    repo.beads(&["update", &id, "-p", "1", "-a", "", "--remove-label", "ui"]);
    let yaml = show(&repo);
    assert!(yaml.ends_with(unknown), "carried byte for byte: {yaml}");
    assert!(yaml.contains("priority: 1\n"), "{yaml}");
    assert!(
        !yaml.contains("assignee") && !yaml.contains("labels"),
        "fields cleared stay cleared: {yaml}"
    );
    repo.beads(&["close", &id]);
    repo.beads(&["comment", &id, "still there"]);
    let yaml = show(&repo);
    assert_eq!(yaml.matches("future_field: hello").count(), 1, "{yaml}");
    assert!(yaml.ends_with(unknown), "{yaml}");
    let b = repo.bead_json(&id);
    assert_eq!(b["status"], "closed");
    let out = repo.beads_output(&["doctor"]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn the_store_history_reads_as_a_log() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("Write docs", &[]);
    let b = repo.create("Review docs", &["--deps", &a]);
    repo.beads(&["update", &a, "--claim"]);
    repo.beads(&["comment", &a, "halfway"]);
    repo.beads(&["label", "add", &b, "docs"]);
    repo.beads(&["dep", "remove", &b, &a]);
    repo.beads(&["close", &a, &b]);
    repo.beads(&["reopen", &b]);
    repo.beads(&["delete", &b, "--force"]);
    let log = repo.git(&["log", "--format=%s", "refs/beads/main"]);
    let want = [
        format!("delete {b}: Review docs"),
        format!("reopen {b}: Review docs"),
        format!("close {a}, {b}"),
        format!("dep remove {b} {a}"),
        format!("update {b}: Review docs"),
        format!("comment on {a}: Write docs"),
        format!("claim {a}: Write docs"),
        format!("create {b}: Review docs"),
        format!("create {a}: Write docs"),
        "init: beads store with prefix bd".to_owned(),
    ];
    assert_eq!(log.lines().collect::<Vec<_>>(), want, "{log}");
    // One commit per command, a linear chain, each naming who acted.
    assert_eq!(
        repo.git(&["rev-list", "--merges", "refs/beads/main"])
            .trim(),
        ""
    );
    let trailers = repo.git(&[
        "log",
        "--format=%(trailers:key=Beads-Actor,valueonly)",
        "refs/beads/main",
    ]);
    let actors: Vec<&str> = trailers.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(actors.len(), want.len(), "{trailers}");
    assert!(actors.iter().all(|a| *a == "alice"), "{trailers}");
    // Every commit touches only what its command changed.
    let touched = |rev: &str| -> BTreeSet<String> {
        repo.git(&["show", "--format=", "--name-only", rev])
            .lines()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        touched("refs/beads/main~2"),
        [doc_path(&a), doc_path(&b)].into()
    );
    assert_eq!(touched("refs/beads/main~3"), [doc_path(&b)].into());
}

#[test]
fn commits_are_authored_by_the_git_identity() {
    let (_sb, repo) = Sandbox::with_store();
    let author = |rev: &str| repo.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>", rev]);

    let a = repo.create("By config", &[]);
    assert_eq!(
        author("refs/beads/main").trim(),
        "alice <alice@example.com>|alice <alice@example.com>"
    );
    assert_eq!(repo.bead_json(&a)["created_by"], "alice");

    let out = repo.beads_output_env(
        &[
            ("GIT_AUTHOR_NAME", "Agent Smith"),
            ("GIT_AUTHOR_EMAIL", "smith@agents.example"),
        ],
        &["create", "By environment"],
    );
    assert!(out.status.success(), "{out:?}");
    let b = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(author("refs/beads/main").starts_with("Agent Smith <smith@agents.example>|"));
    let bead = repo.bead_json(&b);
    assert_eq!(bead["created_by"], "Agent Smith");
    assert_eq!(bead["updated_by"], "Agent Smith");

    // The name alone from the environment, the email from the config, as git does.
    let out = repo.beads_output_env(&[("GIT_AUTHOR_NAME", "carol")], &["update", &a, "--claim"]);
    assert!(out.status.success(), "{out:?}");
    assert!(author("refs/beads/main").starts_with("carol <alice@example.com>|"));
    let bead = repo.bead_json(&a);
    assert_eq!(bead["assignee"], "carol");
    assert_eq!(bead["updated_by"], "carol");
    assert_eq!(bead["created_by"], "alice");

    // `git -c` settings reach the subcommand as git hands them down.
    let out = repo
        .command("git")
        .args([
            "-c",
            "user.name=O'Neil the agent!",
            "-c",
            "user.email=oneil@example.net",
            "beads",
            "create",
            "By git -c",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let c = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(
        author("refs/beads/main").starts_with("O'Neil the agent! <oneil@example.net>|"),
        "{}",
        author("refs/beads/main")
    );
    assert_eq!(repo.bead_json(&c)["created_by"], "O'Neil the agent!");

    // Another clone's configured identity.
    repo.git(&["config", "user.name", "Dora"]);
    repo.git(&["config", "user.email", "dora@example.org"]);
    repo.beads(&["close", &b]);
    assert!(author("refs/beads/main").starts_with("Dora <dora@example.org>|"));
    let log = repo.beads_json(&["log", "-n", "1"]);
    assert_eq!(log[0]["author"], "Dora");
    assert_eq!(log[0]["email"], "dora@example.org");
}

/// Every answer a read command gives, as raw JSON text.
fn answers(repo: &Repo, some: &[String]) -> Vec<(String, String)> {
    let mut queries: Vec<Vec<String>> = [
        vec!["list"],
        vec!["list", "--all"],
        vec!["list", "--status", "deleted"],
        vec!["list", "--label", "ui"],
        vec!["list", "--type", "bug", "--priority", "1"],
        vec!["ready"],
        vec!["ready", "--assignee", "bob"],
        vec!["blocked"],
        vec!["search", "bead"],
        vec!["label", "list-all"],
    ]
    .iter()
    .map(|q| q.iter().map(|s| (*s).to_owned()).collect())
    .collect();
    for id in some {
        queries.push(vec!["dep".into(), "tree".into(), id.clone()]);
    }
    queries
        .into_iter()
        .map(|q| {
            let mut args = vec!["--json"];
            args.extend(q.iter().map(String::as_str));
            let out = repo.beads_output(&args);
            assert!(out.status.success(), "{q:?}: {out:?}");
            (
                q.join(" "),
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            )
        })
        .collect()
}

#[test]
fn the_index_is_disposable() {
    let sb = Sandbox::new();
    let repo = sb.store();
    let mut made: Vec<String> = Vec::new();
    for i in 0..12 {
        let p = (i % 5).to_string();
        let kind = if i % 3 == 0 { "bug" } else { "task" };
        let mut args = vec!["-p", p.as_str(), "-t", kind];
        if i % 2 == 0 {
            args.extend(["-l", "ui"]);
        }
        if i % 4 == 1 {
            args.extend(["-a", "bob"]);
        }
        let dep = if i > 2 && i % 3 == 2 {
            made[i - 2].clone()
        } else {
            String::new()
        };
        if !dep.is_empty() {
            args.extend(["--deps", dep.as_str()]);
        }
        made.push(repo.create(&format!("bead {i}"), &args));
    }
    let child = repo.create("child bead", &["--parent", &made[1]]);
    repo.beads(&["close", &made[0]]);
    repo.beads(&["delete", &made[3], "--force"]);
    repo.beads(&["update", &made[5], "--status", "deferred"]);
    repo.put_raw_doc(&doc_path("bd-zzzz"), b"id: [broken\n");
    let probe = vec![made[4].clone(), made[11].clone(), child.clone()];

    let want = answers(&repo, &probe);
    let index = repo.index_file();
    assert!(
        index.is_file(),
        "reads leave an index at {}",
        index.display()
    );
    let good = std::fs::read(&index).expect("read index");

    let check = |what: &str| {
        let got = answers(&repo, &probe);
        for ((q, w), (_, g)) in want.iter().zip(&got) {
            assert_eq!(w, g, "{what}: `{q}` answered differently");
        }
    };

    std::fs::remove_file(&index).expect("delete index");
    check("deleted");
    assert!(index.is_file(), "the index is rebuilt");
    assert_eq!(
        std::fs::read(&index).expect("read"),
        good,
        "rebuilt byte for byte"
    );

    let mut flipped = good.clone();
    for at in [flipped.len() / 3, flipped.len() / 2, flipped.len() - 1] {
        flipped[at] ^= 0x5a;
    }
    std::fs::write(&index, &flipped).expect("write");
    check("corrupted");

    for len in [0, 3, 12, good.len() / 2, good.len() - 1] {
        std::fs::write(&index, &good[..len]).expect("write");
        check(&format!("truncated to {len} bytes"));
    }

    let mut garbage = b"GBIX\x01\0\0\0".to_vec();
    garbage.extend((0..200u32).map(|i| (i * 37 % 251) as u8));
    std::fs::write(&index, &garbage).expect("write");
    check("garbage after a good magic");

    // An index of another repository names a tree this one does not have.
    let other = sb.repo_with_store("other", "bob");
    other.create("elsewhere", &[]);
    other.beads(&["list"]);
    std::fs::copy(other.index_file(), &index).expect("copy");
    check("from another repository");

    // An index that cannot be replaced (a directory in its place) costs only speed.
    std::fs::remove_file(&index).expect("remove");
    std::fs::create_dir(&index).expect("mkdir");
    check("a directory in its place");
    std::fs::remove_dir(&index).expect("rmdir");

    // An index of an older state is brought forward by the tree diff, and agrees
    // with one built from scratch.
    repo.beads(&["list"]);
    let old = std::fs::read(&index).expect("read");
    repo.beads(&["close", &made[4]]);
    repo.beads(&["reopen", &made[0]]);
    repo.beads(&["label", "add", &made[7], "ui"]);
    repo.beads(&["dep", "add", &made[11], &made[10]]);
    repo.create("late bead", &["-p", "0", "-l", "ui"]);
    repo.put_raw_doc(&doc_path("bd-zzzz"), b"id: [still broken\n");
    repo.put_raw_doc(&doc_path("bd-yyyy"), b"also: [broken\n");
    std::fs::write(&index, &old).expect("restore old index");
    let forward = answers(&repo, &probe);
    std::fs::remove_file(&index).expect("delete index");
    let scratch = answers(&repo, &probe);
    assert_eq!(
        forward, scratch,
        "an updated index answers like a rebuilt one"
    );
    assert_ne!(forward, want, "and the changes show");
}

#[test]
fn ids_stay_unique_across_clones_working_offline() {
    const EACH: usize = 120;
    let sb = Sandbox::new();
    let remote = sb.bare("origin.git");
    let first = sb.repo_with_store("first", "alice");
    first.git(&["remote", "add", "origin", remote.to_str().expect("utf-8")]);
    first.git(&["push", "-q", "origin", "main", "refs/beads/main"]);
    let clones: Vec<Repo> = ["one", "two"]
        .iter()
        .map(|name| {
            let c = sb.clone(&remote, name, name);
            c.git(&["fetch", "-q", "origin", "refs/beads/main:refs/beads/main"]);
            c
        })
        .collect();

    let made: Vec<Vec<String>> = on_threads(&clones, |c| {
        (0..EACH)
            .map(|i| c.create(&format!("same title {i}"), &[]))
            .collect()
    });

    let mut all = BTreeSet::new();
    for (c, ids_made) in clones.iter().zip(&made) {
        let listed: BTreeSet<String> = c.listed("id").into_iter().collect();
        assert_eq!(listed.len(), EACH);
        assert_eq!(listed, ids_made.iter().cloned().collect::<BTreeSet<_>>());
        all.extend(listed);
    }
    assert_eq!(all.len(), 2 * EACH, "the clones minted overlapping ids");
    // Short ids: five base36 digits until the store holds 1296 beads (growth beyond
    // that is covered by the unit tests of `id_length_for`).
    let digits = |id: &str| id.len() - "bd-".len();
    for ids_made in &made {
        assert!(ids_made.iter().all(|id| id.starts_with("bd-")));
        let lengths: Vec<usize> = ids_made.iter().map(|id| digits(id)).collect();
        assert!(lengths.iter().all(|l| *l == 5), "{lengths:?}");
    }
}

#[test]
fn git_gc_and_packed_refs_change_nothing() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("Before gc", &["-l", "x"]);
    let b = repo.create("Also before", &["--deps", &a]);
    let before = answers(&repo, std::slice::from_ref(&b));
    repo.git(&["gc", "-q", "--prune=now"]);
    assert!(
        repo.git(&["for-each-ref", "refs/beads"])
            .contains("refs/beads/main"),
        "the store ref survives gc"
    );
    assert_eq!(answers(&repo, std::slice::from_ref(&b)), before);
    std::fs::remove_file(repo.index_file()).expect("delete index");
    assert_eq!(answers(&repo, std::slice::from_ref(&b)), before);
    // Writing on top of a packed ref works, and the next gc keeps everything.
    repo.beads(&["close", &a]);
    let c = repo.create("After gc", &[]);
    repo.git(&["gc", "-q", "--prune=now"]);
    assert_eq!(repo.all_beads().len(), 3);
    repo.beads(&["show", &a, &b, &c]);
    repo.assert_fsck_clean();
}
