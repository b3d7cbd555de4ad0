//! `git beads mol …`: pour formulas into molecules (or wisps), follow their steps,
//! squash and burn them.

use std::collections::BTreeMap;

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::BeadId;
use crate::ops::{self, PourOptions, Progress};
use crate::wire;

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
    Wisp(PourArgs),
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
}

/// Arguments of `mol pour` and `mol wisp`.
#[derive(clap::Args, Debug)]
pub struct PourArgs {
    /// The formula's name, or the path of a formula file.
    pub formula: String,
    /// A variable's value (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Who works on the molecule and its steps.
    #[arg(short, long, value_name = "AGENT")]
    pub assignee: Option<String>,
}

/// Arguments of `mol current`.
#[derive(clap::Args, Debug)]
pub struct CurrentArgs {
    /// The molecule or wisp (default: the molecule on the acting agent's hook).
    pub id: Option<BeadId>,
}

/// Arguments of the verbs that take one molecule.
#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// The molecule or wisp (looked for in refs/beads/main, then among the wisps).
    pub id: BeadId,
}

/// Arguments of `mol list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Include finished molecules.
    #[arg(long)]
    pub all: bool,
}

/// Parses `NAME=VALUE`.
pub fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
        _ => Err(format!("{s:?} is not NAME=VALUE")),
    }
}

/// Runs `mol`.
pub fn run(ctx: &Ctx, cmd: MolCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        MolCommand::Pour(a) => pour(ctx, a, false, out),
        MolCommand::Wisp(a) => pour(ctx, a, true, out),
        MolCommand::Current(a) => current(ctx, a, out),
        MolCommand::Progress(a) => {
            let p = ops::molecule_progress(&ctx.store, &a.id)?;
            if out.json {
                return out.json(&wire::MoleculeProgress { progress: &p });
            }
            print_progress(out, &p)
        }
        MolCommand::List(a) => {
            let all = ops::list_molecules(&ctx.store, a.all)?;
            if out.json {
                return out.json(&wire::Molecules { molecules: &all });
            }
            if all.is_empty() {
                out.note("no molecules");
            }
            for p in &all {
                out.line(format!(
                    "{:<16} {:>3}/{:<3} {:<11} {}{}",
                    p.molecule,
                    p.done,
                    p.total,
                    p.status.as_str(),
                    p.title,
                    if p.wisp { "  (wisp)" } else { "" }
                ))?;
            }
            Ok(())
        }
        MolCommand::Squash(a) => {
            let s = ops::squash(&ctx.store, &ctx.actor()?, &a.id)?;
            if out.json {
                return out.json(&wire::Squashed::from(&s));
            }
            out.line(s.summary.id.as_str())?;
            out.note(format!(
                "squashed {} {} ({} steps) into {}: {}",
                if s.wisp { "wisp" } else { "molecule" },
                s.from,
                s.steps,
                s.summary.id,
                s.summary.title
            ));
            Ok(())
        }
        MolCommand::Burn(a) => {
            let b = ops::burn(&ctx.store, &ctx.actor()?, &a.id)?;
            if out.json {
                return out.json(&wire::Burned::from(&b));
            }
            out.note(format!(
                "burned wisp {}: {} ({} steps)",
                b.molecule, b.title, b.steps
            ));
            Ok(())
        }
    }
}

fn pour(ctx: &Ctx, a: PourArgs, wisp: bool, out: &mut Out) -> Result<(), CliError> {
    let mut vars = BTreeMap::new();
    for (k, v) in a.vars {
        if vars.insert(k.clone(), v).is_some() {
            return Err(CliError::user(format!("--var {k} is given more than once")));
        }
    }
    let found = ops::find_formula(&ctx.store, &a.formula)?;
    let opts = PourOptions {
        vars,
        assignee: a.assignee,
        wisp,
    };
    let poured = ops::pour(&ctx.store, &ctx.actor()?, &found, &opts)?;
    if out.json {
        return out.json(&wire::Poured::from(&poured));
    }
    out.line(poured.molecule.id.as_str())?;
    out.note(format!(
        "poured {} into {}{} ({} steps): {}",
        found.formula.name,
        if wisp { "wisp " } else { "" },
        poured.molecule.id,
        poured.steps.len(),
        poured.molecule.title
    ));
    if wisp {
        out.note("the wisp is kept on this machine only; squash or burn it when done");
    }
    Ok(())
}

fn current(ctx: &Ctx, a: CurrentArgs, out: &mut Out) -> Result<(), CliError> {
    let c = ops::current(&ctx.store, &ctx.actor()?, a.id.as_ref())?;
    if out.json {
        return out.json(&wire::Current::from(&c));
    }
    let p = &c.progress;
    out.line(format!(
        "{}  {} — {}; {}/{} done",
        p.molecule, p.title, c.position, p.done, p.total
    ))?;
    if c.steps.is_empty() {
        if p.done < p.total {
            out.line("Nothing can be worked now: the unfinished steps wait on others.")?;
        }
        return Ok(());
    }
    out.line("Now:")?;
    for s in &c.steps {
        out.line(format!("  {}  {} [{}]", s.id, s.title, s.status))?;
        for l in s.description.lines() {
            out.line(format!("    {l}"))?;
        }
        if let Some(acc) = s.extra.get(ops::ACCEPTANCE_KEY).and_then(|v| v.as_str()) {
            out.line(format!("    acceptance: {acc}"))?;
        }
    }
    let ids: Vec<&str> = c.steps.iter().map(|s| s.id.as_str()).collect();
    out.line(format!(
        "When a step is done: `git beads close {}`.",
        ids.first().copied().unwrap_or_default()
    ))
}

/// Prints a molecule's progress: a header, then one line per step.
pub fn print_progress(out: &mut Out, p: &Progress) -> Result<(), CliError> {
    out.line(format!(
        "{}  {} [{}]{}",
        p.molecule,
        p.title,
        p.status,
        if p.wisp { " (wisp)" } else { "" }
    ))?;
    let position = p.position();
    out.line(format!("  {}/{} done — {position}", p.done, p.total))?;
    for s in &p.steps {
        out.line(format!("  {}", render::step_line(s)))?;
    }
    Ok(())
}
