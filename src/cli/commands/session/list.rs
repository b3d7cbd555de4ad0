//! `git beads session list`.

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::AgentName;
use crate::ops;
use crate::wire;

/// Arguments of `session list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Only this agent's sessions.
    #[arg(long)]
    pub agent: Option<AgentName>,
}

/// Runs `session list`.
pub fn run(ctx: &Ctx, a: ListArgs, out: &mut Out) -> Result<(), CliError> {
    let sessions = ops::list_sessions(&ctx.store, a.agent.as_ref())?;
    if out.json {
        return out.json_list(&wire::Sessions {
            sessions: &sessions,
        });
    }
    for s in &sessions {
        out.line(format!(
            "{:<16} {:<24} {} {:<10} {}",
            s.id,
            s.agent,
            s.started_at.format("%Y-%m-%d %H:%M"),
            s.end.map(|e| e.as_str()).unwrap_or("running"),
            render::usage_text(&s.usage)
        ))?;
    }
    Ok(())
}
