//! `git beads mol progress`.

use super::IdArgs;
use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::ops::{self, Progress};
use crate::wire;

/// Runs `mol progress`.
pub fn run(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    let p = ops::molecule_progress(&ctx.store, &a.id)?;
    if out.json {
        return out.json(&wire::MoleculeProgress {
            progress: wire::MoleculeState::from(&p),
        });
    }
    print_progress(out, &p)
}

/// Prints a molecule's progress: a header, then one line per step.
fn print_progress(out: &mut Out, p: &Progress) -> Result<(), CliError> {
    out.line(format!(
        "{}  {} [{}]{}",
        p.molecule,
        p.title,
        p.status,
        if p.wisp { " (wisp)" } else { "" }
    ))?;
    let position = p.position();
    out.line(format!("  {}/{} done — {position}", p.done, p.total))?;
    for s in &p.steps {
        out.line(format!("  {}", render::step_line(s)))?;
    }
    render::checklist(out, &p.checklist, "  ")
}
