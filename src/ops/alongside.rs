//! Beads that travel alongside the code: folding into the local store what a plain
//! `git fetch` or `git pull` brought into the tracking refs (no network), and
//! pushing the store and its provenance notes to the remote a `git push` goes to.

use std::time::Duration;

use serde::Serialize;

use super::provenance::{NotesSync, merge_notes};
use super::sync::integrate_remote;
use super::{KeptDoc, Outcome, Result, SyncReport};
use crate::model::{Actor, Capability};
use crate::store::{ObjectId, Pushed, RefPush, Store, check_remote_name, refs};

/// The directory git runs hooks from (`core.hooksPath` honoured).
pub fn hooks_dir(store: &Store) -> Result<std::path::PathBuf> {
    Ok(store.git().hooks_dir()?)
}

/// What folding one remote's fetched beads into the local store did.
#[derive(Clone, Debug, Serialize)]
pub struct Folded {
    /// The remote.
    pub remote: String,
    /// What happened to the local store.
    pub outcome: Outcome,
    /// How many documents came in.
    pub fetched: usize,
    /// How many documents changed on both sides were merged field by field.
    pub merged: usize,
    /// How many losing values the merge recorded in `conflicts:` lists.
    pub conflicts: usize,
    /// Documents that could not be merged field by field, kept whole.
    pub kept: Vec<KeptDoc>,
    /// What happened to the provenance notes.
    pub notes: NotesSync,
}

impl Folded {
    /// Whether anything came in.
    pub fn changed(&self) -> bool {
        self.outcome != Outcome::UpToDate || self.notes.fetched > 0
    }
}

/// Merges what remote `remote` last sent (its tracking refs) into the local store
/// and notes with sync's merge, without touching the network.
pub(crate) fn fold_remote(store: &Store, actor: &Actor, remote: &str) -> Result<Folded> {
    check_remote_name(remote).map_err(crate::store::StoreError::from)?;
    let theirs = store.tracking_head(remote)?;
    let mut report = SyncReport::empty(remote, false);
    integrate_remote(store, actor, remote, theirs, &mut report)?;
    let notes = merge_notes(store, actor, remote)?;
    Ok(Folded {
        remote: remote.to_owned(),
        outcome: report.outcome,
        fetched: report.fetched,
        merged: report.merged,
        conflicts: report.conflicts,
        kept: report.kept,
        notes,
    })
}

/// Folds every remote's fetched beads and notes into the local store (the
/// post-merge hook: `git pull` fetched them through the refspecs `git beads init`
/// set up). Returns the remotes from which something came in.
pub fn fold_fetched(store: &Store, actor: &Actor) -> Result<Vec<Folded>> {
    let mut out = Vec::new();
    for remote in store.git().remote_names() {
        if check_remote_name(&remote).is_err() {
            continue;
        }
        let folded = fold_remote(store, actor, &remote)?;
        if folded.changed() {
            out.push(folded);
        }
    }
    Ok(out)
}

/// Where one ref stands on the remote after [`push_alongside`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefState {
    /// There is nothing local to push.
    Absent,
    /// The remote already had it.
    UpToDate,
    /// Pushed now.
    Pushed,
    /// The remote's store has changes this clone has not fetched, so this clone's was
    /// pushed to its own replica ref there, which the next sync of any clone folds in.
    Replica,
    /// The remote has changes this clone has not fetched; nothing was pushed.
    Behind,
}

/// What pushing the store alongside the code did.
#[derive(Clone, Debug, Serialize)]
pub struct PushedAlong {
    /// The remote.
    pub remote: String,
    /// What folding the remote's fetched beads first did.
    pub folded: Folded,
    /// `refs/beads/main` on the remote.
    pub beads: RefState,
    /// `refs/notes/beads` on the remote.
    pub notes: RefState,
}

/// Brings remote `remote`'s beads in step with the code being pushed to it (the
/// pre-push hook): folds what was last fetched from it (no network), then pushes
/// `refs/beads/main` and `refs/notes/beads` with leases on what was fetched, giving
/// up after `timeout`. Where the remote's store has beads this clone has not fetched,
/// its `refs/beads/main` is left as it is and the store goes to this clone's replica
/// ref there instead (any clone's next sync merges the two). Returns `None` when there is nothing to
/// do: no store here, or the push goes to a URL rather than a configured remote; an
/// actor without the `sync` capability gets [`super::AgentError::NotPermitted`] and nothing
/// is folded or pushed.
pub fn push_alongside(
    store: &Store,
    actor: &Actor,
    remote: &str,
    timeout: Duration,
) -> Result<Option<PushedAlong>> {
    if check_remote_name(remote).is_err() || !store.git().remote_names().iter().any(|r| r == remote)
    {
        return Ok(None);
    }
    if store.head()?.is_none() {
        return Ok(None);
    }
    super::permit(actor, Capability::Sync)?;
    let folded = fold_remote(store, actor, remote)?;
    // So that the next plain `git fetch` brings this remote's beads.
    store.setup_remote(remote)?;
    let local = store.require_head()?;
    let local_notes = store.notes_head()?;
    let main_expected = store.tracking_head(remote)?;
    let notes_expected = store
        .ref_head(&refs::tracking_notes(remote))?
        .map(|h| h.commit);
    let mut updates = Vec::new();
    let mut beads = RefState::UpToDate;
    let mut notes = RefState::Absent;
    if main_expected != Some(local.commit) {
        updates.push(RefPush {
            name: refs::MAIN.to_string(),
            expected: main_expected,
            new: Some(local.commit),
        });
    }
    if let Some(n) = local_notes {
        notes = RefState::UpToDate;
        if notes_expected != Some(n.commit) {
            updates.push(RefPush {
                name: refs::NOTES.to_string(),
                expected: notes_expected,
                new: Some(n.commit),
            });
        }
    }
    if !updates.is_empty() {
        let results = store.git().push_refs(remote, &updates, Some(timeout))?;
        for (u, r) in updates.iter().zip(results) {
            let state = match r {
                Pushed::Done => {
                    match u.new {
                        Some(new) if u.name == refs::MAIN.as_str() => {
                            store.set_tracking(remote, new, actor)?;
                        }
                        Some(new) => store.set_notes_tracking(remote, new, actor)?,
                        None => {}
                    }
                    RefState::Pushed
                }
                Pushed::Stale(_) => RefState::Behind,
            };
            if u.name == refs::MAIN.as_str() {
                beads = state;
            } else {
                notes = state;
            }
        }
    }
    if beads == RefState::Behind && publish_replica(store, remote, local.commit, timeout)? {
        beads = RefState::Replica;
    }
    Ok(Some(PushedAlong {
        remote: remote.to_owned(),
        folded,
        beads,
        notes,
    }))
}

/// Pushes `head` to this clone's replica ref on `remote`, with a lease on what it held
/// when last fetched (nobody else pushes it): the store goes along with the code even
/// while others move `refs/beads/main`. Returns whether the remote took it.
fn publish_replica(store: &Store, remote: &str, head: ObjectId, timeout: Duration) -> Result<bool> {
    let me = store.replica_id()?;
    let own = store
        .tracked_replicas(remote)?
        .into_iter()
        .find_map(|(r, c)| (r == me).then_some(c));
    if own == Some(head) {
        return Ok(true);
    }
    let push = RefPush {
        name: refs::replica_ref(&me),
        expected: own,
        new: Some(head),
    };
    let pushed = store.git().push_refs(remote, &[push], Some(timeout))?;
    Ok(matches!(pushed.first(), Some(Pushed::Done)))
}

/// Whether `theirs` is already part of `local`'s history.
fn contains(store: &Store, local: Option<ObjectId>, theirs: ObjectId) -> Result<bool> {
    match local {
        None => Ok(false),
        Some(l) => Ok(store.ancestry().contains(l, theirs)?),
    }
}

/// Fetches the beads and notes of the remote a pull with an explicit refspec
/// (`git pull origin main`, which leaves the configured beads refspecs out) came
/// from: the branch's upstream remote, else `origin`. Gives up after `timeout`, as
/// the pre-push hook does. Returns the remote fetched from, if any.
pub fn fetch_alongside(store: &Store, timeout: Duration) -> Result<Option<String>> {
    if store.head()?.is_none() {
        return Ok(None);
    }
    let Some(remote) = store.git().default_remote() else {
        return Ok(None);
    };
    if check_remote_name(&remote).is_err() {
        return Ok(None);
    }
    store.fetch_beads_within(&remote, false, Some(timeout))?;
    Ok(Some(remote))
}

/// Whether some remote's tracking refs hold beads or notes the local store and notes
/// have not merged yet (so that a hook only needs an identity when there is work).
pub fn has_unfolded(store: &Store) -> Result<bool> {
    let local = store.head()?.map(|h| h.commit);
    let local_notes = store.notes_head()?.map(|h| h.commit);
    for remote in store.git().remote_names() {
        if check_remote_name(&remote).is_err() {
            continue;
        }
        if let Some(theirs) = store.tracking_head(&remote)?
            && !contains(store, local, theirs)?
        {
            return Ok(true);
        }
        for (_, theirs) in store.tracked_replicas(&remote)? {
            if !contains(store, local, theirs)? {
                return Ok(true);
            }
        }
        if let Some(theirs) = store.ref_head(&refs::tracking_notes(&remote))?
            && !contains(store, local_notes, theirs.commit)?
        {
            return Ok(true);
        }
    }
    Ok(false)
}
