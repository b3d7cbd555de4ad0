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
///
/// What each claim commit holds of its bead, and which were merged at the head of the
/// last check, are kept between checks (`store::ClaimsSeen`): a check with nothing new
/// asks one merge-base question and compares document ids (each folder of the head's
/// tree read once), and reads a bead only where its document changed since its claim.
pub(crate) fn finished_claims(
    head: &crate::store::Head,
    store: &Store,
    claims: Vec<(String, ObjectId)>,
) -> Result<Vec<(String, ObjectId)>> {
    let saved = store.claims_seen();
    let mut ancestry = store.ancestry();
    let saved_merged = match saved.head {
        Some(h) => ancestry.contains(head.commit, h)?,
        None => false,
    };
    let known =
        |id: &str, c: &ObjectId| saved_merged && saved.claims.contains_key(&(*c, id.to_owned()));
    let unknown: Vec<ObjectId> = (claims.iter())
        .filter(|(id, c)| !known(id, c))
        .map(|(_, c)| *c)
        .collect();
    let merged: std::collections::HashSet<ObjectId> = unknown
        .iter()
        .zip(ancestry.in_history(head.commit, &unknown)?)
        .filter_map(|(c, merged)| merged.then_some(*c))
        .collect();
    // A claim this store has not merged yet may be one it knows nothing of.
    let judged: Vec<(BeadId, (ObjectId, String))> = claims
        .into_iter()
        .filter(|(id, c)| known(id, c) || merged.contains(c))
        .filter_map(|(id, c)| Some((BeadId::parse(&id).ok()?, (c, id))))
        .collect();
    let ids: Vec<&BeadId> = judged.iter().map(|(b, _)| b).collect();
    let now = store.bead_blobs(head.tree, &ids)?;
    let mut seen = crate::store::ClaimsSeen {
        head: Some(head.commit),
        claims: Default::default(),
    };
    let mut finished = Vec::new();
    for ((bead_id, key), now) in judged.iter().zip(now) {
        let claimed = match saved.claims.get(key) {
            Some(c) => c.clone(),
            None => {
                let tree = store.commit_tree(key.0)?;
                let doc = store.read_bead(tree, bead_id)?;
                crate::store::ClaimSeen {
                    blob: store.bead_blobs(tree, &[bead_id])?.pop().flatten(),
                    held: doc.as_ref().is_some_and(held),
                    assignee: doc.and_then(|b| b.assignee),
                }
            }
        };
        let still = match (claimed.blob, now) {
            // The very document claimed: still held as it was.
            (Some(was), Some(now)) if was == now => claimed.held,
            (Some(_), Some(_)) => store
                .read_bead(head.tree, bead_id)?
                .is_some_and(|n| held(&n) && n.assignee == claimed.assignee),
            _ => false,
        };
        if !still {
            finished.push((key.1.clone(), key.0));
        }
        seen.claims.insert(key.clone(), claimed);
    }
    if seen != saved {
        store.save_claims_seen(&seen);
    }
    Ok(finished)
}

/// Whether bead `b` is held: in progress or hooked, by someone.
fn held(b: &Bead) -> bool {
    matches!(b.status, Status::InProgress | Status::Hooked) && b.assignee.is_some()
}
