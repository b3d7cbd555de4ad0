//! `git beads mol …`: pour formulas into molecules (or wisps), follow their steps,
//! squash and burn them; one file per verb (`pour` and `wisp` share one).

mod bond;
mod burn;
mod current;
mod list;
mod pour;
mod progress;
mod seed;
mod squash;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;

pub use current::CurrentArgs;
pub use list::ListArgs;
pub use pour::{PourArgs, parse_var, vars_of};

/// The verbs of `mol`.
#[derive(clap::Subcommand, Debug)]
pub enum MolCommand {
    /// Pour a formula into a molecule, in one commit, and print the molecule's id.
    ///
    /// Makes the molecule bead (type molecule) and one bead per step, ID.1, ID.2, …,
    /// each after the steps it needs, with parent-child links to the molecule and
    /// blocks links from the formula's needs.
    Pour(PourArgs),
    /// Pour a formula into a wisp: a molecule kept on this machine only.
    ///
    /// Wisps live in refs/beads/local/wisps, which sync never pushes; their ids read
    /// PREFIX-wisp-HASH. Work them like molecules (mol current, close), then squash
    /// them into a one-bead summary in the shared store, or burn them.
    Wisp(WispArgs),
    /// Show the step(s) of a molecule that can be worked now, in full.
    Current(CurrentArgs),
    /// Show how far a molecule has come: steps done, steps in all, each step's state.
    Progress(IdArgs),
    /// List molecules and wisps with their progress (unfinished ones unless --all).
    List(ListArgs),
    /// Turn a finished molecule or wisp into a one-bead summary.
    ///
    /// A molecule becomes its own summary and its steps become tombstones; a wisp's
    /// summary is a new bead in refs/beads/main and the wisp is removed from the wisp
    /// ref. Prints the summary's id.
    Squash(IdArgs),
    /// Discard a wisp and its steps, finished or not.
    Burn(IdArgs),
    /// Bond a formula to a molecule or a step, or two molecules, in one commit.
    ///
    /// A formula and a bead: the formula is poured and its molecule bonded to the
    /// bead; bonded to a step, it is one of the step's children, which the steps that
    /// wait for that step's children (waits_for) wait for too. Two beads: the second is
    /// bonded to the first. Sequential bonds wait for what they are bonded to;
    /// parallel ones run alongside, as its children. Two formulas are refused.
    Bond(bond::BondArgs),
    /// Check that a formula can be found and cooked (bd's `mol seed`), writing nothing:
    /// what a spawner runs before it pours.
    Seed(seed::SeedArgs),
}

/// Arguments of `mol wisp`: a formula to pour as a wisp, or one of bd's verbs.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct WispArgs {
    /// bd's verbs of `mol wisp` (a formula of one of their names is poured with
    /// `mol wisp create`).
    #[command(subcommand)]
    pub verb: Option<WispVerb>,
    /// The formula to pour.
    #[command(flatten)]
    pub pour: Option<PourArgs>,
}

/// bd's verbs of `mol wisp`.
#[derive(clap::Subcommand, Debug)]
pub enum WispVerb {
    /// Pour a formula into a wisp (the same as `mol wisp FORMULA`).
    Create(PourArgs),
    /// List the wisps: unfinished ones, every one with --all (`--json`: bd's
    /// `{"wisps": [...], "count": N}`).
    List(WispListArgs),
    /// Delete abandoned wisps: unfinished ones not changed for --age (1h), with the
    /// wisps that depend on them; the wisp ref is then rewritten without its history.
    Gc(crate::cli::commands::purge::GcArgs),
}

/// Arguments of `mol wisp list`.
#[derive(clap::Args, Debug)]
pub struct WispListArgs {
    /// Finished wisps too.
    #[arg(long)]
    pub all: bool,
}

/// Runs `mol wisp list`.
fn wisps(ctx: &Ctx, a: WispListArgs, out: &mut Out) -> Result<(), CliError> {
    let found = crate::ops::list_wisps(&ctx.store, a.all)?;
    if out.json {
        return out.json(&crate::wire::WispList::new(&found, chrono::Utc::now()));
    }
    if found.is_empty() {
        out.note("no wisps");
    }
    for b in &found {
        out.line(format!("{}  [{}] {}", b.id, b.status, b.title))?;
    }
    Ok(())
}

/// Arguments of the verbs that take one molecule.
#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// The molecule or wisp (looked for in refs/beads/main, then among the wisps).
    pub id: BeadId,
}

/// Runs `mol`.
pub fn run(ctx: &Ctx, cmd: MolCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        MolCommand::Pour(a) => pour::run(ctx, a, false, out),
        MolCommand::Wisp(WispArgs {
            verb: Some(WispVerb::List(a)),
            ..
        }) => wisps(ctx, a, out),
        MolCommand::Wisp(WispArgs {
            verb: Some(WispVerb::Gc(a)),
            ..
        }) => crate::cli::commands::purge::gc(ctx, a, out),
        MolCommand::Wisp(WispArgs {
            verb: Some(WispVerb::Create(a)),
            ..
        }) => pour::run(ctx, a, true, out),
        MolCommand::Wisp(WispArgs { pour: Some(a), .. }) => pour::run(ctx, a, true, out),
        MolCommand::Wisp(WispArgs { pour: None, .. }) => Err(CliError::new(
            crate::cli::error::Kind::Usage,
            "mol wisp needs a formula (or a verb: create, list, gc)",
        )),
        MolCommand::Current(a) => current::run(ctx, a, out),
        MolCommand::Progress(a) => progress::run(ctx, a, out),
        MolCommand::List(a) => list::run(ctx, a, out),
        MolCommand::Squash(a) => squash::run(ctx, a, out),
        MolCommand::Burn(a) => burn::run(ctx, a, out),
        MolCommand::Bond(a) => bond::run(ctx, a, out),
        MolCommand::Seed(a) => seed::run(ctx, a, out),
    }
}
