//! `git beads init`.

use serde::Serialize;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::Prefix;
use crate::ops;

/// Arguments of `init`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The prefix of new ids (default: derived from the repository's name).
    #[arg(long, value_parser = Prefix::parse)]
    pub prefix: Option<Prefix>,
}

#[derive(Serialize)]
struct Report<'a> {
    prefix: &'a str,
    created: bool,
}

/// Runs `init`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let (prefix, created) = ops::init(&ctx.store, &actor, args.prefix)?;
    if out.json {
        return out.json(&Report {
            prefix: prefix.as_str(),
            created,
        });
    }
    if created {
        out.note(format!("initialized the beads store with prefix {prefix}"));
    } else {
        out.note(format!("the beads store already exists (prefix {prefix})"));
    }
    Ok(())
}
