//! `git beads setup claude`: wire an agent harness to sessions and prime.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::hooks::claude;
use crate::wire;

/// The harnesses `setup` knows.
#[derive(clap::Subcommand, Debug)]
pub enum SetupCommand {
    /// Write Claude Code hooks into .claude/settings.json (merging with what is there).
    Claude,
}

/// Runs `setup`.
pub fn run(ctx: &Ctx, cmd: SetupCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        SetupCommand::Claude => {
            let top = ctx
                .store
                .workdir()
                .ok_or_else(|| CliError::user("this repository has no worktree"))?;
            let (path, added) = claude::install(top).map_err(|e| CliError::user(e.to_string()))?;
            let shown = path.display().to_string();
            if out.json {
                return out.json(&wire::ClaudeSetup {
                    settings: &shown,
                    added,
                });
            }
            out.note(if added == 0 {
                format!("{shown} already has the git-beads hooks")
            } else {
                format!("added {added} git-beads hooks to {shown}")
            });
            Ok(())
        }
    }
}
