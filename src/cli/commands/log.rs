//! `git beads log`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops::{self, LogEntry};
use crate::wire;

/// Arguments of `log`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the history of this bead, with what changed in each step.
    pub id: Option<BeadId>,
    /// At most this many steps.
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
}

/// Runs `log`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let entries = ops::log(&ctx.store, args.id.as_ref(), args.limit)?;
    print(out, &entries)
}

/// Prints history entries: JSON, or one line per step with its changes or diffs.
pub fn print(out: &mut Out, entries: &[LogEntry]) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::Log::new(entries));
    }
    for e in entries {
        let subject = e.message.lines().next().unwrap_or_default();
        out.line(format!(
            "{} {} {} {subject}",
            &e.commit[..e.commit.len().min(10)],
            e.time.format("%Y-%m-%d %H:%M"),
            e.author
        ))?;
        for c in &e.changes {
            match &c.diff {
                Some(diff) => {
                    for l in diff.lines().filter(|l| !l.starts_with("@@")) {
                        out.line(format!("    {l}"))?;
                    }
                }
                None => out.line(format!("    {} {}", c.kind, c.path))?,
            }
        }
    }
    Ok(())
}
