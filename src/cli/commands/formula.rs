//! `git beads formula list`, `show`, `validate`, `cook` and `convert`: the workflow
//! templates.

use std::path::PathBuf;

use crate::cli::{
    Ctx,
    error::CliError,
    output::{self, Out},
};
use crate::model::{count, plural};
use crate::ops::{self, Origin};
use crate::wire;

/// The verbs of `formula`.
#[derive(clap::Subcommand, Debug)]
pub enum FormulaCommand {
    /// List the formulas that can be poured, repository ones first in precedence.
    List,
    /// Show one formula: its variables and steps.
    Show(ShowArgs),
    /// Check formula files: one FILE, or every formula found.
    ///
    /// Reports each problem as FILE:LINE: MESSAGE and exits 1 when there is any.
    Validate(ValidateArgs),
    /// Show what pouring a formula would create, writing nothing.
    ///
    /// Expands everything bd's formula language says (extends, conditions, loops,
    /// expansions, aspects and advice, branches, gates, convoy legs) into the steps
    /// and edges a pour makes, each step with what it needs.
    Cook(CookArgs),
    /// Print a formula in another syntax: yaml, toml or json.
    ///
    /// A bd formula converted to YAML keeps bd's keys (formula, vars, steps), which
    /// git-beads reads back as bd's language.
    Convert(ConvertArgs),
}

/// Arguments of `formula cook`.
#[derive(clap::Args, Debug)]
pub struct CookArgs {
    /// The formula's name, or the path of a formula file.
    pub name: String,
    /// A variable's value (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = super::mol::parse_var)]
    pub vars: Vec<(String, String)>,
}

/// The syntaxes `formula convert` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ConvertTo {
    /// YAML.
    Yaml,
    /// TOML, as bd writes `*.formula.toml`.
    Toml,
    /// JSON, as bd writes `*.formula.json`.
    Json,
}

/// Arguments of `formula convert`.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The formula's name, or the path of a formula file.
    pub name: String,
    /// The syntax to write.
    #[arg(long, value_enum)]
    pub to: ConvertTo,
}

/// Arguments of `formula show`.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The formula's name, or the path of a formula file.
    pub name: String,
}

/// Arguments of `formula validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The file to check (default: every formula found).
    pub file: Option<PathBuf>,
}

/// Runs `formula`.
pub fn run(ctx: &Ctx, cmd: FormulaCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        FormulaCommand::List => list(ctx, out),
        FormulaCommand::Show(a) => show(ctx, a, out),
        FormulaCommand::Validate(a) => validate(ctx, a, out),
        FormulaCommand::Cook(a) => cook(ctx, a, out),
        FormulaCommand::Convert(a) => convert(ctx, a, out),
    }
}

/// Runs `formula cook` (and bd's top-level `cook`).
pub fn cook(ctx: &Ctx, a: CookArgs, out: &mut Out) -> Result<(), CliError> {
    let vars = super::mol::vars_of(a.vars)?;
    let found = ops::find_formula(&ctx.store, &a.name)?;
    let c = ops::cook(&ctx.store, &found, &vars)?;
    if out.json {
        return out.json(&wire::CookedFormula::from(&c));
    }
    out.line(format!(
        "{}  ({} v{}, {}, {})",
        c.title,
        c.name,
        c.version,
        c.kind,
        count(c.steps.len(), "step")
    ))?;
    for (n, s) in c.steps.iter().enumerate() {
        let needs: Vec<String> = s.needs.iter().map(|&i| (i + 1).to_string()).collect();
        let needs = if needs.is_empty() {
            String::new()
        } else {
            format!("  (needs {})", needs.join(", "))
        };
        let kind = match (&s.gate, s.kind.as_deref()) {
            (Some(g), _) => format!(" [gate {}]", g.kind),
            (None, Some(k)) if k != "task" => format!(" [{k}]"),
            _ => String::new(),
        };
        out.line(format!("  {}. {}: {}{kind}{needs}", n + 1, s.key, s.title))?;
        for e in &s.expected {
            out.line(format!("       {e}"))?;
        }
    }
    for e in &c.expected {
        out.line(format!("  {e}"))?;
    }
    for id in &c.stale_overrides {
        out.note(format!(
            "warning: the formula's overlay names step {id:?}, which it does not have (stale override)"
        ));
    }
    out.note("nothing was written; `git beads mol pour` makes these beads");
    Ok(())
}

fn convert(ctx: &Ctx, a: ConvertArgs, out: &mut Out) -> Result<(), CliError> {
    let found = ops::find_formula(&ctx.store, &a.name)?;
    let to = match a.to {
        ConvertTo::Yaml => ops::Syntax::Yaml,
        ConvertTo::Toml => ops::Syntax::Toml,
        ConvertTo::Json => ops::Syntax::Json,
    };
    let text = ops::convert(&found, to)?;
    out.verbatim(text.trim_end_matches('\n'))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

fn list(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let mut cat = ops::catalog(&ctx.store)?;
    ops::trial_cooks(&ctx.store, &mut cat.formulas);
    if out.json {
        return out.json(&wire::Formulas {
            formulas: cat.formulas.iter().map(wire::FormulaEntry::from).collect(),
            shadowed: cat.shadowed.iter().map(wire::FormulaEntry::from).collect(),
            unreadable: &cat.unreadable,
            searched: &cat.searched,
        });
    }
    if cat.formulas.is_empty() {
        out.note(format!(
            "no formulas found (searched {})",
            cat.searched.join(" and ")
        ));
    }
    for f in &cat.formulas {
        let mark = if f.problems.is_empty() {
            ""
        } else {
            " (INVALID: run `git beads formula validate`)"
        };
        out.line(format!(
            "{:<20} v{:<3} {:>2} {:<5}  {:<10} {}{mark}",
            f.formula.name,
            f.formula.version,
            f.formula.steps.len(),
            plural(f.formula.steps.len() as u64, "step"),
            match f.origin {
                Origin::Repository => "repository",
                Origin::User => "user",
                Origin::File => "file",
            },
            first_line(&f.formula.description),
        ))?;
    }
    for f in &cat.shadowed {
        out.note(format!(
            "note: {} in {} is hidden by the formula of the same name above",
            f.formula.name, f.file
        ));
    }
    for p in &cat.unreadable {
        output::warn(format!("warning: {p}"));
    }
    Ok(())
}

fn show(ctx: &Ctx, a: ShowArgs, out: &mut Out) -> Result<(), CliError> {
    let mut found = [ops::find_formula(&ctx.store, &a.name)?];
    ops::trial_cooks(&ctx.store, &mut found);
    let [f] = found;
    if out.json {
        return out.json(&wire::FormulaShown {
            formula: &f.formula,
            file: &f.file,
            origin: f.origin,
            valid: f.problems.is_empty(),
            problems: &f.problems,
        });
    }
    let formula = &f.formula;
    out.line(format!(
        "{} v{}  ({})",
        formula.name, formula.version, f.file
    ))?;
    if let Some(t) = &formula.title {
        out.line(format!("  title: {t}"))?;
    }
    for l in formula.description.lines() {
        out.line(format!("  {l}"))?;
    }
    if !formula.variables.is_empty() {
        out.line("variables:")?;
        for (name, v) in &formula.variables {
            let how = if v.required {
                "required".to_owned()
            } else {
                match &v.default {
                    Some(d) => format!("default {d:?}"),
                    None => "optional".to_owned(),
                }
            };
            out.line(format!("  {name} ({how}) {}", v.description))?;
        }
    }
    out.line("steps:")?;
    for (n, &i) in formula.order().iter().enumerate() {
        let s = &formula.steps[i];
        let needs = if s.needs.is_empty() {
            String::new()
        } else {
            format!("  (needs {})", s.needs.join(", "))
        };
        out.line(format!("  {}. {}: {}{needs}", n + 1, s.id, s.title))?;
    }
    for p in &f.problems {
        output::warn(format!("warning: {p}"));
    }
    Ok(())
}

fn validate(ctx: &Ctx, a: ValidateArgs, out: &mut Out) -> Result<(), CliError> {
    let v = ops::validate(&ctx.store, a.file.as_deref())?;
    if out.json {
        out.json(&wire::FormulaChecked {
            valid: v.problems.is_empty(),
            checked: &v.checked,
            problems: &v.problems,
        })?;
    } else {
        for p in &v.problems {
            out.line(p.to_string())?;
        }
        if v.checked.is_empty() {
            out.note("no formulas found");
        }
    }
    if v.problems.is_empty() {
        out.note(format!("{} valid", count(v.checked.len(), "formula file")));
        return Ok(());
    }
    let files: std::collections::BTreeSet<&str> =
        v.problems.iter().map(|p| p.file.as_str()).collect();
    Err(CliError::user(format!(
        "{} in {}",
        count(v.problems.len(), "problem"),
        count(files.len(), "formula file")
    ))
    .hint("the format is described in `git beads formula --help`"))
}
