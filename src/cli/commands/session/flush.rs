//! `git beads session flush`.

use super::{HookArgs, HookInput, changed, idle_hook, read_hook_input, record_hook_turn};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `session flush`.
#[derive(clap::Args, Debug)]
pub struct FlushArgs {
    /// How a harness hook runs it.
    #[command(flatten)]
    pub hook: HookArgs,
}

/// Runs `session flush`.
pub fn run(ctx: &Ctx, a: FlushArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    if idle_hook(&actor, a.hook)? {
        return Ok(());
    }
    let input = if a.hook.on() {
        read_hook_input()?
    } else {
        HookInput::default()
    };
    let s = record_hook_turn(ctx, &actor, &input, ops::Flush::Now, out)?;
    changed(out, &s, "folded into the store")
}
