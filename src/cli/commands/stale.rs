//! `git beads stale`: work in progress that nobody is doing.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::parse_duration;
use crate::ops::{self, StaleWhy};
use crate::wire;

/// Arguments of `stale`.
#[derive(clap::Args, Debug)]
pub struct StaleArgs {
    /// How old a person's claim must be to count (90s, 30m, 2h, 1d; default 1d).
    /// An agent's claim counts once its session ended or went silent.
    #[arg(long, value_name = "DURATION", value_parser = parse_age)]
    pub older_than: Option<u64>,
}

fn parse_age(s: &str) -> Result<u64, String> {
    parse_duration(s.trim()).map_err(|e| e.to_string())
}

/// Runs `stale`.
pub fn stale(ctx: &Ctx, a: StaleArgs, out: &mut Out) -> Result<(), CliError> {
    let older_than = a.older_than.unwrap_or(ops::DEFAULT_STALE_SECS);
    let stale = ops::stale(&ctx.store, older_than)?;
    if out.json {
        return out.json_list(&wire::Stale(&stale));
    }
    if stale.is_empty() {
        out.note("nothing in progress is stale");
    }
    for s in &stale {
        let why = match &s.why {
            StaleWhy::Retired => "its agent is retired".to_owned(),
            StaleWhy::NoSession => "its agent runs no session".to_owned(),
            StaleWhy::Ended { end } => format!("its agent's session ended ({end})"),
            StaleWhy::Silent { since } => format!("its agent's session is silent since {since}"),
            StaleWhy::OldClaim { since } => format!("claimed, unchanged since {since}"),
        };
        out.line(format!(
            "{}\t{}\t{}\t{why}\t{}",
            s.id, s.status, s.holder, s.title
        ))?;
    }
    Ok(())
}
