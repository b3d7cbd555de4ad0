//! `git beads dep add|remove|tree`.

use serde::Serialize;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Bead, BeadId, DepKind, Status};
use crate::ops::{self, DepNode};

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

#[derive(Serialize)]
struct One<'a> {
    bead: &'a Bead,
}

#[derive(Serialize)]
struct NodeJson<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<Status>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<DepKind>,
    depends_on: Vec<NodeJson<'a>>,
}

impl<'a> From<&'a DepNode> for NodeJson<'a> {
    fn from(n: &'a DepNode) -> Self {
        NodeJson {
            id: &n.id,
            title: n.title.as_deref(),
            status: n.status,
            kind: n.kind,
            depends_on: n.children.iter().map(NodeJson::from).collect(),
        }
    }
}

#[derive(Serialize)]
struct Tree<'a> {
    tree: NodeJson<'a>,
}

/// Runs `dep`.
pub fn run(ctx: &Ctx, cmd: DepCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        DepCommand::Add(a) => {
            let actor = ctx.actor()?;
            let kind = a.kind.unwrap_or(DepKind::Blocks);
            let bead = ops::add_dependency(&ctx.store, &actor, &a.id, &a.depends_on, kind)?;
            if out.json {
                return out.json(&One { bead: &bead });
            }
            out.note(format!("{} now depends on {} ({kind})", a.id, a.depends_on));
            Ok(())
        }
        DepCommand::Remove(a) => {
            let actor = ctx.actor()?;
            let bead = ops::remove_dependency(&ctx.store, &actor, &a.id, &a.depends_on, a.kind)?;
            if out.json {
                return out.json(&One { bead: &bead });
            }
            out.note(format!("{} no longer depends on {}", a.id, a.depends_on));
            Ok(())
        }
        DepCommand::Tree(a) => {
            let tree = ops::dep_tree(&ctx.store, &a.id)?;
            if out.json {
                return out.json(&Tree {
                    tree: NodeJson::from(&tree),
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
