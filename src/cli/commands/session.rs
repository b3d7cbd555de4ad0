//! `git beads session …`, `prime` and `handoff`.

use std::io::Read;

use serde::Deserialize;

use super::agent::budget_text;
use super::sling::print_hook_item;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{AgentName, BeadId, BudgetLeft, EndReason, Session};
use crate::ops::{self, StartOptions, UsageReport};
use crate::wire;

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

/// Arguments of `session resume`.
#[derive(clap::Args, Debug)]
pub struct ResumeArgs {
    /// The session to resume.
    pub id: BeadId,
    /// The worktree to resume in (created when it does not exist; default: this one).
    #[arg(long)]
    pub worktree: Option<std::path::PathBuf>,
    /// Overwrite a worktree that has uncommitted changes.
    #[arg(long)]
    pub force: bool,
}

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
    /// Read a harness hook's JSON from stdin (Claude Code: session_id, cwd, source, …).
    #[arg(long)]
    pub hook_input: bool,
}

/// Arguments of `session end`.
#[derive(clap::Args, Debug)]
pub struct EndArgs {
    /// Why it ends.
    #[arg(long, default_value = "clean")]
    pub reason: EndReason,
    /// Read a harness hook's JSON from stdin; do nothing when no session runs here.
    #[arg(long)]
    pub hook_input: bool,
}

/// Arguments of `session heartbeat`.
#[derive(clap::Args, Debug)]
pub struct HeartbeatArgs {
    /// Read a harness hook's JSON from stdin; do nothing when no session runs here.
    #[arg(long)]
    pub hook_input: bool,
}

/// Arguments of `session model`.
#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// The model now running.
    pub model: String,
}

/// Arguments of `session usage`.
#[derive(clap::Args, Debug)]
pub struct UsageArgs {
    /// This closes a turn.
    #[arg(long)]
    pub turn: bool,
    /// Tokens used.
    #[arg(long, default_value = "0")]
    pub tokens: u64,
    /// Dollars spent.
    #[arg(long, default_value = "0")]
    pub spend: f64,
    /// Tool calls made.
    #[arg(long, default_value = "0")]
    pub tool_calls: u64,
}

/// Arguments of `session list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Only this agent's sessions.
    #[arg(long)]
    pub agent: Option<AgentName>,
}

/// Arguments of `session show`.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The session.
    pub id: BeadId,
}

/// Arguments of `prime`.
#[derive(clap::Args, Debug)]
pub struct PrimeArgs {}

/// Arguments of `handoff`.
#[derive(clap::Args, Debug)]
pub struct HandoffArgs {
    /// The note for the next session.
    #[arg(short, long)]
    pub message: String,
}

/// What a harness hook passes on stdin (the fields git-beads uses).
#[derive(Deserialize, Default)]
struct HookInput {
    session_id: Option<String>,
}

fn read_hook_input() -> Result<HookInput, CliError> {
    let mut text = String::new();
    std::io::stdin().take(1 << 20).read_to_string(&mut text)?;
    if text.trim().is_empty() {
        return Ok(HookInput::default());
    }
    serde_json::from_str(&text)
        .map_err(|e| CliError::user(format!("the hook input on stdin is not JSON: {e}")))
}

/// Runs `session`.
pub fn run(ctx: &Ctx, cmd: SessionCommand, out: &mut Out) -> Result<(), CliError> {
    let session = match cmd {
        SessionCommand::Start(a) => return start(ctx, a, out),
        SessionCommand::End(a) => {
            let actor = ctx.actor()?;
            if a.hook_input {
                read_hook_input()?;
                if actor.session.is_none() {
                    return Ok(());
                }
            }
            let s = ops::end_session(&ctx.store, &actor, a.reason)?;
            return changed(out, &s, &format!("ended ({})", a.reason));
        }
        SessionCommand::Heartbeat(a) => {
            let actor = ctx.actor()?;
            if a.hook_input {
                read_hook_input()?;
                if actor.session.is_none() {
                    return Ok(());
                }
            }
            let s = ops::heartbeat(&ctx.store, &actor)?;
            return changed(out, &s, "is alive");
        }
        SessionCommand::Model(a) => {
            let s = ops::swap_model(&ctx.store, &ctx.actor()?, &a.model)?;
            return changed(out, &s, &format!("now runs {}", a.model));
        }
        SessionCommand::Usage(a) => {
            let s = ops::record_usage(
                &ctx.store,
                &ctx.actor()?,
                UsageReport {
                    turn: a.turn,
                    tokens: a.tokens,
                    spend: a.spend,
                    tool_calls: a.tool_calls,
                },
            )?;
            return changed(out, &s, "usage recorded");
        }
        SessionCommand::List(a) => {
            let sessions = ops::list_sessions(&ctx.store, a.agent.as_ref())?;
            if out.json {
                return out.json(&wire::Sessions {
                    sessions: &sessions,
                });
            }
            for s in &sessions {
                out.line(format!(
                    "{:<16} {:<24} {} {:<10} {} turns, {} tokens, ${:.2}, {} tool calls",
                    s.id,
                    s.agent,
                    s.started_at.format("%Y-%m-%d %H:%M"),
                    s.end.map(|e| e.as_str()).unwrap_or("running"),
                    s.usage.turns,
                    s.usage.tokens,
                    s.usage.spend,
                    s.usage.tool_calls
                ))?;
            }
            return Ok(());
        }
        SessionCommand::Show(a) => ops::show_session(&ctx.store, &a.id)?,
        SessionCommand::Snapshot => {
            let (s, snap) = ops::snapshot(&ctx.store, &ctx.actor()?)?;
            if out.json {
                return out.json(&wire::Snapped {
                    session: &s,
                    snapshot: snap.as_ref(),
                });
            }
            match snap {
                Some(x) => out.note(format!(
                    "snapshot {} of session {}: tree {}{}",
                    x.n,
                    s.id,
                    x.tree,
                    if x.skipped.is_empty() {
                        String::new()
                    } else {
                        format!(", {} files over the size cap left out", x.skipped.len())
                    }
                )),
                None => out.note("nothing changed since the last snapshot"),
            }
            return Ok(());
        }
        SessionCommand::Resume(a) => {
            let r = ops::resume(&ctx.store, &a.id, a.worktree.as_deref(), a.force)?;
            if out.json {
                return out.json(&wire::Resumed::from(&r));
            }
            out.note(format!(
                "resumed {} as session {} in {}",
                r.from,
                r.session.id,
                r.worktree.display()
            ));
            let there = Ctx {
                store: crate::ops::discover(&r.worktree)?,
                as_agent: Some(r.session.agent.clone()),
                as_person: false,
            };
            return print_prime(&there, out);
        }
        SessionCommand::Log(a) => {
            let entries = ops::session_log(&ctx.store, &a.id)?;
            return super::log::print(out, &entries);
        }
    };
    if out.json {
        return out.json(&wire::OneSession { session: &session });
    }
    print_session(out, &session)
}

/// Reports a change to the running session in one line (its full record is `session show`).
fn changed(out: &mut Out, s: &Session, what: &str) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::OneSession { session: s });
    }
    out.note(format!(
        "session {} {what}: {} turns, {} tokens, ${:.2}, {} tool calls so far",
        s.id, s.usage.turns, s.usage.tokens, s.usage.spend, s.usage.tool_calls
    ));
    Ok(())
}

fn start(ctx: &Ctx, a: StartArgs, out: &mut Out) -> Result<(), CliError> {
    let input = if a.hook_input {
        read_hook_input()?
    } else {
        HookInput::default()
    };
    let acting = ctx.actor()?;
    let agent = match a.agent.or(acting.agent) {
        Some(agent) => agent,
        None if a.hook_input => return print_prime(ctx, out),
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
    print_prime(ctx, out)
}

/// Runs `prime`.
pub fn prime(ctx: &Ctx, _a: PrimeArgs, out: &mut Out) -> Result<(), CliError> {
    print_prime(ctx, out)
}

/// Runs `handoff`.
pub fn handoff(ctx: &Ctx, a: HandoffArgs, out: &mut Out) -> Result<(), CliError> {
    let s = ops::handoff(&ctx.store, &ctx.actor()?, &a.message)?;
    if out.json {
        return out.json(&wire::OneSession { session: &s });
    }
    out.note(format!(
        "session {} handed off; the next session of {} will see the note first",
        s.id, s.agent
    ));
    Ok(())
}

fn print_prime(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let p = ops::prime(&ctx.store, &actor)?;
    if out.json {
        return out.json(&wire::Primed { prime: &p });
    }
    let Some(agent) = &p.agent else {
        out.line("# git-beads")?;
        out.line(format!(
            "No agent acts in this worktree; you are {}.",
            actor.id
        ))?;
        if p.ready.is_empty() {
            out.line("Nothing is ready.")?;
        } else {
            out.line("Ready work (`git beads ready`):")?;
            for r in &p.ready {
                out.line(format!("  {r}"))?;
            }
        }
        return out.line("Claim with `git beads update ID --claim`; bind an agent with `git beads agent bind NAME`.");
    };
    out.line(format!("# git-beads: you are agent {}", agent.name))?;
    if let Some(r) = &p.resumed {
        out.line(format!(
            "RESUMED from session {}{}.",
            r.session,
            r.snapshot_at
                .map(|t| format!(", snapshot of {}", t.format("%Y-%m-%d %H:%M:%S")))
                .unwrap_or_else(|| " (it left no snapshot)".into())
        ))?;
        for f in &r.skipped {
            out.line(format!(
                "  not restored (over the size cap): {} ({} bytes)",
                f.path, f.size
            ))?;
        }
    }
    if let Some(h) = &p.handoff {
        out.line(format!("HANDOFF from your previous session {}:", h.from))?;
        for l in h.note.lines() {
            out.line(format!("  {l}"))?;
        }
    }
    let mut who = Vec::new();
    if let Some(r) = &agent.role {
        who.push(format!("role {r}"));
    }
    if let Some(par) = &agent.parent {
        who.push(format!("parent {par}"));
    }
    if !who.is_empty() {
        out.line(who.join(", "))?;
    }
    if let Some(s) = &p.session {
        out.line(format!(
            "Session {} ({}), started {}.",
            s.id,
            s.model.as_deref().unwrap_or("model not recorded"),
            s.started_at.format("%Y-%m-%d %H:%M")
        ))?;
    }
    if let Some(prev) = &p.previous {
        match (&prev.end, &prev.crash) {
            (Some(EndReason::Crashed), Some(c)) => out.line(format!(
                "The last session {} CRASHED (last heartbeat {}){}.",
                prev.id,
                c.last_heartbeat.format("%Y-%m-%d %H:%M"),
                c.step.as_ref().map(|s| format!(" {s}")).unwrap_or_default()
            ))?,
            (Some(end), _) => out.line(format!("The last session {} ended: {end}.", prev.id))?,
            (None, _) => out.line(format!(
                "The last session {} is still marked running.",
                prev.id
            ))?,
        }
    }
    if p.hook.is_empty() {
        out.line("Your hook is empty: take work with `git beads ready --claim`.")?;
    } else {
        out.line("On your hook:")?;
        for item in &p.hook {
            print_hook_item(out, item)?;
        }
    }
    if p.unread_mail > 0 {
        out.line(format!(
            "Unread mail: {} (`git beads mail inbox`)",
            p.unread_mail
        ))?;
        for m in &p.mail {
            out.line(format!(
                "  {} P{} from {}: {}",
                m.id, m.priority, m.from, m.subject
            ))?;
        }
    }
    if let Some(left) = p.budget_left.as_ref().filter(|l| !l.is_empty()) {
        out.line(format!("Budget left: {}", left_text(left)))?;
    }
    out.line("When done: `git beads close ID`; to pass work on: `git beads handoff -m NOTE`.")
}

fn left_text(l: &BudgetLeft) -> String {
    let mut parts = Vec::new();
    if let Some(t) = l.tokens {
        parts.push(format!("{t} tokens"));
    }
    if let Some(s) = l.spend {
        parts.push(format!("${s:.2}"));
    }
    if let Some(t) = l.tool_calls {
        parts.push(format!("{t} tool calls"));
    }
    if let Some(w) = l.wall_secs {
        parts.push(format!("{}m wall time", w / 60));
    }
    parts.join(", ")
}

fn print_session(out: &mut Out, s: &Session) -> Result<(), CliError> {
    out.line(format!("session {} of agent {}", s.id, s.agent))?;
    out.line(format!("  worktree {} on {}", s.worktree, s.host))?;
    if let Some(h) = &s.harness_id {
        out.line(format!("  harness session {h}"))?;
    }
    out.line(format!(
        "  model {}{}",
        s.model.as_deref().unwrap_or("-"),
        if s.models.is_empty() {
            String::new()
        } else {
            format!(" ({} swaps)", s.models.len())
        }
    ))?;
    out.line(format!(
        "  started {}, last heartbeat {}",
        s.started_at.format("%Y-%m-%d %H:%M:%S"),
        s.heartbeat_at.format("%Y-%m-%d %H:%M:%S")
    ))?;
    match (s.end, s.ended_at) {
        (Some(end), Some(at)) => out.line(format!(
            "  ended {} ({end})",
            at.format("%Y-%m-%d %H:%M:%S")
        ))?,
        _ => out.line("  running")?,
    }
    out.line(format!(
        "  usage: {} turns, {} tokens, ${:.2}, {} tool calls",
        s.usage.turns, s.usage.tokens, s.usage.spend, s.usage.tool_calls
    ))?;
    if !s.authority.budget.is_empty() {
        out.line(format!("  budget: {}", budget_text(&s.authority.budget)))?;
    }
    out.line(format!(
        "  store at start {}{}",
        s.store_at_start,
        s.store_at_end
            .as_ref()
            .map(|e| format!(", at end {e}"))
            .unwrap_or_default()
    ))?;
    if let Some(h) = &s.handoff {
        out.line(format!("  handoff note: {h}"))?;
    }
    if let Some(c) = &s.crash {
        out.line(format!(
            "  crash detected {}{}",
            c.detected_at.format("%Y-%m-%d %H:%M:%S"),
            c.step
                .as_ref()
                .map(|st| format!(", at {st}"))
                .unwrap_or_default()
        ))?;
    }
    Ok(())
}
