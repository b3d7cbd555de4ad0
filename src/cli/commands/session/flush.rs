//! `git beads session flush`.

use super::{HookInput, changed, idle_hook, read_hook_input, record_hook_turn};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `session flush`.
#[derive(clap::Args, Debug)]
pub struct FlushArgs {
    /// Read a harness hook's JSON from stdin (Claude Code's PreCompact) and its
    /// transcript first; do nothing when no session runs here.
    #[arg(long)]
    pub hook_input: bool,
}

/// Runs `session flush`.
pub fn run(ctx: &Ctx, a: FlushArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    if idle_hook(&actor, a.hook_input)? {
        return Ok(());
    }
    let input = if a.hook_input {
        read_hook_input()?
    } else {
        HookInput::default()
    };
    let s = record_hook_turn(ctx, &actor, &input, ops::Flush::Now, out)?;
    changed(out, &s, "folded into the store")
}
