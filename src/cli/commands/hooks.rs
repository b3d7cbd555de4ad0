//! `git beads hooks install|uninstall|status`.

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::hooks::git::HookError;
use crate::hooks::install::{self, Change, InstallError, Installed, Report, STRICT_KEY, State};
use crate::wire;

/// The verbs of `hooks`.
#[derive(clap::Subcommand, Debug)]
pub enum HooksCommand {
    /// Install git-beads' git hooks where git runs hooks from (core.hooksPath honoured).
    ///
    /// Each hook (post-checkout, prepare-commit-msg, post-merge, post-rewrite,
    /// pre-push) gets a marked block (`# >>> git-beads >>>` …
    /// `# <<< git-beads <<<`) right after the `#!` line of the hook file already there,
    /// so your own lines keep running; a missing file is created. Running it again
    /// changes nothing. husky, pre-commit and lefthook setups are chained (or the lines
    /// to add are printed). It also sets notes.rewriteRef=refs/notes/beads so that
    /// provenance notes follow their commits through amend and rebase, and sets up the
    /// remotes so that `git pull` brings beads.
    ///
    /// A commit runs one of them, prepare-commit-msg, and it starts no process for a
    /// message given with -m or -F: its shim reads the worktree's binding and adds the
    /// session's trailers in the shell (git-beads only for a message with comment
    /// lines, as an editor gives). There is no post-commit hook: the provenance note
    /// of a commit made in a session is written, and shows in `git log
    /// --notes=beads`, when the next git-beads command runs (any command finds the
    /// new commits in the worktrees' HEAD reflogs first). The post-commit hook of
    /// earlier versions is removed.
    ///
    /// A failure inside git-beads never stops your git command: the hook prints one
    /// line and git goes on. Set `git config beads.hooks.strict true` to make a failing
    /// pre-push or prepare-commit-msg stop the push or the commit instead.
    Install(InstallArgs),
    /// Remove git-beads' blocks from the hook files, leaving your own lines as they are.
    Uninstall,
    /// Show where each hook stands.
    Status,
}

/// Arguments of `hooks install`.
#[derive(clap::Args, Debug)]
pub struct InstallArgs {
    /// Repair a damaged block, and write into hook files lefthook generated.
    #[arg(long)]
    pub force: bool,
}

impl From<InstallError> for CliError {
    fn from(e: InstallError) -> CliError {
        match e {
            InstallError::Op(e) => e.into(),
            InstallError::Damaged { .. } => CliError::new(Kind::Conflict, e.to_string()),
            InstallError::Io(_) => CliError::new(Kind::Store, e.to_string()),
        }
    }
}

impl From<HookError> for CliError {
    fn from(e: HookError) -> CliError {
        match e {
            HookError::Op(e) => e.into(),
            other => CliError::new(Kind::Usage, other.to_string()),
        }
    }
}

fn state_word(s: &State) -> &'static str {
    match s {
        State::Installed => "installed",
        State::Outdated => "outdated",
        State::Damaged => "damaged",
        State::Missing => "missing",
        State::Skipped => "skipped",
    }
}

/// Runs `hooks`.
pub fn run(ctx: &Ctx, cmd: HooksCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        HooksCommand::Install(a) => install(ctx, a, out),
        HooksCommand::Uninstall => uninstall(ctx, out),
        HooksCommand::Status => status(ctx, out),
    }
}

fn install(ctx: &Ctx, a: InstallArgs, out: &mut Out) -> Result<(), CliError> {
    let Installed {
        report,
        remotes_configured: remotes,
    } = install::install(&ctx.store, a.force)?;
    if out.json {
        return out.json(&wire::Hooks {
            report: &report,
            remotes_configured: Some(&remotes),
        });
    }
    for h in &report.hooks {
        match (h.change, &h.advice) {
            (_, Some(advice)) => out.note(format!("{}: left alone: {advice}", h.hook)),
            (Some(change), None) => {
                let how = match change {
                    Change::Created => "created",
                    Change::Added => "added to your hook",
                    Change::Updated => "updated in",
                    // A hook git-beads no longer installs, written by an earlier version.
                    Change::Removed => "no longer needed; removed git-beads' block from",
                    Change::Deleted => "no longer needed; removed",
                };
                out.note(format!("{}: {how} {}", h.hook, h.path.display()))
            }
            (None, None) => {}
        }
    }
    note_advice(&report, out);
    for r in &remotes {
        out.note(format!("`git fetch {r}` now brings its beads too"));
    }
    let installed = report
        .hooks
        .iter()
        .filter(|h| h.state == State::Installed)
        .count();
    let wanted = report
        .hooks
        .iter()
        .filter(|h| install::shim(&h.hook).is_some())
        .count();
    out.note(format!(
        "{installed} of {wanted} git hooks installed in {}{}",
        report.layout.dir.display(),
        if report.strict {
            " (strict: a failing hook stops git)"
        } else {
            ""
        }
    ));
    Ok(())
}

fn uninstall(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let report = install::uninstall(&ctx.store)?;
    if out.json {
        return out.json(&wire::Hooks {
            report: &report,
            remotes_configured: None,
        });
    }
    let mut any = false;
    for h in &report.hooks {
        if let Some(change) = h.change {
            any = true;
            let what = if change == Change::Deleted {
                "removed (the file held nothing else)"
            } else {
                "removed git-beads' block; your lines stay"
            };
            out.note(format!("{}: {what}: {}", h.hook, h.path.display()));
        }
    }
    if !any {
        out.note("no git-beads hooks were installed");
    }
    Ok(())
}

fn status(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let report = install::status(&ctx.store)?;
    if out.json {
        return out.json(&wire::Hooks {
            report: &report,
            remotes_configured: None,
        });
    }
    for h in &report.hooks {
        out.line(format!(
            "{:<10} {:<19} {}",
            state_word(&h.state),
            h.hook,
            h.path.display()
        ))?;
        if let Some(advice) = &h.advice {
            for l in advice.lines() {
                out.line(format!("           {l}"))?;
            }
        }
    }
    note_advice(&report, out);
    out.note(format!(
        "strict ({STRICT_KEY}): {}; notes follow amend and rebase: {}",
        if report.strict { "on" } else { "off" },
        if report.notes_rewrite {
            "yes"
        } else {
            "no (run `git beads hooks install`)"
        }
    ));
    Ok(())
}

fn note_advice(report: &Report, out: &Out) {
    for a in &report.layout.advice {
        out.note(format!("note: {a}"));
    }
}
