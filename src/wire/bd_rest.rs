//! The documents of bd's smaller commands: `link`, `promote`, `ping`, `context`.

use std::path::Path;

use serde::Serialize;

use super::bead::Bead as WireBead;
use super::beads::BEAD_FIELDS;
use super::{Doc, Documented, Field, Shape};

/// What `link` prints: bd's `{status, issue_id, depends_on_id, type}`.
#[derive(Serialize)]
pub struct LinkAdded<'a> {
    /// `added` (bd's word, also when the dependency was there already).
    pub status: &'a str,
    /// The dependent bead.
    pub issue_id: &'a str,
    /// What it depends on.
    pub depends_on_id: &'a str,
    /// The kind of dependency.
    #[serde(rename = "type")]
    pub kind: &'a str,
}

impl Documented for LinkAdded<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "link",
        fields: &[
            Field::noted("status", "added"),
            Field::new("issue_id"),
            Field::new("depends_on_id"),
            Field::new("type"),
        ],
    };
}

/// What `promote` prints: the bead as it now is in the store, in full.
#[derive(Serialize)]
pub struct Promoted<'a> {
    /// The bead.
    #[serde(flatten)]
    pub bead: WireBead<'a>,
}

impl Documented for Promoted<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "promote",
        fields: BEAD_FIELDS,
    };
}

/// What `ping` prints: bd's `{status, resolve_ms, store_ms, query_ms, total_ms}`, with
/// the store's head and bead count.
#[derive(Serialize)]
pub struct Ping<'a> {
    /// `ok`.
    pub status: &'a str,
    /// Milliseconds to find the store.
    pub resolve_ms: u128,
    /// Milliseconds to open it.
    pub store_ms: u128,
    /// Milliseconds to read its head and count its beads.
    pub query_ms: u128,
    /// Milliseconds in all.
    pub total_ms: u128,
    /// The store's head commit.
    pub head: &'a str,
    /// Its live beads.
    pub issue_count: usize,
}

impl Documented for Ping<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "ping",
        fields: &[
            Field::noted("status", "ok"),
            Field::new("resolve_ms"),
            Field::new("store_ms"),
            Field::new("query_ms"),
            Field::new("total_ms"),
            Field::new("head"),
            Field::new("issue_count"),
        ],
    };
}

/// What `context` prints: bd's fields where they mean something here.
#[derive(Serialize)]
pub struct Context<'a> {
    /// The `.beads` directory of the store's worktree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beads_dir: Option<&'a Path>,
    /// The top of the store's worktree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo_root: Option<&'a Path>,
    /// The top of the current directory's repository, when it is another one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd_repo_root: Option<&'a Path>,
    /// Whether a `.beads/redirect` chose the store.
    pub is_redirected: bool,
    /// Whether the store's worktree is a linked worktree.
    pub is_worktree: bool,
    /// `git`.
    pub backend: &'a str,
    /// The git directory holding the store's refs.
    pub database: &'a Path,
    /// The store's ref.
    pub store_ref: &'a str,
    /// Why this store: `beads-dir`, `redirect` or `cwd`.
    pub because: &'a str,
    /// Who commands run here act as.
    pub actor: &'a str,
    /// The bd version whose commands git-beads speaks.
    pub bd_version: &'a str,
}

impl Documented for Context<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "context",
        fields: &[
            Field::optional("beads_dir"),
            Field::optional("repo_root"),
            Field::optional("cwd_repo_root"),
            Field::new("is_redirected"),
            Field::new("is_worktree"),
            Field::noted("backend", "git"),
            Field::new("database"),
            Field::new("store_ref"),
            Field::noted("because", "beads-dir, redirect or cwd"),
            Field::new("actor"),
            Field::new("bd_version"),
        ],
    };
}
