//! bd's state dimensions (`set-state`, `state`): a bead's state in a dimension is its
//! label `<dimension>:<value>`; a change of it is recorded by an event bead, a closed
//! child of the bead, made in the same commit as the change of label.

use std::collections::BTreeMap;

use super::core::change::require_live;
use super::{Result, next_child, now, permit, write};
use crate::model::{Actor, Bead, BeadId, BeadType, Capability, DepKind, Dependency, Status};
use crate::store::Store;

/// What [`set_state`] did.
#[derive(Clone, Debug)]
pub struct StateChange {
    /// The value the dimension had, if any.
    pub old: Option<String>,
    /// The event bead that records the change; `None` when the bead had the value
    /// already, and nothing was written.
    pub event: Option<BeadId>,
}

/// The value of `dimension` in `labels`: the rest of the first label `<dimension>:…`.
fn value_in<'a>(labels: impl IntoIterator<Item = &'a String>, dimension: &str) -> Option<&'a str> {
    labels
        .into_iter()
        .find_map(|l| l.strip_prefix(dimension)?.strip_prefix(':'))
}

/// The value of `dimension` on bead `id`, if it has one.
pub fn state(store: &Store, id: &BeadId, dimension: &str) -> Result<Option<String>> {
    let bead = super::show(store, std::slice::from_ref(id))?.remove(0);
    Ok(value_in(&bead.labels, dimension).map(str::to_owned))
}

/// Every dimension bead `id` has a state in (each label `<dimension>:<value>`).
pub fn states(store: &Store, id: &BeadId) -> Result<BTreeMap<String, String>> {
    let bead = super::show(store, std::slice::from_ref(id))?.remove(0);
    Ok(bead
        .labels
        .iter()
        .filter_map(|l| l.split_once(':').filter(|(d, _)| !d.is_empty()))
        .map(|(d, v)| (d.to_owned(), v.to_owned()))
        .collect())
}

/// Sets `dimension` of bead `id` to `value`, in one commit: the labels of that
/// dimension give way to `<dimension>:<value>`, and an event bead (a closed child
/// of `id`, priority 4) records the change and `reason`. A bead that has the value
/// already is left alone.
pub fn set_state(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    (dimension, value): (&str, &str),
    reason: Option<&str>,
) -> Result<StateChange> {
    permit(actor, Capability::Update)?;
    permit(actor, Capability::Create)?;
    let label = format!("{dimension}:{value}");
    write(store, actor, |tx| {
        let mut bead = require_live(tx, id)?;
        let old = value_in(&bead.labels, dimension).map(str::to_owned);
        if old.as_deref() == Some(value) {
            return Ok(StateChange { old, event: None });
        }
        let at = now();
        let before = bead.clone();
        bead.labels
            .retain(|l| value_in(std::iter::once(l), dimension).is_none());
        bead.labels.insert(label.clone());
        bead.touch(&actor.id, at);
        super::check_bead(Some(&before), &bead)?;
        let mut event = Bead::new(
            next_child(tx, id)?,
            format!("State change: {dimension} → {value}"),
            &actor.id,
            at,
        );
        event.kind = BeadType::Event;
        event.status = Status::Closed;
        event.closed_at = Some(at);
        event.priority = 4;
        event.description = match &old {
            Some(o) => format!("Changed {dimension} from {o} to {value}"),
            None => format!("Set {dimension} to {value}"),
        };
        if let Some(r) = reason.filter(|r| !r.is_empty()) {
            event.description.push_str(&format!("\n\nReason: {r}"));
        }
        event.add_dependency(Dependency {
            id: id.clone(),
            kind: DepKind::ParentChild,
        });
        super::check_bead(None, &event)?;
        tx.put_bead(&bead)?;
        tx.put_bead(&event)?;
        tx.set_message(format!(
            "set-state {id}: {dimension} = {value} ({})",
            event.id
        ));
        Ok(StateChange {
            old,
            event: Some(event.id),
        })
    })
}
