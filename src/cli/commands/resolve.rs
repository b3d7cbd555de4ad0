//! `git beads resolve`.

use serde::Serialize;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Bead, BeadId};
use crate::ops;

/// Arguments of `resolve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bead.
    pub id: BeadId,
    /// Clear only the conflicts of this field (default: all of them).
    #[arg(long)]
    pub field: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    id: &'a BeadId,
    cleared: usize,
    bead: &'a Bead,
}

/// Runs `resolve`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let (bead, cleared) = ops::resolve(&ctx.store, &actor, &args.id, args.field.as_deref())?;
    if out.json {
        return out.json(&Report {
            id: &args.id,
            cleared,
            bead: &bead,
        });
    }
    if cleared == 0 {
        out.note(format!("{} has no conflicts to clear", args.id));
    } else {
        out.note(format!(
            "cleared {cleared} conflict{} of {}",
            if cleared == 1 { "" } else { "s" },
            args.id
        ));
    }
    Ok(())
}
