//! Molecules: a workflow poured into a molecule bead plus one child bead per step.

use serde::Serialize;

use super::Result;
use crate::model::{Bead, BeadId, BeadType, Status};
use crate::store::Tx;

/// One step of a molecule and where it stands.
#[derive(Clone, Debug, Serialize)]
pub struct StepState {
    /// The step bead.
    pub id: BeadId,
    /// Its title.
    pub title: String,
    /// Its status.
    pub status: Status,
    /// Whether it can be worked now: unfinished and nothing unfinished blocks it.
    pub ready: bool,
}

/// How far a molecule has come.
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    /// The molecule bead.
    pub molecule: BeadId,
    /// Its title.
    pub title: String,
    /// Steps done.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
    /// Every step, in order.
    pub steps: Vec<StepState>,
}

impl Progress {
    /// The steps that can be worked now.
    pub fn current(&self) -> impl Iterator<Item = &StepState> {
        self.steps.iter().filter(|s| s.ready)
    }

    /// "step 3 of 7 (bd-x.3: Write tests)", or "all 7 steps done".
    pub fn position(&self) -> String {
        match self.steps.iter().position(|s| !s.status.is_done()) {
            Some(i) => format!(
                "step {} of {} ({}: {})",
                i + 1,
                self.total,
                self.steps[i].id,
                self.steps[i].title
            ),
            None => format!("all {} steps done", self.total),
        }
    }
}

/// The steps of molecule `mol`: its children `<mol>.<n>`, in step order.
pub(crate) fn steps(tx: &Tx<'_>, mol: &BeadId) -> Result<Vec<Bead>> {
    let prefix = format!("{mol}.");
    let mut numbered: Vec<(u32, BeadId)> = tx
        .bead_ids_near(mol)?
        .into_iter()
        .filter_map(|id| {
            let n = id.strip_prefix(&prefix)?.parse::<u32>().ok()?;
            Some((n, BeadId::parse(&id).ok()?))
        })
        .collect();
    numbered.sort();
    numbered.dedup();
    let mut out = Vec::with_capacity(numbered.len());
    for (_, id) in numbered {
        if let Some(b) = tx.bead(&id)?
            && b.status != Status::Deleted
        {
            out.push(b);
        }
    }
    Ok(out)
}

/// The progress of `bead` when it is a molecule.
pub fn progress(tx: &Tx<'_>, bead: &Bead) -> Result<Option<Progress>> {
    if bead.kind != BeadType::Molecule {
        return Ok(None);
    }
    let steps = steps(tx, &bead.id)?;
    let done_ids: std::collections::HashSet<&BeadId> = steps
        .iter()
        .filter(|s| s.status.is_done())
        .map(|s| &s.id)
        .collect();
    let states: Vec<StepState> = steps
        .iter()
        .map(|s| StepState {
            id: s.id.clone(),
            title: s.title.clone(),
            status: s.status,
            ready: !s.status.is_done()
                && s.dependencies
                    .iter()
                    .filter(|d| d.kind == crate::model::DepKind::Blocks)
                    .all(|d| done_ids.contains(&d.id) || !steps.iter().any(|x| x.id == d.id)),
        })
        .collect();
    Ok(Some(Progress {
        molecule: bead.id.clone(),
        title: bead.title.clone(),
        done: done_ids.len(),
        total: steps.len(),
        steps: states,
    }))
}
