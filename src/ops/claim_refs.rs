//! The claim refs a remote holds (`refs/beads/claims/<id>`): which of them are done
//! with (their bead finished, released or taken since), and their deletion. Both a
//! sync and a change confirmed by a remote clear them.

use super::Result;
use crate::model::{Bead, BeadId, Status};
use crate::store::{ObjectId, RefPush, Store, refs};

/// Deletes `claims` (bead id, the commit its ref must still hold) on `remote`, each
/// with its lease; one that moved meanwhile is left alone.
pub(crate) fn delete_claims(
    store: &Store,
    remote: &str,
    claims: &[(String, ObjectId)],
    timeout: Option<std::time::Duration>,
) -> Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    store
        .git()
        .push_refs(remote, &claim_deletions(claims), timeout)?;
    Ok(())
}

/// The pushes that delete `claims` (bead id, the commit its ref must still hold).
pub(crate) fn claim_deletions(claims: &[(String, ObjectId)]) -> Vec<RefPush> {
    claims
        .iter()
        .map(|(id, commit)| RefPush {
            name: format!("{}{id}", refs::CLAIMS_PREFIX),
            expected: Some(*commit),
            new: None,
        })
        .collect()
}

/// Deletes on `remote` the claim refs (as last fetched) whose claim the local store
/// holds and whose bead is no longer held by that claimer: finished, released, or
/// taken by someone else since, the push given up after `timeout`. Returns how many
/// went.
pub(crate) fn drop_finished_claims(
    store: &Store,
    remote: &str,
    timeout: Option<std::time::Duration>,
) -> Result<usize> {
    let Some(head) = store.head()? else {
        return Ok(0);
    };
    let finished = finished_claims(&head, store, store.tracked_claims(remote)?)?;
    delete_claims(store, remote, &finished, timeout)?;
    Ok(finished.len())
}

/// The claims of `claims` (bead id, commit) that the store at `head` holds and whose
/// bead is no longer held by that claimer.
pub(crate) fn finished_claims(
    head: &crate::store::Head,
    store: &Store,
    claims: Vec<(String, ObjectId)>,
) -> Result<Vec<(String, ObjectId)>> {
    let mut finished = Vec::new();
    let commits: Vec<_> = claims.iter().map(|(_, c)| *c).collect();
    let merged = store.ancestry().in_history(head.commit, &commits)?;
    for ((id, commit), merged) in claims.into_iter().zip(merged) {
        let Ok(bead_id) = BeadId::parse(&id) else {
            continue;
        };
        // A claim this store has not merged yet may be one it knows nothing of.
        if !merged {
            continue;
        }
        let claimed = store.read_bead(store.commit_tree(commit)?, &bead_id)?;
        let now = store.read_bead(head.tree, &bead_id)?;
        let held = |b: &Bead| {
            matches!(b.status, Status::InProgress | Status::Hooked) && b.assignee.is_some()
        };
        let still = match (&claimed, &now) {
            (Some(c), Some(n)) => held(n) && n.assignee == c.assignee,
            _ => false,
        };
        if !still {
            finished.push((id, commit));
        }
    }
    Ok(finished)
}
