//! The command line: clap definitions, one file per command (or per noun with its
//! verbs) under `commands/`, the error type and the renderer.

pub mod commands;
pub mod error;
pub mod lazy;
pub mod man;
pub mod output;
pub mod render;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::model::{self, Actor, AgentName, Layout};
use crate::ops::{self, Store};
use crate::settings;
use commands as c;
use error::{CliError, Kind};
use output::Out;

/// git-beads: work items, agents, mail, workflows and sessions for AI agent
/// workforces, stored in the git repository itself.
#[derive(Parser, Debug)]
#[command(name = "git-beads", bin_name = "git beads", version, about, long_about = None)]
#[command(propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// The flags every command takes.
    #[command(flatten)]
    pub globals: Globals,
    /// The command.
    #[command(subcommand)]
    pub command: c::Command,
}

/// The heading the flags every command takes are listed under, after the command's own.
const GLOBAL: &str = "Global options";

/// The flags every command takes, before or after its name.
#[derive(clap::Args, Debug, Default)]
pub struct Globals {
    /// Print results as a versioned JSON document on stdout.
    #[arg(long, global = true, help_heading = GLOBAL, display_order = 901)]
    pub json: bool,
    /// Say nothing on stderr except errors and warnings.
    #[arg(short, long, global = true, help_heading = GLOBAL, display_order = 902)]
    pub quiet: bool,
    /// Act as this agent (overrides GIT_BEADS_AGENT and the worktree's binding).
    #[arg(long = "as", value_name = "AGENT", global = true, help_heading = GLOBAL, display_order = 903)]
    pub as_agent: Option<AgentName>,
    /// Act as yourself (your git identity), ignoring `GIT_BEADS_AGENT` and the worktree's binding.
    #[arg(long, global = true, conflicts_with = "as_agent", help_heading = GLOBAL, display_order = 904)]
    pub as_person: bool,
    /// bd's actor name: act as the agent of that name when there is one, otherwise as
    /// yourself recorded under that name (created_by, updated_by, claims).
    #[arg(long, value_name = "NAME", global = true, conflicts_with_all = ["as_agent", "as_person"], help_heading = GLOBAL, display_order = 905)]
    pub actor: Option<String>,
    /// bd's sandbox mode (no daemon, no auto-sync). git-beads has neither: it syncs
    /// only when asked, so the flag changes nothing; it is taken so bd's tools (beads-ui
    /// passes it on every call) run unchanged.
    #[arg(long, global = true, help_heading = GLOBAL, display_order = 906)]
    pub sandbox: bool,
    /// bd's leave to read a database that may lag its export. git-beads reads the
    /// store at its head, which is never stale, so the flag changes nothing; it is
    /// taken so Gas Town's calls run unchanged.
    #[arg(long = "allow-stale", global = true)]
    pub allow_stale: bool,
}

impl Cli {
    /// The command line of a harness hook ([`c::session::quick`]): no global flag,
    /// the agent from `GIT_BEADS_AGENT`; `None` when that is no agent name (the full
    /// path then says so).
    fn for_hook(verb: c::session::SessionCommand) -> Option<Cli> {
        Some(Cli {
            globals: Globals {
                as_agent: agent_from_env().ok()?,
                ..Globals::default()
            },
            command: c::Command::Session(lazy::Lazy(verb)),
        })
    }
}

/// The agent `GIT_BEADS_AGENT` names: none when it is unset or empty, a usage error
/// when it is no agent name.
pub(crate) fn agent_from_env() -> Result<Option<AgentName>, CliError> {
    const VAR: &str = "GIT_BEADS_AGENT";
    match std::env::var_os(VAR) {
        Some(v) if !v.is_empty() => {
            let bad = |why: String| CliError::new(Kind::Usage, format!("{VAR}: {why}"));
            let name = v.to_str().ok_or_else(|| bad("not UTF-8".into()))?;
            name.parse()
                .map(Some)
                .map_err(|e: model::AgentError| bad(e.to_string()))
        }
        _ => Ok(None),
    }
}

/// bd's actor name from its environment: `BEADS_ACTOR`, else `BD_ACTOR` (the older
/// name, which Gas Town sets), as bd reads them; `None` when both are unset or empty.
pub(crate) fn actor_from_env() -> Option<String> {
    ["BEADS_ACTOR", "BD_ACTOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
}

/// What named the agent a command acts as (`whoami` says which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedBy {
    /// A variable (`GIT_BEADS_AGENT`, `BD_ACTOR`) set for the command.
    Env,
    /// `--actor`.
    ActorFlag,
    /// `--as`.
    AsFlag,
}

impl NamedBy {
    /// Its word in `whoami`'s output: `env`, `actor-flag`, `as-flag`.
    pub fn as_str(self) -> &'static str {
        match self {
            NamedBy::Env => "env",
            NamedBy::ActorFlag => "actor-flag",
            NamedBy::AsFlag => "as-flag",
        }
    }

    /// Why that names the agent, in words for a person.
    pub fn reason(self) -> &'static str {
        match self {
            NamedBy::Env => {
                "a variable (GIT_BEADS_AGENT, BD_ACTOR) names it, for the commands given it"
            }
            NamedBy::ActorFlag => "--actor names it, for this command",
            NamedBy::AsFlag => "--as names it, for this command",
        }
    }
}

/// What every command gets: the store, and who is acting.
pub struct Ctx {
    /// The repository's store.
    pub store: Store,
    /// The agent named by `--as` or `GIT_BEADS_AGENT`.
    pub as_agent: Option<AgentName>,
    /// `--as-person`: act under the git identity whatever is bound.
    pub as_person: bool,
    /// `--actor`: bd's actor name.
    pub actor: Option<String>,
    /// Whether a variable named who acts (`GIT_BEADS_AGENT`, bd's `BD_ACTOR`), not a
    /// flag.
    named_by_env: bool,
    /// When the command acts as an agent outside any session of its, named by no flag
    /// of its own: the agent, and the store's head before the command wrote, to say
    /// so once it has written.
    outside_session: std::cell::OnceCell<(String, Option<String>)>,
}

impl Ctx {
    /// A context acting as `as_agent` (else as the worktree's binding, else the
    /// person), as the person with `as_person`, or as bd's actor name `actor`.
    pub fn new(
        store: Store,
        as_agent: Option<AgentName>,
        as_person: bool,
        actor: Option<String>,
    ) -> Ctx {
        Ctx {
            store,
            as_agent,
            as_person,
            actor,
            named_by_env: false,
            outside_session: Default::default(),
        }
    }

    /// The identity this command acts as: `--as` > `GIT_BEADS_AGENT` > the agent bound
    /// to this worktree > the person's git identity.
    pub fn actor(&self) -> Result<Actor, CliError> {
        Ok(self.acting()?)
    }

    /// [`Ctx::actor`] with the operation's own typed error, for a caller (the MCP
    /// server) that reports errors by their kind.
    pub fn acting(&self) -> ops::Result<Actor> {
        Ok(self.who_acts()?.actor)
    }

    /// Who this command acts as, and why (see [`Ctx::actor`]).
    pub fn who_acts(&self) -> ops::Result<ops::Acting> {
        let acting = ops::acting_given(
            &self.store,
            self.actor.as_deref(),
            self.as_agent.as_ref(),
            self.as_person,
        )?;
        // Only where nothing on the command line named the agent: a variable set
        // earlier, or the worktree's binding, may surprise.
        let implicit = acting.because == ops::ActingBecause::Bound
            || (acting.because == ops::ActingBecause::Named && self.named_by() == NamedBy::Env);
        if let (true, Some(agent), None) = (implicit, &acting.actor.agent, &acting.actor.session) {
            let head = self.store.head()?.map(|h| h.commit.to_string());
            let _ = self.outside_session.set((agent.to_string(), head));
        }
        Ok(acting)
    }

    /// What named the agent this command acts as, when it was named (see
    /// [`ops::ActingBecause::Named`]): a variable, `--actor` or `--as`.
    pub fn named_by(&self) -> NamedBy {
        match (&self.actor, self.named_by_env) {
            (_, true) => NamedBy::Env,
            (Some(_), false) => NamedBy::ActorFlag,
            (None, false) => NamedBy::AsFlag,
        }
    }

    /// Says, in one line, that the command wrote as an agent outside any session of
    /// its, when it did: the commit carries no session to account it to.
    fn say_outside_session(&self, out: &Out) {
        let Some((agent, before)) = self.outside_session.get() else {
            return;
        };
        let now = self
            .store
            .head()
            .ok()
            .flatten()
            .map(|h| h.commit.to_string());
        // A command that started the agent's session (`session start`) wrote in it.
        let in_session = || {
            ops::who_acts(&self.store, self.as_agent.as_ref(), self.as_person)
                .is_ok_and(|a| a.actor.session.is_some())
        };
        if now.is_some() && now != *before && !in_session() {
            out.note(format!(
                "note: this wrote as agent {agent} outside any session of its (`git beads \
                 whoami` says why; `git beads session start` starts one)"
            ));
        }
    }
}

/// Parses `std::env::args`, runs the command and turns the outcome into an exit code.
/// A git hook called the way the shims call it, a harness hook, and the reads bd's
/// tools run most skip the full parser ([`c::git_hook::quick`],
/// [`c::session::quick`], [`c::quick_read`]).
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(hook) = c::git_hook::quick(&args) {
        return exit_code(c::git_hook::run_quick(hook), false);
    }
    if let Some(verb) = c::session::quick(&args)
        && let Some(cli) = Cli::for_hook(verb)
    {
        return exit_code(run(cli), false);
    }
    if let Some(cli) = c::quick_read(&args) {
        let json = cli.globals.json;
        return exit_code(run(cli), json);
    }
    let json = wants_json(&args);
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => return usage_error(&e, json),
        // `--version` answers as `version` does, in the words bd's tools look for.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => {
            let mut out = Out::new(json, false);
            let done = c::version::run(c::version::Args {}, &mut out).and_then(|()| out.finish());
            return exit_code(done, json);
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let json = cli.globals.json;
    exit_code(run(cli), json)
}

/// Whether `args` ask for `--json` (before any `--`), for an error of the parser.
fn wants_json(args: &[std::ffi::OsString]) -> bool {
    (args.iter().skip(1))
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// Longest a value of the command line is shown in an error, in characters.
const SHOWN_VALUE: usize = 200;

/// A command line the parser refused: its message, the values it quotes from the
/// command line escaped and cut short (a value may hold a newline, a terminal's
/// escape sequence, or 100 000 characters), as one JSON error under `--json`.
fn usage_error(e: &clap::Error, json: bool) -> ExitCode {
    use clap::error::{ContextKind, ContextValue};
    let mut text = e.render().to_string();
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        if let Some(ContextValue::String(raw)) = e.get(kind)
            && !raw.is_empty()
        {
            let mut shown: String = raw.chars().take(SHOWN_VALUE).collect();
            if shown.len() < raw.len() {
                shown.push('…');
            }
            text = text.replace(raw.as_str(), &model::escape_controls(&shown, Layout::Line));
        }
    }
    if json {
        let first = text.lines().next().unwrap_or_default();
        let error = CliError::new(Kind::Usage, first.trim_start_matches("error: "));
        return exit_code(Err(error), true);
    }
    output::warn(text.trim_end());
    ExitCode::from(Kind::Usage.exit_code())
}

/// The exit code of a command's outcome, with its error printed (as JSON under
/// `--json`; a closed pipe exits quietly).
fn exit_code(result: Result<(), CliError>, json: bool) -> ExitCode {
    if let Some(why) = ops::unsigned_reason() {
        output::warn(format!(
            "warning: store commits were written unsigned: {} (`git config beads.sign \
             false` stops trying; beads.requireSigned makes it an error)",
            why.replace('\n', " / ")
        ));
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.io == Some(std::io::ErrorKind::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            if json {
                output::json_error(&e);
            } else {
                output::warn(e.render().trim_end());
            }
            ExitCode::from(e.kind.exit_code())
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    let Cli { globals, command } = cli;
    let mut out = Out::new(globals.json, globals.quiet);
    // Commands that need no repository run before one is looked for.
    let Some(command) = c::run_standalone(command, &mut out)? else {
        return out.finish();
    };
    let cwd = std::env::current_dir()?;
    let dir = match c::store_dir(&command)? {
        Some(dir) => cwd.join(dir),
        None => match settings::env(settings::BEADS_DIR).filter(|d| !d.is_empty()) {
            Some(beads_dir) => ops::beads_dir_root(&cwd.join(beads_dir)),
            None => cwd,
        },
    };
    let found = if c::makes_repository(&command) {
        ops::discover_or_create(&dir).map(|(store, made)| {
            if made {
                out.note(format!(
                    "initialized an empty git repository in {}",
                    dir.display()
                ));
            }
            store
        })
    } else {
        ops::discover(&dir)
    };
    let store = match found {
        Ok(store) => store,
        // A harness hook set up for every project (`setup --global`) also runs where
        // there is no repository: there is nothing to do there.
        Err(ops::OpError::Store(ops::StoreError::NotARepo { .. })) if c::from_hook(&command) => {
            return out.finish();
        }
        Err(e) => return Err(e.into()),
    };
    fold_commit_notes(&store);
    // In a town, a bead of another rig is acted on in that rig's store.
    let store = match c::routed_by(&command) {
        Some(id) => ops::routed_store(&store, id)?.unwrap_or(store),
        None => store,
    };
    // `--as`, else GIT_BEADS_AGENT unless `--as-person` or `--actor` says otherwise.
    let flagged = globals.as_agent.is_some();
    let as_agent = match globals.as_agent {
        Some(agent) => Some(agent),
        None if globals.as_person || globals.actor.is_some() => None,
        None => agent_from_env()?,
    };
    // bd's actor variables act as `--actor` does, where nothing above names who acts.
    let (actor, actor_from_env) = match globals.actor {
        None if as_agent.is_none() && !globals.as_person => {
            let actor = actor_from_env();
            let named = actor.is_some();
            (actor, named)
        }
        actor => (actor, false),
    };
    let mut ctx = Ctx::new(store, as_agent, globals.as_person, actor);
    ctx.named_by_env = (ctx.as_agent.is_some() && !flagged) || actor_from_env;
    let done = c::run(&ctx, command, &mut out);
    ctx.say_outside_session(&out);
    done?;
    out.finish()
}

/// Writes the provenance notes of the commits made in sessions since the last fold,
/// before a command reads or changes anything (so each note says what its session
/// was doing at its commit). A failure is one line on stderr: the commits wait for
/// the next command, and the command goes on.
pub(crate) fn fold_commit_notes(store: &ops::Store) {
    if let Err(e) = ops::fold_commit_notes(store) {
        let e = CliError::from(e);
        output::warn(format!(
            "git-beads: the provenance notes of the latest commits were not written yet: {}",
            e.message.replace('\n', " / ")
        ));
    }
}

/// The clap command tree, every command's arguments built (for man pages and
/// completions).
pub fn command() -> clap::Command {
    lazy::whole(Cli::command)
}
