//! Signing store commits with the keys people already sign their code with, in every
//! form git takes for `user.signingKey` (GitHub's documented `~/.ssh/id_ed25519.pub`
//! with the private key beside it, a private key path, a `key::` literal the ssh
//! agent holds, a public key whose private half only the agent has) and with gpg as
//! `commit.gpgSign` asks; a key that cannot sign leaves the write unsigned with one
//! line saying why, unless `beads.requireSigned`; and `verify` in a store nobody
//! signs vouches for what it can and exits 0.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::tools::{on_path, sandbox_with_key};
use common::{Repo, Sandbox};
use serde_json::Value;

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// An ssh agent of the test's own on a socket in the sandbox, stopped on drop.
struct SshAgent {
    child: Child,
    sock: PathBuf,
}

impl SshAgent {
    fn start(sb: &Sandbox) -> SshAgent {
        let sock = sb.path().join("agent.sock");
        let child = Command::new("ssh-agent")
            .args(["-D", "-a", path_str(&sock)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ssh-agent starts");
        for _ in 0..200 {
            if sock.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        SshAgent { child, sock }
    }

    /// Hands the agent the private key at `key`.
    fn add(&self, sb: &Sandbox, key: &Path) {
        let out = Command::new("ssh-add")
            .arg("-q")
            .arg(key)
            .env_clear()
            .env("SSH_AUTH_SOCK", &self.sock)
            .env("HOME", sb.path())
            .stdin(Stdio::null())
            .output()
            .expect("ssh-add runs");
        assert!(out.status.success(), "ssh-add: {out:?}");
    }
}

impl Drop for SshAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A repository whose person signs with ssh key `signing_key` (`user.signingKey`
/// as written), with extra environment `env`; its store made by `init`.
fn signing_repo(sb: &Sandbox, signing_key: &str, env: &[(&str, &Path)]) -> Repo {
    let mut repo = sb.repo("work", "alice");
    for (k, v) in env {
        repo = repo.with_env(k, v);
    }
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", signing_key]);
    repo
}

/// Runs `git beads ARGS`, asserting success and that it said nothing about signing;
/// returns stdout.
fn quietly_signed(repo: &Repo, args: &[&str]) -> String {
    let out = repo.beads_output(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "git beads {args:?}: {stderr}");
    assert!(!stderr.contains("unsigned"), "git beads {args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `verify --json`: its exit code and each commit's status, oldest first.
fn verdicts(repo: &Repo) -> (i32, Vec<String>) {
    let out = repo.beads_output(&["--json", "verify"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("verify --json");
    let list = (v.as_array().expect("a bare array").iter())
        .map(|c| c["status"].as_str().expect("status").to_owned())
        .collect();
    (out.status.code().unwrap_or(-1), list)
}

/// Makes a store and a bead in `repo` and asserts that every store commit is signed
/// by the person's key and verifies.
fn every_commit_signed(repo: &Repo) {
    quietly_signed(repo, &["init", "--prefix", "bd"]);
    quietly_signed(repo, &["create", "signed work"]);
    let raw = repo.git(&["cat-file", "commit", "refs/beads/main"]);
    assert!(
        raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"),
        "{raw}"
    );
    let (code, found) = verdicts(repo);
    assert_eq!(code, 0, "{found:?}");
    assert_eq!(found, ["good", "good"]);
}

#[test]
fn a_public_key_path_with_its_private_key_beside_it_signs_as_githubs_docs_set_it() {
    let Some((sb, _)) = sandbox_with_key("id_ed25519") else {
        return;
    };
    every_commit_signed(&signing_repo(&sb, "~/.ssh/id_ed25519.pub", &[]));
}

#[test]
fn a_private_key_path_signs() {
    let Some((sb, key)) = sandbox_with_key("id_ed25519") else {
        return;
    };
    every_commit_signed(&signing_repo(&sb, path_str(&key), &[]));
}

/// A sandbox with key `~/.ssh/id_ed25519` held by an ssh agent of its own, or `None`
/// (said) without ssh-keygen or ssh-agent.
fn key_in_agent() -> Option<(Sandbox, PathBuf, SshAgent)> {
    if !on_path("ssh-agent") {
        return None;
    }
    let (sb, key) = sandbox_with_key("id_ed25519")?;
    let agent = SshAgent::start(&sb);
    agent.add(&sb, &key);
    Some((sb, key, agent))
}

#[test]
fn a_literal_key_the_ssh_agent_holds_signs() {
    let Some((sb, key, agent)) = key_in_agent() else {
        return;
    };
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("public key");
    let public: Vec<&str> = public.split_whitespace().take(2).collect();
    // Only the agent has the private key.
    std::fs::remove_file(&key).expect("rm private key");
    let literal = format!("key::{}", public.join(" "));
    every_commit_signed(&signing_repo(
        &sb,
        &literal,
        &[("SSH_AUTH_SOCK", &agent.sock)],
    ));
}

#[test]
fn a_public_key_whose_private_half_only_the_agent_can_use_signs() {
    let Some((sb, key, agent)) = key_in_agent() else {
        return;
    };
    // The private key beside the public one is encrypted: only the agent can sign.
    let out = sb.run(
        sb.path(),
        "ssh-keygen",
        &[
            "-q",
            "-p",
            "-P",
            "",
            "-N",
            "a passphrase",
            "-f",
            path_str(&key),
        ],
    );
    assert!(out.status.success(), "ssh-keygen -p: {out:?}");
    every_commit_signed(&signing_repo(
        &sb,
        "~/.ssh/id_ed25519.pub",
        &[("SSH_AUTH_SOCK", &agent.sock)],
    ));
}

#[test]
fn a_key_that_cannot_sign_leaves_writes_unsigned_with_one_line_unless_required() {
    let Some((sb, key)) = sandbox_with_key("id_ed25519") else {
        return;
    };
    // The public key is there; its private half is not, and no agent runs.
    std::fs::remove_file(&key).expect("rm private key");
    let repo = signing_repo(&sb, "~/.ssh/id_ed25519.pub", &[]);
    for args in [
        &["init", "--prefix", "bd"][..],
        &["create", "unsigned work"],
    ] {
        let out = repo.beads_output(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "git beads {args:?}: {stderr}");
        let said: Vec<&str> = stderr.lines().filter(|l| l.contains("unsigned")).collect();
        assert_eq!(said.len(), 1, "git beads {args:?}: {stderr}");
        assert!(said[0].starts_with("warning: store commits were written unsigned: "));
    }
    let raw = repo.git(&["cat-file", "commit", "refs/beads/main"]);
    assert!(!raw.contains("gpgsig"), "{raw}");

    // An unsigned history is not a forged one.
    let (code, found) = verdicts(&repo);
    assert_eq!((code, found), (0, vec!["unsigned".to_owned(); 2]));
    let out = repo.beads_output(&["verify"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing is forged");
    assert!(
        stderr.contains("0 of 2 commits verify; 2 unsigned"),
        "{stderr}"
    );
    assert!(stderr.contains("hint: "), "{stderr}");

    // With beads.requireSigned, a write that cannot be signed is refused, and the
    // store is as it was; so is verify.
    repo.git(&["config", "beads.requireSigned", "true"]);
    let before = repo.store_head();
    let (code, stderr) = repo.beads_fail(&["create", "must be signed"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("id_ed25519"), "{stderr}");
    assert_eq!(repo.store_head(), before);
    let (code, _) = verdicts(&repo);
    assert_eq!(code, 3);
}

#[test]
fn gpg_signs_when_commit_gpgsign_asks_and_verify_leaves_it_to_git() {
    if !on_path("gpg") {
        return;
    }
    let sb = Sandbox::new();
    let gnupg = sb.path().join("gnupg");
    std::fs::create_dir_all(&gnupg).expect("mkdir");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&gnupg, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let repo = sb.repo("work", "alice").with_env("GNUPGHOME", &gnupg);
    let gen_key = repo
        .command("gpg")
        .args([
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "alice <alice@example.com>",
            "ed25519",
            "sign",
            "never",
        ])
        .output()
        .expect("gpg runs");
    assert!(gen_key.status.success(), "gpg: {gen_key:?}");
    repo.git(&["config", "commit.gpgSign", "true"]);
    // Each commit is signed by gpg with the person's identity: git checks the
    // signature, and verify says it leaves it to git.
    let repo = &repo;
    quietly_signed(repo, &["init", "--prefix", "bd"]);
    quietly_signed(repo, &["create", "signed with gpg"]);
    let raw = repo.git(&["cat-file", "commit", "refs/beads/main"]);
    assert!(
        raw.contains("gpgsig -----BEGIN PGP SIGNATURE-----"),
        "{raw}"
    );
    let checked = repo
        .command("git")
        .args(["verify-commit", "refs/beads/main"])
        .output()
        .expect("git runs");
    assert!(checked.status.success(), "git verify-commit: {checked:?}");
    let (code, found) = verdicts(repo);
    assert_eq!((code, found), (0, vec!["unchecked".to_owned(); 2]));
    let _ = repo
        .command("gpgconf")
        .args(["--kill", "gpg-agent"])
        .output();
}
