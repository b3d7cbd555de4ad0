//! Reading trees and diffing two of them, skipping every subtree both share.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use gix::ObjectId;
use gix::objs::tree::EntryRef;

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

impl Node {
    /// The entry as a node with its UTF-8 name, or `None` for what the store never
    /// writes (links, submodules, names that are not UTF-8): a tree that holds them
    /// came from elsewhere and they carry no documents.
    fn of<'a>(e: &EntryRef<'a>) -> Option<(&'a str, Node)> {
        let name = std::str::from_utf8(e.filename).ok()?;
        let node = if e.mode.is_tree() {
            Node::Tree(e.oid.to_owned())
        } else if e.mode.is_blob() {
            Node::Blob(e.oid.to_owned())
        } else {
            return None;
        };
        Some((name, node))
    }

    /// The blob and the subtree this entry stands for (at most one of them).
    fn split(n: Option<Node>) -> (Option<ObjectId>, Option<ObjectId>) {
        match n {
            Some(Node::Blob(id)) => (Some(id), None),
            Some(Node::Tree(id)) => (None, Some(id)),
            None => (None, None),
        }
    }
}

/// The entries of a tree by name (see [`Node::of`] for what is left out).
pub(crate) fn entries(
    repo: &gix::Repository,
    tree: ObjectId,
) -> Result<BTreeMap<String, Node>, StoreError> {
    let tree = find(repo, tree)?;
    Ok(by_name(&listed(Some(&tree))?))
}

fn find(repo: &gix::Repository, tree: ObjectId) -> Result<gix::Tree<'_>, StoreError> {
    repo.find_tree(tree)
        .map_err(|e| git_err(format!("read tree {tree}"))(e))
}

/// Entries as a map by name.
fn by_name(entries: &[Listed<'_>]) -> BTreeMap<String, Node> {
    entries
        .iter()
        .map(|e| (e.name.to_owned(), e.node))
        .collect()
}

/// Lists the documents that differ between `old` and `new` (either may be absent),
/// prefixing their paths with `base`. The two trees are walked side by side in git's
/// order and subtrees with equal ids are skipped, so the cost follows the size of the
/// change, not of the store: no map of a directory's entries is built.
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
    let old = old.map(|t| find(repo, t)).transpose()?;
    let new = new.map(|t| find(repo, t)).transpose()?;
    let (a, b) = (listed(old.as_ref())?, listed(new.as_ref())?);
    let in_order = |v: &[Listed<'_>]| v.windows(2).all(|w| w[0].entry < w[1].entry);
    if in_order(&a) && in_order(&b) {
        side_by_side(repo, &a, &b, base, out)?;
    } else {
        // A tree git would call unsorted (written by something other than git or
        // the store): walking it side by side could pair the wrong entries, so it is
        // compared by name instead.
        let (a, b) = (by_name(&a), by_name(&b));
        let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for name in names {
            change(
                repo,
                base,
                name,
                a.get(name).copied(),
                b.get(name).copied(),
                out,
            )?;
        }
    }
    Ok(())
}

/// An entry of a tree as a diff sees it: its name, what it is, and the entry itself,
/// which orders as git orders a tree.
struct Listed<'t> {
    name: &'t str,
    node: Node,
    entry: EntryRef<'t>,
}

/// The entries of `tree` (none when absent) that are blobs or trees with UTF-8 names,
/// in the tree's own order.
fn listed<'t>(tree: Option<&'t gix::Tree<'_>>) -> Result<Vec<Listed<'t>>, StoreError> {
    let Some(t) = tree else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in gix::objs::TreeRefIter::from_bytes(&t.data, t.id.kind()) {
        // The message is only made for an error: this runs once per entry.
        let entry = entry.map_err(|e| git_err(format!("decode tree {}", t.id))(e))?;
        if let Some((name, node)) = Node::of(&entry) {
            out.push(Listed { name, node, entry });
        }
    }
    Ok(out)
}

/// Walks the entries of two trees side by side, both strictly in git's order,
/// reporting what differs.
fn side_by_side(
    repo: &gix::Repository,
    a: &[Listed<'_>],
    b: &[Listed<'_>],
    base: &str,
    out: &mut Vec<DocChange>,
) -> Result<(), StoreError> {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let (before, after) = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.entry.cmp(&y.entry) {
                Ordering::Less => (a.next(), None),
                Ordering::Greater => (None, b.next()),
                Ordering::Equal => (a.next(), b.next()),
            },
            _ => (a.next(), b.next()),
        };
        let Some(name) = before.or(after).map(|e| e.name) else {
            return Ok(());
        };
        let node = |e: Option<&Listed<'_>>| e.map(|e| e.node);
        change(repo, base, name, node(before), node(after), out)?;
    }
}

/// Reports entry `name` of directory `base`, `before` and `after`.
fn change(
    repo: &gix::Repository,
    base: &str,
    name: &str,
    before: Option<Node>,
    after: Option<Node>,
    out: &mut Vec<DocChange>,
) -> Result<(), StoreError> {
    // Snapshots are whole worktrees kept as subtrees, not documents: their records
    // live in the sessions, and walking them would cost a worktree's size.
    if before == after || (base.is_empty() && name == super::refs::SNAPSHOTS_DIR) {
        return Ok(());
    }
    let path = if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}/{name}")
    };
    let (old_blob, old_tree) = Node::split(before);
    let (new_blob, new_tree) = Node::split(after);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Writes a tree with `entries` in exactly the order given, which git would not.
    fn tree(store: &Store, entries: &[(&str, Node)]) -> ObjectId {
        let mut bytes = Vec::new();
        for (name, node) in entries {
            let (mode, oid) = match node {
                Node::Blob(id) => ("100644", id),
                Node::Tree(id) => ("40000", id),
            };
            bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            bytes.extend_from_slice(oid.as_bytes());
        }
        gix::objs::Write::write_buf(&store.repo.objects, gix::object::Kind::Tree, &bytes)
            .expect("tree")
    }

    fn changes(store: &Store, old: ObjectId, new: ObjectId) -> Vec<DocChange> {
        let mut out = Vec::new();
        diff(&store.repo, Some(old), Some(new), "", &mut out).expect("diff");
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    #[test]
    fn a_diff_walks_only_what_changed_and_reads_unsorted_trees_by_name() {
        let (_dir, store) = Store::temp_for_tests();
        let blob = |text: &str| Node::Blob(store.write_blob(text.as_bytes()).expect("blob"));
        let (one, two) = (blob("one"), blob("two"));
        let same = Node::Tree(tree(&store, &[("k.yaml", one)]));
        let snap_old = Node::Tree(tree(&store, &[("f", one)]));
        let snap_new = Node::Tree(tree(&store, &[("f", two)]));
        let old = tree(
            &store,
            &[
                ("a.yaml", one),
                ("d", Node::Tree(tree(&store, &[("x.yaml", one)]))),
                ("d.yaml", one),
                ("same", same),
                ("snapshots", snap_old),
                ("x", one),
            ],
        );
        let d_new = Node::Tree(tree(&store, &[("x.yaml", one), ("y.yaml", two)]));
        let x_new = Node::Tree(tree(&store, &[("z", one)]));
        // git's order: "d.yaml" before the tree "d" ('.' sorts before '/').
        let sorted = [
            ("a.yaml", two),
            ("d.yaml", two),
            ("d", d_new),
            ("same", same),
            ("snapshots", snap_new),
            ("x", x_new),
        ];
        let change = |path: &str, old: Option<Node>, new: Option<Node>| DocChange {
            path: path.to_owned(),
            old: Node::split(old).0,
            new: Node::split(new).0,
        };
        let expected = vec![
            change("a.yaml", Some(one), Some(two)),
            change("d.yaml", Some(one), Some(two)),
            change("d/y.yaml", None, Some(two)),
            change("x", Some(one), None),
            change("x/z", None, Some(one)),
        ];
        let new = tree(&store, &sorted);
        assert_eq!(changes(&store, old, new), expected);
        let mut unsorted = sorted;
        unsorted.reverse();
        let new = tree(&store, &unsorted);
        assert_eq!(changes(&store, old, new), expected);
    }
}
