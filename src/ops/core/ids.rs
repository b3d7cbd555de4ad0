//! New bead ids: a fresh hash id, and a parent's next child.

use super::{BeadError, Result, now};
use crate::model::{Actor, BeadId, Prefix, id_length_for};
use crate::store::View;

/// The next free child id of `parent` (`<parent>.<n>`).
pub(crate) fn next_child(tx: &View<'_>, parent: &BeadId) -> Result<BeadId> {
    let prefix = format!("{parent}.");
    let highest = tx
        .bead_ids_near(parent)?
        .iter()
        .filter_map(|id| id.strip_prefix(&prefix))
        .filter_map(|n| n.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    Ok(parent.child(highest + 1))
}

/// A fresh id with `prefix` for a bead titled `title`, free in `tx`; longer after
/// collisions, so it always ends.
pub(crate) fn fresh_id(
    tx: &View<'_>,
    prefix: &Prefix,
    title: &str,
    actor: &Actor,
) -> Result<BeadId> {
    let len = id_length_for(tx.bead_count_estimate()?);
    let stamp = now().timestamp_nanos_opt().unwrap_or_default();
    for attempt in 0u32..64 {
        let seed = format!("{title}\0{}\0{stamp}\0{attempt}", actor.id);
        // A collision is retried with a longer id after a few tries, so it always ends.
        let id = BeadId::generate(prefix, seed.as_bytes(), len + (attempt as usize / 8));
        if !tx.bead_exists(&id)? {
            return Ok(id);
        }
    }
    Err(BeadError::NoFreeId.into())
}
