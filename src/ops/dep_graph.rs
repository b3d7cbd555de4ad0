//! `graph`: the dependency graph around a bead, or of all open work, laid out in
//! layers by dependency depth, as bd's `bd graph` loads and lays it out.

use std::collections::VecDeque;

use super::core::query::load_index;
use super::{BeadError, Result};
use crate::model::{BeadId, BeadType, DepKind, Status};
use crate::store::{BeadRow, Index, Store, Summary};

/// The beads connected to a root through dependencies of any kind, and the
/// dependencies among them (bd's `TemplateSubgraph` as `bd graph` fills it).
#[derive(Clone, Debug)]
pub struct Subgraph {
    /// Where the root is in `beads`.
    pub root: usize,
    /// The beads, in the order the walk found them (the root first for one bead's
    /// graph).
    pub beads: Vec<Summary>,
    /// Every dependency with both ends among `beads`.
    pub edges: Vec<GraphEdge>,
}

/// A dependency inside a [`Subgraph`]: `beads[from]` depends on `beads[on]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphEdge {
    /// The bead that has the dependency.
    pub from: usize,
    /// The bead it depends on.
    pub on: usize,
    /// How.
    pub kind: DepKind,
}

/// Where each bead of a [`Subgraph`] is drawn: bd's `computeLayout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Per bead: its layer (0 for what waits on nothing; a bead is one layer right of
    /// the deepest bead it waits on through `blocks`, and no left of its parent).
    pub layer: Vec<usize>,
    /// Per bead: its place in its layer.
    pub position: Vec<usize>,
    /// The beads of each layer, by id.
    pub layers: Vec<Vec<usize>>,
}

/// The graph around bead `id`: every bead reached from it through dependencies of any
/// kind, in either direction (deleted ones aside).
pub fn dependency_graph(store: &Store, id: &BeadId) -> Result<Subgraph> {
    let index = load_index(store)?;
    let root = index
        .get(id.as_str())
        .filter(|r| r.status() != Status::Deleted)
        .ok_or_else(|| BeadError::NotFound(id.clone()))?;
    let dependents = dependents_by_row(&index);
    let mut seen = vec![false; index.row_count()];
    seen[root.row().get()] = true;
    let mut found = vec![root];
    let mut queue = VecDeque::from([root]);
    while let Some(at) = queue.pop_front() {
        let waiting = dependents[at.row().get()].iter().map(|&r| index.row(r));
        let waited_on = at.dependencies().filter_map(|d| d.target);
        for next in waiting.chain(waited_on) {
            let k = next.row().get();
            if !seen[k] && next.status() != Status::Deleted {
                seen[k] = true;
                found.push(next);
                queue.push_back(next);
            }
        }
    }
    Ok(subgraph(&found, 0))
}

/// The graphs of all open work (open, in progress, blocked: what bd's `--all` takes),
/// one per connected part, the largest first.
pub fn dependency_graphs(store: &Store) -> Result<Vec<Subgraph>> {
    let index = load_index(store)?;
    let mut open: Vec<BeadRow<'_>> = index
        .rows()
        .filter(|r| {
            matches!(
                r.status(),
                Status::Open | Status::InProgress | Status::Blocked
            )
        })
        .collect();
    // bd reads them by status, each as its search orders them.
    let rank = |s: &Status| match s {
        Status::Open => 0,
        Status::InProgress => 1,
        _ => 2,
    };
    open.sort_by(|a, b| {
        (
            rank(&a.status()),
            a.priority(),
            std::cmp::Reverse(a.created_us()),
            a.id(),
        )
            .cmp(&(
                rank(&b.status()),
                b.priority(),
                std::cmp::Reverse(b.created_us()),
                b.id(),
            ))
    });
    let mut place = vec![usize::MAX; index.row_count()];
    for (k, r) in open.iter().enumerate() {
        place[r.row().get()] = k;
    }
    let mut next_to: Vec<Vec<usize>> = vec![Vec::new(); open.len()];
    for (k, r) in open.iter().enumerate() {
        for t in r.dependencies().filter_map(|d| d.target) {
            let j = place[t.row().get()];
            if j != usize::MAX {
                next_to[k].push(j);
                next_to[j].push(k);
            }
        }
    }
    let mut seen = vec![false; open.len()];
    let mut parts: Vec<Vec<usize>> = Vec::new();
    for start in 0..open.len() {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let (mut part, mut at) = (vec![start], 0);
        while let Some(&k) = part.get(at) {
            at += 1;
            for &j in &next_to[k] {
                if !seen[j] {
                    seen[j] = true;
                    part.push(j);
                }
            }
        }
        parts.push(part);
    }
    parts.sort_by_key(|p| (std::cmp::Reverse(p.len()), open[p[0]].priority()));
    Ok(parts
        .iter()
        .map(|part| {
            let rows: Vec<BeadRow<'_>> = part.iter().map(|&k| open[k]).collect();
            subgraph(&rows, root_of(&rows))
        })
        .collect())
}

/// bd's root of a part of the graph: an epic before other beads, then the most
/// urgent, then the first found.
fn root_of(rows: &[BeadRow<'_>]) -> usize {
    let mut root = 0;
    for (k, r) in rows.iter().enumerate().skip(1) {
        let (epic, root_epic) = (
            r.kind() == BeadType::Epic,
            rows[root].kind() == BeadType::Epic,
        );
        if (epic && !root_epic) || (epic == root_epic && r.priority() < rows[root].priority()) {
            root = k;
        }
    }
    root
}

/// Per row of `index`: the rows of the beads that depend on it.
fn dependents_by_row(index: &Index) -> Vec<Vec<crate::store::Row>> {
    let mut dependents = vec![Vec::new(); index.row_count()];
    for r in index.rows() {
        for t in r.dependencies().filter_map(|d| d.target) {
            dependents[t.row().get()].push(r.row());
        }
    }
    for d in &mut dependents {
        d.sort_unstable();
        d.dedup();
    }
    dependents
}

/// The subgraph of `rows` (rooted at `rows[root]`) and the dependencies among them.
fn subgraph(rows: &[BeadRow<'_>], root: usize) -> Subgraph {
    let mut place = std::collections::HashMap::with_capacity(rows.len());
    for (k, r) in rows.iter().enumerate() {
        place.insert(r.row(), k);
    }
    let edges = rows
        .iter()
        .enumerate()
        .flat_map(|(from, r)| {
            let place = &place;
            r.dependencies().filter_map(move |d| {
                let on = *place.get(&d.target?.row())?;
                Some(GraphEdge {
                    from,
                    on,
                    kind: d.kind,
                })
            })
        })
        .collect();
    Subgraph {
        root,
        beads: rows.iter().map(BeadRow::to_summary).collect(),
        edges,
    }
}

impl Subgraph {
    /// The layers of bd's drawing: longest path along `blocks` from the beads that
    /// wait on none (a bead on or behind a cycle stays in layer 0), then each child
    /// moved right to its parent's layer.
    pub fn layout(&self) -> Layout {
        let n = self.beads.len();
        let mut waits = vec![0usize; n];
        let mut unblocks: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in self.edges.iter().filter(|e| e.kind == DepKind::Blocks) {
            waits[e.from] += 1;
            unblocks[e.on].push(e.from);
        }
        let mut layer = vec![0usize; n];
        let mut ready: Vec<usize> = (0..n).filter(|&k| waits[k] == 0).collect();
        while let Some(k) = ready.pop() {
            for &next in &unblocks[k] {
                layer[next] = layer[next].max(layer[k] + 1);
                waits[next] -= 1;
                if waits[next] == 0 {
                    ready.push(next);
                }
            }
        }
        // A bead left waiting is on a cycle or behind one: bd puts it in layer 0.
        for k in (0..n).filter(|&k| waits[k] > 0) {
            layer[k] = 0;
        }
        let parents: Vec<(usize, usize)> = self
            .edges
            .iter()
            .filter(|e| e.kind == DepKind::ParentChild)
            .map(|e| (e.from, e.on))
            .collect();
        let mut moved = true;
        while moved {
            moved = false;
            for &(child, parent) in &parents {
                if layer[child] < layer[parent] {
                    layer[child] = layer[parent];
                    moved = true;
                }
            }
        }
        let depth = layer.iter().max().map_or(1, |m| m + 1);
        let mut layers = vec![Vec::new(); depth];
        for (k, &l) in layer.iter().enumerate() {
            layers[l].push(k);
        }
        let mut position = vec![0; n];
        for in_layer in &mut layers {
            in_layer.sort_by(|&a, &b| self.beads[a].id.cmp(&self.beads[b].id));
            for (p, &k) in in_layer.iter().enumerate() {
                position[k] = p;
            }
        }
        Layout {
            layer,
            position,
            layers,
        }
    }

    /// The root bead.
    pub fn root_bead(&self) -> &Summary {
        &self.beads[self.root]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subgraph of beads named `ids` and `edges` (from, on, kind) between them.
    fn graph(ids: &[&str], edges: &[(usize, usize, DepKind)]) -> Subgraph {
        let beads = ids
            .iter()
            .map(|id| {
                serde_json::from_value(serde_json::json!({
                    "id": id, "title": id, "status": "open", "priority": 2, "kind": "task",
                    "assignee": null, "labels": [], "dependencies": [], "description": "",
                    "created_us": 0, "updated_us": 0,
                }))
                .expect("a summary")
            })
            .collect();
        Subgraph {
            root: 0,
            beads,
            edges: edges
                .iter()
                .map(|&(from, on, kind)| GraphEdge { from, on, kind })
                .collect(),
        }
    }

    /// bd's layers: the longest `blocks` path; a bead on or behind a cycle in layer
    /// 0; a child no left of its parent; each layer by id.
    #[test]
    fn layers_follow_the_longest_blocking_path() {
        use DepKind::{Blocks, ParentChild, Related};
        let g = graph(
            &[
                "bd-d", "bd-c", "bd-b", "bd-a", "bd-x", "bd-y", "bd-z", "bd-k",
            ],
            &[
                (1, 3, Blocks),
                (0, 1, Blocks),
                (0, 3, Blocks),
                (2, 3, Related),
                (4, 5, Blocks),
                (5, 4, Blocks),
                (6, 4, Blocks),
                (7, 0, ParentChild),
            ],
        );
        let l = g.layout();
        assert_eq!(l.layer, [2, 1, 0, 0, 0, 0, 0, 2]);
        assert_eq!(l.layers, [vec![3, 2, 4, 5, 6], vec![1], vec![0, 7]]);
        assert_eq!(l.position, [0, 0, 1, 0, 2, 3, 4, 1]);
    }
}
