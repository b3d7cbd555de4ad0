//! The git hooks' handlers: what `git beads git-hook NAME ARGS…` does for each git hook
//! the shims call it from. Each turns git's arguments into calls of [`crate::ops`],
//! like the CLI does, and returns what is worth one line on stderr.
//!
//! - `post-checkout` of a new worktree binds it to the agent whose work waits for
//!   it (see [`crate::ops::bind_new_worktree`]); a branch switch folds fetched beads.
//! - `prepare-commit-msg` adds `Beads-Agent:` and `Beads-Session:` trailers when a
//!   session runs here (not to rebased commits; never twice). The shipped shim adds
//!   them in the shell itself and calls this only for the messages it leaves to it
//!   (comments, a scissors line, odd spacing); the next git-beads command finds the
//!   session's commits by these trailers and writes their provenance notes.
//! - `post-commit` attaches the session's provenance note to the new commit at once,
//!   for hook lines that call it (lefthook, earlier shims); git-beads installs none.
//! - `post-merge` and `post-rewrite` (after a rebase) fold the beads and notes
//!   `git pull` fetched into the local store, without the network.
//! - `pre-push` pushes the store and the notes to the remote the code goes to, with
//!   a deadline, after the same no-network merge.
//!
//! Every handler does nothing when git-beads itself runs the git command that fired
//! the hook ([`SYNC_ENV`] is set), so git-beads never recurses into its own hooks.

use std::path::PathBuf;
use std::time::Duration;

use crate::model::{Actor, AgentName, GIT_HOOK_NAMES, count, parse_duration};
use crate::ops::{self, AgentError, BoundBy, OpError, RefState, SYNC_ENV, Store};

/// The config key bounding how long the pre-push hook may spend pushing beads
/// (`20s`, `2m`, or seconds; default 30 seconds).
pub const PUSH_TIMEOUT_KEY: &str = crate::settings::HOOKS_PUSH_TIMEOUT;

const DEFAULT_PUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// The null object id git passes as the previous HEAD of a new worktree or clone.
const NULL_SHA: &str = "0000000000000000000000000000000000000000";

/// What went wrong in a git hook.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// An operation failed.
    #[error(transparent)]
    Op(#[from] OpError),
    /// git passed arguments the hook does not expect.
    #[error("the {hook} hook got unexpected arguments: {detail}")]
    Args {
        /// The hook.
        hook: String,
        /// What is wrong.
        detail: String,
    },
    /// Not a git hook git-beads handles.
    #[error("{0:?} is not a git hook git-beads handles (it handles {list})", list = GIT_HOOK_NAMES.join(", "))]
    Unknown(String),
}

/// Who a hook acts as: what `--as` or `GIT_BEADS_AGENT` named, or `--as-person`.
#[derive(Clone, Copy, Debug)]
pub struct Who<'a> {
    /// The agent named explicitly.
    pub agent: Option<&'a AgentName>,
    /// Act under the person's git identity whatever is bound.
    pub as_person: bool,
}

impl Who<'_> {
    fn actor(&self, store: &Store) -> Result<Actor, OpError> {
        ops::acting(store, self.agent, self.as_person)
    }
}

/// Whether `name` is a git hook `git beads git-hook` (and `git beads hook`) runs.
pub fn is_git_hook(name: &str) -> bool {
    GIT_HOOK_NAMES.contains(&name)
}

/// Runs git hook `name` with the arguments git passed it; returns the lines worth
/// saying on stderr (usually none).
pub fn run(
    store: &Store,
    who: Who<'_>,
    name: &str,
    args: &[String],
) -> Result<Vec<String>, HookError> {
    if !is_git_hook(name) {
        return Err(HookError::Unknown(name.to_owned()));
    }
    if std::env::var_os(SYNC_ENV).is_some() {
        return Ok(Vec::new());
    }
    match name {
        "post-checkout" => post_checkout(store, who, args),
        "prepare-commit-msg" => prepare_commit_msg(store, who, args),
        "post-commit" => post_commit(store, who),
        "post-merge" => post_merge(store, who),
        "post-rewrite" => match args.first().map(String::as_str) {
            // An amend fetched nothing; git has already copied the note.
            Some("amend") => Ok(Vec::new()),
            _ => fold(store, who),
        },
        "pre-push" => pre_push(store, who, args),
        _ => Err(HookError::Unknown(name.to_owned())),
    }
}

fn post_checkout(store: &Store, who: Who<'_>, args: &[String]) -> Result<Vec<String>, HookError> {
    let [prev, _new, flag] = args else {
        return Err(HookError::Args {
            hook: "post-checkout".into(),
            detail: format!(
                "expected 3 (previous HEAD, new HEAD, flag), got {}",
                args.len()
            ),
        });
    };
    // Checking out files (flag 0) says nothing about what the worktree is for.
    if flag != "1" {
        return Ok(Vec::new());
    }
    let new_worktree = prev == NULL_SHA || prev.bytes().all(|b| b == b'0');
    let bound = if new_worktree {
        ops::bind_new_worktree(store)?
    } else {
        // A worktree made with `--no-checkout` gets its first checkout later.
        ops::finish_pending(store)?
    };
    let mut said = Vec::new();
    if let Some(b) = bound {
        let how = match b.by {
            BoundBy::WorktreeAdd => String::new(),
            BoundBy::Branch => format!(" (branch {})", b.branch.as_deref().unwrap_or("?")),
        };
        let work = match &b.bead {
            Some(id) => format!("; {id} is on its hook"),
            None => String::new(),
        };
        said.push(format!(
            "git-beads: this worktree is for agent {}{how}{work}; `git beads prime` shows its work",
            b.agent
        ));
        return Ok(said);
    }
    if !new_worktree {
        // A branch switch may follow a fetch (`git pull --rebase` that only
        // fast-forwards runs no other hook).
        said.extend(fold(store, who)?);
    }
    Ok(said)
}

fn prepare_commit_msg(
    store: &Store,
    who: Who<'_>,
    args: &[String],
) -> Result<Vec<String>, HookError> {
    let Some(file) = args.first() else {
        return Err(HookError::Args {
            hook: "prepare-commit-msg".into(),
            detail: "no message file".into(),
        });
    };
    // What prepare-commit-msg of an earlier version left for its post-commit shim is
    // stale once this one runs.
    ops::forget_pending_commit(store)?;
    if !ops::has_store(store)? {
        return Ok(Vec::new());
    }
    // A rebase replays commits made by others (or by earlier sessions): their
    // messages stay as they were, trailers included, and git copies their notes.
    if ops::rebase_in_progress(store) {
        return Ok(Vec::new());
    }
    let actor = who.actor(store)?;
    let (Some(agent), Some(session)) = (&actor.agent, &actor.session) else {
        return Ok(Vec::new());
    };
    // The trailers are how the next git-beads command finds the commits a session
    // made (merges and squashes too), to write their provenance notes.
    let mut path = PathBuf::from(file);
    if path.is_relative()
        && let Ok(cwd) = std::env::current_dir()
    {
        path = cwd.join(path);
    }
    ops::add_trailers(
        store,
        &path,
        &[
            ("Beads-Agent", agent.as_str()),
            ("Beads-Session", session.as_str()),
        ],
    )?;
    Ok(Vec::new())
}

/// What a hook line that calls git-beads for post-commit does (lefthook, husky, the
/// shims of earlier versions): the note is written at once. git-beads installs no
/// post-commit hook: the next command writes the note (see
/// [`ops::fold_commit_notes`]).
fn post_commit(store: &Store, who: Who<'_>) -> Result<Vec<String>, HookError> {
    ops::forget_pending_commit(store)?;
    if !ops::has_store(store)? {
        return Ok(Vec::new());
    }
    let actor = who.actor(store)?;
    if actor.session.is_none() {
        return Ok(Vec::new());
    }
    ops::record_commit(store, &actor)?;
    Ok(Vec::new())
}

/// A merge (a pull) may have fetched nothing of the beads: `git pull origin main`
/// names its refspec, so the configured beads refspecs are left out. Fetch them (as
/// long as the pre-push hook may push), then fold in whatever is there.
fn post_merge(store: &Store, who: Who<'_>) -> Result<Vec<String>, HookError> {
    let mut said = Vec::new();
    if let Err(e) = ops::fetch_alongside(store, push_timeout(store)) {
        said.push(format!(
            "git-beads: could not fetch the beads to fold in ({e}); folding in what was fetched before"
        ));
    }
    said.extend(fold(store, who)?);
    Ok(said)
}

fn fold(store: &Store, who: Who<'_>) -> Result<Vec<String>, HookError> {
    if !ops::has_unfolded(store)? {
        return Ok(Vec::new());
    }
    let actor = who.actor(store)?;
    let mut said = Vec::new();
    for f in ops::fold_fetched(store, &actor)? {
        let mut parts = Vec::new();
        if f.fetched > 0 || f.outcome != ops::Outcome::UpToDate {
            parts.push(count(f.fetched, "document"));
        }
        if f.conflicts > 0 {
            parts.push(format!(
                "{} kept in the beads",
                count(f.conflicts, "conflict")
            ));
        }
        if f.notes.fetched > 0 {
            parts.push(count(f.notes.fetched, "provenance note"));
        }
        said.push(format!(
            "git-beads: folded in the beads fetched from {}: {}",
            f.remote,
            parts.join(", ")
        ));
        for k in &f.kept {
            said.push(format!(
                "warning: {} could not be merged ({}); the other version is at {}",
                k.path, k.reason, k.other_version
            ));
        }
    }
    Ok(said)
}

fn push_timeout(store: &Store) -> Duration {
    ops::config_string(store, PUSH_TIMEOUT_KEY)
        .and_then(|v| parse_duration(v.trim()).ok())
        .map(Duration::from_secs)
        .unwrap_or(DEFAULT_PUSH_TIMEOUT)
}

fn pre_push(store: &Store, who: Who<'_>, args: &[String]) -> Result<Vec<String>, HookError> {
    let Some(remote) = args.first() else {
        return Err(HookError::Args {
            hook: "pre-push".into(),
            detail: "no remote".into(),
        });
    };
    if !ops::has_store(store)? {
        return Ok(Vec::new());
    }
    let actor = who.actor(store)?;
    let done = match ops::push_alongside(store, &actor, remote, push_timeout(store)) {
        Ok(Some(done)) => done,
        Ok(None) => return Ok(Vec::new()),
        // The code push goes on; only the beads stay behind.
        Err(OpError::Agent(AgentError::NotPermitted { actor, .. })) => {
            return Ok(vec![format!(
                "git-beads: {actor} may not sync, so its beads were not pushed to {remote}; \
                 the code push goes on"
            )]);
        }
        Err(e) => return Err(e.into()),
    };
    let mut said = Vec::new();
    if done.beads == RefState::Behind || done.notes == RefState::Behind {
        said.push(format!(
            "git-beads: {remote} has beads this clone has not fetched, so they were not pushed; \
             `git beads sync {remote}` merges and pushes them"
        ));
    }
    Ok(said)
}
