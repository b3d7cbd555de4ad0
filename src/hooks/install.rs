//! Installing git-beads' git hooks: the one-line shims shipped in `hooks/`, each
//! placed as a marked block inside whatever hook file is already there, so that the
//! user's own lines keep running.
//!
//! The block goes right after the file's `#!` line, before the user's lines, so that
//! an `exit` or `exec` of theirs cannot skip it; it never reads the hook's standard
//! input, which the user's lines get untouched. git-beads installs into the
//! directory git really runs hooks from (`git rev-parse --git-path hooks`, which
//! honours `core.hooksPath`) and chains with the usual hook managers:
//!
//! - husky: `core.hooksPath=.husky/_` (husky 9) runs the scripts in `.husky/`, so
//!   the blocks go there; with `core.hooksPath=.husky` (older husky) they are the
//!   hook files themselves.
//! - pre-commit: a hook file pre-commit generated runs `<hook>.legacy` too, so the
//!   block goes into that file (and survives `pre-commit install`).
//! - lefthook: a hook file lefthook generated is rewritten by `lefthook install`, so
//!   it is left alone (unless `--force`) and the lines to add to `lefthook.yml` are
//!   printed instead.
//!
//! A hook file for another interpreter (`#!/usr/bin/env python`) is left alone and
//! the command to call from it is printed.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::GIT_HOOK_NAMES;
use crate::ops::{self, OpError, Replacement, Store};

/// The first line of git-beads' block in a hook file.
pub const BEGIN: &str = "# >>> git-beads >>>";
/// The last line of git-beads' block in a hook file.
pub const END: &str = "# <<< git-beads <<<";
/// What follows [`BEGIN`] on its line.
const BEGIN_NOTE: &str =
    " (written by `git beads hooks install`, removed by `git beads hooks uninstall`)";

/// The config key that makes a failing git-beads hook fail the git command (a
/// pre-push stops the push, a prepare-commit-msg stops the commit; git ignores the
/// exit status of the post-* hooks). Without it a failure is one line on stderr.
pub const STRICT_KEY: &str = crate::settings::HOOKS_STRICT;

/// The shims shipped in `hooks/` at the top of the repository, by hook name: the
/// one place their text lives, embedded so that `cargo install` users get them.
/// post-commit has none: the provenance notes of a session's commits are written by
/// the next git-beads command, which finds the commits by the trailers
/// prepare-commit-msg adds (earlier versions installed one; `hooks install` removes
/// it).
pub const SHIMS: &[(&str, &str)] = &[
    ("post-checkout", include_str!("../../hooks/post-checkout")),
    (
        "prepare-commit-msg",
        include_str!("../../hooks/prepare-commit-msg"),
    ),
    ("post-merge", include_str!("../../hooks/post-merge")),
    ("post-rewrite", include_str!("../../hooks/post-rewrite")),
    ("pre-push", include_str!("../../hooks/pre-push")),
];

/// The arguments git passes each hook, as lefthook names them.
const LEFTHOOK_ARGS: &[(&str, &str)] = &[
    ("post-checkout", " {1} {2} {3}"),
    ("prepare-commit-msg", " {1} {2} {3}"),
    ("post-merge", " {1}"),
    ("post-rewrite", " {1}"),
    ("pre-push", " {1} {2}"),
];

/// What went wrong installing or removing hooks.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A hook file could not be read or written.
    #[error(transparent)]
    Io(#[from] super::FileError),
    /// A hook file holds the first line of git-beads' block but not its last.
    #[error(
        "{path} holds a damaged git-beads block (`{BEGIN}` without `{END}`); fix it by hand or pass --force"
    )]
    Damaged {
        /// The file.
        path: PathBuf,
    },
    /// The repository could not be asked where hooks go.
    #[error(transparent)]
    Op(#[from] OpError),
}

/// How a shim's line starts: it runs git-beads only when there is one to run, and
/// otherwise says so in one line (git itself would print four, guessing at a command
/// the user meant).
const SHIM_START: &str = "if command -v git-beads >/dev/null 2>&1 ";

/// How the line of a shim that first reads git-beads' state in the git dir starts,
/// in the shell: prepare-commit-msg reads the worktree's binding, does nothing
/// outside a session, and adds the session's trailers itself to a message it can
/// read plainly (no comment lines, no scissors or `---` line, no odd spacing), which
/// is what `git commit -m` and `-F` hand it; it runs git-beads only for the rest.
/// The post-commit shim of earlier versions started the same way.
const STATE_SHIM_START: &str = "d=${GIT_DIR:-.git}; ";

/// The shim of a git hook.
pub fn shim(hook: &str) -> Option<&'static str> {
    SHIMS.iter().find(|(n, _)| *n == hook).map(|(_, s)| *s)
}

/// The shim's command lines, without its `#!` line.
fn shim_body(hook: &str) -> &'static str {
    let text = shim(hook).unwrap_or_default();
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("#!") => rest,
        _ => text,
    }
}

/// The marked block for `hook`, as it is written into a hook file.
pub fn block(hook: &str) -> String {
    format!("{BEGIN}{BEGIN_NOTE}\n{}{END}\n", shim_body(hook))
}

/// The line to add to a hook file git-beads did not write into.
pub fn line_to_add(hook: &str) -> String {
    format!("git beads git-hook {hook} \"$@\"")
}

/// The lines to add to `lefthook.yml` for `hook`.
pub fn lefthook_snippet(hook: &str) -> String {
    let args = LEFTHOOK_ARGS
        .iter()
        .find(|(n, _)| *n == hook)
        .map(|(_, a)| *a)
        .unwrap_or_default();
    format!("{hook}:\n  commands:\n    git-beads:\n      run: git beads git-hook {hook}{args}\n")
}

/// A hook manager found in the repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Manager {
    /// husky (`.husky/`).
    Husky,
    /// pre-commit (`.pre-commit-config.yaml`).
    PreCommit,
    /// lefthook (`lefthook.yml`).
    Lefthook,
}

/// Where hooks go in this repository.
#[derive(Clone, Debug, Serialize)]
pub struct Layout {
    /// Where git runs hooks from.
    pub hooks_dir: PathBuf,
    /// Where git-beads writes its blocks (`.husky/` under husky 9).
    pub dir: PathBuf,
    /// The hook managers found.
    pub managers: Vec<Manager>,
    /// What the user should know about them.
    pub advice: Vec<String>,
}

fn has_any(top: &Path, names: &[&str]) -> bool {
    names.iter().any(|n| top.join(n).exists())
}

/// Finds where hooks go and which hook managers the repository uses.
pub fn layout(store: &Store) -> Result<Layout, InstallError> {
    let hooks_dir = ops::hooks_dir(store)?;
    let top = ops::workdir(store);
    let mut managers = Vec::new();
    let mut advice = Vec::new();
    let name_of = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let husky9 = name_of(&hooks_dir).as_deref() == Some("_")
        && hooks_dir.parent().and_then(name_of).as_deref() == Some(".husky");
    let husky_old = name_of(&hooks_dir).as_deref() == Some(".husky");
    let dir = if husky9 {
        hooks_dir
            .parent()
            .map(Path::to_owned)
            .unwrap_or(hooks_dir.clone())
    } else {
        hooks_dir.clone()
    };
    if husky9 || husky_old {
        managers.push(Manager::Husky);
        advice.push(format!(
            "husky runs the hooks in {}; they are tracked files: commit them to share the hooks, \
             and teammates without git-beads get one line of warning per hook",
            dir.display()
        ));
    } else if let Some(top) = &top
        && top.join(".husky").is_dir()
    {
        managers.push(Manager::Husky);
        advice.push(format!(
            "husky is set up in {} but not active here (core.hooksPath is not .husky); once it is, \
             add to each .husky/<hook> the line `git beads git-hook <hook> \"$@\"`, or run \
             `git beads hooks install` again",
            top.display()
        ));
    }
    if let Some(top) = &top {
        if has_any(top, &[".pre-commit-config.yaml", ".pre-commit-config.yml"]) {
            managers.push(Manager::PreCommit);
            advice.push(
                "pre-commit: `pre-commit install` keeps an existing hook as <hook>.legacy and \
                 runs it, so git-beads' hooks keep running; `git beads hooks install` writes \
                 into <hook>.legacy when pre-commit owns the hook"
                    .into(),
            );
        }
        if has_any(
            top,
            &[
                "lefthook.yml",
                ".lefthook.yml",
                "lefthook.yaml",
                ".lefthook.yaml",
            ],
        ) {
            managers.push(Manager::Lefthook);
            advice.push(format!(
                "lefthook: once `lefthook install` owns the hook files, run git-beads from \
                 lefthook.yml instead, e.g.\n{}(`git beads hooks status` prints the lines for \
                 every hook it skips)",
                lefthook_snippet("prepare-commit-msg")
            ));
        }
    }
    Ok(Layout {
        hooks_dir,
        dir,
        managers,
        advice,
    })
}

/// Where one hook stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// git-beads' block is there, as this version writes it.
    Installed,
    /// git-beads' block is there, from another version (`hooks install` updates it).
    Outdated,
    /// The block's first line is there but not its last.
    Damaged,
    /// No block.
    Missing,
    /// Left alone: another tool owns the file, or it is not a shell script.
    Skipped,
}

/// What a command changed in one hook file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// The file was made, holding git-beads' block.
    Created,
    /// The block was added to the user's file.
    Added,
    /// The block was rewritten as this version writes it.
    Updated,
    /// The block was taken out; the user's lines stay.
    Removed,
    /// The file went: nothing else was in it.
    Deleted,
}

/// One hook file: where it is and what git-beads did or found there.
#[derive(Clone, Debug, Serialize)]
pub struct HookFile {
    /// The hook.
    pub hook: String,
    /// The file git-beads' block goes in.
    pub path: PathBuf,
    /// Where it stands (after the command).
    pub state: State,
    /// What changed, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// The manager whose file this is, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Manager>,
    /// Why it was left alone, and what to add by hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

/// What `hooks install`, `uninstall` and `status` report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Where hooks go.
    pub layout: Layout,
    /// Each hook.
    pub hooks: Vec<HookFile>,
    /// Whether a failing hook fails the git command ([`STRICT_KEY`]).
    pub strict: bool,
    /// Whether git carries provenance notes through amend and rebase.
    pub notes_rewrite: bool,
    /// Config keys set now.
    pub configured: Vec<String>,
}

fn read(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(super::FileError::on("read", path)(source).into()),
    }
}

/// Whether a script's `#!` line names a POSIX shell (a file without one runs under
/// `/bin/sh`).
fn is_shell(text: &str) -> bool {
    let Some(first) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return true;
    };
    let mut words = first.split_whitespace();
    let mut prog = words.next().unwrap_or_default();
    if prog.rsplit('/').next() == Some("env") {
        prog = words.find(|w| !w.starts_with('-')).unwrap_or_default();
    }
    matches!(
        prog.rsplit('/').next().unwrap_or_default(),
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh" | "yash"
    )
}

fn generated_by_pre_commit(text: &str) -> bool {
    text.contains("File generated by pre-commit") || text.contains("generated by pre-commit")
}

fn generated_by_lefthook(text: &str) -> bool {
    text.contains("call_lefthook") || text.contains("lefthook run") || text.contains("LEFTHOOK")
}

/// Where git-beads' block sits in `text`: the lines of its first and last line
/// (`None` for the last when it is missing).
fn find_block(text: &str) -> Option<(usize, Option<usize>)> {
    let lines: Vec<&str> = text.lines().collect();
    let begin = lines.iter().position(|l| l.starts_with(BEGIN))?;
    let end = lines[begin..]
        .iter()
        .position(|l| l.trim_end() == END)
        .map(|i| begin + i);
    Some((begin, end))
}

/// `text` without git-beads' block (the lines from its first to its last). A
/// damaged block loses only its first line and the shim line after it, if that
/// line is git-beads'.
fn without_block(text: &str) -> String {
    let Some((begin, end)) = find_block(text) else {
        return text.to_owned();
    };
    let lines: Vec<&str> = text.lines().collect();
    // A shim of this version whole after the first line goes with it.
    let shim_after = SHIMS.iter().map(|(h, _)| shim_body(h)).find_map(|body| {
        let body: Vec<&str> = body.lines().collect();
        lines[begin + 1..]
            .starts_with(&body)
            .then_some(begin + body.len())
    });
    let last = match end {
        Some(e) => e,
        None if shim_after.is_some() => shim_after.unwrap_or(begin),
        None => match lines.get(begin + 1) {
            Some(l)
                if l.starts_with(SHIM_START)
                    || l.starts_with(STATE_SHIM_START)
                    || l.starts_with("git-beads git-hook ")
                    || l.starts_with("git beads git-hook ")
                    || l.starts_with("git beads hook ") =>
            {
                begin + 1
            }
            _ => begin,
        },
    };
    let mut out: Vec<&str> = lines[..begin].to_vec();
    out.extend_from_slice(&lines[last + 1..]);
    let mut s = out.join("\n");
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// `text` with `block` placed right after its `#!` line (or at the top).
fn with_block(text: &str, block: &str) -> String {
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("#!") => format!("{first}\n{block}{rest}"),
        None if text.starts_with("#!") => format!("{text}\n{block}"),
        _ => format!("{block}{text}"),
    }
}

/// Whether nothing but a `#!` line, blank lines and comments is left.
fn is_empty_script(text: &str) -> bool {
    text.lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}

fn write_script(path: &Path, text: &str) -> Result<(), InstallError> {
    let io = |what: &'static str| super::FileError::on(what, path);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io("create the directory of"))?;
    }
    let mut file = Replacement::create(path).map_err(io("write"))?;
    file.write_all(text.as_bytes()).map_err(io("write"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o755);
        // Executable wherever readable, or git skips the hook.
        let mode = mode | 0o100 | ((mode & 0o044) >> 2);
        file.file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io("make executable"))?;
    }
    file.commit(false).map_err(io("replace"))?;
    Ok(())
}

fn remove_file(path: &Path) -> Result<(), InstallError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(super::FileError::on("remove", path)(e).into())
        }
        _ => Ok(()),
    }
}

/// Where the block of `hook` goes, or why it does not: (file, manager, advice).
fn target(
    layout: &Layout,
    hook: &str,
    force: bool,
) -> Result<(PathBuf, Option<Manager>, Option<String>), InstallError> {
    let path = layout.dir.join(hook);
    let husky =
        layout.dir != layout.hooks_dir || layout.dir.file_name().is_some_and(|n| n == ".husky");
    let via_husky = husky.then_some(Manager::Husky);
    let Some(text) = read(&path)? else {
        return Ok((path, via_husky, None));
    };
    if find_block(&text).is_some() {
        return Ok((path, via_husky, None));
    }
    if generated_by_pre_commit(&text) {
        let mut legacy = path.into_os_string();
        legacy.push(".legacy");
        return Ok((PathBuf::from(legacy), Some(Manager::PreCommit), None));
    }
    if generated_by_lefthook(&text) && !force {
        return Ok((
            path.clone(),
            Some(Manager::Lefthook),
            Some(format!(
                "lefthook manages {}; add to lefthook.yml:\n{}",
                path.display(),
                lefthook_snippet(hook)
            )),
        ));
    }
    if !is_shell(&text) {
        return Ok((
            path.clone(),
            via_husky,
            Some(format!(
                "{} is not a shell script; make it run `{}` with the hook's arguments",
                path.display(),
                line_to_add(hook).replace(" \"$@\"", " ARGS…")
            )),
        ));
    }
    Ok((path, via_husky, None))
}

fn state_of(text: Option<&str>, hook: &str) -> State {
    let Some(text) = text else {
        return State::Missing;
    };
    match find_block(text) {
        None => State::Missing,
        Some((_, None)) => State::Damaged,
        Some((b, Some(e))) => {
            let lines: Vec<&str> = text.lines().collect();
            let mut have = lines[b + 1..e].join("\n");
            have.push('\n');
            if have == shim_body(hook) {
                State::Installed
            } else {
                State::Outdated
            }
        }
    }
}

fn strict(store: &Store) -> bool {
    ops::config_bool(store, STRICT_KEY).unwrap_or(false)
}

/// What [`install`] did: the hooks, and the remotes it set up.
#[derive(Clone, Debug)]
pub struct Installed {
    /// The hooks.
    pub report: Report,
    /// The remotes whose fetch refspecs were added now, so that `git pull` brings beads.
    pub remotes_configured: Vec<String>,
}

/// Installs (or updates) git-beads' block in every hook git-beads handles,
/// configures git to carry provenance notes through amend and rebase, and sets up
/// the remotes so that `git pull` brings beads (the hooks fold them in). Idempotent:
/// a second run changes nothing. With `force`, repairs a damaged block and writes
/// into hook files lefthook generated.
pub fn install(store: &Store, force: bool) -> Result<Installed, InstallError> {
    let layout = layout(store)?;
    let mut hooks = Vec::new();
    for hook in GIT_HOOK_NAMES {
        if shim(hook).is_none() {
            hooks.extend(remove_blocks(&layout, store, hook)?);
            continue;
        }
        let (path, via, advice) = target(&layout, hook, force)?;
        if advice.is_some() {
            hooks.push(HookFile {
                hook: (*hook).into(),
                path,
                state: State::Skipped,
                change: None,
                via,
                advice,
            });
            continue;
        }
        let old = read(&path)?;
        let state = state_of(old.as_deref(), hook);
        if state == State::Damaged && !force {
            return Err(InstallError::Damaged { path });
        }
        let change = match (&old, &state) {
            (_, State::Installed) => None,
            (None, _) => {
                write_script(&path, &format!("#!/bin/sh\n{}", block(hook)))?;
                Some(Change::Created)
            }
            (Some(text), _) => {
                let fresh = with_block(&without_block(text), &block(hook));
                write_script(&path, &fresh)?;
                Some(if state == State::Missing {
                    Change::Added
                } else {
                    Change::Updated
                })
            }
        };
        hooks.push(HookFile {
            hook: (*hook).into(),
            path,
            state: State::Installed,
            change,
            via,
            advice: None,
        });
    }
    let configured = ops::configure_notes(store)?;
    let report = Report {
        notes_rewrite: ops::notes_configured(store)?,
        strict: strict(store),
        layout,
        hooks,
        configured,
    };
    Ok(Installed {
        report,
        remotes_configured: ops::setup_remotes(store)?,
    })
}

/// Every file that may hold git-beads' block for `hook`: where it goes now, and
/// git's default hooks directory (in case `core.hooksPath` changed since).
fn candidates(layout: &Layout, default_dir: &Path, hook: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [&layout.dir, &layout.hooks_dir, &default_dir.to_owned()] {
        let path = dir.join(hook);
        let mut legacy = path.clone().into_os_string();
        legacy.push(".legacy");
        for p in [path, PathBuf::from(legacy)] {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Removes git-beads' blocks for `hook` from every file that may hold one, leaving
/// the user's lines as they are (a file left with nothing but its `#!` line is
/// removed); `None` when there was none.
fn remove_blocks(
    layout: &Layout,
    store: &Store,
    hook: &str,
) -> Result<Option<HookFile>, InstallError> {
    let mut report = None;
    for path in candidates(layout, &ops::common_dir(store).join("hooks"), hook) {
        let Some(text) = read(&path)? else {
            continue;
        };
        if find_block(&text).is_none() {
            continue;
        }
        let rest = without_block(&text);
        let change = if is_empty_script(&rest) {
            remove_file(&path)?;
            Change::Deleted
        } else {
            write_script(&path, &rest)?;
            Change::Removed
        };
        report = Some(HookFile {
            hook: hook.into(),
            path,
            state: State::Missing,
            change: Some(change),
            via: None,
            advice: None,
        });
    }
    Ok(report)
}

/// Removes git-beads' blocks from every hook file, leaving the user's lines as they
/// are; a file left with nothing but its `#!` line is removed. The notes config is
/// kept (`git beads init` sets it too, and it harms nothing).
pub fn uninstall(store: &Store) -> Result<Report, InstallError> {
    let layout = layout(store)?;
    let mut hooks = Vec::new();
    for hook in GIT_HOOK_NAMES {
        let removed = remove_blocks(&layout, store, hook)?;
        // A hook git-beads no longer installs is not worth a line unless it went.
        if removed.is_none() && shim(hook).is_none() {
            continue;
        }
        hooks.push(removed.unwrap_or_else(|| HookFile {
            hook: (*hook).into(),
            path: layout.dir.join(hook),
            state: State::Missing,
            change: None,
            via: None,
            advice: None,
        }));
    }
    Ok(Report {
        notes_rewrite: ops::notes_configured(store)?,
        strict: strict(store),
        layout,
        hooks,
        configured: Vec::new(),
    })
}

/// Where every hook stands, changing nothing.
pub fn status(store: &Store) -> Result<Report, InstallError> {
    let layout = layout(store)?;
    let mut hooks = Vec::new();
    for hook in GIT_HOOK_NAMES {
        let (path, via, advice) = target(&layout, hook, false)?;
        let text = read(&path)?;
        let state = match state_of(text.as_deref(), hook) {
            // A hook git-beads no longer installs is shown only while its block is there.
            State::Missing if shim(hook).is_none() => continue,
            State::Missing if advice.is_some() => State::Skipped,
            s => s,
        };
        let advice = match shim(hook) {
            None => Some(format!(
                "git-beads needs no {hook} hook any more; `git beads hooks install` removes its block"
            )),
            Some(_) => advice,
        };
        hooks.push(HookFile {
            hook: (*hook).into(),
            path,
            state,
            change: None,
            via,
            advice,
        });
    }
    Ok(Report {
        notes_rewrite: ops::notes_configured(store)?,
        strict: strict(store),
        layout,
        hooks,
        configured: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shims_are_the_shipped_files_and_cover_every_git_hook() {
        let names: Vec<&str> = SHIMS.iter().map(|(n, _)| *n).collect();
        let installed: Vec<&str> = GIT_HOOK_NAMES
            .iter()
            .copied()
            .filter(|h| *h != "post-commit")
            .collect();
        assert_eq!(names, installed);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks");
        for (name, text) in SHIMS {
            let on_disk = std::fs::read_to_string(dir.join(name)).expect("shim file");
            assert_eq!(
                &on_disk, text,
                "hooks/{name} differs from the embedded shim"
            );
            // A short script a person can read: commented, no line running on.
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines[0], "#!/bin/sh");
            assert!(
                lines[1].starts_with("# "),
                "hooks/{name} says what it does first"
            );
            assert!(lines.len() < 80, "hooks/{name}: {} lines", lines.len());
            for l in &lines {
                assert!(l.chars().count() <= 130, "hooks/{name}: a long line: {l}");
            }
            if *name == "prepare-commit-msg" {
                assert!(
                    text.contains(STATE_SHIM_START.trim_end_matches("; ")),
                    "{text}"
                );
                assert!(text.contains("/beads/worktree.yaml"), "{text}");
                assert!(text.contains("Beads-Session: $s"), "{text}");
            }
            assert!(text.contains(SHIM_START), "{name}: {text}");
            assert!(
                text.contains(&format!("\tgit-beads git-hook {name} \"$@\"")),
                "{name}: {text}"
            );
            assert!(
                text.contains(&format!("not found on PATH; the {name} hook did not run")),
                "{name}: {text}"
            );
            assert!(text.contains(STRICT_KEY), "{name}");
        }
        let shipped: Vec<String> = std::fs::read_dir(&dir)
            .expect("hooks/")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(shipped.len(), SHIMS.len(), "{shipped:?}");
    }

    #[test]
    fn blocks_go_in_after_the_shebang_and_come_out_cleanly() {
        let user = "#!/bin/bash\necho mine\nexit 0\n";
        let with = with_block(user, &block("pre-push"));
        assert!(
            with.starts_with("#!/bin/bash\n# >>> git-beads >>>"),
            "{with}"
        );
        assert!(with.ends_with("echo mine\nexit 0\n"), "{with}");
        assert_eq!(state_of(Some(&with), "pre-push"), State::Installed);
        // A block of a hook git-beads no longer installs is outdated.
        assert_eq!(state_of(Some(&with), "post-commit"), State::Outdated);
        let again = with_block(&without_block(&with), &block("pre-push"));
        assert_eq!(again, with);
        assert_eq!(without_block(&with), user);
        assert_eq!(state_of(Some(user), "pre-push"), State::Missing);
        let damaged = format!("#!/bin/sh\n{BEGIN}\ngit beads hook x\necho mine\n");
        assert_eq!(state_of(Some(&damaged), "pre-push"), State::Damaged);
        assert_eq!(without_block(&damaged), "#!/bin/sh\necho mine\n");
        assert!(is_empty_script("#!/bin/sh\n\n# nothing\n"));
        assert_eq!(with_block("echo hi\n", "B\n"), "B\necho hi\n");
    }

    #[test]
    fn shells_and_generated_files_are_told_apart() {
        assert!(is_shell("#!/bin/sh\n"));
        assert!(is_shell("#!/usr/bin/env bash\n"));
        assert!(is_shell("#!/usr/bin/env -S sh -e\n"));
        assert!(is_shell("echo no shebang\n"));
        assert!(!is_shell("#!/usr/bin/env python3\n"));
        assert!(!is_shell("#!/usr/bin/node\n"));
        assert!(generated_by_pre_commit(
            "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n"
        ));
        assert!(generated_by_lefthook(
            "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then\n  exit 0\nfi\n"
        ));
        assert!(lefthook_snippet("pre-push").contains("run: git beads git-hook pre-push {1} {2}"));
    }
}
