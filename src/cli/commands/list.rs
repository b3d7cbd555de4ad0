//! `git beads list`, `ready`, `blocked` and `search`: queries answered from the index.

use super::parse_priority;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadType, Status};
use crate::ops::{self, ListFilter, Listing};
use crate::wire;

/// Filters shared by `list` and `search`.
#[derive(clap::Args, Debug)]
pub struct FilterArgs {
    /// Only beads with this status (repeatable).
    #[arg(short, long = "status")]
    pub statuses: Vec<Status>,
    /// Only beads of this type (repeatable).
    #[arg(short = 't', long = "type")]
    pub kinds: Vec<BeadType>,
    /// Only beads of this priority.
    #[arg(short, long, value_parser = parse_priority)]
    pub priority: Option<u8>,
    /// Only beads assigned to this name.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Only beads with this label (repeatable; all must match).
    #[arg(short, long = "label")]
    pub labels: Vec<String>,
}

impl FilterArgs {
    fn into_filter(self, all: bool, limit: usize) -> ListFilter {
        ListFilter {
            statuses: self.statuses,
            kinds: self.kinds,
            priority: self.priority,
            assignee: self.assignee,
            labels: self.labels,
            all,
            limit,
        }
    }
}

/// Arguments of `list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Filters.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Include closed beads and lift the limit.
    #[arg(long)]
    pub all: bool,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
}

/// Arguments of `ready`.
#[derive(clap::Args, Debug)]
pub struct ReadyArgs {
    /// Only beads assigned to this name.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "0")]
    pub limit: usize,
    /// Claim the first ready bead atomically and print it.
    #[arg(long)]
    pub claim: bool,
    /// Where the claim is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Arguments of `blocked`.
#[derive(clap::Args, Debug)]
pub struct BlockedArgs {}

/// Arguments of `search`.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// The text to look for (case-insensitive).
    pub text: String,
    /// Filters.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "0")]
    pub limit: usize,
}

fn print_listing(out: &mut Out, listing: &Listing, empty: &str) -> Result<(), CliError> {
    out.warn_broken(&listing.broken);
    if out.json {
        return out.json(&wire::Listing {
            beads: listing.beads().map(wire::Summary::from).collect(),
            total: listing.total,
            broken: &listing.broken,
        });
    }
    for s in listing.beads() {
        out.summary_line(&s)?;
    }
    let shown = listing.beads().len();
    if shown == 0 {
        out.note(empty);
    } else if listing.total > shown {
        out.note(format!(
            "showing {shown} of {}; --limit 0 shows all",
            listing.total
        ));
    }
    Ok(())
}

/// Runs `list`.
pub fn list(ctx: &Ctx, args: ListArgs, out: &mut Out) -> Result<(), CliError> {
    let limit = if args.all { 0 } else { args.limit };
    let listing = ops::list(&ctx.store, &args.filter.into_filter(args.all, limit))?;
    print_listing(out, &listing, "no beads match")
}

/// Runs `search`.
pub fn search(ctx: &Ctx, args: SearchArgs, out: &mut Out) -> Result<(), CliError> {
    let filter = args.filter.into_filter(true, args.limit);
    let listing = ops::search(&ctx.store, &args.text, &filter)?;
    print_listing(out, &listing, "no beads match")
}

/// Runs `ready`.
pub fn ready(ctx: &Ctx, args: ReadyArgs, out: &mut Out) -> Result<(), CliError> {
    args.at.only_with_claim(args.claim)?;
    if args.claim {
        let actor = ctx.actor()?;
        let assignee = args.assignee.as_deref();
        let bead = match args.at.remote(ctx, out)? {
            Some(remote) => ops::ready_claim_on(&ctx.store, &actor, assignee, &remote)?,
            None => ops::ready_claim(&ctx.store, &actor, assignee)?,
        };
        if out.json {
            return out.json(&wire::Claimed {
                bead: bead.as_ref(),
            });
        }
        return match bead {
            Some(b) => {
                out.note(format!("claimed {}", b.id));
                out.line(b.id.as_str())
            }
            None => {
                out.note("nothing is ready");
                Ok(())
            }
        };
    }
    let listing = ops::ready(&ctx.store, args.assignee.as_deref(), args.limit)?;
    print_listing(out, &listing, "nothing is ready")
}

/// Runs `blocked`.
pub fn blocked(ctx: &Ctx, _args: BlockedArgs, out: &mut Out) -> Result<(), CliError> {
    let blocked = ops::blocked(&ctx.store)?;
    out.warn_broken(&blocked.broken);
    if out.json {
        return out.json(&wire::BlockedReport {
            blocked: blocked
                .beads()
                .map(|(bead, blocked_by)| wire::BlockedBead {
                    bead: wire::Summary::from(bead),
                    blocked_by,
                })
                .collect(),
            broken: &blocked.broken,
        });
    }
    let mut line = String::new();
    for (bead, by) in blocked.beads() {
        out.summary_line(&bead)?;
        line.clear();
        line.push_str("    blocked by ");
        for (k, id) in by.iter().enumerate() {
            if k > 0 {
                line.push_str(", ");
            }
            line.push_str(id);
        }
        out.line(&line)?;
    }
    if blocked.beads().len() == 0 {
        out.note("nothing is blocked");
    }
    Ok(())
}
