//! `git beads mol seed`: bd's check that a formula can be found and cooked.

use super::pour::parse_var;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `mol seed`.
#[derive(clap::Args, Debug)]
pub struct SeedArgs {
    /// The formula's name, or the path of a formula file.
    pub formula: String,
    /// A variable's value (repeatable), for the steps whose conditions read it.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
}

/// Runs `mol seed`: finds and cooks the formula, writes nothing.
pub fn run(ctx: &Ctx, a: SeedArgs, out: &mut Out) -> Result<(), CliError> {
    let inaccessible =
        |e: ops::OpError| CliError::user(format!("formula {:?} not accessible: {e}", a.formula));
    let found = ops::find_formula(&ctx.store, &a.formula).map_err(inaccessible)?;
    let vars = a.vars.iter().cloned().collect();
    ops::cook(&ctx.store, &found, &vars).map_err(inaccessible)?;
    if out.json {
        return out.json(&wire::FormulaSeeded {
            status: "ok",
            formula: &a.formula,
        });
    }
    out.line(format!("✓ Formula {:?} accessible", a.formula))
}
