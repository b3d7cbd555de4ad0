//! `git beads label add|remove|list|list-all`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// The verbs of `label`.
#[derive(clap::Subcommand, Debug)]
pub enum LabelCommand {
    /// Add a label to a bead.
    Add(EditArgs),
    /// Remove a label from a bead.
    Remove(EditArgs),
    /// List a bead's labels.
    List(ListArgs),
    /// List every label in use, with counts.
    ListAll,
}

/// Arguments of `label add` and `label remove`.
#[derive(clap::Args, Debug)]
pub struct EditArgs {
    /// The bead.
    pub id: BeadId,
    /// The label.
    pub label: String,
}

/// Arguments of `label list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// The bead.
    pub id: BeadId,
}

/// Runs `label`.
pub fn run(ctx: &Ctx, cmd: LabelCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        LabelCommand::Add(a) => edit(ctx, a, out, true),
        LabelCommand::Remove(a) => edit(ctx, a, out, false),
        LabelCommand::List(a) => {
            let bead = ops::show(&ctx.store, std::slice::from_ref(&a.id))?.remove(0);
            if out.json {
                return out.json_list(&wire::Labels(
                    bead.labels.iter().map(String::as_str).collect(),
                ));
            }
            for l in &bead.labels {
                out.line(l)?;
            }
            Ok(())
        }
        LabelCommand::ListAll => {
            let labels = ops::labels_all(&ctx.store)?;
            if out.json {
                return out.json_list(&wire::LabelCounts(
                    labels
                        .iter()
                        .map(|l| wire::LabelCount {
                            label: &l.label,
                            count: l.count,
                        })
                        .collect(),
                ));
            }
            for l in &labels {
                out.line(format!("{:<24} {}", l.label, l.count))?;
            }
            Ok(())
        }
    }
}

fn edit(ctx: &Ctx, a: EditArgs, out: &mut Out, add: bool) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ops::Edited { bead, changed } = if add {
        ops::add_label(&ctx.store, &actor, &a.id, &a.label)?
    } else {
        ops::remove_label(&ctx.store, &actor, &a.id, &a.label)?
    };
    super::touched(ctx, &bead.id);
    if out.json {
        return out.json(&wire::OneBead {
            bead: wire::Bead::plain(&bead),
        });
    }
    out.note(match (changed, add) {
        (true, true) => format!("added label {} to {}", a.label, a.id),
        (true, false) => format!("removed label {} from {}", a.label, a.id),
        (false, true) => format!("{} already has label {}", a.id, a.label),
        (false, false) => format!("{} already has no label {}", a.id, a.label),
    });
    Ok(())
}
