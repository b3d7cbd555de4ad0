//! `git beads show`.

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::{self, Out},
};
use crate::ops;

/// Arguments of `show`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The beads to show (an id without its prefix will do where it is unambiguous);
    /// none: the bead last touched in this worktree.
    pub ids: Vec<String>,
    /// Show what you are working on: the beads in progress assigned to you, else the
    /// bead last touched in this worktree.
    #[arg(long, conflicts_with = "ids")]
    pub current: bool,
    /// One line per bead, as `list` prints it.
    #[arg(long)]
    pub short: bool,
    /// Show the beads' descendants instead, as `children` lists them.
    #[arg(long)]
    pub children: bool,
    /// Show a deleted bead's tombstone too (without it, a deleted bead is not found,
    /// as in bd).
    #[arg(long, visible_alias = "deleted")]
    pub all: bool,
}

/// Runs `show`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let ids = match args.current {
        true => current(ctx)?,
        false => super::ids_or_last(ctx, &args.ids)?,
    };
    if args.children {
        for id in &ids {
            super::list::children(
                ctx,
                super::list::ChildrenArgs {
                    id: id.to_string(),
                    select: super::list::SelectArgs::default(),
                    status: super::list::StatusArgs::default(),
                },
                out,
            )?;
        }
        return Ok(());
    }
    let beads = ops::show(&ctx.store, &ids)?;
    // A deleted bead is not found, as in bd; one renamed away still answers, saying
    // where it went.
    let deleted = |b: &&crate::model::Bead| {
        b.status == crate::model::Status::Deleted && !b.extra.contains_key(ops::RENAMED_TO)
    };
    if !args.all
        && let Some(gone) = beads.iter().find(deleted)
    {
        return Err(CliError::new(
            Kind::NotFound,
            format!("no issue found: {} is deleted", gone.id),
        )
        .hint(format!("`show --deleted {}` shows its tombstone", gone.id)));
    }
    if let Some(first) = ids.first() {
        super::touched(ctx, first);
    }
    if out.json {
        return super::print_beads(ctx, out, beads);
    }
    if args.short {
        let filter = ops::ListFilter {
            all: true,
            ..ops::ListFilter::default()
        };
        let listing = ops::list(&ctx.store, &filter)?;
        let width = output::id_column(ids.iter().map(|id| id.as_str()));
        for id in &ids {
            if let Some(row) = listing.beads().find(|r| r.id() == id.as_str()) {
                out.summary_line(&row, width)?;
            }
        }
        return Ok(());
    }
    for (i, b) in ops::detail(&ctx.store, beads)?.iter().enumerate() {
        if i > 0 {
            out.line("")?;
        }
        out.bead(b)?;
    }
    Ok(())
}

/// The beads in progress (or on the hook) assigned to the actor, most important
/// first; else the bead last touched in this worktree (bd's order).
fn current(ctx: &Ctx) -> Result<Vec<crate::model::BeadId>, CliError> {
    let actor = ctx.actor()?;
    let filter = ops::ListFilter {
        statuses: vec![
            crate::model::Status::InProgress,
            crate::model::Status::Hooked,
        ],
        assignee: Some(actor.id),
        ..ops::ListFilter::default()
    };
    let listing = ops::list(&ctx.store, &filter)?;
    let ids: Vec<_> = listing
        .beads()
        .filter_map(|b| crate::model::BeadId::parse(b.id()).ok())
        .collect();
    match ids.is_empty() {
        true => super::ids_or_last(ctx, &[]),
        false => Ok(ids),
    }
}
