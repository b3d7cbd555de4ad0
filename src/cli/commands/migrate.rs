//! `git beads migrate`: bd's database migration, which has nothing to do here.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::wire;

/// Arguments of `migrate` (bd's flags, all taken).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// bd's leave to migrate without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// bd's update of the repository id after a change of remote: the store has no id
    /// apart from the repository it lives in, so there is nothing to update.
    #[arg(long = "update-repo-id")]
    pub update_repo_id: bool,
    /// Show what would be migrated (nothing).
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// bd's look at the database's schema.
    #[arg(long)]
    pub inspect: bool,
}

/// Runs `migrate`: checks that the store is there and says that nothing needs
/// migrating (stdout under `--json`, as bd's `current` status; stderr otherwise).
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    ctx.store.require_head()?;
    let message = if args.update_repo_id {
        "nothing to update: the store has no repository id apart from the repository it lives in"
    } else {
        "nothing to migrate: the store is git refs of this repository, read by this version as it is"
    };
    if out.json {
        return out.json(&wire::Migrated {
            status: "current",
            message,
        });
    }
    out.note(message);
    Ok(())
}
