//! `git beads session guard`: the budget check a harness runs before every tool call.

use super::{HookArgs, budget_reason, read_hook_input};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self, OpError, SessionError, Verdict};

/// Arguments of `session guard`.
#[derive(clap::Args, Debug)]
pub struct GuardArgs {
    /// How a harness hook runs it.
    #[command(flatten)]
    pub hook: HookArgs,
}

/// Runs `session guard`: prints nothing while the session may go on; once it crossed
/// a ceiling, denies (ending the session as `budget` if no turn did yet).
pub fn run(ctx: &Ctx, a: GuardArgs, out: &mut Out) -> Result<(), CliError> {
    if a.hook.on() {
        read_hook_input()?;
    }
    let Verdict::Deny {
        agent,
        session,
        over,
        ended,
    } = ops::guard(&ctx.store)?
    else {
        return Ok(());
    };
    if !ended {
        ops::end_over_budget(&ctx.store, &ctx.actor()?, over.clone())?;
    }
    if a.hook.on() {
        return out.verbatim(
            &a.hook
                .harness()
                .deny_tool(&budget_reason(&session, &over))
                .to_string(),
        );
    }
    Err(OpError::from(SessionError::BudgetSpent {
        id: session,
        agent,
        over,
    })
    .into())
}
