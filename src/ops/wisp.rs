//! Taking wisps out: bd's `purge` (closed ones) and `mol wisp gc` (abandoned ones).
//!
//! Wisps live on the local-only `refs/beads/local/wisps`. Removing one from that
//! ref's tree is not enough to forget it: the ref's earlier commits still hold it, so
//! `git gc` would keep it forever. After it takes wisps out (or finds a history
//! already left behind by squashes and burns), a purge rewrites the ref as one commit
//! without parents and removes the ref's reflog (see [`Store::forget_history`]): the
//! wisp ref is this machine's scratch space, nobody fetches it, and its history is not
//! the evidence log (`refs/beads/main` is).

use std::collections::BTreeSet;

use super::{OpError, Result, permit};
use crate::model::{Actor, Bead, BeadId, BeadType, Capability, Status, Timestamp, glob_match};
use crate::store::refs;
use crate::store::{Store, View};

/// Which wisps to take out.
#[derive(Clone, Debug)]
pub enum WispSweep {
    /// Closed ones (bd's `purge`), pinned ones aside; only those whose id matches
    /// the glob, when one is given, and closed before the time, when one is given.
    Closed {
        /// An id glob (`*-wisp-*`).
        pattern: Option<String>,
        /// Only those closed before this.
        closed_before: Option<Timestamp>,
    },
    /// Abandoned ones (bd's `mol wisp gc`): unfinished and not changed since
    /// `stale_before` (finished ones too with `closed_too`), with the wisps that
    /// depend on them; agents, rigs, roles and messages are never abandoned.
    Abandoned {
        /// Changed last before this.
        stale_before: Timestamp,
        /// Closed ones count too.
        closed_too: bool,
    },
}

/// What a sweep took out (or would, in a dry run).
#[derive(Clone, Debug, Default)]
pub struct Swept {
    /// The wisps, by id.
    pub beads: Vec<Bead>,
    /// Their dependencies, in all.
    pub dependencies: usize,
    /// Their labels, in all.
    pub labels: usize,
    /// Their comments, in all (bd's events).
    pub events: usize,
    /// Pinned wisps left alone.
    pub pinned_skipped: usize,
}

impl Swept {
    /// Counts `b` in, with its dependencies, labels and comments.
    pub(super) fn add(&mut self, b: Bead) {
        self.dependencies += b.dependencies.len();
        self.labels += b.labels.len();
        self.events += b.comments.len();
        self.beads.push(b);
    }
}

/// The types bd never sweeps as abandoned (its infrastructure types).
const INFRA: [BeadType; 4] = [
    BeadType::Agent,
    BeadType::Rig,
    BeadType::Role,
    BeadType::Message,
];

/// Takes the wisps `sweep` names out of this machine's wisp ref, in one commit, then
/// rewrites that ref without its history; with `dry_run`, only says which.
pub fn sweep_wisps(
    store: &Store,
    actor: &Actor,
    sweep: &WispSweep,
    dry_run: bool,
) -> Result<Swept> {
    // Reading main first refuses a sweep before `init`.
    store.view()?;
    if dry_run {
        return chosen(&store.view_of(refs::WISPS)?, sweep);
    }
    permit(actor, Capability::Delete)?;
    let (swept, _) = store.transact_on(refs::WISPS, actor, |tx| {
        let swept = chosen(tx, sweep)?;
        for b in &swept.beads {
            tx.remove_bead(&b.id);
        }
        if !swept.beads.is_empty() {
            tx.set_message(format!(
                "purge: {}",
                crate::model::count(swept.beads.len(), "wisp")
            ));
        }
        Ok::<_, OpError>(swept)
    })?;
    store.forget_history(refs::WISPS, actor, "wisps: history forgotten after purge")?;
    Ok(swept)
}

/// Every wisp `tx` holds, read in one pass over its tree.
fn all_wisps(tx: &View<'_>) -> Result<Vec<Bead>> {
    match tx.head() {
        Some(head) => Ok(tx.store().all_beads(head)?.0),
        None => Ok(Vec::new()),
    }
}

/// The wisps of `tx` that `sweep` names, with their counts.
fn chosen(tx: &View<'_>, sweep: &WispSweep) -> Result<Swept> {
    let wisps = all_wisps(tx)?;
    let mut swept = Swept::default();
    let mut out: BTreeSet<BeadId> = BTreeSet::new();
    for b in &wisps {
        let pick = match sweep {
            WispSweep::Closed {
                pattern,
                closed_before,
            } => {
                let closed = b.status.is_done()
                    && pattern
                        .as_deref()
                        .is_none_or(|p| glob_match(p, b.id.as_str()))
                    && closed_before.is_none_or(|t| b.closed_at.unwrap_or(b.updated_at) < t);
                if closed && pinned(b) {
                    swept.pinned_skipped += 1;
                    continue;
                }
                closed
            }
            WispSweep::Abandoned {
                stale_before,
                closed_too,
            } => {
                !INFRA.contains(&b.kind)
                    && (*closed_too || !b.status.is_done())
                    && b.updated_at < *stale_before
            }
        };
        if pick {
            out.insert(b.id.clone());
        }
    }
    if matches!(sweep, WispSweep::Abandoned { .. }) {
        // What depends on an abandoned wisp (its steps) goes with it.
        loop {
            let more: Vec<BeadId> = wisps
                .iter()
                .filter(|b| !out.contains(&b.id) && !INFRA.contains(&b.kind))
                .filter(|b| b.dependencies.iter().any(|d| out.contains(&d.id)))
                .map(|b| b.id.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            out.extend(more);
        }
    }
    for b in wisps.into_iter().filter(|b| out.contains(&b.id)) {
        swept.add(b);
    }
    Ok(swept)
}

/// Whether `b` is pinned (its status, or bd's `pinned` field).
pub(super) fn pinned(b: &Bead) -> bool {
    b.status == Status::Pinned || b.extra.get("pinned") == Some(&serde_json::Value::Bool(true))
}
