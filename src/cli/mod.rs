//! The command line: clap definitions, one file per command (or per noun with its
//! verbs) under `commands/`, the error type and the renderer.

pub mod commands;
pub mod error;
pub mod man;
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
    /// Import an export of the beads `bd` tracker (or git-beads' own YAML export).
    ///
    /// The whole import is one commit. Every record becomes a bead, deleted ones (bd
    /// tombstones) included; fields without a place of their own are kept in the bead's
    /// `extra` map, and dependencies with no equivalent in `extra.bd_dependencies`. A bead
    /// already in the store is replaced by the imported one unless the store's copy
    /// changed later, so re-importing an old export never undoes newer work, and
    /// importing the same file twice changes nothing.
    ///
    /// A bad line stops the import with its line number and imports nothing; with
    /// --skip-bad the other lines are imported and the bad ones listed. Progress shows on
    /// stderr when it is a terminal.
    Import(c::import::Args),
    /// Export every bead, as bd JSONL or as YAML.
    ///
    /// Writes every bead, deleted ones included, sorted by id, to stdout or to a file.
    /// `git beads import` reads both formats back: export, import into another
    /// repository and export again gives the same file.
    Export(c::export::Args),
    /// Print a shell completion script (bash, zsh or fish).
    ///
    /// The script completes `git-beads`; for bash it also defines `_git_beads`, which
    /// git's own completion calls for `git beads <TAB>`.
    Completions(c::completions::Args),
    /// Install the manual pages where `man` and `git help beads` find them.
    ///
    /// By default the pages go to <prefix>/share/man/man1, where <prefix>/bin holds this
    /// binary (for `cargo install`, ~/.cargo/share/man). man derives its search path from
    /// PATH and looks there for every <prefix>/bin on PATH, so nothing else needs
    /// configuring, and `git help beads` and `git beads --help` open git-beads(1). Run it
    /// again after an upgrade; it only rewrites pages that changed.
    InstallMan(c::install_man::Args),
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
    /// Send and read mail between agents.
    #[command(subcommand)]
    Mail(c::mail::MailCommand),
    /// Prune old worktree snapshots from the store (their records stay).
    Gc(c::gc::Args),
    /// Check the store and repair what is safe.
    Doctor(c::doctor::Args),
    /// List, show and check formulas: YAML templates of workflows.
    #[command(subcommand, after_long_help = crate::model::FORMULA_FORMAT)]
    Formula(c::formula::FormulaCommand),
    /// Pour formulas into molecules (or local-only wisps) and follow them step by step.
    #[command(subcommand)]
    Mol(c::mol::MolCommand),
    /// Share the store with a remote: fetch, merge without loss, push.
    ///
    /// Fetches the remote's beads into refs/beads/remotes/REMOTE/ (never shown by
    /// `git branch -a`), merges them into the local store per document and per field —
    /// a field changed on one side takes that side, labels and dependencies merge as
    /// sets, comments as a union, long text line by line, and a field changed
    /// differently on both sides keeps the later change and records the other value in
    /// the bead's conflicts: list — commits the merge, and pushes it with a lease. When
    /// the remote moved meanwhile it goes around again. The network goes through your
    /// own `git`, so SSH config and credential helpers work as they do for code.
    Sync(c::sync::Args),
    /// Fetch the remote's beads and merge them into the local store (no push).
    Pull(c::sync::Args),
    /// Push the local store to the remote; refused when the remote has beads this
    /// repository has not merged yet (run `git beads sync`).
    Push(c::sync::Args),
    /// Set up remotes for beads.
    #[command(subcommand)]
    Remote(c::remote::RemoteCommand),
    /// Clear the conflicts a sync recorded in a bead, once they have been reviewed.
    Resolve(c::resolve::Args),
    /// Install, remove or check git-beads' git hooks.
    #[command(subcommand)]
    Hooks(c::hooks::HooksCommand),
    /// Create worktrees that know which agent they are for.
    #[command(subcommand)]
    Worktree(c::worktree::WorktreeCommand),
    /// Show which agent, session, model, bead and molecule step made a commit.
    ///
    /// Reads the commit's provenance note (refs/notes/beads), which the post-commit hook
    /// writes for every commit made while a session runs in the worktree; `git log
    /// --notes=beads` shows the same notes. Notes follow their commits through amend and
    /// rebase, and `git beads sync` shares them.
    Provenance(c::provenance::Args),
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
        Ok(crate::ops::acting(
            &self.store,
            self.as_agent.as_ref(),
            self.as_person,
        )?)
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
        Err(e) if e.io == Some(std::io::ErrorKind::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            eprint!("{}", e.render());
            ExitCode::from(e.kind.exit_code())
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    // Commands that need no repository run before one is looked for.
    let cli = match cli.command {
        Command::Completions(a) => {
            let mut out = Out::new(cli.json, cli.quiet);
            c::completions::run(a, &mut out)?;
            return out.finish();
        }
        Command::InstallMan(a) => {
            let mut out = Out::new(cli.json, cli.quiet);
            c::install_man::run(a, &mut out)?;
            return out.finish();
        }
        command => Cli { command, ..cli },
    };
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
        Command::Import(a) => c::import::run(&ctx, a, &mut out),
        Command::Export(a) => c::export::run(&ctx, a, &mut out),
        // Ran above, without a repository.
        Command::Completions(_) | Command::InstallMan(_) => Ok(()),
        Command::Agent(a) => c::agent::run(&ctx, a, &mut out),
        Command::Sling(a) => c::sling::sling(&ctx, a, &mut out),
        Command::Unsling(a) => c::sling::unsling(&ctx, a, &mut out),
        Command::Hook(a) => c::sling::hook(&ctx, a, &mut out),
        Command::Session(a) => c::session::run(&ctx, a, &mut out),
        Command::Prime(a) => c::session::prime(&ctx, a, &mut out),
        Command::Handoff(a) => c::session::handoff(&ctx, a, &mut out),
        Command::Setup(a) => c::setup::run(&ctx, a, &mut out),
        Command::Mail(a) => c::mail::run(&ctx, a, &mut out),
        Command::Gc(a) => c::gc::run(&ctx, a, &mut out),
        Command::Doctor(a) => c::doctor::run(&ctx, a, &mut out),
        Command::Formula(a) => c::formula::run(&ctx, a, &mut out),
        Command::Mol(a) => c::mol::run(&ctx, a, &mut out),
        Command::Sync(a) => c::sync::sync(&ctx, a, &mut out),
        Command::Pull(a) => c::sync::pull(&ctx, a, &mut out),
        Command::Push(a) => c::sync::push(&ctx, a, &mut out),
        Command::Remote(a) => c::remote::run(&ctx, a, &mut out),
        Command::Resolve(a) => c::resolve::run(&ctx, a, &mut out),
        Command::Hooks(a) => c::hooks::run(&ctx, a, &mut out),
        Command::Worktree(a) => c::worktree::run(&ctx, a, &mut out),
        Command::Provenance(a) => c::provenance::run(&ctx, a, &mut out),
    }?;
    out.finish()
}

/// The clap command tree (for man pages and completions).
pub fn command() -> clap::Command {
    Cli::command()
}
