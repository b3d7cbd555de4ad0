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
use crate::model::{AgentName, GIT_HOOK_NAMES};
use crate::ops;
use std::ffi::OsString;

/// Arguments of `git-hook`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The git hook (post-checkout, post-commit, prepare-commit-msg, post-merge,
    /// post-rewrite, pre-push); git-beads installs no post-commit hook, but a hook line
    /// that calls it writes the note at once.
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

/// A git hook called exactly as the shims call it: `git-beads git-hook NAME ARGS…`,
/// with no option before the hook's name.
#[derive(Debug)]
pub struct Quick {
    /// The hook.
    name: String,
    /// git's arguments.
    args: Vec<String>,
    /// The agent `GIT_BEADS_AGENT` names.
    agent: Option<AgentName>,
}

/// The hook `argv` (the whole command line, program first) asks for, read without
/// building the parser of every command: git runs two hooks per commit, and
/// building that parser costs more than the rest of a hook's start. `None` for any
/// other command line, or one the parser should judge (an option before the name,
/// a name that is no git hook, an argument or `GIT_BEADS_AGENT` that is not valid).
pub fn quick(argv: &[OsString]) -> Option<Quick> {
    let [_, command, name, rest @ ..] = argv else {
        return None;
    };
    if command != "git-hook" || !git::is_git_hook(name.to_str()?) {
        return None;
    }
    let agent = crate::cli::agent_from_env().ok()?;
    let args = rest
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    Some(Quick {
        name: name.to_str()?.to_owned(),
        args,
        agent,
    })
}

/// Runs a hook [`quick`] read, as `git-hook` would.
pub fn run_quick(q: Quick) -> Result<(), CliError> {
    let mut out = Out::new(false, false);
    let store = ops::discover(&std::env::current_dir()?)?;
    // prepare-commit-msg runs on every commit (when its shim cannot add the trailers
    // itself): it leaves the fold to the next command.
    if q.name != "prepare-commit-msg" {
        crate::cli::fold_commit_notes(&store);
    }
    let ctx = Ctx::new(store, q.agent, false, None);
    run_hook(&ctx, &q.name, &q.args, &mut out)?;
    out.finish()
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
