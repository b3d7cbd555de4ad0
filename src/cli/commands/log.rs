//! `git beads log`.

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::BeadId;
use crate::ops;

/// Arguments of `log`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the history of this bead, with what changed in each step.
    pub id: Option<BeadId>,
    /// At most this many steps.
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
}

/// Runs `log`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let entries = ops::log(&ctx.store, args.id.as_ref(), args.limit)?;
    render::log(out, &entries)
}
