//! `git beads session show`.

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::{BeadId, Session, count};
use crate::ops;
use crate::wire;

/// Arguments of `session show` (and `session log`).
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The session.
    #[arg(value_parser = BeadId::parse_session)]
    pub id: BeadId,
}

/// Runs `session show`.
pub fn run(ctx: &Ctx, a: ShowArgs, out: &mut Out) -> Result<(), CliError> {
    let session = ops::show_session(&ctx.store, &a.id)?;
    if out.json {
        return out.json(&wire::OneSession { session: &session });
    }
    print_session(out, &session)
}

fn print_session(out: &mut Out, s: &Session) -> Result<(), CliError> {
    out.line(format!("session {} of agent {}", s.id, s.agent))?;
    out.line(format!("  worktree {} on {}", s.worktree, s.host))?;
    if let Some(h) = &s.harness_id {
        out.line(format!("  harness session {h}"))?;
    }
    out.line(format!(
        "  model {}{}",
        s.model.as_deref().unwrap_or("-"),
        if s.models.is_empty() {
            String::new()
        } else {
            format!(" ({})", count(s.models.len(), "swap"))
        }
    ))?;
    out.line(format!(
        "  started {}, last heartbeat {}",
        s.started_at.format("%Y-%m-%d %H:%M:%S"),
        s.heartbeat_at.format("%Y-%m-%d %H:%M:%S")
    ))?;
    match (s.end, s.ended_at) {
        (Some(end), Some(at)) => out.line(format!(
            "  ended {} ({end})",
            at.format("%Y-%m-%d %H:%M:%S")
        ))?,
        _ => out.line("  running")?,
    }
    out.line(format!("  usage: {}", render::usage_text(&s.usage)))?;
    if !s.authority.budget.is_empty() {
        out.line(format!(
            "  budget: {}",
            render::budget_text(&s.authority.budget)
        ))?;
    }
    out.line(format!(
        "  store at start {}{}",
        s.store_at_start,
        s.store_at_end
            .as_ref()
            .map(|e| format!(", at end {e}"))
            .unwrap_or_default()
    ))?;
    if let Some(h) = &s.handoff {
        out.line(format!("  handoff note: {h}"))?;
    }
    if let Some(c) = &s.crash {
        out.line(format!(
            "  crash detected {}{}",
            c.detected_at.format("%Y-%m-%d %H:%M:%S"),
            c.step
                .as_ref()
                .map(|st| format!(", at {st}"))
                .unwrap_or_default()
        ))?;
    }
    Ok(())
}
