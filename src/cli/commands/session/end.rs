//! `git beads session end`.

use super::{HookArgs, changed, idle_hook, read_hook_input, record_hook_turn};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::EndReason;
use crate::ops;

/// Arguments of `session end`.
#[derive(clap::Args, Debug)]
pub struct EndArgs {
    /// Why it ends.
    #[arg(long, default_value = "clean")]
    pub reason: EndReason,
    /// How a harness hook runs it.
    #[command(flatten)]
    pub hook: HookArgs,
}

/// Runs `session end`.
pub fn run(ctx: &Ctx, a: EndArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    if idle_hook(&actor, a.hook)? {
        return Ok(());
    }
    if a.hook.on() {
        let r = record_hook_turn(ctx, &actor, &read_hook_input()?, ops::Flush::Never, out)?;
        if !r.is_open() {
            return changed(out, &r, "ended over budget");
        }
    }
    let s = ops::end_session(&ctx.store, &actor, a.reason)?;
    changed(out, &s, &format!("ended ({})", a.reason))
}
