//! Data that carries terminal controls (ESC, CSI, OSC, BEL, the 8-bit CSI, bidi
//! overrides), as a hostile remote can write it: human output shows it escaped, so
//! it cannot rewrite the reader's terminal, and `--json` gives it exactly.

use crate::common;

use common::{Repo, Sandbox};
use serde_json::Value;

/// An OSC that retitles the window (ended by BEL), a CSI that clears the screen, one
/// that paints, the 8-bit CSI, a right-to-left override and an isolate.
const HOSTILE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31mred\u{9b}1m\u{202e}evil\u{2066}end";

/// [`HOSTILE`] as human output shows it.
const ESCAPED: &str = r"\e]0;owned\x07\e[2J\e[31mred\u{9b}1m\u{202e}evil\u{2066}end";

/// What the harness writes where a hostile value goes, replaced by hand afterwards
/// (`create`, `mail send` and `agent create` refuse control characters).
const MARK: &str = "PLACEHOLDER";

/// `text` as a YAML double-quoted scalar, every character outside printable ASCII
/// written as an escape.
fn yaml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Rewrites the document at `path` in the store with every `MARK` value replaced by
/// `value`, behind git-beads' back, as a merge from a remote could leave it.
fn plant(repo: &Repo, path: &str, value: &str) {
    let doc = repo.git(&["show", &format!("refs/beads/main:{path}")]);
    assert!(doc.contains(MARK), "{path} has no {MARK}:\n{doc}");
    let doc = doc.replace(MARK, &yaml_quoted(value));
    repo.put_raw_doc(path, doc.as_bytes());
}

/// The store path of the one document whose path holds `id`.
fn path_of(repo: &Repo, id: &str) -> String {
    let paths: Vec<String> = repo
        .store_paths()
        .into_iter()
        .filter(|p| p.contains(id))
        .collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    paths[0].clone()
}

/// A store whose worktree acts as agent `rig/nux` with a hostile role and a bead on
/// its hook whose title and description are hostile, one more bead assigned
/// to a hostile name, and an unread message with a hostile subject and body.
fn hostile_store() -> (Sandbox, Repo, String, String) {
    let (sb, repo) = Sandbox::with_store();
    repo.bind_new_agent("rig/nux", &["--role", MARK]);
    let bead = repo.create(MARK, &["-d", MARK]);
    repo.beads(&["sling", &bead, "rig/nux"]);
    let other = repo.create("assigned elsewhere", &["--assignee", MARK]);
    let message = repo.beads(&[
        "--as-person",
        "mail",
        "send",
        "rig/nux",
        "-s",
        MARK,
        "-m",
        MARK,
    ]);
    plant(&repo, "agents/rig/nux.yaml", HOSTILE);
    plant(&repo, &common::doc_path(&bead), HOSTILE);
    plant(&repo, &common::doc_path(&other), HOSTILE);
    let message = message.trim().to_owned();
    plant(&repo, &path_of(&repo, &message), HOSTILE);
    (sb, repo, bead, message)
}

/// Asserts that a person's screen for `args` shows the hostile text escaped, never
/// a control character or bidi override of it.
fn shows_escaped(repo: &Repo, args: &[&str]) {
    let out = repo.beads_output(args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        let raw: Vec<char> = text
            .chars()
            .filter(|c| {
                (c.is_control() && *c != '\n' && *c != '\t')
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            })
            .collect();
        assert!(raw.is_empty(), "{args:?} {name} carries {raw:?}:\n{text}");
    }
    assert!(stdout.contains(ESCAPED), "{args:?}:\n{stdout}");
}

/// Every string anywhere in `v`.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Asserts that `--json` of `args` holds the hostile text exactly, `count` times.
fn json_exact(repo: &Repo, args: &[&str], count: usize) {
    let mut found = Vec::new();
    strings(&repo.beads_json(args), &mut found);
    let exact = found.iter().filter(|s| *s == HOSTILE).count();
    assert_eq!(exact, count, "{args:?}: {found:?}");
}

#[test]
fn human_output_escapes_terminal_controls_from_data_and_json_keeps_them() {
    let (_sb, repo, bead, message) = hostile_store();
    let commands: [(&[&str], usize); 7] = [
        // The hooked bead's title, the other bead's assignee.
        (&["list"], 2),
        // Its title and description.
        (&["show", &bead], 2),
        // The hooked bead is not ready: only the other one.
        (&["ready"], 1),
        // The subject; the body is read below, after `prime` shows the mail unread.
        (&["mail", "inbox"], 1),
        (&["agent", "show", "rig/nux"], 1),
        // The agent's role, the hooked bead's title and description, the subject.
        (&["prime"], 4),
        (&["mail", "read", &message], 2),
    ];
    for (args, count) in commands {
        shows_escaped(&repo, args);
        json_exact(&repo, args, count);
    }
}

#[test]
fn escaped_text_keeps_the_lines_of_a_description() {
    let (_sb, repo) = Sandbox::with_store();
    let bead = repo.create(MARK, &["-d", MARK]);
    let doc = repo.git(&[
        "show",
        &format!("refs/beads/main:{}", common::doc_path(&bead)),
    ]);
    let doc = doc
        .replacen(MARK, &yaml_quoted("one\rline\nbell\u{7}"), 1)
        .replacen(MARK, &yaml_quoted("first\n\tsecond \u{1b}[1m"), 1);
    repo.put_raw_doc(&common::doc_path(&bead), doc.as_bytes());
    let shown = repo.beads(&["show", &bead]);
    assert!(shown.contains(r"one\rline\nbell\x07"), "{shown}");
    assert!(
        shown.contains("    first\n    \tsecond \\e[1m\n"),
        "{shown}"
    );
}

#[test]
fn colours_on_a_terminal_leave_the_data_escaped() {
    if !common::installed("script") {
        eprintln!("skipped: script(1) is not installed to run git beads on a terminal");
        return;
    }
    let (_sb, repo, bead, _) = hostile_store();
    for args in ["list".to_owned(), format!("show {bead}")] {
        let out = repo
            .command("script")
            .env_remove("NO_COLOR")
            .args(["-qec", &format!("git beads {args}"), "/dev/null"])
            .output()
            .expect("script runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args}: {text}");
        assert!(
            text.contains("\u{1b}[32m") || text.contains("\u{1b}[1m"),
            "{args}: no colour: {text:?}"
        );
        assert!(text.contains(ESCAPED), "{args}: {text:?}");
        for raw in [
            "\u{1b}]",
            "\u{1b}[2J",
            "\u{7}",
            "\u{9b}",
            "\u{202e}",
            "\u{2066}",
        ] {
            assert!(!text.contains(raw), "{args} carries {raw:?}: {text:?}");
        }
    }
}
