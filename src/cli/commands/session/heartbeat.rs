//! `git beads session heartbeat`.

use super::{HookArgs, changed, idle_hook, read_hook_input, record_hook_turn};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `session heartbeat`.
#[derive(clap::Args, Debug)]
pub struct HeartbeatArgs {
    /// How a harness hook runs it.
    #[command(flatten)]
    pub hook: HookArgs,
}

/// Runs `session heartbeat`.
pub fn run(ctx: &Ctx, a: HeartbeatArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    if idle_hook(&actor, a.hook)? {
        return Ok(());
    }
    let s = if a.hook.on() {
        record_hook_turn(ctx, &actor, &read_hook_input()?, ops::Flush::IfDue, out)?
    } else {
        ops::heartbeat(&ctx.store, &actor)?
    };
    if !s.is_open() {
        return Ok(());
    }
    changed(out, &s, "is alive")
}
