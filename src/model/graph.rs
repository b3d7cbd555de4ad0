//! bd's graph plan (`bd create --graph FILE`, its `GraphApplyPlan`): beads to make
//! in one go, each named by a key of the plan, with parents, dependency edges and
//! metadata that point at each other by key or at beads already there by id.
//!
//! ```json
//! {"commit_message": "plan the release",
//!  "nodes": [{"key": "epic", "title": "Release", "type": "epic"},
//!            {"key": "docs", "title": "Docs", "parent_key": "epic",
//!             "metadata_refs": {"epic_id": "epic"}}],
//!  "edges": [{"from_key": "docs", "to_id": "bd-a1b2", "type": "blocks"}]}
//! ```
//!
//! Reading the plan checks everything the plan alone can tell (keys, titles, types,
//! priorities, what refers to what); whether the ids it names exist and whether its
//! edges close a cycle is for the writer to check against the store.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::{BeadId, BeadType, DepKind};

/// A plan that cannot be read or does not hold together, in bd's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GraphError(String);

/// Fails with `message`.
fn fail<T>(message: impl Into<String>) -> Result<T, GraphError> {
    Err(GraphError(message.into()))
}

/// A bead of the plan (by its key) or of the store (by its id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphRef {
    /// A node of the plan.
    Key(String),
    /// A bead already in the store.
    Id(BeadId),
}

/// One bead to make.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphNode {
    /// Its name in the plan.
    pub key: String,
    /// The title.
    pub title: String,
    /// The type (task when the plan names none).
    pub kind: BeadType,
    /// Long text.
    pub description: String,
    /// Who works on it.
    pub assignee: Option<String>,
    /// 0 … 4 (2 when the plan names none).
    pub priority: u8,
    /// Labels.
    pub labels: Vec<String>,
    /// bd's metadata: values as the plan gives them.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Metadata keys whose value is the id of another node of the plan (by key).
    pub metadata_refs: BTreeMap<String, String>,
    /// Its parent (a parent-child dependency).
    pub parent: Option<GraphRef>,
}

/// One dependency: `from` depends on `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphEdge {
    /// The dependent bead.
    pub from: GraphRef,
    /// The bead it depends on.
    pub to: GraphRef,
    /// How (blocks when the plan names none).
    pub kind: DepKind,
}

/// A plan, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphPlan {
    /// The store commit's message, when the plan gives one.
    pub commit_message: Option<String>,
    /// The beads, in the plan's order.
    pub nodes: Vec<GraphNode>,
    /// The dependencies.
    pub edges: Vec<GraphEdge>,
}

/// The plan as JSON gives it.
#[derive(Deserialize)]
struct RawPlan {
    #[serde(default)]
    commit_message: Option<String>,
    nodes: Vec<RawNode>,
    #[serde(default)]
    edges: Vec<RawEdge>,
}

#[derive(Deserialize)]
struct RawNode {
    #[serde(default)]
    key: String,
    #[serde(default)]
    title: String,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    assignee: String,
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default)]
    labels: Vec<String>,
    #[serde(default)]
    metadata: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    metadata_refs: BTreeMap<String, String>,
    #[serde(default)]
    parent_key: String,
    #[serde(default)]
    parent_id: String,
}

#[derive(Deserialize)]
struct RawEdge {
    #[serde(default)]
    from_key: String,
    #[serde(default)]
    from_id: String,
    #[serde(default)]
    to_key: String,
    #[serde(default)]
    to_id: String,
    #[serde(default, rename = "type")]
    kind: String,
}

/// The fields bd reads, per place; others are reported and left unread.
const PLAN_FIELDS: &[&str] = &["commit_message", "nodes", "edges"];
const NODE_FIELDS: &[&str] = &[
    "key",
    "title",
    "type",
    "description",
    "assignee",
    "assign_after_create",
    "priority",
    "labels",
    "metadata",
    "metadata_refs",
    "parent_key",
    "parent_id",
];
const EDGE_FIELDS: &[&str] = &["from_key", "from_id", "to_key", "to_id", "type"];

impl GraphPlan {
    /// Reads and checks the plan `text`; also returns one warning per place that has
    /// fields bd does not read (`node["a"] has unknown field(s): from`).
    pub fn parse(text: &str) -> Result<(GraphPlan, Vec<String>), GraphError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| GraphError(format!("parsing graph plan: {e}")))?;
        let warnings = unknown_fields(&value);
        let raw: RawPlan = serde_json::from_value(value)
            .map_err(|e| GraphError(format!("parsing graph plan: {e}")))?;
        Ok((checked(raw)?, warnings))
    }

    /// The ids of the store the plan names (parents and edge ends).
    pub fn named_ids(&self) -> BTreeSet<&BeadId> {
        let parents = self.nodes.iter().filter_map(|n| n.parent.as_ref());
        let ends = self.edges.iter().flat_map(|e| [&e.from, &e.to]);
        parents
            .chain(ends)
            .filter_map(|r| match r {
                GraphRef::Id(id) => Some(id),
                GraphRef::Key(_) => None,
            })
            .collect()
    }
}

/// A warning for each object of the plan with fields bd does not read.
fn unknown_fields(plan: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |place: String, v: &serde_json::Value, known: &[&str]| {
        let Some(obj) = v.as_object() else { return };
        let unknown: Vec<&str> = (obj.keys())
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if !unknown.is_empty() {
            out.push(format!(
                "{place} has unknown field(s): {} (not read)",
                unknown.join(", ")
            ));
        }
    };
    check("graph plan".into(), plan, PLAN_FIELDS);
    let list = |name: &str| plan.get(name).and_then(|v| v.as_array()).cloned();
    for (i, node) in list("nodes").unwrap_or_default().iter().enumerate() {
        let place = match node.get("key").and_then(|k| k.as_str()) {
            Some(k) if !k.is_empty() => format!("graph plan node[{k:?}]"),
            _ => format!("graph plan node[{i}]"),
        };
        check(place, node, NODE_FIELDS);
    }
    for (i, edge) in list("edges").unwrap_or_default().iter().enumerate() {
        check(format!("graph plan edge[{i}]"), edge, EDGE_FIELDS);
    }
    out
}

/// A bead of the plan or the store, given as a key and an id (either may be empty).
fn reference(
    key: String,
    id: &str,
    keys: &BTreeSet<String>,
    what: &str,
) -> Result<Option<GraphRef>, GraphError> {
    match (key.is_empty(), id.is_empty()) {
        (true, true) => Ok(None),
        (false, false) => fail(format!("{what}: give a key or an id, not both")),
        (false, true) if keys.contains(&key) => Ok(Some(GraphRef::Key(key))),
        (false, true) => fail(format!("{what}: key {key:?} not found in plan")),
        (true, false) => match BeadId::parse(id) {
            Ok(id) => Ok(Some(GraphRef::Id(id))),
            Err(e) => fail(format!("{what}: {e}")),
        },
    }
}

/// The plan `raw`, checked.
fn checked(raw: RawPlan) -> Result<GraphPlan, GraphError> {
    if raw.nodes.is_empty() {
        return fail("invalid graph plan: plan has no nodes");
    }
    let mut keys = BTreeSet::new();
    for (i, n) in raw.nodes.iter().enumerate() {
        if n.key.is_empty() {
            return fail(format!("invalid graph plan: node {i} has empty key"));
        }
        if !keys.insert(n.key.clone()) {
            return fail(format!(
                "invalid graph plan: duplicate node key {:?}",
                n.key
            ));
        }
    }
    let nodes = (raw.nodes.into_iter())
        .map(|n| node(n, &keys))
        .collect::<Result<Vec<_>, _>>()?;
    let mut edges = Vec::new();
    for (i, e) in raw.edges.into_iter().enumerate() {
        let what = format!("invalid graph plan: edge {i}");
        let from = reference(e.from_key, &e.from_id, &keys, &format!("{what} from"))?;
        let to = reference(e.to_key, &e.to_id, &keys, &format!("{what} to"))?;
        let (Some(from), Some(to)) = (from, to) else {
            return fail(format!(
                "{what}: must name from_key or from_id, and to_key or to_id"
            ));
        };
        let kind = match e.kind.as_str() {
            "" => DepKind::Blocks,
            k => k
                .parse()
                .map_err(|_| GraphError(format!("{what}: invalid dependency type {k:?}")))?,
        };
        edges.push(GraphEdge { from, to, kind });
    }
    Ok(GraphPlan {
        commit_message: raw.commit_message.filter(|m| !m.trim().is_empty()),
        nodes,
        edges,
    })
}

/// One node of the plan, checked; `keys` are the plan's keys.
fn node(n: RawNode, keys: &BTreeSet<String>) -> Result<GraphNode, GraphError> {
    let what = format!("invalid graph plan: node {:?}", n.key);
    if n.title.trim().is_empty() {
        return fail(format!("{what} has empty title"));
    }
    let kind = match n.kind.as_str() {
        "" => BeadType::Task,
        k => k
            .parse()
            .map_err(|_| GraphError(format!("{what}: invalid type {k:?}")))?,
    };
    let priority = match n.priority {
        None => 2,
        Some(p @ 0..=4) => p as u8,
        Some(p) => return fail(format!("{what}: invalid priority {p} (0 to 4)")),
    };
    for (meta, to) in &n.metadata_refs {
        if !keys.contains(to) {
            return fail(format!(
                "{what}: metadata ref {meta:?} references unknown key {to:?}"
            ));
        }
    }
    let parent = reference(n.parent_key, &n.parent_id, keys, &format!("{what} parent"))?;
    if parent == Some(GraphRef::Key(n.key.clone())) {
        return fail(format!("{what} is its own parent"));
    }
    Ok(GraphNode {
        key: n.key,
        title: n.title,
        kind,
        description: n.description,
        assignee: Some(n.assignee).filter(|a| !a.is_empty()),
        priority,
        labels: n.labels,
        metadata: n.metadata,
        metadata_refs: n.metadata_refs,
        parent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        GraphPlan::parse(text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn a_plan_is_read_with_bds_defaults_and_warnings() {
        let (plan, warnings) = GraphPlan::parse(
            r#"{"nodes":[{"key":"a","title":"A","from":"x"},
                {"key":"b","title":"B","type":"epic","priority":0,"parent_key":"a",
                 "metadata":{"k":"v"},"metadata_refs":{"a_id":"a"}}],
               "edges":[{"from_key":"a","to_id":"bd-x1","metadata":"m"}]}"#,
        )
        .expect("a plan");
        assert_eq!(plan.nodes[0].kind, BeadType::Task);
        assert_eq!(plan.nodes[0].priority, 2);
        assert_eq!(plan.nodes[1].parent, Some(GraphRef::Key("a".into())));
        assert_eq!(plan.edges[0].kind, DepKind::Blocks);
        assert_eq!(plan.named_ids().len(), 1);
        assert_eq!(
            warnings,
            [
                "graph plan node[\"a\"] has unknown field(s): from (not read)",
                "graph plan edge[0] has unknown field(s): metadata (not read)"
            ]
        );
    }

    #[test]
    fn a_plan_that_does_not_hold_together_says_why() {
        assert!(err("{").starts_with("parsing graph plan"));
        assert!(err(r#"{"nodes":[]}"#).contains("plan has no nodes"));
        assert!(err(r#"{"nodes":[{"title":"A"}]}"#).contains("node 0 has empty key"));
        let two = r#"{"nodes":[{"key":"a","title":"A"},{"key":"a","title":"B"}]}"#;
        assert!(err(two).contains("duplicate node key \"a\""));
        assert!(err(r#"{"nodes":[{"key":"a"}]}"#).contains("empty title"));
        let bad = |node: &str| {
            err(&format!(
                r#"{{"nodes":[{{"key":"a","title":"A",{node}}}]}}"#
            ))
        };
        assert!(bad(r#""type":"Bad Type""#).contains("invalid type"));
        assert!(bad(r#""priority":7"#).contains("invalid priority 7"));
        assert!(bad(r#""parent_key":"z""#).contains("key \"z\" not found"));
        assert!(bad(r#""parent_key":"a""#).contains("its own parent"));
        assert!(bad(r#""metadata_refs":{"m":"z"}"#).contains("unknown key \"z\""));
        let edge = |e: &str| {
            err(&format!(
                r#"{{"nodes":[{{"key":"a","title":"A"}}],"edges":[{e}]}}"#
            ))
        };
        assert!(edge(r#"{"from_key":"a"}"#).contains("must name"));
        assert!(edge(r#"{"from_key":"a","to_key":"q"}"#).contains("not found in plan"));
        assert!(
            edge(r#"{"from_key":"a","to_id":"bd-1","type":"likes"}"#)
                .contains("invalid dependency type")
        );
    }
}
