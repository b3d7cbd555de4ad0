//! `git beads agent create|list|show|update|retire|bind|unbind|key rotate`.

use std::collections::BTreeSet;

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::{Agent, AgentName, Budget, Capability};
use crate::ops::{self, AgentChanges, NewAgent};
use crate::wire;

/// The verbs of `agent`.
#[derive(clap::Subcommand, Debug)]
pub enum AgentCommand {
    /// Create an agent (its authority can only narrow its parent's).
    Create(CreateArgs),
    /// List agents.
    List,
    /// Show an agent.
    Show(NameArgs),
    /// Change an agent's role, model, capabilities or budget.
    Update(UpdateArgs),
    /// Retire an agent: it keeps its record but starts no more sessions.
    Retire(NameArgs),
    /// Bind this worktree to an agent: commands here act as it.
    Bind(NameArgs),
    /// Remove this worktree's binding.
    Unbind,
    /// Manage an agent's signing keys.
    #[command(subcommand)]
    Key(KeyCommand),
}

/// The verbs of `agent key`.
#[derive(clap::Subcommand, Debug)]
pub enum KeyCommand {
    /// Give an agent a new signing key and retire its old ones (commits they sign from
    /// now on do not verify as the agent's).
    Rotate(NameArgs),
}

fn parse_caps(s: &str) -> Result<BTreeSet<Capability>, String> {
    s.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| c.parse::<Capability>().map_err(|e| e.to_string()))
        .collect()
}

fn parse_budget(s: &str) -> Result<Budget, String> {
    Budget::parse(s).map_err(|e| e.to_string())
}

/// What `agent create` sets and `agent update` changes.
#[derive(clap::Args, Debug)]
pub struct Profile {
    /// What it is for.
    #[arg(long)]
    pub role: Option<String>,
    /// The model its sessions start with.
    #[arg(long)]
    pub model: Option<String>,
    /// What it may do, comma-separated (create, update, claim, close, delete, comment,
    /// sling, mail, spawn, sync); on create the default is its parent's, or all; on
    /// update it replaces the old set.
    #[arg(long, value_parser = parse_caps)]
    pub can: Option<BTreeSet<Capability>>,
    /// Ceilings per session: tokens=N,spend=USD,tool-calls=N,wall=DURATION (ceilings
    /// left out are inherited from the parent; on update it replaces the old budget).
    #[arg(long, value_parser = parse_budget)]
    pub budget: Option<Budget>,
}

/// Arguments of `agent create`.
#[derive(clap::Args, Debug)]
pub struct CreateArgs {
    /// The name: lowercase, path-like (e.g. myrig/polecats/nux).
    pub name: AgentName,
    /// The agent that creates it (default: the acting agent, if any).
    #[arg(long)]
    pub parent: Option<AgentName>,
    /// Role, model, capabilities and budget.
    #[command(flatten)]
    pub profile: Profile,
}

/// Arguments naming one agent.
#[derive(clap::Args, Debug)]
pub struct NameArgs {
    /// The agent.
    pub name: AgentName,
}

/// Arguments of `agent update`.
#[derive(clap::Args, Debug)]
pub struct UpdateArgs {
    /// The agent.
    pub name: AgentName,
    /// Role, model, capabilities and budget.
    #[command(flatten)]
    pub profile: Profile,
    /// Apply an authority change to the running session too, not only from the next one.
    #[arg(long)]
    pub apply_now: bool,
}

/// Runs `agent`.
pub fn run(ctx: &Ctx, cmd: AgentCommand, out: &mut Out) -> Result<(), CliError> {
    let agent = match cmd {
        AgentCommand::Create(a) => ops::create_agent(
            &ctx.store,
            &ctx.actor()?,
            NewAgent {
                name: Some(a.name),
                role: a.profile.role,
                parent: a.parent,
                model: a.profile.model,
                capabilities: a.profile.can,
                budget: a.profile.budget,
            },
        )?,
        AgentCommand::List => {
            let agents = ops::list_agents(&ctx.store)?;
            if out.json {
                return out.json_list(&wire::Agents { agents: &agents });
            }
            for a in &agents {
                out.line(format!(
                    "{:<28} {:<8} {:<12} hook:{} {}",
                    a.name,
                    a.status.as_str(),
                    a.role.as_deref().unwrap_or("-"),
                    a.hook.len(),
                    a.session
                        .as_ref()
                        .map(|s| format!("session:{s}"))
                        .unwrap_or_default()
                ))?;
            }
            return Ok(());
        }
        AgentCommand::Show(a) => ops::show_agent(&ctx.store, &a.name)?,
        AgentCommand::Update(a) => ops::update_agent(
            &ctx.store,
            &ctx.actor()?,
            &a.name,
            AgentChanges {
                role: a.profile.role,
                model: a.profile.model,
                capabilities: a.profile.can,
                budget: a.profile.budget,
                apply_now: a.apply_now,
            },
        )?,
        AgentCommand::Retire(a) => ops::retire_agent(&ctx.store, &ctx.actor()?, &a.name)?,
        AgentCommand::Key(KeyCommand::Rotate(a)) => {
            ops::rotate_agent_key(&ctx.store, &ctx.actor()?, &a.name)?
        }
        AgentCommand::Bind(a) => {
            ops::bind(&ctx.store, &a.name)?;
            out.note(format!("this worktree now acts as agent {}", a.name));
            ops::show_agent(&ctx.store, &a.name)?
        }
        AgentCommand::Unbind => {
            ops::unbind(&ctx.store)?;
            out.note("this worktree is no longer bound to an agent");
            return Ok(());
        }
    };
    if out.json {
        return out.json(&wire::OneAgent { agent: &agent });
    }
    print_agent(out, &agent)
}

fn print_agent(out: &mut Out, a: &Agent) -> Result<(), CliError> {
    out.line(format!("agent {} ({})", a.name, a.status))?;
    if let Some(r) = &a.role {
        out.line(format!("  role: {r}"))?;
    }
    if let Some(p) = &a.parent {
        out.line(format!("  parent: {p}"))?;
    }
    if let Some(m) = &a.model {
        out.line(format!("  model: {m}"))?;
    }
    let caps: Vec<&str> = a
        .authority
        .capabilities
        .iter()
        .map(|c| c.as_str())
        .collect();
    out.line(format!("  may: {}", caps.join(", ")))?;
    if !a.authority.budget.is_empty() {
        out.line(format!(
            "  budget per session: {}",
            render::budget_text(&a.authority.budget)
        ))?;
    }
    let hook: Vec<&str> = a.hook.iter().map(|h| h.as_str()).collect();
    out.line(format!(
        "  hook: {}",
        if hook.is_empty() {
            "empty".into()
        } else {
            hook.join(", ")
        }
    ))?;
    if let Some(s) = &a.session {
        out.line(format!("  session: {s}"))?;
    }
    for d in &a.decisions {
        out.line(format!(
            "  decision {} by {}: {}{}",
            d.at.format("%Y-%m-%d %H:%M"),
            d.by,
            d.what,
            d.applied_to
                .as_ref()
                .map(|s| format!(" (applied to {s})"))
                .unwrap_or_else(|| " (from the next session)".into())
        ))?;
    }
    Ok(())
}
