//! `git beads lint [ID…]`: beads that lack what their type's template expects (a bug
//! its steps to reproduce and acceptance criteria, …), as bd's `lint` reports them.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops;
use crate::wire;

/// Arguments of `lint`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The beads to check (default: every unfinished bead whose type has a template).
    pub ids: Vec<String>,
}

/// Runs `lint`; exits 1 when a bead lacks something.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let ids = super::resolve_ids(ctx, &args.ids)?;
    let report = ops::lint(&ctx.store, &ids)?;
    out.warn_broken(&report.broken);
    if out.json {
        out.json(&wire::Lint::from(&report))?;
    } else {
        for f in &report.findings {
            out.line(format!(
                "{} [{}] {}: missing {}",
                f.id,
                f.kind,
                f.title,
                f.missing.join(", ")
            ))?;
        }
        out.note(format!(
            "checked {}: {} lacking",
            count(report.checked, "bead"),
            report.findings.len()
        ));
    }
    if report.findings.is_empty() {
        return Ok(());
    }
    Err(CliError::user(format!(
        "{} {} what {} type's template expects",
        count(report.findings.len(), "bead"),
        if report.findings.len() == 1 {
            "lacks"
        } else {
            "lack"
        },
        if report.findings.len() == 1 {
            "its"
        } else {
            "their"
        },
    ))
    .hint("add the sections to the description (`## Acceptance Criteria`), or set --acceptance"))
}
