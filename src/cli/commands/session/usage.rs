//! `git beads session usage`.

use super::changed;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self, UsageReport};

/// Arguments of `session usage`.
#[derive(clap::Args, Debug)]
pub struct UsageArgs {
    /// This closes a turn.
    #[arg(long)]
    pub turn: bool,
    /// Tokens used.
    #[arg(long, default_value = "0")]
    pub tokens: u64,
    /// Dollars spent.
    #[arg(long, default_value = "0")]
    pub spend: f64,
    /// Tool calls made.
    #[arg(long, default_value = "0")]
    pub tool_calls: u64,
}

/// Runs `session usage`.
pub fn run(ctx: &Ctx, a: UsageArgs, out: &mut Out) -> Result<(), CliError> {
    let s = ops::record_usage(
        &ctx.store,
        &ctx.actor()?,
        UsageReport {
            turn: a.turn,
            tokens: a.tokens,
            spend: a.spend,
            tool_calls: a.tool_calls,
        },
    )?;
    changed(out, &s, "usage recorded")
}
