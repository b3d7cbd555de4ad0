//! `git beads update`, `close`, `reopen` and `delete`.

use super::parse_priority;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Bead, BeadId, BeadType, Status};
use crate::ops::{self, Changes};
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

fn report(out: &mut Out, beads: &[Bead], verb: &str) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::Beads { beads });
    }
    for b in beads {
        out.note(format!("{verb} {}: {}", b.id, b.title));
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
    let bead = ops::update(&ctx.store, &actor, &a.id, changes)?;
    if out.json {
        return out.json(&wire::OneBead { bead: &bead });
    }
    out.note(format!(
        "{} {}: {}",
        if claim { "claimed" } else { "updated" },
        bead.id,
        bead.title
    ));
    Ok(())
}

/// Runs `close`.
pub fn close(ctx: &Ctx, a: CloseArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::close(&ctx.store, &actor, &a.ids, a.reason.as_deref())?;
    report(out, &beads, "closed")
}

/// Runs `reopen`.
pub fn reopen(ctx: &Ctx, a: ReopenArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::reopen(&ctx.store, &actor, &a.ids)?;
    report(out, &beads, "reopened")
}

/// Runs `delete`.
pub fn delete(ctx: &Ctx, a: DeleteArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let beads = ops::delete(&ctx.store, &actor, &a.ids, a.reason.as_deref())?;
    report(out, &beads, "deleted")
}
