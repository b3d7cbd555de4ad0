//! `git beads doctor`: finds what is wrong in the store, repairs what is safe.

use crate::common;

use common::{Repo, Sandbox};
use serde_json::Value;

fn findings(repo: &Repo, args: &[&str]) -> (bool, Value) {
    let mut all = vec!["--json", "doctor"];
    all.extend_from_slice(args);
    let out = repo.beads_output(&all);
    let v: Value = serde_json::from_slice(&out.stdout).expect("doctor prints JSON");
    (out.status.success(), v["findings"].clone())
}

fn checks(f: &Value) -> Vec<String> {
    f.as_array()
        .expect("findings")
        .iter()
        .filter(|x| x["severity"] == "error")
        .map(|x| x["check"].as_str().expect("check").to_owned())
        .collect()
}

#[test]
fn a_healthy_store_passes() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("a", &[]);
    repo.create("b", &["--deps", &a]);
    repo.beads(&["agent", "create", "x"]);
    let (ok, f) = findings(&repo, &[]);
    assert!(ok, "{f}");
    assert!(checks(&f).is_empty(), "{f}");
}

#[test]
fn broken_documents_and_cycles_are_reported_with_their_path() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("a", &[]);
    let b = repo.create("b", &["--deps", &a]);
    let a_path = common::doc_path(&a);
    let mut doc = repo.git(&["show", &format!("refs/beads/main:{a_path}")]);
    doc.push_str(&format!("dependencies:\n- id: {b}\n  type: blocks\n"));
    repo.put_raw_doc(&a_path, doc.as_bytes());
    repo.put_raw_doc("beads/zz/bd-zzzz.yaml", b"id: [unclosed\n");
    let out = repo.beads_output(&["doctor"]);
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("beads/zz/bd-zzzz.yaml"), "{text}");
    assert!(text.contains("blocking cycle"), "{text}");
    let (_, f) = findings(&repo, &[]);
    let c = checks(&f);
    assert!(
        c.contains(&"parse".to_owned()) && c.contains(&"cycles".to_owned()),
        "{f}"
    );
}

#[test]
fn fix_drops_finished_work_from_hooks_and_closes_abandoned_sessions() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("done soon", &[]);
    repo.beads(&["agent", "create", "w"]);
    repo.beads(&["sling", &id, "w"]);
    // Closed by hand, as a clone of an older git-beads left it: still on the hook.
    let path = common::doc_path(&id);
    let doc = repo.git(&["show", &format!("refs/beads/main:{path}")]);
    repo.put_raw_doc(
        &path,
        doc.replace("status: hooked", "status: closed").as_bytes(),
    );
    repo.beads(&["session", "start", "--agent", "w"]);
    // An open session the agent no longer points at (as a sync from elsewhere can leave).
    let agent_yaml = repo.git(&["show", "refs/beads/main:agents/w.yaml"]);
    let cleared: String = agent_yaml
        .lines()
        .filter(|l| !l.starts_with("session:"))
        .map(|l| format!("{l}\n"))
        .collect();
    repo.put_raw_doc("agents/w.yaml", cleared.as_bytes());
    let (ok, f) = findings(&repo, &[]);
    assert!(!ok);
    let c = checks(&f);
    assert!(
        c.contains(&"hooks".to_owned()) && c.contains(&"sessions".to_owned()),
        "{f}"
    );
    let (ok, f) = findings(&repo, &["--fix"]);
    assert!(ok, "{f}");
    let agent = repo.beads_json(&["agent", "show", "w"]);
    assert!(agent.get("hook").is_none(), "{agent}");
    let s = repo.beads_json(&["session", "list"])[0].clone();
    assert_eq!(s["end"], "crashed");
    let (ok, f) = findings(&repo, &[]);
    assert!(ok, "{f}");
}

#[test]
fn a_torn_index_is_never_trusted() {
    let (_sb, repo) = Sandbox::with_store();
    for i in 0..20 {
        repo.create(&format!("bead {i}"), &[]);
    }
    let before = repo.beads_json(&["list", "--all"]);
    let file = repo.index_file();
    let mut bytes = std::fs::read(&file).expect("read");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    bytes.truncate(bytes.len() - 7);
    std::fs::write(&file, &bytes).expect("write");
    assert_eq!(repo.beads_json(&["list", "--all"]), before);
    let (ok, f) = findings(&repo, &[]);
    assert!(ok, "{f}");
}

/// Files that are no document of any kind, at the store's root or in its folders, are
/// warnings naming their path; the store is not broken by them.
#[test]
fn files_that_are_no_document_are_warned_of() {
    let (_sb, repo) = Sandbox::with_store();
    repo.create("a", &[]);
    repo.put_raw_doc("README.txt", b"hello\n");
    repo.put_raw_doc("stuff/x.yaml", b"a: 1\n");
    repo.put_raw_doc("beads/ab/notes.txt", b"notes\n");
    let (ok, f) = findings(&repo, &[]);
    assert!(ok, "warnings only: {f}");
    let mut stray: Vec<(&str, &str)> = f
        .as_array()
        .expect("findings")
        .iter()
        .filter(|x| x["check"] == "stray")
        .map(|x| {
            let path = x["path"].as_str().expect("path");
            (path, x["severity"].as_str().expect("severity"))
        })
        .collect();
    stray.sort_unstable();
    assert_eq!(
        stray,
        [
            ("README.txt", "warning"),
            ("beads/ab/notes.txt", "warning"),
            ("stuff/", "warning")
        ],
        "{f}"
    );
}

/// A bead document that does not parse, written with git plumbing; returns its path.
fn break_a_bead(repo: &Repo) -> String {
    let path = "beads/zz/bd-zzzz.yaml".to_owned();
    repo.put_raw_doc(&path, BROKEN);
    path
}

/// The bytes of the broken document.
const BROKEN: &[u8] = b"id: [unclosed\ntitle: lost\n";

/// Runs a harness hook: `git beads ARGS` with `input` on stdin.
fn hook(repo: &Repo, args: &[&str], input: &str) -> std::process::Output {
    common::feed(&mut repo.beads_command(&[], args), input.as_bytes())
}

/// One document that does not parse leaves person-mode `prime`, the Claude
/// SessionStart hook (unbound and for an agent whose hooked bead is the broken one)
/// working: exit 0, the broken document named once, everything else shown.
#[test]
fn a_broken_document_is_named_by_prime_and_the_session_start_hook() {
    let (_sb, repo) = Sandbox::with_store();
    repo.create("still here", &[]);
    let broken = break_a_bead(&repo);

    let out = repo.beads_output(&["prime"]);
    let (stdout, stderr) = (common::stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("still here"), "{stdout}");
    assert_eq!(stderr.matches(broken.as_str()).count(), 1, "{stderr}");

    // Claude Code hands the agent the hook's stdout, never its stderr.
    let start = ["session", "start", "--hook-input"];
    let out = hook(&repo, &start, "{}");
    let stdout = common::stdout(&out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("still here"), "{stdout}");
    assert_eq!(stdout.matches(broken.as_str()).count(), 1, "{stdout}");

    // An agent whose hooked bead breaks: the rest of its prime comes through.
    let hooked = repo.create("hooked", &[]);
    repo.bind_new_agent("w", &[]);
    repo.beads(&["sling", &hooked, "w"]);
    repo.beads(&["mail", "send", "w", "-s", "read me"]);
    repo.put_raw_doc(&common::doc_path(&hooked), BROKEN);
    let out = hook(&repo, &start, r#"{"session_id":"h1"}"#);
    let stdout = common::stdout(&out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("you are agent w"), "{stdout}");
    assert!(stdout.contains("read me"), "{stdout}");
    assert!(stdout.contains(&common::doc_path(&hooked)), "{stdout}");
    let json = repo.beads_json(&["prime"]);
    let named: Vec<&str> = json["broken"]
        .as_array()
        .expect("broken")
        .iter()
        .map(|b| b["path"].as_str().expect("path"))
        .collect();
    assert_eq!(named, [common::doc_path(&hooked)], "{json}");
}

/// `doctor --fix` moves every document no reader can read to `lost+found/<path>/`,
/// byte for byte, in one commit that says what moved and why; doctor is green after,
/// reports the kept copy for the record, and a second `--fix` writes nothing.
#[test]
fn fix_moves_broken_documents_to_lost_found_in_one_commit() {
    let (_sb, repo) = Sandbox::with_store();
    let kept = repo.create("kept", &[]);
    let broken = break_a_bead(&repo);
    let before = repo.store_head();

    let out = repo.beads_output(&["--json", "doctor", "--fix"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let moved = report["moved"].as_array().expect("moved");
    assert_eq!(moved.len(), 1, "{report}");
    assert_eq!(moved[0]["from"], broken.as_str());
    let to = moved[0]["to"].as_str().expect("to").to_owned();
    assert!(to.starts_with(&format!("lost+found/{broken}/")), "{to}");
    assert_eq!(
        report["fix_commit"].as_str(),
        Some(repo.store_head().as_str())
    );
    assert_eq!(repo.commit_count(&format!("{before}..refs/beads/main")), 1);
    let message = repo.git(&["log", "-1", "--format=%B", "refs/beads/main"]);
    assert!(
        message.contains("lost+found") && message.contains(&broken),
        "{message}"
    );
    let bytes = repo
        .command("git")
        .args(["cat-file", "blob", &format!("refs/beads/main:{to}")])
        .output()
        .expect("git cat-file");
    assert_eq!(bytes.stdout, BROKEN);
    assert!(!repo.store_paths().contains(&broken));
    assert_eq!(repo.listed("id"), [kept]);

    let (ok, f) = findings(&repo, &[]);
    assert!(ok, "{f}");
    let info: Vec<(&str, &str)> = f
        .as_array()
        .expect("findings")
        .iter()
        .map(|x| {
            (
                x["check"].as_str().expect("check"),
                x["severity"].as_str().expect("severity"),
            )
        })
        .collect();
    assert_eq!(info, [("lost+found", "info")], "{f}");

    let head = repo.store_head();
    let again = repo.beads_json(&["doctor", "--fix"]);
    assert!(again["fix_commit"].is_null(), "{again}");
    assert_eq!(again["moved"], serde_json::json!([]), "{again}");
    assert_eq!(repo.store_head(), head);
}

/// A hand-edited `priority: 99` committed with git plumbing is an error naming the
/// document; `--fix` leaves it as it is, a change that does not touch it still works,
/// and setting it right makes doctor green.
#[test]
fn a_hand_edited_priority_out_of_range_is_an_error_with_its_path() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("edited", &[]);
    let path = common::doc_path(&id);
    let doc = repo.git(&["show", &format!("refs/beads/main:{path}")]);
    repo.put_raw_doc(&path, doc.replace("priority: 2", "priority: 99").as_bytes());
    let valid = |f: &Value| -> Vec<(String, String)> {
        f.as_array()
            .expect("findings")
            .iter()
            .filter(|x| x["check"] == "valid")
            .map(|x| {
                let path = x["path"].as_str().expect("path").to_owned();
                (path, x["message"].as_str().expect("message").to_owned())
            })
            .collect()
    };
    let (ok, f) = findings(&repo, &[]);
    assert!(!ok, "{f}");
    let found = valid(&f);
    assert_eq!(found.len(), 1, "{f}");
    assert_eq!(found[0].0, path);
    assert!(found[0].1.contains("priority 99"), "{f}");

    let head = repo.store_head();
    let (ok, _) = findings(&repo, &["--fix"]);
    assert!(!ok);
    assert_eq!(repo.store_head(), head, "--fix rewrites nothing of it");
    repo.beads(&["update", &id, "--title", "renamed"]);
    repo.beads(&["update", &id, "--priority", "1"]);
    let (ok, f) = findings(&repo, &[]);
    assert!(ok, "{f}");

    // A message is held to the rules `mail send` keeps in the same way.
    let mail = "mail/ev/msg-evil00001.yaml";
    repo.put_raw_doc(
        mail,
        b"id: msg-evil00001\nfrom: x\nto:\n- x\nsubject: \"\\e[2J\"\nbody: b\npriority: 2\n\
          thread: msg-evil00001\nsent_at: 2026-01-01T00:00:00Z\ndelivery:\n  x: {}\n\
          updated_at: 2026-01-01T00:00:00Z\nupdated_by: x\n",
    );
    let (ok, f) = findings(&repo, &[]);
    assert!(!ok, "{f}");
    let found = valid(&f);
    assert_eq!(found.len(), 1, "{f}");
    assert_eq!(found[0].0, mail);
    assert!(found[0].1.contains("subject"), "{f}");
}

#[test]
fn a_config_that_does_not_parse_is_reported_and_set_aside_by_fix() {
    let (_sb, repo) = Sandbox::with_store();
    repo.create("a", &[]);
    let broken = b"types.custom: [unclosed\n";
    repo.put_raw_doc("config.yaml", broken);
    let (code, err) = repo.beads_fail(&["list"]);
    assert_eq!(code, 4, "every read stops at it: {err}");
    assert!(err.contains("doctor --fix"), "{err}");
    let (ok, f) = findings(&repo, &[]);
    assert!(!ok, "{f}");
    assert!(
        f.as_array()
            .expect("findings")
            .iter()
            .any(|x| x["check"] == "parse" && x["path"] == "config.yaml"),
        "{f}"
    );
    let (ok, f) = findings(&repo, &["--fix"]);
    assert!(ok, "{f}");
    assert_eq!(repo.listed("title"), ["a"]);
    let kept = repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "refs/beads/main",
        "lost+found/",
    ]);
    let kept = kept.trim();
    assert!(kept.starts_with("lost+found/config.yaml/"), "{kept}");
    let bytes = repo.git(&["show", &format!("refs/beads/main:{kept}")]);
    assert_eq!(bytes.as_bytes(), broken, "set aside byte for byte");
    repo.beads(&["config", "set", "types.custom", "spec"]);
}
