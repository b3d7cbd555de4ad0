//! Reading trees and diffing two of them, skipping every subtree both share.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::{StoreError, git_err};

/// One document that differs between two trees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocChange {
    /// The document's path from the root of the store's tree.
    pub path: String,
    /// The blob before, if the document existed.
    pub old: Option<ObjectId>,
    /// The blob after, if the document exists.
    pub new: Option<ObjectId>,
}

/// An entry of a tree: a blob or a subtree (anything else is ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    Blob(ObjectId),
    Tree(ObjectId),
}

/// The entries of a tree by name. Entries that are neither blobs nor trees (links,
/// submodules) and names that are not UTF-8 are left out: the store never writes them,
/// so a tree that holds them came from elsewhere and they carry no documents.
pub(crate) fn entries(
    repo: &gix::Repository,
    tree: ObjectId,
) -> Result<BTreeMap<String, Node>, StoreError> {
    let tree = repo
        .find_tree(tree)
        .map_err(git_err(format!("read tree {tree}")))?;
    let decoded = tree
        .decode()
        .map_err(git_err(format!("decode tree {}", tree.id)))?;
    let mut out = BTreeMap::new();
    for e in &decoded.entries {
        let Ok(name) = std::str::from_utf8(e.filename) else {
            continue;
        };
        let node = if e.mode.is_tree() {
            Node::Tree(e.oid.to_owned())
        } else if e.mode.is_blob() {
            Node::Blob(e.oid.to_owned())
        } else {
            continue;
        };
        out.insert(name.to_owned(), node);
    }
    Ok(out)
}

/// Lists the documents that differ between `old` and `new` (either may be absent),
/// prefixing their paths with `base`. Subtrees with equal ids are skipped, so the
/// cost follows the size of the change, not of the store.
pub(crate) fn diff(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    base: &str,
    out: &mut Vec<DocChange>,
) -> Result<(), StoreError> {
    if old == new {
        return Ok(());
    }
    let old = match old {
        Some(t) => entries(repo, t)?,
        None => BTreeMap::new(),
    };
    let new = match new {
        Some(t) => entries(repo, t)?,
        None => BTreeMap::new(),
    };
    let names: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        // Snapshots are whole worktrees kept as subtrees, not documents: their
        // records live in the sessions, and walking them would cost a worktree's size.
        if base.is_empty() && name == super::refs::SNAPSHOTS_DIR {
            continue;
        }
        let path = if base.is_empty() {
            name.clone()
        } else {
            format!("{base}/{name}")
        };
        let (a, b) = (old.get(name).copied(), new.get(name).copied());
        if a == b {
            continue;
        }
        let split = |n: Option<Node>| match n {
            Some(Node::Blob(id)) => (Some(id), None),
            Some(Node::Tree(id)) => (None, Some(id)),
            None => (None, None),
        };
        let (old_blob, old_tree) = split(a);
        let (new_blob, new_tree) = split(b);
        if old_blob != new_blob {
            out.push(DocChange {
                path: path.clone(),
                old: old_blob,
                new: new_blob,
            });
        }
        if old_tree != new_tree {
            diff(repo, old_tree, new_tree, &path, out)?;
        }
    }
    Ok(())
}

/// Walks every blob below `tree`, calling `visit(path, blob)`.
pub(crate) fn walk_blobs(
    repo: &gix::Repository,
    tree: ObjectId,
    base: &str,
    visit: &mut dyn FnMut(String, ObjectId),
) -> Result<(), StoreError> {
    for (name, node) in entries(repo, tree)? {
        let path = format!("{base}/{name}");
        match node {
            Node::Blob(id) => visit(path, id),
            Node::Tree(id) => walk_blobs(repo, id, &path, visit)?,
        }
    }
    Ok(())
}
