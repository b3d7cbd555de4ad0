//! bd's `prune`: closed beads of `refs/beads/main` deleted, as `delete` deletes them
//! (each a tombstone that syncs as a deletion), all in one commit. A pruned bead
//! stays in the store's history, as every deleted bead does: `refs/beads/main` is the
//! evidence log, which nothing rewrites (`purge` forgets wisps, which live outside it).

use super::beads::{change_each_in, deleting};
use super::molecule::EPHEMERAL_KEY;
use super::wisp::pinned;
use super::{OpError, Result, Swept, permit, require, write};
use crate::model::{Actor, BeadId, Capability, Status, Timestamp, glob_match};
use crate::store::{Store, View};

/// Which closed beads [`prune`] deletes.
#[derive(Clone, Debug, Default)]
pub struct Pruning {
    /// Only those closed before this.
    pub closed_before: Option<Timestamp>,
    /// Only those whose id matches this glob (`*` for all).
    pub pattern: Option<String>,
}

/// The closed beads `pruning` names in `tx`, with their counts; pinned ones are left
/// out and counted; wisps an import brought in (bd's `ephemeral`, which `purge` is
/// for) and beads without a close time are left out.
fn chosen(tx: &View<'_>, pruning: &Pruning) -> Result<Swept> {
    let ids: Vec<BeadId> = tx
        .index()?
        .rows()
        .filter(|r| r.status() == Status::Closed)
        .filter(|r| {
            pruning
                .pattern
                .as_deref()
                .is_none_or(|p| glob_match(p, r.id()))
        })
        .map(|r| BeadId::parse(r.id()))
        .collect::<std::result::Result<_, _>>()?;
    let mut swept = Swept::default();
    for id in ids {
        let b = require(tx, &id)?;
        let old_enough = b
            .closed_at
            .is_some_and(|at| pruning.closed_before.is_none_or(|t| at < t));
        if !old_enough || b.extra.get(EPHEMERAL_KEY) == Some(&serde_json::Value::Bool(true)) {
            continue;
        }
        if pinned(&b) {
            swept.pinned_skipped += 1;
            continue;
        }
        swept.add(b);
    }
    Ok(swept)
}

/// Deletes the closed beads `pruning` names (pinned ones aside), in one commit, as
/// `delete` deletes; with `dry_run`, only says which.
pub fn prune(store: &Store, actor: &Actor, pruning: &Pruning, dry_run: bool) -> Result<Swept> {
    if dry_run {
        return chosen(&store.view()?, pruning);
    }
    permit(actor, Capability::Delete)?;
    write(store, actor, |tx| {
        let swept = chosen(tx, pruning)?;
        if swept.beads.is_empty() {
            return Ok::<_, OpError>(swept);
        }
        let ids: Vec<BeadId> = swept.beads.iter().map(|b| b.id.clone()).collect();
        let reason = Some("pruned");
        change_each_in(
            store,
            tx,
            actor,
            &ids,
            "prune",
            &mut deleting(actor, reason),
        )?;
        let listed: Vec<&str> = ids.iter().map(BeadId::as_str).collect();
        tx.set_message(format!(
            "prune: {}\n\n{}",
            crate::model::count(ids.len(), "closed bead"),
            listed.join("\n")
        ));
        Ok(swept)
    })
}
