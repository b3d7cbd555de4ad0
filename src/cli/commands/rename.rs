//! `git beads rename OLD NEW`: give a bead a new id, every link to it following.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// Arguments of `rename`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bead (an id without its prefix will do where it is unambiguous).
    pub old: String,
    /// Its new id: free, and a bead id's shape (`<prefix>-<word>`).
    pub new: BeadId,
}

/// Runs `rename`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let old = super::resolve_id(ctx, &args.old)?;
    let renamed = ops::rename(&ctx.store, &actor, &old, &args.new)?;
    if out.json {
        return out.json(&wire::Renamed::from(&renamed));
    }
    let links = crate::model::count(renamed.relinked.len(), "bead");
    out.note(format!(
        "renamed {old} to {} ({links} relinked; {old} stays as a tombstone)",
        renamed.bead.id
    ));
    Ok(())
}
