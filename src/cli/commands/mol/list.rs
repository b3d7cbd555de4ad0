//! `git beads mol list`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `mol list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Include finished molecules.
    #[arg(long)]
    pub all: bool,
}

/// Runs `mol list`.
pub fn run(ctx: &Ctx, a: ListArgs, out: &mut Out) -> Result<(), CliError> {
    let all = ops::list_molecules(&ctx.store, a.all)?;
    if out.json {
        return out.json_list(&wire::Molecules {
            molecules: all.iter().map(wire::MoleculeState::from).collect(),
        });
    }
    if all.is_empty() {
        out.note("no molecules");
    }
    for p in &all {
        out.line(format!(
            "{:<16} {:>3}/{:<3} {:<11} {}{}",
            p.molecule,
            p.done,
            p.total,
            p.status.as_str(),
            p.title,
            if p.wisp { "  (wisp)" } else { "" }
        ))?;
    }
    Ok(())
}
