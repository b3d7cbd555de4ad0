//! Giving beads new ids: one bead (`rename`), or every bead of the store's prefix
//! (`rename-prefix`), every link to them following.

use std::collections::BTreeMap;

use super::agent::permit;
use super::{BeadError, Result, now, require, write};
use crate::model::{Actor, Bead, BeadId, Capability, Prefix, Status, Timestamp};
use crate::store::{Store, Tx};

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
        let moves = BTreeMap::from([(old.clone(), new.clone())]);
        let relinked = move_beads(tx, actor, &moves)?;
        tx.set_message(format!("rename: {old} → {new}"));
        Ok(Renamed {
            bead: require(tx, new)?,
            old: old.clone(),
            relinked,
        })
    })
}

/// What `rename-prefix` did.
#[derive(Clone, Debug)]
pub struct PrefixRenamed {
    /// The prefix the store had.
    pub old: Prefix,
    /// The prefix it has.
    pub new: Prefix,
    /// How many beads got a new id.
    pub renamed: usize,
}

/// Gives the store the prefix `new`, in one commit: every live bead whose id has the
/// old prefix gets the same id with the new one (`bd-a1.2` → `kw-a1.2`), every
/// dependency follows, and each old id stays as a tombstone saying where its bead
/// went (as [`rename`] leaves it). Beads of other prefixes (imported from elsewhere)
/// keep theirs. Refused, changing nothing, when a new id is taken already.
pub fn rename_prefix(store: &Store, actor: &Actor, new: &Prefix) -> Result<PrefixRenamed> {
    permit(actor, Capability::Update)?;
    write(store, actor, |tx| {
        let mut meta = tx.meta()?;
        let old = meta.prefix.clone();
        if old == *new {
            return Ok(PrefixRenamed {
                old,
                new: new.clone(),
                renamed: 0,
            });
        }
        let head = format!("{}-", old.as_str());
        let mut moves = BTreeMap::new();
        for s in tx.index()?.rows() {
            let Some(rest) = s.id().strip_prefix(&head) else {
                continue;
            };
            if s.status() == Status::Deleted {
                continue;
            }
            let from = BeadId::parse(s.id())?;
            let to = BeadId::parse(&format!("{}-{rest}", new.as_str()))?;
            moves.insert(from, to);
        }
        for to in moves.values() {
            if tx.bead_exists(to)? {
                return Err(BeadError::Taken(to.clone()).into());
            }
        }
        move_beads(tx, actor, &moves)?;
        meta.prefix = new.clone();
        tx.put_meta(&meta)?;
        tx.set_message(format!("rename-prefix: {old} → {new}"));
        Ok(PrefixRenamed {
            old,
            new: new.clone(),
            renamed: moves.len(),
        })
    })
}

/// Moves each bead `from` → `to` of `moves` (leaving a tombstone at `from`) and points
/// every dependency on a moved bead at its new id; returns the beads not moved whose
/// links were rewritten, sorted.
fn move_beads(
    tx: &mut Tx<'_>,
    actor: &Actor,
    moves: &BTreeMap<BeadId, BeadId>,
) -> Result<Vec<BeadId>> {
    let at = now();
    let touched: Vec<BeadId> = tx
        .index()?
        .rows()
        .filter(|s| {
            s.dependencies()
                .any(|d| BeadId::parse(d.id()).is_ok_and(|id| moves.contains_key(&id)))
        })
        .filter_map(|s| BeadId::parse(s.id()).ok())
        .collect();
    let mut relinked = Vec::new();
    for id in touched {
        let mut bead = require(tx, &id)?;
        bead.relink(moves);
        if !moves.contains_key(&id) {
            bead.touch(&actor.id, at);
            tx.put_bead(&bead)?;
            relinked.push(id);
        }
    }
    for (from, to) in moves {
        let mut bead = require(tx, from)?;
        bead.relink(moves);
        let tomb = tombstone(bead.clone(), to, actor, at);
        bead.id = to.clone();
        bead.touch(&actor.id, at);
        tx.put_bead(&bead)?;
        tx.put_bead(&tomb)?;
    }
    relinked.sort();
    Ok(relinked)
}

/// What stays at a moved bead's old id: a tombstone naming the new one.
fn tombstone(mut bead: Bead, to: &BeadId, actor: &Actor, at: Timestamp) -> Bead {
    bead.status = Status::Deleted;
    bead.deleted_at = Some(at);
    bead.deleted_by = Some(actor.id.clone());
    bead.delete_reason = Some(format!("renamed to {to}"));
    bead.dependencies.clear();
    bead.external.clear();
    bead.extra
        .insert(RENAMED_TO.into(), serde_json::Value::String(to.to_string()));
    bead.touch(&actor.id, at);
    bead
}
