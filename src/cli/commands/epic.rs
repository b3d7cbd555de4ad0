//! `git beads epic status|close-eligible`: epics and how far their children are.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// The verbs of `epic`.
#[derive(clap::Subcommand, Debug)]
pub enum EpicCommand {
    /// Show every epic with how many of its children are closed.
    Status(StatusArgs),
    /// Close every epic whose children are all closed.
    CloseEligible(CloseArgs),
}

/// Arguments of `epic status`.
#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// Only the epics whose children are all closed.
    #[arg(long = "eligible-only")]
    pub eligible_only: bool,
}

/// Arguments of `epic close-eligible`.
#[derive(clap::Args, Debug)]
pub struct CloseArgs {
    /// Say what would be closed, and close nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

/// Runs `epic`.
pub fn run(ctx: &Ctx, cmd: EpicCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        EpicCommand::Status(a) => {
            let (epics, broken) = ops::epic_status(&ctx.store)?;
            out.warn_broken(&broken);
            let epics: Vec<ops::EpicProgress> = epics
                .into_iter()
                .filter(|e| !a.eligible_only || e.eligible())
                .collect();
            if out.json {
                return out.json_list(&wire::EpicStatuses(
                    epics.iter().map(wire::EpicStatus::from).collect(),
                ));
            }
            for e in &epics {
                let mark = if e.eligible() { " (can close)" } else { "" };
                out.line(format!(
                    "{:<12} {}/{} closed {}{mark}",
                    e.epic.id, e.closed_children, e.total_children, e.epic.title
                ))?;
            }
            if epics.is_empty() {
                out.note("no epics");
            }
            Ok(())
        }
        EpicCommand::CloseEligible(a) => {
            let actor = ctx.actor()?;
            let closed = ops::close_eligible_epics(&ctx.store, &actor, a.dry_run)?;
            if out.json {
                return out.json(&wire::ClosedEpics {
                    closed: &closed,
                    dry_run: a.dry_run,
                });
            }
            let verb = if a.dry_run { "would close" } else { "closed" };
            for id in &closed {
                out.note(format!("{verb} {id}"));
            }
            if closed.is_empty() {
                out.note("no epic has all its children closed");
            }
            Ok(())
        }
    }
}
