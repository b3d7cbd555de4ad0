//! `git beads sling`, `unsling` and `hook`: the work pinned to an agent.

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::{AgentName, BeadId};
use crate::ops;
use crate::wire;

/// Arguments of `sling`.
#[derive(clap::Args, Debug)]
pub struct SlingArgs {
    /// The bead (or molecule) to put on the hook.
    pub id: BeadId,
    /// The agent whose hook it goes on.
    pub agent: AgentName,
    /// Where the claim is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Arguments of `unsling`.
#[derive(clap::Args, Debug)]
pub struct UnslingArgs {
    /// The agent.
    pub agent: AgentName,
    /// Only this bead (default: everything on the hook).
    pub id: Option<BeadId>,
}

/// Arguments of `hook`.
#[derive(clap::Args, Debug)]
pub struct HookArgs {
    /// The agent (default: the acting agent). A git hook's name instead (post-checkout,
    /// post-commit, prepare-commit-msg, post-merge, post-rewrite, pre-push) runs
    /// git-beads' handler of that hook, as `git beads git-hook` does: what the hooks
    /// installed by earlier versions call.
    #[arg(value_name = "AGENT", value_parser = parse_hook_target)]
    pub agent: Option<HookTarget>,
    /// The git hook's arguments, as git passed them (with a git hook's name only).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub args: Vec<String>,
}

/// What `hook` is given: an agent, or the name of a git hook.
#[derive(Clone, Debug)]
pub enum HookTarget {
    /// Show this agent's hook.
    Agent(AgentName),
    /// Run this git hook.
    Git(String),
}

fn parse_hook_target(s: &str) -> Result<HookTarget, String> {
    if crate::hooks::git::is_git_hook(s) {
        return Ok(HookTarget::Git(s.to_owned()));
    }
    AgentName::parse(s)
        .map(HookTarget::Agent)
        .map_err(|e| e.to_string())
}

/// Runs `sling`.
pub fn sling(ctx: &Ctx, a: SlingArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let bead = match a.at.remote(ctx, out)? {
        Some(remote) => ops::sling_on(&ctx.store, &actor, &a.id, &a.agent, &remote)?,
        None => ops::sling(&ctx.store, &actor, &a.id, &a.agent)?,
    };
    if out.json {
        return out.json(&wire::Slung {
            bead: &bead,
            agent: &a.agent,
        });
    }
    out.note(format!("{} is on the hook of {}", bead.id, a.agent));
    Ok(())
}

/// Runs `unsling`.
pub fn unsling(ctx: &Ctx, a: UnslingArgs, out: &mut Out) -> Result<(), CliError> {
    let removed = ops::unsling(&ctx.store, &ctx.actor()?, &a.agent, a.id.as_ref())?;
    if out.json {
        return out.json(&wire::Unslung {
            agent: &a.agent,
            removed: &removed,
        });
    }
    for id in &removed {
        out.note(format!("{id} is off the hook of {}", a.agent));
    }
    Ok(())
}

/// Runs `hook`.
pub fn hook(ctx: &Ctx, a: HookArgs, out: &mut Out) -> Result<(), CliError> {
    let agent = match a.agent {
        Some(HookTarget::Git(name)) => return super::git_hook::run_hook(ctx, &name, &a.args, out),
        Some(HookTarget::Agent(a)) => a,
        None => ctx.actor()?.agent.ok_or_else(|| {
            CliError::user("no agent is acting here").hint("name one: `git beads hook AGENT`")
        })?,
    };
    if let Some(extra) = a.args.first() {
        return Err(CliError::new(
            crate::cli::error::Kind::Usage,
            format!("unexpected argument {extra:?}: `git beads hook` takes one agent"),
        ));
    }
    let items = ops::hook(&ctx.store, &agent)?;
    if out.json {
        return out.json(&wire::Hook {
            agent: &agent,
            hook: wire::hook_entries(&items),
        });
    }
    if items.is_empty() {
        out.note(format!("the hook of {agent} is empty"));
    }
    for item in &items {
        render::hook_item(out, item)?;
    }
    Ok(())
}
