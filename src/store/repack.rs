//! Housekeeping without a daemon: the packs the store writes are merged geometrically,
//! inside the writes and syncs that already run, into packs in which each tree and
//! document is stored as a delta against another version of it.
//!
//! Every write adds a pack of its own (the objects of one flush of queued writes, see
//! the `group` module), and every write rewrites the store's directory of 1 296
//! fan-out folders (38 KB at 10 000 beads). Left alone, that is 38 KB of `.git` per
//! write and one more pack for every lookup to try. So after each write the packs are
//! weighed by how many objects they hold, as `git repack --geometric=2` weighs them:
//! whenever the smallest ones no longer form a progression in which each holds at
//! least twice what all smaller ones hold together, those are merged into one. Packs
//! then stay logarithmic in number, and an object is rewritten a logarithmic number of
//! times over its life.
//!
//! A merge stores each version of a path as a delta against the next newer version of
//! the same path in the merged pack (git never resolves a delta against an object in
//! another pack): the newest version of each path is whole, so reading the current
//! state costs no delta, and a chain is cut every [`MAX_DEPTH`] versions. The versions
//! of a path are found by walking the commits among the merged objects, newest first,
//! and diffing each with its parent: the work follows the size of the merge.
//!
//! What a merge writes is complete before anything goes: the new pack and its index
//! are written to temporary files and renamed into place, index last, before the packs
//! it replaces are deleted; every object of those is in it, so nothing a ref or a
//! reflog needs can go. A process killed at any point leaves either the old packs, or
//! the old and the new (holding the same objects twice, until the next merge), or a
//! pack (or its `.rev`) without an index or a temporary file that the next merge
//! removes once it is older than [`STALE`].
//!
//! Deleting packs while another process reads is what `git repack -d` does too: git
//! and gix look an object up again when a pack they listed is gone, but a `git fsck`
//! that listed a pack whose index then goes reports "index not opened", beside a
//! merge here as beside `git repack -d`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::objs::Kind;

use super::pack::{
    Deflater, QUICK, SMALL_PACK, TMP_IDX, TMP_PACK, checksum, code_header, entry_header,
    pack_header,
};
use super::{Store, StoreError, WriteLock, delta, git_err, io_err, tree};

/// How long a pack may go without an index, or a temporary file of a pack being
/// written may stay, before it is taken for what a killed writer left: a writer puts
/// its pack in place a moment before the pack's index, and the packs a merge replaces
/// go at once, so only a writer killed in that moment leaves one.
const STALE: std::time::Duration = std::time::Duration::from_secs(60);

/// The files of a pack a merge deletes after its index, in this order: a writer
/// killed on the way leaves some of them without an index, which git counts as
/// garbage (`git count-objects -v`) until the next merge removes them.
const LEFT_BESIDE: [&str; 4] = ["pack", "rev", "bitmap", "mtimes"];

/// How many loose refs under `refs/beads/` make housekeeping pack the refs.
const LOOSE_REFS: usize = 64;

/// Whether `dir` holds at least `count` files, in it or below it (the walk stops there).
fn holds_at_least(dir: &Path, count: usize) -> bool {
    (walkdir::WalkDir::new(dir).into_iter().flatten())
        .filter(|entry| !entry.file_type().is_dir())
        .nth(count.saturating_sub(1))
        .is_some()
}

/// How much heavier (in objects) each pack must be than all lighter ones together.
const FACTOR: u64 = 2;

/// The most bytes of packs one merge reads: bounds the work a command does. Larger
/// packs are left as they are (`git gc` merges them, should it ever run).
const BUDGET: u64 = 32 << 20;

/// The longest chain of deltas a merge writes (git's `pack.depth`): reading a version
/// applies at most this many.
const MAX_DEPTH: usize = 50;

/// The file, in the store's local directory, naming the packs the store wrote, one
/// a line: those it may merge whatever their size (see [`Store::own_packs`]).
const OWN_PACKS: &str = "packs";

/// The type code of a delta against an earlier entry of the same pack.
const OFS_DELTA: u8 = 6;

/// A pack that may be merged: its weight (how many objects it holds), the size of
/// its `.pack` file, and the path of its index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pack {
    objects: u64,
    bytes: u64,
    idx: PathBuf,
}

/// What a look at the pack directory found.
struct Scan {
    /// The packs that may be merged, lightest first: the store's own (up to
    /// [`BUDGET`]) and small ones of others (a fetch's). Packs git was told to keep
    /// (`.keep`, `.promisor`) are left out.
    packs: Vec<Pack>,
    /// Packs (and their `.rev`, `.bitmap`, `.mtimes`) without an index, and temporary
    /// files of packs being written, older than [`STALE`].
    expired: Vec<PathBuf>,
}

/// How many objects the index at `idx` lists, from its size (a version 2 index is a
/// header, a fan-out table, 28 bytes per object and two checksums; an object at an
/// offset past 2 GiB adds 8 bytes, which a pack this module merges never has).
fn objects_in(idx_bytes: u64) -> u64 {
    idx_bytes.saturating_sub(8 + 1024 + 40) / 28
}

fn scan(dir: &Path, own: &HashSet<String>) -> Scan {
    let mut found = Scan {
        packs: Vec::new(),
        expired: Vec::new(),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    let kept = |p: &Path| {
        ["keep", "promisor"]
            .iter()
            .any(|x| p.with_extension(x).exists())
    };
    for path in entries.flatten().map(|e| e.path()) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ext = path.extension().map(|x| x.to_string_lossy().into_owned());
        // Only `pack-<hash>.*` are packs: git's repack writes `.tmp-<pid>-pack-*`
        // beside them and renames those into place, which merging them would break.
        let pack_file = name.starts_with("pack-");
        if pack_file && ext.as_deref() == Some("idx") && !kept(&path) {
            let stem = name.trim_end_matches(".idx");
            if let (Ok(pack), Ok(idx)) = (
                std::fs::metadata(path.with_extension("pack")),
                std::fs::metadata(&path),
            ) && (pack.len() < SMALL_PACK || (own.contains(stem) && pack.len() <= BUDGET))
            {
                found.packs.push(Pack {
                    objects: objects_in(idx.len()),
                    bytes: pack.len(),
                    idx: path,
                });
            }
        } else if left_behind(&path) {
            found.expired.push(path);
        }
    }
    found.packs.sort();
    found
}

/// Whether the file at `path` is one a killed writer left (see [`Scan::expired`]):
/// asked again just before it goes, since a writer that puts the same pack in place
/// again (its name is the checksum of its bytes) makes the file new and adds its
/// index.
fn left_behind(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path.extension().map(|x| x.to_string_lossy().into_owned());
    let age = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map(|t| t.elapsed().unwrap_or_default())
        .unwrap_or_default();
    (name.starts_with("pack-")
        && ext.as_deref().is_some_and(|x| LEFT_BESIDE.contains(&x))
        && !path.with_extension("idx").exists()
        || name.starts_with(TMP_PACK)
        || name.starts_with(TMP_IDX))
        && age > STALE
}

/// Of packs sorted by weight, how many of the lightest to merge so that the rest and
/// the merged one form a geometric progression (each at least [`FACTOR`] times all
/// lighter ones together), as `git repack --geometric` chooses them.
fn to_merge(weights: &[u64]) -> usize {
    let n = weights.len();
    let mut i = n.saturating_sub(1);
    while i > 0 && weights[i] >= FACTOR * weights[i - 1] {
        i -= 1;
    }
    let mut split = if i > 0 { i + 1 } else { 0 };
    let mut total: u64 = weights[..split].iter().sum();
    while split < n && weights[split] < FACTOR * total {
        total += weights[split];
        split += 1;
    }
    split
}

/// The packs to merge: the geometric choice (see [`to_merge`]), lightest first, as
/// many as fit in [`BUDGET`] bytes; none unless at least two.
///
/// A choice the budget cuts short is made again among the packs that fit, so that
/// what it merges leaves a progression of its own. Merged as cut, the lighter of two
/// heavy packs that do not fit together took in each write's new pack, and every
/// write rewrote it: 18 MB and 5 s a write after 30 000 writes.
fn choose(packs: &[Pack]) -> &[Pack] {
    let weights: Vec<u64> = packs.iter().map(|p| p.objects.max(1)).collect();
    let mut take = to_merge(&weights);
    loop {
        let mut bytes = 0;
        let fit = (packs[..take].iter())
            .take_while(|p| {
                bytes += p.bytes;
                bytes <= BUDGET
            })
            .count();
        if fit == take {
            break;
        }
        take = to_merge(&weights[..fit]);
    }
    if take < 2 { &[] } else { &packs[..take] }
}

/// Appends the distance back to a delta's base, as git encodes it after an
/// `OFS_DELTA` entry's header.
fn base_distance(mut n: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 10];
    let mut at = buf.len() - 1;
    buf[at] = (n & 0x7f) as u8;
    n >>= 7;
    while n != 0 {
        n -= 1;
        at -= 1;
        buf[at] = 0x80 | (n & 0x7f) as u8;
        n >>= 7;
    }
    out.extend_from_slice(&buf[at..]);
}

/// The order in which a merge writes its objects, each with the place in that order
/// of the version it is a delta against.
#[derive(Default)]
struct Plan {
    order: Vec<(ObjectId, Option<usize>)>,
    /// Where each object is in `order`, and how deep in a chain of deltas.
    placed: HashMap<ObjectId, (usize, usize)>,
}

impl Plan {
    /// Places `id` next, against `base` when it is placed and not too deep.
    fn place(&mut self, id: ObjectId, base: Option<ObjectId>) {
        if self.placed.contains_key(&id) {
            return;
        }
        let base = base
            .and_then(|b| self.placed.get(&b).copied())
            .filter(|(_, depth)| depth + 1 < MAX_DEPTH);
        let at = self.order.len();
        self.order.push((id, base.map(|(b, _)| b)));
        self.placed
            .insert(id, (at, base.map_or(0, |(_, depth)| depth + 1)));
    }
}

impl Store {
    /// The packs this store wrote (their names, `pack-<hash>`), as far as the file
    /// naming them says: a name lost (two processes noting one at once) only makes its
    /// pack count as another program's.
    pub(super) fn own_packs(&self) -> HashSet<String> {
        std::fs::read_to_string(self.local_dir().join(OWN_PACKS))
            .map(|text| text.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// Notes pack `pack-<name>` as the store's own (see [`Store::own_packs`]); failing
    /// to only leaves it to be merged like another program's.
    pub(super) fn note_own_pack(&self, name: &str) {
        let dir = self.local_dir();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(OWN_PACKS))
            .and_then(|mut f| f.write_all(format!("pack-{name}\n").as_bytes()));
    }

    /// Rewrites the list of the store's own packs without those that are gone.
    fn forget_gone_packs(&self, dir: &Path) {
        let mut own: Vec<String> = self.own_packs().into_iter().collect();
        own.retain(|name| dir.join(format!("{name}.idx")).exists());
        own.sort();
        let text: String = own.iter().map(|n| format!("{n}\n")).collect();
        let _ = super::replace_file(&self.local_dir().join(OWN_PACKS), text.as_bytes(), false);
    }

    /// Merges packs when they no longer form a geometric progression (see the module's
    /// documentation), and removes what killed writers left; skipped while another
    /// process is at it.
    ///
    /// The merged pack and its index are on disk before the packs it replaces go, and
    /// they go at once, index first, as `git repack -d` deletes what it replaced: a
    /// reader that has a replaced pack open keeps reading it (the file lives on while
    /// it is open), and one that loaded only its index finds the pack gone and looks
    /// the object up again, in the merged pack. Nothing is left for git's own tools to
    /// count as garbage or warn about.
    pub(crate) fn housekeep(&self) -> Result<(), StoreError> {
        self.pack_loose_refs();
        let dir = self.common_dir().join("objects").join("pack");
        let found = scan(&dir, &self.own_packs());
        if choose(&found.packs).is_empty() && found.expired.is_empty() {
            return Ok(());
        }
        let lock_path = self.local_dir().join("repack.lock");
        let Some(_lock) = WriteLock::try_acquire(&lock_path)
            .map_err(io_err(format!("lock {}", lock_path.display())))?
        else {
            return Ok(());
        };
        let found = scan(&dir, &self.own_packs());
        for path in found.expired.iter().filter(|p| left_behind(p)) {
            let _ = std::fs::remove_file(path);
        }
        let chosen = choose(&found.packs);
        if chosen.is_empty() {
            return Ok(());
        }
        let merged = self.merge_packs(chosen)?;
        for pack in chosen {
            if pack.idx.with_extension("pack") == merged {
                continue;
            }
            let _ = std::fs::remove_file(&pack.idx);
            for ext in LEFT_BESIDE {
                let _ = std::fs::remove_file(pack.idx.with_extension(ext));
            }
        }
        self.forget_gone_packs(&dir);
        Ok(())
    }

    /// Moves the loose refs into `packed-refs` (`git pack-refs --all`, as `git gc`
    /// does) once [`LOOSE_REFS`] or more sit under `refs/beads/`: a fetch writes each
    /// claim it tracks as a file of its own, and with a thousand of them every later
    /// fetch and lookup opened a thousand files (an idle sync took 5 times as long as
    /// with none). Packing is tidying: when it fails (another process packs, a stale
    /// lock), the refs stay loose and as good.
    fn pack_loose_refs(&self) {
        let beads = self.common_dir().join("refs").join("beads");
        if holds_at_least(&beads, LOOSE_REFS) {
            let _ = (self.git().command())
                .args(["pack-refs", "--all"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }

    /// Writes every object of `packs` into one pack, each tree and document stored as a
    /// delta against another version of its path where one is among them; returns the
    /// new pack's path.
    fn merge_packs(&self, packs: &[Pack]) -> Result<PathBuf, StoreError> {
        let hash = self.repo.object_hash();
        let mut ids = Vec::new();
        for pack in packs {
            let index = gix::odb::pack::index::File::at(&pack.idx, hash).map_err(|e| {
                git_err(format!("read {}", pack.idx.display()))(gix::Error::from_error(e))
            })?;
            ids.extend(index.iter().map(|entry| entry.oid));
        }
        ids.sort();
        ids.dedup();
        let plan = self.plan(&ids)?;
        // How many later objects are deltas of each: its content is kept until then.
        let mut dependents = vec![0usize; plan.order.len()];
        for (_, base) in &plan.order {
            if let Some(b) = base {
                dependents[*b] += 1;
            }
        }
        let mut held: HashMap<usize, Vec<u8>> = HashMap::new();
        let mut pack = Vec::new();
        pack_header(plan.order.len(), &mut pack).map_err(io_err("assemble a merged pack"))?;
        let mut offsets = Vec::with_capacity(plan.order.len());
        let mut listed = Vec::with_capacity(plan.order.len());
        let mut z = Deflater::new(QUICK);
        for (at, (id, base)) in plan.order.iter().enumerate() {
            let object = self
                .repo
                .find_object(*id)
                .map_err(git_err(format!("read object {id}")))?;
            let start = pack.len();
            offsets.push(start as u64);
            let delta = base
                .and_then(|b| {
                    held.get(&b)
                        .map(|data| (b, delta::encode(data, &object.data)))
                })
                .filter(|(_, d)| d.len() < object.data.len() / 2);
            match &delta {
                Some((b, d)) => {
                    code_header(OFS_DELTA, d.len(), &mut pack);
                    base_distance(start as u64 - offsets[*b], &mut pack);
                    z.zlib(d, &mut pack)
                }
                None => {
                    entry_header(object.kind, object.data.len(), &mut pack);
                    z.zlib(&object.data, &mut pack)
                }
            }
            .map_err(io_err("compress an object for a merged pack"))?;
            listed.push((*id, crc32fast::hash(&pack[start..])));
            if let Some(b) = base {
                dependents[*b] -= 1;
                if dependents[*b] == 0 {
                    held.remove(b);
                }
            }
            if dependents[at] > 0 {
                held.insert(at, object.detach().data);
            }
        }
        let sum = checksum(&pack, hash).map_err(io_err("checksum a merged pack"))?;
        pack.extend_from_slice(sum.as_bytes());
        self.install_pack(&pack, &listed, &offsets, self.fsync_policy().objects)
    }

    /// The order in which to write `ids`, each version of a path before the older one
    /// stored as a delta of it: the commits among them newest first (a child before its
    /// parent), each followed by the trees and documents it changed (see
    /// [`Plan::place`]); then what no commit among them changed (another ref's objects,
    /// snapshots), commits first, then trees, then blobs, as git orders a pack.
    fn plan(&self, ids: &[ObjectId]) -> Result<Plan, StoreError> {
        let wanted: HashSet<ObjectId> = ids.iter().copied().collect();
        let mut kinds = Vec::with_capacity(ids.len());
        let mut commits: HashMap<ObjectId, (ObjectId, Option<ObjectId>)> = HashMap::new();
        for id in ids {
            let kind = self
                .repo
                .find_header(*id)
                .map_err(git_err(format!("read object {id}")))?
                .kind();
            if kind == Kind::Commit {
                let commit = self
                    .repo
                    .find_commit(*id)
                    .map_err(git_err(format!("read commit {id}")))?;
                let tree = commit
                    .tree_id()
                    .map_err(git_err(format!("read commit {id}")))?
                    .detach();
                let parent = commit.parent_ids().next().map(|p| p.detach());
                commits.insert(*id, (tree, parent));
            }
            kinds.push((super::pack::type_code(kind), *id));
        }
        // Children before parents: start from the commits no other one here follows.
        let mut children: HashMap<ObjectId, usize> = HashMap::new();
        for (_, parent) in commits.values() {
            if let Some(p) = parent.filter(|p| commits.contains_key(p)) {
                *children.entry(p).or_default() += 1;
            }
        }
        let mut ready: Vec<ObjectId> = commits
            .keys()
            .filter(|c| !children.contains_key(*c))
            .copied()
            .collect();
        ready.sort();
        let mut plan = Plan::default();
        while let Some(commit) = ready.pop() {
            let (tree, parent) = commits[&commit];
            plan.place(commit, None);
            let parent_tree = match parent {
                Some(p) => match commits.get(&p) {
                    Some((t, _)) => Some(*t),
                    None => self
                        .repo
                        .find_commit(p)
                        .ok()
                        .and_then(|c| c.tree_id().ok().map(|t| t.detach())),
                },
                None => None,
            };
            for (new, old) in self.versions(parent_tree, tree)? {
                if let Some(new) = new.filter(|n| wanted.contains(n)) {
                    plan.place(new, None);
                }
                if let Some(old) = old.filter(|o| wanted.contains(o)) {
                    plan.place(old, new);
                }
            }
            if let Some(p) = parent.filter(|p| commits.contains_key(p)) {
                let left = children.entry(p).or_default();
                *left -= 1;
                if *left == 0 {
                    ready.push(p);
                }
            }
        }
        kinds.sort();
        for (_, id) in kinds {
            plan.place(id, None);
        }
        Ok(plan)
    }

    /// The trees and documents that differ between `old` and `new` (the trees of a
    /// commit's parent and of the commit), as (new version, old version) pairs, outer
    /// trees first.
    #[allow(clippy::type_complexity)]
    fn versions(
        &self,
        old: Option<ObjectId>,
        new: ObjectId,
    ) -> Result<Vec<(Option<ObjectId>, Option<ObjectId>)>, StoreError> {
        let mut docs = Vec::new();
        tree::diff(&self.repo, old, Some(new), "", &mut docs)?;
        let mut dirs = BTreeSet::new();
        for doc in &docs {
            let mut path = doc.path.as_str();
            while let Some((dir, _)) = path.rsplit_once('/') {
                dirs.insert(dir.to_owned());
                path = dir;
            }
        }
        let mut pairs = vec![(Some(new), old)];
        // Outer folders first: `BTreeSet` puts `beads` before `beads/ab`.
        for dir in dirs {
            let before = old.map(|t| self.subtree(t, &dir)).transpose()?.flatten();
            pairs.push((self.subtree(new, &dir)?, before));
        }
        pairs.extend(docs.into_iter().map(|d| (d.new, d.old)));
        Ok(pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::{Pack, base_distance, choose, to_merge};
    use crate::model::{Bead, BeadId, Timestamp};
    use crate::store::Store;

    /// What `git verify-pack -v` says of each object of the repository's packs: its
    /// id, and whether it is stored as a delta.
    fn stored(dir: &std::path::Path) -> Vec<(String, bool)> {
        let packs = dir.join(".git/objects/pack");
        let mut out = Vec::new();
        for idx in std::fs::read_dir(&packs).expect("a pack dir").flatten() {
            let path = idx.path();
            if path.extension().is_none_or(|x| x != "idx") {
                continue;
            }
            let said = std::process::Command::new("git")
                .args(["verify-pack", "-v"])
                .arg(&path)
                .current_dir(dir)
                .output()
                .expect("git verify-pack runs");
            assert!(said.status.success(), "{said:?}");
            for line in String::from_utf8_lossy(&said.stdout).lines() {
                let words: Vec<&str> = line.split_whitespace().collect();
                if words.len() >= 5 && words[0].len() == 40 {
                    out.push((words[0].to_owned(), words.len() == 7));
                }
            }
        }
        out
    }

    /// Once enough loose refs sit under `refs/beads/` (as a fetch of many claims leaves
    /// them), a housekeeping pass moves every ref into `packed-refs`: each still reads
    /// as it did, and none is left as a file; below the count, none is packed.
    #[test]
    fn many_loose_beads_refs_are_packed_and_read_the_same() {
        let (dir, store) = Store::temp_for_tests();
        store.commit_for_tests(|tx| {
            let bead = Bead::new(
                BeadId::parse("bd-a1").expect("id"),
                "t".into(),
                "t",
                Timestamp::default(),
            );
            tx.put_bead(&bead).expect("put");
        });
        let git = |args: &[&str]| crate::store::git_for_tests(dir.path(), args);
        let head = git(&["rev-parse", "refs/beads/main"]);
        let claim = |n: usize| format!("refs/beads/remotes/origin/claims/bd-c{n}");
        let loose = dir.path().join(".git/refs/beads/remotes/origin/claims");
        let files = || std::fs::read_dir(&loose).map_or(0, |d| d.count());
        for n in 0..super::LOOSE_REFS - 2 {
            git(&["update-ref", &claim(n), head.trim()]);
        }
        store.housekeep().expect("housekeeps");
        assert_eq!(
            files(),
            super::LOOSE_REFS - 2,
            "below the count: left loose"
        );
        for n in super::LOOSE_REFS - 2..super::LOOSE_REFS * 2 {
            git(&["update-ref", &claim(n), head.trim()]);
        }
        store.housekeep().expect("housekeeps");
        assert_eq!(files(), 0, "every claim's ref is packed");
        assert!(!dir.path().join(".git/refs/beads/main").exists());
        let packed = std::fs::read_to_string(dir.path().join(".git/packed-refs")).expect("packed");
        for n in 0..super::LOOSE_REFS * 2 {
            assert!(packed.contains(&claim(n)), "{n}");
        }
        assert_eq!(git(&["rev-parse", "refs/beads/main"]), head);
        assert_eq!(
            store.require_head().expect("a head").commit.to_string(),
            head.trim()
        );
    }

    /// Writes retitling beads one at a time in a store whose folder of fan-out folders
    /// is large: housekeeping leaves few packs, in which most trees are deltas, and
    /// git reads every object.
    #[test]
    fn versions_of_a_path_are_merged_as_deltas_that_git_reads() {
        let (dir, store) = Store::temp_for_tests();
        let c = |n: usize| char::from_digit((n % 36) as u32, 36).expect("a digit");
        let id = |n: usize| BeadId::parse(&format!("bd-{}{}q{n}", c(n), c(n / 36))).expect("id");
        let bead =
            |n: usize, title: &str| Bead::new(id(n), title.into(), "t", Timestamp::default());
        store.commit_for_tests(|tx| {
            for n in 0..300 {
                tx.put_bead(&bead(n, "first")).expect("put");
            }
        });
        for w in 0..60 {
            store.commit_for_tests(|tx| {
                tx.put_bead(&bead(w * 7 % 300, &format!("write {w}")))
                    .expect("put");
            });
        }
        let objects = stored(dir.path());
        // The folder of fan-out folders (300 entries), one version a write.
        let mut ask = std::process::Command::new("git")
            .args(["cat-file", "--batch-check=%(objectname)"])
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git cat-file runs");
        let commits = std::process::Command::new("git")
            .args(["rev-list", "refs/beads/main"])
            .current_dir(dir.path())
            .output()
            .expect("git rev-list runs");
        let names: String = String::from_utf8_lossy(&commits.stdout)
            .lines()
            .map(|c| format!("{c}:beads\n"))
            .collect();
        std::io::Write::write_all(&mut ask.stdin.take().expect("stdin"), names.as_bytes())
            .expect("ask git");
        let folders = ask.wait_with_output().expect("git cat-file answers");
        let folders: std::collections::HashSet<String> = String::from_utf8_lossy(&folders.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        let trees: Vec<bool> = objects
            .iter()
            .filter(|(id, _)| folders.contains(id))
            .map(|(_, delta)| *delta)
            .collect();
        assert_eq!(trees.len(), folders.len(), "each version once");
        assert!(trees.len() > 60, "{} versions of the folder", trees.len());
        let deltas = trees.iter().filter(|d| **d).count();
        assert!(
            deltas * 2 > trees.len(),
            "{deltas} of {} trees are deltas",
            trees.len()
        );
        let fsck = std::process::Command::new("git")
            .args(["fsck", "--full", "--no-dangling"])
            .current_dir(dir.path())
            .output()
            .expect("git fsck runs");
        // (It notes that the repository has no branch yet, which is no fault.)
        let said = String::from_utf8_lossy(&fsck.stderr);
        assert!(
            fsck.status.success() && said.lines().all(|l| l.starts_with("notice:")),
            "{fsck:?}"
        );
        let fresh = Store::discover(dir.path()).expect("opens");
        let head = fresh.head().expect("reads").expect("a head");
        let last = fresh
            .read_bead(head.tree, &id(59 * 7 % 300))
            .expect("reads");
        assert_eq!(last.expect("a bead").title, "write 59");
    }

    /// What a killed merge left without an index goes once stale; git's own temporary
    /// packs (`git repack` renames them into place) are never taken for packs.
    #[test]
    fn leftovers_go_once_stale_and_temporary_packs_of_git_stay() {
        let dir = crate::store::temp_dir_for_tests();
        let old = std::time::SystemTime::now() - 2 * super::STALE;
        let file = |name: &str, at: Option<std::time::SystemTime>| {
            let f = std::fs::File::create(dir.path().join(name)).expect("create");
            if let Some(at) = at {
                f.set_modified(at).expect("set the time");
            }
        };
        for name in ["pack-a.rev", "pack-a.pack", "pack-b.mtimes"] {
            file(name, Some(old));
        }
        file("pack-c.rev", None);
        file(".tmp-7-pack-d.idx", Some(old));
        file(".tmp-7-pack-d.pack", Some(old));
        let found = super::scan(dir.path(), &Default::default());
        assert!(found.packs.is_empty(), "{:?}", found.packs);
        let mut expired: Vec<String> = found
            .expired
            .iter()
            .map(|p| {
                p.file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        expired.sort();
        assert_eq!(expired, ["pack-a.pack", "pack-a.rev", "pack-b.mtimes"]);
    }

    #[test]
    fn merged_packs_leave_a_geometric_progression() {
        assert_eq!(to_merge(&[1, 1, 1, 1]), 4);
        assert_eq!(to_merge(&[1, 1, 5, 100]), 2);
        assert_eq!(to_merge(&[1, 2, 3, 5, 100]), 4);
        assert_eq!(to_merge(&[10, 10, 10, 1000]), 3);
        assert_eq!(to_merge(&[5, 10, 20, 40]), 0);
        assert_eq!(to_merge(&[5, 5, 10, 20, 40]), 5);
        assert_eq!(to_merge(&[7]), 0);
        assert_eq!(to_merge(&[]), 0);
    }

    #[test]
    fn a_merge_cut_short_by_the_budget_still_leaves_a_progression() {
        let pack = |objects: u64, mib: u64| super::Pack {
            objects,
            bytes: mib << 20,
            idx: std::path::PathBuf::new(),
        };
        let weights =
            |packs: &[super::Pack]| -> Vec<u64> { packs.iter().map(|p| p.objects).collect() };
        // Two heavy packs that do not fit in one merge, and a write's new one: the
        // new one waits for others like it rather than the lighter heavy pack being
        // rewritten for it.
        let heavy = [pack(5, 0), pack(82_100, 18), pack(83_463, 20)];
        assert!(super::choose(&heavy).is_empty());
        // Light packs beside them are merged among themselves.
        let light = [
            pack(5, 0),
            pack(6, 0),
            pack(7, 0),
            pack(82_100, 18),
            pack(83_463, 20),
        ];
        assert_eq!(weights(super::choose(&light)), [5, 6, 7]);
        // Within the budget, all of them.
        let small = [pack(5, 0), pack(8_000, 2), pack(8_100, 2)];
        assert_eq!(weights(super::choose(&small)), [5, 8_000, 8_100]);
    }

    #[test]
    fn a_merge_reads_no_more_than_its_budget() {
        let pack = |objects, bytes| Pack {
            objects,
            bytes,
            idx: "x.idx".into(),
        };
        let big = super::BUDGET - 15;
        assert_eq!(choose(&[pack(1, 10), pack(1, 10), pack(1, big)]).len(), 2);
        assert!(choose(&[pack(1, big), pack(1, big)]).is_empty());
    }

    #[test]
    fn base_distances_follow_git() {
        let enc = |n| {
            let mut out = Vec::new();
            base_distance(n, &mut out);
            out
        };
        assert_eq!(enc(1), [0x01]);
        assert_eq!(enc(127), [0x7f]);
        // 128 = (0 + 1) << 7 + 0: git's "one more" on every continuation byte.
        assert_eq!(enc(128), [0x80, 0x00]);
        assert_eq!(enc(300), [0x81, 0x2c]);
    }
}
