//! `git beads todo [add|list|done]`: bd's wrapper for task beads (`todo add` is
//! `create -t task`, `todo` and `todo list` list the open tasks, `todo done` closes).

use super::util::{cut_to, status_icon};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Bead, BeadType, Status};
use crate::ops::{self, ListFilter, NewBead};
use crate::wire;

/// Arguments of `todo`: a verb, or none to list.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to do (list, when none is given).
    #[command(subcommand)]
    pub verb: Option<TodoCommand>,
}

/// The verbs of `todo`.
#[derive(clap::Subcommand, Debug)]
pub enum TodoCommand {
    /// Add a task, assigned to you (`create TITLE -t task`).
    Add(AddArgs),
    /// List the open tasks (every task with --all), by priority.
    List(ListArgs),
    /// Close tasks (with the reason "Completed" unless given), in one commit.
    Done(DoneArgs),
}

/// Arguments of `todo add`.
#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// The title (its words are joined by spaces).
    #[arg(required = true, num_args = 1..)]
    pub title: Vec<String>,
    /// The priority, 0 (critical) … 4 (backlog).
    #[arg(short, long, default_value = "2")]
    pub priority: String,
    /// A description.
    #[arg(short, long, default_value = "")]
    pub description: String,
}

/// Arguments of `todo list`.
#[derive(clap::Args, Debug, Default)]
pub struct ListArgs {
    /// Closed tasks too.
    #[arg(long)]
    pub all: bool,
}

/// Arguments of `todo done`.
#[derive(clap::Args, Debug)]
pub struct DoneArgs {
    /// The tasks to close.
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Why ("Completed" unless given).
    #[arg(long)]
    pub reason: Option<String>,
}

/// Runs `todo`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    match a.verb {
        Some(TodoCommand::Add(a)) => add(ctx, a, out),
        Some(TodoCommand::List(a)) => list(ctx, &a, out),
        Some(TodoCommand::Done(a)) => done(ctx, a, out),
        None => list(ctx, &ListArgs::default(), out),
    }
}

fn add(ctx: &Ctx, a: AddArgs, out: &mut Out) -> Result<(), CliError> {
    let priority = super::parse_priority(&a.priority).map_err(CliError::user)?;
    let actor = ctx.actor()?;
    let new = NewBead {
        title: a.title.join(" "),
        description: a.description,
        kind: Some(BeadType::Task),
        priority: Some(priority),
        assignee: Some(actor.id.clone()),
        ..NewBead::default()
    };
    let bead = ops::create(&ctx.store, &actor, new)?;
    super::touched(ctx, &bead.id);
    if out.json {
        return out.json(&wire::Shorthand(wire::OneBead {
            bead: wire::Bead::plain(&bead),
        }));
    }
    out.line(format!("Created {}: {}", bead.id, bead.title))
}

fn list(ctx: &Ctx, a: &ListArgs, out: &mut Out) -> Result<(), CliError> {
    let filter = ListFilter {
        kinds: vec![BeadType::Task],
        statuses: if a.all { vec![] } else { vec![Status::Open] },
        all: a.all,
        ..ListFilter::default()
    };
    let listing = ops::list(&ctx.store, &filter)?;
    out.warn_broken(&listing.broken);
    let ids = listing
        .beads()
        .map(|b| crate::model::BeadId::parse(b.id()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError::user(e.to_string()))?;
    let mut beads: Vec<Bead> = ops::show(&ctx.store, &ids)?;
    beads.sort_by(|x, y| (x.priority, &x.id).cmp(&(y.priority, &y.id)));
    if out.json {
        let detailed = ops::detail(&ctx.store, beads)?;
        return out.json_list(&wire::Todos(wire::Beads::detailed(&detailed)));
    }
    if beads.is_empty() {
        return out.line("No TODOs found");
    }
    for b in &beads {
        out.line(format!(
            "  {} {}  {:<40}  P{}  {}",
            status_icon(b.status),
            b.id,
            cut_to(&b.title, 40, "..."),
            b.priority,
            b.status
        ))?;
    }
    out.line("")?;
    out.line(format!("Total: {} TODOs", beads.len()))
}

fn done(ctx: &Ctx, a: DoneArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ids = super::resolve_ids(ctx, &a.ids)?;
    let reason = a.reason.unwrap_or_else(|| "Completed".to_owned());
    let closed = ops::close(&ctx.store, &actor, &ids, Some(&reason))?;
    if out.json {
        return out.json(&wire::TodosDone {
            closed: closed.iter().map(|e| e.bead.id.as_str()).collect(),
            reason: &reason,
        });
    }
    for e in &closed {
        out.line(format!("Closed {}", e.bead.id))?;
    }
    Ok(())
}
