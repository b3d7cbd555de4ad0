//! `git beads gate list|resolve` and `git beads human`: the gates a formula's steps
//! wait for.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops::{self, GateState};
use crate::wire;

/// The verbs of `gate`.
#[derive(clap::Subcommand, Debug)]
pub enum GateCommand {
    /// List the gates that are not resolved yet (with --all, every gate).
    ///
    /// A timer gate whose time is over, and a gh:pr or gh:run gate that GitHub
    /// reports met (asked through `gh` where it is installed; "unavailable" where
    /// not), is resolved as it is read.
    List(ListArgs),
    /// Resolve a gate by hand, so that the step waiting for it can be worked.
    Resolve(ResolveArgs),
}

/// Arguments of `gate list` and `human`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Every gate, resolved ones too.
    #[arg(long)]
    pub all: bool,
}

/// Arguments of `gate resolve`.
#[derive(clap::Args, Debug)]
pub struct ResolveArgs {
    /// The gate bead.
    pub id: BeadId,
    /// Why it is resolved (default: "resolved").
    #[arg(long, short)]
    pub reason: Option<String>,
}

/// Runs `gate`.
pub fn run(ctx: &Ctx, cmd: GateCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        GateCommand::List(a) => list(ctx, a.all, false, out),
        GateCommand::Resolve(a) => {
            let g = ops::resolve_gate(&ctx.store, &ctx.actor()?, &a.id, a.reason.as_deref())?;
            print(std::slice::from_ref(&g), out)?;
            out.note(format!("resolved {}", g.bead.id));
            Ok(())
        }
    }
}

/// Runs `human`: the human gates waiting for a person.
pub fn human(ctx: &Ctx, a: ListArgs, out: &mut Out) -> Result<(), CliError> {
    list(ctx, a.all, true, out)
}

fn list(ctx: &Ctx, all: bool, human: bool, out: &mut Out) -> Result<(), CliError> {
    let gates = ops::gates(&ctx.store, &ctx.actor()?, all, human)?;
    if gates.is_empty() && !out.json {
        out.note(if human {
            "no human gates waiting"
        } else {
            "no gates waiting"
        });
    }
    print(&gates, out)
}

fn print(gates: &[GateState], out: &mut Out) -> Result<(), CliError> {
    if out.json {
        return out.json_list(&wire::Gates {
            gates: gates.iter().map(wire::GateLine::from).collect(),
        });
    }
    for g in gates {
        let when = g
            .opens_at
            .map(|t| format!(" (opens {})", t.format("%Y-%m-%d %H:%M")))
            .unwrap_or_default();
        out.line(format!(
            "{:<16} {:<11} {:<8} {}{when}",
            g.bead.id,
            g.state.as_str(),
            g.gate.kind,
            g.bead.title
        ))?;
    }
    Ok(())
}
