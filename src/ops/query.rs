//! Operations that read: show, list, ready, blocked, search, dependency trees.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::{BeadError, Result, beads::claim, now, write};
use crate::model::{Actor, Bead, BeadId, BeadType, DepKind, Status};
use crate::store::{BeadRow, Broken, Index, Part, Row, Store};

/// Reads beads by id, in the order asked. Unknown ids fail with [`BeadError::NotFound`].
pub fn show(store: &Store, ids: &[BeadId]) -> Result<Vec<Bead>> {
    let head = store.require_head()?;
    ids.iter()
        .map(|id| {
            store
                .read_bead(head.tree, id)?
                .ok_or_else(|| BeadError::NotFound(id.clone()).into())
        })
        .collect()
}

/// Which beads a listing keeps.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    /// Only these statuses; when empty, every status but closed and deleted
    /// (closed too when `all` is set).
    pub statuses: Vec<Status>,
    /// Only these types.
    pub kinds: Vec<BeadType>,
    /// Only this priority.
    pub priority: Option<u8>,
    /// Only beads assigned to this name.
    pub assignee: Option<String>,
    /// Only beads carrying every one of these labels.
    pub labels: Vec<String>,
    /// Include closed beads.
    pub all: bool,
    /// At most this many (0: no limit).
    pub limit: usize,
}

impl ListFilter {
    fn keeps(&self, s: &BeadRow<'_>) -> bool {
        let status = s.status();
        let status_ok = if self.statuses.is_empty() {
            match status {
                Status::Deleted => false,
                Status::Closed => self.all,
                _ => true,
            }
        } else {
            self.statuses.contains(&status)
        };
        status_ok
            && (self.kinds.is_empty() || self.kinds.contains(&s.kind()))
            && self.priority.is_none_or(|p| p == s.priority())
            && self
                .assignee
                .as_deref()
                .is_none_or(|a| s.assignee() == Some(a))
            && self.labels.iter().all(|l| s.has_label(l))
    }
}

/// Beads found by a query, read in place from the index, plus the documents that
/// could not be read.
pub struct Listing {
    index: Index,
    rows: Vec<Row>,
    /// How many matched before the limit cut the list.
    pub total: usize,
    /// Documents in the store that do not parse (reported, never hidden).
    pub broken: Vec<Broken>,
}

impl Listing {
    /// The beads, in the order of the query.
    pub fn beads(&self) -> impl ExactSizeIterator<Item = BeadRow<'_>> {
        self.rows.iter().map(|&r| self.index.row(r))
    }
}

/// Highest priority first, then oldest, then by id.
fn by_priority_then_age(index: &Index) -> impl Fn(&Row, &Row) -> Ordering + '_ {
    |&a, &b| {
        let (a, b) = (index.row(a), index.row(b));
        (a.priority(), a.created_us())
            .cmp(&(b.priority(), b.created_us()))
            .then_with(|| a.id().cmp(b.id()))
    }
}

/// The first `limit` of `rows` (all for 0) by priority then age. The index keeps its
/// table in that order, so the sort mostly merges two runs: the table's rows and the
/// beads changed since it was written.
fn listing(index: Index, mut rows: Vec<Row>, limit: usize) -> Listing {
    let total = rows.len();
    rows.sort_by(by_priority_then_age(&index));
    if limit > 0 {
        rows.truncate(limit);
    }
    Listing {
        rows,
        total,
        broken: index.broken().to_vec(),
        index,
    }
}

/// The beads part of the index (every query here reads the beads, none the mail).
pub(super) fn load_index(store: &Store) -> Result<Index> {
    let head = store.require_head()?;
    Ok(store.index_parts(&head, &[Part::Beads])?)
}

/// Lists beads, highest priority first, then oldest.
pub fn list(store: &Store, filter: &ListFilter) -> Result<Listing> {
    let index = load_index(store)?;
    let rows = index
        .rows()
        .filter(|s| filter.keeps(s))
        .map(|s| s.row())
        .collect();
    Ok(listing(index, rows, filter.limit))
}

/// Finds beads whose id, title or description contains `text` (case-insensitive).
/// Deleted beads only show when `filter` asks for them by status.
pub fn search(store: &Store, text: &str, filter: &ListFilter) -> Result<Listing> {
    let head = store.require_head()?;
    let (index, found) = store.index_search(&head, text)?;
    let filter = ListFilter {
        all: true,
        ..filter.clone()
    };
    let rows = found
        .into_iter()
        .filter(|&r| filter.keeps(&index.row(r)))
        .collect();
    Ok(listing(index, rows, filter.limit))
}

/// Works out, for every bead, what keeps it from being ready.
struct Blockers {
    /// Per row: 0 not worked out yet, 1 nothing blocks it (or it is being worked out),
    /// `k + 2` blocked by `found[k]`. Four bytes a bead: at 100 000 beads the memo
    /// is a fraction of a megabyte.
    state: Vec<u32>,
    found: Vec<Vec<Row>>,
}

impl Blockers {
    fn new(index: &Index) -> Self {
        Blockers {
            state: vec![0; index.row_count()],
            found: Vec::new(),
        }
    }

    /// The beads that block `s`: unfinished `blocks` targets, and whatever blocks
    /// its parent (a blocked or deferred parent blocks its children), transitively.
    fn of(&mut self, s: BeadRow<'_>) -> &[Row] {
        let at = s.row().get();
        match self.state[at] {
            0 => {}
            1 => return &[],
            k => return &self.found[k as usize - 2],
        }
        // Guards against parent-child cycles that arrived by sync or import.
        self.state[at] = 1;
        let mut out = Vec::new();
        for d in s.dependencies() {
            let Some(target) = d.target else {
                continue;
            };
            match d.kind {
                DepKind::Blocks if !target.status().is_done() => out.push(target.row()),
                DepKind::ParentChild => {
                    if matches!(target.status(), Status::Blocked | Status::Deferred) {
                        out.push(target.row());
                    }
                    out.extend_from_slice(self.of(target));
                }
                _ => {}
            }
        }
        if out.is_empty() {
            return &[];
        }
        out.sort_unstable();
        out.dedup();
        self.found.push(out);
        self.state[at] = u32::try_from(self.found.len() + 1).unwrap_or(u32::MAX);
        self.found.last().map_or(&[], Vec::as_slice)
    }
}

fn ready_in(index: &Index, assignee: Option<&str>) -> Vec<Row> {
    let mut blockers = Blockers::new(index);
    index
        .rows()
        .filter(|s| s.status() == Status::Open)
        .filter(|s| assignee.is_none_or(|a| s.assignee() == Some(a)))
        .filter(|s| blockers.of(*s).is_empty())
        .map(|s| s.row())
        .collect()
}

/// Open beads with no unfinished blocker, transitively; highest priority first, then oldest.
pub fn ready(store: &Store, assignee: Option<&str>, limit: usize) -> Result<Listing> {
    let index = load_index(store)?;
    let ready = ready_in(&index, assignee);
    Ok(listing(index, ready, limit))
}

/// Claims the first ready bead (that nobody else holds) for `actor`, atomically.
/// Returns `None` when nothing is ready.
pub fn ready_claim(store: &Store, actor: &Actor, assignee: Option<&str>) -> Result<Option<Bead>> {
    super::agent::permit(actor, crate::model::Capability::Claim)?;
    let claimed = write(store, actor, |tx| {
        for id in claim_candidates(tx.index()?, actor, assignee) {
            let id = BeadId::parse(&id)?;
            let Some(mut bead) = tx.bead(&id)? else {
                continue;
            };
            if claim(&mut bead, actor).is_err() {
                continue;
            }
            bead.touch(&actor.id, now());
            tx.put_bead(&bead)?;
            tx.set_message(format!("claim {}: {}", bead.id, bead.title));
            return Ok(Some(bead));
        }
        Ok(None)
    })?;
    Ok(claimed)
}

/// The ids of the ready beads `actor` may claim (nobody else holds them), the one to
/// take first first.
fn claim_candidates(index: &Index, actor: &Actor, assignee: Option<&str>) -> Vec<String> {
    let mut candidates = ready_in(index, assignee);
    candidates.sort_by(by_priority_then_age(index));
    candidates
        .into_iter()
        .map(|r| index.row(r))
        .filter(|s| s.assignee().is_none_or(|a| a == actor.id))
        .map(|s| s.id().to_owned())
        .collect()
}

/// Which of `candidates` (in the order to take them) `claimer` tries first: one of
/// those of the first one's priority, picked by the claimer's name, so that a fleet
/// of claimers working one queue spreads over it instead of all trying the same
/// bead, while no bead of a lower priority goes before one of a higher.
fn spread(index: &Index, candidates: Vec<String>, claimer: &str) -> Option<String> {
    use std::hash::{Hash, Hasher};
    let priority = |id: &str| index.get(id).map(|r| r.priority());
    let first = priority(candidates.first()?);
    let same = candidates
        .iter()
        .take_while(|id| priority(id) == first)
        .count();
    // A fixed hash (not RandomState) so a claimer keeps its place from run to run.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    claimer.hash(&mut h);
    let at = (h.finish() % same.max(1) as u64) as usize;
    candidates.into_iter().nth(at)
}

/// How many ready beads `ready --claim` with a claim remote tries before it gives up:
/// each one lost was claimed by another machine first.
const REMOTE_CLAIM_TRIES: usize = 10;

/// Claims the first ready bead for `actor` on `remote` (see
/// [`super::claim::claim_on_remote`]): a bead someone else won there is left for the
/// next, up to [`REMOTE_CLAIM_TRIES`] of them, after which the last loss is returned.
/// Returns `None` when nothing is ready.
pub fn ready_claim_on(
    store: &Store,
    actor: &Actor,
    assignee: Option<&str>,
    remote: &str,
) -> Result<Option<Bead>> {
    super::agent::permit(actor, crate::model::Capability::Claim)?;
    // What the last sync fetched of the claims in flight is skipped at once; after a
    // loss they are fetched again.
    let mut lost = super::claim::claimed_elsewhere(store, remote)?;
    let mut last = None;
    for _ in 0..REMOTE_CLAIM_TRIES {
        let index = load_index(store)?;
        let candidates: Vec<String> = claim_candidates(&index, actor, assignee)
            .into_iter()
            .filter(|id| !lost.contains(id))
            .collect();
        let next = spread(&index, candidates, &actor.id);
        drop(index);
        let Some(id) = next else {
            break;
        };
        let id = BeadId::parse(&id)?;
        match super::claim::claim_on_remote(store, actor, &id, remote, &mut |b| claim(b, actor)) {
            Ok(()) => {
                return super::beads::update(
                    store,
                    actor,
                    &id,
                    super::Changes {
                        claim: true,
                        ..Default::default()
                    },
                )
                .map(|e| Some(e.bead));
            }
            Err(e) if e.kind() == super::ErrorKind::Conflict => {
                lost.insert(id.to_string());
                lost.extend(super::claim::claimed_elsewhere(store, remote)?);
                last = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    match last {
        Some(e) => Err(e),
        None => Ok(None),
    }
}

/// Every unfinished bead that waits on others, with what it waits on, read in place
/// from the index, plus the documents that could not be read.
pub struct Blocked {
    index: Index,
    rows: Vec<(Row, Vec<Row>)>,
    /// Documents in the store that do not parse (reported, never hidden).
    pub broken: Vec<Broken>,
}

impl Blocked {
    /// Each blocked bead, highest priority first, then oldest, with the ids of what
    /// it waits on, sorted.
    pub fn beads(&self) -> impl ExactSizeIterator<Item = (BeadRow<'_>, Vec<&str>)> {
        self.rows.iter().map(|(r, by)| {
            let mut ids: Vec<&str> = by.iter().map(|&b| self.index.row(b).id()).collect();
            ids.sort_unstable();
            (self.index.row(*r), ids)
        })
    }
}

/// Every unfinished bead that waits on others, and what it waits on.
pub fn blocked(store: &Store) -> Result<Blocked> {
    let index = load_index(store)?;
    let mut blockers = Blockers::new(&index);
    let mut rows: Vec<(Row, Vec<Row>)> = index
        .rows()
        .filter(|s| !s.status().is_done())
        .filter_map(|s| {
            let by = blockers.of(s);
            (!by.is_empty()).then(|| (s.row(), by.to_vec()))
        })
        .collect();
    let order = by_priority_then_age(&index);
    rows.sort_by(|a, b| order(&a.0, &b.0));
    drop(order);
    Ok(Blocked {
        rows,
        broken: index.broken().to_vec(),
        index,
    })
}

/// One node of a dependency tree.
#[derive(Clone, Debug)]
pub struct DepNode {
    /// The bead's id.
    pub id: String,
    /// Its title, when the bead exists.
    pub title: Option<String>,
    /// Its status, when the bead exists.
    pub status: Option<Status>,
    /// How its parent node depends on it (none for the root).
    pub kind: Option<DepKind>,
    /// What it depends on; empty where the node was already shown above.
    pub children: Vec<DepNode>,
}

/// The tree of what `id` depends on, transitively (each bead expanded once).
pub fn dep_tree(store: &Store, id: &BeadId) -> Result<DepNode> {
    let index = load_index(store)?;
    if index.get(id.as_str()).is_none() {
        return Err(BeadError::NotFound(id.clone()).into());
    }
    let mut seen = std::collections::HashSet::new();
    Ok(expand(&index, id.as_str(), None, &mut seen))
}

fn expand(
    index: &Index,
    id: &str,
    kind: Option<DepKind>,
    seen: &mut std::collections::HashSet<String>,
) -> DepNode {
    let s = index.get(id);
    let first = seen.insert(id.to_owned());
    let children = match s {
        Some(s) if first => s
            .dependencies()
            .map(|d| expand(index, d.id(), Some(d.kind), seen))
            .collect(),
        _ => Vec::new(),
    };
    DepNode {
        id: id.to_owned(),
        title: s.map(|s| s.title().to_owned()),
        status: s.map(|s| s.status()),
        kind,
        children,
    }
}

/// A label and how many beads (not deleted) carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelCount {
    /// The label.
    pub label: String,
    /// How many beads carry it.
    pub count: usize,
}

/// Every label in use, with counts, sorted by label.
pub fn labels_all(store: &Store) -> Result<Vec<LabelCount>> {
    let index = load_index(store)?;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in index.rows().filter(|s| s.status() != Status::Deleted) {
        for l in s.labels() {
            *counts.entry(l).or_default() += 1;
        }
    }
    Ok(counts
        .into_iter()
        .map(|(label, count)| LabelCount {
            label: label.to_owned(),
            count,
        })
        .collect())
}
