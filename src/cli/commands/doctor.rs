//! `git beads doctor`: check the store, repair what is safe.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops::{self, Severity};
use crate::wire;

/// Arguments of `doctor`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Repair what can be repaired safely (one commit): drop finished work from hooks,
    /// close abandoned sessions, move documents that do not parse to `lost+found/`;
    /// and rebuild a stale index cache.
    #[arg(long)]
    pub fix: bool,
    /// Put the document kept at this path under `lost+found/` back where it was found,
    /// byte for byte (one commit), and check nothing else.
    #[arg(long, value_name = "PATH", conflicts_with = "fix")]
    pub restore: Option<String>,
}

/// Runs `doctor`; exits 4 when errors remain.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    if let Some(lost) = &args.restore {
        let path = ops::restore_lost(&ctx.store, &ctx.actor()?, lost)?;
        out.note(format!("put {lost} back at {path}"));
        return Ok(());
    }
    let report = ops::doctor(&ctx.store, &ctx.actor()?, args.fix)?;
    if out.json {
        out.json(&wire::Doctor::from(&report))?;
    } else {
        for f in &report.findings {
            out.line(format!(
                "{}{} [{}] {}: {}",
                match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                },
                if f.fixed { " (fixed)" } else { "" },
                f.check,
                f.path,
                f.message
            ))?;
            if f.check == ops::Check::LostFound {
                out.line(format!(
                    "  bring it back: git beads doctor --restore {}",
                    f.path
                ))?;
            }
        }
        for m in &report.moved {
            out.line(format!("moved {} to {}: {}", m.from, m.to, m.reason))?;
            out.line(format!(
                "  bring it back: git beads doctor --restore {}",
                m.to
            ))?;
        }
        out.note(format!(
            "checked {}: {}",
            count(report.documents, "document"),
            count(report.findings.len(), "finding")
        ));
    }
    if report.has_errors() {
        return Err(CliError::new(
            crate::cli::error::Kind::Store,
            "the store has problems doctor could not fix",
        )
        .hint("see the findings above; `git beads doctor --fix` repairs what is safe"));
    }
    Ok(())
}
