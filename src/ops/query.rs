//! Operations that read: show, list, ready, blocked, search, dependency trees.

use std::collections::{BTreeMap, HashMap};

use super::{OpError, Result, beads::claim, now, write};
use crate::model::{Actor, Bead, BeadId, BeadType, DepKind, Status};
use crate::store::{Broken, Index, Part, Store, Summary};

/// Reads beads by id, in the order asked. Unknown ids fail with [`OpError::NotFound`].
pub fn show(store: &Store, ids: &[BeadId]) -> Result<Vec<Bead>> {
    let head = store.require_head()?;
    ids.iter()
        .map(|id| {
            store
                .read_bead(head.tree, id)?
                .ok_or_else(|| OpError::NotFound(id.clone()))
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
    fn keeps(&self, s: &Summary) -> bool {
        let status_ok = if self.statuses.is_empty() {
            match s.status {
                Status::Deleted => false,
                Status::Closed => self.all,
                _ => true,
            }
        } else {
            self.statuses.contains(&s.status)
        };
        status_ok
            && (self.kinds.is_empty() || self.kinds.contains(&s.kind))
            && self.priority.is_none_or(|p| p == s.priority)
            && self
                .assignee
                .as_deref()
                .is_none_or(|a| s.assignee.as_deref() == Some(a))
            && self
                .labels
                .iter()
                .all(|l| s.labels.binary_search(l).is_ok())
    }
}

/// Beads found by a query, plus the documents that could not be read.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// The beads, in the order of the query.
    pub beads: Vec<Summary>,
    /// How many matched before the limit cut the list.
    pub total: usize,
    /// Documents in the store that do not parse (reported, never hidden).
    pub broken: Vec<Broken>,
}

fn by_priority_then_age(a: &&Summary, b: &&Summary) -> std::cmp::Ordering {
    (a.priority, a.created_us, &a.id).cmp(&(b.priority, b.created_us, &b.id))
}

fn listing(index: &Index, matched: Vec<&Summary>, limit: usize) -> Listing {
    let total = matched.len();
    let take = if limit == 0 { total } else { limit.min(total) };
    Listing {
        beads: matched.into_iter().take(take).cloned().collect(),
        total,
        broken: index.broken().to_vec(),
    }
}

/// The beads part of the index (every query here reads the beads, none the mail).
fn load_index(store: &Store) -> Result<Index> {
    load_parts(store, &[Part::Beads])
}

fn load_parts(store: &Store, parts: &[Part]) -> Result<Index> {
    let head = store.require_head()?;
    Ok(store.index_parts(&head, parts)?)
}

/// Lists beads, highest priority first, then oldest.
pub fn list(store: &Store, filter: &ListFilter) -> Result<Listing> {
    let index = load_index(store)?;
    let mut matched: Vec<&Summary> = index.beads().iter().filter(|s| filter.keeps(s)).collect();
    matched.sort_by(by_priority_then_age);
    Ok(listing(&index, matched, filter.limit))
}

/// Finds beads whose id, title or description contains `text` (case-insensitive).
/// Deleted beads only show when `filter` asks for them by status.
pub fn search(store: &Store, text: &str, filter: &ListFilter) -> Result<Listing> {
    let index = load_parts(store, &[Part::Beads, Part::Text])?;
    let needle = text.to_lowercase();
    let filter = ListFilter {
        all: true,
        ..filter.clone()
    };
    let texts = index.descriptions();
    let mut matched: Vec<&Summary> = index
        .beads()
        .iter()
        .zip(
            texts
                .iter()
                .map(String::as_str)
                .chain(std::iter::repeat("")),
        )
        .filter(|(s, _)| filter.keeps(s))
        .filter(|(s, text)| {
            contains_folded(&s.title, &needle)
                || contains_folded(&s.id, &needle)
                || contains_folded(text, &needle)
        })
        .map(|(s, _)| s)
        .collect();
    matched.sort_by(by_priority_then_age);
    Ok(listing(&index, matched, filter.limit))
}

fn contains_folded(haystack: &str, needle: &str) -> bool {
    thread_local! {
        static FOLDED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    if needle.is_empty() {
        true
    } else if haystack.is_ascii() && needle.is_ascii() {
        // Lower-casing into a reused buffer, then std's vectorised substring search, is
        // several times faster than comparing every window case-insensitively.
        FOLDED.with_borrow_mut(|folded| {
            folded.clear();
            folded.push_str(haystack);
            folded.make_ascii_lowercase();
            folded.contains(needle)
        })
    } else {
        haystack.to_lowercase().contains(needle)
    }
}

/// Works out, for every bead, what keeps it from being ready.
struct Blockers<'a> {
    by_id: HashMap<&'a str, &'a Summary>,
    memo: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Blockers<'a> {
    fn new(index: &'a Index) -> Self {
        Blockers {
            by_id: index.beads().iter().map(|s| (s.id.as_str(), s)).collect(),
            memo: HashMap::new(),
        }
    }

    /// The beads that block `s`: unfinished `blocks` targets, and whatever blocks
    /// its parent (a blocked or deferred parent blocks its children), transitively.
    fn of(&mut self, s: &'a Summary) -> Vec<&'a str> {
        if let Some(found) = self.memo.get(s.id.as_str()) {
            return found.clone();
        }
        // Guards against parent-child cycles that arrived by sync or import.
        self.memo.insert(s.id.as_str(), Vec::new());
        let mut out = Vec::new();
        for d in &s.dependencies {
            let Some(target) = self.by_id.get(d.id.as_str()).copied() else {
                continue;
            };
            match d.kind {
                DepKind::Blocks if !target.status.is_done() => out.push(target.id.as_str()),
                DepKind::ParentChild => {
                    if matches!(target.status, Status::Blocked | Status::Deferred) {
                        out.push(target.id.as_str());
                    }
                    out.extend(self.of(target));
                }
                _ => {}
            }
        }
        out.sort_unstable();
        out.dedup();
        self.memo.insert(s.id.as_str(), out.clone());
        out
    }
}

fn ready_in<'a>(index: &'a Index, assignee: Option<&str>) -> Vec<&'a Summary> {
    let mut blockers = Blockers::new(index);
    let mut ready: Vec<&Summary> = index
        .beads()
        .iter()
        .filter(|s| s.status == Status::Open)
        .filter(|s| assignee.is_none_or(|a| s.assignee.as_deref() == Some(a)))
        .filter(|s| blockers.of(s).is_empty())
        .collect();
    ready.sort_by(by_priority_then_age);
    ready
}

/// Open beads with no unfinished blocker, transitively; highest priority first, then oldest.
pub fn ready(store: &Store, assignee: Option<&str>, limit: usize) -> Result<Listing> {
    let index = load_index(store)?;
    let ready = ready_in(&index, assignee);
    Ok(listing(&index, ready, limit))
}

/// Claims the first ready bead (that nobody else holds) for `actor`, atomically.
/// Returns `None` when nothing is ready.
pub fn ready_claim(store: &Store, actor: &Actor, assignee: Option<&str>) -> Result<Option<Bead>> {
    super::agent::permit(actor, crate::model::Capability::Claim)?;
    let claimed = write(store, actor, |tx| {
        let candidates: Vec<String> = ready_in(tx.index()?, assignee)
            .into_iter()
            .filter(|s| s.assignee.as_deref().is_none_or(|a| a == actor.id))
            .map(|s| s.id.clone())
            .collect();
        for id in candidates {
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

/// A bead that waits on others.
#[derive(Clone, Debug)]
pub struct BlockedBead {
    /// The bead.
    pub bead: Summary,
    /// What it waits on.
    pub blocked_by: Vec<String>,
}

/// Every unfinished bead that waits on others, and what it waits on.
pub fn blocked(store: &Store) -> Result<(Vec<BlockedBead>, Vec<Broken>)> {
    let index = load_index(store)?;
    let mut blockers = Blockers::new(&index);
    let mut out: Vec<BlockedBead> = index
        .beads()
        .iter()
        .filter(|s| !s.status.is_done())
        .filter_map(|s| {
            let by = blockers.of(s);
            (!by.is_empty()).then(|| BlockedBead {
                bead: s.clone(),
                blocked_by: by.into_iter().map(str::to_owned).collect(),
            })
        })
        .collect();
    out.sort_by(|a, b| by_priority_then_age(&&a.bead, &&b.bead));
    Ok((out, index.broken().to_vec()))
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
        return Err(OpError::NotFound(id.clone()));
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
            .dependencies
            .iter()
            .map(|d| expand(index, d.id.as_str(), Some(d.kind), seen))
            .collect(),
        _ => Vec::new(),
    };
    DepNode {
        id: id.to_owned(),
        title: s.map(|s| s.title.clone()),
        status: s.map(|s| s.status),
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
    for s in index.beads().iter().filter(|s| s.status != Status::Deleted) {
        for l in &s.labels {
            *counts.entry(l.as_str()).or_default() += 1;
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
