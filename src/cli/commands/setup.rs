//! `git beads setup claude|codex|gemini|agents-md`: wire an agent harness to sessions,
//! prime and the budget guard, check the wiring, or take it out again.

use std::path::{Path, PathBuf};

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::hooks::harness::{self, Harness, Mode, Report};
use crate::hooks::mcp;
use crate::settings;
use crate::wire;

/// The harnesses `setup` knows.
#[derive(clap::Subcommand, Debug)]
pub enum SetupCommand {
    /// Write Claude Code hooks into .claude/settings.json (merging with what is there):
    /// SessionStart, UserPromptSubmit, PreToolUse, Stop, SubagentStop, PreCompact, SessionEnd;
    /// and register `git beads mcp` as the MCP server git-beads in .mcp.json.
    Claude(SetupArgs),
    /// Write Codex CLI hooks into .codex/hooks.json and turn them on in .codex/config.toml:
    /// SessionStart, UserPromptSubmit, PreToolUse, Stop, PreCompact; and register
    /// `git beads mcp` as [mcp_servers.git-beads] in .codex/config.toml.
    Codex(SetupArgs),
    /// Write Gemini CLI hooks into .gemini/settings.json: SessionStart, BeforeAgent,
    /// BeforeTool, AfterAgent, PreCompress, SessionEnd; and register `git beads mcp`
    /// under mcpServers.git-beads there.
    Gemini(SetupArgs),
    /// Write a marked git-beads section into AGENTS.md (or another instructions file),
    /// for harnesses without hooks: the agent primes and reports its usage itself.
    AgentsMd(AgentsMdArgs),
}

/// What `setup` does with a harness' settings.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct SetupArgs {
    /// Change nothing: report what differs from what setup writes (exit 1 if anything does).
    #[arg(long, conflicts_with = "remove")]
    pub check: bool,
    /// Remove git-beads' hooks and its MCP server entry, and nothing else.
    #[arg(long)]
    pub remove: bool,
    /// The user's settings (~/.claude, ~/.gemini, $CODEX_HOME or ~/.codex) instead of
    /// this worktree's.
    #[arg(long)]
    pub global: bool,
}

impl SetupArgs {
    fn mode(self) -> Mode {
        match (self.check, self.remove) {
            (true, _) => Mode::Check,
            (_, true) => Mode::Remove,
            _ => Mode::Install,
        }
    }
}

/// Arguments of `setup agents-md`.
#[derive(clap::Args, Debug)]
pub struct AgentsMdArgs {
    /// Change nothing: report whether the section differs (exit 1 if it does).
    #[arg(long, conflicts_with = "remove")]
    pub check: bool,
    /// Remove git-beads' section, and nothing else.
    #[arg(long)]
    pub remove: bool,
    /// The instructions file, from the top of the worktree (CLAUDE.md, GEMINI.md, …).
    #[arg(long, default_value = "AGENTS.md")]
    pub file: PathBuf,
}

/// Runs `setup`.
pub fn run(ctx: &Ctx, cmd: SetupCommand, out: &mut Out) -> Result<(), CliError> {
    let (name, mode, reports) = match cmd {
        SetupCommand::Claude(a) => ("claude", a.mode(), hooks(ctx, Harness::Claude, a)?),
        SetupCommand::Codex(a) => ("codex", a.mode(), hooks(ctx, Harness::Codex, a)?),
        SetupCommand::Gemini(a) => ("gemini", a.mode(), hooks(ctx, Harness::Gemini, a)?),
        SetupCommand::AgentsMd(a) => {
            let mode = SetupArgs {
                check: a.check,
                remove: a.remove,
                global: false,
            }
            .mode();
            let path = worktree_top(ctx)?.join(&a.file);
            (
                "agents-md",
                mode,
                vec![harness::instructions(&path, mode).map_err(setup_error)?],
            )
        }
    };
    let shown = reports
        .first()
        .map(|r| r.path.display().to_string())
        .unwrap_or_default();
    let added: usize = reports.iter().map(|r| r.added).sum();
    let removed: usize = reports.iter().map(|r| r.removed).sum();
    let drift: Vec<String> = reports
        .iter()
        .flat_map(|r| r.drift.iter().map(|d| format!("{}: {d}", r.path.display())))
        .collect();
    if out.json {
        out.json(&wire::Setup {
            harness: name,
            settings: &shown,
            added,
            removed,
            drift: &drift,
        })?;
    } else if mode == Mode::Check {
        for d in &drift {
            out.line(d)?;
        }
    } else {
        let last = reports.len() - 1;
        for (k, r) in reports.iter().enumerate() {
            let what = match (name, k) {
                ("agents-md", _) => What::Section,
                (_, 0) => What::Hooks,
                (_, k) if k == last => What::Server,
                _ => What::Feature,
            };
            if let Some(line) = said(what, r, mode) {
                out.note(line);
            }
        }
    }
    if mode == Mode::Check && !drift.is_empty() {
        return Err(CliError::user(format!(
            "the git-beads wiring of {name} differs from what setup writes"
        ))
        .hint(format!("`git beads setup {name}` puts it right")));
    }
    Ok(())
}

/// What a file of a setup holds for git-beads.
#[derive(Clone, Copy)]
enum What {
    /// The harness' hooks.
    Hooks,
    /// The MCP server entry.
    Server,
    /// Codex's switch that turns hooks on.
    Feature,
    /// The instructions' section.
    Section,
}

/// What `setup` did to one file, in a line: how many hooks it added or removed, the
/// MCP server it registered, the section it wrote (nothing of Codex's switch for
/// hooks, which `--remove` leaves for other hooks).
fn said(what: What, r: &Report, mode: Mode) -> Option<String> {
    let file = r.path.display();
    let (added, removed) = (r.added, r.removed);
    let (thing, things) = match what {
        What::Hooks => return Some(hooks_said(r, mode)),
        What::Server => ("the MCP server git-beads (`git beads mcp`)", "registers"),
        What::Section => ("the git-beads section", "has"),
        What::Feature => {
            return match (added, mode) {
                (_, Mode::Remove) => None,
                (0, _) => Some(format!("{file} already turns hooks on")),
                _ => Some(format!("turned hooks on in {file}")),
            };
        }
    };
    Some(match (added, removed, mode) {
        (0, 0, Mode::Remove) => format!("{file} has no {}", thing.trim_start_matches("the ")),
        (0, 0, _) => format!("{file} already {things} {thing}"),
        (_, _, Mode::Remove) => format!("removed {thing} from {file}"),
        (_, 0, _) => format!("added {thing} to {file}"),
        _ => format!("updated {thing} in {file}"),
    })
}

/// [`said`] of the hooks file.
fn hooks_said(r: &Report, mode: Mode) -> String {
    let file = r.path.display();
    let (added, removed) = (r.added, r.removed);
    let hooks = |n: usize| crate::model::count(n, "git-beads hook");
    match (added, removed, mode) {
        (0, 0, Mode::Remove) => format!("{file} has no git-beads hooks"),
        (0, 0, _) => format!("{file} already has the git-beads hooks"),
        (_, _, Mode::Remove) => format!("removed {} from {file}", hooks(removed)),
        (_, 0, _) => format!("added {} to {file}", hooks(added)),
        _ => format!(
            "added {} to {file} (and removed {removed} stale {})",
            hooks(added),
            crate::model::plural(removed as u64, "one")
        ),
    }
}

fn setup_error(e: harness::SetupError) -> CliError {
    CliError::user(e.to_string())
}

fn worktree_top(ctx: &Ctx) -> Result<&Path, CliError> {
    ctx.store
        .workdir()
        .ok_or_else(|| CliError::user("this repository has no worktree"))
}

/// Where `harness` keeps its settings: the worktree's top, or with `--global` the
/// user's config directory for it.
fn settings_dir(ctx: &Ctx, h: Harness, global: bool) -> Result<PathBuf, CliError> {
    if !global {
        return Ok(worktree_top(ctx)?.to_owned());
    }
    if h == Harness::Codex
        && let Some(dir) = settings::env(settings::CODEX_HOME).filter(|d| !d.is_empty())
    {
        return Ok(dir.into());
    }
    let home: PathBuf = settings::env(settings::HOME)
        .filter(|d| !d.is_empty())
        .ok_or_else(|| CliError::user("HOME is not set: there is no user config to write"))?
        .into();
    Ok(match h {
        Harness::Codex => home.join(".codex"),
        _ => home,
    })
}

/// Applies `a` to `h`'s hooks file (and Codex's config.toml), and to the file that
/// registers `git beads mcp` with it.
fn hooks(ctx: &Ctx, h: Harness, a: SetupArgs) -> Result<Vec<Report>, CliError> {
    let dir = settings_dir(ctx, h, a.global)?;
    let mode = a.mode();
    let mut reports =
        vec![harness::apply(h, &h.settings_file(&dir, a.global), mode).map_err(setup_error)?];
    if h == Harness::Codex {
        let config = match a.global {
            true => dir.join("config.toml"),
            false => dir.join(".codex").join("config.toml"),
        };
        reports.push(harness::codex_feature(&config, mode).map_err(setup_error)?);
    }
    let servers = mcp::servers_file(h, &dir, a.global);
    reports.push(mcp::register(h, &servers, mode).map_err(setup_error)?);
    Ok(reports)
}
