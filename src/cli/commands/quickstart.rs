//! `git beads quickstart`: a newcomer's first five minutes, as bd's `quickstart`
//! prints them.

use crate::cli::{error::CliError, output::Out};

/// Arguments of `quickstart`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// The guide. Every command it names exists (tests/bd_compat.rs runs `--help` on each).
pub const QUICKSTART: &str = "\
git beads: an issue tracker for agents and people, kept inside the repository

Beads are work items (tasks, bugs, features, epics, chores) stored as git objects
under refs/beads/main: one commit per change, shared through the repository's own
remote. bd's commands and --json shapes work here: type `git beads` for `bd`.

Start:
  git beads init                          create the store (once per repository)
  git beads create \"Fix login\" -t bug -p 1
  git beads create \"Write docs\" --deps ID   a bead that waits on ID
  git beads list                          open beads, most urgent first
  git beads ready                         work that nothing unfinished blocks
  git beads show ID                       one bead in full

Work:
  git beads update ID --claim             take it (in_progress, assigned to you)
  git beads comment ID \"found it\"
  git beads close ID -r \"fixed\"
  git beads dep add ID OTHER              ID waits on OTHER
  git beads blocked                       what waits on what
  git beads stats                         counts by status

Share:
  git beads sync                          merge with the remote's beads and push

For agents: `git beads onboard` prints a section for AGENTS.md, and
`git beads prime` starts each session with its work.
";

/// Runs `quickstart`.
pub fn run(_args: Args, out: &mut Out) -> Result<(), CliError> {
    super::print_guide(out, "quickstart", QUICKSTART)
}
