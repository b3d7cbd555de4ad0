//! `git beads handoff`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `handoff`.
#[derive(clap::Args, Debug)]
pub struct HandoffArgs {
    /// The note for the next session.
    #[arg(short, long)]
    pub message: String,
}

/// Runs `handoff`.
pub fn run(ctx: &Ctx, a: HandoffArgs, out: &mut Out) -> Result<(), CliError> {
    let s = ops::handoff(&ctx.store, &ctx.actor()?, &a.message)?;
    if out.json {
        return out.json(&wire::OneSession { session: &s });
    }
    out.note(format!(
        "session {} handed off; the next session of {} will see the note first",
        s.id, s.agent
    ));
    Ok(())
}
