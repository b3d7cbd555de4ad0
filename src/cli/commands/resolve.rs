//! `git beads resolve`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadId, count};
use crate::ops;
use crate::wire;

/// Arguments of `resolve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bead.
    pub id: BeadId,
    /// Clear only the conflicts of this field (default: all of them).
    #[arg(long)]
    pub field: Option<String>,
}

/// Runs `resolve`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let (bead, cleared) = ops::resolve(&ctx.store, &actor, &args.id, args.field.as_deref())?;
    if out.json {
        return out.json(&wire::Resolved {
            id: &args.id,
            cleared,
            bead: &bead,
        });
    }
    if cleared == 0 {
        out.note(format!("{} has no conflicts to clear", args.id));
    } else {
        out.note(format!(
            "cleared {} of {}",
            count(cleared, "conflict"),
            args.id
        ));
    }
    Ok(())
}
