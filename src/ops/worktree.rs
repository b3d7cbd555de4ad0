//! Worktrees that know what they are for: `git beads worktree add` records which
//! agent (and bead) a new worktree is for, and the post-checkout hook of that
//! worktree binds it and hands the agent its work, so that the first `prime` there
//! is primed with it. A worktree made with plain `git worktree add` on an agent's
//! branch (`agent/<agent>[/<topic>]` or `beads/<agent>/<topic>`) is bound to that
//! agent too.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::agent::{bind, binding};
use super::permit;
use super::session::check_hookable;
use super::{AgentError, Result, WorktreeError, now, sling, whoami};
use crate::model::{Actor, Agent, AgentName, AgentStatus, BeadId, Capability, Timestamp};
use crate::store::{Store, refs};

/// The machine-local file (under the common git dir) of worktrees waiting for their
/// post-checkout hook.
pub(crate) const PENDING_WORKTREES: &str = "pending-worktrees.yaml";

/// The branch prefixes that name an agent: `agent/<agent>[/<topic>]` and
/// `beads/<agent>/<topic>`.
pub(crate) const AGENT_BRANCH_PREFIXES: &[&str] = &["agent/", "beads/"];

/// A worktree `git beads worktree add` is creating, waiting for its hook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingWorktree {
    /// The worktree's absolute path, with symbolic links resolved.
    pub path: String,
    /// The agent it is for.
    pub agent: AgentName,
    /// The bead to put on the agent's hook, if one was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bead: Option<BeadId>,
    /// The agent that asked for it (and slings the bead), when an agent did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<AgentName>,
    /// When it was asked for.
    pub at: Timestamp,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Pending {
    #[serde(default)]
    worktrees: Vec<PendingWorktree>,
}

/// How a worktree came to be bound to its agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoundBy {
    /// `git beads worktree add --agent`.
    WorktreeAdd,
    /// The name of the branch it was created on.
    Branch,
}

/// A worktree bound to the agent whose work waits for it.
#[derive(Clone, Debug, Serialize)]
pub struct WorktreeBound {
    /// The worktree.
    pub worktree: String,
    /// The agent.
    pub agent: AgentName,
    /// The bead put on the agent's hook, if one was named.
    pub bead: Option<BeadId>,
    /// How the agent was found.
    pub by: BoundBy,
    /// The branch the worktree is on.
    pub branch: Option<String>,
}

/// `path` made absolute and free of `.`/`..`, with symbolic links resolved in the
/// part that exists, so that the path given to `git worktree add` and the one its
/// hook sees compare equal.
pub(crate) fn canonical_worktree_path(path: &Path) -> Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map_err(WorktreeError::CurrentDir)?
            .join(path)
    };
    let mut clean = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    // Resolve the longest part that exists; the rest is yet to be created.
    let mut existing = clean.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_owned();
            }
            _ => break,
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    for name in rest.into_iter().rev() {
        out.push(name);
    }
    Ok(out)
}

fn active_agent(store: &Store, name: &AgentName) -> Result<Option<Agent>> {
    let Some(head) = store.head()? else {
        return Ok(None);
    };
    let agent: Option<Agent> = store.read_doc(head.tree, &refs::agent_path(name))?;
    Ok(agent.filter(|a| a.status != AgentStatus::Retired))
}

/// Records that the worktree about to be created at `path` is for `agent` (and that
/// `bead` goes on its hook), after checking that both can be done: the agent exists
/// and is active, the bead exists, is unfinished and on no other agent's hook, and
/// `actor` may sling. Replaces an earlier record for the same path.
pub fn plan_worktree(
    store: &Store,
    actor: &Actor,
    path: &Path,
    agent: &AgentName,
    bead: Option<&BeadId>,
) -> Result<PendingWorktree> {
    store.require_head()?;
    if active_agent(store, agent)?.is_none() {
        return Err(AgentError::NotActive(agent.clone()).into());
    }
    if let Some(id) = bead {
        permit(actor, Capability::Sling)?;
        check_hookable(&super::require(&store.view()?, id)?, agent)?;
    }
    let entry = PendingWorktree {
        path: canonical_worktree_path(path)?.display().to_string(),
        agent: agent.clone(),
        bead: bead.cloned(),
        by: actor.agent.clone(),
        at: now(),
    };
    store.update_local_state(PENDING_WORKTREES, |p: &mut Pending| {
        p.worktrees.retain(|w| w.path != entry.path);
        p.worktrees.push(entry.clone());
    })?;
    Ok(entry)
}

/// Forgets what was recorded for the worktree at `path` (when creating it failed).
pub(crate) fn cancel_worktree(store: &Store, path: &Path) -> Result<()> {
    let key = canonical_worktree_path(path)?.display().to_string();
    store.update_local_state(PENDING_WORKTREES, |p: &mut Pending| {
        p.worktrees.retain(|w| w.path != key);
    })?;
    Ok(())
}

fn this_worktree(store: &Store) -> Result<Option<String>> {
    match store.workdir() {
        Some(dir) => Ok(Some(canonical_worktree_path(dir)?.display().to_string())),
        None => Ok(None),
    }
}

/// Carries out what `git beads worktree add` recorded for the worktree `store` is
/// opened in, if anything: puts the bead on the agent's hook (as the agent that
/// asked, else as the person), binds the worktree to the agent, and forgets the
/// record. A failure leaves the record, so that `worktree add` can report it.
pub fn finish_pending(store: &Store) -> Result<Option<WorktreeBound>> {
    if !store.local_dir().join(PENDING_WORKTREES).exists() {
        return Ok(None);
    }
    let Some(here) = this_worktree(store)? else {
        return Ok(None);
    };
    let pending: Option<PendingWorktree> = store
        .update_local_state(PENDING_WORKTREES, |p: &mut Pending| {
            p.worktrees.iter().find(|w| w.path == here).cloned()
        })?;
    let Some(p) = pending else {
        return Ok(None);
    };
    if let Some(id) = &p.bead {
        let actor = match &p.by {
            Some(by) => super::acting(store, Some(by), false)?,
            None => whoami(store)?,
        };
        sling(store, &actor, id, &p.agent)?;
    }
    bind(store, &p.agent)?;
    store.update_local_state(PENDING_WORKTREES, |all: &mut Pending| {
        all.worktrees.retain(|w| w.path != here);
    })?;
    Ok(Some(WorktreeBound {
        worktree: here,
        agent: p.agent,
        bead: p.bead,
        by: BoundBy::WorktreeAdd,
        branch: store.git().head_branch(),
    }))
}

/// The agent a branch name is for: after `agent/` or `beads/`, the longest run of
/// leading segments that names an active agent (`agent/rig/nux/fix-login` is for
/// `rig/nux` when that agent exists, else for `rig` when that one does).
pub(crate) fn agent_for_branch(store: &Store, branch: &str) -> Result<Option<AgentName>> {
    let Some(rest) = AGENT_BRANCH_PREFIXES
        .iter()
        .find_map(|p| branch.strip_prefix(p))
    else {
        return Ok(None);
    };
    let segments: Vec<&str> = rest.split('/').collect();
    for n in (1..=segments.len()).rev() {
        let Ok(name) = AgentName::parse(&segments[..n].join("/")) else {
            continue;
        };
        if active_agent(store, &name)?.is_some() {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// Binds a worktree that was just created (`store` opened in it) to the agent its
/// work waits for: what `git beads worktree add` recorded, else the agent its
/// branch names. A worktree already bound is left alone. Returns what was bound.
pub fn bind_new_worktree(store: &Store) -> Result<Option<WorktreeBound>> {
    if let Some(done) = finish_pending(store)? {
        return Ok(Some(done));
    }
    if store.head()?.is_none() || binding(store)?.is_some() {
        return Ok(None);
    }
    let Some(branch) = store.git().head_branch() else {
        return Ok(None);
    };
    let Some(agent) = agent_for_branch(store, &branch)? else {
        return Ok(None);
    };
    bind(store, &agent)?;
    Ok(Some(WorktreeBound {
        worktree: this_worktree(store)?.unwrap_or_default(),
        agent,
        bead: None,
        by: BoundBy::Branch,
        branch: Some(branch),
    }))
}

/// How a worktree made by `git beads worktree add` was bound.
#[derive(Clone, Debug, Serialize)]
pub struct WorktreeAdded {
    /// What was bound.
    #[serde(flatten)]
    pub bound: WorktreeBound,
    /// Whether the worktree's post-checkout hook did it (else git-beads did, after
    /// `git worktree add` returned: the hooks are not installed).
    pub by_hook: bool,
}

/// Creates the worktree planned with [`plan_worktree`]: runs `git worktree add PATH
/// GIT_ARGS…` (the user's terminal, the user's hooks), whose post-checkout hook binds
/// it; when no hook did, binds it here. When git fails, the plan is forgotten.
pub fn add_worktree(
    store: &Store,
    pending: &PendingWorktree,
    git_args: &[std::ffi::OsString],
) -> Result<WorktreeAdded> {
    let path = PathBuf::from(&pending.path);
    let mut args: Vec<std::ffi::OsString> = vec![path.clone().into_os_string()];
    args.extend(git_args.iter().cloned());
    let cwd = std::env::current_dir().map_err(WorktreeError::CurrentDir)?;
    let status = store.git().run_worktree_add(&cwd, &args)?;
    if !status.success() {
        cancel_worktree(store, &path)?;
        return Err(WorktreeError::AddFailed(status).into());
    }
    let there = Store::open_worktree(&path)?;
    if let Some(bound) = finish_pending(&there)? {
        return Ok(WorktreeAdded {
            bound,
            by_hook: false,
        });
    }
    let Some(b) = binding(&there)?.filter(|b| b.agent == pending.agent) else {
        return Err(WorktreeError::NotBound {
            path: pending.path.clone(),
            agent: pending.agent.clone(),
        }
        .into());
    };
    Ok(WorktreeAdded {
        bound: WorktreeBound {
            worktree: pending.path.clone(),
            agent: b.agent,
            bead: pending.bead.clone(),
            by: BoundBy::WorktreeAdd,
            branch: there.git().head_branch(),
        },
        by_hook: true,
    })
}
