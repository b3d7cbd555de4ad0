//! `git beads session heartbeat`.

use super::{changed, idle_hook};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `session heartbeat`.
#[derive(clap::Args, Debug)]
pub struct HeartbeatArgs {
    /// Read a harness hook's JSON from stdin; do nothing when no session runs here.
    #[arg(long)]
    pub hook_input: bool,
}

/// Runs `session heartbeat`.
pub fn run(ctx: &Ctx, a: HeartbeatArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    if idle_hook(&actor, a.hook_input)? {
        return Ok(());
    }
    let s = ops::heartbeat(&ctx.store, &actor)?;
    changed(out, &s, "is alive")
}
