//! `git beads mol squash`.

use super::IdArgs;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops;
use crate::wire;

/// Runs `mol squash`: prints the summary's id.
pub fn run(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    let s = ops::squash(&ctx.store, &ctx.actor()?, &a.id)?;
    if out.json {
        return out.json(&wire::Squashed::from(&s));
    }
    out.line(s.summary.id.as_str())?;
    let steps = count(s.steps, "step");
    let title = &s.summary.title;
    out.note(if s.wisp {
        format!(
            "squashed wisp {} ({steps}) into {}: {title}",
            s.from, s.summary.id
        )
    } else {
        format!(
            "squashed molecule {} ({steps}) into itself: {title}",
            s.from
        )
    });
    Ok(())
}
