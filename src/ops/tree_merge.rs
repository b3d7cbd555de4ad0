//! The tree merge: two trees of the store merged against their base, entry by entry
//! and document by document (each document by [`crate::merge`]), on every core. A
//! sync (`sync.rs`) merges the remote's store into the local one with it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::Serialize;

use super::{OpError, Result};
use crate::merge::{self, Side};
use crate::model::{Bead, BeadId, doc};
use crate::store::{Entry, EntryKind, ObjectId, Store, StoreError, codec, refs};

/// How many documents are merged between two progress reports.
const PROGRESS_EVERY: usize = 200;

/// The key in a renumbered bead's `extra` that holds the id it was minted with.
pub(super) const RENUMBERED_FROM: &str = "renumbered_from";

/// A document kept as it is because it could not be merged field by field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeptDoc {
    /// The document's path in the store's tree.
    pub path: String,
    /// Why it could not be merged.
    pub reason: String,
    /// Where the version that was not kept in place went (under `lost+found/`).
    pub other_version: String,
}

/// The result of merging two trees.
#[derive(Clone, Debug)]
pub struct TreeMerge {
    /// The merged tree.
    pub tree: ObjectId,
    /// How many documents `theirs` changed against the base.
    pub fetched: usize,
    /// How many documents changed on both sides were merged field by field.
    pub merged: usize,
    /// How many losing values were recorded.
    pub conflicts: usize,
    /// Documents kept whole.
    pub kept: Vec<KeptDoc>,
}

/// Merges the trees `ours` and `theirs` against `base` (`None`: unrelated histories).
///
/// Entry by entry, directory by directory: an entry changed on one side takes
/// that side (a subtree whole, whatever it holds); a directory changed on both is
/// merged entry by entry; a document changed on both is merged by
/// [`merge_document`]. An entry missing on one side is never taken as deleted
/// (deleting a document is a tombstone inside it) and is kept — except worktree
/// snapshots, which are never changed once written, so that a snapshot removed on
/// one side (by `gc`) and unchanged on the other stays removed. Two entries of
/// different kinds at one path keep one in place and the other under
/// `lost+found/`. The result is the same tree whichever side is `ours`.
///
/// The documents changed on both sides are merged on every core (see
/// [`merge_documents`]); the result is the same as merging them one after another.
pub(crate) fn merge_trees(
    store: &Store,
    base: Option<ObjectId>,
    ours: ObjectId,
    theirs: ObjectId,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<TreeMerge> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    merge_trees_on(store, base, ours, theirs, cores, progress)
}

/// [`merge_trees`] on at most `threads` threads.
pub(super) fn merge_trees_on(
    store: &Store,
    base: Option<ObjectId>,
    ours: ObjectId,
    theirs: ObjectId,
    threads: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<TreeMerge> {
    let their = store.diff(base, Some(theirs))?;
    let mut m = TreeMerger {
        store,
        edits: BTreeMap::new(),
        jobs: Vec::new(),
        out: TreeMerge {
            tree: ours,
            fetched: their.len(),
            merged: 0,
            conflicts: 0,
            kept: Vec::new(),
        },
    };
    m.dir(base, ours, theirs, "")?;
    let total = m.jobs.len();
    let docs = merge_documents(store, &m.jobs, threads, &mut |done| {
        if done.is_multiple_of(PROGRESS_EVERY) || (done == total && total >= PROGRESS_EVERY) {
            progress(done, total);
        }
    })?;
    let jobs = std::mem::take(&mut m.jobs);
    for (job, doc) in jobs.into_iter().zip(docs) {
        m.place(job, doc)?;
    }
    let mut out = m.out;
    if !m.edits.is_empty() {
        out.tree = store.write_tree_edits(ours, &m.edits)?;
    }
    Ok(out)
}

/// Whether an entry removed on one side and unchanged on the other is gone: only
/// for worktree snapshots, which `gc` removes and nothing ever changes.
fn removal_deletes(path: &str) -> bool {
    path.strip_prefix(refs::SNAPSHOTS_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// A file changed differently on both sides, to merge once both trees are walked.
struct DocJob {
    /// Its path in the store's tree.
    path: String,
    /// The kind of entry the merged file gets.
    kind: EntryKind,
    /// The base version, if there is one that is a file.
    base: Option<ObjectId>,
    /// Our version.
    ours: Entry,
    /// Their version.
    theirs: Entry,
}

struct TreeMerger<'a> {
    store: &'a Store,
    edits: BTreeMap<String, Option<Entry>>,
    jobs: Vec<DocJob>,
    out: TreeMerge,
}

impl TreeMerger<'_> {
    fn dir(
        &mut self,
        base: Option<ObjectId>,
        ours: ObjectId,
        theirs: ObjectId,
        prefix: &str,
    ) -> Result<()> {
        let base = match base {
            Some(t) => self.store.tree_entries(t)?,
            None => BTreeMap::new(),
        };
        let ours = self.store.tree_entries(ours)?;
        let theirs = self.store.tree_entries(theirs)?;
        let names: BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
        // Child ids minted on both sides, as taken or handed out by renumbering.
        let mut taken: BTreeSet<String> = names.iter().map(|n| (*n).clone()).collect();
        for name in names {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let b = base.get(name).copied();
            match (ours.get(name).copied(), theirs.get(name).copied()) {
                (Some(x), Some(y)) if x == y => {}
                (Some(x), None) => {
                    if removal_deletes(&path) && b == Some(x) {
                        self.edits.insert(path, None);
                    }
                }
                (None, Some(y)) => {
                    if !(removal_deletes(&path) && b == Some(y)) {
                        self.edits.insert(path, Some(y));
                    }
                }
                (Some(x), Some(y)) if b == Some(x) => {
                    self.edits.insert(path, Some(y));
                }
                (Some(_), Some(y)) if b == Some(y) => {}
                (Some(x), Some(y))
                    if b.is_none() && self.renumbered(x, y, &path, &mut taken)? => {}
                (Some(x), Some(y)) => self.both(b, x, y, path)?,
                (None, None) => {}
            }
        }
        Ok(())
    }

    /// When `x` and `y`, created at one path on both sides, are two different child
    /// beads that were given the same id (`<parent>.<n>` is minted from a count, and
    /// two clones offline count alike), keeps both: the one created first (then by the
    /// smaller creator, then the smaller blob) keeps the id, the other gets the next
    /// child number free on both sides (`taken`: the names of this directory) and
    /// records the id it was minted with under `renumbered_from` in `extra`. Two
    /// versions of one creation (a concurrent edit) are left to the merge.
    fn renumbered(
        &mut self,
        x: Entry,
        y: Entry,
        path: &str,
        taken: &mut BTreeSet<String>,
    ) -> Result<bool> {
        let Some(id) = refs::bead_id_of_path(path).and_then(|i| BeadId::parse(i).ok()) else {
            return Ok(false);
        };
        let Some(parent) = id.parent() else {
            return Ok(false);
        };
        if !(x.is_file() && y.is_file()) {
            return Ok(false);
        }
        let read = |e: Entry| -> Result<Option<Bead>> {
            Ok(codec::decode::<Bead>(&self.store.read_blob(e.id)?).ok())
        };
        let (Some(bx), Some(by)) = (read(x)?, read(y)?) else {
            return Ok(false);
        };
        let origin = |b: &Bead, e: Entry| (b.created_at, b.created_by.clone(), e.id);
        if (bx.created_at, &bx.created_by) == (by.created_at, &by.created_by) {
            return Ok(false);
        }
        let (keep, mut moved) = if origin(&bx, x) < origin(&by, y) {
            (x, by)
        } else {
            (y, bx)
        };
        let file = |n: u32| format!("{}.yaml", parent.child(n));
        let highest = taken
            .iter()
            .filter_map(|name| name.strip_prefix(&format!("{parent}.")))
            .filter_map(|rest| rest.strip_suffix(".yaml")?.parse::<u32>().ok())
            .max()
            .unwrap_or(0);
        let new_id = parent.child(highest + 1);
        taken.insert(file(highest + 1));
        moved.extra.insert(
            RENUMBERED_FROM.into(),
            serde_json::Value::String(id.to_string()),
        );
        moved.id = new_id;
        let text = codec::encode(&moved).map_err(|source| StoreError::Encode {
            what: path.to_owned(),
            source,
        })?;
        let blob = self.store.write_blob(text.as_bytes())?;
        self.edits.insert(path.to_owned(), Some(keep));
        self.edits.insert(
            refs::bead_path(&moved.id),
            Some(Entry {
                kind: EntryKind::Blob,
                id: blob,
            }),
        );
        self.out.merged += 1;
        Ok(true)
    }

    /// An entry changed differently on both sides.
    fn both(&mut self, base: Option<Entry>, x: Entry, y: Entry, path: String) -> Result<()> {
        if x.kind == EntryKind::Tree && y.kind == EntryKind::Tree {
            let base = base.filter(|b| b.kind == EntryKind::Tree).map(|b| b.id);
            return self.dir(base, x.id, y.id, &path);
        }
        if x.is_file() && y.is_file() {
            let kind = match base.map(|b| b.kind) {
                _ if x.kind == y.kind => x.kind,
                Some(k) if k == x.kind => y.kind,
                Some(k) if k == y.kind => x.kind,
                _ => x.kind.max(y.kind),
            };
            self.jobs.push(DocJob {
                path,
                kind,
                base: base.filter(Entry::is_file).map(|b| b.id),
                ours: x,
                theirs: y,
            });
            return Ok(());
        }
        // Two different kinds of thing at one path: a directory stays in place over a
        // file, otherwise the greater entry does.
        let rank = |e: &Entry| (e.kind == EntryKind::Tree, e.kind, e.id);
        let (keep, lose) = if rank(&y) > rank(&x) { (y, x) } else { (x, y) };
        self.keep_whole(
            &path,
            lose,
            "the two versions are different kinds of entry".into(),
        );
        self.edits.insert(path, Some(keep));
        Ok(())
    }

    /// Puts the merge of a document in place (writing its blob when it is new).
    fn place(&mut self, job: DocJob, doc: DocMerge) -> Result<()> {
        let blob = match doc.content {
            Content::Version(id) => id,
            Content::Text(text) => self.store.write_blob(text.as_bytes())?,
        };
        self.out.merged += 1;
        self.out.conflicts += doc.conflicts;
        if let Some((lost, reason)) = doc.lost {
            let kind = if lost == job.ours.id {
                job.ours.kind
            } else {
                job.theirs.kind
            };
            self.keep_whole(&job.path, Entry { kind, id: lost }, reason);
        }
        self.edits.insert(
            job.path,
            Some(Entry {
                kind: job.kind,
                id: blob,
            }),
        );
        Ok(())
    }

    /// Keeps `entry`, a version of `path` that cannot stay in place, under `lost+found/`.
    fn keep_whole(&mut self, path: &str, entry: Entry, reason: String) {
        let at = refs::lost_found_path(path, &entry.id.to_string());
        self.edits.insert(at.clone(), Some(entry));
        self.out.kept.push(KeptDoc {
            path: path.to_owned(),
            reason,
            other_version: at,
        });
    }
}

/// Below this many documents a second thread costs more than it saves.
const DOCS_PER_THREAD: usize = 64;

/// How many documents a merging thread takes at a time.
const DOCS_PER_CLAIM: usize = 16;

/// Merges the documents of `jobs` (see [`merge_document`]) on up to `threads`
/// threads, and returns the merges in the order of `jobs`. Each thread reads through
/// its own handle on the repository; the merged texts come back to be written by the
/// caller, so what is written, and in which order, does not depend on the threads.
/// `done` hears how many documents are merged so far, from 1 up to all of them.
fn merge_documents(
    store: &Store,
    jobs: &[DocJob],
    threads: usize,
    done: &mut dyn FnMut(usize),
) -> Result<Vec<DocMerge>> {
    let merge = |store: &Store, job: &DocJob| {
        merge_document(store, &job.path, job.base, job.ours.id, job.theirs.id)
    };
    let threads = threads.min(jobs.len() / DOCS_PER_THREAD);
    if threads <= 1 {
        let mut out = Vec::with_capacity(jobs.len());
        for job in jobs {
            out.push(merge(store, job)?);
            done(out.len());
        }
        return Ok(out);
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let mut slots: Vec<Option<DocMerge>> =
        std::iter::repeat_with(|| None).take(jobs.len()).collect();
    std::thread::scope(|s| -> Result<()> {
        let (send, receive) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let (send, next, failed) = (send.clone(), &next, &failed);
            let handle = store.for_thread();
            s.spawn(move || {
                while !failed.load(Ordering::Relaxed) {
                    let from = next.fetch_add(DOCS_PER_CLAIM, Ordering::Relaxed);
                    let Some(claim) = jobs.get(from..jobs.len().min(from + DOCS_PER_CLAIM)) else {
                        break;
                    };
                    for (i, job) in claim.iter().enumerate() {
                        let merged = merge(&handle, job);
                        failed.fetch_or(merged.is_err(), Ordering::Relaxed);
                        if send.send((from + i, merged)).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(send);
        let mut count = 0;
        let mut first_error: Option<(usize, OpError)> = None;
        for (i, merged) in receive {
            match merged {
                Ok(doc) => {
                    slots[i] = Some(doc);
                    count += 1;
                    done(count);
                }
                Err(e) if first_error.as_ref().is_none_or(|(at, _)| i < *at) => {
                    first_error = Some((i, e));
                }
                Err(_) => {}
            }
        }
        match first_error {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    })?;
    // Every slot is filled: a thread stops early only after an error, returned above,
    // and a thread that panicked makes the scope panic.
    Ok(slots.into_iter().flatten().collect())
}

/// What a merged document holds.
enum Content {
    /// One of the versions, as it is.
    Version(ObjectId),
    /// A new text, still to be written.
    Text(String),
}

/// One document merged from two versions.
struct DocMerge {
    /// What to keep at the document's path.
    content: Content,
    /// How many losing values were recorded in it.
    conflicts: usize,
    /// A whole version that could not be kept in place, and why.
    lost: Option<(ObjectId, String)>,
}

/// Merges two versions `a` and `b` of the document at `path` against `base`: reads
/// and decodes them, lets [`merge::merge_document`] merge them, and encodes the result.
///
/// A file that is not YAML is never read: one version stays in place (the greater
/// blob) and the other is kept under `lost+found/`, reported, never dropped.
fn merge_document(
    store: &Store,
    path: &str,
    base: Option<ObjectId>,
    a: ObjectId,
    b: ObjectId,
) -> Result<DocMerge> {
    if !(path.ends_with(".yaml") || path.ends_with(".yml")) {
        // Not a document (a file of a snapshot, say): never read, one version kept.
        let (keep, lose) = if b > a { (b, a) } else { (a, b) };
        return Ok(DocMerge {
            content: Content::Version(keep),
            conflicts: 0,
            lost: Some((lose, "not a YAML document".into())),
        });
    }
    let a_bytes = store.read_blob(a)?;
    let b_bytes = store.read_blob(b)?;
    let base_bytes = base.map(|id| store.read_blob(id)).transpose()?;
    let whole = |keep: Side, reason: String| {
        let (keep, lose) = match keep {
            Side::A => (a, b),
            Side::B => (b, a),
        };
        DocMerge {
            content: Content::Version(keep),
            conflicts: 0,
            lost: Some((lose, reason)),
        }
    };
    // Two versions under the size limit can merge to one over it; and some YAML
    // decodes to values the encoder cannot write back (a mapping whose only key is a
    // tagged null, `!t ~: 1`): failing here would fail every sync from now on, so
    // both versions are kept whole instead.
    let written =
        |text: std::result::Result<String, codec::CodecError>, conflicts: usize| match text {
            Ok(text) => DocMerge {
                content: Content::Text(text),
                conflicts,
                lost: None,
            },
            Err(e) => whole(
                merge::choose_whole(&a_bytes, true, &b_bytes, true),
                format!("the merge cannot be written: {e}"),
            ),
        };
    let id = refs::bead_id_of_path(path).and_then(|id| BeadId::parse(id).ok());
    // The common case first: three beads exactly as git-beads writes them, which
    // merge_document would give to the typed merge too, read without a generic tree.
    if let Some(id) = &id
        && let Some((base, x, y)) =
            canonical_versions(id, base_bytes.as_deref(), &a_bytes, &b_bytes)
    {
        let merged = merge::merge_bead(base.as_ref(), &x, &y);
        return Ok(written(codec::encode(&merged.value), merged.conflicts));
    }
    let version = |bytes| read_version(id.as_ref(), bytes);
    let base_version = base_bytes.as_deref().map(version);
    let merged = merge::merge_document(
        base_version.as_ref(),
        &version(&a_bytes),
        &version(&b_bytes),
    );
    Ok(match merged {
        merge::DocOutcome::Bead(m) => written(codec::encode(&m.value), m.conflicts),
        merge::DocOutcome::Tree(m) => written(codec::encode(&m.value), m.conflicts),
        merge::DocOutcome::Whole { keep, why } => whole(keep, why.to_string()),
    })
}

/// One version of a document for [`merge::merge_document`]: its tree, and the bead
/// it holds when it is a document of bead `id` that the bead model represents exactly.
fn read_version<'b>(id: Option<&BeadId>, bytes: &'b [u8]) -> merge::Version<'b> {
    let read = match codec::decode_doc(bytes) {
        Ok(tree) => {
            let bead = id.and_then(|id| exact_bead(id, &tree, bytes).map(Box::new));
            merge::Read::Tree { tree, bead }
        }
        Err(e) => merge::Read::Unreadable(e.to_string()),
    };
    merge::Version { bytes, read }
}

/// The base (if any) and the two versions of bead `id`, when each document is
/// byte for byte the canonical encoding of the bead it decodes to. Such a document
/// is represented exactly by the bead model (decoding the canonical encoding of a
/// bead gives the same tree as converting the bead), which proves what
/// [`exact_bead`] proves with one decoding fewer and no generic tree.
fn canonical_versions(
    id: &BeadId,
    base: Option<&[u8]>,
    a: &[u8],
    b: &[u8],
) -> Option<(Option<Bead>, Bead, Bead)> {
    let base = match base {
        Some(bytes) => Some(canonical_bead(id, bytes)?),
        None => None,
    };
    Some((base, canonical_bead(id, a)?, canonical_bead(id, b)?))
}

/// Bead `id`, when `bytes` are exactly its canonical encoding.
pub(super) fn canonical_bead(id: &BeadId, bytes: &[u8]) -> Option<Bead> {
    let bead: Bead = codec::decode(bytes).ok()?;
    let canonical = bead.id == *id && codec::encode(&bead).ok()?.as_bytes() == bytes;
    canonical.then_some(bead)
}

/// The bead in a document, if the bead model represents the document exactly (so
/// the typed merge drops nothing, not even fields a newer git-beads wrote) and it
/// is the bead its path names.
pub(super) fn exact_bead(id: &BeadId, value: &doc::Value, bytes: &[u8]) -> Option<Bead> {
    let bead: Bead = codec::decode(bytes).ok()?;
    let back = codec::to_value(&bead).ok()?;
    (bead.id == *id && back == *value).then_some(bead)
}
