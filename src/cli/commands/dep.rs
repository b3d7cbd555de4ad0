//! `git beads dep add|remove|tree|list|cycles|relate`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadId, DepKind, DepTarget};
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
    /// List what ID depends on, with the beads depended on.
    List(TreeArgs),
    /// Find cycles of blocking dependencies (only sync or import can bring one).
    Cycles,
    /// Link two beads both ways as related (bd's `relates-to`), in one commit.
    Relate(RelateArgs),
}

/// Arguments of `dep relate`.
#[derive(clap::Args, Debug)]
pub struct RelateArgs {
    /// One bead.
    pub a: String,
    /// The other.
    pub b: String,
}

/// Arguments of `dep add` and `dep remove`.
#[derive(clap::Args, Debug)]
pub struct EdgeArgs {
    /// The dependent bead.
    pub id: BeadId,
    /// The bead it depends on, or an item of another project as bd writes it:
    /// `external:<project>:<id>` (a blocking one stays unresolved: the bead is not
    /// ready until it is removed).
    pub depends_on: String,
    /// The kind of dependency (`dep remove`: every kind when unset).
    #[arg(short = 't', long = "type")]
    pub kind: Option<DepKind>,
}

/// Arguments of `dep tree` and `dep list`.
#[derive(clap::Args, Debug)]
pub struct TreeArgs {
    /// The bead (an id without its prefix will do where it is unambiguous).
    pub id: String,
}

/// Runs `dep`.
pub fn run(ctx: &Ctx, cmd: DepCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        DepCommand::Relate(a) => {
            let actor = ctx.actor()?;
            let (one, other) = (super::resolve_id(ctx, &a.a)?, super::resolve_id(ctx, &a.b)?);
            let edited = ops::relate(&ctx.store, &actor, &one, &other)?;
            if out.json {
                let beads = edited.into_iter().map(|e| e.bead).collect();
                return super::print_beads(ctx, out, beads);
            }
            out.note(format!("{one} and {other} are related"));
            Ok(())
        }
        DepCommand::Add(a) => {
            let actor = ctx.actor()?;
            let kind = a.kind.unwrap_or(DepKind::Blocks);
            let (id, on) = edge(ctx, &a)?;
            let ops::Edited { bead, changed } =
                ops::add_dependency(&ctx.store, &actor, &id, &on, kind)?;
            if out.json {
                return out.json(&wire::OneBead {
                    bead: wire::Bead::plain(&bead),
                });
            }
            let already = if changed { "now" } else { "already" };
            out.note(format!("{id} {already} depends on {on} ({kind})"));
            Ok(())
        }
        DepCommand::Remove(a) => {
            let actor = ctx.actor()?;
            let (id, on) = edge(ctx, &a)?;
            let bead = ops::remove_dependency(&ctx.store, &actor, &id, &on, a.kind)?;
            if out.json {
                return out.json(&wire::OneBead {
                    bead: wire::Bead::plain(&bead),
                });
            }
            out.note(format!("{id} no longer depends on {on}"));
            Ok(())
        }
        DepCommand::List(a) => {
            let id = super::resolve_id(ctx, &a.id)?;
            let bead = ops::show(&ctx.store, std::slice::from_ref(&id))?;
            let detailed = ops::detail(&ctx.store, bead)?;
            if out.json {
                return out.json_list(&wire::DepList(wire::linked(&detailed[0])));
            }
            for (d, t) in detailed[0]
                .bead
                .dependencies
                .iter()
                .zip(&detailed[0].targets)
            {
                let title = t.as_ref().map_or("(missing)", |t| t.title.as_str());
                out.line(format!("{} [{}] {title}", d.id, d.kind))?;
            }
            for d in &detailed[0].bead.external {
                out.line(format!("{} [{}] (another project)", d.id, d.kind))?;
            }
            Ok(())
        }
        DepCommand::Cycles => {
            let (cycles, broken) = ops::dep_cycles(&ctx.store)?;
            out.warn_broken(&broken);
            if out.json {
                return out.json_list(&wire::DepCycles(&cycles));
            }
            for c in &cycles {
                out.line(c.join(" → "))?;
            }
            if cycles.is_empty() {
                out.note("no dependency cycles");
            }
            Ok(())
        }
        DepCommand::Tree(a) => {
            let id = super::resolve_id(ctx, &a.id)?;
            let tree = ops::dep_tree(&ctx.store, &id)?;
            if out.json {
                let mut ids = Vec::new();
                held(&tree, &mut ids)?;
                let beads = ops::show(&ctx.store, &ids)?;
                return out.json_list(&wire::DepTree::new(&tree, &beads));
            }
            print_node(out, &tree, 0)
        }
    }
}

/// The ids of the beads of tree `n` that the store holds (each node is expanded
/// once, so a bead seldom comes twice).
fn held(n: &DepNode, ids: &mut Vec<BeadId>) -> Result<(), CliError> {
    if n.status.is_some() {
        ids.push(BeadId::parse(&n.id).map_err(ops::OpError::from)?);
    }
    n.children.iter().try_for_each(|c| held(c, ids))
}

fn print_node(out: &mut Out, n: &DepNode, depth: usize) -> Result<(), CliError> {
    let kind = n.kind.map(|k| format!("[{k}] ")).unwrap_or_default();
    let status = n
        .status
        .map_or_else(|| "missing".to_owned(), |s| s.to_string());
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

/// The two ends of `a` as this clone names them: an id a merge renumbered away from
/// a bead minted here names that bead (see [`ops::resolve_id`]).
fn edge(ctx: &Ctx, a: &EdgeArgs) -> Result<(BeadId, DepTarget), CliError> {
    Ok((
        super::resolve_id(ctx, a.id.as_str())?,
        super::resolve_target(ctx, &a.depends_on)?,
    ))
}
