//! `git beads session prompt`: what a harness hears before each new prompt.

use super::{HookArgs, budget_reason, read_hook_input};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self, Fresh, FreshAfter, Verdict};

/// Arguments of `session prompt`.
#[derive(clap::Args, Debug)]
pub struct PromptArgs {
    /// How a harness hook runs it.
    #[command(flatten)]
    pub hook: HookArgs,
}

/// Runs `session prompt`: blocks the prompt of a session over budget; else adds, as
/// context, the mail that arrived since the last prompt and a word when the last turn
/// cost more than `beads.freshAfter`. Prints nothing when there is nothing to say.
pub fn run(ctx: &Ctx, a: PromptArgs, out: &mut Out) -> Result<(), CliError> {
    if a.hook.on() {
        read_hook_input()?;
    }
    let actor = ctx.actor()?;
    let c = ops::prompt_context(&ctx.store, &actor)?;
    if let Verdict::Deny {
        session,
        over,
        ended,
        ..
    } = &c.verdict
    {
        if !ended {
            ops::end_over_budget(&ctx.store, &actor, over.clone())?;
        }
        let reason = budget_reason(session, over);
        return if a.hook.on() {
            out.verbatim(&a.hook.harness().block_prompt(&reason).to_string())
        } else {
            out.line(reason)
        };
    }
    let mut lines = Vec::new();
    if let Some(f) = &c.fresh {
        lines.push(fresh_text(f));
    }
    if !c.mail.is_empty() {
        lines.push("New mail (read it with `git beads mail read ID`):".to_owned());
        for m in &c.mail {
            lines.push(format!(
                "  {} P{} from {}: {}",
                m.id, m.priority, m.from, m.subject
            ));
        }
    }
    if lines.is_empty() {
        return Ok(());
    }
    let text = lines.join("\n");
    if a.hook.on() {
        out.verbatim(&a.hook.harness().prompt_context(&text).to_string())
    } else {
        out.line(text)
    }
}

/// The word to a session whose last turn cost more than `beads.freshAfter`.
pub(super) fn fresh_text(f: &Fresh) -> String {
    let limit = match f.after {
        FreshAfter::Tokens(t) => format!("{t} tokens"),
        FreshAfter::Spend(d) => format!("${d:.2}"),
    };
    format!(
        "The last turn cost {} tokens (${:.2}), more than beads.freshAfter ({limit}): a fresh \
         session would be cheaper; hand off with `git beads handoff -m NOTE`.",
        f.line.tokens, f.line.spend
    )
}
