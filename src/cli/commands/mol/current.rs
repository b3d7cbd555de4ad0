//! `git beads mol current`.

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// Arguments of `mol current`.
#[derive(clap::Args, Debug)]
pub struct CurrentArgs {
    /// The molecule or wisp (default: the molecule on the acting agent's hook).
    pub id: Option<BeadId>,
}

/// Runs `mol current`.
pub fn run(ctx: &Ctx, a: CurrentArgs, out: &mut Out) -> Result<(), CliError> {
    let c = ops::current(&ctx.store, &ctx.actor()?, a.id.as_ref())?;
    if out.json {
        return out.json_list(&wire::MolCurrents(vec![wire::MolCurrent::from(&c)]));
    }
    let p = &c.progress;
    out.line(format!(
        "{}  {} — {}; {}/{} done",
        p.molecule, p.title, c.position, p.done, p.total
    ))?;
    let ready: Vec<&crate::model::Bead> = c.ready().collect();
    if ready.is_empty() {
        if !p.checklist.is_empty() && p.done < p.total {
            out.line("Its steps, not poured as beads:")?;
            return render::checklist(out, &p.checklist, "  ");
        }
        if p.done < p.total {
            out.line("Nothing can be worked now: the unfinished steps wait on others.")?;
        }
        return Ok(());
    }
    out.line("Now:")?;
    for s in &ready {
        out.line(format!("  {}  {} [{}]", s.id, s.title, s.status))?;
        for l in s.description.lines() {
            out.line(format!("    {l}"))?;
        }
        if let Some(acc) = s.extra.get(ops::ACCEPTANCE_KEY).and_then(|v| v.as_str()) {
            out.line(format!("    acceptance: {acc}"))?;
        }
    }
    out.line(format!(
        "When a step is done: `git beads close {}`.",
        ready.first().map(|s| s.id.as_str()).unwrap_or_default()
    ))
}
