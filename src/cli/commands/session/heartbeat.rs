//! `git beads session heartbeat`.

use super::{changed, idle_hook, read_hook_input, record_hook_turn};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `session heartbeat`.
#[derive(clap::Args, Debug)]
pub struct HeartbeatArgs {
    /// Read a harness hook's JSON from stdin (Claude Code's Stop or SubagentStop): record
    /// the turn from its transcript in the local ledger, and reach the store only once
    /// per `beads.ledgerInterval`. Do nothing when no session runs here.
    #[arg(long)]
    pub hook_input: bool,
}

/// Runs `session heartbeat`.
pub fn run(ctx: &Ctx, a: HeartbeatArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    if idle_hook(&actor, a.hook_input)? {
        return Ok(());
    }
    let s = if a.hook_input {
        record_hook_turn(ctx, &actor, &read_hook_input()?, ops::Flush::IfDue, out)?
    } else {
        ops::heartbeat(&ctx.store, &actor)?
    };
    if !s.is_open() {
        return Ok(());
    }
    changed(out, &s, "is alive")
}
