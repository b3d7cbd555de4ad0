//! `git beads set-state ID DIM=VALUE` and `state ID DIM` / `state list ID`: bd's
//! state dimensions, kept as labels `<dimension>:<value>`, each change recorded by an
//! event bead in the same commit.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire::{StateList, StateSet, StateValue};

/// Arguments of `state`: `ID DIMENSION`, or `list ID`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct StateArgs {
    /// `list ID`: every dimension of a bead.
    #[command(subcommand)]
    pub verb: Option<StateCommand>,
    /// The bead.
    #[arg(required = true)]
    pub id: Option<String>,
    /// The dimension (`patrol` of the label `patrol:active`).
    #[arg(required = true)]
    pub dimension: Option<String>,
}

/// The verb of `state`.
#[derive(clap::Subcommand, Debug)]
pub enum StateCommand {
    /// List every state dimension of a bead (its labels `<dimension>:<value>`).
    List(ListArgs),
}

/// Arguments of `state list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// The bead.
    pub id: String,
}

/// Arguments of `set-state`.
#[derive(clap::Args, Debug)]
pub struct SetArgs {
    /// The bead.
    pub id: String,
    /// `DIMENSION=VALUE`, such as `patrol=muted`.
    #[arg(value_name = "DIMENSION=VALUE")]
    pub state: String,
    /// Why (recorded in the event bead).
    #[arg(long)]
    pub reason: Option<String>,
}

/// Runs `state`.
pub fn state(ctx: &Ctx, a: StateArgs, out: &mut Out) -> Result<(), CliError> {
    if let Some(StateCommand::List(l)) = a.verb {
        return list(ctx, &l.id, out);
    }
    let (Some(id), Some(dimension)) = (a.id, a.dimension) else {
        return Err(CliError::new(
            crate::cli::error::Kind::Usage,
            "state needs a bead and a dimension",
        ));
    };
    let id = super::resolve_id(ctx, &id)?;
    let value = ops::state(&ctx.store, &id, &dimension)?;
    if out.json {
        return out.json(&StateValue {
            issue_id: id.as_str(),
            dimension: &dimension,
            value: value.as_deref(),
        });
    }
    out.line(match value {
        Some(v) => v,
        None => format!("(no {dimension} state set)"),
    })
}

fn list(ctx: &Ctx, id: &str, out: &mut Out) -> Result<(), CliError> {
    let id = super::resolve_id(ctx, id)?;
    let states = ops::states(&ctx.store, &id)?;
    if out.json {
        return out.json(&StateList {
            issue_id: id.as_str(),
            states: states
                .iter()
                .map(|(d, v)| (d.as_str(), v.as_str()))
                .collect(),
        });
    }
    if states.is_empty() {
        return out.line(format!("{id} has no state labels"));
    }
    out.line(format!("State for {id}:"))?;
    for (d, v) in &states {
        out.line(format!("  {d}: {v}"))?;
    }
    Ok(())
}

/// Runs `set-state`.
pub fn set(ctx: &Ctx, a: SetArgs, out: &mut Out) -> Result<(), CliError> {
    let Some((dimension, value)) = a
        .state
        .split_once('=')
        .filter(|(d, v)| !d.is_empty() && !v.is_empty())
    else {
        return Err(CliError::user(format!(
            "invalid state format {:?}, expected <dimension>=<value>",
            a.state
        )));
    };
    let actor = ctx.actor()?;
    let id = super::resolve_id(ctx, &a.id)?;
    let change = ops::set_state(
        &ctx.store,
        &actor,
        &id,
        (dimension, value),
        a.reason.as_deref(),
    )?;
    super::touched(ctx, &id);
    let Some(event) = &change.event else {
        if out.json {
            return out.json(&StateSet {
                issue_id: id.as_str(),
                dimension,
                value: Some(value),
                old_value: None,
                new_value: None,
                event_id: None,
                changed: false,
            });
        }
        return out.line(format!("(no change: {dimension} already set to {value})"));
    };
    if out.json {
        return out.json(&StateSet {
            issue_id: id.as_str(),
            dimension,
            value: None,
            old_value: Some(change.old.as_deref()),
            new_value: Some(value),
            event_id: Some(event.as_str()),
            changed: true,
        });
    }
    out.line(format!("Set {dimension} = {value} on {id}"))?;
    if let Some(old) = &change.old {
        out.line(format!("  Previous: {old}"))?;
    }
    out.line(format!("  Event: {event}"))
}
