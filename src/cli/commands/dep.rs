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
    /// List what beads depend on (or, `--direction up`, what depends on them), with
    /// the beads at the other end.
    ///
    /// With several ids and `--json`, the answer is bd's flat list of dependency
    /// records (`issue_id`, `depends_on_id`, `type`) of them all; an id the store does
    /// not have is then skipped with a warning, as bd skips it.
    List(ListArgs),
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

/// Which way `dep list` looks.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    /// What the bead depends on.
    #[default]
    Down,
    /// What depends on the bead.
    Up,
}

/// Arguments of `dep list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// The beads (an id without its prefix will do where it is unambiguous).
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Which way to look.
    #[arg(long, value_enum, default_value = "down")]
    pub direction: Direction,
    /// Only dependencies of this type (as bd compares it: a word that is no type
    /// keeps none).
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    pub kind: Option<String>,
}

/// Arguments of `dep tree`.
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
            let (id, on, kind, ops::Edited { bead, changed }) = add(ctx, &a)?;
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
        DepCommand::List(a) => list(ctx, a, out),
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

/// Runs `dep list`.
fn list(ctx: &Ctx, a: ListArgs, out: &mut Out) -> Result<(), CliError> {
    let keeps = |k: DepKind| a.kind.as_deref().is_none_or(|t| t == k.as_str());
    if a.ids.len() > 1 && a.direction == Direction::Down && out.json {
        return records(ctx, &a.ids, keeps, out);
    }
    let mut shown = Vec::new();
    for given in &a.ids {
        let id = super::resolve_id(ctx, given)?;
        let bead = ops::show(&ctx.store, std::slice::from_ref(&id))?;
        match a.direction {
            Direction::Down => shown.extend(
                ops::detail(&ctx.store, bead)?
                    .into_iter()
                    .map(|d| (id.clone(), Links::Down(Box::new(d)))),
            ),
            Direction::Up => {
                shown.push((id.clone(), Links::Up(ops::dependents_of(&ctx.store, &id)?)))
            }
        }
    }
    let linked = shown.iter().flat_map(|(_, links)| links.linked());
    let linked: Vec<wire::Linked<'_>> = linked.filter(|l| keeps(l.kind())).collect();
    if out.json {
        return out.json_list(&wire::DepList(linked));
    }
    for (id, links) in &shown {
        let lines = links.lines(&keeps);
        if lines.is_empty() {
            out.note(match links {
                Links::Down(_) => format!("{id} has no dependencies"),
                Links::Up(_) => format!("no beads depend on {id}"),
            });
        }
        for line in lines {
            out.line(line)?;
        }
    }
    Ok(())
}

/// bd's flat list of dependency records of several beads (those the store has;
/// the others are skipped with a warning, as bd skips them).
fn records(
    ctx: &Ctx,
    given: &[String],
    keeps: impl Fn(DepKind) -> bool,
    out: &mut Out,
) -> Result<(), CliError> {
    let mut beads = Vec::new();
    for g in given {
        match super::resolve_id(ctx, g).and_then(|id| Ok(ops::show(&ctx.store, &[id])?)) {
            Ok(found) => beads.extend(found),
            Err(e) => crate::cli::output::warn(format!("warning: {g}: {} (skipped)", e.message)),
        }
    }
    let records: Vec<wire::DepRecord<'_>> = beads
        .iter()
        .flat_map(|b| {
            let inside = b.dependencies.iter().map(|d| (d.id.as_str(), d.kind));
            let outside = b.external.iter().map(|d| (d.id.as_str(), d.kind));
            inside
                .chain(outside)
                .map(move |(on, kind)| (b.id.as_str(), on, kind))
        })
        .filter(|(_, _, kind)| keeps(*kind))
        .map(|(id, on, kind)| wire::DepRecord::new(id, on, kind))
        .collect();
    out.json_list(&wire::DepRecords(records))
}

/// What `dep list` found for one bead.
enum Links {
    /// What it depends on.
    Down(Box<ops::Detailed>),
    /// What depends on it.
    Up(Vec<(ops::Summary, DepKind)>),
}

impl Links {
    /// The beads linked, as bd's `dep list --json` prints them.
    fn linked(&self) -> Vec<wire::Linked<'_>> {
        match self {
            Links::Down(d) => wire::linked(d),
            Links::Up(found) => found
                .iter()
                .map(|(s, kind)| wire::Linked::new(&s.id, Some(s), *kind))
                .collect(),
        }
    }

    /// One line per bead linked by a kind `keeps` keeps.
    fn lines(&self, keeps: &impl Fn(DepKind) -> bool) -> Vec<String> {
        match self {
            Links::Down(d) => {
                let inside = d.bead.dependencies.iter().zip(&d.targets).map(|(dep, t)| {
                    let title = t.as_ref().map_or("(missing)", |t| t.title.as_str());
                    (dep.kind, format!("{} [{}] {title}", dep.id, dep.kind))
                });
                let outside = d.bead.external.iter().map(|dep| {
                    (
                        dep.kind,
                        format!("{} [{}] (another project)", dep.id, dep.kind),
                    )
                });
                inside
                    .chain(outside)
                    .filter(|(k, _)| keeps(*k))
                    .map(|(_, l)| l)
                    .collect()
            }
            Links::Up(found) => found
                .iter()
                .filter(|(_, k)| keeps(*k))
                .map(|(s, k)| format!("{} [{k}] {}", s.id, s.title))
                .collect(),
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

/// Adds the dependency `a` names (`blocks` unless it gives a kind), in the store of
/// another rig of the town when the bead depended on lives there (by its id, bd's
/// way): the two ends, the kind, and the dependent bead as it now is.
pub(super) fn add(
    ctx: &Ctx,
    a: &EdgeArgs,
) -> Result<(BeadId, DepTarget, DepKind, ops::Edited), CliError> {
    let actor = ctx.actor()?;
    let kind = a.kind.unwrap_or(DepKind::Blocks);
    let (id, on) = edge(ctx, a)?;
    let rig = match &on {
        DepTarget::Bead(on) if !ops::holds(&ctx.store, on)? => {
            ops::routed_store(&ctx.store, on.as_str())?.map(|rig| (rig, on))
        }
        _ => None,
    };
    let edited = match rig {
        Some((rig, on)) => ops::add_rig_dependency(&ctx.store, &rig, &actor, (&id, on, kind))?,
        None => ops::add_dependency(&ctx.store, &actor, &id, &on, kind)?,
    };
    Ok((id, on, kind, edited))
}

/// The two ends of `a` as this clone names them: an id a merge renumbered away from
/// a bead minted here names that bead (see [`ops::resolve_id`]).
fn edge(ctx: &Ctx, a: &EdgeArgs) -> Result<(BeadId, DepTarget), CliError> {
    Ok((
        super::resolve_id(ctx, a.id.as_str())?,
        super::resolve_target(ctx, &a.depends_on)?,
    ))
}
