//! `git beads completions SHELL` prints working scripts, outside any repository too.
//! Shells that are not installed are checked by content only, and the test says so.

use crate::common;

use std::path::Path;

use common::{Sandbox, installed};

fn script(sb: &Sandbox, shell: &str) -> String {
    // The sandbox root is not a repository: completions need none.
    let out = sb.run(sb.path(), "git", &["beads", "completions", shell]);
    assert!(
        out.status.success(),
        "completions {shell}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 script")
}

/// Runs `body` in bash after sourcing `files`, returning stdout.
fn bash(sb: &Sandbox, files: &[&Path], body: &str) -> String {
    let mut text = String::new();
    for f in files {
        text.push_str(&format!("source '{}'\n", f.display()));
    }
    text.push_str(body);
    let out = sb.run(sb.path(), "bash", &["-c", &text]);
    assert!(
        out.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn bash_completes_commands_verbs_and_options_also_through_git() {
    let sb = Sandbox::new();
    let text = script(&sb, "bash");
    assert!(
        text.contains("complete -F _gitbeads"),
        "registers a function"
    );
    assert!(text.contains("_git_beads()"), "bridges git's completion");
    let path = sb.path().join("git-beads.bash");
    std::fs::write(&path, &text).expect("write");

    let direct = bash(
        &sb,
        &[&path],
        "COMP_WORDS=(git-beads cr); COMP_CWORD=1; _gitbeads git-beads cr git-beads; echo \"${COMPREPLY[*]}\"\n\
         COMP_WORDS=(git-beads dep a); COMP_CWORD=2; _gitbeads git-beads a dep; echo \"${COMPREPLY[*]}\"\n\
         COMP_WORDS=(git-beads import --sk); COMP_CWORD=2; _gitbeads git-beads --sk import; echo \"${COMPREPLY[*]}\"\n",
    );
    let lines: Vec<&str> = direct.lines().collect();
    assert_eq!(lines, ["create", "add", "--skip-bad"], "{direct}");

    let git_completion = Path::new("/usr/share/bash-completion/completions/git");
    if !git_completion.exists() {
        eprintln!("note: git's bash completion is not installed; `git beads <TAB>` not checked");
        return;
    }
    let via_git = bash(
        &sb,
        &[&path, git_completion],
        "COMP_LINE='git beads cr'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(git beads cr); COMP_CWORD=2\n\
         __git_wrap__git_main; echo \"${COMPREPLY[*]}\"\n\
         COMP_LINE='git beads export --fo'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(git beads export --fo); COMP_CWORD=3\n\
         __git_wrap__git_main; echo \"${COMPREPLY[*]}\"\n",
    );
    let lines: Vec<&str> = via_git.lines().map(str::trim).collect();
    assert_eq!(lines, ["create", "--format"], "{via_git}");
}

#[test]
fn zsh_script_is_valid() {
    let sb = Sandbox::new();
    let text = script(&sb, "zsh");
    assert!(text.starts_with("#compdef git-beads"), "{}", &text[..40]);
    assert!(text.contains("'import:"), "lists the commands");
    if !installed("zsh") {
        eprintln!("note: zsh is not installed; its script was checked by content only");
        return;
    }
    let path = sb.path().join("_git-beads");
    std::fs::write(&path, &text).expect("write");
    let out = sb.run(sb.path(), "zsh", &["-n", path.to_str().expect("utf-8")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn fish_script_completes() {
    let sb = Sandbox::new();
    let text = script(&sb, "fish");
    assert!(
        text.contains("complete -c git-beads"),
        "registers for git-beads"
    );
    if !installed("fish") {
        eprintln!("note: fish is not installed; its script was checked by content only");
        return;
    }
    let path = sb.path().join("git-beads.fish");
    std::fs::write(&path, &text).expect("write");
    let body = format!(
        "source '{}'; complete -C 'git-beads cr'; complete -C 'git-beads dep a'",
        path.display()
    );
    let out = sb.run(sb.path(), "fish", &["--no-config", "-c", &body]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("create\t")),
        "{stdout}"
    );
    assert!(stdout.lines().any(|l| l.starts_with("add\t")), "{stdout}");
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let sb = Sandbox::new();
    let out = sb.run(sb.path(), "git", &["beads", "completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}
