//! `git beads mol bond`.

use super::pour::{BondType, parse_var, vars_of};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadId, count};
use crate::ops::{self, BondOptions, Operand};
use crate::wire;

/// Arguments of `mol bond`.
#[derive(clap::Args, Debug)]
pub struct BondArgs {
    /// A molecule, a step, or a formula (name or path).
    pub a: String,
    /// Another: with a formula, the molecule or step it is bonded to; with two beads,
    /// the one bonded to the first.
    pub b: String,
    /// Sequential (after it), parallel (alongside, as its child) or conditional (only
    /// if it fails: a conditional-blocks dependency).
    #[arg(long = "type", value_enum, default_value = "sequential")]
    pub kind: BondType,
    /// A variable's value for the formula (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Give the poured molecule the id <BEAD>.<REF> instead of a fresh one (its steps
    /// <BEAD>.<REF>.1, .2 …), {{name}} filled from --var and the formula's defaults,
    /// e.g. --ref arm-{{worker}}. Lowercase letters, digits, '-' and '_', parts
    /// between dots; an id in use is refused.
    #[arg(long = "ref", value_name = "REF")]
    pub child_ref: Option<String>,
    /// Pour the formula as a wisp (kept on this machine only), whatever the bead it
    /// is bonded to.
    #[arg(long)]
    pub ephemeral: bool,
}

/// A bead id that names a bead here, else a formula.
fn operand(ctx: &Ctx, text: &str) -> Result<Operand, CliError> {
    if let Ok(id) = BeadId::parse(text)
        && ops::locate(&ctx.store, &id).is_ok()
    {
        return Ok(Operand::Bead(id));
    }
    Ok(Operand::Formula(Box::new(ops::find_formula(
        &ctx.store, text,
    )?)))
}

/// Runs `mol bond`: prints the id of what was bonded.
pub fn run(ctx: &Ctx, a: BondArgs, out: &mut Out) -> Result<(), CliError> {
    let opts = BondOptions {
        kind: a.kind.into(),
        vars: vars_of(a.vars)?,
        child_ref: a.child_ref,
        ephemeral: a.ephemeral,
    };
    let (x, y) = (operand(ctx, &a.a)?, operand(ctx, &a.b)?);
    let b = ops::bond(&ctx.store, &ctx.actor()?, &x, &y, &opts)?;
    if out.json {
        return out.json(&wire::Bonded::from(&b));
    }
    out.line(b.bonded.as_str())?;
    match &b.poured {
        Some(p) => out.note(format!(
            "poured {} ({}) and bonded it to {} ({})",
            p.molecule.id,
            count(p.steps.len(), "step"),
            b.result,
            b.kind.as_str()
        )),
        None => out.note(format!(
            "bonded {} to {} ({})",
            b.bonded,
            b.result,
            b.kind.as_str()
        )),
    }
    Ok(())
}
