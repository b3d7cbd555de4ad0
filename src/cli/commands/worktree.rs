//! `git beads worktree add`: a new worktree that knows which agent it is for.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{AgentName, BeadId};
use crate::ops::{self};
use crate::wire;

/// The verbs of `worktree`.
#[derive(clap::Subcommand, Debug)]
pub enum WorktreeCommand {
    /// Create a worktree for an agent: `git worktree add`, then the worktree is bound to
    /// the agent (and BEAD put on its hook), so the first `git beads prime` there shows it.
    ///
    /// The plan is recorded under the common git dir, keyed by the new worktree's path,
    /// and carried out by the worktree's post-checkout hook (`git beads hooks install`);
    /// without the hooks, this command carries it out itself once git is done. Options
    /// after the agent and bead go to `git worktree add` (e.g. `-b agent/nux main`);
    /// put them after `--` when one of them is also a git-beads option.
    ///
    /// Plain `git worktree add` binds too, from the branch name: `agent/AGENT[/TOPIC]` or
    /// `beads/AGENT/TOPIC`, where AGENT is the longest leading part naming an active agent.
    Add(AddArgs),
}

/// Arguments of `worktree add`.
#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// Where the new worktree goes.
    pub path: PathBuf,
    /// The agent the worktree is for.
    #[arg(long)]
    pub agent: AgentName,
    /// A bead to put on the agent's hook.
    #[arg(long)]
    pub bead: Option<BeadId>,
    /// Options and commit-ish for `git worktree add`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "GIT_WORKTREE_ADD_ARGS"
    )]
    pub git_args: Vec<OsString>,
}

/// Runs `worktree`.
pub fn run(ctx: &Ctx, cmd: WorktreeCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        WorktreeCommand::Add(a) => {
            let actor = ctx.actor()?;
            let plan = ops::plan_worktree(&ctx.store, &actor, &a.path, &a.agent, a.bead.as_ref())?;
            let added = ops::add_worktree(&ctx.store, &plan, &a.git_args)?;
            if out.json {
                return out.json(&wire::WorktreeAdded { added: &added });
            }
            out.line(&added.bound.worktree)?;
            let work = match &added.bound.bead {
                Some(id) => format!(", with {id} on its hook"),
                None => String::new(),
            };
            out.note(format!(
                "the worktree is for agent {}{work}; `git beads prime` there shows its work",
                added.bound.agent
            ));
            Ok(())
        }
    }
}
