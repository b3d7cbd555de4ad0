//! `git beads session start`.

use super::prime::print_prime;
use super::{HookArgs, HookInput, read_hook_input};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::AgentName;
use crate::ops::{self, StartOptions};

/// Arguments of `session start`.
#[derive(clap::Args, Debug)]
pub struct StartArgs {
    /// The agent (default: `--as`, `GIT_BEADS_AGENT`, or the agent bound to this worktree).
    #[arg(long)]
    pub agent: Option<AgentName>,
    /// The model this session runs.
    #[arg(long)]
    pub model: Option<String>,
    /// The harness's own session id.
    #[arg(long)]
    pub harness_id: Option<String>,
    /// Supersede a live session of the agent in another worktree or on another host.
    #[arg(long)]
    pub take_over: bool,
    /// How a harness hook runs it.
    #[command(flatten)]
    pub hook: HookArgs,
}

/// Runs `session start`, then prints what `prime` prints (wrapped as context in the
/// JSON a harness that wants JSON on stdout reads).
pub fn run(ctx: &Ctx, a: StartArgs, out: &mut Out) -> Result<(), CliError> {
    let harness = a.hook.harness();
    let wrap = a.hook.on() && harness.start_context("").is_some();
    if wrap {
        out.capture();
    }
    start(ctx, a, out)?;
    if !wrap {
        return Ok(());
    }
    let text = out.take_captured();
    match harness.start_context(&text) {
        Some(v) => out.verbatim(&v.to_string()),
        None => out.verbatim(&text),
    }
}

fn start(ctx: &Ctx, a: StartArgs, out: &mut Out) -> Result<(), CliError> {
    let input = if a.hook.on() {
        read_hook_input()?
    } else {
        HookInput::default()
    };
    let acting = ctx.actor()?;
    let agent = match a.agent.or(acting.agent) {
        Some(agent) => agent,
        None if a.hook.on() => return print_prime(ctx, out, true),
        None => {
            return Err(CliError::user("no agent to start a session for").hint(
                "pass --agent NAME, or bind this worktree with `git beads agent bind NAME`",
            ));
        }
    };
    let s = ops::start_session(
        &ctx.store,
        &agent,
        StartOptions {
            model: a.model,
            harness_id: a.harness_id.or(input.session_id),
            take_over: a.take_over,
            resumes: None,
        },
    )?;
    // A start by the same harness session continues it: only its heartbeat moved.
    let verb = if s.heartbeat_at == s.started_at {
        "started"
    } else {
        "continued"
    };
    out.note(format!("session {} {verb} for agent {agent}", s.id));
    print_prime(ctx, out, a.hook.on())
}
