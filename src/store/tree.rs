//! Reading trees and diffing two of them, skipping every subtree both share.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

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

/// Trees of at least this many bytes are kept once read (see [`KEPT_TREES`]).
const KEEP_FROM: usize = 4096;

/// How many large trees a process keeps.
const KEPT: usize = 4;

/// The large trees this process read last, the most recent last. A tree is named by
/// its content, so a tree kept is never stale. A long-lived process (the MCP server)
/// diffs the tree it was at on the call before against the current one: the store's
/// folder of 1 296 fan-out folders (38 KB) is read and inflated once per write, not
/// twice.
static KEPT_TREES: Mutex<Vec<(ObjectId, Arc<[u8]>)>> = Mutex::new(Vec::new());

/// The tree `tree`: kept from an earlier read when it is large, else read.
fn find(repo: &gix::Repository, tree: ObjectId) -> Result<gix::Tree<'_>, StoreError> {
    let kept = || KEPT_TREES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, data)) = kept().iter().find(|(id, _)| *id == tree) {
        return Ok(gix::Tree::from_data(tree, data.to_vec(), repo));
    }
    let found = repo
        .find_tree(tree)
        .map_err(|e| git_err(format!("read tree {tree}"))(e))?;
    if found.data.len() >= KEEP_FROM {
        let mut kept = kept();
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((tree, Arc::from(&found.data[..])));
    }
    Ok(found)
}

/// Entries as a map by name.
fn by_name(entries: &[(&str, Node)]) -> BTreeMap<String, Node> {
    entries
        .iter()
        .map(|(name, node)| ((*name).to_owned(), *node))
        .collect()
}

/// Lists the documents that differ between `old` and `new` (either may be absent),
/// prefixing their paths with `base`. The two trees are walked side by side in git's
/// order, in place, from the first entry in which their bytes differ to the last, and
/// subtrees with equal ids are skipped, so the cost follows the size of the change,
/// not of the store.
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
    let start = out.len();
    if !side_by_side(repo, old.as_ref(), new.as_ref(), base, out)? {
        // A tree git would call unsorted (written by something other than git or
        // the store): walking it side by side could pair the wrong entries, so it is
        // compared by name instead.
        out.truncate(start);
        let (a, b) = (
            by_name(&listed(old.as_ref())?),
            by_name(&listed(new.as_ref())?),
        );
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

/// The entries of `tree` (none when absent) that are blobs or trees with UTF-8 names,
/// in the tree's own order.
fn listed<'t>(tree: Option<&'t gix::Tree<'_>>) -> Result<Vec<(&'t str, Node)>, StoreError> {
    let Some(t) = tree else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in gix::objs::TreeRefIter::from_bytes(&t.data, t.id.kind()) {
        // The message is only made for an error: this runs once per entry.
        let entry = entry.map_err(|e| git_err(format!("decode tree {}", t.id))(e))?;
        out.extend(Node::of(&entry));
    }
    Ok(out)
}

/// Reads a tree's raw entries one at a time from a place in it, noting whether each
/// follows the one before in git's order.
struct Cursor<'t> {
    /// The tree, for what an error names.
    id: ObjectId,
    /// Its bytes (none for an absent tree).
    data: &'t [u8],
    /// Where the next entry starts.
    at: usize,
    /// The entry read last.
    last: Option<EntryRef<'t>>,
    /// Whether every entry read so far followed the one before.
    sorted: bool,
}

impl<'t> Cursor<'t> {
    fn new(tree: Option<&'t gix::Tree<'_>>) -> Cursor<'t> {
        Cursor {
            id: tree.map_or_else(|| ObjectId::null(gix::hash::Kind::Sha1), |t| t.id),
            data: tree.map_or(&[], |t| &t.data[..]),
            at: 0,
            last: None,
            sorted: true,
        }
    }

    /// The next entry, with how many bytes of the tree are left from its start.
    fn next(&mut self) -> Result<Option<(usize, EntryRef<'t>)>, StoreError> {
        let rest = self.data.get(self.at..).unwrap_or_default();
        let Some(entry) = gix::objs::TreeRefIter::from_bytes(rest, self.id.kind()).next() else {
            return Ok(None);
        };
        let entry = entry.map_err(|e| git_err(format!("decode tree {}", self.id))(e))?;
        // The entry's name is a slice of `rest`: its id follows the name's NUL.
        let name_at = entry.filename.as_ptr() as usize - rest.as_ptr() as usize;
        self.at += name_at + entry.filename.len() + 1 + self.id.kind().len_in_bytes();
        if self.last.is_some_and(|last| last >= entry) {
            self.sorted = false;
        }
        self.last = Some(entry);
        Ok(Some((rest.len(), entry)))
    }

    /// Moves past the entries that lie wholly in the first `shared` bytes.
    fn skip(&mut self, shared: usize) -> Result<(), StoreError> {
        loop {
            let (at, last) = (self.at, self.last);
            match self.next()? {
                Some(_) if self.at <= shared => {}
                _ => {
                    (self.at, self.last) = (at, last);
                    return Ok(());
                }
            }
        }
    }
}

/// How many bytes `a` and `b` begin with alike.
fn shared_prefix(a: &[u8], b: &[u8]) -> usize {
    const STEP: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + STEP <= n && a[i..i + STEP] == b[i..i + STEP] {
        i += STEP;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// How many bytes `a` and `b` end with alike.
fn shared_suffix(a: &[u8], b: &[u8]) -> usize {
    const STEP: usize = 64;
    let (la, lb) = (a.len(), b.len());
    let n = la.min(lb);
    let mut i = 0;
    while i + STEP <= n && a[la - i - STEP..la - i] == b[lb - i - STEP..lb - i] {
        i += STEP;
    }
    while i < n && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

/// Walks the entries of two trees side by side, reporting what differs: only from
/// the entry in which their bytes first differ, and only until both stand as far from
/// their ends inside the bytes they end with alike (a directory of 1 296 folders in
/// which one changed costs two comparisons of its bytes and a parse up to the change).
/// `false` when either tree is not strictly in git's order.
fn side_by_side(
    repo: &gix::Repository,
    old: Option<&gix::Tree<'_>>,
    new: Option<&gix::Tree<'_>>,
    base: &str,
    out: &mut Vec<DocChange>,
) -> Result<bool, StoreError> {
    let (mut a, mut b) = (Cursor::new(old), Cursor::new(new));
    let shared = shared_prefix(a.data, b.data);
    let tail = shared_suffix(a.data, b.data);
    a.skip(shared)?;
    // The same bytes hold the same entries.
    (b.at, b.last) = (a.at, a.last);
    let (mut x, mut y) = (a.next()?, b.next()?);
    loop {
        if !a.sorted || !b.sorted {
            return Ok(false);
        }
        let (before, after) = match (x, y) {
            (None, None) => return Ok(true),
            (Some((left, _)), Some((right, _))) if left == right && left <= tail => {
                return Ok(true);
            }
            (Some((_, e)), Some((_, f))) => match e.cmp(&f) {
                Ordering::Less => {
                    x = a.next()?;
                    (Some(e), None)
                }
                Ordering::Greater => {
                    y = b.next()?;
                    (None, Some(f))
                }
                Ordering::Equal => {
                    (x, y) = (a.next()?, b.next()?);
                    (Some(e), Some(f))
                }
            },
            (Some((_, e)), None) => {
                x = a.next()?;
                (Some(e), None)
            }
            (None, Some((_, f))) => {
                y = b.next()?;
                (None, Some(f))
            }
        };
        let (before, after) = (
            before.as_ref().and_then(Node::of),
            after.as_ref().and_then(Node::of),
        );
        if let Some((name, _)) = before.or(after) {
            let node = |n: Option<(&str, Node)>| n.map(|(_, node)| node);
            change(repo, base, name, node(before), node(after), out)?;
        }
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

    /// A large tree read again (from memory, unless other tests read enough large trees
    /// meanwhile) is the tree of that id: another of the same size, one entry apart, is
    /// never taken for it.
    #[test]
    fn a_large_tree_read_again_is_kept_and_is_that_tree() {
        let (_dir, store) = Store::temp_for_tests();
        let (one, two) = (
            Node::Blob(store.write_blob(b"one").expect("blob")),
            Node::Blob(store.write_blob(b"two").expect("blob")),
        );
        let names: Vec<String> = (0..300).map(|i| format!("{i:03}.yaml")).collect();
        let with = |changed: Node| -> ObjectId {
            let entries: Vec<(&str, Node)> = names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), if i == 150 { changed } else { one }))
                .collect();
            tree(&store, &entries)
        };
        let (a, b) = (with(one), with(two));
        let first = entries(&store.repo, a).expect("read");
        assert!(store.repo.find_tree(a).expect("tree").data.len() >= KEEP_FROM);
        assert_eq!(entries(&store.repo, a).expect("kept"), first);
        let other = entries(&store.repo, b).expect("read");
        assert_eq!(other["150.yaml"], two);
        assert_eq!(first["150.yaml"], one);
        let change = DocChange {
            path: "150.yaml".into(),
            old: Node::split(Some(one)).0,
            new: Node::split(Some(two)).0,
        };
        assert_eq!(changes(&store, a, b), [change]);
    }

    #[test]
    fn a_diff_of_a_large_directory_finds_each_change_between_the_bytes_both_share() {
        let (_dir, store) = Store::temp_for_tests();
        let blob = |text: &str| Node::Blob(store.write_blob(text.as_bytes()).expect("blob"));
        let (one, two) = (blob("one"), blob("two"));
        let names: Vec<String> = (0..400).map(|i| format!("{i:03}")).collect();
        let all = |f: &dyn Fn(usize) -> Option<Node>| -> ObjectId {
            let entries: Vec<(&str, Node)> = names
                .iter()
                .enumerate()
                .filter_map(|(i, n)| f(i).map(|node| (n.as_str(), node)))
                .collect();
            tree(&store, &entries)
        };
        let old = all(&|i| (i != 200).then_some(one));
        let change = |path: &str, old: Option<Node>, new: Option<Node>| DocChange {
            path: path.to_owned(),
            old: Node::split(old).0,
            new: Node::split(new).0,
        };
        // One changed, one added, one removed; and the first and the last changed.
        let new = all(&|i| match i {
            7 => Some(two),
            200 => Some(one),
            300 => None,
            _ => Some(one),
        });
        assert_eq!(
            changes(&store, old, new),
            [
                change("007", Some(one), Some(two)),
                change("200", None, Some(one)),
                change("300", Some(one), None),
            ]
        );
        let new = all(&|i| match i {
            0 | 399 => Some(two),
            200 => None,
            _ => Some(one),
        });
        assert_eq!(
            changes(&store, old, new),
            [
                change("000", Some(one), Some(two)),
                change("399", Some(one), Some(two)),
            ]
        );
        assert!(changes(&store, old, old).is_empty());
    }
}
