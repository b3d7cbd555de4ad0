//! Giving a bead a new id (`rename`), every link to it following.

use super::agent::permit;
use super::{BeadError, Result, now, require, write};
use crate::model::{Actor, Bead, BeadId, Capability, Status, bd};
use crate::store::Store;

/// Key in a renamed bead's tombstone `extra` of the id it goes by now.
pub const RENAMED_TO: &str = "renamed_to";

/// What `rename` did.
#[derive(Clone, Debug)]
pub struct Renamed {
    /// The bead under its new id.
    pub bead: Bead,
    /// The id it had.
    pub old: BeadId,
    /// The beads whose links to it were rewritten, sorted.
    pub relinked: Vec<BeadId>,
}

/// Gives bead `old` the id `new`, in one commit: the bead moves to `new`, every
/// dependency on `old` (parents included) now names `new`, and `old` stays behind as
/// a tombstone that says where the bead went (`delete_reason` "renamed to NEW",
/// `extra.renamed_to`), so that `show OLD` still answers and a clone that syncs later
/// sees the old id deleted rather than finding it gone. `new` must be free (no bead
/// and no tombstone has it).
pub fn rename(store: &Store, actor: &Actor, old: &BeadId, new: &BeadId) -> Result<Renamed> {
    permit(actor, Capability::Update)?;
    write(store, actor, |tx| {
        let bead = require(tx, old)?;
        if bead.status == Status::Deleted {
            return Err(BeadError::Deleted(old.clone()).into());
        }
        if old == new || tx.bead_exists(new)? {
            return Err(BeadError::Taken(new.clone()).into());
        }
        let at = now();
        let referrers: Vec<BeadId> = tx
            .index()?
            .rows()
            .filter(|s| s.id() != old.as_str())
            .filter(|s| s.dependencies().any(|d| d.id() == old.as_str()))
            .filter_map(|s| BeadId::parse(s.id()).ok())
            .collect();
        let mut relinked = Vec::with_capacity(referrers.len());
        for id in referrers {
            let mut other = require(tx, &id)?;
            if relink(&mut other, old, new) {
                other.touch(&actor.id, at);
                tx.put_bead(&other)?;
                relinked.push(id);
            }
        }
        relinked.sort();

        let mut moved = bead.clone();
        moved.id = new.clone();
        moved.touch(&actor.id, at);
        tx.put_bead(&moved)?;

        let mut tomb = bead;
        tomb.status = Status::Deleted;
        tomb.deleted_at = Some(at);
        tomb.deleted_by = Some(actor.id.clone());
        tomb.delete_reason = Some(format!("renamed to {new}"));
        tomb.dependencies.clear();
        tomb.external.clear();
        tomb.extra.insert(
            RENAMED_TO.into(),
            serde_json::Value::String(new.to_string()),
        );
        tomb.touch(&actor.id, at);
        tx.put_bead(&tomb)?;
        tx.set_message(format!("rename: {old} → {new}"));
        Ok(Renamed {
            bead: moved,
            old: old.clone(),
            relinked,
        })
    })
}

/// Points `bead`'s dependencies on `old` at `new` (bd's records of them too); returns
/// whether anything changed.
fn relink(bead: &mut Bead, old: &BeadId, new: &BeadId) -> bool {
    let linked: Vec<_> = bead
        .dependencies
        .iter()
        .filter(|d| d.id == *old)
        .map(|d| d.kind)
        .collect();
    if linked.is_empty() {
        return false;
    }
    bead.remove_dependency(old, None);
    for kind in linked {
        bead.add_dependency(crate::model::Dependency {
            id: new.clone(),
            kind,
        });
    }
    bd::retarget_kept(bead, old.as_str(), new.as_str());
    true
}
