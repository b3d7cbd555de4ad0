//! `git beads version`: the version, as bd prints its own, so that bd's tools that
//! check it (beads-mcp refuses a bd older than 0.9) accept git-beads.

use crate::cli::{error::CliError, output::Out};
use crate::wire;

/// Arguments of `version`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `version`: `bd version <bd's version this speaks> (git-beads <version>)`.
pub fn run(_args: Args, out: &mut Out) -> Result<(), CliError> {
    let own = env!("CARGO_PKG_VERSION");
    if out.json {
        return out.json(&wire::Version {
            version: wire::BD_VERSION,
            build: "git-beads",
            git_beads_version: own,
        });
    }
    out.line(format!("bd version {} (git-beads {own})", wire::BD_VERSION))
}
