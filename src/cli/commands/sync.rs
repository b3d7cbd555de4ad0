//! `git beads sync`, `git beads pull` and `git beads push`.

use std::io::{IsTerminal, Write};

use crate::cli::{
    Ctx,
    error::CliError,
    output::{self, Out},
};
use crate::model::count;
use crate::ops::{self, Outcome, SyncEvent, SyncMode, SyncOptions};
use crate::wire;

/// Arguments of `sync`, `pull` and `push`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The remote (default: the current branch's upstream remote, else `origin`).
    pub remote: Option<String>,
}

/// Shows what a sync is doing on stderr when it is a terminal.
struct Meter {
    on: bool,
    open: bool,
}

impl Meter {
    fn show(&mut self, e: SyncEvent) {
        if !self.on {
            return;
        }
        let mut err = std::io::stderr();
        let text = match e {
            SyncEvent::Fetching { remote } => format!("fetching beads from {remote}…"),
            SyncEvent::Merging { done, total } => {
                let _ = write!(err, "\rmerging documents: {done}/{total}\x1b[K");
                let _ = err.flush();
                self.open = true;
                return;
            }
            SyncEvent::Pushing { remote } => format!("pushing beads to {remote}…"),
            SyncEvent::Retrying { round } => {
                format!("the remote moved meanwhile; round {round}")
            }
        };
        self.clear();
        output::warn(text);
    }

    fn clear(&mut self) {
        if self.open {
            eprint!("\r\x1b[K");
            self.open = false;
        }
    }
}

fn run(ctx: &Ctx, args: Args, out: &mut Out, mode: SyncMode) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let on = !out.is_quiet() && std::io::stderr().is_terminal();
    let opts = SyncOptions {
        remote: args.remote,
        mode,
        talk: on,
    };
    let mut meter = Meter { on, open: false };
    let result = ops::sync_with_notes(&ctx.store, &actor, &opts, &mut |e| meter.show(e));
    meter.clear();
    let ops::Synced {
        report,
        notes,
        notes_error,
    } = result?;
    // Out of time, the notes wait with the heads the summary names.
    if let Some(e) = notes_error.filter(|_| report.waiting.is_empty()) {
        output::warn(format!(
            "warning: the provenance notes were not synced: {e}"
        ));
    }
    for k in &report.kept {
        output::warn(format!(
            "warning: {} could not be merged ({}); kept one version in place, the other at {}",
            k.path, k.reason, k.other_version
        ));
    }
    if out.json {
        return out.json(&wire::Synced::new(&report, &notes));
    }
    let line = summary(&report, mode);
    if report.waiting.is_empty() {
        out.note(line);
    } else {
        // A sync that left work for the next one says so even when quiet.
        output::warn(line);
    }
    if report.conflicts > 0 {
        out.note("conflicting values are kept in each bead's conflicts: (see `git beads show`, clear with `git beads resolve`)");
    }
    Ok(())
}

/// The line that says what moved: what came in (adopted, fast-forwarded or merged),
/// what went out, and "nothing new" only when nothing moved either way.
fn summary(report: &ops::SyncReport, mode: SyncMode) -> String {
    let remote = &report.remote;
    let docs = |n: usize| count(n, "document");
    let mut moved = Vec::new();
    match report.outcome {
        Outcome::UpToDate => {}
        Outcome::Adopted => moved.push(format!(
            "adopted its store ({} came in)",
            docs(report.fetched)
        )),
        Outcome::FastForward => moved.push(format!("{} came in", docs(report.fetched))),
        Outcome::Merged => moved.push(format!(
            "{} came in, {} merged, {} kept",
            docs(report.fetched),
            report.merged,
            count(report.conflicts, "conflict")
        )),
    }
    let late = !report.waiting.is_empty();
    match (report.sent, &report.replica) {
        (Some(sent), None) => moved.push(format!("pushed {}", docs(sent))),
        (Some(sent), Some(r)) if late => moved.push(format!("pushed {} to {r}", docs(sent))),
        (Some(sent), Some(r)) => moved.push(format!(
            "pushed {} to {r} (others were moving the store's main ref; the next sync folds \
             it in)",
            docs(sent)
        )),
        (None, _) => {}
    }
    let came_in = !moved.is_empty();
    let mut line = format!("{remote}: ");
    if moved.is_empty() {
        line.push_str("nothing new");
    } else {
        line.push_str(&moved.join("; "));
    }
    if late {
        line.push_str(&format!(
            "; {} not merged yet (out of time): the next sync merges {}",
            count(report.waiting.len(), "fetched head"),
            if report.waiting.len() == 1 {
                "it"
            } else {
                "them"
            }
        ));
        return line;
    }
    match (mode, report.pushed, report.sent) {
        (SyncMode::Pull, _, _) | (_, true, Some(_)) => {}
        (_, true, None) if came_in => line.push_str("; nothing to push"),
        (_, true, None) => line.push_str(&format!("; {remote} is up to date")),
        (_, false, _) => line.push_str(&format!("; nothing pushed to {remote}")),
    }
    line
}

/// Runs `sync`: fetch, merge, push.
pub fn sync(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    run(ctx, args, out, SyncMode::Sync)
}

/// Runs `pull`: fetch and merge.
pub fn pull(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    run(ctx, args, out, SyncMode::Pull)
}

/// Runs `push`: publish the local store if the remote has nothing it lacks.
pub fn push(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    run(ctx, args, out, SyncMode::Push)
}
