//! The documents about beads: one bead, many, summaries, the blocker graph,
//! comments, labels.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::bead::{Bead as WireBead, Brief, Comment as WireComment, DepRecord, bead, parent_of};
use super::{Doc, Documented, Field, Shape, rfc3339};
use crate::model::{Bead, BeadId, BeadType, Comment, DepKind, Status};
use crate::ops::{BeadRow, DepNode, Dependents, Detailed};

/// The fields of a bead in full, as the manual lists them.
pub const BEAD_FIELDS: &[Field] = &[
    Field::new("id"),
    Field::new("title"),
    Field::optional("description"),
    Field::optional("notes"),
    Field::new("status"),
    Field::new("priority"),
    Field::new("issue_type"),
    Field::optional("assignee"),
    Field::optional("design"),
    Field::optional("acceptance_criteria"),
    Field::optional("external_ref"),
    Field::optional("owner"),
    Field::optional("estimated_minutes"),
    Field::optional("due_at"),
    Field::optional("defer_until"),
    Field::optional("started_at"),
    Field::optional("spec_id"),
    Field::optional("metadata"),
    Field::optional("ephemeral"),
    Field::optional("wisp_type"),
    Field::optional("pinned"),
    Field::optional("is_template"),
    Field::optional("sender"),
    Field::optional("source_system"),
    Field::optional("closed_by_session"),
    Field::optional("event_kind"),
    Field::optional("actor"),
    Field::optional("target"),
    Field::optional("payload"),
    Field::new("labels"),
    Field::noted(
        "dependencies",
        ": [{id, title, status, priority, issue_type, ..., dependency_type}]",
    ),
    Field::new("dependency_count"),
    Field::optional("dependent_count"),
    Field::optional_noted(
        "dependents",
        ": [{id, title, status, priority, issue_type, ..., dependency_type}]",
    ),
    Field::new("comment_count"),
    Field::optional("parent"),
    Field::optional_noted("comments", ": [{id, issue_id, author, text, created_at}]"),
    Field::new("created_at"),
    Field::new("created_by"),
    Field::new("updated_at"),
    Field::new("updated_by"),
    Field::optional("closed_at"),
    Field::optional("close_reason"),
    Field::optional("deleted_at"),
    Field::optional("deleted_by"),
    Field::optional("delete_reason"),
    Field::optional("extra"),
    Field::optional("conflicts"),
];

/// One bead in full, its fields beside `schema_version`: `create`, `edit`, `dep add|remove`,
/// `label add|remove`.
#[derive(Serialize)]
pub struct OneBead<'a> {
    /// The bead.
    #[serde(flatten)]
    pub bead: WireBead<'a>,
}

impl Documented for OneBead<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "create, dep add, dep remove, label add, label remove, edit",
        fields: BEAD_FIELDS,
    };
}

/// Beads in full, a bare array: `show`, `update`, `close`, `reopen`, `delete`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Beads<'a>(pub Vec<WireBead<'a>>);

impl<'a> Beads<'a> {
    /// The beads, with the store read around them.
    pub fn detailed(beads: &'a [Detailed]) -> Self {
        Beads(beads.iter().map(WireBead::detailed).collect())
    }
}

impl Documented for Beads<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "show, update, close, reopen, delete, release, ready --claim, ready --mol, query, duplicate, supersede, dep relate",
        fields: BEAD_FIELDS,
    };
}

/// A summary of a bead, as `list`, `ready`, `search` and `blocked` print it: bd's
/// list item.
#[derive(Serialize)]
pub struct Summary<'a> {
    id: &'a str,
    title: &'a str,
    status: Status,
    priority: u8,
    issue_type: BeadType,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    labels: Vec<&'a str>,
    dependencies: Vec<DepRecord<'a>>,
    dependency_count: usize,
    dependent_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    created_at: String,
    updated_at: String,
    /// Set on a wisp (bd's ephemeral bead), which `list --include-infra` shows.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    ephemeral: bool,
}

/// The fields of a summary, as the manual lists them.
const SUMMARY_FIELDS: &[Field] = &[
    Field::new("id"),
    Field::new("title"),
    Field::new("status"),
    Field::new("priority"),
    Field::new("issue_type"),
    Field::optional("assignee"),
    Field::new("labels"),
    Field::noted("dependencies", ": [{issue_id, depends_on_id, type}]"),
    Field::new("dependency_count"),
    Field::new("dependent_count"),
    Field::optional("parent"),
    Field::new("created_at"),
    Field::new("updated_at"),
    Field::optional_noted(
        "ephemeral",
        " (true: a wisp, which `list --include-infra` shows)",
    ),
];

impl<'a> Summary<'a> {
    /// The summary of `s`, which `dependents` beads depend on.
    pub fn new(s: BeadRow<'a>, dependents: &Dependents) -> Self {
        let id = s.id();
        let dependencies: Vec<DepRecord<'a>> = s
            .dependencies()
            .map(|d| DepRecord::new(id, d.id(), d.kind))
            .collect();
        Summary {
            id,
            title: s.title(),
            status: s.status(),
            priority: s.priority(),
            issue_type: s.kind(),
            assignee: s.assignee(),
            labels: s.labels().collect(),
            dependency_count: dependencies.len(),
            dependencies,
            dependent_count: dependents.count(&s),
            parent: parent_of(s.dependencies().map(|d| (d.kind, d.id()))),
            created_at: rfc3339(s.created_at()),
            updated_at: rfc3339(s.updated_at()),
            ephemeral: false,
        }
    }

    /// This summary, of a wisp.
    pub fn of_wisp(self) -> Self {
        Summary {
            ephemeral: true,
            ..self
        }
    }
}

/// Summaries of the beads a query found, a bare array: `list`, `ready`, `search`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Listing<'a>(pub Vec<Summary<'a>>);

impl Documented for Listing<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "list, ready, search, children",
        fields: SUMMARY_FIELDS,
    };
}

/// How many beads the filters keep: `count`.
#[derive(Serialize)]
pub struct Count {
    /// The number.
    pub count: usize,
}

impl Documented for Count {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "count",
        fields: &[Field::new("count")],
    };
}

/// How many beads the filters keep, by status, priority, type, assignee or label:
/// `count --by-*`, as bd writes it.
#[derive(Serialize)]
pub struct CountGroups<'a> {
    /// How many beads in all (a bead with two labels counts once).
    pub total: usize,
    /// Per group, in the order of their names.
    pub groups: Vec<GroupCount<'a>>,
}

/// One group of [`CountGroups`].
#[derive(Serialize)]
pub struct GroupCount<'a> {
    /// The group's name: `open`, `P1`, `bug`, an assignee or `(unassigned)`, a label
    /// or `(no labels)`.
    pub group: &'a str,
    /// How many beads are in it.
    pub count: usize,
}

impl Documented for CountGroups<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "count --by-status, --by-priority, --by-type, --by-assignee, --by-label",
        fields: &[
            Field::new("total"),
            Field::noted("groups", ": [{group, count}]"),
        ],
    };
}

/// What `stale` prints: a bare array of the stale beads.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Stale<'a>(pub &'a [crate::ops::StaleBead]);

impl Documented for Stale<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "stale",
        fields: &[
            Field::new("id"),
            Field::new("title"),
            Field::new("status"),
            Field::new("holder"),
            Field::noted(
                "why",
                ": retired, no-session, ended (with end), silent or old-claim (with since)",
            ),
        ],
    };
}

/// What `blocked` prints: a bare array of blocked beads, each a [`Summary`] with
/// `blocked_by_count` (how many unfinished beads it waits on) and `blocked_by` (their
/// ids) after its fields. Written straight from the index's rows by
/// [`write_blocked`](super::write_blocked): it holds every blocked bead of the store.
pub struct BlockedReport;

impl Documented for BlockedReport {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "blocked",
        fields: &[
            Field::new("id"),
            Field::new("title"),
            Field::new("status"),
            Field::new("priority"),
            Field::new("issue_type"),
            Field::optional("assignee"),
            Field::new("labels"),
            Field::noted("dependencies", ": [{issue_id, depends_on_id, type}]"),
            Field::new("dependency_count"),
            Field::new("dependent_count"),
            Field::optional("parent"),
            Field::new("created_at"),
            Field::new("updated_at"),
            Field::new("blocked_by_count"),
            Field::new("blocked_by"),
        ],
    };
}

/// A bead's comments, oldest first, a bare array: `comments`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Comments<'a>(pub Vec<WireComment<'a>>);

/// The fields of a comment, as the manual lists them.
const COMMENT_FIELDS: &[Field] = &[
    Field::new("id"),
    Field::new("issue_id"),
    Field::new("author"),
    Field::new("text"),
    Field::new("created_at"),
];

impl<'a> Comments<'a> {
    /// The comments of bead `id`.
    pub fn new(id: &'a BeadId, comments: &'a [Comment]) -> Self {
        Comments(
            comments
                .iter()
                .map(|c| WireComment::new(id.as_str(), c))
                .collect(),
        )
    }
}

impl Documented for Comments<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "comments",
        fields: COMMENT_FIELDS,
    };
}

/// The comment `comment` (or `comments add`) added, its fields beside `schema_version`.
#[derive(Serialize)]
pub struct CommentAdded<'a> {
    /// The comment.
    #[serde(flatten)]
    pub comment: WireComment<'a>,
}

impl<'a> CommentAdded<'a> {
    /// Comment `c` of bead `id`.
    pub fn new(id: &'a BeadId, c: &'a Comment) -> Self {
        CommentAdded {
            comment: WireComment::new(id.as_str(), c),
        }
    }
}

impl Documented for CommentAdded<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "comment, comments add",
        fields: COMMENT_FIELDS,
    };
}

/// One bead of a dependency tree, as bd's `dep tree` lists it: the bead in full, how
/// deep it lies, the bead above it and how that one depends on it.
#[derive(Serialize)]
pub struct TreeNode<'a> {
    #[serde(flatten)]
    bead: NodeBead<'a>,
    depth: usize,
    parent_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_from_parent: Option<DepKind>,
    truncated: bool,
}

/// The bead of a tree node: in full where it exists, its id and `missing` where a
/// dependency names a bead the store does not hold.
#[derive(Serialize)]
#[serde(untagged)]
enum NodeBead<'a> {
    Found(Box<WireBead<'a>>),
    Missing { id: &'a str, missing: bool },
}

/// What `dep tree` prints: a bare array of the tree's nodes, the bead asked about
/// first, each node followed by the nodes below it, each bead once (bd's flat tree).
#[derive(Serialize)]
#[serde(transparent)]
pub struct DepTree<'a>(pub Vec<TreeNode<'a>>);

impl<'a> DepTree<'a> {
    /// The nodes of `tree`, with the beads of `beads` (every bead of the tree the
    /// store holds) in full.
    pub fn new(tree: &'a DepNode, beads: &'a [Bead]) -> Self {
        let by_id: HashMap<&str, &Bead> = beads.iter().map(|b| (b.id.as_str(), b)).collect();
        let mut flat = Flat {
            beads: by_id,
            shown: HashSet::new(),
            nodes: Vec::new(),
        };
        flat.add(tree, 0, "");
        DepTree(flat.nodes)
    }
}

/// A tree being laid flat.
struct Flat<'a> {
    beads: HashMap<&'a str, &'a Bead>,
    shown: HashSet<&'a str>,
    nodes: Vec<TreeNode<'a>>,
}

impl<'a> Flat<'a> {
    /// Adds `n` and the nodes below it, unless its bead is already in.
    fn add(&mut self, n: &'a DepNode, depth: usize, parent_id: &'a str) {
        if !self.shown.insert(&n.id) {
            return;
        }
        let bead = match self.beads.get(n.id.as_str()) {
            Some(b) => NodeBead::Found(Box::new(WireBead::plain(b))),
            None => NodeBead::Missing {
                id: &n.id,
                missing: true,
            },
        };
        self.nodes.push(TreeNode {
            bead,
            depth,
            parent_id,
            edge_from_parent: n.kind,
            truncated: false,
        });
        for c in &n.children {
            self.add(c, depth + 1, &n.id);
        }
    }
}

impl Documented for DepTree<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "dep tree",
        fields: DEP_TREE_FIELDS,
    };
}

/// The fields of a tree node: a bead's, then where it lies in the tree.
const DEP_TREE_FIELDS: &[Field] = &{
    let mut fields = [Field::new("id"); BEAD_FIELDS.len() + 5];
    let mut i = 0;
    while i < BEAD_FIELDS.len() {
        fields[i] = BEAD_FIELDS[i];
        i += 1;
    }
    fields[i] = Field::new("depth");
    fields[i + 1] = Field::noted("parent_id", "(empty for the bead asked about)");
    fields[i + 2] = Field::optional_noted("edge_from_parent", ": how parent_id depends on it");
    fields[i + 3] = Field::new("truncated");
    fields[i + 4] = Field::optional_noted("missing", ": true where the bead is not in the store");
    fields
};

/// A bead's labels, sorted, a bare array of strings: `label list`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Labels<'a>(pub Vec<&'a str>);

impl Documented for Labels<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "label list",
        fields: &[],
    };
}

/// How many beads carry a label.
#[derive(Serialize)]
pub struct LabelCount<'a> {
    /// The label.
    pub label: &'a str,
    /// How many beads carry it.
    pub count: usize,
}

/// Every label in use, a bare array: `label list-all`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct LabelCounts<'a>(pub Vec<LabelCount<'a>>);

impl Documented for LabelCounts<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "label list-all",
        fields: &[Field::new("label"), Field::new("count")],
    };
}

/// What `resolve` cleared.
#[derive(Serialize)]
pub struct Resolved<'a> {
    /// The bead.
    pub id: &'a BeadId,
    /// How many conflicts were cleared.
    pub cleared: usize,
    /// The bead as it is now.
    #[serde(serialize_with = "bead")]
    pub bead: &'a Bead,
}

impl Documented for Resolved<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "resolve",
        fields: &[Field::new("id"), Field::new("cleared"), Field::new("bead")],
    };
}

/// What `stats` (or `status`) prints: bd's `summary`.
#[derive(Serialize)]
pub struct Stats {
    /// The counts.
    pub summary: StatsSummary,
}

/// The counts of `stats`, with bd's names.
#[derive(Serialize)]
pub struct StatsSummary {
    total_issues: usize,
    open_issues: usize,
    in_progress_issues: usize,
    closed_issues: usize,
    blocked_issues: usize,
    deferred_issues: usize,
    ready_issues: usize,
    tombstone_issues: usize,
    pinned_issues: usize,
    hooked_issues: usize,
    epics_eligible_for_closure: usize,
    average_lead_time_hours: f64,
    /// git-beads' own: the beads of each of the project's own statuses.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    custom_status_issues: std::collections::BTreeMap<String, usize>,
}

impl From<&crate::ops::Stats> for Stats {
    fn from(s: &crate::ops::Stats) -> Self {
        Stats {
            summary: StatsSummary {
                total_issues: s.total,
                open_issues: s.open,
                in_progress_issues: s.in_progress,
                closed_issues: s.closed,
                blocked_issues: s.blocked,
                deferred_issues: s.deferred,
                ready_issues: s.ready,
                tombstone_issues: s.tombstones,
                pinned_issues: s.pinned,
                hooked_issues: s.hooked,
                epics_eligible_for_closure: s.epics_eligible_for_closure,
                average_lead_time_hours: s.average_lead_time_hours,
                custom_status_issues: s.custom.clone(),
            },
        }
    }
}

impl Documented for Stats {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "stats, status",
        fields: &[Field::noted(
            "summary",
            ": {total_issues, open_issues, in_progress_issues, closed_issues, \
             blocked_issues, deferred_issues, ready_issues, tombstone_issues, pinned_issues, \
             hooked_issues, epics_eligible_for_closure, average_lead_time_hours, \
             custom_status_issues (each of the project's own statuses and its count, when \
             it has any)}",
        )],
    };
}

/// One epic and how far its children are.
#[derive(Serialize)]
pub struct EpicStatus<'a> {
    epic: EpicBrief<'a>,
    total_children: usize,
    closed_children: usize,
    eligible_for_close: bool,
}

/// The epic of an [`EpicStatus`].
#[derive(Serialize)]
struct EpicBrief<'a> {
    id: &'a str,
    #[serde(flatten)]
    fields: Brief<'a>,
}

impl<'a> From<&'a crate::ops::EpicProgress> for EpicStatus<'a> {
    fn from(e: &'a crate::ops::EpicProgress) -> Self {
        EpicStatus {
            epic: EpicBrief {
                id: &e.epic.id,
                fields: Brief::from(&e.epic),
            },
            total_children: e.total_children,
            closed_children: e.closed_children,
            eligible_for_close: e.eligible(),
        }
    }
}

/// What `epic status` prints: a bare array.
#[derive(Serialize)]
#[serde(transparent)]
pub struct EpicStatuses<'a>(pub Vec<EpicStatus<'a>>);

impl Documented for EpicStatuses<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "epic status",
        fields: &[
            Field::noted("epic", ": {id, title, status, priority, issue_type, ...}"),
            Field::new("total_children"),
            Field::new("closed_children"),
            Field::new("eligible_for_close"),
        ],
    };
}

/// What `epic close-eligible` closed (or would close).
#[derive(Serialize)]
pub struct ClosedEpics<'a> {
    /// The epics.
    pub closed: &'a [BeadId],
    /// Whether nothing was changed (`--dry-run`).
    pub dry_run: bool,
}

impl Documented for ClosedEpics<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "epic close-eligible",
        fields: &[Field::new("closed"), Field::new("dry_run")],
    };
}

/// What `dep list` prints: a bare array of what a bead depends on, as `show` lists
/// them (with `dependency_type`).
#[derive(Serialize)]
#[serde(transparent)]
pub struct DepList<'a>(pub Vec<super::bead::Linked<'a>>);

impl Documented for DepList<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "dep list",
        fields: &[
            Field::new("id"),
            Field::optional("title"),
            Field::optional("status"),
            Field::optional("priority"),
            Field::optional("issue_type"),
            Field::optional("assignee"),
            Field::optional("labels"),
            Field::optional("created_at"),
            Field::optional("updated_at"),
            Field::new("dependency_type"),
        ],
    };
}

/// What `dep list` of several beads prints with `--json`: bd's flat array of
/// dependency records.
#[derive(Serialize)]
#[serde(transparent)]
pub struct DepRecords<'a>(pub Vec<DepRecord<'a>>);

impl Documented for DepRecords<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "dep list ID ID…",
        fields: &[
            Field::new("issue_id"),
            Field::new("depends_on_id"),
            Field::new("type"),
        ],
    };
}

/// What `dep cycles` prints: a bare array of cycles, each an array of ids.
#[derive(Serialize)]
#[serde(transparent)]
pub struct DepCycles<'a>(pub &'a [Vec<String>]);

impl Documented for DepCycles<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "dep cycles",
        fields: &[],
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, kind: Option<DepKind>, held: bool, children: Vec<DepNode>) -> DepNode {
        DepNode {
            id: id.to_owned(),
            title: held.then(|| id.to_owned()),
            status: held.then_some(Status::Open),
            kind,
            children,
        }
    }

    /// bd lists each bead of a tree once, below the first node that reaches it; a
    /// dependency on a bead the store lacks is a node with its id and `missing`.
    #[test]
    fn a_tree_is_laid_flat_each_bead_once() {
        let bead = |id: &str| -> Bead {
            serde_json::from_value(serde_json::json!({
                "id": id, "title": id, "status": "open", "priority": 2, "type": "task",
                "created_at": "2026-01-01T00:00:00Z", "created_by": "ann",
                "updated_at": "2026-01-01T00:00:00Z", "updated_by": "ann",
            }))
            .expect("a document")
        };
        let beads = [bead("bd-a1"), bead("bd-b2")];
        let tree = node(
            "bd-a1",
            None,
            true,
            vec![
                node("bd-b2", Some(DepKind::Blocks), true, Vec::new()),
                node("bd-zz9", Some(DepKind::Related), false, Vec::new()),
                node("bd-b2", Some(DepKind::ParentChild), true, Vec::new()),
            ],
        );
        let v = serde_json::to_value(DepTree::new(&tree, &beads)).expect("wire");
        let nodes = v.as_array().expect("array");
        assert_eq!(nodes.len(), 3, "{v}");
        assert_eq!(nodes[1]["edge_from_parent"], "blocks");
        assert_eq!(nodes[1]["issue_type"], "task");
        assert_eq!(
            nodes[2],
            serde_json::json!({"id": "bd-zz9", "missing": true, "depth": 1,
                "parent_id": "bd-a1", "edge_from_parent": "related", "truncated": false})
        );
    }
}

/// What `create --graph` made: the id each key of the plan got (bd's
/// `GraphApplyResult`).
#[derive(Serialize)]
pub struct GraphCreated<'a> {
    /// Each key of the plan and its bead's id.
    pub ids: &'a std::collections::BTreeMap<String, BeadId>,
}

impl Documented for GraphCreated<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "create --graph",
        fields: &[Field::noted(
            "ids",
            ": the plan's keys, each with its bead's id",
        )],
    };
}
