//! `git beads assign`, `tag` and `priority`: bd's shorthands for one field of
//! `update`, with its checks, one commit each, and nothing written when the bead
//! already has the value.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self, Changes, Edited};
use crate::wire;

/// Arguments of `assign`.
#[derive(clap::Args, Debug)]
pub struct AssignArgs {
    /// The bead (an id without its prefix will do where it is unambiguous).
    pub id: String,
    /// Who works on it ("" unassigns it).
    pub name: String,
}

/// Arguments of `tag`.
#[derive(clap::Args, Debug)]
pub struct TagArgs {
    /// The bead.
    pub id: String,
    /// The label to add.
    pub label: String,
}

/// Arguments of `priority`.
#[derive(clap::Args, Debug)]
pub struct PriorityArgs {
    /// The bead.
    pub id: String,
    /// The priority: 0 (critical) … 4 (backlog), or P0 … P4.
    pub priority: String,
}

/// Runs `assign` (`update ID --assignee NAME`).
pub fn assign(ctx: &Ctx, a: AssignArgs, out: &mut Out) -> Result<(), CliError> {
    let changes = Changes {
        assignee: Some(a.name.clone()),
        ..Changes::default()
    };
    let Edited { bead, changed } = one(ctx, &a.id, changes)?;
    if out.json {
        return print(out, &bead);
    }
    out.note(match (changed, a.name.as_str()) {
        (true, "") => format!("unassigned {}: {}", bead.id, bead.title),
        (true, name) => format!("assigned {} to {name}: {}", bead.id, bead.title),
        (false, "") => format!("{} is already unassigned", bead.id),
        (false, name) => format!("{} is already assigned to {name}", bead.id),
    });
    Ok(())
}

/// Runs `tag` (`update ID --add-label LABEL`).
pub fn tag(ctx: &Ctx, a: TagArgs, out: &mut Out) -> Result<(), CliError> {
    let changes = Changes {
        add_labels: vec![a.label.clone()],
        ..Changes::default()
    };
    let Edited { bead, changed } = one(ctx, &a.id, changes)?;
    if out.json {
        return print(out, &bead);
    }
    out.note(match changed {
        true => format!("added label {} to {}: {}", a.label, bead.id, bead.title),
        false => format!("{} already has label {}", bead.id, a.label),
    });
    Ok(())
}

/// Runs `priority` (`update ID --priority N`). A priority out of range is refused
/// with exit 1, as bd refuses it.
pub fn priority(ctx: &Ctx, a: PriorityArgs, out: &mut Out) -> Result<(), CliError> {
    let p = super::parse_priority(&a.priority).map_err(CliError::user)?;
    let changes = Changes {
        priority: Some(p),
        ..Changes::default()
    };
    let Edited { bead, changed } = one(ctx, &a.id, changes)?;
    if out.json {
        return print(out, &bead);
    }
    out.note(match changed {
        true => format!("set priority of {} to P{p}: {}", bead.id, bead.title),
        false => format!("{} already has priority P{p}", bead.id),
    });
    Ok(())
}

/// Makes `changes` to the bead `given` names, as `update` makes them, and remembers
/// it as the bead last touched.
fn one(ctx: &Ctx, given: &str, changes: Changes) -> Result<Edited, CliError> {
    let actor = ctx.actor()?;
    let id = super::resolve_id(ctx, given)?;
    let edited = ops::update(&ctx.store, &actor, std::slice::from_ref(&id), changes)?;
    super::touched(ctx, &id);
    edited
        .into_iter()
        .next()
        .ok_or_else(|| CliError::user(format!("{id} was not changed")))
}

/// Prints the bead as bd's shorthands print it: one object.
fn print(out: &mut Out, bead: &crate::model::Bead) -> Result<(), CliError> {
    out.json(&wire::Shorthand(wire::OneBead {
        bead: wire::Bead::plain(bead),
    }))
}
