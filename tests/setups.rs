//! What people's own setups meet (issue 41): reading a bead as bd shows it, a
//! remote that refuses a push, interrupted writes, help, `setup`, the small
//! things, and the MCP server's reads.

use crate::common;
use crate::render;

use common::{Repo, Sandbox};
use insta::assert_snapshot;
use render::{Names, screen, stable};
use serde_json::Value;

/// An epic with two children, one of which a third bead waits on.
fn epic_store() -> (Sandbox, Repo, Names) {
    let (sb, repo) = Sandbox::with_store();
    let mut names = Names::default();
    let epic = names.name(repo.create("Accounts", &["-t", "epic"]), "EPIC");
    let login = names.name(
        repo.create("Fix login", &["-t", "bug", "--parent", &epic]),
        "LOGIN",
    );
    names.name(repo.create("Sign up", &["--parent", &epic]), "SIGNUP");
    names.name(repo.create("Write docs", &["--deps", &login]), "DOCS");
    (sb, repo, names)
}

#[test]
fn show_lists_what_depends_on_the_bead() {
    let (sb, repo, ids) = epic_store();
    let text = [
        screen(&repo, &["show", ids.id("EPIC")]),
        screen(&repo, &["show", ids.id("LOGIN")]),
    ]
    .join("\n");
    stable(&sb, &ids, || assert_snapshot!("show_dependents", text));
}

#[test]
fn show_json_has_bds_dependents() {
    let (_sb, repo, ids) = epic_store();
    let v = repo.beads_json(&["show", ids.id("EPIC")]);
    let dependents = v[0]["dependents"].as_array().expect("dependents");
    let mut got: Vec<(String, String, String)> = dependents
        .iter()
        .map(|d| {
            (
                d["id"].as_str().expect("id").to_owned(),
                d["dependency_type"].as_str().expect("type").to_owned(),
                d["title"].as_str().expect("title").to_owned(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        (
            ids.id("LOGIN").to_owned(),
            "parent-child".to_owned(),
            "Fix login".to_owned(),
        ),
        (
            ids.id("SIGNUP").to_owned(),
            "parent-child".to_owned(),
            "Sign up".to_owned(),
        ),
    ];
    want.sort();
    assert_eq!(got, want);
    assert_eq!(v[0]["dependent_count"], 2);
    let docs = repo.beads_json(&["show", ids.id("DOCS")]);
    assert_eq!(docs[0]["dependents"], serde_json::json!([]), "{docs}");
}

#[test]
fn an_ambiguous_short_id_lists_the_candidates() {
    let (_sb, repo) = Sandbox::with_store();
    let one = repo.create("one", &["--id", "bd-abc1"]);
    let two = repo.create("two", &["--id", "bd-abc2"]);
    let (code, err) = repo.beads_fail(&["show", "bd-abc"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&one) && err.contains(&two), "{err}");
    assert!(!err.contains("no bead"), "{err}");
    // A start that one bead alone has names that bead, as bd resolves a partial id.
    let v = repo.beads_json(&["show", "bd-abc2"]);
    assert_eq!(v[0]["id"], two.as_str());
    let three = repo.create("three", &["--id", "bd-xyz9"]);
    let v = repo.beads_json(&["show", "bd-xy"]);
    assert_eq!(v[0]["id"], three.as_str());
    let (_, err) = repo.beads_fail(&["show", "ab"]);
    assert!(err.contains(&one) && err.contains(&two), "{err}");
}

#[test]
fn show_of_a_deleted_bead_is_not_found_unless_asked_for() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("doomed", &[]);
    repo.beads(&["delete", &id, "--force"]);
    let (code, err) = repo.beads_fail(&["show", &id]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no issue found"), "{err}");
    let out = repo.beads_output(&["--json", "show", &id]);
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stderr)
        .or_else(|_| serde_json::from_slice(&out.stdout))
        .expect("a JSON error");
    assert_eq!(err["code"], "not_found", "{err}");
    for flag in ["--all", "--deleted"] {
        let v = repo.beads_json(&["show", flag, &id]);
        assert_eq!(v[0]["status"], "deleted", "{v}");
    }
}

#[test]
fn count_by_groups_as_bd_does() {
    let (_sb, repo) = Sandbox::with_store();
    let a = repo.create("a", &["-p", "1", "-l", "x", "-a", "alice"]);
    repo.create("b", &["-p", "1", "-l", "x,y", "-t", "bug"]);
    repo.create("c", &["-p", "3"]);
    repo.beads(&["close", &a]);
    let v = repo.beads_json(&["count", "--by-status"]);
    assert_eq!(
        v,
        serde_json::json!({"schema_version": 1, "total": 3, "groups": [
            {"group": "closed", "count": 1}, {"group": "open", "count": 2}]})
    );
    let v = repo.beads_json(&["count", "--by-priority"]);
    assert_eq!(
        v["groups"][0],
        serde_json::json!({"group": "P1", "count": 2})
    );
    let v = repo.beads_json(&["count", "--by-type"]);
    assert_eq!(
        v["groups"][0],
        serde_json::json!({"group": "bug", "count": 1})
    );
    let v = repo.beads_json(&["count", "--by-assignee"]);
    assert_eq!(
        v["groups"],
        serde_json::json!([{"group": "(unassigned)", "count": 2}, {"group": "alice", "count": 1}])
    );
    let v = repo.beads_json(&["count", "--by-label", "--status", "open"]);
    assert_eq!(v["total"], 2);
    assert_eq!(
        v["groups"],
        serde_json::json!([{"group": "(no labels)", "count": 1}, {"group": "x", "count": 1},
            {"group": "y", "count": 1}])
    );
    assert_eq!(
        repo.beads(&["count", "--by-status"]),
        "Total: 3\n\nclosed: 1\nopen: 2\n"
    );
    let (code, _) = repo.beads_fail(&["count", "--by-status", "--by-type"]);
    assert_eq!(code, 2);
}

#[test]
fn version_flag_speaks_as_bd() {
    let sb = Sandbox::new();
    for args in [&["--version"][..], &["-V"], &["version"]] {
        let out = sb.run(sb.path(), "git", &[&["beads"][..], args].concat());
        let text = common::stdout(&out);
        assert!(text.starts_with("bd version "), "{args:?}: {text}");
        assert!(text.contains("(git-beads "), "{text}");
    }
    let out = sb.run(sb.path(), "git", &["beads", "--json", "--version"]);
    let v: Value = serde_json::from_str(&common::stdout(&out)).expect("JSON");
    assert!(v["version"].is_string(), "{v}");
}

/// A bare remote whose pre-receive hook declines every push, saying `words`, and a
/// clone `c1` of it with a store, synced before the hook was installed.
fn refusing_remote(sb: &Sandbox, words: &str) -> (std::path::PathBuf, Repo) {
    let (remote, c1) = sb.remote_with_store("c1");
    common::write_script(
        &remote.join("hooks").join("pre-receive"),
        &format!("#!/bin/sh\necho '{words}' >&2\nexit 1\n"),
    );
    (remote, c1)
}

#[test]
fn a_remote_that_refuses_a_push_gets_its_own_exit_code() {
    let sb = Sandbox::new();
    let (_remote, c1) = refusing_remote(&sb, "beads are frozen today");
    c1.create("alice's", &[]);
    let head = c1.store_head();
    let (code, err) = c1.beads_fail(&["sync"]);
    assert_eq!(code, 6, "{err}");
    assert_eq!(err.matches("beads are frozen today").count(), 1, "{err}");
    assert!(!err.contains("remote: remote:"), "{err}");
    assert!(
        !err.contains("keeps its merge"),
        "nothing was merged: {err}"
    );
    assert_eq!(c1.store_head(), head, "nothing merged");
    let out = c1.beads_output(&["--json", "push"]);
    assert_eq!(out.status.code(), Some(6));
    let text = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_str(text.trim()).expect("a JSON error on stderr");
    assert_eq!(v["code"], "push_rejected", "{v}");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("beads are frozen today")),
        "{v}"
    );
}

#[test]
fn a_refused_push_after_a_merge_says_the_merge_is_kept() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.create("bob's", &[]);
    c2.sync();
    common::write_script(
        &remote.join("hooks").join("pre-receive"),
        "#!/bin/sh\necho 'read only' >&2\nexit 1\n",
    );
    c1.create("alice's", &[]);
    let (code, err) = c1.beads_fail(&["sync"]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("keeps the merge"), "{err}");
}

#[test]
fn the_manual_documents_the_refused_push_code() {
    let page = git_beads::cli::man::pages()
        .into_iter()
        .find(|p| p.file_name == "git-beads.1")
        .expect("the main page");
    assert!(
        page.source.contains("push_rejected"),
        "exit 6 is documented"
    );
}

/// Where the process `pid` has a file open in `dir` (a pack being written), the
/// target of that descriptor.
fn open_in(pid: u32, dir: &std::path::Path) -> Option<String> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    let dir = dir.canonicalize().ok()?;
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .find(|target| target.starts_with(&dir))
        .map(|t| t.display().to_string())
}

/// The names in the pack directory that a pack writer uses while it writes.
fn temporary_packs(repo: &Repo) -> Vec<String> {
    let dir = repo.path.join(".git/objects/pack");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("pack dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("tmp_"))
        .collect();
    names.sort();
    names
}

#[test]
fn an_import_interrupted_by_a_signal_leaves_no_temporary_pack() {
    use std::io::Write;
    for signal in ["-INT", "-TERM"] {
        let (_sb, repo) = Sandbox::with_store();
        let mut child = repo
            .beads_direct()
            .args(["import", "-q", "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("import starts");
        let mut stdin = child.stdin.take().expect("stdin");
        let record = |k: usize| {
            format!(
                "{{\"id\":\"bd-s{k}\",\"title\":\"bead {k}\",\"status\":\"open\",\"priority\":2,\"issue_type\":\"task\",\"created_at\":\"2025-01-01T00:00:00Z\",\"updated_at\":\"2025-01-01T00:00:00Z\"}}\n"
            )
        };
        for k in 0..200 {
            stdin.write_all(record(k).as_bytes()).expect("feed");
        }
        stdin.flush().expect("flush");
        // The import is now writing its pack and waiting for more input.
        let pack_dir = repo.path.join(".git/objects/pack");
        let pid = child.id();
        while open_in(pid, &pack_dir).is_none() {
            assert!(
                child.try_wait().expect("wait").is_none(),
                "import ended early"
            );
            std::thread::yield_now();
        }
        common::tool("kill")
            .args([signal, &pid.to_string()])
            .status()
            .expect("kill");
        let status = child.wait().expect("import ends");
        assert!(!status.success());
        drop(stdin);
        assert_eq!(temporary_packs(&repo), Vec::<String>::new(), "{signal}");
        let counted = repo.git(&["count-objects", "-v"]);
        assert!(counted.contains("garbage: 0"), "{counted}");
        // The store is as it was, and takes the next import.
        repo.beads(&["list"]);
    }
}

#[test]
fn doctor_fix_removes_stale_temporary_packs_only() {
    let (_sb, repo) = Sandbox::with_store();
    let dir = repo.path.join(".git/objects/pack");
    let stale = dir.join("tmp_pack_AbC123");
    let fresh = dir.join("tmp_pack_live99");
    std::fs::write(&stale, b"PACK half").expect("write");
    std::fs::write(&fresh, b"PACK being written").expect("write");
    common::tool("touch")
        .args(["-d", "2020-01-01", stale.to_str().expect("utf-8")])
        .status()
        .expect("touch");
    let report = repo.beads_json(&["doctor"]);
    let found: Vec<&Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["check"] == "temporary-files")
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    assert!(stale.exists(), "doctor without --fix changes nothing");
    repo.beads_json(&["doctor", "--fix"]);
    assert!(!stale.exists(), "the stale one is gone");
    assert!(fresh.exists(), "a file written just now is left alone");
}

#[test]
fn help_lists_the_global_flags_under_their_own_heading() {
    let sb = Sandbox::new();
    let out = sb.run(sb.path(), "git", &["beads", "help", "create"]);
    let help = common::stdout(&out);
    let (own, global) = help
        .split_once("Global options:")
        .expect("a heading of its own");
    let flags = |text: &str| -> Vec<String> {
        (text.lines())
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.starts_with('-'))
            .map(|w| w.trim_end_matches(',').to_owned())
            .collect()
    };
    assert!(flags(own).contains(&"--title".into()), "{help}");
    assert!(!flags(own).contains(&"--json".into()), "{help}");
    assert!(
        global.contains("--json") && global.contains("--as <AGENT>"),
        "{help}"
    );
    assert!(!global.contains("--title"), "{help}");
    let page = git_beads::cli::man::pages()
        .into_iter()
        .find(|p| p.file_name == "git-beads-create.1")
        .expect("create's page");
    let synopsis = page
        .source
        .lines()
        .skip_while(|l| *l != ".SH SYNOPSIS")
        .nth(1)
        .expect("a synopsis");
    let at = |flag: &str| {
        synopsis
            .find(flag)
            .unwrap_or_else(|| panic!("{flag}: {synopsis}"))
    };
    assert!(
        at("dry\\-run") < at("\\-\\-json\\fR"),
        "own flags first: {synopsis}"
    );
    assert!(
        page.source.contains(".SH \"GLOBAL OPTIONS\""),
        "{}",
        page.source
    );
}

#[test]
fn outside_a_repository_the_error_is_one_line_and_a_hint() {
    let sb = Sandbox::new();
    let out = sb.run(sb.path(), "git", &["beads", "list"]);
    assert_eq!(out.status.code(), Some(1));
    let err =
        String::from_utf8_lossy(&out.stderr).replace(&sb.path().display().to_string(), "[DIR]");
    assert_snapshot!("not_a_repository", err);
}

#[test]
fn setup_says_what_it_wrote_in_each_file() {
    let sb = Sandbox::new();
    let repo = sb.repo("work", "alice");
    let text = [
        screen(&repo, &["setup", "claude"]),
        screen(&repo, &["setup", "agents-md"]),
        screen(&repo, &["setup", "claude", "--remove"]),
        screen(&repo, &["setup", "agents-md", "--remove"]),
    ]
    .join("\n");
    stable(&sb, &Names::default(), || {
        assert_snapshot!("setup_notes", text)
    });
    // What setup made and --remove emptied is gone, not left as `{}`.
    for made in [".mcp.json", ".claude/settings.json", ".claude", "AGENTS.md"] {
        assert!(!repo.path.join(made).exists(), "{made} is left");
    }
}

#[test]
fn setup_remove_keeps_a_file_that_holds_more() {
    let sb = Sandbox::new();
    let repo = sb.repo("work", "alice");
    common::write_file(
        &repo.path.join(".mcp.json"),
        "{\"mcpServers\": {\"other\": {\"command\": \"x\"}}}\n",
    );
    repo.beads(&["setup", "claude"]);
    repo.beads(&["setup", "claude", "--remove"]);
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.path.join(".mcp.json")).expect("kept"))
            .expect("JSON");
    assert_eq!(
        kept,
        serde_json::json!({"mcpServers": {"other": {"command": "x"}}})
    );
}

#[test]
fn installed_git_hooks_are_readable_scripts() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&["hooks", "install"]);
    let hook = std::fs::read_to_string(repo.path.join(".git/hooks/prepare-commit-msg"))
        .expect("installed");
    let lines: Vec<&str> = hook.lines().collect();
    assert!(lines.len() > 10, "{hook}");
    assert!(lines.iter().all(|l| l.chars().count() <= 130), "{hook}");
    assert!(
        lines
            .iter()
            .filter(|l| l.trim_start().starts_with("# "))
            .count()
            >= 3,
        "{hook}"
    );
    // Installed again, the same block stays as it is.
    repo.beads(&["hooks", "install"]);
    let again = std::fs::read_to_string(repo.path.join(".git/hooks/prepare-commit-msg"))
        .expect("installed");
    assert_eq!(again, hook);
}

#[test]
fn mail_ack_and_archive_say_one_line_and_search_lists() {
    let (sb, repo) = Sandbox::with_store();
    repo.beads(&["agent", "create", "ann"]);
    repo.beads(&["agent", "bind", "ann"]);
    let mut names = Names::default();
    let first = repo.beads(&[
        "mail",
        "send",
        "ann",
        "-s",
        "Build is red",
        "-m",
        "look\nat it",
    ]);
    names.name(first.trim(), "FIRST");
    let second = repo.beads(&["mail", "send", "ann", "-s", "Build is green", "-m", "fixed"]);
    names.name(second.trim(), "SECOND");
    let text = [
        screen(&repo, &["mail", "ack", first.trim()]),
        screen(&repo, &["mail", "archive", first.trim()]),
        screen(&repo, &["mail", "search", "build"]),
    ]
    .join("\n");
    stable(&sb, &names, || {
        assert_snapshot!("mail_marks_and_search", text)
    });
}

#[test]
fn stats_without_closed_beads_has_no_lead_time() {
    let (_sb, repo) = Sandbox::with_store();
    repo.create("open work", &[]);
    let text = repo.beads(&["stats"]);
    assert!(!text.contains("0.0 h"), "{text}");
    assert!(text.contains("nothing closed yet"), "{text}");
}

#[test]
fn a_toml_formula_given_by_path_is_read_as_toml() {
    let (sb, repo) = Sandbox::with_store();
    let path = sb.path().join("release.toml");
    common::write_file(
        &path,
        "formula = \"release\"\nversion = 1\n\n[[steps]]\nid = \"build\"\ntitle = \"Build\"\n\n[[steps]]\nid = \"ship\"\ntitle = \"Ship\"\nneeds = [\"build\"]\n",
    );
    let v = repo.beads_json(&["formula", "show", path.to_str().expect("utf-8")]);
    assert_eq!(v["valid"], true, "{v}");
}

#[test]
fn a_document_doctor_set_aside_can_be_brought_back() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("one", &[]);
    let path = common::doc_path(&id);
    let bytes = b"id: [not, a, bead\n";
    repo.put_raw_doc(&path, bytes);
    let out = repo.beads_output(&["doctor", "--fix"]);
    let text = common::stdout(&out);
    let report = repo.beads_json(&["doctor"]);
    let lost = (report["findings"].as_array().expect("findings").iter())
        .find(|f| f["check"] == "lost+found")
        .and_then(|f| f["path"].as_str())
        .expect("kept in lost+found")
        .to_owned();
    assert!(
        text.contains(&format!("bring it back: git beads doctor --restore {lost}")),
        "{text}"
    );
    repo.beads(&["doctor", "--restore", &lost]);
    let back = repo.git(&["show", &format!("refs/beads/main:{path}")]);
    assert_eq!(back.as_bytes(), bytes);
    assert!(
        !repo
            .store_paths()
            .iter()
            .any(|p| p.starts_with("lost+found/"))
    );
    // Again: nothing is kept there now; a path outside lost+found/ is refused.
    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["doctor", "--restore", &lost]);
    assert_eq!(code, 1, "{err}");
    let (code, err) = repo.beads_fail(&["doctor", "--restore", &path]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(repo.store_head(), head, "nothing changed");
}
