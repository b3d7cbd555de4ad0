//! Steps that wait for a spawner's children (bd's `waits_for`): the keys a step, its
//! spawner and the children carry, and the wiring of the waits at a pour. Bonding
//! (`bond.rs`) holds the waiters for each child bonded later.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::model::{Bead, BeadId, DepKind, Dependency, RenderedStep};

/// The key, in a step's `extra`, of the children of another step it waits for.
pub const WAITS_FOR_KEY: &str = "waits_for";
/// The key, in a spawner step's `extra`, of the steps that wait for its children.
pub(crate) const WAITED_BY_KEY: &str = "waited_by";
/// The key, in a child's `extra`, of the spawner step it is a child of.
pub(crate) const SPAWNED_BY_KEY: &str = "spawned_by";

/// What a step waits for: the children of its spawner (bd's `waits_for`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitsFor {
    /// `all-children` or `any-children`.
    pub gate: String,
    /// The spawner step.
    pub spawner: Option<BeadId>,
    /// The children it holds for now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<BeadId>,
    /// An `any-children` wait whose first child finished.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub met: bool,
}

/// The value under `key` in `b`'s `extra`, when it reads as a `T`.
pub(crate) fn extra_of<T: serde::de::DeserializeOwned>(b: &Bead, key: &str) -> Option<T> {
    b.extra
        .get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// The ids under `key` in `b`'s `extra` (none when it holds none).
pub(crate) fn ids_of(b: &Bead, key: &str) -> Vec<BeadId> {
    extra_of(b, key).unwrap_or_default()
}

/// A `blocks` dependency on `id`.
pub(crate) fn blocked_by(id: &BeadId) -> Dependency {
    Dependency {
        id: id.clone(),
        kind: DepKind::Blocks,
    }
}

/// Records in waiter `w` what it waits for.
pub(crate) fn put_waits(w: &mut Bead, waits: &WaitsFor) {
    w.extra.insert(WAITS_FOR_KEY.into(), json!(waits));
}

/// At a pour: each step that waits for its spawner's children (the cooked step's
/// `waits_for`, naming the spawner by its formula id) holds for the steps cooked as
/// the spawner's children, and the spawner and children know of it.
pub(crate) fn wire_waiters(steps: &mut [Bead], rendered: &[RenderedStep]) {
    let key_at = |key: &str| rendered.iter().position(|s| s.key == key);
    for w in 0..rendered.len() {
        let Some(Value::Object(spec)) = rendered[w].extra.get(WAITS_FOR_KEY) else {
            continue;
        };
        // The cooked form names the spawner by its formula id; only a wired wait stays.
        steps[w].extra.remove(WAITS_FOR_KEY);
        let gate = spec.get("gate").and_then(Value::as_str).unwrap_or_default();
        let Some(s) = spec.get("spawner").and_then(Value::as_str).and_then(key_at) else {
            continue;
        };
        let children: Vec<usize> = (0..rendered.len())
            .filter(|&c| {
                rendered[c]
                    .extra
                    .get("metadata")
                    .and_then(|m| m.get("parent_step"))
                    == Some(&json!(rendered[s].key))
            })
            .collect();
        let spawner = steps[s].id.clone();
        let mut waits = WaitsFor {
            gate: gate.to_owned(),
            spawner: Some(spawner.clone()),
            ..WaitsFor::default()
        };
        for &c in &children {
            let child = steps[c].id.clone();
            steps[w].add_dependency(blocked_by(&child));
            waits.children.push(child);
            steps[c]
                .extra
                .insert(SPAWNED_BY_KEY.into(), json!(spawner.as_str()));
        }
        let waiter = steps[w].id.clone();
        put_waits(&mut steps[w], &waits);
        let mut by = ids_of(&steps[s], WAITED_BY_KEY);
        by.push(waiter);
        steps[s].extra.insert(WAITED_BY_KEY.into(), json!(by));
    }
}
