//! The documents about beads: one bead, many, summaries, the blocker graph,
//! comments, labels.

use serde::Serialize;

use super::bead::{bead, beads, maybe_bead};
use super::{Doc, Documented, Field, rfc3339};
use crate::model::{Bead, BeadId, BeadType, Comment, DepKind, Status};
use crate::ops::{BeadRow, Broken, DepNode};

/// One bead in full: `create`, `update`, `dep add|remove`, `label add|remove`.
#[derive(Serialize)]
pub struct OneBead<'a> {
    /// The bead.
    #[serde(serialize_with = "bead")]
    pub bead: &'a Bead,
}

impl Documented for OneBead<'_> {
    const DOC: Doc = Doc {
        commands: "create, update, dep add, dep remove, label add, label remove",
        fields: &[Field::new("bead")],
    };
}

/// Beads in full: `show`, `close`, `reopen`, `delete`.
#[derive(Serialize)]
pub struct Beads<'a> {
    /// The beads.
    #[serde(serialize_with = "beads")]
    pub beads: &'a [Bead],
}

impl Documented for Beads<'_> {
    const DOC: Doc = Doc {
        commands: "show, close, reopen, delete, release",
        fields: &[Field::noted("beads", "(full beads)")],
    };
}

/// A summary of a bead, as `list`, `ready`, `search` and `blocked` print it.
#[derive(Serialize)]
pub struct Summary<'a> {
    id: &'a str,
    title: &'a str,
    status: Status,
    priority: u8,
    #[serde(rename = "type")]
    kind: BeadType,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    labels: Vec<&'a str>,
    dependencies: Vec<Dep<'a>>,
    created_at: String,
    updated_at: String,
}

/// A dependency, as a bead document writes it.
#[derive(Serialize)]
struct Dep<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: DepKind,
}

impl<'a> From<BeadRow<'a>> for Summary<'a> {
    fn from(s: BeadRow<'a>) -> Self {
        Summary {
            id: s.id(),
            title: s.title(),
            status: s.status(),
            priority: s.priority(),
            kind: s.kind(),
            assignee: s.assignee(),
            labels: s.labels().collect(),
            dependencies: s
                .dependencies()
                .map(|d| Dep {
                    id: d.id(),
                    kind: d.kind,
                })
                .collect(),
            created_at: rfc3339(s.created_at()),
            updated_at: rfc3339(s.updated_at()),
        }
    }
}

/// Summaries of the beads a query found: `list`, `ready`, `search`.
#[derive(Serialize)]
pub struct Listing<'a> {
    /// The beads shown.
    pub beads: Vec<Summary<'a>>,
    /// How many matched (more than shown when limited).
    pub total: usize,
    /// The documents that do not parse.
    pub broken: &'a [Broken],
}

impl Documented for Listing<'_> {
    const DOC: Doc = Doc {
        commands: "list, ready, search",
        fields: &[
            Field::noted("beads", "(summaries)"),
            Field::new("total"),
            Field::new("broken"),
        ],
    };
}

/// The bead `ready --claim` claimed.
#[derive(Serialize)]
pub struct Claimed<'a> {
    /// The bead, `null` when nothing is ready.
    #[serde(serialize_with = "maybe_bead")]
    pub bead: Option<&'a Bead>,
}

impl Documented for Claimed<'_> {
    const DOC: Doc = Doc {
        commands: "ready --claim",
        fields: &[Field::noted("bead", "(null when nothing is ready)")],
    };
}

/// What `stale` prints.
#[derive(Serialize)]
pub struct Stale<'a> {
    /// The stale beads, by id.
    pub stale: &'a [crate::ops::StaleBead],
}

impl Documented for Stale<'_> {
    const DOC: Doc = Doc {
        commands: "stale",
        fields: &[Field::noted(
            "stale",
            "(each: id, title, status, holder, why: retired, no-session, ended (with end), silent or old-claim (with since))",
        )],
    };
}

/// One blocked bead and what blocks it.
#[derive(Serialize)]
pub struct BlockedBead<'a> {
    /// The bead.
    pub bead: Summary<'a>,
    /// The ids of the unfinished beads it waits on.
    pub blocked_by: Vec<&'a str>,
}

/// What `blocked` prints.
#[derive(Serialize)]
pub struct BlockedReport<'a> {
    /// Each blocked bead.
    pub blocked: Vec<BlockedBead<'a>>,
    /// The documents that do not parse.
    pub broken: &'a [Broken],
}

impl Documented for BlockedReport<'_> {
    const DOC: Doc = Doc {
        commands: "blocked",
        fields: &[
            Field::noted("blocked", ": [{bead (summary), blocked_by}]"),
            Field::new("broken"),
        ],
    };
}

/// A bead's comments: `comments`.
#[derive(Serialize)]
pub struct Comments<'a> {
    /// The bead.
    pub id: &'a BeadId,
    /// Its comments, oldest first.
    pub comments: &'a [Comment],
}

impl Documented for Comments<'_> {
    const DOC: Doc = Doc {
        commands: "comments",
        fields: &[Field::new("id"), Field::new("comments")],
    };
}

/// The comment `comment` (or `comments add`) added.
#[derive(Serialize)]
pub struct CommentAdded<'a> {
    /// The bead.
    pub id: &'a BeadId,
    /// The comment.
    pub comment: &'a Comment,
}

impl Documented for CommentAdded<'_> {
    const DOC: Doc = Doc {
        commands: "comment, comments add",
        fields: &[Field::new("id"), Field::new("comment")],
    };
}

/// One node of a dependency tree.
#[derive(Serialize)]
pub struct Node<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<Status>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<DepKind>,
    depends_on: Vec<Node<'a>>,
}

impl<'a> From<&'a DepNode> for Node<'a> {
    fn from(n: &'a DepNode) -> Self {
        Node {
            id: &n.id,
            title: n.title.as_deref(),
            status: n.status,
            kind: n.kind,
            depends_on: n.children.iter().map(Node::from).collect(),
        }
    }
}

/// What `dep tree` prints.
#[derive(Serialize)]
pub struct DepTree<'a> {
    /// The tree, rooted at the bead asked about.
    pub tree: Node<'a>,
}

impl Documented for DepTree<'_> {
    const DOC: Doc = Doc {
        commands: "dep tree",
        fields: &[Field::noted(
            "tree",
            ": {id, title, status, type, depends_on: [...]}",
        )],
    };
}

/// A bead's labels: `label list`.
#[derive(Serialize)]
pub struct Labels<'a> {
    /// The bead.
    pub id: &'a BeadId,
    /// Its labels, sorted.
    pub labels: Vec<&'a str>,
}

impl Documented for Labels<'_> {
    const DOC: Doc = Doc {
        commands: "label list",
        fields: &[Field::new("id"), Field::new("labels")],
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

/// Every label in use: `label list-all`.
#[derive(Serialize)]
pub struct LabelCounts<'a> {
    /// The labels.
    pub labels: Vec<LabelCount<'a>>,
}

impl Documented for LabelCounts<'_> {
    const DOC: Doc = Doc {
        commands: "label list-all",
        fields: &[Field::noted("labels", ": [{label, count}]")],
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
        commands: "resolve",
        fields: &[Field::new("id"), Field::new("cleared"), Field::new("bead")],
    };
}
