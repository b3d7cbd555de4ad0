//! `git beads mail reply`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// Arguments of `mail reply`.
#[derive(clap::Args, Debug)]
pub struct ReplyArgs {
    /// The message to answer.
    #[arg(value_parser = BeadId::parse_message)]
    pub id: BeadId,
    /// The body.
    #[arg(short = 'm', long = "message")]
    pub body: String,
}

/// Runs `mail reply`: prints the reply's id.
pub fn run(ctx: &Ctx, a: ReplyArgs, out: &mut Out) -> Result<(), CliError> {
    let m = ops::reply(&ctx.store, &ctx.actor()?, &a.id, &a.body)?;
    if out.json {
        return out.json(&wire::OneMessage { message: &m });
    }
    out.line(m.id.as_str())
}
