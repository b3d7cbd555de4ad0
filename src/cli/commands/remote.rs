//! `git beads remote setup` and `remote prune`.

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
    /// Delete the remote's replica refs whose work its refs/beads/main already holds.
    ///
    /// A sync that finds refs/beads/main moving publishes to its clone's own replica
    /// ref, and the next sync of any clone folds it in and deletes it; a clone that went
    /// quiet may leave one behind. Each goes with a lease, so a ref pushed again
    /// meanwhile stays. Lists the refs removed; the local store is not changed.
    Prune(PruneArgs),
}

/// Arguments of `remote prune`.
#[derive(clap::Args, Debug)]
pub struct PruneArgs {
    /// The remote (default: the default remote).
    pub remote: Option<String>,
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
        RemoteCommand::Prune(a) => {
            let pruned = ops::prune_remote(&ctx.store, a.remote.as_deref())?;
            if out.json {
                return out.json(&wire::RemotePruned::from(&pruned));
            }
            for name in &pruned.removed {
                out.line(name)?;
            }
            out.note(format!(
                "removed {} from {}, left {}",
                crate::model::count(pruned.removed.len(), "replica ref"),
                pruned.remote,
                pruned.kept.len()
            ));
            Ok(())
        }
    }
}
