//! Claims confirmed by a remote: a claim ref per bead on the remote
//! (`refs/beads/claims/<id>`), created with an empty lease, so that of the clones
//! claiming one bead at once exactly one succeeds, on any git server; and their
//! removal once the bead is finished or released.

use super::claim_refs::{claim_deletions, delete_claims, finished_claims};
use super::sync::{SyncReport, integrate, integrate_remote, pick_remote, stale};
use super::{OpError, Result, now};
use crate::model::{Actor, Bead, BeadId};
use crate::settings;
use crate::store::{ObjectId, Pushed, RefPush, Store, refs};

/// How often a claim whose ref the remote still holds for a bead that is no longer
/// held (finished or released, its ref not yet deleted) deletes that ref and tries again.
const STALE_CLAIM_TRIES: usize = 3;

/// The remote claims are confirmed on: `remote` when given, none with `offline`,
/// else the `beads.claimRemote` config key's, if set. Checked to be a remote.
pub fn claim_remote(store: &Store, remote: Option<&str>, offline: bool) -> Result<Option<String>> {
    if offline {
        return Ok(None);
    }
    let configured = store.git().config_string(settings::CLAIM_REMOTE);
    match remote.map(str::to_owned).or(configured) {
        Some(name) => Ok(Some(pick_remote(store, Some(name.trim()))?)),
        None => Ok(None),
    }
}

/// Makes `remote` hold the claim of bead `id` that `change` makes (a claim, a sling):
/// `change` is applied to the bead as the local store has it, the result committed on
/// the store's head (no ref moves) and pushed to the bead's claim ref on `remote`,
/// which must not exist yet. Once the remote holds it, the claim is merged into the
/// local store, and the caller does the local operation.
///
/// When someone else holds it there, their claim is fetched and merged, so the local
/// store shows the winner, and `change`'s error on the merged bead (`ClaimedBy`, …) is
/// returned. An unreachable remote is a store error; nothing is claimed either way.
pub(crate) fn claim_on_remote(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    remote: &str,
    change: &mut dyn FnMut(&mut Bead) -> Result<()>,
) -> Result<()> {
    let claim_ref = refs::claim_ref(id);
    for _ in 0..STALE_CLAIM_TRIES {
        let head = store.require_head()?;
        let mut bead = store
            .read_bead(head.tree, id)?
            .ok_or_else(|| OpError::from(super::BeadError::NotFound(id.clone())))?;
        change(&mut bead)?;
        bead.touch(&actor.id, now());
        let message = format!("claim {id} on {remote}: {}", bead.title);
        let commit = store.commit_bead(&head, &bead, actor, &message)?;
        let push = RefPush {
            name: claim_ref.clone(),
            expected: None,
            new: Some(commit),
        };
        match store.git().push_refs(remote, &[push], None)?.first() {
            Some(Pushed::Done) | None => {
                store.set_tracked_claim(remote, id, commit, actor)?;
                return hold(store, actor, id, remote, commit, change);
            }
            Some(Pushed::Stale(_)) => {}
        }
        store.fetch_claims(remote)?;
        let Some(theirs) = store.tracked_claim(remote, id)? else {
            // Deleted meanwhile: the bead is free again.
            continue;
        };
        merge_claim(store, actor, remote, theirs)?;
        let ours = bead.assignee.clone();
        if store
            .read_bead(store.commit_tree(theirs)?, id)?
            .is_some_and(|b| b.assignee == ours)
        {
            // The remote holds this holder's claim already (made earlier).
            return Ok(());
        }
        let head = store.require_head()?;
        let mut merged = store
            .read_bead(head.tree, id)?
            .ok_or_else(|| OpError::from(super::BeadError::NotFound(id.clone())))?;
        change(&mut merged)?;
        // Nobody holds the bead the ref claims: the ref outlived its claim.
        delete_claims(store, remote, &[(id.to_string(), theirs)], None)?;
    }
    Err(super::BeadError::ClaimRefStuck {
        id: id.clone(),
        remote: remote.to_owned(),
    }
    .into())
}

/// Once this clone created the claim ref of bead `id` with `commit`: brings in the
/// remote's store and checks that the bead can still be claimed there before the
/// claim is merged. A claim ref is deleted in the same push that publishes the close
/// or release that freed it (see [`finish_on`]), so a clone that had not heard
/// of a close when it created the ref finds the bead closed here, deletes its ref
/// again and fails with `change`'s error, as it would have without the race.
fn hold(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    remote: &str,
    commit: ObjectId,
    change: &mut dyn FnMut(&mut Bead) -> Result<()>,
) -> Result<()> {
    let checked = (|| -> Result<()> {
        let mut report = SyncReport::empty(remote, false);
        let main = store.fetch_beads_now(remote)?;
        integrate_remote(store, actor, remote, main, &mut report)?;
        let head = store.require_head()?;
        let mut now = store
            .read_bead(head.tree, id)?
            .ok_or_else(|| OpError::from(super::BeadError::NotFound(id.clone())))?;
        change(&mut now)
    })();
    // Nothing is claimed unless the check passed: the ref goes again.
    if let Err(e) = checked {
        delete_claims(store, remote, &[(id.to_string(), commit)], None)?;
        return Err(e);
    }
    merge_claim(store, actor, remote, commit)
}

/// Merges a claim commit (its parent is a state of some clone's store) into the local store.
fn merge_claim(store: &Store, actor: &Actor, remote: &str, commit: ObjectId) -> Result<()> {
    let mut report = SyncReport::empty(remote, false);
    integrate(
        store,
        &mut store.ancestry(),
        actor,
        remote,
        &[commit],
        &mut report,
        &mut |_| {},
        None,
    )
}

/// The beads whose claim refs on `remote` (as last fetched) hold claims the local store
/// has not merged yet: claimed elsewhere, so not worth trying.
pub(crate) fn claimed_elsewhere(
    store: &Store,
    remote: &str,
) -> Result<std::collections::BTreeSet<String>> {
    let Some(head) = store.head()? else {
        return Ok(Default::default());
    };
    let claims = store.tracked_claims(remote)?;
    let commits: Vec<_> = claims.iter().map(|(_, c)| *c).collect();
    let merged = store.ancestry().in_history(head.commit, &commits)?;
    Ok(claims
        .into_iter()
        .zip(merged)
        .filter(|(_, merged)| !merged)
        .map(|((id, _), _)| id)
        .collect())
}

/// Changes beads `ids` with `change` (a close, a release: see
/// [`super::beads::change_each_in`]) once `remote` holds the change.
///
/// The remote's store is fetched and merged first, and so are the claims it holds of
/// `ids`, so that a bead finished, released or taken there is seen as it is there.
/// The change is then committed on the local head without moving it (see
/// [`Store::prepare`]) and pushed to this clone's replica ref on `remote`, in one
/// atomic push with the deletion of the claim refs it frees, each ref with its lease;
/// whoever creates one of those claim refs next finds the bead's new state when it
/// fetches (see [`hold`]). Only once that push went through does the local store
/// merge the change. An unreachable remote is a store error, and nothing changes; a
/// ref that moved meanwhile makes it start again, a few times.
pub(crate) fn finish_on(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    remote: &str,
    verb: &str,
    change: &mut dyn FnMut(&mut Bead) -> Result<()>,
) -> Result<Vec<super::Edited>> {
    let mut last = String::new();
    for _ in 0..STALE_CLAIM_TRIES {
        let mut report = SyncReport::empty(remote, false);
        let main = store.fetch_beads_now(remote)?;
        integrate_remote(store, actor, remote, main, &mut report)?;
        let held: Vec<_> = store
            .tracked_claims(remote)?
            .into_iter()
            .filter(|(claim, _)| ids.iter().any(|id| id.as_str() == claim))
            .collect();
        let head = store.require_head()?;
        let commits: Vec<_> = held.iter().map(|(_, c)| *c).collect();
        for (commit, merged) in commits
            .iter()
            .zip(store.ancestry().in_history(head.commit, &commits)?)
        {
            if !merged {
                merge_claim(store, actor, remote, *commit)?;
            }
        }
        let (edited, prepared) = store.prepare(actor, |tx| {
            super::beads::change_each_in(store, tx, actor, ids, verb, change)
        })?;
        let after = match prepared {
            Some(commit) => crate::store::Head {
                commit,
                tree: store.commit_tree(commit)?,
            },
            None => store.require_head()?,
        };
        let mut pushes = Vec::new();
        let me = store.replica_id()?;
        let own = store
            .tracked_replicas(remote)?
            .into_iter()
            .find_map(|(r, c)| (r == me).then_some(c));
        if main != Some(after.commit) && own != Some(after.commit) {
            pushes.push(RefPush {
                name: refs::replica_ref(&me),
                expected: own,
                new: Some(after.commit),
            });
        }
        pushes.extend(claim_deletions(&finished_claims(&after, store, held)?));
        if !pushes.is_empty()
            && let Some(reason) = stale(store.push_beads(remote, &pushes, false, None)?)
        {
            last = reason;
            continue;
        }
        if let Some(commit) = prepared {
            merge_claim(store, actor, remote, commit)?;
        }
        return Ok(edited);
    }
    Err(super::SyncError::Moved {
        remote: remote.to_owned(),
        reason: last,
    }
    .into())
}

/// `update` (see [`super::update`]) whose claim, if it asks for one, `remote` confirms
/// first (see `claim_on_remote`).
pub fn update_on(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    changes: super::Changes,
    remote: &str,
) -> Result<super::Edited> {
    let mut claimed = false;
    if changes.claim {
        super::permit(actor, crate::model::Capability::Claim)?;
        claim_on_remote(store, actor, id, remote, &mut |b| {
            let was = b.clone();
            super::claim_bead(b, actor)?;
            claimed = (&was.status, &was.assignee) != (&b.status, &b.assignee);
            Ok(())
        })?;
    }
    let mut edited = super::update(store, actor, std::slice::from_ref(id), changes)?;
    let mut edited = edited.pop().expect("update returns one bead per id");
    // The claim came in with the remote's: the update found it made already.
    edited.changed |= claimed;
    Ok(edited)
}

/// `sling` (see [`super::sling`]) once `remote` holds the claim of the bead for the
/// agent (see `claim_on_remote`).
pub fn sling_on(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    agent: &crate::model::AgentName,
    remote: &str,
) -> Result<Bead> {
    super::permit(actor, crate::model::Capability::Sling)?;
    claim_on_remote(store, actor, id, remote, &mut |b| {
        super::session::hook_bead(b, agent)
    })?;
    super::sling(store, actor, id, agent)
}

/// [`close`](super::close), acknowledged only once `remote` holds it, with the beads'
/// claim refs there deleted (see [`finish_on`]). Wisp steps never leave this machine
/// and are closed here only.
pub fn close_on(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    how: &super::Closing<'_>,
    remote: &str,
) -> Result<Vec<super::Edited>> {
    super::permit(actor, crate::model::Capability::Close)?;
    if super::molecule::ref_for_close(store, ids)? != refs::MAIN {
        return super::close_with_output(store, actor, ids, how);
    }
    let mut change = super::beads::closing(how);
    finish_on(store, actor, ids, remote, "close", &mut change)
}

/// [`release`](super::release), acknowledged only once `remote` holds it, with the
/// beads' claim refs there deleted (see [`finish_on`]): a bead that was finished or
/// released there is seen so, and refused.
pub fn release_on(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    reason: Option<&str>,
    remote: &str,
) -> Result<Vec<super::Edited>> {
    super::permit(actor, crate::model::Capability::Claim)?;
    let mut change = super::beads::releasing(actor, reason);
    finish_on(store, actor, ids, remote, "release", &mut change)
}

/// How many ready beads `ready --claim` with a claim remote tries before it gives up:
/// each one lost was claimed by another machine first.
const REMOTE_CLAIM_TRIES: usize = 10;

/// Claims the first ready bead for `actor` on `remote` (see [`claim_on_remote`]): a
/// bead someone else won there is left for the next, up to `REMOTE_CLAIM_TRIES` of
/// them, after which the last loss is returned. Returns `None` when nothing is ready.
pub fn ready_claim_on(
    store: &Store,
    actor: &Actor,
    filter: &super::ListFilter,
    remote: &str,
) -> Result<Option<Bead>> {
    super::permit(actor, crate::model::Capability::Claim)?;
    // What the last sync fetched of the claims in flight is skipped at once; after a
    // loss they are fetched again.
    let mut lost = claimed_elsewhere(store, remote)?;
    let mut last = None;
    let words = super::vocabulary(store)?;
    for _ in 0..REMOTE_CLAIM_TRIES {
        let Some(id) = super::query::next_to_claim(store, actor, filter, &words, &lost)? else {
            break;
        };
        match claim_on_remote(store, actor, &id, remote, &mut |b| {
            super::claim_bead(b, actor)
        }) {
            Ok(()) => {
                let mut edited = super::update(
                    store,
                    actor,
                    std::slice::from_ref(&id),
                    super::Changes {
                        claim: true,
                        ..Default::default()
                    },
                )?;
                return Ok(edited.pop().map(|e| e.bead));
            }
            Err(e) if e.kind() == super::ErrorKind::Conflict => {
                lost.insert(id.to_string());
                lost.extend(claimed_elsewhere(store, remote)?);
                last = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    match last {
        Some(e) => Err(e),
        None => Ok(None),
    }
}
