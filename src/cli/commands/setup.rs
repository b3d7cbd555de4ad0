//! `git beads setup claude|codex|gemini|agents-md`: wire an agent harness to sessions,
//! prime and the budget guard, check the wiring, or take it out again; say what the
//! harness will skip until the user trusts it, and with `--trust` record that consent;
//! `setup status`: how each harness is wired here.

use std::path::{Path, PathBuf};

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::hooks::harness::{self, Harness, Mode, Report};
use crate::hooks::mcp;
use crate::hooks::trust::{self, UserFiles};
use crate::settings;
use crate::wire;

/// The harnesses `setup` knows.
#[derive(clap::Subcommand, Debug)]
pub enum SetupCommand {
    /// Write Claude Code hooks into .claude/settings.json (merging with what is there):
    /// SessionStart, UserPromptSubmit, PreToolUse, Stop, SubagentStop, PreCompact, SessionEnd;
    /// and register `git beads mcp` as the MCP server git-beads in .mcp.json (which Claude
    /// Code keeps pending approval until --trust or the user approves it).
    Claude(SetupArgs),
    /// Write Codex CLI hooks into .codex/hooks.json and turn them on in .codex/config.toml:
    /// SessionStart, UserPromptSubmit, PreToolUse, Stop, SubagentStop, PreCompact,
    /// SessionEnd; and register `git beads mcp` as [mcp_servers.git-beads] in
    /// .codex/config.toml. Codex skips them until the project and each hook's hash are
    /// trusted in the user's config.toml (--trust).
    Codex(SetupArgs),
    /// Write Gemini CLI hooks into .gemini/settings.json: SessionStart, BeforeAgent,
    /// BeforeTool, AfterAgent, PreCompress, SessionEnd; and register `git beads mcp`
    /// under mcpServers.git-beads there. Gemini CLI drops them in a folder it does not
    /// trust (--trust).
    Gemini(SetupArgs),
    /// Write a marked git-beads section into AGENTS.md (or another instructions file),
    /// for harnesses without hooks: the agent primes and reports its usage itself.
    AgentsMd(AgentsMdArgs),
    /// How each harness is wired in this worktree, and what it will skip until you trust
    /// it (hooks of an untrusted project or with untrusted hashes, a server pending approval).
    Status,
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
    /// Also record your consent in the harness' own user files, so it runs what setup
    /// wrote: Claude Code's folder trust and approval of the server (~/.claude.json),
    /// Codex's project trust and hook hashes ($CODEX_HOME/config.toml), Gemini CLI's
    /// folder trust (~/.gemini/trustedFolders.json).
    #[arg(long, conflicts_with_all = ["check", "remove"])]
    pub trust: bool,
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
    let (h, a) = match cmd {
        SetupCommand::Claude(a) => (Harness::Claude, a),
        SetupCommand::Codex(a) => (Harness::Codex, a),
        SetupCommand::Gemini(a) => (Harness::Gemini, a),
        SetupCommand::Status => return status(ctx, out),
        SetupCommand::AgentsMd(a) => {
            let mode = SetupArgs {
                check: a.check,
                remove: a.remove,
                global: false,
                trust: false,
            }
            .mode();
            let path = worktree_top(ctx)?.join(&a.file);
            let reports = vec![harness::instructions(&path, mode).map_err(setup_error)?];
            return report(out, "agents-md", mode, &reports, &Consent::default());
        }
    };
    let mode = a.mode();
    let reports = hooks(ctx, h, a)?;
    let consent = match mode {
        Mode::Remove => Consent::default(),
        _ => consent(ctx, h, a)?,
    };
    report(out, h.name(), mode, &reports, &consent)
}

/// What a harness will skip until the user consents, and what `--trust` recorded.
#[derive(Default)]
struct Consent {
    /// What is still skipped, in words.
    skipped: Vec<String>,
    /// What `--trust` recorded consent for now, in words.
    trusted: Vec<String>,
    /// The user's file that holds the consent.
    file: PathBuf,
}

/// Looks at what `h` will skip of what setup wrote, and with `--trust` records the
/// user's consent for it.
fn consent(ctx: &Ctx, h: Harness, a: SetupArgs) -> Result<Consent, CliError> {
    let Some(files) = UserFiles::from_env() else {
        return Ok(Consent::default());
    };
    let top = worktree_top(ctx)?;
    let dir = settings_dir(ctx, h, a.global)?;
    let skipped = match trust::skipped(h, &files, top, &dir, a.global) {
        Ok(skipped) => skipped,
        // The wiring is written; a user file that cannot be read only leaves the
        // question open, unless it is to be written.
        Err(e) if !a.trust => {
            crate::cli::output::warn(format!(
                "warning: cannot tell what {} will skip: {e}",
                h.name()
            ));
            return Ok(Consent::default());
        }
        Err(e) => return Err(setup_error(e)),
    };
    let file = files.consent_file(h);
    let words = |s: &[trust::Skipped]| s.iter().map(|s| s.what.clone()).collect();
    if !a.trust {
        return Ok(Consent {
            skipped: words(&skipped),
            trusted: Vec::new(),
            file,
        });
    }
    trust::trust(h, &files, top, &skipped).map_err(setup_error)?;
    Ok(Consent {
        skipped: Vec::new(),
        trusted: words(&skipped),
        file,
    })
}

/// Prints what `setup` did (or with `--check` found) and what the harness still needs;
/// fails a `--check` that found drift.
fn report(
    out: &mut Out,
    name: &str,
    mode: Mode,
    reports: &[Report],
    consent: &Consent,
) -> Result<(), CliError> {
    let shown = reports
        .first()
        .map(|r| r.path.display().to_string())
        .unwrap_or_default();
    let drift: Vec<String> = reports
        .iter()
        .flat_map(|r| r.drift.iter().map(|d| format!("{}: {d}", r.path.display())))
        .collect();
    if out.json {
        out.json(&wire::Setup {
            harness: name,
            settings: &shown,
            added: reports.iter().map(|r| r.added).sum(),
            removed: reports.iter().map(|r| r.removed).sum(),
            drift: &drift,
            skipped: &consent.skipped,
            trusted: &consent.trusted,
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
        consent_said(out, name, consent);
    }
    if mode == Mode::Check && !drift.is_empty() {
        return Err(CliError::user(format!(
            "the git-beads wiring of {name} differs from what setup writes"
        ))
        .hint(format!("`git beads setup {name}` puts it right")));
    }
    Ok(())
}

/// Says what `--trust` recorded, or what the harness will skip and how to consent.
fn consent_said(out: &mut Out, name: &str, consent: &Consent) {
    let file = consent.file.display();
    if !consent.trusted.is_empty() {
        out.note(format!("trusted in {file}, with your consent:"));
    } else if !consent.skipped.is_empty() {
        out.note(format!(
            "{name} will skip, until you trust it (`git beads setup {name} --trust` records \
             that in {file}):"
        ));
    }
    for s in consent.trusted.iter().chain(&consent.skipped) {
        out.note(format!("  {s}"));
    }
}

/// `setup status`: for each harness, whether this worktree wires it and what it will
/// skip until the user trusts it.
fn status(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let top = worktree_top(ctx)?;
    let files = UserFiles::from_env();
    let mut all = Vec::new();
    for h in [Harness::Claude, Harness::Codex, Harness::Gemini] {
        let hooks =
            harness::apply(h, &h.settings_file(top, false), Mode::Check).map_err(setup_error)?;
        let wired = hooks.added < h.hooks().len();
        let skipped = match (&files, wired) {
            (Some(files), true) => trust::skipped(h, files, top, top, false)
                .map_err(setup_error)?
                .into_iter()
                .map(|s| s.what)
                .collect(),
            _ => Vec::new(),
        };
        all.push(wire::HarnessStatus {
            harness: h.name(),
            wired,
            skipped,
        });
    }
    if out.json {
        return out.json(&wire::SetupStatus { harnesses: &all });
    }
    for s in &all {
        let state = match (s.wired, s.skipped.len()) {
            (false, _) => format!("not wired (`git beads setup {}`)", s.harness),
            (true, 0) => "wired; runs everything setup wrote".to_owned(),
            (true, n) => format!(
                "wired; skips {} until trusted (`git beads setup {} --trust`):",
                crate::model::count(n, "thing"),
                s.harness
            ),
        };
        out.line(format!("{:<7} {state}", s.harness))?;
        for what in &s.skipped {
            out.line(format!("  {what}"))?;
        }
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
