//! `git beads stats` (and `status`): how many beads stand where, as bd counts them.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `stats`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `stats`.
pub fn run(ctx: &Ctx, _args: Args, out: &mut Out) -> Result<(), CliError> {
    let s = ops::stats(&ctx.store)?;
    out.warn_broken(&s.broken);
    if out.json {
        return out.json(&wire::Stats::from(&s));
    }
    for (name, n) in [
        ("total", s.total),
        ("open", s.open),
        ("in progress", s.in_progress),
        ("blocked", s.blocked),
        ("deferred", s.deferred),
        ("hooked", s.hooked),
        ("pinned", s.pinned),
        ("closed", s.closed),
        ("ready", s.ready),
        ("epics to close", s.epics_eligible_for_closure),
        ("tombstones", s.tombstones),
    ] {
        out.line(format!("{name:<16}{n}"))?;
    }
    for (status, n) in &s.custom {
        out.line(format!("{status:<16}{n}"))?;
    }
    // A mean of nothing is no lead time of 0 h.
    match s.closed {
        0 => out.line(format!("{:<16}- (nothing closed yet)", "mean lead time")),
        _ => out.line(format!(
            "{:<16}{:.1} h",
            "mean lead time", s.average_lead_time_hours
        )),
    }
}
