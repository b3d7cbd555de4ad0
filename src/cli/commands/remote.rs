//! `git beads remote setup`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// The verbs of `remote`.
#[derive(clap::Subcommand, Debug)]
pub enum RemoteCommand {
    /// Add fetch refspecs so that a plain `git fetch REMOTE` also brings its beads.
    ///
    /// The remote's store and provenance notes land in refs/beads/remotes/REMOTE/,
    /// which `git branch -a` does not show. What `git push` does is unchanged.
    Setup(SetupArgs),
}

/// Arguments of `remote setup`.
#[derive(clap::Args, Debug)]
pub struct SetupArgs {
    /// The remote.
    pub remote: String,
}

/// Runs `remote`.
pub fn run(ctx: &Ctx, cmd: RemoteCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        RemoteCommand::Setup(a) => {
            let added = ops::setup_remote(&ctx.store, &a.remote)?;
            if out.json {
                return out.json(&wire::RemoteSetup {
                    remote: &a.remote,
                    added,
                });
            }
            if added {
                out.note(format!("`git fetch {}` now brings its beads too", a.remote));
            } else {
                out.note(format!("{} was already set up", a.remote));
            }
            Ok(())
        }
    }
}
