//! The command line: clap definitions, one file per command (or per noun with its
//! verbs) under `commands/`, the error type and the renderer.

pub mod commands;
pub mod error;
pub mod output;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::model::{Actor, AgentName};
use crate::store::Store;
use commands as c;
use error::{CliError, Kind};
use output::Out;

/// git-beads: work items, agents, mail, workflows and sessions for AI agent
/// workforces, stored in the git repository itself.
#[derive(Parser, Debug)]
#[command(name = "git-beads", bin_name = "git beads", version, about, long_about = None)]
#[command(propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// Print results as a versioned JSON document on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// Say nothing on stderr except errors and warnings.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Act as this agent (overrides GIT_BEADS_AGENT and the worktree's binding).
    #[arg(
        long = "as",
        value_name = "AGENT",
        env = "GIT_BEADS_AGENT",
        global = true
    )]
    pub as_agent: Option<AgentName>,
    /// Act as yourself (your git identity), ignoring `GIT_BEADS_AGENT` and the worktree's binding.
    #[arg(long, global = true, conflicts_with = "as_agent")]
    pub as_person: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Every command; adding one means one file, one variant, one match arm.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create the beads store in this repository (idempotent).
    Init(c::init::Args),
    /// Create a bead and print its id.
    Create(c::create::Args),
    /// Show beads in full.
    Show(c::show::Args),
    /// List beads (open ones by default).
    List(c::list::ListArgs),
    /// Change fields of a bead, or claim it.
    Update(c::update::UpdateArgs),
    /// Close beads.
    Close(c::update::CloseArgs),
    /// Reopen closed beads.
    Reopen(c::update::ReopenArgs),
    /// Delete beads (they become tombstones that sync as deletions).
    Delete(c::update::DeleteArgs),
    /// Show a bead's comments, or add one.
    Comments(c::comments::CommentsArgs),
    /// Add a comment to a bead (same as `comments add`).
    Comment(c::comments::AddArgs),
    /// Manage dependencies between beads.
    #[command(subcommand)]
    Dep(c::dep::DepCommand),
    /// Manage labels.
    #[command(subcommand)]
    Label(c::label::LabelCommand),
    /// Show open beads that nothing unfinished blocks: the work queue.
    Ready(c::list::ReadyArgs),
    /// Show what blocks what.
    Blocked(c::list::BlockedArgs),
    /// Find beads by text in their id, title or description.
    Search(c::list::SearchArgs),
    /// Show the history of the store or of one bead.
    Log(c::log::Args),
    /// Manage agents: persistent identities with a hook, a parent and a budget.
    #[command(subcommand)]
    Agent(c::agent::AgentCommand),
    /// Put a bead (or molecule) on an agent's hook.
    Sling(c::sling::SlingArgs),
    /// Take work off an agent's hook.
    Unsling(c::sling::UnslingArgs),
    /// Show the work on an agent's hook.
    Hook(c::sling::HookArgs),
    /// Manage sessions: each run of an agent.
    #[command(subcommand)]
    Session(c::session::SessionCommand),
    /// Print what a fresh session needs: who you are, your hook, how the last session ended.
    Prime(c::session::PrimeArgs),
    /// Leave a note for your next session and end this one.
    Handoff(c::session::HandoffArgs),
    /// Wire an agent harness to git-beads sessions.
    #[command(subcommand)]
    Setup(c::setup::SetupCommand),
}

/// What every command gets: the store, and who is acting.
pub struct Ctx {
    /// The repository's store.
    pub store: Store,
    /// The agent named by `--as` or `GIT_BEADS_AGENT`.
    pub as_agent: Option<AgentName>,
    /// `--as-person`: act under the git identity whatever is bound.
    pub as_person: bool,
}

impl Ctx {
    /// The identity this command acts as: `--as` > `GIT_BEADS_AGENT` > the agent bound
    /// to this worktree > the person's git identity.
    pub fn actor(&self) -> Result<Actor, CliError> {
        if self.as_person {
            return Ok(crate::ops::whoami(&self.store)?);
        }
        Ok(crate::ops::acting(&self.store, self.as_agent.as_ref())?)
    }
}

/// Parses `std::env::args`, runs the command and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Kind::Usage.exit_code()
            } else {
                0
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.message.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(e) => {
            eprint!("{}", e.render());
            ExitCode::from(e.kind.exit_code())
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    let cwd = std::env::current_dir()?;
    let ctx = Ctx {
        store: Store::discover(&cwd)?,
        as_agent: cli.as_agent,
        as_person: cli.as_person,
    };
    let mut out = Out::new(cli.json, cli.quiet);
    match cli.command {
        Command::Init(a) => c::init::run(&ctx, a, &mut out),
        Command::Create(a) => c::create::run(&ctx, a, &mut out),
        Command::Show(a) => c::show::run(&ctx, a, &mut out),
        Command::List(a) => c::list::list(&ctx, a, &mut out),
        Command::Update(a) => c::update::update(&ctx, a, &mut out),
        Command::Close(a) => c::update::close(&ctx, a, &mut out),
        Command::Reopen(a) => c::update::reopen(&ctx, a, &mut out),
        Command::Delete(a) => c::update::delete(&ctx, a, &mut out),
        Command::Comments(a) => c::comments::comments(&ctx, a, &mut out),
        Command::Comment(a) => c::comments::add(&ctx, a, &mut out),
        Command::Dep(a) => c::dep::run(&ctx, a, &mut out),
        Command::Label(a) => c::label::run(&ctx, a, &mut out),
        Command::Ready(a) => c::list::ready(&ctx, a, &mut out),
        Command::Blocked(a) => c::list::blocked(&ctx, a, &mut out),
        Command::Search(a) => c::list::search(&ctx, a, &mut out),
        Command::Log(a) => c::log::run(&ctx, a, &mut out),
        Command::Agent(a) => c::agent::run(&ctx, a, &mut out),
        Command::Sling(a) => c::sling::sling(&ctx, a, &mut out),
        Command::Unsling(a) => c::sling::unsling(&ctx, a, &mut out),
        Command::Hook(a) => c::sling::hook(&ctx, a, &mut out),
        Command::Session(a) => c::session::run(&ctx, a, &mut out),
        Command::Prime(a) => c::session::prime(&ctx, a, &mut out),
        Command::Handoff(a) => c::session::handoff(&ctx, a, &mut out),
        Command::Setup(a) => c::setup::run(&ctx, a, &mut out),
    }?;
    out.finish()
}

/// The clap command tree (for man pages and completions).
pub fn command() -> clap::Command {
    Cli::command()
}
