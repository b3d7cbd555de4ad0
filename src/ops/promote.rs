//! bd's `promote`: a wisp made a permanent bead of the store.

use super::molecule::EPHEMERAL_KEY;
use super::{MoleculeError, Result, now, permit, require, write};
use crate::model::{Actor, Bead, BeadId, Capability, Comment};
use crate::store::{Store, refs};

/// Makes wisp `id` a bead of `refs/beads/main`, as bd's `promote` does: the same id,
/// fields, labels, dependencies and comments, no longer ephemeral, with a comment
/// recording the promotion (and `reason`), in one commit; then takes it off this
/// machine's wisp ref (its children, a wisp molecule's steps, stay wisps). A promote
/// cut short between the two is finished by running it again. A bead the store holds
/// already is refused.
pub fn promote(store: &Store, actor: &Actor, id: &BeadId, reason: Option<&str>) -> Result<Bead> {
    permit(actor, Capability::Create)?;
    let wisps = store.view_of(refs::WISPS)?;
    let main = store.view()?;
    if !wisps.bead_exists(id)? {
        return match main.bead_exists(id)? {
            true => Err(MoleculeError::AlreadyPersistent(id.clone()).into()),
            false => require(&wisps, id),
        };
    }
    let wisp = require(&wisps, id)?;
    let promoted = match main.bead(id)? {
        Some(b) if b.created_at == wisp.created_at => b,
        Some(_) => return Err(super::BeadError::Taken(id.clone()).into()),
        None => write(store, actor, |tx| {
            let mut bead = wisp.clone();
            bead.extra.remove(EPHEMERAL_KEY);
            let at = now();
            let text = match reason.filter(|r| !r.trim().is_empty()) {
                Some(r) => format!("Promoted from wisp to permanent bead: {r}"),
                None => "Promoted from wisp to permanent bead".to_owned(),
            };
            bead.comments.push(Comment {
                id: super::beads::comment_id(&bead, &actor.id, at),
                author: actor.id.clone(),
                created_at: at,
                text,
            });
            bead.touch(&actor.id, at);
            tx.put_bead(&bead)?;
            tx.set_message(format!("promote {id}: {}", bead.title));
            Ok(bead)
        })?,
    };
    store.transact_on(refs::WISPS, actor, |tx| {
        tx.remove_bead(id);
        tx.set_message(format!("promoted to the store: wisp {id}: {}", wisp.title));
        Ok::<_, super::OpError>(())
    })?;
    Ok(promoted)
}
