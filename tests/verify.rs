//! Signed store commits and `git beads verify`: a chain written by a person and two
//! agents (one the child of the other) verifies, and so does git with the written
//! allowed-signers file; forged, unsigned, over-reaching (a close, claim, update or
//! comment beyond the agent's authority) and rotated-out commits are each reported by
//! id; a sync with `beads.requireSigned` refuses a forged remote
//! commit and leaves the local store as it was.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::tools::{on_path, ssh_keygen};
use common::{Repo, Sandbox};
use serde_json::Value;

/// A new ed25519 key pair without a passphrase at `name` in the sandbox.
fn keygen(sb: &Sandbox, name: &str) -> PathBuf {
    let path = sb.path().join(name);
    ssh_keygen(sb, &path);
    path
}

/// Makes `repo`'s person sign with a new key of their own, as git does for
/// `commit -S` (`gpg.format=ssh`, `user.signingKey`).
fn sign_as_person(sb: &Sandbox, repo: &Repo) -> PathBuf {
    let key = keygen(sb, &format!("{}-key", repo.user));
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", key.to_str().expect("utf-8")]);
    key
}

/// `verify --json` (which may fail): each commit's status by id, in order.
fn verdicts(repo: &Repo, extra: &[&str]) -> (i32, Vec<(String, String)>) {
    let mut args = vec!["--json", "verify"];
    args.extend_from_slice(extra);
    let out = repo.beads_output(&args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify --json: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let list = v
        .as_array()
        .expect("a bare array")
        .iter()
        .map(|c| {
            (
                c["commit"].as_str().expect("commit").to_owned(),
                c["status"].as_str().expect("status").to_owned(),
            )
        })
        .collect();
    (out.status.code().unwrap_or(-1), list)
}

/// [`chain`] in a new sandbox, or `None` (said on stderr) without ssh-keygen.
fn chained() -> Option<(Sandbox, Repo, String)> {
    on_path("ssh-keygen").then(|| {
        let sb = Sandbox::new();
        let (repo, id) = chain(&sb);
        (sb, repo, id)
    })
}

/// `verify --json`'s verdicts, each asserted good (and the exit code 0).
fn all_good(repo: &Repo) -> Vec<(String, String)> {
    let (code, found) = verdicts(repo, &[]);
    assert_eq!(code, 0, "{found:?}");
    assert!(found.iter().all(|(_, s)| s == "good"), "{found:?}");
    found
}

/// A store made by `alice` (signing with her own key) in which she created agent
/// `lead`, which created `lead/worker` without the `close` capability; each wrote a
/// change of its own. Returns the repository and a bead the worker made.
fn chain(sb: &Sandbox) -> (Repo, String) {
    let repo = sb.repo("work", "alice");
    sign_as_person(sb, &repo);
    repo.init();
    repo.create("by alice", &[]);
    repo.lead_and_child("lead/worker", "create,update,comment");
    let by_lead = repo.beads(&["--as", "lead", "create", "by lead"]);
    repo.beads(&["--as", "lead", "close", by_lead.trim()]);
    let id = repo.beads(&["--as", "lead/worker", "create", "by worker"]);
    let id = id.trim().to_owned();
    repo.beads(&["--as", "lead/worker", "comments", "add", &id, "a note"]);
    (repo, id)
}

/// Writes a commit of `tree` on `parent` with plain git, authored as `author`
/// (`name`, `email`) with a `Beads-Actor:` trailer, signed with `key` if given, and
/// moves `refs/beads/main` to it; returns its id. It is dated `ahead` seconds after
/// now (git judges a key by the commit's date against the span the allowed-signers
/// file gives it; the hermetic date is in the past).
fn forge(
    repo: &Repo,
    tree: &str,
    parent: &str,
    actor: &str,
    key: Option<&Path>,
    ahead: u64,
) -> String {
    let email = if actor.contains('@') {
        actor.to_owned()
    } else {
        format!("{}@agents.git-beads.invalid", actor.replace('/', "."))
    };
    let name = actor.split('@').next().expect("a name");
    let message = format!("forged by the test\n\nBeads-Actor: {name}\n");
    let mut args: Vec<String> = vec!["-c".into(), "gpg.format=ssh".into()];
    if let Some(key) = key {
        args.push("-c".into());
        args.push(format!("user.signingKey={}", key.display()));
    }
    args.extend([
        "commit-tree".into(),
        tree.into(),
        "-p".into(),
        parent.into(),
    ]);
    if key.is_some() {
        args.push("-S".into());
    }
    args.extend(["-m".into(), message]);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let date = format!("{} +0000", secs + ahead);
    let out = repo
        .command("git")
        .args(&args)
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .env("GIT_AUTHOR_NAME", name)
        .env("GIT_AUTHOR_EMAIL", &email)
        .env("GIT_COMMITTER_NAME", name)
        .env("GIT_COMMITTER_EMAIL", &email)
        .output()
        .expect("git runs");
    let id = common::expect_success("git commit-tree", &out)
        .trim()
        .to_owned();
    repo.git(&["update-ref", "refs/beads/main", &id, parent]);
    id
}

fn head_tree(repo: &Repo) -> String {
    repo.git(&["rev-parse", "refs/beads/main^{tree}"])
        .trim()
        .to_owned()
}

#[test]
fn a_chain_of_a_person_and_two_agents_verifies() {
    let Some((sb, repo, _)) = chained() else {
        return;
    };
    let found = all_good(&repo);
    assert_eq!(found.len(), repo.commit_count("refs/beads/main"));
    // Every commit is signed in git's own format, by the key of the actor it names.
    let v = repo.beads_json(&["verify"]);
    let by: BTreeMap<&str, &str> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|c| {
            (
                c["actor"].as_str().expect("actor"),
                c["signer"].as_str().expect("signed"),
            )
        })
        .collect();
    assert_eq!(
        by.keys().copied().collect::<Vec<_>>(),
        ["alice", "lead", "lead/worker"]
    );
    assert_eq!(by["alice"], {
        let pubkey = std::fs::read_to_string(sb.path().join("alice-key.pub")).expect("pub");
        let mut f = pubkey.split_whitespace();
        format!("{} {}", f.next().expect("type"), f.next().expect("data"))
    });
    // The agents' private keys stay outside the store, readable by their owner alone.
    use std::os::unix::fs::PermissionsExt as _;
    let key = repo.common_dir().join("beads/keys/lead/worker.key");
    let mode = std::fs::metadata(&key)
        .expect("a key file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let tracked = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/main"]);
    assert!(!tracked.contains(".key"), "{tracked}");
}

#[test]
fn a_squash_by_an_agent_that_may_close_but_not_delete_verifies() {
    let Some((_sb, repo, _)) = chained() else {
        return;
    };
    let formulas = repo.path.join(".beads/formulas");
    std::fs::create_dir_all(&formulas).expect("a formulas folder");
    std::fs::write(
        formulas.join("two.formula.toml"),
        "formula = \"two\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\n\
         [[steps]]\nid = \"b\"\ntitle = \"B\"\nneeds = [\"a\"]\n",
    )
    .expect("a formula");
    repo.beads(&[
        "--as",
        "lead",
        "agent",
        "create",
        "lead/closer",
        "--can",
        "create,close",
    ]);
    let closer = |args: &[&str]| {
        let mut all = vec!["--as", "lead/closer"];
        all.extend_from_slice(args);
        repo.beads(&all).trim().to_owned()
    };
    let mol = closer(&["mol", "pour", "two", "-q"]);
    for step in common::ids(&repo.beads_json(&["list", "--parent", &mol])) {
        closer(&["close", &step, "-q"]);
    }
    // The squash tombstones both steps and rewrites the molecule: what `close` allows.
    closer(&["mol", "squash", &mol]);
    all_good(&repo);
    let shown = repo.beads_json(&["show", &mol]);
    assert_eq!(shown[0]["extra"]["squashed_steps"], 2, "{shown}");
}

#[test]
fn forged_unsigned_over_reaching_and_rotated_out_commits_are_reported() {
    let Some((sb, repo, worker_bead)) = chained() else {
        return;
    };
    let mallory = keygen(&sb, "mallory");
    let worker_key = repo.common_dir().join("beads/keys/lead/worker.key");

    // The right author name, another key.
    let forged = forge(
        &repo,
        &head_tree(&repo),
        &repo.store_head(),
        "lead/worker",
        Some(&mallory),
        0,
    );
    // No signature at all.
    let unsigned = forge(
        &repo,
        &head_tree(&repo),
        &repo.store_head(),
        "alice@example.com",
        None,
        0,
    );
    // A close by the worker, which lacks `close`: the tree of a close lead made,
    // committed as the worker, signed with the worker's own key.
    let before = repo.store_head();
    repo.beads(&["--as", "lead", "close", &worker_bead]);
    let closed_tree = head_tree(&repo);
    repo.git(&["update-ref", "refs/beads/main", &before]);
    let over = forge(
        &repo,
        &closed_tree,
        &before,
        "lead/worker",
        Some(&worker_key),
        0,
    );
    // A key the worker had, used after alice rotated it out (dated after the
    // rotation, for git).
    let old_key = sb.path().join("worker-old.key");
    std::fs::copy(&worker_key, &old_key).expect("copy");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&old_key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    repo.beads(&["agent", "key", "rotate", "lead/worker"]);
    let rotated = forge(
        &repo,
        &head_tree(&repo),
        &repo.store_head(),
        "lead/worker",
        Some(&old_key),
        2,
    );
    // The new key signs as the worker.
    repo.beads(&["--as", "lead/worker", "create", "after the rotation"]);

    let (code, found) = verdicts(&repo, &[]);
    assert_eq!(code, 3, "{found:?}");
    let status: BTreeMap<&str, &str> = found
        .iter()
        .map(|(c, s)| (c.as_str(), s.as_str()))
        .collect();
    assert_eq!(status[forged.as_str()], "unknown-key");
    assert_eq!(status[unsigned.as_str()], "unsigned");
    assert_eq!(status[over.as_str()], "over-reaching");
    assert_eq!(status[rotated.as_str()], "rotated-out");
    let bad: Vec<&str> = status
        .iter()
        .filter(|(_, s)| **s != "good")
        .map(|(c, _)| *c)
        .collect();
    assert_eq!(bad.len(), 4, "{found:?}");
    assert_eq!(found.last().map(|(_, s)| s.as_str()), Some("good"));

    // The human report names each of them by id, and exits 3 too.
    let (code, stdout, _) = repo.beads_fail_with_stdout(&["verify"]);
    assert_eq!(code, 3);
    for id in [&forged, &unsigned, &over, &rotated] {
        assert!(stdout.contains(id.as_str()), "{id} missing from\n{stdout}");
    }
    assert_eq!(stdout.lines().count(), 4, "{stdout}");

    // A range checks only what it names.
    let (code, only) = verdicts(&repo, &[&format!("{rotated}..refs/beads/main")]);
    assert_eq!((code, only.len()), (0, 1), "{only:?}");

    // git, given the allowed-signers file verify writes, accepts the signatures that
    // verify accepts and none of the forged, unsigned or rotated-out ones.
    let file = sb.path().join("allowed_signers");
    let (code, _) =
        repo.beads_fail(&["verify", "--allowed-signers", file.to_str().expect("utf-8")]);
    assert_eq!(code, 3);
    let log = repo.git(&[
        "-c",
        &format!("gpg.ssh.allowedSignersFile={}", file.display()),
        "log",
        "--format=%H %G?",
        "refs/beads/main",
    ]);
    let git_says: BTreeMap<&str, &str> = log.lines().filter_map(|l| l.split_once(' ')).collect();
    assert_eq!(git_says.len(), found.len(), "{log}");
    for (commit, verdict) in &status {
        match *verdict {
            "good" => assert_eq!(git_says[commit], "G", "{commit} verifies; git: {log}"),
            "over-reaching" => assert_eq!(git_says[commit], "G", "a good signature"),
            _ => assert_ne!(git_says[commit], "G", "{commit} is {verdict}; git: {log}"),
        }
    }
}

/// `verify --json`: each commit's detail by id, for those that have one.
fn details(repo: &Repo) -> BTreeMap<String, String> {
    let out = repo.beads_output(&["--json", "verify"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("verify --json");
    v.as_array()
        .expect("a bare array")
        .iter()
        .filter_map(|c| {
            Some((
                c["commit"].as_str()?.to_owned(),
                c["detail"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

#[test]
fn claims_updates_and_comments_beyond_an_agents_authority_are_over_reaching() {
    let Some((_sb, repo, bead)) = chained() else {
        return;
    };
    repo.beads(&[
        "--as",
        "lead",
        "agent",
        "create",
        "lead/scribe",
        "--can",
        "create",
    ]);
    let scribe_key = repo.common_dir().join("beads/keys/lead/scribe.key");
    // What `lead` changes, committed as the scribe, signed with the scribe's own key.
    let as_scribe = |change: &[&str]| {
        let before = repo.store_head();
        let mut args = vec!["--as", "lead"];
        args.extend_from_slice(change);
        repo.beads(&args);
        let tree = head_tree(&repo);
        repo.git(&["update-ref", "refs/beads/main", &before]);
        forge(&repo, &tree, &before, "lead/scribe", Some(&scribe_key), 0)
    };
    let claim = as_scribe(&[
        "update",
        &bead,
        "--status",
        "in_progress",
        "--assignee",
        "lead/scribe",
    ]);
    let update = as_scribe(&["update", &bead, "--title", "retitled"]);
    let comment = as_scribe(&["comments", "add", &bead, "a word"]);
    // Within its authority: the worker (create, update, comment) takes the bead by
    // `update`, as a claim looks, and the scribe creates.
    repo.beads(&[
        "--as",
        "lead/worker",
        "update",
        &bead,
        "--status",
        "in_progress",
        "--assignee",
        "lead/worker",
    ]);
    repo.beads(&["--as", "lead/scribe", "create", "by the scribe"]);

    let (code, found) = verdicts(&repo, &[]);
    assert_eq!(code, 3, "{found:?}");
    let bad: Vec<(&str, &str)> = found
        .iter()
        .filter(|(_, s)| s != "good")
        .map(|(c, s)| (c.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        bad,
        [
            (claim.as_str(), "over-reaching"),
            (update.as_str(), "over-reaching"),
            (comment.as_str(), "over-reaching"),
        ],
        "{found:?}"
    );
    let why = details(&repo);
    assert_eq!(why[&claim], "agent lead/scribe may not claim");
    assert_eq!(why[&update], "agent lead/scribe may not update");
    assert_eq!(why[&comment], "agent lead/scribe may not comment");

    // Closing by `update` needs `close`, as verify judges it: the worker is refused
    // and nothing changes.
    let before = repo.store_head();
    let (code, stderr) =
        repo.beads_fail(&["--as", "lead/worker", "update", &bead, "--status", "closed"]);
    assert_eq!(code, 5, "{stderr}");
    assert_eq!(repo.store_head(), before);
}

#[test]
fn sync_with_require_signed_refuses_a_forged_remote_commit() {
    if !on_path("ssh-keygen") {
        return;
    }
    let sb = Sandbox::new();
    let remote = sb.bare("remote.git");
    let c1 = sb.clone(&remote, "c1", "alice");
    c1.commit_file("README", "code\n", "code");
    c1.git(&["push", "-q", "origin", "HEAD:main"]);
    sign_as_person(&sb, &c1);
    c1.init();
    c1.create("first", &[]);
    c1.beads(&["agent", "create", "bot"]);
    c1.beads(&["--as", "bot", "create", "by bot"]);
    c1.sync();
    let signers = sb.path().join("signers");
    c1.beads(&[
        "verify",
        "--allowed-signers",
        signers.to_str().expect("utf-8"),
    ]);

    let c2 = sb.clone(&remote, "c2", "bob");
    sign_as_person(&sb, &c2);
    c2.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        signers.to_str().expect("utf-8"),
    ]);
    c2.git(&["config", "beads.requireSigned", "true"]);
    // Everything the remote has verifies: it is adopted.
    c2.sync();
    assert_eq!(c2.store_head(), c1.store_head());

    // Mallory pushes a commit in bot's name, signed with her own key.
    let mallory = keygen(&sb, "mallory");
    let forged = forge(
        &c1,
        &head_tree(&c1),
        &c1.store_head(),
        "bot",
        Some(&mallory),
        0,
    );
    c1.sync();
    let before = c2.store_head();
    let (code, stderr) = c2.beads_fail(&["sync"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains(&forged[..12]), "{stderr}");
    assert!(stderr.contains("unknown-key"), "{stderr}");
    assert_eq!(c2.store_head(), before, "nothing was merged");
    // What the remote sent is kept for inspection.
    let tracking = c2.git(&["rev-parse", "refs/beads/remotes/origin/main"]);
    assert_eq!(tracking.trim(), forged);
}

#[test]
fn a_sessions_log_carries_each_commits_verdict_and_signer() {
    let Some((_sb, repo, id)) = chained() else {
        return;
    };
    repo.beads(&["agent", "bind", "lead"]);
    let started = repo.beads_json(&["session", "start"]);
    let sid = started["session"]["id"]
        .as_str()
        .expect("a session")
        .to_owned();
    repo.beads(&["comments", "add", &id, "seen by lead"]);
    // A commit in the session's name that nobody signed.
    let parent = repo
        .git(&["rev-parse", "refs/beads/main"])
        .trim()
        .to_owned();
    let message = format!("forged\n\nBeads-Actor: lead\nBeads-Session: {sid}\n");
    let forged = repo
        .git(&[
            "commit-tree",
            &head_tree(&repo),
            "-p",
            &parent,
            "-m",
            &message,
        ])
        .trim()
        .to_owned();
    repo.git(&["update-ref", "refs/beads/main", &forged, &parent]);

    let log = repo.beads_json(&["session", "log", &sid]);
    let entries = log.as_array().expect("a bare array");
    assert!(entries.len() >= 2, "{log}");
    let lead_key = repo.beads_json(&["verify", &format!("{parent}^..{parent}")]);
    let lead_key = lead_key[0]["signer"].as_str().expect("lead signed");
    for e in entries {
        if e["commit"] == forged.as_str() {
            assert_eq!(e["verdict"], "unsigned", "{e}");
            assert!(e.get("signer").is_none(), "{e}");
        } else {
            assert_eq!(e["verdict"], "good", "{e}");
            assert_eq!(e["signer"], lead_key, "{e}");
        }
    }
    assert!(entries.iter().any(|e| e["commit"] == forged.as_str()));
    let text = repo.beads(&["session", "log", &sid]);
    assert!(text.contains("forged [unsigned]"), "{text}");
    assert!(text.contains("[good]"), "{text}");
}
