//! `git beads rename-prefix NEW`: give the store a new prefix, and every bead of the
//! old one the same id under the new one.

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::model::{Prefix, count};
use crate::ops;
use crate::wire;

/// Arguments of `rename-prefix`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The new prefix (`kw`, or bd's `kw-`): lowercase letters, digits, `_` or `-`,
    /// 1 to 16 characters, starting with a letter.
    pub prefix: String,
}

/// Runs `rename-prefix`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let given = args.prefix.strip_suffix('-').unwrap_or(&args.prefix);
    let prefix = Prefix::parse(given).map_err(|e| CliError::new(Kind::Usage, e.to_string()))?;
    let actor = ctx.actor()?;
    let done = ops::rename_prefix(&ctx.store, &actor, &prefix)?;
    if out.json {
        return out.json(&wire::PrefixRenamed::from(&done));
    }
    if done.old == done.new {
        out.note(format!(
            "the prefix is {} already; nothing changed",
            done.new
        ));
    } else {
        out.note(format!(
            "prefix {} → {}: {} renamed (the old ids stay as tombstones)",
            done.old,
            done.new,
            count(done.renamed, "bead")
        ));
    }
    Ok(())
}
