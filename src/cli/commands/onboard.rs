//! `git beads onboard`: what to put in AGENTS.md (or CLAUDE.md) so that every agent
//! session in the repository knows how to take, track and hand over its work, as bd's
//! `onboard` prints it.

use crate::cli::{error::CliError, output::Out};

/// Arguments of `onboard`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// The section for AGENTS.md. Every command it names exists (tests/bd_compat.rs runs
/// `--help` on each).
pub const ONBOARD: &str = "\
Add this section to AGENTS.md (or CLAUDE.md) so that every agent session knows how
work is tracked here:

## Work tracking: git beads

This repository tracks its work as beads, kept in its own git refs (refs/beads/main):
no server, no database; they travel with git fetch/push. Type `git beads` where bd's
instructions say `bd`; every read takes --json.

- At session start: `git beads prime` says who you are, what is on your hook, your
  unread mail and how the previous session ended.
- Find work: `git beads ready --json` lists open work that nothing unfinished blocks,
  most urgent first. `git beads show ID` shows one bead in full.
- Take it: `git beads update ID --claim` (atomic: of two agents, exactly one wins).
- File what you find: `git beads create \"Title\" -t bug -p 1 --deps discovered-from:ID`
  (types: task, bug, feature, epic, chore; priority 0 critical … 4 backlog).
- Link work: `git beads dep add ID OTHER` (ID waits on OTHER); `git beads blocked`
  shows what waits on what.
- Say what you did: `git beads comment ID \"…\"`; finish: `git beads close ID -r \"why\"`.
- Before you stop: `git beads sync` shares the store with the remote;
  `git beads handoff` leaves a note for the next session.
- Mail between agents: `git beads mail inbox`, `git beads mail send NAME`.
";

/// Runs `onboard`.
pub fn run(_args: Args, out: &mut Out) -> Result<(), CliError> {
    super::print_guide(out, "onboard", ONBOARD)
}
