//! `git beads create`.

use super::{parse_dep, parse_priority};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadId, BeadType, Dependency};
use crate::ops::{self, NewBead};
use crate::wire;

/// Arguments of `create`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The title.
    pub title: String,
    /// The description.
    #[arg(short, long)]
    pub description: Option<String>,
    /// The type.
    #[arg(short = 't', long = "type", default_value = "task")]
    pub kind: BeadType,
    /// The priority, 0 (critical) … 4 (backlog).
    #[arg(short, long, value_parser = parse_priority, default_value = "2")]
    pub priority: u8,
    /// Who works on it.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// A label (repeatable).
    #[arg(short, long = "label")]
    pub labels: Vec<String>,
    /// Make it the next child of this bead (its id becomes `<parent>.<n>`).
    #[arg(long)]
    pub parent: Option<BeadId>,
    /// Dependencies: `ID` (blocks) or `KIND:ID`, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_dep)]
    pub deps: Vec<Dependency>,
}

/// Runs `create`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let bead = ops::create(
        &ctx.store,
        &actor,
        NewBead {
            title: args.title,
            description: args.description.unwrap_or_default(),
            kind: Some(args.kind),
            priority: Some(args.priority),
            assignee: args.assignee,
            labels: args.labels,
            parent: args.parent,
            dependencies: args.deps,
        },
    )?;
    if out.json {
        return out.json(&wire::OneBead { bead: &bead });
    }
    out.line(bead.id.as_str())
}
