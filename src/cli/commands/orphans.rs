//! `git beads orphans`: bd's open beads that a commit of the code names in its
//! subject (`… (bd-a1)`): work done but not closed.

use std::io::BufRead;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Layout, escape_controls};
use crate::ops::{self, Orphan};
use crate::wire;

/// Arguments of `orphans`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Close the orphans (reason "Implemented", one commit), after asking (Y/n).
    #[arg(short, long)]
    pub fix: bool,
    /// Show the newest commit that names each.
    #[arg(long)]
    pub details: bool,
    /// Only beads with every one of these labels.
    #[arg(short, long = "label", value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Only beads with at least one of these labels.
    #[arg(long = "label-any", value_delimiter = ',')]
    pub labels_any: Vec<String>,
}

/// Runs `orphans`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let orphans = ops::orphans(&ctx.store, &args.labels, &args.labels_any)?;
    if out.json {
        return out.json_list(&wire::Orphans::new(&orphans));
    }
    if orphans.is_empty() {
        return out.line("✓ No orphaned issues found");
    }
    out.line("")?;
    out.line(format!("⚠ Found {} orphaned issue(s):", orphans.len()))?;
    out.line("")?;
    for (n, o) in orphans.iter().enumerate() {
        out.line(format!(
            "{}. {}: {}",
            n + 1,
            o.id,
            escape_controls(&o.title, Layout::Line)
        ))?;
        out.line(format!("   Status: {}", o.status))?;
        if args.details {
            let subject = escape_controls(&o.subject, Layout::Line);
            out.line(format!("   Latest commit: {} - {subject}", o.commit))?;
        }
    }
    if args.fix {
        fix(ctx, &orphans, out)?;
    }
    Ok(())
}

/// Asks, as bd does, and closes the orphans in one commit unless told no (an empty
/// answer is bd's default yes).
fn fix(ctx: &Ctx, orphans: &[Orphan], out: &mut Out) -> Result<(), CliError> {
    out.line("")?;
    out.line(format!(
        "This will close {} orphaned issue(s). Continue? (Y/n):",
        orphans.len()
    ))?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if !matches!(answer.trim().to_lowercase().as_str(), "" | "y" | "yes") {
        return out.line("Canceled.");
    }
    let ids = orphans
        .iter()
        .map(|o| o.id.parse())
        .collect::<Result<Vec<_>, _>>()
        .map_err(ops::OpError::from)?;
    let closed = ops::close(&ctx.store, &ctx.actor()?, &ids, Some("Implemented"))?;
    for e in &closed {
        out.line(format!("✓ Closed {}", e.bead.id))?;
    }
    out.line("")?;
    out.line(format!("Closed {} issue(s)", closed.len()))
}
