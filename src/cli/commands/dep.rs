//! `git beads dep add|remove|tree`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadId, DepKind};
use crate::ops::{self, DepNode};
use crate::wire;

/// The verbs of `dep`.
#[derive(clap::Subcommand, Debug)]
pub enum DepCommand {
    /// Make ID depend on DEPENDS_ON.
    Add(EdgeArgs),
    /// Remove the dependency of ID on DEPENDS_ON.
    Remove(EdgeArgs),
    /// Show what ID depends on, transitively.
    Tree(TreeArgs),
}

/// Arguments of `dep add` and `dep remove`.
#[derive(clap::Args, Debug)]
pub struct EdgeArgs {
    /// The dependent bead.
    pub id: BeadId,
    /// The bead it depends on.
    pub depends_on: BeadId,
    /// The kind of dependency (`dep remove`: every kind when unset).
    #[arg(short = 't', long = "type")]
    pub kind: Option<DepKind>,
}

/// Arguments of `dep tree`.
#[derive(clap::Args, Debug)]
pub struct TreeArgs {
    /// The root of the tree.
    pub id: BeadId,
}

/// Runs `dep`.
pub fn run(ctx: &Ctx, cmd: DepCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        DepCommand::Add(a) => {
            let actor = ctx.actor()?;
            let kind = a.kind.unwrap_or(DepKind::Blocks);
            let ops::Edited { bead, changed } =
                ops::add_dependency(&ctx.store, &actor, &a.id, &a.depends_on, kind)?;
            if out.json {
                return out.json(&wire::OneBead { bead: &bead });
            }
            let already = if changed { "now" } else { "already" };
            out.note(format!(
                "{} {already} depends on {} ({kind})",
                a.id, a.depends_on
            ));
            Ok(())
        }
        DepCommand::Remove(a) => {
            let actor = ctx.actor()?;
            let bead = ops::remove_dependency(&ctx.store, &actor, &a.id, &a.depends_on, a.kind)?;
            if out.json {
                return out.json(&wire::OneBead { bead: &bead });
            }
            out.note(format!("{} no longer depends on {}", a.id, a.depends_on));
            Ok(())
        }
        DepCommand::Tree(a) => {
            let tree = ops::dep_tree(&ctx.store, &a.id)?;
            if out.json {
                return out.json(&wire::DepTree {
                    tree: wire::Node::from(&tree),
                });
            }
            print_node(out, &tree, 0)
        }
    }
}

fn print_node(out: &mut Out, n: &DepNode, depth: usize) -> Result<(), CliError> {
    let kind = n.kind.map(|k| format!("[{k}] ")).unwrap_or_default();
    let status = n.status.map(|s| s.as_str()).unwrap_or("missing");
    let title = n.title.as_deref().unwrap_or("");
    out.line(format!(
        "{}{kind}{} ({status}) {title}",
        "  ".repeat(depth),
        n.id
    ))?;
    for c in &n.children {
        print_node(out, c, depth + 1)?;
    }
    Ok(())
}
