//! `git beads mol pour` and `mol wisp`.

use std::collections::BTreeMap;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops::{self, PourOptions};
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
        "poured {} into {}{} ({}): {}",
        found.formula.name,
        if wisp { "wisp " } else { "" },
        poured.molecule.id,
        count(poured.steps.len(), "step"),
        poured.molecule.title
    ));
    if wisp {
        out.note("the wisp is kept on this machine only; squash or burn it when done");
    }
    Ok(())
}
