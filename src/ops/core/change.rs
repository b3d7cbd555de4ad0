//! Changing beads: the one loop every change of existing beads goes through, and the
//! claim of a bead.

use super::{BeadError, OpError, Result, check_bead, now, require};
use crate::model::{Actor, Bead, BeadId, Status};
use crate::store::{Store, Tx, View};

/// The beads a change finished (closed, or another status of the done category), and
/// those it released (whose assignee it cleared), as they were before.
pub(crate) struct Ended {
    /// Beads the change finished, as changed.
    pub(crate) finished: Vec<Bead>,
    /// Beads whose assignee the change cleared, as they were.
    pub(crate) left: Vec<Bead>,
}

/// What a caller does, in the same transaction, with the beads a change ended; it
/// returns the lines to add to the commit message.
pub(crate) type AfterFinish<'a> =
    &'a dyn Fn(&Store, &mut Tx<'_>, &Actor, Ended) -> Result<Vec<String>>;

/// Reads bead `id` for a change: it must exist and not be deleted.
pub(crate) fn require_live(tx: &View<'_>, id: &BeadId) -> Result<Bead> {
    let bead = require(tx, id)?;
    if bead.status == Status::Deleted {
        return Err(BeadError::Deleted(id.clone()).into());
    }
    Ok(bead)
}

/// A bead a command was asked to change, as it is now, and whether the command
/// changed it (a change to what it already is writes nothing).
#[derive(Clone, Debug)]
pub struct Edited {
    /// The bead, as changed or as it already was.
    pub bead: Bead,
    /// Whether the command changed it.
    pub changed: bool,
}

/// Applies `change` to each of `ids` inside `tx`, on whatever state it reads: a store
/// ref, or the head a change that a remote confirms first is prepared on (see
/// [`Store::prepare`]). Only the beads `change` changes are written; when none is,
/// nothing is committed. What the beads it finishes or releases bring about is the
/// caller's policy, `after`, run in the same transaction; the lines it returns go
/// into the commit message.
pub(crate) fn change_each_in(
    store: &Store,
    tx: &mut Tx<'_>,
    actor: &Actor,
    ids: &[BeadId],
    verb: &str,
    change: &mut dyn FnMut(&mut Bead) -> Result<()>,
    after: AfterFinish<'_>,
) -> Result<Vec<Edited>> {
    let mut out = Vec::with_capacity(ids.len());
    let mut finished = Vec::new();
    let mut left = Vec::new();
    for id in ids {
        let before = require_live(tx, id)?;
        let mut bead = before.clone();
        change(&mut bead)?;
        if bead == before {
            out.push(Edited {
                bead,
                changed: false,
            });
            continue;
        }
        check_bead(Some(&before), &bead)?;
        bead.touch(&actor.id, now());
        tx.put_bead(&bead)?;
        if !before.status.is_done() && bead.status.is_done() {
            finished.push(bead.clone());
        }
        if before.assignee.is_some() && bead.assignee.is_none() {
            // Released work leaves the hook of the agent that held it.
            left.push(before);
        }
        out.push(Edited {
            bead,
            changed: true,
        });
    }
    let changed: Vec<&Bead> = out.iter().filter(|e| e.changed).map(|e| &e.bead).collect();
    let subject = match changed.as_slice() {
        [] => return Ok::<_, OpError>(out),
        [one] => format!("{verb} {}: {}", one.id, one.title),
        many => format!(
            "{verb} {}",
            many.iter()
                .map(|b| b.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let notes = after(store, tx, actor, Ended { finished, left })?;
    if notes.is_empty() {
        tx.set_message(subject);
    } else {
        tx.set_message(format!("{subject}\n\n{}", notes.join("\n")));
    }
    Ok(out)
}

/// Makes `actor` the holder of `bead`: in_progress and assigned to them.
/// Fails if someone else holds it or it is finished.
pub(crate) fn claim(bead: &mut Bead, actor: &Actor) -> Result<()> {
    if bead.status.is_done() {
        return Err(BeadError::Unclaimable {
            id: bead.id.clone(),
            status: bead.status,
        }
        .into());
    }
    if let Some(holder) = bead.assignee.as_deref().filter(|h| *h != actor.id) {
        return Err(BeadError::ClaimedBy {
            id: bead.id.clone(),
            holder: holder.to_owned(),
        }
        .into());
    }
    bead.status = Status::InProgress;
    bead.assignee = Some(actor.id.clone());
    Ok(())
}
