//! `git beads session log`.

use super::ShowArgs;
use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::ops;

/// Runs `session log`.
pub fn run(ctx: &Ctx, a: ShowArgs, out: &mut Out) -> Result<(), CliError> {
    let entries = ops::session_log(&ctx.store, &a.id)?;
    render::log(out, &entries)
}
