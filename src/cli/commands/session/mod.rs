//! `git beads session …`, `prime` and `handoff`: one file per verb.

mod end;
mod handoff;
mod heartbeat;
mod list;
mod log;
mod model;
mod prime;
mod resume;
mod show;
mod snapshot;
mod start;
mod usage;

use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::{Actor, Session};
use crate::wire;

pub use end::EndArgs;
pub use handoff::{HandoffArgs, run as handoff};
pub use heartbeat::HeartbeatArgs;
pub use list::ListArgs;
pub use model::ModelArgs;
pub use prime::{PrimeArgs, run as prime};
pub use resume::ResumeArgs;
pub use show::ShowArgs;
pub use start::StartArgs;
pub use usage::UsageArgs;

/// The verbs of `session`.
#[derive(clap::Subcommand, Debug)]
pub enum SessionCommand {
    /// Start a session of an agent in this worktree, then print what `prime` prints.
    Start(StartArgs),
    /// End the running session.
    End(EndArgs),
    /// Record a sign of life of the running session.
    Heartbeat(HeartbeatArgs),
    /// Record a model swap (identity, hook and record continue unchanged).
    Model(ModelArgs),
    /// Record usage: a ledger line and running totals, checked against the budget.
    Usage(UsageArgs),
    /// List sessions with what they cost.
    List(ListArgs),
    /// Show one session.
    Show(ShowArgs),
    /// Snapshot the worktree of the running session (nothing is written when unchanged).
    Snapshot,
    /// Resume a session here or in another worktree: put back its last snapshot,
    /// bind its agent and start a new session that continues its record.
    Resume(ResumeArgs),
    /// List every store change made by a session, following its resume chain.
    Log(ShowArgs),
}

/// Runs `session`.
pub fn run(ctx: &Ctx, cmd: SessionCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        SessionCommand::Start(a) => start::run(ctx, a, out),
        SessionCommand::End(a) => end::run(ctx, a, out),
        SessionCommand::Heartbeat(a) => heartbeat::run(ctx, a, out),
        SessionCommand::Model(a) => model::run(ctx, a, out),
        SessionCommand::Usage(a) => usage::run(ctx, a, out),
        SessionCommand::List(a) => list::run(ctx, a, out),
        SessionCommand::Show(a) => show::run(ctx, a, out),
        SessionCommand::Snapshot => snapshot::run(ctx, out),
        SessionCommand::Resume(a) => resume::run(ctx, a, out),
        SessionCommand::Log(a) => log::run(ctx, a, out),
    }
}

/// What a harness hook passes on stdin (the fields git-beads uses).
#[derive(Deserialize, Default, Clone)]
struct HookInput {
    session_id: Option<String>,
    /// The directory the harness works in, which the hook process may not run in.
    cwd: Option<PathBuf>,
}

/// The hook's input, read from stdin once: the store is opened from its `cwd` before
/// the verb reads the rest.
static HOOK_INPUT: OnceLock<HookInput> = OnceLock::new();

fn read_hook_input() -> Result<HookInput, CliError> {
    if let Some(input) = HOOK_INPUT.get() {
        return Ok(input.clone());
    }
    let mut text = String::new();
    std::io::stdin().take(1 << 20).read_to_string(&mut text)?;
    let input = if text.trim().is_empty() {
        HookInput::default()
    } else {
        serde_json::from_str(&text)
            .map_err(|e| CliError::user(format!("the hook input on stdin is not JSON: {e}")))?
    };
    Ok(HOOK_INPUT.get_or_init(|| input).clone())
}

/// Where the store of `cmd` is to be opened when it runs from a harness hook
/// (`--hook-input`) whose input names a `cwd`: there, not where the hook process runs.
pub fn hook_dir(cmd: &SessionCommand) -> Result<Option<PathBuf>, CliError> {
    let from_hook = match cmd {
        SessionCommand::Start(a) => a.hook_input,
        SessionCommand::End(a) => a.hook_input,
        SessionCommand::Heartbeat(a) => a.hook_input,
        _ => false,
    };
    if !from_hook {
        return Ok(None);
    }
    Ok(read_hook_input()?.cwd)
}

/// Whether a verb run from a harness hook (`--hook-input`) has nothing to do: it reads
/// the hook's input, and no session of `actor` runs here.
fn idle_hook(actor: &Actor, hook_input: bool) -> Result<bool, CliError> {
    if !hook_input {
        return Ok(false);
    }
    read_hook_input()?;
    Ok(actor.session.is_none())
}

/// Reports a change to the running session in one line (its full record is `session show`).
fn changed(out: &mut Out, s: &Session, what: &str) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::OneSession { session: s });
    }
    out.note(format!(
        "session {} {what}: {} so far",
        s.id,
        render::usage_text(&s.usage)
    ));
    Ok(())
}
