//! The documents of `graph` and `find-duplicates`, in bd's shapes: bd writes its
//! graph layout as Go writes a struct without JSON tags (`Nodes`, `Layers`, …), and
//! so does this.

use std::collections::BTreeMap;

use serde::Serialize;

use super::bead::{Brief, DepRecord};
use super::{Doc, Documented, Field, Shape};
use crate::model::DepKind;
use crate::ops::{Duplicates, Layout, Subgraph, Summary};

/// A bead of a graph: its id and the fields `dep list` writes of a bead.
#[derive(Serialize)]
pub struct GraphIssue<'a> {
    id: &'a str,
    #[serde(flatten)]
    bead: Brief<'a>,
}

impl<'a> GraphIssue<'a> {
    fn new(s: &'a Summary) -> Self {
        GraphIssue {
            id: &s.id,
            bead: Brief::from(s),
        }
    }
}

/// What `graph ID --json` prints: the root, the beads of its graph, and bd's layout.
#[derive(Serialize)]
pub struct GraphOf<'a> {
    root: GraphIssue<'a>,
    issues: Vec<GraphIssue<'a>>,
    layout: LayoutDoc<'a>,
}

/// bd's `GraphLayout`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct LayoutDoc<'a> {
    nodes: BTreeMap<&'a str, NodeDoc<'a>>,
    layers: Vec<Vec<&'a str>>,
    max_layer: usize,
    #[serde(rename = "RootID")]
    root_id: &'a str,
}

/// bd's `GraphNode`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct NodeDoc<'a> {
    issue: GraphIssue<'a>,
    layer: usize,
    position: usize,
    /// What it waits on through `blocks` (Go's nil slice: `null` when nothing).
    depends_on: Option<Vec<&'a str>>,
}

impl<'a> GraphOf<'a> {
    /// The document of `graph`, laid out as `layout`.
    pub fn new(graph: &'a Subgraph, layout: &Layout) -> Self {
        let id = |k: usize| graph.beads[k].id.as_str();
        let mut depends_on: Vec<Option<Vec<&str>>> = vec![None; graph.beads.len()];
        for e in graph.edges.iter().filter(|e| e.kind == DepKind::Blocks) {
            depends_on[e.from]
                .get_or_insert_with(Vec::new)
                .push(id(e.on));
        }
        let nodes = depends_on
            .into_iter()
            .enumerate()
            .map(|(k, depends_on)| {
                let node = NodeDoc {
                    issue: GraphIssue::new(&graph.beads[k]),
                    layer: layout.layer[k],
                    position: layout.position[k],
                    depends_on,
                };
                (id(k), node)
            })
            .collect();
        let layers: Vec<Vec<&str>> = layout
            .layers
            .iter()
            .map(|l| l.iter().map(|&k| id(k)).collect())
            .collect();
        GraphOf {
            root: GraphIssue::new(graph.root_bead()),
            issues: graph.beads.iter().map(GraphIssue::new).collect(),
            layout: LayoutDoc {
                nodes,
                max_layer: layers.len().saturating_sub(1),
                layers,
                root_id: id(graph.root),
            },
        }
    }
}

impl Documented for GraphOf<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "graph ID",
        fields: &[
            Field::noted(
                "root",
                ": {id, title, status, priority, issue_type, assignee, labels, created_at, updated_at}",
            ),
            Field::noted("issues", ": [the beads of the graph, each as root]"),
            Field::noted(
                "layout",
                ": {Nodes, Layers, MaxLayer, RootID}, Nodes by id: {Issue, Layer, Position, DependsOn}",
            ),
        ],
    };
}

/// What `graph --all --json` prints: a bare array of bd's subgraphs, one per
/// connected part of the open work, the largest first.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Graphs<'a>(Vec<SubgraphDoc<'a>>);

/// bd's `TemplateSubgraph`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct SubgraphDoc<'a> {
    root: GraphIssue<'a>,
    issues: Vec<GraphIssue<'a>>,
    dependencies: Vec<DepRecord<'a>>,
    issue_map: BTreeMap<&'a str, GraphIssue<'a>>,
    /// A formula's variables, which a graph has none of (bd writes `null`).
    var_defs: Option<()>,
    phase: &'static str,
    pour: bool,
}

impl<'a> Graphs<'a> {
    /// The document of `graphs`.
    pub fn new(graphs: &'a [Subgraph]) -> Self {
        Graphs(
            graphs
                .iter()
                .map(|g| SubgraphDoc {
                    root: GraphIssue::new(g.root_bead()),
                    issues: g.beads.iter().map(GraphIssue::new).collect(),
                    dependencies: g
                        .edges
                        .iter()
                        .map(|e| DepRecord::new(&g.beads[e.from].id, &g.beads[e.on].id, e.kind))
                        .collect(),
                    issue_map: g
                        .beads
                        .iter()
                        .map(|b| (b.id.as_str(), GraphIssue::new(b)))
                        .collect(),
                    var_defs: None,
                    phase: "",
                    pour: false,
                })
                .collect(),
        )
    }
}

impl Documented for Graphs<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "graph --all",
        fields: &[
            Field::noted("Root", ": the part's root bead, as `graph ID` writes root"),
            Field::noted("Issues", ": [its beads]"),
            Field::noted("Dependencies", ": [{issue_id, depends_on_id, type}]"),
            Field::noted("IssueMap", ": its beads by id"),
            Field::noted("VarDefs", " (null)"),
            Field::noted("Phase", " (empty)"),
            Field::noted("Pour", " (false)"),
        ],
    };
}

/// What `graph check --json` prints: bd's integrity check of the dependency graph.
#[derive(Serialize)]
pub struct GraphCheck<'a> {
    clean: bool,
    cycles: Option<&'a [Vec<String>]>,
    summary: CycleCount,
}

#[derive(Serialize)]
struct CycleCount {
    cycle_count: usize,
}

impl<'a> GraphCheck<'a> {
    /// The check that found `cycles`.
    pub fn new(cycles: &'a [Vec<String>]) -> Self {
        GraphCheck {
            clean: cycles.is_empty(),
            cycles: (!cycles.is_empty()).then_some(cycles),
            summary: CycleCount {
                cycle_count: cycles.len(),
            },
        }
    }
}

impl Documented for GraphCheck<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "graph check",
        fields: &[
            Field::new("clean"),
            Field::noted("cycles", ": [[ids of a cycle]] (null when clean)"),
            Field::noted("summary", ": {cycle_count}"),
        ],
    };
}

/// What `find-duplicates --json` prints: bd's pairs of beads that read alike.
#[derive(Serialize)]
pub struct DuplicatePairs<'a> {
    pairs: Vec<PairDoc<'a>>,
    count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    threshold: Option<f64>,
}

#[derive(Serialize)]
struct PairDoc<'a> {
    issue_a_id: &'a str,
    issue_b_id: &'a str,
    issue_a_title: &'a str,
    issue_b_title: &'a str,
    similarity: f64,
    method: &'static str,
}

impl<'a> DuplicatePairs<'a> {
    /// The document of `found` at `threshold`; as bd, without the method and
    /// threshold when there were not two beads to compare.
    pub fn new(found: &'a Duplicates, threshold: f64) -> Self {
        let compared = found.compared >= 2;
        DuplicatePairs {
            pairs: found
                .pairs
                .iter()
                .map(|p| PairDoc {
                    issue_a_id: &p.a.0,
                    issue_b_id: &p.b.0,
                    issue_a_title: &p.a.1,
                    issue_b_title: &p.b.1,
                    similarity: p.similarity,
                    method: "mechanical",
                })
                .collect(),
            count: found.pairs.len(),
            method: compared.then_some("mechanical"),
            threshold: compared.then_some(threshold),
        }
    }
}

impl Documented for DuplicatePairs<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "find-duplicates",
        fields: &[
            Field::noted(
                "pairs",
                ": [{issue_a_id, issue_b_id, issue_a_title, issue_b_title, similarity, method}]",
            ),
            Field::new("count"),
            Field::optional_noted("method", " (mechanical; absent with fewer than two beads)"),
            Field::optional("threshold"),
        ],
    };
}
