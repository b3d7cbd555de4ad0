//! One module per command, or per noun with its verbs.

pub mod agent;
pub mod audit;
pub mod batch;
pub mod bd_rest;
pub mod comments;
pub mod completions;
pub mod config;
pub mod create;
pub mod dep;
pub mod diff;
pub mod doctor;
pub mod duplicates;
pub mod edit;
pub mod epic;
pub mod export;
pub mod formula;
pub mod gate;
pub mod gc;
pub mod git_hook;
pub mod graph;
pub mod history;
pub mod hooks;
pub mod import;
pub mod info;
pub mod init;
pub mod install_man;
pub mod kv;
pub mod label;
pub mod lint;
pub mod list;
pub mod log;
pub mod mail;
pub mod mcp;
pub mod memory;
pub mod migrate;
pub mod mol;
pub mod onboard;
pub mod orphans;
pub mod provenance;
pub mod prune;
pub mod purge;
pub mod query;
pub mod quickstart;
pub mod remote;
pub mod rename;
pub mod rename_prefix;
pub mod resolve;
pub mod serve;
pub mod session;
pub mod setup;
pub mod shorthand;
pub mod show;
pub mod sling;
pub mod sql;
pub mod stale;
pub mod state;
pub mod stats;
pub mod sync;
pub mod todo;
pub mod update;
pub mod util;
pub mod verify;
pub mod version;
pub mod whoami;
pub mod worktree;

use clap::Subcommand;

use crate::cli::{Ctx, error::CliError, lazy::Lazy, output::Out};
pub use util::{ClaimArgs, Format, parse_dep, parse_priority};
use util::{
    ids_or_last, print_beads, print_guide, read_text, resolve_id, resolve_ids, resolve_target,
    touched,
};

/// Every command; adding one means one file, one variant, one match arm.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create the beads store in this repository (idempotent).
    Init(Lazy<init::Args>),
    /// Create a bead and print its id.
    Create(Lazy<create::Args>),
    /// Create a bead quickly and print only its id (bd's `q`).
    Q(Lazy<create::QuickArgs>),
    /// Show beads in full.
    Show(Lazy<show::Args>),
    /// List beads (open ones by default).
    List(Lazy<list::ListArgs>),
    /// Change fields of a bead, or claim it.
    Update(Lazy<update::UpdateArgs>),
    /// Close beads.
    Close(Lazy<update::CloseArgs>),
    /// Reopen closed beads.
    Reopen(Lazy<update::ReopenArgs>),
    /// Delete beads (they become tombstones that sync as deletions).
    ///
    /// As in bd, without `--force` it only shows what it would delete.
    Delete(Lazy<update::DeleteArgs>),
    /// Give in-progress beads back to the ready pool, recording who and why.
    Release(Lazy<update::ReleaseArgs>),
    /// List beads in progress whose holder has no live session: work to release.
    Stale(Lazy<stale::StaleArgs>),
    /// Show a bead's comments, or add one.
    Comments(Lazy<comments::CommentsArgs>),
    /// Add a comment to a bead (same as `comments add`).
    Comment(Lazy<comments::AddArgs>),
    /// Manage dependencies between beads.
    #[command(subcommand)]
    Dep(Lazy<dep::DepCommand>),
    /// Draw a bead's dependency graph in layers (or all open work's with --all).
    Graph(Lazy<graph::Args>),
    /// Find beads whose titles and descriptions read alike (bd's mechanical similarity).
    #[command(visible_alias = "find-dups")]
    FindDuplicates(Lazy<duplicates::Args>),
    /// Manage labels.
    #[command(subcommand)]
    Label(Lazy<label::LabelCommand>),
    /// The project's settings, kept in the store so that sync shares them.
    ///
    /// `types.custom` and `status.custom` (comma lists) are bd's names for custom
    /// types and statuses. Settings of one machine (`beads.*`) stay in git config.
    #[command(subcommand)]
    Config(Lazy<config::ConfigCommand>),
    /// bd's key-value store: pairs kept in the store (under `kv.` among the
    /// settings), in its history and shared by sync.
    #[command(subcommand)]
    Kv(Lazy<kv::KvCommand>),
    /// Show open work that nothing unfinished blocks: the work queue.
    ///
    /// A `blocks` dependency on a bead that is not closed holds a bead back. A
    /// `parent-child` link does not: a child is ready while its parent is open, unless
    /// the parent is itself blocked, deferred or waiting on an unfinished blocker.
    /// Epics and molecules are containers, not work, and never ready themselves: their
    /// open children are the work (as in bd). At most 100 by default, as in bd.
    Ready(Lazy<list::ReadyArgs>),
    /// Show what blocks what.
    Blocked(Lazy<list::BlockedArgs>),
    /// Count the beads the filters keep (every status but deleted by default).
    Count(Lazy<list::CountArgs>),
    /// Count beads by status, ready and blocked ones, epics ready to close.
    #[command(visible_alias = "status")]
    Stats(Lazy<stats::Args>),
    /// Epics and how far their children are.
    #[command(subcommand)]
    Epic(Lazy<epic::EpicCommand>),
    /// Close a bead as a duplicate of another (a `duplicates` dependency on it).
    Duplicate(Lazy<update::DuplicateArgs>),
    /// Close a bead as replaced by another (a `supersedes` dependency on it).
    Supersede(Lazy<update::SupersedeArgs>),
    /// Put beads off: status deferred, optionally until a time (bd's `defer_until`).
    Defer(Lazy<update::DeferArgs>),
    /// Take beads off deferral: status open again.
    Undefer(Lazy<update::UndeferArgs>),
    /// Add to a bead's notes, on a line of their own.
    Note(Lazy<update::NoteArgs>),
    /// Assign a bead to someone ("" unassigns it): `update ID --assignee NAME`.
    Assign(Lazy<shorthand::AssignArgs>),
    /// Add a label to a bead: `update ID --add-label LABEL`.
    Tag(Lazy<shorthand::TagArgs>),
    /// Set a bead's priority: `update ID --priority N`.
    Priority(Lazy<shorthand::PriorityArgs>),
    /// Set a bead's state in a dimension (its label `DIM:VALUE`, the old value's label
    /// removed), with an event bead recording the change, in one commit.
    SetState(Lazy<state::SetArgs>),
    /// Print a bead's state in a dimension (`state ID DIM`), or every one (`state list
    /// ID`).
    State(Lazy<state::StateArgs>),
    /// bd's wrapper for task beads: `todo add TITLE`, `todo` (the open tasks), `todo
    /// done ID…`.
    Todo(Lazy<todo::Args>),
    /// Keep an insight across sessions (bd's memories, kept in the store's key-value
    /// pairs under `memory.`, so sync shares them).
    Remember(Lazy<memory::RememberArgs>),
    /// Print a memory by its key; exits 1 when there is none.
    Recall(Lazy<memory::KeyArgs>),
    /// List the memories, or those holding a word.
    Memories(Lazy<memory::MemoriesArgs>),
    /// Remove a memory by its key; exits 1 when there is none.
    Forget(Lazy<memory::KeyArgs>),
    /// bd's database migration: nothing to migrate here (the store is git refs), which
    /// it says; `--update-repo-id` likewise.
    Migrate(Lazy<migrate::Args>),
    /// Show where the store is and what it holds.
    Info(Lazy<info::Args>),
    /// Print where the store is (the git dir whose refs hold it).
    Where(Lazy<info::Args>),
    /// Show who a command run here acts as, and why.
    Whoami(Lazy<whoami::Args>),
    /// Link two beads with a dependency: `dep add ID DEPENDS_ON` (blocks unless --type).
    Link(Lazy<bd_rest::LinkArgs>),
    /// Promote a wisp to a permanent bead of the store, keeping its id.
    Promote(Lazy<bd_rest::PromoteArgs>),
    /// Check that the store reads: its head, bead count and the time taken.
    Ping(Lazy<bd_rest::NoArgs>),
    /// Show which store commands run here use and why (BEADS_DIR, redirect), and the actor.
    Context(Lazy<bd_rest::NoArgs>),
    /// List the types a bead can have.
    Types(Lazy<info::WordsArgs>),
    /// List the statuses a bead can have.
    Statuses(Lazy<info::WordsArgs>),
    /// List a bead's descendants (through parent-child links).
    Children(Lazy<list::ChildrenArgs>),
    /// Find beads by text in their id, title or description.
    Search(Lazy<list::SearchArgs>),
    /// Find beads (and wisps) with bd's query language: `status=open AND priority<=1`,
    /// `(label=a OR label=b) AND updated>7d`, `NOT assignee=none`.
    Query(Lazy<query::Args>),
    /// Show the history of the store or of one bead.
    Log(Lazy<log::Args>),
    /// Show a bead's state at each store commit that changed it, newest first (bd's history).
    History(Lazy<history::Args>),
    /// Show what changed in the beads between two states of the store (bd's diff).
    Diff(Lazy<diff::Args>),
    /// List open beads that a commit on HEAD names in its subject, `(bd-a1)` (bd's orphans).
    Orphans(Lazy<orphans::Args>),
    /// Record and label agent interactions, append-only, in the store (bd's audit).
    #[command(subcommand)]
    Audit(Lazy<audit::AuditCommand>),
    /// Serve this repository to an agent over MCP (the Model Context Protocol) on stdio.
    ///
    /// One process serves a whole agent session: the tools an agent works with (prime,
    /// ready, claim, show, create, update, close, comment, dep_add, mail_send,
    /// mail_inbox, mail_read, mail_reply, handoff, mol_current, mol_progress,
    /// session_usage) and prime as the resource beads://prime. Each call runs in this
    /// process against the store as it is then, acting as every command does (--as,
    /// GIT_BEADS_AGENT, the worktree's binding), with the same checks; results are the
    /// documents `--json` prints, failures carry a kind (not_found, conflict, denied,
    /// budget, invalid, store). It holds no lock between calls, waits on stdin without
    /// using the CPU and exits when stdin closes. `git beads setup claude|codex|gemini`
    /// registers it.
    Mcp(Lazy<mcp::Args>),
    /// Serve the board in the browser: beads, agents, sessions, molecules, mail, log.
    ///
    /// Listens on 127.0.0.1 (port 7433 by default) and prints the board's URL. Pages
    /// update live when the store moves (a write here, a sync, another worktree).
    /// Writes from the page are made as you (your git identity), one commit each, and
    /// need the server's CSRF token and a same-origin request; --read-only refuses
    /// them. A --host that is not loopback needs --token. Every asset is in the
    /// binary: no network needed.
    Serve(Lazy<serve::Args>),
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
    Import(Lazy<import::Args>),
    /// Export every bead, as bd JSONL or as YAML.
    ///
    /// Writes every bead, deleted ones included, sorted by id, to stdout or to a file.
    /// A document that does not parse is named on stderr and left out (`git beads
    /// doctor` says more). `git beads import` reads both formats back: export, import
    /// into another repository and export again gives the same file.
    Export(Lazy<export::Args>),
    /// Print a shell completion script (bash, zsh or fish).
    ///
    /// The script completes `git-beads`; for bash it also defines `_git_beads`, which
    /// git's own completion calls for `git beads <TAB>`.
    Completions(Lazy<completions::Args>),
    /// Install the manual pages where `man` and `git help beads` find them.
    ///
    /// By default the pages go to <prefix>/share/man/man1, where <prefix>/bin holds this
    /// binary (for `cargo install`, ~/.cargo/share/man). man derives its search path from
    /// PATH and looks there for every <prefix>/bin on PATH, so nothing else needs
    /// configuring, and `git help beads` and `git beads --help` open git-beads(1). Run it
    /// again after an upgrade; it only rewrites pages that changed.
    // The text is the command's help too, where `<prefix>` is a placeholder, not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    InstallMan(Lazy<install_man::Args>),
    /// Manage agents: persistent identities with a hook, a parent and a budget.
    #[command(subcommand)]
    Agent(Lazy<agent::AgentCommand>),
    /// Put a bead (or molecule) on an agent's hook.
    Sling(Lazy<sling::SlingArgs>),
    /// Take work off an agent's hook.
    Unsling(Lazy<sling::UnslingArgs>),
    /// Show the work on an agent's hook.
    Hook(Lazy<sling::HookArgs>),
    /// Manage sessions: each run of an agent.
    #[command(subcommand)]
    Session(Lazy<session::SessionCommand>),
    /// Print what a fresh session needs: who you are, your hook, how the last session ended.
    Prime(Lazy<session::PrimeArgs>),
    /// Leave a note for your next session and end this one.
    Handoff(Lazy<session::HandoffArgs>),
    /// Wire an agent harness to git-beads sessions.
    #[command(subcommand)]
    Setup(Lazy<setup::SetupCommand>),
    /// Send and read mail between agents.
    #[command(subcommand)]
    Mail(Lazy<mail::MailCommand>),
    /// Prune old worktree snapshots from the store (their records stay).
    Gc(Lazy<gc::Args>),
    /// Delete closed wisps (bd's ephemeral beads) and forget them: the wisp ref is
    /// rewritten without its history, so `git gc` drops what they held.
    Purge(Lazy<purge::Args>),
    /// Delete closed beads (bd's `prune`): those closed longer ago than --older-than or
    /// whose id matches --pattern (one of them is needed; `--pattern '*'` takes every
    /// closed bead), pinned ones aside, as `delete --force` deletes them, in one commit.
    /// Without --force it only says how many (exit 1). They stay in the store's
    /// history, as every deleted bead does.
    Prune(Lazy<purge::Args>),
    /// Run bd's batch of writes, one a line from stdin (or --file): `close ID
    /// [REASON]`, `update ID KEY=VALUE…` (status, priority, title, assignee), `create
    /// TYPE PRIORITY TITLE`, `dep add FROM TO [TYPE]`, `dep remove FROM TO`; `#` starts
    /// a comment. All of them are one commit, or, when a line is bad or fails, nothing
    /// is written and the error names the line (exit 1).
    Batch(Lazy<batch::Args>),
    /// Run a read-only SQL query over bd's tables (issues, labels, dependencies, …),
    /// as bd's `sql` answers it (`--json`: an array of objects, `--csv`).
    Sql(Lazy<sql::Args>),
    /// Check the store and repair what is safe.
    Doctor(Lazy<doctor::Args>),
    /// Check who signed each store commit and whether that key could act as its author.
    Verify(Lazy<verify::Args>),
    /// List, show, check, cook and convert formulas: templates of workflows (YAML, or
    /// bd's and Gas Town's TOML and JSON).
    #[command(subcommand, after_long_help = crate::model::FORMULA_FORMAT)]
    Formula(Lazy<formula::FormulaCommand>),
    /// Cook a formula: its steps with the variables filled in (bd's `cook`; the same
    /// as `formula cook`).
    Cook(Lazy<formula::CookArgs>),
    /// Pour formulas into molecules (or local-only wisps) and follow them step by step.
    #[command(subcommand)]
    Mol(Lazy<mol::MolCommand>),
    /// List and resolve gates: the beads a formula's steps wait for (a person, a
    /// timer, mail, a GitHub pull request or run).
    #[command(subcommand)]
    Gate(Lazy<gate::GateCommand>),
    /// List the human gates: steps waiting for a person's approval.
    Human(Lazy<gate::ListArgs>),
    /// Share the store with a remote: fetch, merge without loss, push.
    ///
    /// Fetches the remote's beads into refs/beads/remotes/REMOTE/ (never shown by
    /// `git branch -a`), merges them into the local store per document and per field —
    /// a field changed on one side takes that side, labels and dependencies merge as
    /// sets, comments as a union, long text line by line, and a field changed
    /// differently on both sides keeps the later change and records the other value in
    /// the bead's conflicts: list — commits the merge, and pushes it with a lease. When
    /// the remote moved meanwhile it pushes to this clone's own replica ref instead
    /// (refs/beads/replicas/ID), which the next sync of any clone folds in. Out of time
    /// (beads.syncTimeout) while merging, it still publishes the local head there and
    /// succeeds, saying how many fetched heads the next sync merges. The network goes
    /// through your own `git`, so SSH config and credential helpers work as they do for
    /// code.
    Sync(Lazy<sync::Args>),
    /// Fetch the remote's beads and merge them into the local store (no push).
    Pull(Lazy<sync::Args>),
    /// Push the local store to the remote; refused when the remote has beads this
    /// repository has not merged yet (run `git beads sync`).
    Push(Lazy<sync::Args>),
    /// Set up remotes for beads.
    #[command(subcommand)]
    Remote(Lazy<remote::RemoteCommand>),
    /// Clear the conflicts a sync recorded in a bead, once they have been reviewed.
    Resolve(Lazy<resolve::Args>),
    /// Run git-beads' handler of a git hook (what the installed hook shims call).
    #[command(hide = true)]
    GitHook(Lazy<git_hook::Args>),
    /// Install, remove or check git-beads' git hooks.
    #[command(subcommand)]
    Hooks(Lazy<hooks::HooksCommand>),
    /// Create worktrees that know which agent they are for.
    #[command(subcommand)]
    Worktree(Lazy<worktree::WorktreeCommand>),
    /// Show which agent, session, model, bead and molecule step made a commit.
    ///
    /// Reads the commit's provenance note (refs/notes/beads), which every commit made
    /// while a session runs in the worktree gets: the prepare-commit-msg hook adds the
    /// session's trailers, and the next git-beads command finds the commit by them and
    /// writes its note. `git log --notes=beads` shows the same notes once written. Notes follow their commits through amend and
    /// rebase, and `git beads sync` shares them.
    Provenance(Lazy<provenance::Args>),
    /// Print the version as bd prints its own: the bd version whose commands and JSON
    /// git-beads speaks, then git-beads' own.
    Version(Lazy<version::Args>),
    /// Give a bead a new id; every dependency on it (parents too) follows, and the
    /// old id stays as a tombstone that says where the bead went.
    Rename(Lazy<rename::Args>),
    /// Give the store a new prefix: every bead of the old prefix gets the same id
    /// under the new one, every dependency follows, the old ids stay as tombstones.
    RenamePrefix(Lazy<rename_prefix::Args>),
    /// Open $EDITOR on one text field of a bead (the description by default) and
    /// write what was saved as one commit; nothing when it is unchanged.
    Edit(Lazy<edit::Args>),
    /// Report beads that lack what their type's template expects (a bug its steps to
    /// reproduce and acceptance criteria, a task or feature its acceptance criteria,
    /// an epic its success criteria); exits 1 when one does.
    Lint(Lazy<lint::Args>),
    /// Print the section for AGENTS.md that tells agents how work is tracked here.
    Onboard(Lazy<onboard::Args>),
    /// Print a newcomer's first steps with git beads.
    Quickstart(Lazy<quickstart::Args>),
}

/// The reads bd's tools run most, each with the arguments of its [`Command`].
#[derive(Subcommand, Debug)]
enum Read {
    Show(show::Args),
    List(list::ListArgs),
    Ready(list::ReadyArgs),
    Blocked(list::BlockedArgs),
    Count(list::CountArgs),
    Stats(stats::Args),
}

impl From<Read> for Command {
    fn from(read: Read) -> Command {
        match read {
            Read::Show(a) => Command::Show(Lazy(a)),
            Read::List(a) => Command::List(Lazy(a)),
            Read::Ready(a) => Command::Ready(Lazy(a)),
            Read::Blocked(a) => Command::Blocked(Lazy(a)),
            Read::Count(a) => Command::Count(Lazy(a)),
            Read::Stats(a) => Command::Stats(Lazy(a)),
        }
    }
}

/// The command line of one of the reads bd's tools run most (`ready`, `list`, `show`,
/// `blocked`, `count`, `stats`, named first), parsed by a parser of those commands
/// alone: building clap's tree of every command costs more than such a read does.
/// The arguments are the very ones of the full parser ([`crate::cli::Globals`] and
/// each command's own); `None` for any other line, and for one this parser refuses
/// (a mistake, `--help`, `--version`), which the full parser then reads and answers.
pub fn quick_read(argv: &[std::ffi::OsString]) -> Option<crate::cli::Cli> {
    /// The full parser's globals, and the reads.
    #[derive(clap::Parser)]
    #[command(name = "git-beads", bin_name = "git beads")]
    struct Reads {
        #[command(flatten)]
        globals: crate::cli::Globals,
        #[command(subcommand)]
        read: Read,
    }
    let name = argv.get(1)?.to_str()?;
    if !<Read as Subcommand>::has_subcommand(name) {
        return None;
    }
    let reads = <Reads as clap::Parser>::try_parse_from(argv).ok()?;
    Some(crate::cli::Cli {
        globals: reads.globals,
        command: reads.read.into(),
    })
}

/// Where to look for the store of `command`, when not in the current directory: the
/// `cwd` a harness hook's input names (see [`session::hook_dir`]).
pub fn store_dir(command: &Command) -> Result<Option<std::path::PathBuf>, CliError> {
    match command {
        Command::Session(Lazy(s)) => session::hook_dir(s),
        _ => Ok(None),
    }
}

/// The bead whose rig's store `command` acts on in a town (see
/// [`crate::ops::routed_store`]): the first bead it names, for the commands bd routes.
pub fn routed_by(command: &Command) -> Option<&str> {
    let first = match command {
        Command::Show(Lazy(a)) => a.ids.first(),
        Command::Update(Lazy(a)) => a.ids.first(),
        Command::Close(Lazy(a)) => a.ids.first(),
        Command::Reopen(Lazy(a)) => a.ids.first(),
        Command::Dep(Lazy(dep::DepCommand::Add(a) | dep::DepCommand::Remove(a))) => {
            return Some(a.id.as_str());
        }
        Command::Assign(Lazy(a)) => Some(&a.id),
        Command::Link(Lazy(a)) => Some(&a.id),
        Command::Tag(Lazy(a)) => Some(&a.id),
        Command::Priority(Lazy(a)) => Some(&a.id),
        _ => None,
    };
    first.map(String::as_str)
}

/// Whether `command` makes the repository it needs where there is none (`init`, as
/// bd's does).
pub fn makes_repository(command: &Command) -> bool {
    matches!(command, Command::Init(_))
}

/// Whether `command` runs from a harness hook (`session … --hook-input`).
pub fn from_hook(command: &Command) -> bool {
    matches!(command, Command::Session(Lazy(s)) if session::from_hook(s))
}

/// Runs `command` when it needs no repository (completions, install-man); gives the
/// others back, for [`run`] once the store is found.
pub fn run_standalone(command: Command, out: &mut Out) -> Result<Option<Command>, CliError> {
    match command {
        Command::Completions(Lazy(a)) => completions::run(a, out)?,
        Command::InstallMan(Lazy(a)) => install_man::run(a, out)?,
        Command::Version(Lazy(a)) => version::run(a, out)?,
        Command::Onboard(Lazy(a)) => onboard::run(a, out)?,
        Command::Quickstart(Lazy(a)) => quickstart::run(a, out)?,
        command => return Ok(Some(command)),
    }
    Ok(None)
}

/// Runs `command` against the repository's store.
pub fn run(ctx: &Ctx, command: Command, out: &mut Out) -> Result<(), CliError> {
    match command {
        Command::Init(Lazy(a)) => init::run(ctx, a, out),
        Command::Create(Lazy(a)) => create::run(ctx, a, out),
        Command::Q(Lazy(a)) => create::quick(ctx, a, out),
        Command::Show(Lazy(a)) => show::run(ctx, a, out),
        Command::List(Lazy(a)) => list::list(ctx, a, out),
        Command::Update(Lazy(a)) => update::update(ctx, a, out),
        Command::Close(Lazy(a)) => update::close(ctx, a, out),
        Command::Release(Lazy(a)) => update::release(ctx, a, out),
        Command::Stale(Lazy(a)) => stale::stale(ctx, a, out),
        Command::Reopen(Lazy(a)) => update::reopen(ctx, a, out),
        Command::Delete(Lazy(a)) => update::delete(ctx, a, out),
        Command::Comments(Lazy(a)) => comments::comments(ctx, a, out),
        Command::Comment(Lazy(a)) => comments::add(ctx, a, out),
        Command::Dep(Lazy(a)) => dep::run(ctx, a, out),
        Command::Graph(Lazy(a)) => graph::run(ctx, a, out),
        Command::FindDuplicates(Lazy(a)) => duplicates::run(ctx, a, out),
        Command::Label(Lazy(a)) => label::run(ctx, a, out),
        Command::Config(Lazy(a)) => config::run(ctx, a, out),
        Command::Kv(Lazy(a)) => kv::run(ctx, a, out),
        Command::Cook(Lazy(a)) => formula::cook(ctx, a, out),
        Command::Ready(Lazy(a)) => list::ready(ctx, a, out),
        Command::Blocked(Lazy(a)) => list::blocked(ctx, a, out),
        Command::Count(Lazy(a)) => list::count(ctx, a, out),
        Command::Stats(Lazy(a)) => stats::run(ctx, a, out),
        Command::Epic(Lazy(a)) => epic::run(ctx, a, out),
        Command::Duplicate(Lazy(a)) => update::duplicate(ctx, a, out),
        Command::Supersede(Lazy(a)) => update::supersede(ctx, a, out),
        Command::Defer(Lazy(a)) => update::defer(ctx, a, out),
        Command::Undefer(Lazy(a)) => update::undefer(ctx, a, out),
        Command::Note(Lazy(a)) => update::note(ctx, a, out),
        Command::Assign(Lazy(a)) => shorthand::assign(ctx, a, out),
        Command::Tag(Lazy(a)) => shorthand::tag(ctx, a, out),
        Command::Priority(Lazy(a)) => shorthand::priority(ctx, a, out),
        Command::SetState(Lazy(a)) => state::set(ctx, a, out),
        Command::State(Lazy(a)) => state::state(ctx, a, out),
        Command::Todo(Lazy(a)) => todo::run(ctx, a, out),
        Command::Remember(Lazy(a)) => memory::remember(ctx, a, out),
        Command::Recall(Lazy(a)) => memory::recall(ctx, a, out),
        Command::Memories(Lazy(a)) => memory::memories(ctx, a, out),
        Command::Forget(Lazy(a)) => memory::forget(ctx, a, out),
        Command::Migrate(Lazy(a)) => migrate::run(ctx, a, out),
        Command::Info(Lazy(a)) => info::run(ctx, a, out, false),
        Command::Where(Lazy(a)) => info::run(ctx, a, out, true),
        Command::Whoami(Lazy(a)) => whoami::run(ctx, a, out),
        Command::Link(Lazy(a)) => bd_rest::link(ctx, a, out),
        Command::Promote(Lazy(a)) => bd_rest::promote(ctx, a, out),
        Command::Ping(Lazy(a)) => bd_rest::ping(ctx, a, out),
        Command::Context(Lazy(a)) => bd_rest::context(ctx, a, out),
        Command::Types(Lazy(a)) => info::types(ctx, a, out),
        Command::Statuses(Lazy(a)) => info::statuses(ctx, a, out),
        Command::Children(Lazy(a)) => list::children(ctx, a, out),
        Command::Search(Lazy(a)) => list::search(ctx, a, out),
        Command::Query(Lazy(a)) => query::run(ctx, a, out),
        Command::Log(Lazy(a)) => log::run(ctx, a, out),
        Command::History(Lazy(a)) => history::run(ctx, a, out),
        Command::Diff(Lazy(a)) => diff::run(ctx, a, out),
        Command::Orphans(Lazy(a)) => orphans::run(ctx, a, out),
        Command::Audit(Lazy(a)) => audit::run(ctx, a, out),
        Command::Mcp(Lazy(a)) => mcp::run(ctx, a, out),
        Command::Serve(Lazy(a)) => serve::run(ctx, a, out),
        Command::Import(Lazy(a)) => import::run(ctx, a, out),
        Command::Export(Lazy(a)) => export::run(ctx, a, out),
        // Run by `run_standalone`, without a repository.
        Command::Completions(_)
        | Command::InstallMan(_)
        | Command::Version(_)
        | Command::Onboard(_)
        | Command::Quickstart(_) => Ok(()),
        Command::Agent(Lazy(a)) => agent::run(ctx, a, out),
        Command::Sling(Lazy(a)) => sling::sling(ctx, a, out),
        Command::Unsling(Lazy(a)) => sling::unsling(ctx, a, out),
        Command::Hook(Lazy(a)) => sling::hook(ctx, a, out),
        Command::Session(Lazy(a)) => session::run(ctx, a, out),
        Command::Prime(Lazy(a)) => session::prime(ctx, a, out),
        Command::Handoff(Lazy(a)) => session::handoff(ctx, a, out),
        Command::Setup(Lazy(a)) => setup::run(ctx, a, out),
        Command::Mail(Lazy(a)) => mail::run(ctx, a, out),
        Command::Gc(Lazy(a)) => gc::run(ctx, a, out),
        Command::Purge(Lazy(a)) => purge::run(ctx, a, out),
        Command::Batch(Lazy(a)) => batch::run(ctx, a, out),
        Command::Prune(Lazy(a)) => prune::run(ctx, a, out),
        Command::Sql(Lazy(a)) => sql::run(ctx, a, out),
        Command::Doctor(Lazy(a)) => doctor::run(ctx, a, out),
        Command::Verify(Lazy(a)) => verify::run(ctx, a, out),
        Command::Formula(Lazy(a)) => formula::run(ctx, a, out),
        Command::Mol(Lazy(a)) => mol::run(ctx, a, out),
        Command::Gate(Lazy(a)) => gate::run(ctx, a, out),
        Command::Human(Lazy(a)) => gate::human(ctx, a, out),
        Command::Sync(Lazy(a)) => sync::sync(ctx, a, out),
        Command::Pull(Lazy(a)) => sync::pull(ctx, a, out),
        Command::Push(Lazy(a)) => sync::push(ctx, a, out),
        Command::Remote(Lazy(a)) => remote::run(ctx, a, out),
        Command::Resolve(Lazy(a)) => resolve::run(ctx, a, out),
        Command::GitHook(Lazy(a)) => git_hook::run(ctx, a, out),
        Command::Hooks(Lazy(a)) => hooks::run(ctx, a, out),
        Command::Worktree(Lazy(a)) => worktree::run(ctx, a, out),
        Command::Provenance(Lazy(a)) => provenance::run(ctx, a, out),
        Command::Rename(Lazy(a)) => rename::run(ctx, a, out),
        Command::Lint(Lazy(a)) => lint::run(ctx, a, out),
        Command::Edit(Lazy(a)) => edit::run(ctx, a, out),
        Command::RenamePrefix(Lazy(a)) => rename_prefix::run(ctx, a, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &[&str]) -> Vec<std::ffi::OsString> {
        std::iter::once("git-beads")
            .chain(line.iter().copied())
            .map(Into::into)
            .collect()
    }

    #[test]
    fn the_reads_parse_as_the_full_parser_parses_them() {
        use clap::Parser as _;
        for line in [
            &["ready", "--json"][..],
            &[
                "ready", "-u", "-l", "a,b", "-t", "bug", "-p", "0,1", "-n", "5", "-q",
            ],
            &["ready", "--sort", "oldest", "--actor", "me", "--json"],
            &[
                "list",
                "--json",
                "--status",
                "open,in_progress",
                "-n",
                "7",
                "-r",
            ],
            &[
                "list",
                "--all",
                "--sort",
                "title",
                "--tree=false",
                "--sandbox",
            ],
            &["show", "bd-a1", "bd-b2", "--json"],
            &["show"],
            &["blocked", "--parent", "bd-a1", "--json"],
            &["count", "--label-any", "x", "--json"],
            &["stats", "--json", "--as-person"],
        ] {
            let quick = quick_read(&argv(line)).expect("read by the quick parser");
            let full = crate::cli::Cli::try_parse_from(argv(line)).expect("full parser");
            assert_eq!(format!("{quick:?}"), format!("{full:?}"), "{line:?}");
        }
        for line in [
            &["ready", "--help"][..],
            &["ready", "--version"],
            &["list", "--no-such-flag"],
            &["show", "--current", "bd-a1"],
            &["status", "--json"],
            &["--json", "ready"],
            &["create", "x"],
            &[],
        ] {
            assert!(quick_read(&argv(line)).is_none(), "{line:?}");
        }
    }
}
