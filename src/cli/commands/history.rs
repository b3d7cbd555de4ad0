//! `git beads history ID`: bd's version history of one bead, its state at each store
//! commit that changed it, newest first.

use super::util::status_icon;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Bead, BeadId, Layout, escape_controls};
use crate::ops;
use crate::wire;

/// Arguments of `history`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bead.
    pub id: BeadId,
    /// At most this many states, the newest (0: all).
    #[arg(long, default_value = "0")]
    pub limit: usize,
}

/// Runs `history`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let limit = if args.limit == 0 {
        usize::MAX
    } else {
        args.limit
    };
    let versions = ops::bead_history(&ctx.store, &args.id, limit)?;
    if out.json {
        return out.json_list(&wire::History::new(&versions));
    }
    if versions.is_empty() {
        return out.line(format!("No history found for issue {}", args.id));
    }
    out.line("")?;
    out.line(format!(
        "📜 History for {} ({} entries)",
        args.id,
        versions.len()
    ))?;
    for v in &versions {
        out.line("")?;
        out.line(format!(
            "{} {}",
            &v.commit[..v.commit.len().min(8)],
            v.time.format("%Y-%m-%d %H:%M:%S")
        ))?;
        out.line(format!("  Author: {}", v.author))?;
        if let Some(b) = &v.bead {
            out.line(format!("  {}", state_line(b)))?;
        }
    }
    out.line("")
}

/// A bead's state on one line, as bd's `history` and `diff` show it:
/// `○ bd-a1: Title [P2 - open]`.
pub fn state_line(b: &Bead) -> String {
    format!(
        "{} {}: {} [P{} - {}]",
        status_icon(b.status),
        b.id,
        escape_controls(&b.title, Layout::Line),
        b.priority,
        b.status
    )
}
