//! `git beads mail search`.

use super::{me, show::listed};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `mail search`.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// The text (case-insensitive).
    pub text: String,
}

/// Runs `mail search`: the messages found, one line each.
pub fn run(ctx: &Ctx, a: SearchArgs, out: &mut Out) -> Result<(), CliError> {
    listed(out, &ops::search_mail(&ctx.store, &me(ctx)?, &a.text)?)
}
