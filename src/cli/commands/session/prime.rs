//! `git beads prime`: what a fresh session needs, also printed by `session start`
//! and `session resume`.

use crate::cli::{Ctx, error::CliError, output::Out, render};
use crate::model::{Actor, Agent, BudgetLeft, EndReason, count};
use crate::ops::{self, Prime};
use crate::wire;

/// Arguments of `prime`.
#[derive(clap::Args, Debug)]
pub struct PrimeArgs {
    /// Print only the memories (`remember`), as bd's hooks of compact contexts ask.
    #[arg(long = "memories-only")]
    pub memories_only: bool,
}

/// Runs `prime`.
pub fn run(ctx: &Ctx, a: PrimeArgs, out: &mut Out) -> Result<(), CliError> {
    if a.memories_only && !out.json {
        return super::super::memory::print_for_prime(ctx, out, true);
    }
    print_prime(ctx, out, false)
}

/// Prints what a fresh session of the acting agent needs: who it is, how it arrived
/// (resumed, handed off), how the last session ended, its hook, mail and budget.
/// Documents that do not parse are named on stderr, or, for a harness hook
/// (`from_hook`), in the output the harness hands the agent, which never sees stderr.
pub(crate) fn print_prime(ctx: &Ctx, out: &mut Out, from_hook: bool) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let p = ops::prime(&ctx.store, &actor)?;
    if !from_hook || out.json {
        out.warn_broken(&p.broken);
    }
    if out.json {
        return out.json(&wire::Primed {
            prime: wire::PrimeReport::from(&p),
        });
    }
    let broken = |out: &mut Out| -> Result<(), CliError> {
        if from_hook {
            for b in &p.broken {
                out.line(Out::broken_line(b))?;
            }
        }
        Ok(())
    };
    let Some(agent) = &p.agent else {
        out.line("# git-beads")?;
        broken(out)?;
        print_unbound(out, &actor, &p)?;
        return super::super::memory::print_for_prime(ctx, out, false);
    };
    out.line(format!("# git-beads: you are agent {}", agent.name))?;
    broken(out)?;
    print_arrival(out, &p)?;
    print_identity(out, agent, &p)?;
    print_previous(out, &p)?;
    print_work(out, agent, &p)?;
    if let Some(f) = &p.fresh {
        out.line(super::prompt::fresh_text(f))?;
    }
    out.line("When done: `git beads close ID`; to pass work on: `git beads handoff -m NOTE`.")?;
    super::super::memory::print_for_prime(ctx, out, false)
}

/// Prime for a worktree where no agent acts: the ready work.
fn print_unbound(out: &mut Out, actor: &Actor, p: &Prime) -> Result<(), CliError> {
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
    out.line(
        "Claim with `git beads update ID --claim`; bind an agent with `git beads agent bind NAME`.",
    )
}

/// The session it resumes and the note the previous one handed off, if any.
fn print_arrival(out: &mut Out, p: &Prime) -> Result<(), CliError> {
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
                "  not restored (over the size cap): {} ({})",
                f.path,
                count(f.size, "byte")
            ))?;
        }
        if !r.after_snapshot.is_empty() {
            out.line(format!(
                "  after that snapshot session {} changed the store (the files behind this may be missing here):",
                r.session
            ))?;
            for e in &r.after_snapshot {
                out.line(format!(
                    "    {} {}",
                    e.commit.get(..7).unwrap_or(&e.commit),
                    e.message.lines().next().unwrap_or_default()
                ))?;
            }
        }
    }
    if let Some(h) = &p.handoff {
        out.line(format!("HANDOFF from your previous session {}:", h.from))?;
        for l in h.note.lines() {
            out.line(format!("  {l}"))?;
        }
    }
    Ok(())
}

/// The agent's role and parent, and the running session.
fn print_identity(out: &mut Out, agent: &Agent, p: &Prime) -> Result<(), CliError> {
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
            "Session {} ({}), started {}{}.",
            s.id,
            s.model.as_deref().unwrap_or("model not recorded"),
            s.started_at.format("%Y-%m-%d %H:%M"),
            p.evidence
                .map(|n| format!("; evidence at {}", grouped(n)))
                .unwrap_or_default()
        ))?;
    }
    Ok(())
}

/// How the previous session ended.
fn print_previous(out: &mut Out, p: &Prime) -> Result<(), CliError> {
    let Some(prev) = &p.previous else {
        return Ok(());
    };
    match (&prev.end, &prev.crash) {
        (Some(EndReason::Crashed), Some(c)) => out.line(format!(
            "The last session {} CRASHED (last heartbeat {}){}.",
            prev.id,
            c.last_heartbeat.format("%Y-%m-%d %H:%M"),
            c.step.as_ref().map(|s| format!(" {s}")).unwrap_or_default()
        )),
        (Some(end), _) => out.line(format!("The last session {} ended: {end}.", prev.id)),
        (None, _) => out.line(format!(
            "The last session {} is still marked running.",
            prev.id
        )),
    }
}

/// The hook, the unread mail and the budget left.
fn print_work(out: &mut Out, agent: &Agent, p: &Prime) -> Result<(), CliError> {
    // A hooked bead whose document does not parse is left out here and named as broken.
    if agent.hook.is_empty() {
        out.line("Your hook is empty: take work with `git beads ready --claim`.")?;
    } else {
        out.line("On your hook:")?;
        for item in &p.hook {
            render::hook_item(out, item)?;
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
    Ok(())
}

fn left_text(l: &BudgetLeft) -> String {
    let mut parts = Vec::new();
    if let Some(t) = l.tokens {
        parts.push(count(t, "token"));
    }
    if let Some(s) = l.spend {
        parts.push(format!("${s:.2}"));
    }
    if let Some(t) = l.tool_calls {
        parts.push(count(t, "tool call"));
    }
    if let Some(w) = l.wall_secs {
        parts.push(format!("{}m wall time", w / 60));
    }
    parts.join(", ")
}

/// `n` with its thousands set apart by spaces, as people read a count: `4 812`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_count_reads_in_groups_of_three() {
        for (n, text) in [
            (0, "0"),
            (812, "812"),
            (4812, "4 812"),
            (1_234_567, "1 234 567"),
        ] {
            assert_eq!(super::grouped(n), text);
        }
    }
}
