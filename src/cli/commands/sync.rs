//! `git beads sync`, `git beads pull` and `git beads push`.

use std::io::{IsTerminal, Write};

use crate::cli::{
    Ctx,
    error::CliError,
    output::{self, Out},
};
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
    if let Some(e) = notes_error {
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
    let remote = &report.remote;
    let what = match report.outcome {
        Outcome::UpToDate => "nothing new".to_owned(),
        Outcome::Adopted => format!("adopted the store of {remote}"),
        Outcome::FastForward => format!("{} documents came in", report.fetched),
        Outcome::Merged => format!(
            "{} documents came in, {} merged, {} conflicts",
            report.fetched, report.merged, report.conflicts
        ),
    };
    let pushed = match (mode, report.pushed) {
        (SyncMode::Pull, _) => String::new(),
        (_, true) => format!("; {remote} is up to date"),
        (_, false) => format!("; nothing pushed to {remote}"),
    };
    out.note(format!("{remote}: {what}{pushed}"));
    if report.conflicts > 0 {
        out.note("conflicting values are kept in each bead's conflicts: (see `git beads show`, clear with `git beads resolve`)");
    }
    Ok(())
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
