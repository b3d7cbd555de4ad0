//! `create --graph`: a whole plan of beads (bd's graph plan) made in one commit.

use std::collections::BTreeMap;

use super::beads::{NewBead, indexed_blockers, new_bead, path_through};
use super::core::change::require_live;
use super::{BeadError, OpError, Result, now, permit};
use crate::model::graph::{GraphPlan, GraphRef};
use crate::model::{Actor, Bead, BeadId, Capability, DepKind, Dependency};
use crate::store::{Store, Tx, View, refs};

/// Makes the beads of `plan` and links them, all in one commit (of this machine's
/// wisps with `ephemeral`, else of the store), or nothing when any of it is refused:
/// an id the plan names that is not there, a type or status the project does not
/// have, a dependency on itself or one that closes a cycle of blocking kinds.
/// Returns the id each key got.
pub fn create_graph(
    store: &Store,
    actor: &Actor,
    plan: &GraphPlan,
    ephemeral: bool,
) -> Result<BTreeMap<String, BeadId>> {
    permit(actor, Capability::Create)?;
    let main = store.view()?;
    let stage = |tx: &mut Tx<'_>| {
        let ids = stage_graph(&main, tx, actor, plan, ephemeral)?;
        tx.set_message(match &plan.commit_message {
            Some(m) => m.clone(),
            None => format!("create --graph: {} beads", ids.len()),
        });
        Ok::<_, OpError>(ids)
    };
    let on = if ephemeral { refs::WISPS } else { refs::MAIN };
    Ok(store.transact_on(on, actor, stage)?.0)
}

/// The transaction of [`create_graph`] on `tx` (`main` reads the store, where the
/// ids the plan names may be too).
fn stage_graph(
    main: &View<'_>,
    tx: &mut Tx<'_>,
    actor: &Actor,
    plan: &GraphPlan,
    ephemeral: bool,
) -> Result<BTreeMap<String, BeadId>> {
    let mut ids = BTreeMap::new();
    // Each bead is staged as it is made, so that the next fresh id differs.
    let mut made: BTreeMap<BeadId, Bead> = BTreeMap::new();
    for node in &plan.nodes {
        let mut metadata = node.metadata.clone();
        for meta in node.metadata_refs.keys() {
            // Filled below, when every key has its id.
            metadata.insert(meta.clone(), serde_json::Value::Null);
        }
        let new = NewBead {
            title: node.title.clone(),
            description: node.description.clone(),
            kind: Some(node.kind),
            priority: Some(node.priority),
            assignee: node.assignee.clone(),
            labels: node.labels.clone(),
            fields: match metadata.is_empty() {
                true => Vec::new(),
                false => vec![("metadata".into(), metadata.into())],
            },
            ephemeral,
            ..NewBead::default()
        };
        let bead = new_bead(main, tx, actor, &new)?;
        tx.put_bead(&bead)?;
        ids.insert(node.key.clone(), bead.id.clone());
        made.insert(bead.id.clone(), bead);
    }
    // Beads already there that gain a dependency, as changed so far.
    let mut linked: BTreeMap<BeadId, Bead> = BTreeMap::new();
    let key_id = |k: &str| {
        ids.get(k).cloned().ok_or_else(|| {
            OpError::from(BeadError::UnknownId(format!("with key {k:?} in the plan")))
        })
    };
    let id_of = |r: &GraphRef| match r {
        GraphRef::Key(k) => key_id(k),
        GraphRef::Id(id) => Ok(id.clone()),
    };
    for node in &plan.nodes {
        let refs: Vec<(String, BeadId)> = (node.metadata_refs.iter())
            .map(|(m, key)| Ok((m.clone(), key_id(key)?)))
            .collect::<Result<_>>()?;
        let bead = made.get_mut(&key_id(&node.key)?);
        if let Some(serde_json::Value::Object(meta)) =
            bead.and_then(|b| b.extra.get_mut("metadata"))
        {
            for (m, id) in refs {
                meta.insert(m, id.as_str().into());
            }
        }
    }
    let parents = (plan.nodes.iter()).filter_map(|n| {
        Some((
            GraphRef::Key(n.key.clone()),
            n.parent.clone()?,
            DepKind::ParentChild,
        ))
    });
    let edges = (plan.edges.iter()).map(|e| (e.from.clone(), e.to.clone(), e.kind));
    for (from, to, kind) in parents.chain(edges) {
        let (from, to) = (id_of(&from)?, id_of(&to)?);
        if from == to {
            return Err(BeadError::SelfDependency(from).into());
        }
        if !made.contains_key(&to) && !linked.contains_key(&to) {
            live(main, tx, &to)?;
        }
        if kind.is_blocking()
            && let Some(path) = path(tx, &made, &linked, &to, &from)?
        {
            return Err(BeadError::Cycle(path).into());
        }
        let new = made.contains_key(&from);
        let bead = match made.get_mut(&from) {
            Some(b) => b,
            None => match linked.entry(from.clone()) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => e.insert(live(main, tx, &from)?),
            },
        };
        if bead.add_dependency(Dependency { id: to, kind }) && !new {
            bead.touch(&actor.id, now());
        }
    }
    for bead in made.values().chain(linked.values()) {
        tx.put_bead(bead)?;
    }
    Ok(ids)
}

/// Bead `id` as a live bead of `tx` or, for a wisp graph, of `main`.
fn live(main: &View<'_>, tx: &Tx<'_>, id: &BeadId) -> Result<Bead> {
    match tx.bead_exists(id)? {
        true => require_live(tx, id),
        false => require_live(main, id),
    }
}

/// A path of blocking dependencies from `from` to `to` (starting at `to`, as a cycle
/// is reported) through the beads of the plan, those it changed, and the rest of the
/// store as it was.
fn path(
    tx: &Tx<'_>,
    made: &BTreeMap<BeadId, Bead>,
    linked: &BTreeMap<BeadId, Bead>,
    from: &BeadId,
    to: &BeadId,
) -> Result<Option<Vec<BeadId>>> {
    let index = tx.index()?;
    Ok(path_through(from, to, |id| {
        match made.get(id).or_else(|| linked.get(id)) {
            Some(b) => (b.dependencies.iter())
                .filter(|d| d.kind.is_blocking())
                .map(|d| d.id.clone())
                .collect(),
            None => indexed_blockers(index, id),
        }
    }))
}
