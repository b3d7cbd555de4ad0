//! `git beads mol pour` and `mol wisp`.

use std::collections::BTreeMap;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops::{self, BondKind, PourOptions};
use crate::wire;

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
    /// Make only the molecule bead; its steps stay in its checklist, which prime shows
    /// (bd's --root-only; a formula with `pour = false` is poured so anyway).
    #[arg(long = "root-only")]
    pub root_only: bool,
    /// A formula to pour with it and bond to it, in the same commit (repeatable); each
    /// is given the variables it declares.
    #[arg(long, value_name = "FORMULA")]
    pub attach: Vec<String>,
    /// How the attached formulas are bonded: sequential (after it), parallel (as its
    /// children) or conditional (only if it fails).
    #[arg(long = "attach-type", value_enum, default_value = "sequential")]
    pub attach_type: BondType,
}

/// How a bond links its molecules (bd's bond types).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum BondType {
    /// The bonded molecule waits for the other to finish.
    Sequential,
    /// The bonded molecule runs alongside, as the other's child.
    Parallel,
    /// The bonded molecule runs only if the other fails: it is ready once the other is
    /// closed with a reason that says it failed (failed, rejected, wontfix, canceled,
    /// abandoned, error, timeout …), and stays blocked when it succeeds.
    Conditional,
}

impl From<BondType> for BondKind {
    fn from(t: BondType) -> BondKind {
        match t {
            BondType::Sequential => BondKind::Sequential,
            BondType::Parallel => BondKind::Parallel,
            BondType::Conditional => BondKind::Conditional,
        }
    }
}

/// Parses `NAME=VALUE`.
pub fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
        _ => Err(format!("{s:?} is not NAME=VALUE")),
    }
}

/// The `--var` values as a map, refusing a name given twice.
pub fn vars_of(given: Vec<(String, String)>) -> Result<BTreeMap<String, String>, CliError> {
    let mut vars = BTreeMap::new();
    for (k, v) in given {
        if vars.insert(k.clone(), v).is_some() {
            return Err(CliError::user(format!("--var {k} is given more than once")));
        }
    }
    Ok(vars)
}

/// Runs `mol pour` (or `mol wisp`, when `wisp`): prints the molecule's id.
pub fn run(ctx: &Ctx, a: PourArgs, wisp: bool, out: &mut Out) -> Result<(), CliError> {
    let vars = vars_of(a.vars)?;
    let found = ops::find_formula(&ctx.store, &a.formula)?;
    let attach = a
        .attach
        .iter()
        .map(|f| ops::find_formula(&ctx.store, f))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = PourOptions {
        vars,
        assignee: a.assignee,
        wisp,
        root_only: a.root_only,
        attach,
        attach_kind: a.attach_type.into(),
    };
    let poured = ops::pour(&ctx.store, &ctx.actor()?, &found, &opts)?;
    let said = say(&found, &opts, &poured, wisp, out);
    // The command ends here and the process with it: freeing a formula and a molecule
    // of a thousand steps piece by piece (a fifth of a millisecond each) is work the
    // exit does anyway.
    std::mem::forget((found, opts, poured));
    said
}

/// Prints what `mol pour` made: the molecule's id, then notes (or the JSON of it all).
fn say(
    found: &ops::FoundFormula,
    opts: &PourOptions,
    poured: &ops::Poured,
    wisp: bool,
    out: &mut Out,
) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::Poured::from(poured));
    }
    out.line(poured.molecule.id.as_str())?;
    let steps = match poured.steps.len() {
        0 => "its steps in its checklist".to_owned(),
        n => count(n, "step"),
    };
    out.note(format!(
        "poured {} into {}{} ({steps}): {}",
        found.formula.name,
        if wisp { "wisp " } else { "" },
        poured.molecule.id,
        poured.molecule.title
    ));
    for m in &poured.attached {
        out.note(format!(
            "attached {} ({}, {}): {}",
            m.molecule.id,
            opts.attach_kind.as_str(),
            count(m.steps.len(), "step"),
            m.molecule.title
        ));
    }
    for id in &poured.stale_overrides {
        out.note(format!(
            "warning: the formula's overlay names step {id:?}, which it does not have (stale override)"
        ));
    }
    if poured.vapor && !wisp {
        out.note(format!(
            "warning: formula {} recommends the vapor phase: consider `git beads mol wisp {}`",
            found.formula.name, found.formula.name
        ));
    }
    if wisp {
        out.note("the wisp is kept on this machine only; squash or burn it when done");
    }
    Ok(())
}
