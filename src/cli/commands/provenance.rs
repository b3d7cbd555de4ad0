//! `git beads provenance`: which agent, session, model, bead and step made a commit.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self};
use crate::wire;

/// Arguments of `provenance`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The commit (default: HEAD).
    #[arg(default_value = "HEAD")]
    pub commit: String,
}

/// Runs `provenance`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    let p = ops::provenance(&ctx.store, &a.commit)?;
    if out.json {
        return out.json(&wire::Provenance { provenance: &p });
    }
    if p.note.is_none() {
        out.note(format!(
            "{} has no provenance note (it was not made in a git-beads session)",
            p.commit
        ));
        return Ok(());
    }
    out.line(format!("commit {}", p.commit))?;
    for r in &p.records {
        out.line("")?;
        out.line(format!("  agent:    {}", r.agent))?;
        out.line(format!("  session:  {}", r.session))?;
        if let Some(m) = &r.model {
            out.line(format!("  model:    {m}"))?;
        }
        if !r.beads.is_empty() {
            let ids: Vec<&str> = r.beads.iter().map(|b| b.as_str()).collect();
            out.line(format!("  beads:    {}", ids.join(", ")))?;
        }
        if let Some(m) = &r.molecule {
            let at = r.position.as_deref().unwrap_or("");
            out.line(format!("  molecule: {m} — {at}"))?;
        }
        if let Some(s) = &r.store {
            out.line(format!("  store:    {s}"))?;
        }
    }
    for doc in &p.other {
        out.line("")?;
        for l in doc.lines() {
            out.line(format!("  {l}"))?;
        }
    }
    Ok(())
}
