//! bd's smaller commands: `link` (a shorthand for `dep add`), `promote` (a wisp made a
//! bead of the store), `ping` (the store reads) and `context` (which store, and why).

use std::time::Instant;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::DepKind;
use crate::ops::{self, StoreChoice};
use crate::settings;
use crate::wire;

/// Arguments of `link`.
#[derive(clap::Args, Debug)]
pub struct LinkArgs {
    /// The dependent bead (an id without its prefix will do where it is unambiguous).
    pub id: String,
    /// The bead it depends on (of this store, or of another rig of the town).
    pub depends_on: String,
    /// The kind of dependency.
    #[arg(short = 't', long = "type", default_value = "blocks")]
    pub kind: DepKind,
}

/// Arguments of `promote`.
#[derive(clap::Args, Debug)]
pub struct PromoteArgs {
    /// The wisp.
    pub id: String,
    /// Why, recorded in the promotion's comment.
    #[arg(short = 'r', long)]
    pub reason: Option<String>,
}

/// Arguments of `ping` and `context`.
#[derive(clap::Args, Debug)]
pub struct NoArgs {}

/// Runs `link ID1 ID2`: `dep add ID1 ID2`, routing and all, in bd's words.
pub fn link(ctx: &Ctx, a: LinkArgs, out: &mut Out) -> Result<(), CliError> {
    let edge = super::dep::EdgeArgs {
        id: super::resolve_id(ctx, &a.id)?,
        depends_on: a.depends_on,
        kind: Some(a.kind),
    };
    let (id, on, kind, ops::Edited { bead, .. }) = super::dep::add(ctx, &edge)?;
    if out.json {
        return out.json(&wire::LinkAdded {
            status: "added",
            issue_id: id.as_str(),
            depends_on_id: &on.to_string(),
            kind: kind.as_str(),
        });
    }
    out.note(format!(
        "✓ Linked: {id} ({}) depends on {on} ({kind})",
        bead.title
    ));
    Ok(())
}

/// Runs `promote WISP`: the wisp made a bead of the store, with the same id.
pub fn promote(ctx: &Ctx, a: PromoteArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let id = super::resolve_id(ctx, &a.id)?;
    let bead = ops::promote(&ctx.store, &actor, &id, a.reason.as_deref())?;
    if out.json {
        return out.json(&wire::Promoted {
            bead: wire::Bead::plain(&bead),
        });
    }
    out.line(format!("✓ Promoted {id} to permanent bead"))
}

/// Runs `ping`: the store's head and bead count read, and how long that took.
pub fn ping(ctx: &Ctx, _args: NoArgs, out: &mut Out) -> Result<(), CliError> {
    let start = Instant::now();
    let store = ctx.store.reopened()?;
    let opened = start.elapsed().as_millis();
    let info = ops::store_info(&store)?;
    let total = start.elapsed().as_millis();
    if out.json {
        return out.json(&wire::Ping {
            status: "ok",
            resolve_ms: 0,
            store_ms: opened,
            query_ms: total - opened,
            total_ms: total,
            head: &info.head,
            issue_count: info.beads,
        });
    }
    out.line(format!(
        "✓ ping: ok: {} at {}, {} beads ({total}ms)",
        info.store_ref, info.head, info.beads
    ))
}

/// Runs `context`: which store commands run here use, why, and who they act as.
pub fn context(ctx: &Ctx, _args: NoArgs, out: &mut Out) -> Result<(), CliError> {
    let cwd = std::env::current_dir()?;
    let given = settings::env(settings::BEADS_DIR)
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from);
    let c = ops::store_context(&ctx.store, &cwd, given.as_deref());
    let actor = ctx.actor()?;
    let (because, why) = match &c.choice {
        StoreChoice::BeadsDir(dir) => ("beads-dir", format!("BEADS_DIR={}", dir.display())),
        StoreChoice::Redirect(to) => ("redirect", format!("a .beads/redirect to {}", to.display())),
        StoreChoice::Here => ("cwd", "the repository of the current directory".to_owned()),
    };
    if out.json {
        return out.json(&wire::Context {
            beads_dir: c.beads_dir.as_deref(),
            repo_root: c.repo_root.as_deref(),
            cwd_repo_root: c.cwd_repo_root.as_deref(),
            is_redirected: matches!(c.choice, StoreChoice::Redirect(_)),
            is_worktree: c.is_worktree,
            backend: "git",
            database: &c.common_dir,
            store_ref: ops::refs::MAIN.as_str(),
            because,
            actor: &actor.id,
            bd_version: wire::BD_VERSION,
        });
    }
    let shown = |p: Option<&std::path::Path>| p.map_or("-".to_owned(), |p| p.display().to_string());
    out.line(format!("bd version:     {}", wire::BD_VERSION))?;
    out.line("")?;
    out.line("Repository:")?;
    out.line(format!("  beads dir:    {}", shown(c.beads_dir.as_deref())))?;
    out.line(format!("  repo root:    {}", shown(c.repo_root.as_deref())))?;
    if let Some(cwd_repo) = &c.cwd_repo_root {
        out.line(format!("  cwd repo:     {}", cwd_repo.display()))?;
    }
    if c.is_worktree {
        out.line("  worktree:     yes")?;
    }
    out.line(format!("  chosen by:    {why}"))?;
    out.line("")?;
    out.line("Backend:")?;
    out.line("  type:         git")?;
    out.line(format!("  database:     {}", c.common_dir.display()))?;
    out.line(format!("  store ref:    {}", ops::refs::MAIN.as_str()))?;
    out.line(format!("  actor:        {}", actor.id))
}
