//! `git beads prune`: bd's deletion of old closed beads, as `delete` deletes them
//! (tombstones that sync as deletions), all in one commit.

use super::purge::Args;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops::{self, Pruning};
use crate::wire::BeadsPruned;

/// Runs `prune`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    if a.older_than.is_none() && a.pattern.is_none() {
        return Err(
            CliError::user("prune needs --older-than or --pattern").hint(
                "this guards against deleting every closed bead by accident: `--pattern '*'` \
             takes them all, `--older-than 30d` or `--pattern GLOB` narrows it",
            ),
        );
    }
    let pruning = Pruning {
        closed_before: a.older_than.map(|age| chrono::Utc::now() - age),
        pattern: a.pattern.clone(),
    };
    let actor = ctx.actor()?;
    let preview = a.dry_run || !a.force;
    let swept = ops::prune(&ctx.store, &actor, &pruning, preview)?;
    let n = swept.beads.len();
    if !a.dry_run && !a.force && n > 0 {
        if !out.json {
            out.line(format!("Found {} to prune", count(n, "closed bead")))?;
        }
        return Err(CliError::user(format!("would prune {}", count(n, "bead")))
            .hint("`--force` prunes them, `--dry-run` says what goes with them"));
    }
    if out.json {
        return out.json(&BeadsPruned::new(&swept, a.dry_run));
    }
    if n == 0 {
        return out.line(BeadsPruned::NOTHING);
    }
    let (verb, removed) = match a.dry_run {
        true => ("Would prune", ""),
        false => ("Pruned", " removed"),
    };
    out.line(format!("{verb} {}", count(n, "closed bead")))?;
    out.line(format!("  Dependencies{removed}: {}", swept.dependencies))?;
    out.line(format!("  Labels{removed}:       {}", swept.labels))?;
    out.line(format!("  Events{removed}:       {}", swept.events))?;
    if swept.pinned_skipped > 0 {
        out.line(format!("  Pinned (skipped): {}", swept.pinned_skipped))?;
    }
    if a.dry_run {
        out.line("")?;
        out.line("(Dry-run mode — no changes made)")?;
    }
    Ok(())
}
