//! `git beads mol burn`.

use super::IdArgs;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops;
use crate::wire;

/// Runs `mol burn`.
pub fn run(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    let b = ops::burn(&ctx.store, &ctx.actor()?, &a.id)?;
    if out.json {
        return out.json(&wire::Burned::from(&b));
    }
    out.note(format!(
        "burned wisp {}: {} ({})",
        b.molecule,
        b.title,
        count(b.steps, "step")
    ));
    Ok(())
}
