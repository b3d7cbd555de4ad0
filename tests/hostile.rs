//! Hostile input through the real CLI: ids and names with `..`, slashes, control
//! characters and ref-illegal characters, invalid UTF-8 arguments, bodies of 10 MB
//! and endless ones, and YAML bombs and deeply nested documents put into the store
//! with git plumbing. Every one is refused or handled with a clear error — never a
//! crash, never a hang (each child runs under a hang detector) — and a refusal
//! changes nothing.

use crate::common;
use crate::reliability;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::Stdio;

use common::{Repo, Sandbox, doc_path};
use reliability::{assert_clean_failure, beads, run_limited};
use serde_json::Value;

fn store(sb: &Sandbox) -> Repo {
    let repo = sb.repo("work", "alice");
    repo.init();
    repo.beads(&["agent", "create", "ann"]);
    repo.beads(&["agent", "create", "bob"]);
    repo
}

/// Runs a command that must be refused: a clean failure, no data on stdout, the
/// store where it was.
fn refused(repo: &Repo, args: &[&OsStr], env: &[(&str, &OsStr)]) -> String {
    let head = repo.store_head();
    let mut cmd = repo.beads_command(&[], &[]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(args);
    let out = run_limited(&mut cmd, &format!("{args:?}"));
    assert!(
        !out.status.success(),
        "{args:?} {env:?} was accepted: {out:?}"
    );
    assert_clean_failure(&out, &format!("{args:?} {env:?}"));
    assert!(out.stdout.is_empty(), "{args:?} printed data: {out:?}");
    assert_eq!(repo.store_head(), head, "{args:?} changed the store");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn os(args: &[&str]) -> Vec<&'static OsStr> {
    args.iter()
        .map(|a| OsStr::new(Box::leak(a.to_string().into_boxed_str())))
        .collect()
}

/// Strings that are neither a bead id nor an agent, remote or formula name (each
/// for its own reason).
const HOSTILE: &[&str] = &[
    "..",
    ".",
    "../x",
    "../../etc/passwd",
    "/etc/passwd",
    "bd-a/../b",
    "a/./b",
    "a//b",
    "bd-a\\b",
    "bd-a\u{7}",
    "bd-a\u{1b}[2J",
    "bd-a\u{1b}]0;pwned\u{7}",
    "bd-a\r",
    "bd-a\nb",
    "bd-a\t",
    "bd-a~1",
    "bd-a^",
    "bd-a:b",
    "bd-a?",
    "bd-a*",
    "bd-a[",
    "bd-a@{1}",
    "bd-a.lock",
    "bd-a b",
    "bd-a..b",
    "bd-\u{202e}x",
    "bd-\u{ff41}",
    "-rf",
    "--upload-pack=touch pwned",
    "",
    " ",
];

#[test]
fn hostile_ids_and_names_are_refused_and_change_nothing() {
    let sb = Sandbox::new();
    let repo = store(&sb);
    let id = repo.create("A bead", &[]);
    let mut refusals = 0;
    for bad in HOSTILE {
        let b = *bad;
        let mut cases: Vec<Vec<&str>> = vec![
            // As a bead id.
            vec!["show", b],
            vec!["update", b, "--title", "x"],
            // (`close -rf` is `close -r f`: bd's close of the bead last touched.)
            vec!["close", "--", b],
            vec!["comment", b, "x"],
            vec!["dep", "add", &id, b],
            vec!["label", "add", b, "x"],
            vec!["sling", b, "ann"],
            vec!["log", b],
            vec!["create", "x", "--parent", b],
            // As an agent name.
            vec!["--as", b, "create", "x"],
            vec!["agent", "create", b],
            vec!["agent", "show", b],
            vec!["agent", "bind", b],
            vec!["sling", &id, b],
            vec!["--as", "ann", "mail", "send", b, "-s", "x"],
            vec!["--as", "ann", "mail", "send", "bob", "-s", "x", "--cc", b],
            // As a remote name.
            vec!["sync", b],
            vec!["push", b],
            // As a formula name.
            vec!["mol", "pour", b],
        ];
        if b.trim().is_empty() || b.chars().any(|c| c.is_control() || c == ',' || c == ' ') {
            // As a label or a title (text that is fine in labels and titles is not
            // refused there, so only the ones with something wrong for them).
            cases.push(vec!["create", "x", "-l", b]);
            cases.push(vec!["label", "add", &id, b]);
        }
        if b.chars().any(char::is_control) || b.trim().is_empty() {
            cases.push(vec!["create", b]);
            cases.push(vec!["update", &id, "--title", b]);
        }
        if b.chars().any(char::is_control) {
            // (An empty assignee clears it.)
            cases.push(vec!["update", &id, "--assignee", b]);
        }
        for args in cases {
            refused(&repo, &os(&args), &[]);
            refusals += 1;
        }
        // The agent from the environment is checked like the one from --as.
        if !b.is_empty() {
            refused(
                &repo,
                &os(&["create", "x"]),
                &[("GIT_BEADS_AGENT", OsStr::new(b))],
            );
            refusals += 1;
        }
    }
    // Prefixes, budgets and capabilities.
    let fresh = sb.repo("fresh", "alice");
    for bad in ["a/b", "../x", "A", "a-_b", "x;y", "a b", "a\u{7}", "-x", ""] {
        let out = beads(&fresh, &["init", "--prefix", bad]);
        assert_clean_failure(&out, bad);
        refusals += 1;
    }
    assert!(
        fresh
            .git(&["for-each-ref"])
            .trim()
            .lines()
            .all(|l| !l.contains("beads"))
    );
    for budget in [
        "tokens=-1",
        "spend=NaN",
        "spend=inf",
        "spend=-0.5",
        "wall=99999999999999999999d",
        "wall=1y",
        "tokens=1\u{1b}",
        "tokens",
    ] {
        refused(
            &repo,
            &os(&["agent", "create", "cy", "--budget", budget]),
            &[],
        );
        refused(
            &repo,
            &os(&["agent", "create", "cy", "--can", "create,root"]),
            &[],
        );
        refusals += 2;
    }
    // Nothing that looked like an option reached git.
    assert!(!repo.path.join("pwned").exists() && !sb.path().join("pwned").exists());
    eprintln!(
        "{} hostile strings: {refusals} refusals, none changed the store",
        HOSTILE.len()
    );
    repo.assert_fsck_clean();
}

#[test]
fn invalid_utf8_arguments_are_refused() {
    let sb = Sandbox::new();
    let repo = store(&sb);
    let id = repo.create("A bead", &[]);
    let bad = OsStr::from_bytes(b"bd-\xff\xfe");
    let half = OsStr::from_bytes(b"caf\xc3");
    let s = |x: &'static str| OsStr::new(x);
    for args in [
        vec![bad],
        vec![s("show"), bad],
        vec![s("create"), half],
        vec![s("create"), s("x"), s("-d"), half],
        vec![s("create"), s("x"), s("-l"), half],
        vec![
            s("update"),
            s(Box::leak(id.clone().into_boxed_str())),
            s("--title"),
            half,
        ],
        vec![
            s("comment"),
            s(Box::leak(id.clone().into_boxed_str())),
            half,
        ],
        vec![s("--as"), half, s("list")],
        vec![s("agent"), s("create"), half],
        vec![
            s("--as"),
            s("ann"),
            s("mail"),
            s("send"),
            s("bob"),
            s("-s"),
            half,
        ],
        vec![s("sync"), half],
        vec![s("search"), half],
        vec![s("mol"), s("pour"), half],
    ] {
        refused(&repo, &args, &[]);
    }
    refused(&repo, &[s("create"), s("x")], &[("GIT_BEADS_AGENT", half)]);
    // A path may be any bytes; a file that is not there is a clear error.
    refused(
        &repo,
        &[
            s("--as"),
            s("ann"),
            s("mail"),
            s("send"),
            s("bob"),
            s("-s"),
            s("x"),
            s("--body-file"),
            half,
        ],
        &[],
    );
    refused(&repo, &[s("import"), half], &[]);
    // Text on stdin that is not UTF-8: a refusal that names stdin, nothing written.
    let head = repo.store_head();
    let out = with_stdin(&repo, &["create", "x", "--stdin"], b"caf\xc3".to_vec());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: cannot read stdin"), "{err}");
    assert_eq!(repo.store_head(), head);
}

/// Runs `git beads ARGS` feeding `input` on stdin.
fn with_stdin(repo: &Repo, args: &[&str], input: Vec<u8>) -> std::process::Output {
    use std::io::Write;
    let mut child = repo
        .beads_command(&[], args)
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        // The command may stop reading early (it refused the input): that is fine.
        let _ = stdin.write_all(&input);
    });
    let out = reliability::wait_limited(child, reliability::HANG, &format!("{args:?}"));
    let _ = feeder.join();
    out
}

#[test]
fn huge_and_endless_inputs_are_refused_or_kept_whole() {
    let sb = Sandbox::new();
    let repo = store(&sb);
    let head = repo.store_head();
    let ten_mb = "0123456789abcdef\n".repeat(10 * 1024 * 1024 / 17);
    let big = sb.path().join("big.txt");
    std::fs::write(&big, &ten_mb).expect("write");
    let big = big.to_str().expect("utf-8");

    // A 10 MB body: from a file, from stdin, and an endless one.
    let send = [
        "--as",
        "ann",
        "mail",
        "send",
        "bob",
        "-s",
        "big",
        "--body-file",
    ];
    for (what, out) in [
        ("file", beads(&repo, &[&send[..], &[big]].concat())),
        (
            "stdin",
            with_stdin(
                &repo,
                &[&send[..], &["-"]].concat(),
                ten_mb.clone().into_bytes(),
            ),
        ),
        (
            "/dev/zero",
            beads(&repo, &[&send[..], &["/dev/zero"]].concat()),
        ),
        (
            "/dev/urandom",
            beads(&repo, &[&send[..], &["/dev/urandom"]].concat()),
        ),
    ] {
        assert_clean_failure(&out, what);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("limit") || err.contains("UTF-8"),
            "{what}: {err}"
        );
        assert_eq!(repo.store_head(), head, "{what}");
    }
    // Just under the limit of one argument, a long description is kept whole.
    let long = "x".repeat(100_000);
    let id = repo.create("long", &["-d", &long]);
    assert_eq!(
        repo.bead_json(&id)["description"].as_str().map(str::len),
        Some(100_000)
    );
    // Titles and labels have limits of their own.
    let head = repo.store_head();
    for args in [
        vec!["create", &long[..2_000]],
        vec!["create", "x", "-l", &long[..2_000]],
        vec!["--as", "ann", "mail", "send", "bob", "-s", &long[..2_000]],
    ] {
        let out = beads(&repo, &args);
        assert_clean_failure(&out, "too long");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("limit"),
            "{out:?}"
        );
    }
    assert_eq!(repo.store_head(), head);

    // An import carrying a 10 MB or a 17 MB description (over the size of a document
    // the store reads back) is refused whole or kept whole — never acknowledged and
    // then unreadable.
    for (id, size) in [("bd-huge1", 10 << 20), ("bd-huge2", 17 << 20)] {
        let head = repo.store_head();
        let text = "0123456789abcdef\n".repeat(size / 17);
        let record = serde_json::json!({
            "id": id, "title": "huge", "description": text, "status": "open",
            "priority": 2, "issue_type": "task",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        });
        let file = sb.path().join("huge.jsonl");
        std::fs::write(&file, format!("{record}\n")).expect("write");
        let out = beads(&repo, &["import", file.to_str().expect("utf-8")]);
        if out.status.success() {
            let b = repo.bead_json(id);
            assert_eq!(b["description"].as_str().map(str::len), Some(text.len()));
        } else {
            assert_clean_failure(&out, &format!("import of a {size} byte description"));
            assert_eq!(repo.store_head(), head);
        }
    }
    repo.assert_fsck_clean();
}

/// Documents no one should write, each at a path where the store looks.
fn bombs() -> Vec<(&'static str, String)> {
    let mut laughs = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        laughs.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    vec![
        ("an alias bomb", laughs),
        (
            "nested flow mappings",
            format!("{}x{}", "{a: ".repeat(400_000), "}".repeat(400_000)),
        ),
        (
            "nested flow sequences",
            format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000)),
        ),
        (
            "nested block mappings",
            (0..2_000)
                .map(|i| format!("{}k:\n", " ".repeat(i)))
                .collect(),
        ),
        ("an anchor loop", "a: &a\n  b: *a\n".into()),
        (
            "a merge key bomb",
            "a: &a {x: 1}\nb:\n  <<: [*a, *a, *a, *a]\n".into(),
        ),
        ("tags", "!!python/object:os.system ['touch pwned']\n".into()),
        (
            "not UTF-8",
            String::from_utf8_lossy(b"id: \xff\xfe").into_owned() + "\u{0}",
        ),
    ]
}

#[test]
fn yaml_bombs_and_deep_nesting_in_the_store_are_reported_never_fatal() {
    let sb = Sandbox::new();
    let repo = store(&sb);
    let good = repo.create("still readable", &[]);
    repo.beads(&["--as", "ann", "mail", "send", "bob", "-s", "hello"]);
    repo.beads(&["agent", "bind", "ann"]);
    repo.beads(&["session", "start"]);
    repo.beads(&["agent", "unbind"]);
    for (n, (what, doc)) in bombs().into_iter().enumerate() {
        let id = format!("bd-zz{n}");
        let places = [
            doc_path(&id),
            format!("agents/evil{n}.yaml"),
            format!("mail/zz/msg-zz{n}.yaml"),
            format!("sessions/zz/ses-zz{n}.yaml"),
            format!("unknown/zz{n}.yaml"),
        ];
        for path in &places {
            repo.put_raw_doc(path, doc.as_bytes());
        }
        // Reads go on, and say what is broken.
        for args in [
            vec!["--json", "list", "--all"],
            vec!["ready"],
            vec!["search", "readable"],
            vec!["show", &good],
            vec!["--as", "bob", "mail", "inbox"],
            vec!["log", "-n", "3"],
            vec!["export"],
        ] {
            let out = beads(&repo, &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{what}: {args:?}: {err}");
            assert!(!err.contains("panicked"), "{what}: {args:?}: {err}");
        }
        let listed = beads(&repo, &["--json", "list", "--all"]);
        let warned = String::from_utf8_lossy(&listed.stderr);
        assert!(
            warned.contains(&format!("{} does not parse", doc_path(&id))),
            "{what}: {warned}"
        );
        // The broken documents themselves: a clear error naming them.
        for args in [
            vec!["show", &id],
            vec!["agent", "show", &format!("evil{n}")],
            vec!["--as", &format!("evil{n}"), "create", "x"],
        ] {
            let out = beads(&repo, &args);
            assert_clean_failure(&out, &format!("{what}: {args:?}"));
        }
        // Commands that read every document of a kind report and go on, or stop
        // with a clear error; none crashes or hangs.
        for args in [
            vec!["agent", "list"],
            vec!["session", "list"],
            vec!["--json", "doctor"],
            vec!["blocked"],
            vec!["--as", "ann", "prime"],
        ] {
            let out = beads(&repo, &args);
            if !out.status.success() {
                assert_clean_failure(&out, &format!("{what}: {args:?}"));
            }
        }
        let doctor: Value =
            serde_json::from_slice(&beads(&repo, &["--json", "doctor"]).stdout).expect("json");
        let paths: Vec<&str> = doctor["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["path"].as_str())
            .collect();
        for path in &places[..4] {
            assert!(
                paths.contains(&path.as_str()),
                "{what}: doctor misses {path}: {doctor}"
            );
        }
        // Writes that do not touch the broken documents go on.
        repo.create(&format!("after {what}"), &[]);
    }
    assert!(!repo.path.join("pwned").exists());
    repo.assert_fsck_clean();
}
