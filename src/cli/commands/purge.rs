//! `git beads purge`: delete closed wisps (bd's ephemeral beads), and `mol wisp gc`;
//! `prune` takes the same arguments.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self, Swept, WispSweep};
use crate::wire;

/// Arguments of `purge` (and of `prune`).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Delete them (without it, only says how many there are).
    #[arg(short, long)]
    pub force: bool,
    /// Say what would be deleted, with its dependencies, labels and comments.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Only those closed longer ago than this (`7d`, `24h`, `2w`; a number is days).
    #[arg(long = "older-than", value_name = "AGE", value_parser = parse_age)]
    pub older_than: Option<chrono::Duration>,
    /// Only those whose id matches this glob (`*-wisp-*`, `bd-old-*`; `*` for all).
    #[arg(long, value_name = "GLOB")]
    pub pattern: Option<String>,
}

/// Runs `purge`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let sweep = WispSweep::Closed {
        pattern: args.pattern,
        closed_before: args.older_than.map(|age| chrono::Utc::now() - age),
    };
    let actor = ctx.actor()?;
    let preview = args.dry_run || !args.force;
    let swept = ops::sweep_wisps(&ctx.store, &actor, &sweep, preview)?;
    let n = swept.beads.len();
    if !args.dry_run && !args.force && n > 0 {
        return Err(CliError::user(format!(
            "would purge {}",
            crate::model::count(n, "closed wisp")
        ))
        .hint("`--force` purges them, `--dry-run` says what goes with them"));
    }
    if out.json {
        return out.json(&wire::Purged::new(&swept, args.dry_run));
    }
    if n == 0 {
        return out.line(wire::Purged::NOTHING);
    }
    let verb = if args.dry_run {
        "Would purge"
    } else {
        "Purged"
    };
    out.line(format!("{verb} {}", crate::model::count(n, "closed wisp")))?;
    counts(&swept, out)
}

/// The lines under a purge or a gc: what went with the wisps.
fn counts(swept: &Swept, out: &mut Out) -> Result<(), CliError> {
    out.line(format!("  Dependencies: {}", swept.dependencies))?;
    out.line(format!("  Labels:       {}", swept.labels))?;
    out.line(format!("  Events:       {}", swept.events))?;
    if swept.pinned_skipped > 0 {
        out.line(format!("  Pinned (skipped): {}", swept.pinned_skipped))?;
    }
    Ok(())
}

/// Arguments of `mol wisp gc`.
#[derive(clap::Args, Debug)]
pub struct GcArgs {
    /// Unfinished wisps not changed for this long are abandoned (`1h`, `30m`, `2d`).
    #[arg(long, value_name = "AGE", default_value = "1h", value_parser = parse_age)]
    pub age: chrono::Duration,
    /// Closed wisps that old too.
    #[arg(long)]
    pub all: bool,
    /// Every closed wisp instead, whatever its age (needs --force; `purge` does the
    /// same).
    #[arg(long)]
    pub closed: bool,
    /// With --closed: delete them.
    #[arg(short, long)]
    pub force: bool,
    /// Say which would go, deleting nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

/// Runs `mol wisp gc`: deletes abandoned wisps (and the wisps that depend on them).
pub fn gc(ctx: &Ctx, args: GcArgs, out: &mut Out) -> Result<(), CliError> {
    let sweep = match args.closed {
        true => WispSweep::Closed {
            pattern: None,
            closed_before: None,
        },
        false => WispSweep::Abandoned {
            stale_before: chrono::Utc::now() - args.age,
            closed_too: args.all,
        },
    };
    let dry_run = args.dry_run || (args.closed && !args.force);
    let swept = ops::sweep_wisps(&ctx.store, &ctx.actor()?, &sweep, dry_run)?;
    if out.json {
        return out.json(&wire::WispsCleaned::new(&swept, dry_run));
    }
    if swept.beads.is_empty() {
        return out.line("No abandoned wisps found");
    }
    let verb = if dry_run { "Would clean" } else { "Cleaned" };
    out.line(format!(
        "{verb} {}:",
        crate::model::count(swept.beads.len(), "wisp")
    ))?;
    for b in &swept.beads {
        out.line(format!("  {}: {}", b.id, b.title))?;
    }
    Ok(())
}

/// An age as bd takes one: a number and a unit (`s`, `m`, `h`, `d`, `w`); a bare
/// number is days.
pub fn parse_age(s: &str) -> Result<chrono::Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: i64 = n
        .parse()
        .map_err(|_| format!("{s:?} is not an age (7d, 24h, 30m)"))?;
    let age = match unit {
        "" | "d" => chrono::Duration::try_days(n),
        "s" => chrono::Duration::try_seconds(n),
        "m" => chrono::Duration::try_minutes(n),
        "h" => chrono::Duration::try_hours(n),
        "w" => chrono::Duration::try_weeks(n),
        _ => None,
    };
    age.filter(|a| *a > chrono::Duration::zero())
        .ok_or_else(|| format!("{s:?} is not an age (7d, 24h, 30m)"))
}
