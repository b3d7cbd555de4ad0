//! `git beads update`, `close`, `reopen` and `delete`.

use super::parse_priority;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Bead, BeadId, BeadType, Status};
use crate::ops::{self, Changes, Edited};
use crate::wire;

/// Arguments of `update`.
#[derive(clap::Args, Debug)]
pub struct UpdateArgs {
    /// The bead to change.
    pub id: BeadId,
    /// New title.
    #[arg(long)]
    pub title: Option<String>,
    /// New description.
    #[arg(short, long)]
    pub description: Option<String>,
    /// New notes.
    #[arg(long)]
    pub notes: Option<String>,
    /// New status.
    #[arg(short, long)]
    pub status: Option<Status>,
    /// New priority.
    #[arg(short, long, value_parser = parse_priority)]
    pub priority: Option<u8>,
    /// New type.
    #[arg(short = 't', long = "type")]
    pub kind: Option<BeadType>,
    /// New assignee ("" clears it).
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Add a label (repeatable).
    #[arg(long = "add-label")]
    pub add_labels: Vec<String>,
    /// Remove a label (repeatable).
    #[arg(long = "remove-label")]
    pub remove_labels: Vec<String>,
    /// Claim it: in_progress and assigned to you, atomically; fails if someone else holds it.
    #[arg(long)]
    pub claim: bool,
    /// Where the claim is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Arguments of `close`.
#[derive(clap::Args, Debug)]
pub struct CloseArgs {
    /// The beads to close.
    #[arg(required = true)]
    pub ids: Vec<BeadId>,
    /// Why.
    #[arg(short, long)]
    pub reason: Option<String>,
}

/// Arguments of `reopen`.
#[derive(clap::Args, Debug)]
pub struct ReopenArgs {
    /// The beads to reopen.
    #[arg(required = true)]
    pub ids: Vec<BeadId>,
}

/// Arguments of `delete`.
#[derive(clap::Args, Debug)]
pub struct DeleteArgs {
    /// The beads to delete.
    #[arg(required = true)]
    pub ids: Vec<BeadId>,
    /// Why.
    #[arg(short, long)]
    pub reason: Option<String>,
}

/// Arguments of `release`.
#[derive(clap::Args, Debug)]
pub struct ReleaseArgs {
    /// The in-progress beads to give back.
    #[arg(required = true)]
    pub ids: Vec<BeadId>,
    /// Why (recorded in a comment on each bead, with who released it from whom).
    #[arg(short, long)]
    pub reason: Option<String>,
}

/// Reports what `verb` did to each bead, and which of them already were so.
fn report(out: &mut Out, edited: Vec<Edited>, verb: &str) -> Result<(), CliError> {
    if out.json {
        let beads: Vec<Bead> = edited.into_iter().map(|e| e.bead).collect();
        return out.json(&wire::Beads { beads: &beads });
    }
    for Edited { bead: b, changed } in &edited {
        if *changed {
            out.note(format!("{verb} {}: {}", b.id, b.title));
        } else {
            out.note(format!("{} is already {}", b.id, b.status));
        }
    }
    Ok(())
}

/// Runs `update`.
pub fn update(ctx: &Ctx, a: UpdateArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let changes = Changes {
        title: a.title,
        description: a.description,
        notes: a.notes,
        status: a.status,
        priority: a.priority,
        kind: a.kind,
        assignee: a.assignee,
        add_labels: a.add_labels,
        remove_labels: a.remove_labels,
        claim: a.claim,
    };
    let claim = changes.claim;
    a.at.only_with_claim(claim)?;
    let remote = if claim { a.at.remote(ctx, out)? } else { None };
    let Edited { bead, changed } = match remote {
        Some(remote) => ops::update_on(&ctx.store, &actor, &a.id, changes, &remote)?,
        None => ops::update(&ctx.store, &actor, &a.id, changes)?,
    };
    if out.json {
        return out.json(&wire::OneBead { bead: &bead });
    }
    out.note(match (changed, claim) {
        (true, true) => format!("claimed {}: {}", bead.id, bead.title),
        (true, false) => format!("updated {}: {}", bead.id, bead.title),
        (false, true) => format!("{} is already claimed by {}", bead.id, actor.id),
        (false, false) => format!("{} already has those values", bead.id),
    });
    Ok(())
}

/// Runs `close`.
pub fn close(ctx: &Ctx, a: CloseArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::close(&ctx.store, &actor, &a.ids, a.reason.as_deref())?;
    report(out, beads, "closed")
}

/// Runs `reopen`.
pub fn reopen(ctx: &Ctx, a: ReopenArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::reopen(&ctx.store, &actor, &a.ids)?;
    report(out, beads, "reopened")
}

/// Runs `delete`.
pub fn delete(ctx: &Ctx, a: DeleteArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::delete(&ctx.store, &actor, &a.ids, a.reason.as_deref())?;
    report(out, beads, "deleted")
}

/// Runs `release`.
pub fn release(ctx: &Ctx, a: ReleaseArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::release(&ctx.store, &actor, &a.ids, a.reason.as_deref())?;
    report(out, beads, "released")
}
