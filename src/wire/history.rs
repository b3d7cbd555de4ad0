//! The documents of bd's git-flavoured commands: `history` (a bead's states), `diff`
//! (what changed between two states of the store), `orphans` (open beads that code
//! commits name) and `audit` (entries recorded). bd writes the first two from Go
//! structs without JSON tags, so their fields are Go's names (`CommitHash`,
//! `IssueID`); the others have bd's snake-case tags.

use serde::Serialize;

use super::{Bead, Doc, Documented, Field, Shape, rfc3339};
use crate::ops::BeadVersion;

/// One state of a bead, as bd's `history --json` writes a `HistoryEntry`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct HistoryEntry<'a> {
    commit_hash: &'a str,
    committer: &'a str,
    commit_date: String,
    issue: Option<Bead<'a>>,
}

/// A bead's history, newest first: a bare array of [`HistoryEntry`].
#[derive(Serialize)]
#[serde(transparent)]
pub struct History<'a>(Vec<HistoryEntry<'a>>);

impl<'a> History<'a> {
    /// The document of `versions`.
    pub fn new(versions: &'a [BeadVersion]) -> Self {
        History(
            versions
                .iter()
                .map(|v| HistoryEntry {
                    commit_hash: &v.commit,
                    committer: &v.author,
                    commit_date: rfc3339(v.time),
                    issue: v.bead.as_ref().map(Bead::plain),
                })
                .collect(),
        )
    }
}

impl Documented for History<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "history",
        fields: &[
            Field::new("CommitHash"),
            Field::noted("Committer", ": the commit's author"),
            Field::new("CommitDate"),
            Field::noted(
                "Issue",
                ": the bead as the commit left it, as `show` writes one",
            ),
        ],
    };
}
