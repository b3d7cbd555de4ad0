//! `git beads doctor`: finds what is wrong in the store, repairs what is safe.

mod common;

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
    let agent = repo.beads_json(&["agent", "show", "w"])["agent"].clone();
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
