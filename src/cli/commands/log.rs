//! `git beads log`.

use serde::Serialize;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops::{self, LogEntry};

/// Arguments of `log`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the history of this bead, with what changed in each step.
    pub id: Option<BeadId>,
    /// At most this many steps.
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
}

#[derive(Serialize)]
struct ChangeJson<'a> {
    path: &'a str,
    change: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<&'a str>,
}

#[derive(Serialize)]
struct EntryJson<'a> {
    commit: &'a str,
    author: &'a str,
    email: &'a str,
    time: String,
    message: &'a str,
    changes: Vec<ChangeJson<'a>>,
}

#[derive(Serialize)]
struct Report<'a> {
    log: Vec<EntryJson<'a>>,
}

fn to_json(e: &LogEntry) -> EntryJson<'_> {
    EntryJson {
        commit: &e.commit,
        author: &e.author,
        email: &e.email,
        time: e.time.to_rfc3339(),
        message: &e.message,
        changes: e
            .changes
            .iter()
            .map(|c| ChangeJson {
                path: &c.path,
                change: c.kind.as_str(),
                diff: c.diff.as_deref(),
            })
            .collect(),
    }
}

/// Runs `log`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let entries = ops::log(&ctx.store, args.id.as_ref(), args.limit)?;
    print(out, &entries)
}

/// Prints history entries: JSON, or one line per step with its changes or diffs.
pub fn print(out: &mut Out, entries: &[LogEntry]) -> Result<(), CliError> {
    if out.json {
        return out.json(&Report {
            log: entries.iter().map(to_json).collect(),
        });
    }
    for e in entries {
        let subject = e.message.lines().next().unwrap_or_default();
        out.line(format!(
            "{} {} {} {subject}",
            &e.commit[..e.commit.len().min(10)],
            e.time.format("%Y-%m-%d %H:%M"),
            e.author
        ))?;
        for c in &e.changes {
            match &c.diff {
                Some(diff) => {
                    for l in diff.lines().filter(|l| !l.starts_with("@@")) {
                        out.line(format!("    {l}"))?;
                    }
                }
                None => out.line(format!("    {} {}", c.kind, c.path))?,
            }
        }
    }
    Ok(())
}
