//! `git beads gc`: prune old worktree snapshots from the store.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `gc`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Snapshots to keep per agent (default: `beads.snapshotKeep`, else 5).
    #[arg(long)]
    pub keep: Option<usize>,
}

/// Runs `gc`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let pruned = ops::gc(&ctx.store, &ctx.actor()?, args.keep)?;
    if out.json {
        return out.json(&wire::Pruned { pruned });
    }
    out.note(format!("pruned {pruned} old snapshots"));
    Ok(())
}
