//! `git beads session …`, `prime` and `handoff`: one file per verb.

mod end;
mod flush;
mod guard;
mod handoff;
mod heartbeat;
mod list;
mod log;
mod model;
mod prime;
mod prompt;
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
use crate::hooks::harness::Harness;
use crate::model::{Actor, Session};
use crate::ops;
use crate::wire;

pub use end::EndArgs;
pub use flush::FlushArgs;
pub use guard::GuardArgs;
pub use handoff::{HandoffArgs, run as handoff};
pub use heartbeat::HeartbeatArgs;
pub use list::ListArgs;
pub use model::ModelArgs;
pub(crate) use prime::print_prime;
pub use prime::{PrimeArgs, run as prime};
pub use prompt::PromptArgs;
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
    /// Before a tool call (Claude Code's PreToolUse hook): deny it once the running
    /// session crossed a budget ceiling; print nothing when it may go on.
    Guard(GuardArgs),
    /// Before a prompt (Claude Code's UserPromptSubmit hook): block it over budget, else
    /// add the mail that arrived since the last prompt and a warning when the last turn
    /// cost more than `beads.freshAfter`.
    Prompt(PromptArgs),
    /// Read the harness' transcript and fold the session's local turns into the store
    /// now (Claude Code's PreCompact hook).
    Flush(FlushArgs),
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
    // Gemini CLI shows a hook's stderr to the user whenever its stdout is empty: the
    // notes of every turn would fill the screen.
    if hook_of(&cmd).and_then(|h| h.hook_input) == Some(Harness::Gemini) {
        out.hush();
    }
    match cmd {
        SessionCommand::Start(a) => start::run(ctx, a, out),
        SessionCommand::End(a) => end::run(ctx, a, out),
        SessionCommand::Heartbeat(a) => heartbeat::run(ctx, a, out),
        SessionCommand::Model(a) => model::run(ctx, a, out),
        SessionCommand::Guard(a) => guard::run(ctx, a, out),
        SessionCommand::Prompt(a) => prompt::run(ctx, a, out),
        SessionCommand::Flush(a) => flush::run(ctx, a, out),
        SessionCommand::Usage(a) => usage::run(ctx, a, out),
        SessionCommand::List(a) => list::run(ctx, a, out),
        SessionCommand::Show(a) => show::run(ctx, a, out),
        SessionCommand::Snapshot => snapshot::run(ctx, out),
        SessionCommand::Resume(a) => resume::run(ctx, a, out),
        SessionCommand::Log(a) => log::run(ctx, a, out),
    }
}

/// How a verb run by a harness hook reads its input and answers.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct HookArgs {
    /// Read a harness hook's JSON from stdin and answer in that harness' protocol:
    /// claude (the default), codex or gemini. Does nothing when no session runs here.
    #[arg(
        long,
        value_name = "HARNESS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "claude"
    )]
    pub hook_input: Option<Harness>,
}

impl HookArgs {
    /// Whether a harness hook runs the verb.
    fn on(self) -> bool {
        self.hook_input.is_some()
    }

    /// The harness whose protocol the answer speaks.
    fn harness(self) -> Harness {
        self.hook_input.unwrap_or(Harness::Claude)
    }
}

/// What a harness hook passes on stdin (the fields git-beads uses).
#[derive(Deserialize, Default, Clone)]
struct HookInput {
    session_id: Option<String>,
    /// The directory the harness works in, which the hook process may not run in.
    cwd: Option<PathBuf>,
    /// The session's transcript (Claude Code: JSONL, one object per line).
    transcript_path: Option<PathBuf>,
    /// A subagent's own transcript (Claude Code's SubagentStop).
    agent_transcript_path: Option<PathBuf>,
    /// The event (`Stop`, `SubagentStop`, …).
    hook_event_name: Option<String>,
}

impl HookInput {
    /// The transcript to read, a subagent's own when it has one.
    fn transcript(&self) -> Option<&std::path::Path> {
        self.agent_transcript_path
            .as_deref()
            .or(self.transcript_path.as_deref())
    }

    /// Whether the hook closes one of the session's own turns (a subagent's end does not).
    fn closes_turn(&self) -> bool {
        self.hook_event_name.as_deref() != Some("SubagentStop")
    }
}

/// The hook's input, read from stdin once: the store is opened from its `cwd` before
/// the verb reads the rest.
static HOOK_INPUT: OnceLock<HookInput> = OnceLock::new();

fn read_hook_input() -> Result<HookInput, CliError> {
    if let Some(input) = HOOK_INPUT.get() {
        return Ok(input.clone());
    }
    let mut text = String::new();
    // A PreToolUse input carries the tool's whole input (a file being written): room
    // for large ones, not for an endless stream.
    std::io::stdin().take(64 << 20).read_to_string(&mut text)?;
    let input = if text.trim().is_empty() {
        HookInput::default()
    } else {
        serde_json::from_str(&text)
            .map_err(|e| CliError::user(format!("the hook input on stdin is not JSON: {e}")))?
    };
    Ok(HOOK_INPUT.get_or_init(|| input).clone())
}

/// The command line a harness hook runs, `session VERB --hook-input[=HARNESS]`, read
/// with a parser of the session verbs alone: the hooks run before every tool call and
/// after every turn, and building the parser of every command costs more than
/// most of what the hook does. `None` for any other command line (and for one this
/// parser refuses), which the full parser then reads.
pub fn quick(argv: &[std::ffi::OsString]) -> Option<SessionCommand> {
    /// `git beads session` with nothing but its verbs.
    #[derive(clap::Parser)]
    #[command(name = "git-beads", bin_name = "git beads session")]
    struct Hook {
        #[command(subcommand)]
        verb: SessionCommand,
    }
    let [bin, noun, verb, flag] = argv else {
        return None;
    };
    let flag = flag.to_str()?;
    if noun != "session" || !(flag == "--hook-input" || flag.starts_with("--hook-input=")) {
        return None;
    }
    let hook = <Hook as clap::Parser>::try_parse_from([bin, verb, &flag.into()]).ok()?;
    from_hook(&hook.verb).then_some(hook.verb)
}

/// Where the store of `cmd` is to be opened when it runs from a harness hook
/// (`--hook-input`) whose input names a `cwd`: there, not where the hook process runs.
pub fn hook_dir(cmd: &SessionCommand) -> Result<Option<PathBuf>, CliError> {
    if !from_hook(cmd) {
        return Ok(None);
    }
    Ok(read_hook_input()?.cwd)
}

/// Whether `cmd` runs from a harness hook (`--hook-input`).
pub fn from_hook(cmd: &SessionCommand) -> bool {
    hook_of(cmd).is_some_and(HookArgs::on)
}

/// How `cmd` is run by a harness hook, for the verbs a hook runs.
fn hook_of(cmd: &SessionCommand) -> Option<HookArgs> {
    match cmd {
        SessionCommand::Start(a) => Some(a.hook),
        SessionCommand::End(a) => Some(a.hook),
        SessionCommand::Heartbeat(a) => Some(a.hook),
        SessionCommand::Guard(a) => Some(a.hook),
        SessionCommand::Prompt(a) => Some(a.hook),
        SessionCommand::Flush(a) => Some(a.hook),
        _ => None,
    }
}

/// Whether a verb run from a harness hook (`--hook-input`) has nothing to do: it reads
/// the hook's input, and no session of `actor` runs here.
fn idle_hook(actor: &Actor, hook: HookArgs) -> Result<bool, CliError> {
    if !hook.on() {
        return Ok(false);
    }
    read_hook_input()?;
    Ok(actor.session.is_none())
}

/// Records the turn a harness hook closes, from its transcript, folding the session's
/// local turns into the store as `flush` says; tells on stderr when the turn crossed a
/// ceiling (then the session has ended as `budget`).
fn record_hook_turn(
    ctx: &Ctx,
    actor: &Actor,
    input: &HookInput,
    flush: ops::Flush,
    out: &mut Out,
) -> Result<Session, CliError> {
    let r = ops::record_turn(
        &ctx.store,
        actor,
        ops::TurnOptions {
            transcript: input.transcript(),
            turn: input.closes_turn(),
            flush,
        },
    )?;
    if !r.over.is_empty() {
        out.note(format!(
            "session {} ended over budget ({})",
            r.session.id,
            r.over.join(", ")
        ));
    }
    Ok(r.session)
}

/// Why a harness is told to stop: the session crossed a ceiling and must hand off.
fn budget_reason(session: &crate::model::BeadId, over: &[String]) -> String {
    format!(
        "git-beads: session {session} is over budget ({}); stop and hand off: \
         `git beads handoff -m NOTE` leaves the work for a fresh session",
        over.join(", ")
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn quick_of(args: &[&str]) -> Option<SessionCommand> {
        let argv: Vec<std::ffi::OsString> = ["git-beads"]
            .iter()
            .chain(args)
            .map(|a| (*a).into())
            .collect();
        quick(&argv)
    }

    #[test]
    fn a_harness_hook_line_is_read_by_the_quick_parser_and_nothing_else() {
        assert!(matches!(
            quick_of(&["session", "guard", "--hook-input"]),
            Some(SessionCommand::Guard(a)) if a.hook.harness() == Harness::Claude
        ));
        assert!(matches!(
            quick_of(&["session", "heartbeat", "--hook-input=codex"]),
            Some(SessionCommand::Heartbeat(_))
        ));
        for other in [
            &["session", "guard", "--hook-input=nope"][..],
            &["session", "list", "--hook-input"],
            &["session", "guard", "--json"],
            &["session", "guard"],
            &["list", "guard", "--hook-input"],
            &["session", "guard", "--hook-input", "--json"],
        ] {
            assert!(quick_of(other).is_none(), "{other:?}");
        }
    }
}
