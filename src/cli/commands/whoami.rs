//! `git beads whoami`: who a command run here would act as, and why.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::ActingBecause;
use crate::wire;

/// Arguments of `whoami`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `whoami`: the actor, then why, the way the rules of who acts go (a flag or
/// variable given to the command, the worktree bound on purpose, a session running
/// here, else the person).
pub fn run(ctx: &Ctx, _args: Args, out: &mut Out) -> Result<(), CliError> {
    let acting = ctx.who_acts()?;
    let actor = &acting.actor;
    let session = actor.session.as_ref().map(ToString::to_string);
    let (because, reason) = match acting.because {
        ActingBecause::Named => (ctx.named_by().as_str(), ctx.named_by().reason()),
        ActingBecause::Bound => (
            "bound",
            "this worktree is bound to it (agent bind, worktree add, or its branch) until \
             agent unbind",
        ),
        ActingBecause::Session => (
            "session",
            "its session runs in this worktree; the binding ends when the session does",
        ),
        ActingBecause::Person => (
            "person",
            "nothing names an agent here: your git identity (user.name, user.email)",
        ),
        ActingBecause::AsPerson => ("as-person", "--as-person, for this command"),
    };
    if out.json {
        return out.json(&wire::Whoami {
            actor: &actor.id,
            name: &actor.name,
            email: &actor.email,
            agent: actor.agent.is_some(),
            session: session.as_deref(),
            because,
            reason,
        });
    }
    let who = match (&actor.agent, &session) {
        (Some(_), Some(s)) => format!("{} (agent, session {s})", actor.id),
        (Some(_), None) => format!("{} (agent, outside any session)", actor.id),
        (None, _) => format!("{} <{}> (person)", actor.name, actor.email),
    };
    out.line(who)?;
    out.line(format!("because {reason}"))
}
