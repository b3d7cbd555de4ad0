//! `git beads gc`: prune old worktree snapshots from the store.

use serde::Serialize;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `gc`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Snapshots to keep per agent (default: `beads.snapshotKeep`, else 5).
    #[arg(long)]
    pub keep: Option<usize>,
}

#[derive(Serialize)]
struct Report {
    pruned: usize,
}

/// Runs `gc`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let pruned = ops::gc(&ctx.store, &ctx.actor()?, args.keep)?;
    if out.json {
        return out.json(&Report { pruned });
    }
    out.note(format!("pruned {pruned} old snapshots"));
    Ok(())
}
