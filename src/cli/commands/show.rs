//! `git beads show`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// Arguments of `show`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The beads to show.
    #[arg(required = true)]
    pub ids: Vec<BeadId>,
}

/// Runs `show`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let beads = ops::show(&ctx.store, &args.ids)?;
    if out.json {
        return out.json(&wire::Beads { beads: &beads });
    }
    for (i, b) in beads.iter().enumerate() {
        if i > 0 {
            out.line("")?;
        }
        out.bead(b)?;
    }
    Ok(())
}
