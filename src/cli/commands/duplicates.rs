//! `git beads find-duplicates`: pairs of beads whose titles and descriptions read
//! alike, by bd's mechanical text similarity.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::Status;
use crate::ops::{self, DuplicateScope};
use crate::wire;

/// Arguments of `find-duplicates`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Detection method: mechanical (bd's `ai` needs a model API and is not built in).
    #[arg(long, default_value = "mechanical")]
    pub method: String,
    /// Similarity threshold (0.0-1.0, lower = more results).
    #[arg(long, default_value_t = 0.5)]
    pub threshold: f64,
    /// Only beads of this status, or `all` (default: every bead not closed).
    #[arg(long, short = 's')]
    pub status: Option<String>,
    /// Maximum number of pairs to show (0: all).
    #[arg(long, short = 'n', default_value_t = 50)]
    pub limit: usize,
    /// The AI model (only with bd's `--method ai`).
    #[arg(long)]
    pub model: Option<String>,
}

/// Runs `find-duplicates`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    match a.method.as_str() {
        "mechanical" => {}
        "ai" => {
            return Err(CliError::user(
                "--method ai needs a model API, which git-beads does not call",
            )
            .hint(
                "use --method mechanical (the default), with a lower --threshold for more pairs",
            ));
        }
        m => {
            return Err(CliError::user(format!(
                "invalid method \"{m}\" (use: mechanical, ai)"
            )));
        }
    }
    if !a.threshold.is_finite() || a.threshold > 1.0 {
        return Err(CliError::user(format!(
            "invalid threshold {} (use a number from 0.0 to 1.0)",
            a.threshold
        )));
    }
    let scope = match a.status.as_deref() {
        None | Some("") => DuplicateScope::NotClosed,
        Some("all") => DuplicateScope::All,
        Some(s) => DuplicateScope::Only(
            s.parse::<Status>()
                .map_err(|e| CliError::user(e.to_string()))?,
        ),
    };
    let found = ops::find_duplicates(&ctx.store, &scope, a.threshold, a.limit)?;
    if out.json {
        return out.json(&wire::DuplicatePairs::new(&found, a.threshold));
    }
    if found.compared < 2 {
        return out.line("Not enough issues to compare (need at least 2)");
    }
    let percent = |f: f64| format!("{:.0}%", f * 100.0);
    if found.pairs.is_empty() {
        return out.line(format!(
            "No similar issues found (threshold: {})",
            percent(a.threshold)
        ));
    }
    out.line(format!(
        "🔍 Found {} potential duplicate pair(s) (threshold: {}):",
        found.pairs.len(),
        percent(a.threshold)
    ))?;
    out.line("")?;
    for (k, p) in found.pairs.iter().enumerate() {
        out.line(format!(
            "━━ Pair {} ({} similar):",
            k + 1,
            percent(p.similarity)
        ))?;
        out.line(format!("  {} {}", p.a.0, p.a.1))?;
        out.line(format!("  {} {}", p.b.0, p.b.1))?;
        out.line(format!("  Compare: git beads show {} {}", p.a.0, p.b.0))?;
        out.line("")?;
    }
    Ok(())
}
