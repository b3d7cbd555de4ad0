//! `git beads git-hook NAME ARGS…`: runs git-beads' handler of a git hook with git's
//! arguments; what the shims `git beads hooks install` writes call (hidden: git runs
//! it, people do not). Shims of earlier versions call `git beads hook NAME ARGS…`,
//! which comes here too.

use crate::cli::{
    Ctx,
    error::CliError,
    output::{self, Out},
};
use crate::hooks::git::{self, Who};
use crate::hooks::install::STRICT_KEY;
use crate::model::GIT_HOOK_NAMES;
use crate::ops;

/// Arguments of `git-hook`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The git hook (post-checkout, post-commit, prepare-commit-msg, post-merge,
    /// post-rewrite, pre-push).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(GIT_HOOK_NAMES))]
    pub name: String,
    /// The hook's arguments, as git passed them.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// Runs `git-hook`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    run_hook(ctx, &a.name, &a.args, out)
}

/// Runs git hook `name` (what the installed shims call). A failure prints one line on
/// stderr and lets git go on, unless `beads.hooks.strict` is true: then it is an error
/// (exit status ≠ 0), which stops git where git lets a hook stop it.
pub fn run_hook(ctx: &Ctx, name: &str, args: &[String], out: &mut Out) -> Result<(), CliError> {
    let who = Who {
        agent: ctx.as_agent.as_ref(),
        as_person: ctx.as_person,
    };
    match git::run(&ctx.store, who, name, args) {
        Ok(said) => {
            for line in said {
                out.note(line);
            }
            Ok(())
        }
        Err(e) => {
            if ops::config_bool(&ctx.store, STRICT_KEY).unwrap_or(false) {
                let err: CliError = e.into();
                return Err(err.hint(format!(
                    "the {name} hook is strict ({STRICT_KEY}=true); `git config {STRICT_KEY} false` lets git go on despite such failures"
                )));
            }
            let err: CliError = e.into();
            let mut text = err.message;
            for c in &err.causes {
                text.push_str(": ");
                text.push_str(c);
            }
            output::warn(format!(
                "git-beads: the {name} hook failed and was skipped: {}",
                text.replace('\n', " / ")
            ));
            Ok(())
        }
    }
}
