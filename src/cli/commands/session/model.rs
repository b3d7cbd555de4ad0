//! `git beads session model`.

use super::changed;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `session model`.
#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// The model now running.
    pub model: String,
}

/// Runs `session model`.
pub fn run(ctx: &Ctx, a: ModelArgs, out: &mut Out) -> Result<(), CliError> {
    let s = ops::swap_model(&ctx.store, &ctx.actor()?, &a.model)?;
    changed(out, &s, &format!("now runs {}", a.model))
}
