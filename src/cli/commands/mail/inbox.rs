//! `git beads mail inbox`.

use super::me;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `mail inbox`.
#[derive(clap::Args, Debug)]
pub struct InboxArgs {
    /// Include archived messages.
    #[arg(long)]
    pub all: bool,
}

/// Runs `mail inbox`.
pub fn run(ctx: &Ctx, a: InboxArgs, out: &mut Out) -> Result<(), CliError> {
    let agent = me(ctx)?;
    let entries = ops::inbox(&ctx.store, &agent, a.all)?;
    let unread = entries.iter().filter(|e| !e.read).count();
    if out.json {
        return out.json(&wire::Inbox {
            agent: &agent,
            unread,
            messages: entries.iter().map(wire::InboxLine::from).collect(),
        });
    }
    for e in &entries {
        let m = &e.summary;
        out.line(format!(
            "{} {:<16} P{} {} from {}: {}",
            if e.read { " " } else { "*" },
            m.id,
            m.priority,
            m.sent_at().format("%Y-%m-%d %H:%M"),
            m.from,
            m.subject
        ))?;
    }
    out.note(format!("{unread} unread of {}", entries.len()));
    Ok(())
}
