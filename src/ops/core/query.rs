//! Operations that read: show, list, ready, blocked, search, dependency trees.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::change::claim;
use super::{BeadError, Result, now, permit, write};
use crate::model::config::{Category, Vocabulary};
use crate::model::{
    Actor, Bead, BeadId, BeadType, DepKind, DepTarget, EXTERNAL_SCHEME, ExternalRef, Status,
    WISP_MARK,
};
use crate::store::{BeadRow, Broken, Head, Index, ObjectId, Part, Row, Store, Summary, TableStamp};

/// Reads beads by id, in the order asked: from `refs/beads/main`, else from this
/// machine's wisps. Unknown ids fail with [`BeadError::NotFound`].
pub fn show(store: &Store, ids: &[BeadId]) -> Result<Vec<Bead>> {
    let head = store.require_head()?;
    let mut wisps = None;
    ids.iter()
        .map(|id| {
            if let Some(bead) = store.read_bead(head.tree, id)? {
                return Ok(bead);
            }
            let wisps = match &mut wisps {
                Some(w) => w,
                None => wisps.insert(store.view_of(crate::store::refs::WISPS)?),
            };
            wisps
                .bead(id)?
                .ok_or_else(|| BeadError::NotFound(id.clone()).into())
        })
        .collect()
}

/// What a dependency given as text points at: `external:<project>:<id>` names an item
/// of another project; anything else a bead, as [`resolve_id`] finds it.
pub fn resolve_target(store: &Store, given: &str) -> Result<DepTarget> {
    if given.starts_with(EXTERNAL_SCHEME) {
        return Ok(DepTarget::External(ExternalRef::parse(given)?));
    }
    resolve_id(store, given).map(DepTarget::Bead)
}

/// The bead `given` names: an id, or an id without its prefix (`a1b2` for `bd-a1b2`,
/// and for wisp `bd-wisp-a1b2`) where exactly one bead, or one of this machine's
/// wisps, has it. Text that cannot be an id fails as malformed.
///
/// On the clone that minted a bead a merge renumbered, its old id names it still
/// (the store's aliases), though another bead holds that id everywhere else.
pub fn resolve_id(store: &Store, given: &str) -> Result<BeadId> {
    let id = named(store, given)?;
    Ok(store.aliases()?.remove(&id).unwrap_or(id))
}

/// The bead `given` names, aliases aside (see [`resolve_id`]).
fn named(store: &Store, given: &str) -> Result<BeadId> {
    let err = match BeadId::parse(given) {
        Ok(id) => return whole_or_start(store, id),
        Err(e) => e,
    };
    let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._".contains(c);
    if given.is_empty() || !given.chars().all(plain) {
        return Err(err.into());
    }
    // After the store's own prefix (which may hold a `-`), or the first `-`.
    let own = format!("{}-", super::meta(store)?.prefix);
    let indexes = main_and_wisps(store)?;
    // The id without its prefix (and a wisp's without its mark) is `given`; else, as
    // bd reads a partial id, starts with it.
    let with = |whole: bool| {
        let is = |rest: &str| match whole {
            true => rest == given,
            false => rest.starts_with(given),
        };
        let is = |rest: &str| is(rest) || rest.strip_prefix(WISP_MARK).is_some_and(is);
        ids_where(&indexes, |id| {
            id.strip_prefix(own.as_str()).is_some_and(is)
                || id.split_once('-').is_some_and(|(_, rest)| is(rest))
        })
    };
    let mut matches = with(true);
    if matches.is_empty() {
        matches = with(false);
        matches.sort();
    }
    match matches.len() {
        0 => Err(BeadError::UnknownId(given.to_owned()).into()),
        1 => Ok(matches.remove(0)),
        _ => Err(BeadError::AmbiguousId {
            given: given.to_owned(),
            matches,
        }
        .into()),
    }
}

/// `id` when the store has that bead (a tombstone too); else, as bd resolves a
/// partial id, the one bead whose id starts with it (tombstones aside). Several such
/// beads fail as [`BeadError::AmbiguousId`], naming them; none leaves `id` as it is,
/// for the caller to report missing.
fn whole_or_start(store: &Store, id: BeadId) -> Result<BeadId> {
    let Some(head) = store.head()? else {
        return Ok(id);
    };
    if store.read_bead(head.tree, &id)?.is_some() {
        return Ok(id);
    }
    let indexes = main_and_wisps(store)?;
    if indexes[1..].iter().any(|w| w.get(id.as_str()).is_some()) {
        return Ok(id);
    }
    let mut matches = ids_where(&indexes, |s| s.starts_with(id.as_str()));
    match matches.len() {
        0 => Ok(id),
        1 => Ok(matches.remove(0)),
        _ => {
            matches.sort();
            Err(BeadError::AmbiguousId {
                given: id.to_string(),
                matches,
            }
            .into())
        }
    }
}

/// The index of `refs/beads/main`, then that of this machine's wisps where it made
/// any: where an id given in part is looked for.
fn main_and_wisps(store: &Store) -> Result<Vec<Index>> {
    let mut indexes = vec![load_index(store)?];
    indexes.extend(store.wisp_index()?.map(|(_, wisps)| wisps));
    Ok(indexes)
}

/// The ids of the beads of `indexes` (tombstones aside) that `keep` accepts.
fn ids_where(indexes: &[Index], keep: impl Fn(&str) -> bool) -> Vec<BeadId> {
    (indexes.iter())
        .flat_map(Index::rows)
        .filter(|s| s.status() != Status::Deleted && keep(s.id()))
        .filter_map(|s| BeadId::parse(s.id()).ok())
        .collect()
}

/// Fails with [`BeadError::NotFound`] unless the store has bead `id` (a tombstone
/// too).
pub fn require_bead(store: &Store, id: &BeadId) -> Result<()> {
    let head = store.require_head()?;
    match store.read_bead(head.tree, id)? {
        Some(_) => Ok(()),
        None => Err(BeadError::NotFound(id.clone()).into()),
    }
}

/// A bead with the store read around it, as `show` prints it.
#[derive(Clone, Debug)]
pub struct Detailed {
    /// The bead.
    pub bead: Bead,
    /// Per dependency, in the bead's order: the bead depended on, when it is in the store.
    pub targets: Vec<Option<Summary>>,
    /// How many beads depend on this one (any kind of dependency).
    pub dependent_count: usize,
    /// The beads that depend on this one (what waits on it, an epic's children), each
    /// with how it depends, in id order: what `bd show` lists under CHILDREN and
    /// BLOCKS and writes as `dependents`.
    pub dependents: Vec<(Summary, DepKind)>,
}

/// The beads that depend on `id` (deleted ones aside), each with how: bd's
/// `dep list --direction up`.
pub fn dependents_of(store: &Store, id: &BeadId) -> Result<Vec<(Summary, DepKind)>> {
    sound(store, || Ok(dependents_in(&load_lazy(store)?, id.as_str())))
}

/// Reads the store around `beads`: what each depends on, how many depend on each.
pub fn detail(store: &Store, beads: Vec<Bead>) -> Result<Vec<Detailed>> {
    sound(store, || detail_in(&load_lazy(store)?, beads.clone()))
}

/// [`detail`], in `index`.
fn detail_in(index: &Index, beads: Vec<Bead>) -> Result<Vec<Detailed>> {
    let rows: Vec<Option<Row>> = beads
        .iter()
        .map(|b| index.get(b.id.as_str()).map(|r| r.row()))
        .collect();
    let found: Vec<Row> = rows.iter().flatten().copied().collect();
    let dependents = Dependents::among(index, &found);
    Ok(beads
        .into_iter()
        .zip(rows)
        .map(|(bead, row)| {
            let targets = bead
                .dependencies
                .iter()
                .map(|d| index.get(d.id.as_str()).map(|t| t.to_summary()))
                .collect();
            let dependent_count = row.map_or(0, |r| dependents.count(&index.row(r)));
            // Only a bead something depends on pays for the walk over the store.
            let dependents = match dependent_count {
                0 => Vec::new(),
                _ => dependents_in(index, bead.id.as_str()),
            };
            Detailed {
                bead,
                targets,
                dependent_count,
                dependents,
            }
        })
        .collect())
}

/// The beads of `index` that depend on bead `id`, each with how, in id order.
fn dependents_in(index: &Index, id: &str) -> Vec<(Summary, DepKind)> {
    let mut found: Vec<(Summary, DepKind)> = index
        .edges_into(id)
        .into_iter()
        .filter(|(s, _)| s.status() != Status::Deleted)
        .map(|(s, kind)| (s.to_summary(), kind))
        .collect();
    found.sort_by(|a, b| (a.0.id.as_str(), a.1.as_str()).cmp(&(b.0.id.as_str(), b.1.as_str())));
    found
}

/// How many beads depend on each of some beads of an index (those it was worked out
/// for), by row.
pub struct Dependents {
    /// The rows, sorted, and how many depend on each.
    counts: Vec<(Row, usize)>,
}

impl Dependents {
    /// The counts of `rows`, in one pass over the index's dependencies.
    fn among(index: &Index, rows: &[Row]) -> Dependents {
        let mut counts: Vec<(Row, usize)> = rows
            .iter()
            .copied()
            .zip(index.dependents_of(rows))
            .collect();
        counts.sort_unstable();
        counts.dedup();
        Dependents { counts }
    }

    /// How many beads depend on `s` (one of the beads it was worked out for).
    pub fn count(&self, s: &BeadRow<'_>) -> usize {
        self.counts
            .binary_search_by(|(r, _)| r.cmp(&s.row()))
            .map_or(0, |k| self.counts[k].1)
    }
}

/// Which beads a listing keeps, and in what order it lists them.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    /// Only these statuses; when empty, every status but closed and deleted
    /// (closed too when `all` is set).
    pub statuses: Vec<Status>,
    /// Only these types (any of them).
    pub kinds: Vec<BeadType>,
    /// None of these types.
    pub exclude_kinds: Vec<BeadType>,
    /// Only these priorities (any of them).
    pub priorities: Vec<u8>,
    /// Only beads assigned to this name.
    pub assignee: Option<String>,
    /// Only beads assigned to nobody.
    pub unassigned: bool,
    /// Only beads carrying every one of these labels.
    pub labels: Vec<String>,
    /// Only beads carrying at least one of these labels.
    pub labels_any: Vec<String>,
    /// Only beads carrying none of these labels.
    pub exclude_labels: Vec<String>,
    /// Only the descendants of this bead (through `parent-child`, at any depth).
    pub parent: Option<String>,
    /// Only beads whose title contains this text (case-insensitive).
    pub title_contains: Option<String>,
    /// Only beads whose description contains this text (case-insensitive; read from
    /// each bead's document).
    pub desc_contains: Option<String>,
    /// Only beads made after this time.
    pub created_after: Option<crate::model::Timestamp>,
    /// Only beads whose bd metadata has each of these keys with this value (a string
    /// value as it is, any other as its JSON text; read from each bead's document).
    pub metadata: Vec<(String, String)>,
    /// Include closed beads.
    pub all: bool,
    /// Statuses that a listing naming none leaves out besides closed and deleted: the
    /// project's done and frozen ones (`list` fills it from the settings).
    pub hidden: Vec<Status>,
    /// The order.
    pub sort: Sort,
    /// The order reversed.
    pub reverse: bool,
    /// At most this many (0: no limit).
    pub limit: usize,
}

/// The order of a listing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sort {
    /// Highest priority first, then oldest (bd's `priority`).
    #[default]
    Priority,
    /// Oldest first.
    Oldest,
    /// Newest first (bd's `created`).
    Created,
    /// Most recently changed first.
    Updated,
    /// By id.
    Id,
    /// By title.
    Title,
    /// By status, then priority.
    Status,
    /// Closed beads first, the most recently changed (closed, as a rule) first.
    Closed,
    /// By type.
    Type,
    /// By assignee, the unassigned first.
    Assignee,
    /// bd's `hybrid`: what was made in the last 48 hours by priority first, then the
    /// rest oldest first.
    Hybrid,
}

impl ListFilter {
    /// Whether the filter keeps a bead of `status`, its other fields aside.
    fn keeps_status(&self, status: Status) -> bool {
        if self.statuses.is_empty() {
            match status {
                Status::Deleted => false,
                Status::Closed => self.all,
                s => self.all || !self.hidden.contains(&s),
            }
        } else {
            self.statuses.contains(&status)
        }
    }

    /// Whether the filter looks at nothing of a bead but its status.
    fn by_status_alone(&self) -> bool {
        let ListFilter {
            statuses: _,
            kinds,
            exclude_kinds,
            priorities,
            assignee,
            unassigned,
            labels,
            labels_any,
            exclude_labels,
            parent,
            title_contains,
            desc_contains,
            created_after,
            metadata,
            all: _,
            hidden: _,
            sort: _,
            reverse: _,
            limit: _,
        } = self;
        kinds.is_empty()
            && exclude_kinds.is_empty()
            && priorities.is_empty()
            && assignee.is_none()
            && !unassigned
            && labels.is_empty()
            && labels_any.is_empty()
            && exclude_labels.is_empty()
            && parent.is_none()
            && title_contains.is_none()
            && desc_contains.is_none()
            && created_after.is_none()
            && metadata.is_empty()
    }

    /// Whether the filter looks into the beads' documents (not only the index).
    fn reads_documents(&self) -> bool {
        self.desc_contains.is_some() || !self.metadata.is_empty()
    }

    /// Whether `bead`'s document passes the filters the index cannot answer
    /// (`desc_contains`, `metadata`).
    pub fn keeps_document(&self, bead: &Bead) -> bool {
        let meta = bead.extra.get("metadata");
        self.desc_contains
            .as_deref()
            .is_none_or(|t| contains_folded(&bead.description, t))
            && self
                .metadata
                .iter()
                .all(|(k, want)| match meta.and_then(|m| m.get(k)) {
                    Some(serde_json::Value::String(s)) => s == want,
                    Some(serde_json::Value::Null) | None => false,
                    Some(other) => {
                        serde_json::from_str::<serde_json::Value>(want).is_ok_and(|w| w == *other)
                    }
                })
    }

    /// Whether the filter keeps bead `s` (its limit and order aside).
    pub fn keeps(&self, s: &BeadRow<'_>) -> bool {
        let kind = s.kind();
        self.keeps_status(s.status())
            && (self.kinds.is_empty() || self.kinds.contains(&kind))
            && !self.exclude_kinds.contains(&kind)
            && (self.priorities.is_empty() || self.priorities.contains(&s.priority()))
            && self
                .assignee
                .as_deref()
                .is_none_or(|a| s.assignee() == Some(a))
            && (!self.unassigned || s.assignee().is_none())
            && self.labels.iter().all(|l| s.has_label(l))
            && (self.labels_any.is_empty() || self.labels_any.iter().any(|l| s.has_label(l)))
            && !self.exclude_labels.iter().any(|l| s.has_label(l))
            && self
                .title_contains
                .as_deref()
                .is_none_or(|t| contains_folded(s.title(), t))
            && self.parent.as_deref().is_none_or(|p| descends_from(*s, p))
            && self.created_after.is_none_or(|t| s.created_at() > t)
    }
}

/// Whether `text` contains `needle`, ignoring case.
fn contains_folded(text: &str, needle: &str) -> bool {
    text.to_lowercase().contains(&needle.to_lowercase())
}

/// Whether `s` is a descendant of bead `parent` through `parent-child` links (a
/// cycle that arrived by sync ends the walk).
fn descends_from(s: BeadRow<'_>, parent: &str) -> bool {
    let mut at = s;
    for _ in 0..MAX_DEPTH {
        let Some(up) = at.dependencies().find(|d| d.kind == DepKind::ParentChild) else {
            return false;
        };
        if up.id() == parent {
            return true;
        }
        match up.target {
            Some(t) => at = t,
            None => return false,
        }
    }
    false
}

/// How far up a chain of parents a walk goes.
const MAX_DEPTH: usize = 64;

/// Beads found by a query, read in place from the index, plus the documents that
/// could not be read.
pub struct Listing {
    index: Index,
    rows: Vec<Row>,
    /// How many matched before the limit cut the list: known when every bead was
    /// looked at, else counted when asked for.
    total: std::cell::OnceCell<usize>,
    /// The query and its filter, to count every match of a listing whose page was
    /// read off the front of the index.
    query: (Query, ListFilter),
    /// Which beads of the index failed, for counting ready beads.
    failures: Failures,
    /// How many beads depend on each bead listed.
    dependents: Dependents,
    /// Documents in the store that do not parse (reported, never hidden).
    pub broken: Vec<Broken>,
}

impl Listing {
    /// The beads, in the order of the query.
    pub fn beads(&self) -> impl ExactSizeIterator<Item = BeadRow<'_>> {
        self.rows.iter().map(|&r| self.index.row(r))
    }

    /// How many beads depend on each bead listed.
    pub fn dependents(&self) -> &Dependents {
        &self.dependents
    }

    /// The stamp of the table its beads are read from (see [`BeadRow::table_row`]).
    pub fn table_stamp(&self) -> TableStamp {
        self.index.table_stamp()
    }

    /// How many beads matched before the limit cut the list.
    pub fn total(&self) -> usize {
        *self.total.get_or_init(|| {
            let (query, filter) = &self.query;
            query.count(&self.index, filter, &self.failures)
        })
    }
}

/// Whether `s` is work (not a container: an epic's or a molecule's open children are
/// the work) that `filter` keeps; ready when nothing unfinished blocks it too.
fn is_work(s: &BeadRow<'_>, filter: &ListFilter) -> bool {
    !s.kind().is_container() && filter.keeps(s)
}

/// What a listing lists.
#[derive(Clone, Copy, Debug)]
enum Query {
    /// The beads the filter keeps.
    List,
    /// Of those, the open work that nothing unfinished blocks (see [`ready`]).
    Ready,
}

impl Query {
    /// How many beads of `index` it lists under `filter` (its limit aside).
    fn count(self, index: &Index, filter: &ListFilter, failures: &Failures) -> usize {
        let mut keep = self.keeper(index, filter, failures);
        index.rows().filter(|&s| keep(s)).count()
    }

    /// Whether a bead is listed: a test whose memo (the blockers worked out so far)
    /// lives as long as it does.
    fn keeper<'a>(
        self,
        index: &'a Index,
        filter: &'a ListFilter,
        failures: &'a Failures,
    ) -> Box<dyn FnMut(BeadRow<'a>) -> bool + 'a> {
        match self {
            Query::List => Box::new(move |s| filter.keeps(&s)),
            Query::Ready => {
                let mut blockers = Blockers::new(index, failures);
                Box::new(move |s| is_work(&s, filter) && blockers.of(s).is_empty())
            }
        }
    }
}

/// The order `sort` asks for; ties go by id.
fn order(index: &Index, sort: Sort, reverse: bool) -> impl Fn(&Row, &Row) -> Ordering + '_ {
    let hybrid_since = now().timestamp_micros() - 48 * 3_600_000_000;
    move |&a, &b| {
        let (a, b) = (index.row(a), index.row(b));
        let by = match sort {
            Sort::Priority => (a.priority(), a.created_us()).cmp(&(b.priority(), b.created_us())),
            Sort::Oldest => a.created_us().cmp(&b.created_us()),
            Sort::Created => b.created_us().cmp(&a.created_us()),
            Sort::Updated => b.updated_us().cmp(&a.updated_us()),
            Sort::Id => Ordering::Equal,
            Sort::Title => a.title().cmp(b.title()),
            Sort::Status => (a.status(), a.priority()).cmp(&(b.status(), b.priority())),
            Sort::Closed => {
                let open = |r: &BeadRow<'_>| r.status() != Status::Closed;
                (open(&a), b.updated_us()).cmp(&(open(&b), a.updated_us()))
            }
            Sort::Type => a.kind().as_str().cmp(b.kind().as_str()),
            Sort::Assignee => a.assignee().cmp(&b.assignee()),
            Sort::Hybrid => {
                let recent = |r: &BeadRow<'_>| r.created_us() >= hybrid_since;
                match (recent(&a), recent(&b)) {
                    (true, true) => a.priority().cmp(&b.priority()),
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    (false, false) => a.created_us().cmp(&b.created_us()),
                }
            }
        };
        let by = by.then_with(|| a.id().cmp(b.id()));
        if reverse { by.reverse() } else { by }
    }
}

/// The listing of what `query` finds in `index` under `filter` (or of `found`, when
/// the beads were found already): its first `filter.limit` (all for 0) in `filter`'s
/// order.
///
/// A page in the table's own order (by priority, not reversed) is read off the front
/// of the table, merged with the beads changed since it was written: the beads past
/// the page are never looked at, and the total is counted only when asked for.
/// Otherwise every match is found, the page picked in linear time (ties are broken by
/// id, so the order is total and the page the same), and only it is sorted.
fn listing(
    (index, failures): (Index, Failures),
    filter: &ListFilter,
    query: Query,
    found: Option<Vec<Row>>,
) -> Listing {
    let broken = index.broken().to_vec();
    let total = std::cell::OnceCell::new();
    let by_table = filter.limit > 0 && filter.sort == Sort::Priority && !filter.reverse;
    let rows = match found {
        None if by_table => {
            let rows = first_page(
                &index,
                filter.limit,
                query.keeper(&index, filter, &failures),
            );
            if rows.len() < filter.limit {
                let _ = total.set(rows.len());
            }
            rows
        }
        found => {
            let mut rows = found.unwrap_or_else(|| {
                let mut keep = query.keeper(&index, filter, &failures);
                index.rows().filter(|&s| keep(s)).map(|s| s.row()).collect()
            });
            let _ = total.set(rows.len());
            let order = order(&index, filter.sort, filter.reverse);
            if filter.limit > 0 && filter.limit < rows.len() {
                rows.select_nth_unstable_by(filter.limit, &order);
                rows.truncate(filter.limit);
            }
            rows.sort_by(&order);
            rows
        }
    };
    index.touch(&rows);
    // Worked out here, not when printed: a damaged piece it reads is found while the
    // read can still be made again.
    let dependents = Dependents::among(&index, &rows);
    Listing {
        rows,
        total,
        query: (query, filter.clone()),
        failures,
        dependents,
        broken,
        index,
    }
}

/// The first `limit` beads `keep` keeps, by priority, then age, then id: the table's
/// rows in their order, merged with the changed beads kept, sorted.
fn first_page<'a>(
    index: &'a Index,
    limit: usize,
    mut keep: impl FnMut(BeadRow<'a>) -> bool,
) -> Vec<Row> {
    let order = order(index, Sort::Priority, false);
    let mut changed: Vec<Row> = index
        .changed_rows()
        .filter(|&s| keep(s))
        .map(|s| s.row())
        .collect();
    changed.sort_by(&order);
    let mut changed = changed.into_iter().peekable();
    let mut page = Vec::with_capacity(limit.min(1024));
    let table = index.listed_rows().filter(|&s| keep(s)).map(|s| s.row());
    for r in table {
        while let Some(c) = changed.next_if(|c| order(c, &r) == Ordering::Less) {
            page.push(c);
        }
        page.push(r);
        if page.len() >= limit {
            break;
        }
    }
    page.extend(changed);
    page.truncate(limit);
    page
}

/// The commit `refs/beads/main` points at (empty before `init`): one ref read, which
/// tells a long-lived reader (the board, the MCP server) whether anything changed.
pub fn head_commit(store: &Store) -> Result<String> {
    Ok(store
        .head_id()?
        .map(|commit| commit.to_string())
        .unwrap_or_default())
}

/// The beads part of the index (every query here reads the beads, none the mail).
pub(crate) fn load_index(store: &Store) -> Result<Index> {
    let head = store.require_head()?;
    Ok(store.index_parts(&head, &[Part::Beads])?)
}

/// The beads part of the index, and which of its beads failed, at one head.
fn load_with_failures(store: &Store) -> Result<(Index, Failures)> {
    let head = store.require_head()?;
    Ok((
        store.index_parts(&head, &[Part::Beads])?,
        Failures::at(store, &head),
    ))
}

/// Which done beads failed ([`Bead::failed`]), read from their documents at the
/// commit an index was built from, when a `conditional-blocks` dependency asks: the
/// index keeps no close reason, and such dependencies are few.
#[derive(Clone)]
struct Failures {
    store: Store,
    tree: ObjectId,
}

impl Failures {
    fn at(store: &Store, head: &Head) -> Self {
        Failures::at_tree(store, head.tree)
    }

    /// Which done beads failed, as of `tree`.
    fn at_tree(store: &Store, tree: ObjectId) -> Self {
        Failures {
            store: store.clone(),
            tree,
        }
    }

    /// Whether bead `id` failed; a document that cannot be read did not.
    fn failed(&self, id: &str) -> bool {
        BeadId::parse(id)
            .ok()
            .and_then(|id| self.store.read_bead(self.tree, &id).ok().flatten())
            .is_some_and(|b| b.failed())
    }
}

/// The beads part of the index, its table checked as it is read: for a read under
/// [`sound`] only.
fn load_lazy(store: &Store) -> Result<Index> {
    let head = store.require_head()?;
    Ok(store.index_parts(&head, &[Part::LazyBeads])?)
}

/// What `read` gives, from an index read under it with [`load_lazy`]: when the read
/// came upon a damaged piece of the cache (what it read of it then was empty), the
/// cache is built again from the store and the read done again.
fn sound<T>(store: &Store, read: impl Fn() -> Result<T>) -> Result<T> {
    let seen = crate::store::damage_seen();
    let out = read()?;
    if crate::store::damage_seen() == seen {
        return Ok(out);
    }
    drop(out);
    store.index_rebuild(&store.require_head()?)?;
    read()
}

/// The beads `part` of the index (checked as it is read for [`Part::LazyBeads`]: see
/// [`sound`]), and the project's own types and statuses, both read at one head (one
/// ref read for the two). [`Part::Beads`] checks the whole table first, for a read
/// that needs every byte of it; its reads then need no check each.
fn index_and_words(store: &Store, part: Part) -> Result<((Index, Failures), Vocabulary)> {
    let head = store.require_head()?;
    Ok((
        (
            store.index_parts(&head, &[part])?,
            Failures::at(store, &head),
        ),
        words_at(store, &head)?,
    ))
}

/// The project's words (its own types and statuses) as of `head`.
fn words_at(store: &Store, head: &Head) -> Result<Vocabulary> {
    let settings = store.read_config(head)?.unwrap_or_default();
    Ok(Vocabulary::of(&settings))
}

/// `filter` as the project's words complete it: the statuses and types it names
/// must be built in or the project's own, and a listing that names no status leaves
/// out the project's done and frozen statuses (bd's categories).
fn completed(words: &Vocabulary, filter: &ListFilter) -> Result<ListFilter> {
    for &k in filter.kinds.iter().chain(&filter.exclude_kinds) {
        words.check_type(k)?;
    }
    for &s in &filter.statuses {
        words.check_status(s)?;
    }
    let mut filter = filter.clone();
    if filter.statuses.is_empty() && !filter.all {
        filter.hidden = [Category::Done, Category::Frozen]
            .into_iter()
            .flat_map(|c| words.statuses_in(c))
            .collect();
    }
    Ok(filter)
}

/// Lists beads, highest priority first, then oldest.
pub fn list(store: &Store, filter: &ListFilter) -> Result<Listing> {
    sound(store, || {
        let ((index, failures), words) = index_and_words(store, Part::LazyBeads)?;
        let filter = completed(&words, filter)?;
        let found = match filter.reads_documents() {
            true => {
                let rows = index.rows().filter(|s| filter.keeps(s)).map(|s| s.row());
                let tree = store.require_head()?.tree;
                Some(with_documents(
                    store,
                    tree,
                    &index,
                    &filter,
                    rows.collect(),
                )?)
            }
            false => None,
        };
        Ok(listing((index, failures), &filter, Query::List, found))
    })
}

/// This machine's wisps (bd's ephemeral beads, kept apart from the store's history)
/// that `filter` keeps, as [`list`] lists the store's beads; `None` where no wisp was
/// ever made here. bd's `list --include-infra` adds them to its list.
pub fn list_wisps_matching(store: &Store, filter: &ListFilter) -> Result<Option<Listing>> {
    let Some((head, index)) = store.wisp_index()? else {
        return Ok(None);
    };
    let filter = completed(&words_at(store, &store.require_head()?)?, filter)?;
    let rows = index.rows().filter(|s| filter.keeps(s)).map(|s| s.row());
    let rows = with_documents(store, head.tree, &index, &filter, rows.collect())?;
    let failures = Failures::at(store, &head);
    Ok(Some(listing(
        (index, failures),
        &filter,
        Query::List,
        Some(rows),
    )))
}

/// The `rows` whose documents in `tree` pass `filter`'s document filters (all of them
/// when it has none). A document that cannot be read is left out (the listing reports
/// the index's broken ones).
fn with_documents(
    store: &Store,
    tree: ObjectId,
    index: &Index,
    filter: &ListFilter,
    rows: Vec<Row>,
) -> Result<Vec<Row>> {
    if !filter.reads_documents() {
        return Ok(rows);
    }
    let mut kept = Vec::with_capacity(rows.len());
    for row in rows {
        let Ok(id) = BeadId::parse(index.row(row).id()) else {
            continue;
        };
        if let Ok(Some(bead)) = store.read_bead(tree, &id)
            && filter.keeps_document(&bead)
        {
            kept.push(row);
        }
    }
    Ok(kept)
}

/// How many beads `filter` keeps (its limit and order aside), counted without listing
/// them, and the documents in the store that do not parse. A filter of statuses alone
/// is answered from the counts kept beside the index's table (see [`Tally`]).
pub fn count(store: &Store, filter: &ListFilter) -> Result<(usize, Vec<Broken>)> {
    if filter.by_status_alone() {
        let tallied = sound(store, || {
            let ((index, failures), words) = index_and_words(store, Part::LazyBeads)?;
            let filter = completed(&words, filter)?;
            Ok(Tally::kept(store, &index, &failures).map(|tally| {
                let counted = tally
                    .beads
                    .iter()
                    .filter(|((s, ..), _)| filter.keeps_status(*s));
                let n = counted.map(|(_, &n)| usize::try_from(n).unwrap_or(0)).sum();
                (n, index.broken().to_vec())
            }))
        })?;
        if let Some(counted) = tallied {
            return Ok(counted);
        }
    }
    // Read a piece at a time: a count reads a few columns of every row, not the file.
    sound(store, || {
        let ((index, failures), words) = index_and_words(store, Part::LazyBeads)?;
        let filter = &completed(&words, filter)?;
        Ok((
            Query::List.count(&index, filter, &failures),
            index.broken().to_vec(),
        ))
    })
}

/// What `count` groups beads by (bd's `--by-*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountBy {
    /// By status.
    Status,
    /// By priority, as `P0` … `P4`.
    Priority,
    /// By type.
    Type,
    /// By assignee; nobody's under `(unassigned)`.
    Assignee,
    /// By label, a bead under each of its labels; none under `(no labels)`.
    Label,
}

/// How many beads `filter` keeps in all, and per group of `by` (sorted by name), as
/// bd's `count --by-*` answers; and the documents in the store that do not parse.
pub fn count_by(
    store: &Store,
    filter: &ListFilter,
    by: CountBy,
) -> Result<(usize, BTreeMap<String, usize>, Vec<Broken>)> {
    let filter = ListFilter {
        limit: 0,
        ..filter.clone()
    };
    let listing = list(store, &filter)?;
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    let mut add = |group: String| *groups.entry(group).or_default() += 1;
    for s in listing.beads() {
        match by {
            CountBy::Status => add(s.status().as_str().to_owned()),
            CountBy::Priority => add(format!("P{}", s.priority())),
            CountBy::Type => add(s.kind().as_str().to_owned()),
            CountBy::Assignee => add(s.assignee().unwrap_or("(unassigned)").to_owned()),
            CountBy::Label => {
                let mut labels = s.labels().peekable();
                if labels.peek().is_none() {
                    add("(no labels)".to_owned());
                }
                labels.for_each(|l| add(l.to_owned()));
            }
        }
    }
    let total = listing.beads().len();
    Ok((total, groups, listing.broken))
}

/// Finds beads whose id, title or description contains `text` (case-insensitive),
/// among those `filter` keeps as [`list`] keeps them: closed beads only with `all` or
/// when it asks for them by status, deleted ones only by status.
pub fn search(store: &Store, text: &str, filter: &ListFilter) -> Result<Listing> {
    sound(store, || {
        let head = store.require_head()?;
        let filter = completed(&words_at(store, &head)?, filter)?;
        let (index, found) = store.index_search(&head, text)?;
        let rows = found
            .into_iter()
            .filter(|&r| filter.keeps(&index.row(r)))
            .collect();
        let rows = with_documents(store, head.tree, &index, &filter, rows)?;
        let failures = Failures::at(store, &head);
        Ok(listing((index, failures), &filter, Query::List, Some(rows)))
    })
}

/// One thing that keeps a bead from being ready.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum By {
    /// An unfinished bead of the store.
    Row(Row),
    /// An item of another project (`external:<project>:<id>`): nothing here can show
    /// it done, so it stays unresolved, as bd counts it.
    External(Box<str>),
}

/// Whether a dependency of `kind` on `target` holds its bead back, for the kinds that
/// wait on the other bead itself: `blocks` until it is done, `conditional-blocks`
/// until it failed (when it succeeds, the bead stays held, as bd holds it; a deleted
/// one holds nothing, as in bd).
fn waits_on(kind: DepKind, target: &BeadRow<'_>, failures: &Failures) -> bool {
    let status = target.status();
    match kind {
        DepKind::Blocks => !status.is_done(),
        DepKind::ConditionalBlocks => {
            status != Status::Deleted && !(status.is_done() && failures.failed(target.id()))
        }
        _ => false,
    }
}

/// Works out, for every bead, what keeps it from being ready.
struct Blockers<'f> {
    /// Per row: 0 not worked out yet, 1 nothing blocks it (or it is being worked out),
    /// `k + 2` blocked by the `k`th list of `found`. Four bytes a bead, in pages made
    /// when a row of theirs is first worked out: a page of `ready` looks at a few
    /// hundred beads, and zeroing a memo of every bead (400 KB at 100 000) cost more
    /// than that.
    state: Vec<Option<Box<[u32; MEMO_PAGE]>>>,
    found: Found,
    /// Lists emptied after use, for the next beads to be worked out in: a list of its
    /// own for each of tens of thousands of blocked beads cost a fifth of `blocked`.
    spare: Vec<Vec<By>>,
    failures: &'f Failures,
}

/// The lists of what blocks each bead, one after the other.
#[derive(Default)]
struct Found {
    all: Vec<By>,
    /// Where each list ends in `all` (it starts where the one before ends).
    ends: Vec<usize>,
}

impl Found {
    /// The `k`th list.
    fn list(&self, k: usize) -> &[By] {
        let start = k.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.all[start..self.ends[k]]
    }

    /// Adds `list` at the end; its number.
    fn push(&mut self, list: &[By]) -> usize {
        self.all.extend_from_slice(list);
        self.ends.push(self.all.len());
        self.ends.len() - 1
    }
}

/// How many beads a page of [`Blockers`]' memo holds.
const MEMO_PAGE: usize = 1024;

impl<'f> Blockers<'f> {
    fn new(index: &Index, failures: &'f Failures) -> Self {
        Blockers {
            state: vec![None; index.row_count().div_ceil(MEMO_PAGE)],
            found: Found::default(),
            spare: Vec::new(),
            failures,
        }
    }

    /// What the memo says of row `at`.
    fn state(&self, at: usize) -> u32 {
        self.state[at / MEMO_PAGE]
            .as_ref()
            .map_or(0, |page| page[at % MEMO_PAGE])
    }

    /// Records `state` for row `at`.
    fn set_state(&mut self, at: usize, state: u32) {
        let page = self.state[at / MEMO_PAGE].get_or_insert_with(|| Box::new([0; MEMO_PAGE]));
        page[at % MEMO_PAGE] = state;
    }

    /// Where in `found` the list of what blocks `s` is ([`Blockers::of`]), when
    /// anything does.
    fn found_at(&mut self, s: BeadRow<'_>) -> Option<usize> {
        match self.of(s).is_empty() {
            true => None,
            false => (self.state(s.row().get()) as usize).checked_sub(2),
        }
    }

    /// The beads that block `s`: unfinished `blocks` targets, `conditional-blocks`
    /// targets that did not fail, and whatever blocks its parent (a blocked or
    /// deferred parent blocks its children), transitively; and items of other
    /// projects it waits on.
    fn of(&mut self, s: BeadRow<'_>) -> &[By] {
        let at = s.row().get();
        match self.state(at) {
            0 => {}
            1 => return &[],
            k => return self.found.list(k as usize - 2),
        }
        // Guards against parent-child cycles that arrived by sync or import.
        self.set_state(at, 1);
        let mut out = self.spare.pop().unwrap_or_default();
        for d in s.dependencies() {
            let Some(target) = d.target else {
                if d.kind.is_blocking() && d.is_external() {
                    out.push(By::External(d.id().into()));
                }
                continue;
            };
            match d.kind {
                DepKind::ParentChild => {
                    if matches!(target.status(), Status::Blocked | Status::Deferred) {
                        out.push(By::Row(target.row()));
                    }
                    out.extend_from_slice(self.of(target));
                }
                kind if waits_on(kind, &target, self.failures) => out.push(By::Row(target.row())),
                _ => {}
            }
        }
        if out.is_empty() {
            self.spare.push(out);
            return &[];
        }
        out.sort_unstable();
        out.dedup();
        let k = self.found.push(&out);
        out.clear();
        self.spare.push(out);
        self.set_state(at, u32::try_from(k + 2).unwrap_or(u32::MAX));
        self.found.list(k)
    }
}

/// Works out, for every bead, whether anything keeps it from being ready: whether
/// [`Blockers::of`] finds anything, without listing it (for counting). It walks the
/// same links in the same order, so that it answers the same even in a parent-child
/// cycle that arrived by sync (where the memo's order shows).
struct Held<'f> {
    /// Per row: 0 not worked out yet, 1 nothing blocks it, 2 something does, 3 being
    /// worked out.
    state: Vec<u8>,
    failures: &'f Failures,
    /// Whether a walk came back to a bead it was working out (a cycle that arrived by
    /// sync or import): its answers then depend on where the walk started.
    cyclic: bool,
}

impl<'f> Held<'f> {
    fn new(index: &Index, failures: &'f Failures) -> Self {
        Held {
            state: vec![0; index.row_count()],
            failures,
            cyclic: false,
        }
    }

    /// Whether anything blocks `s` (see [`Blockers::of`]).
    fn of(&mut self, s: BeadRow<'_>) -> bool {
        let at = s.row().get();
        match self.state[at] {
            0 => {}
            1 => return false,
            2 => return true,
            _ => {
                self.cyclic = true;
                return false;
            }
        }
        self.state[at] = 3;
        let mut held = false;
        for d in s.dependencies() {
            let Some(target) = d.target else {
                held |= d.kind.is_blocking() && d.is_external();
                continue;
            };
            match d.kind {
                DepKind::ParentChild => {
                    let parent = matches!(target.status(), Status::Blocked | Status::Deferred);
                    // Walked whatever it finds, as `Blockers::of` walks it.
                    held |= self.of(target) | parent;
                }
                kind => held |= waits_on(kind, &target, self.failures),
            }
        }
        self.state[at] = if held { 2 } else { 1 };
        held
    }
}

/// `filter` for [`ready`]: open beads and those of the project's active statuses
/// only, whatever statuses it names.
fn open_only(filter: &ListFilter, words: &Vocabulary) -> ListFilter {
    ListFilter {
        statuses: std::iter::once(Status::Open)
            .chain(words.statuses_in(Category::Active))
            .collect(),
        ..filter.clone()
    }
}

/// The beads `filter` keeps (its statuses aside) that are open or of one of the
/// project's active statuses, that are work, not containers, and that nothing
/// unfinished blocks.
fn ready_in(
    index: &Index,
    failures: &Failures,
    filter: &ListFilter,
    words: &Vocabulary,
) -> Vec<Row> {
    let filter = open_only(filter, words);
    let mut keep = Query::Ready.keeper(index, &filter, failures);
    index.rows().filter(|&s| keep(s)).map(|s| s.row()).collect()
}

/// Open work (the project's active statuses too) with no unfinished blocker,
/// transitively, that `filter` keeps (epics and molecules are left out: their open
/// children are the work); in `filter`'s order.
pub fn ready(store: &Store, filter: &ListFilter) -> Result<Listing> {
    sound(store, || {
        let (index, words) = index_and_words(store, Part::LazyBeads)?;
        let filter = &completed(&words, filter)?;
        Ok(listing(
            index,
            &open_only(filter, &words),
            Query::Ready,
            None,
        ))
    })
}

/// Claims the first ready bead `filter` keeps (that nobody else holds) for `actor`,
/// atomically. Returns `None` when nothing is ready.
pub fn ready_claim(store: &Store, actor: &Actor, filter: &ListFilter) -> Result<Option<Bead>> {
    permit(actor, crate::model::Capability::Claim)?;
    let claimed = write(store, actor, |tx| {
        let words = Vocabulary::of(&tx.settings()?);
        let failures = match tx.head() {
            Some(head) => Failures::at(store, head),
            None => return Ok(None),
        };
        for id in claim_candidates(tx.index()?, &failures, actor, filter, &words) {
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
fn claim_candidates(
    index: &Index,
    failures: &Failures,
    actor: &Actor,
    filter: &ListFilter,
    words: &Vocabulary,
) -> Vec<String> {
    let mut candidates = ready_in(index, failures, filter, words);
    candidates.sort_by(order(index, filter.sort, filter.reverse));
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

/// The ready bead `actor` should try to claim next on a claim remote: of those
/// `filter` keeps that nobody else holds and that are not in `lost`, spread over a
/// fleet of claimers by name (see [`spread`]).
pub(crate) fn next_to_claim(
    store: &Store,
    actor: &Actor,
    filter: &ListFilter,
    words: &Vocabulary,
    lost: &BTreeSet<String>,
) -> Result<Option<BeadId>> {
    let (index, failures) = load_with_failures(store)?;
    let candidates: Vec<String> = claim_candidates(&index, &failures, actor, filter, words)
        .into_iter()
        .filter(|id| !lost.contains(id))
        .collect();
    Ok(match spread(&index, candidates, &actor.id) {
        Some(id) => Some(BeadId::parse(&id)?),
        None => None,
    })
}

/// Every unfinished bead that waits on others, with what it waits on, read in place
/// from the index, plus the documents that could not be read.
pub struct Blocked {
    index: Index,
    /// Each blocked bead, with where in `by` what blocks it is.
    rows: Vec<(Row, usize)>,
    /// The lists of what blocks each bead ([`Blockers`]' own).
    by: Found,
    /// Documents in the store that do not parse (reported, never hidden).
    pub broken: Vec<Broken>,
    /// The tree of the store it was worked out of.
    tree: ObjectId,
    /// Whether it holds every blocked bead of the store (no `parent` narrowed it).
    whole: bool,
}

/// What [`Blocked::keeper`] kept of a store's blocked beads at its head: the document
/// printed of them, and the documents of the store that do not parse.
pub struct KeptBlocked {
    /// Documents in the store that do not parse, reported when it was printed.
    pub broken: Vec<Broken>,
    answer: crate::store::Answer,
}

impl KeptBlocked {
    /// The document, byte for byte as it was printed.
    pub fn document(&self) -> &[u8] {
        self.answer.document()
    }
}

/// The document printed of every blocked bead of the store at its head, when this
/// build printed one at the same head before and kept it ([`Blocked::keeper`]).
pub fn kept_blocked(store: &Store) -> Result<Option<KeptBlocked>> {
    let head = store.require_head()?;
    Ok(store.answer_slot(head.tree).kept().and_then(|answer| {
        Some(KeptBlocked {
            broken: answer.notes()?,
            answer,
        })
    }))
}

/// Keeps the document printed of every blocked bead of a store ([`Blocked::keeper`]).
pub struct BlockedKeeper<'a> {
    slot: crate::store::Slot,
    broken: &'a [Broken],
}

impl BlockedKeeper<'_> {
    /// Keeps `document` for the next call at the same head ([`kept_blocked`]).
    pub fn keep(&self, document: &[u8]) {
        self.slot.keep(&self.broken, document);
    }
}

impl Blocked {
    /// What keeps the document printed of these beads for the next call at the same
    /// head, when this head was asked for before; else none, and this call is noted
    /// so that the next at the same head keeps it. A store that changes between calls
    /// (an agent at work) never pays for keeping; one asked again and again (a board)
    /// pays once. A list narrowed by `parent` is never kept.
    pub fn keeper(&self, store: &Store) -> Option<BlockedKeeper<'_>> {
        if !self.whole {
            return None;
        }
        let slot = store.answer_slot(self.tree);
        if !slot.asked() {
            slot.ask();
            return None;
        }
        Some(BlockedKeeper {
            slot,
            broken: &self.broken,
        })
    }

    /// How many beads depend on each bead listed.
    pub fn dependents(&self) -> Dependents {
        let rows: Vec<Row> = self.rows.iter().map(|(r, _)| *r).collect();
        Dependents::among(&self.index, &rows)
    }

    /// Each blocked bead, highest priority first, then oldest, with the ids of what
    /// it waits on, sorted.
    pub fn beads(&self) -> impl ExactSizeIterator<Item = (BeadRow<'_>, Vec<&str>)> {
        self.beads_in(0..self.rows.len())
    }

    /// The blocked beads at positions `range` of [`Blocked::beads`] (cut to those
    /// there are).
    pub fn beads_in(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl ExactSizeIterator<Item = (BeadRow<'_>, Vec<&str>)> {
        let end = range.end.min(self.rows.len());
        let rows = self.rows.get(range.start.min(end)..end).unwrap_or_default();
        rows.iter().map(|&(r, k)| {
            let mut ids: Vec<&str> = (self.by.list(k).iter())
                .map(|b| match b {
                    By::Row(b) => self.index.row(*b).id(),
                    By::External(id) => id,
                })
                .collect();
            ids.sort_unstable();
            (self.index.row(r), ids)
        })
    }
}

/// Every unfinished bead that waits on others (only the descendants of `parent`,
/// when given), and what it waits on.
pub fn blocked(store: &Store, parent: Option<&BeadId>) -> Result<Blocked> {
    let (index, failures) = load_with_failures(store)?;
    let mut blockers = Blockers::new(&index, &failures);
    let mut rows: Vec<(Row, usize)> = index
        .rows()
        .filter(|s| !s.status().is_done())
        .filter(|s| parent.is_none_or(|p| descends_from(*s, p.as_str())))
        .filter_map(|s| Some((s.row(), blockers.found_at(s)?)))
        .collect();
    let by = order(&index, Sort::Priority, false);
    rows.sort_by(|a, b| by(&a.0, &b.0));
    drop(by);
    Ok(Blocked {
        rows,
        by: blockers.found,
        broken: index.broken().to_vec(),
        index,
        tree: failures.tree,
        whole: parent.is_none(),
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

/// What `stats` counts: beads by status, the ready and the blocked, epics whose
/// children are all closed, and how long closed beads took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Every bead but tombstones.
    pub total: usize,
    /// Open.
    pub open: usize,
    /// In progress.
    pub in_progress: usize,
    /// Closed.
    pub closed: usize,
    /// Unfinished beads held back: marked blocked, or waiting on an unfinished blocker.
    pub blocked: usize,
    /// Deferred.
    pub deferred: usize,
    /// Ready (as `ready` counts them).
    pub ready: usize,
    /// Tombstones.
    pub tombstones: usize,
    /// Pinned.
    pub pinned: usize,
    /// On a hook.
    pub hooked: usize,
    /// Unfinished epics with children, all of them closed.
    pub epics_eligible_for_closure: usize,
    /// The mean time from creation to the last change of closed beads, in hours.
    pub average_lead_time_hours: f64,
    /// Of each of the project's own statuses (`status.custom`), how many beads stand
    /// in it.
    pub custom: BTreeMap<String, usize>,
    /// Documents in the store that do not parse (reported, never hidden).
    pub broken: Vec<Broken>,
}

/// Counts the store for `stats`: what one walk of the index's table counted, kept
/// beside it, with the beads changed since taken out as they were and counted again
/// as they are (see [`Tally`]).
pub fn stats(store: &Store) -> Result<Stats> {
    sound(store, || {
        let ((index, failures), words) = index_and_words(store, Part::LazyBeads)?;
        Ok(Stats {
            broken: index.broken().to_vec(),
            ..Tally::of(store, &index, &failures).stats(&words)
        })
    })
}

/// The most unchanged beads a change may reach for a tally to be adjusted rather than
/// worked out again: each costs the adjustment a few microseconds, where a walk of
/// every bead costs a few nanoseconds a bead (at 1 000 000 beads, a change to a bead
/// 333 000 others wait on made `count` take 2.5 s instead of a walk's tens of ms).
const REACHED_MOST: usize = 4096;

/// The unchanged beads whose standing a change since `index`'s table was written can
/// move: those that wait (`blocks`, `conditional-blocks`) on a changed bead, and the
/// descendants (through parent-child links) of changed beads and of those. Found by
/// following the edges into the changed beads and out to the children, so the cost
/// follows the beads changed and reached, not the store; `None` when a bead left the
/// store (what waited on it is not found by row), or when they are more than
/// [`REACHED_MOST`].
fn reached(index: &Index) -> Option<BTreeMap<&str, Row>> {
    if index.lost_beads() {
        return None;
    }
    // The changed beads' own dependencies, by the id they name.
    let mut named: HashMap<&str, Vec<(BeadRow<'_>, DepKind)>> = HashMap::new();
    for s in index.changed_rows() {
        for d in s.dependencies() {
            named.entry(d.id()).or_default().push((s, d.kind));
        }
    }
    let into = |s: &BeadRow<'_>, kinds: &[DepKind]| {
        // An unchanged bead's row is its row of the table; a changed one's, the delta's.
        let target = match s.table_row() {
            Some(_) => Ok(s.row()),
            None => index.table_row_of(s.id()).ok_or(s.id()),
        };
        let changed = named.get(s.id()).into_iter().flatten().copied();
        let all = index.unchanged_edges_into(target).chain(changed);
        all.filter(|(_, kind)| kinds.contains(kind))
            .map(|(from, _)| from)
            .collect::<Vec<_>>()
    };
    // Each changed bead, what waits on it and its children, its edges read once; then
    // the children of every unchanged bead reached.
    let mut todo = Vec::new();
    for s in index.changed_rows() {
        todo.push(s);
        todo.extend(into(
            &s,
            &[
                DepKind::Blocks,
                DepKind::ConditionalBlocks,
                DepKind::ParentChild,
            ],
        ));
    }
    let mut seen = HashSet::new();
    let mut out = BTreeMap::new();
    while let Some(s) = todo.pop() {
        if !seen.insert(s.row()) || s.table_row().is_none() {
            continue;
        }
        out.insert(s.id(), s.row());
        if out.len() > REACHED_MOST {
            return None;
        }
        todo.extend(into(&s, &[DepKind::ParentChild]));
    }
    Some(out)
}

/// A parent of changed or reached beads, as [`Tally::adjusted`] gathers it.
#[derive(Default)]
struct Parent {
    /// How many of those beads are its children, and how many of them closed: as the
    /// table had them, and as they are.
    children: [(i64, i64); 2],
    /// Its row in the table and in the index, where a child's link named it.
    rows: [Option<Row>; 2],
}

/// What `stats` counts, as sums over the beads: per status, whether the bead is a
/// container and whether something holds it back, how many beads; the closed beads'
/// lead times; the eligible epics; and per epic, its children. A tally of the table
/// is kept beside it, and a change is counted by taking the changed beads out as the
/// table has them and putting them back as they are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tally {
    /// How many beads of each status, kind of bead (container or not) and state
    /// (held back or not; finished beads are never held).
    beads: BTreeMap<(Status, bool, bool), i64>,
    /// The sum over closed beads of the time from creation to the last change, in µs.
    lead_us: i128,
    /// How many epics are eligible for closure.
    eligible: i64,
    /// Per epic (not a tombstone) with children, by its row in the index walked (the
    /// table's, for a kept tally), in order: how many, how many of them closed. What an
    /// adjustment reads of the table; it leaves them as they are.
    children: Vec<(u32, u32, u32)>,
    /// Whether the walk came upon a cycle: its answers then depend on where it started,
    /// so a change is counted by walking everything again.
    cyclic: bool,
}

impl Tally {
    /// The tally of `index`: its table's, kept beside it (worked out and kept when
    /// missing), adjusted for the beads changed since; or, when a change reaches beads
    /// that did not change, or a cycle is in the way, one walk of every bead.
    fn of(store: &Store, index: &Index, failures: &Failures) -> Tally {
        Tally::kept(store, index, failures).unwrap_or_else(|| Tally::walk(index, failures))
    }

    /// The tally of `index` from its table's, kept beside it (worked out and kept when
    /// missing), adjusted for the beads changed since and those the changes reach;
    /// `None` when a bead went from the store while others wait on it, a cycle is in
    /// the way, or the changes reach more beads than an adjustment is worth
    /// ([`REACHED_MOST`]).
    fn kept(store: &Store, index: &Index, failures: &Failures) -> Option<Tally> {
        let kept = store.index_kept::<Tally>(index).or_else(|| {
            let tree = index.table_tree()?;
            let table = Tally::walk(&index.table_only(), &Failures::at_tree(store, tree));
            store.keep_in_index(index, &table);
            Some(table)
        })?;
        if index.changed_ids().next().is_none() {
            return Some(kept);
        }
        if kept.cyclic {
            return None;
        }
        let reached = match index.changes_reach_table() {
            true => reached(index)?,
            false => BTreeMap::new(),
        };
        kept.adjusted(store, index, failures, &reached)
    }

    /// Counts bead `s` (held back or not, as worked out) `by` times (1 in, -1 out).
    fn count(&mut self, s: &BeadRow<'_>, held: bool, by: i64) {
        let status = s.status();
        let key = (status, s.kind().is_container(), held && !status.is_done());
        *self.beads.entry(key).or_default() += by;
        if status == Status::Closed {
            self.lead_us += i128::from(by) * i128::from(s.updated_us() - s.created_us());
        }
    }

    /// Every bead of `index` counted: one pass, with one memo of blockers; the epics'
    /// children counted as it goes, the epics judged after it.
    fn walk(index: &Index, failures: &Failures) -> Tally {
        let mut tally = Tally::default();
        let mut children = vec![(0, 0); index.row_count()];
        let mut epics = Vec::new();
        let mut held = Held::new(index, failures);
        for s in index.rows() {
            let status = s.status();
            if status != Status::Deleted {
                count_child(&mut children, &s);
                if s.kind() == BeadType::Epic {
                    epics.push(s);
                }
            }
            let blocked = !status.is_done() && held.of(s);
            tally.count(&s, blocked, 1);
        }
        for e in epics {
            let (total, closed) = children[e.row().get()];
            tally.eligible += i64::from(eligible(e.status(), total, closed));
            if total > 0 {
                let number = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                let at = (number(e.row().get()), number(total), number(closed));
                tally.children.push(at);
            }
        }
        tally.cyclic = held.cyclic;
        tally
    }

    /// This tally of `index`'s table, with the beads changed since, and `reached` (the
    /// unchanged beads the changes reach, see [`reached`]), taken out as the table has
    /// them and counted again as they are: every other bead stands as it stood. `None`
    /// when a walk comes upon a cycle.
    fn adjusted(
        mut self,
        store: &Store,
        index: &Index,
        failures: &Failures,
        reached: &BTreeMap<&str, Row>,
    ) -> Option<Tally> {
        let table = index.table_only();
        let then = Failures::at_tree(store, index.table_tree()?);
        let (mut held_then, mut held_now) = (Held::new(&table, &then), Held::new(index, failures));
        // The changed beads, then those they reach (unchanged: the same row in both).
        let ids: BTreeMap<&str, Option<Row>> = (index.changed_ids().map(|id| (id, None)))
            .chain(reached.iter().map(|(&id, &r)| (id, Some(r))))
            .collect();
        // Per parent: its children among the changed beads, as they were and as they
        // are, and its row then and now where a child's link told it.
        let mut parents: BTreeMap<&str, Parent> = BTreeMap::new();
        // A bead as the table had it (`then`) or as it is, by row where it is known: a
        // changed bead's row in the table is in the delta.
        let at = |then: bool, id: &str| match (ids.get(id).copied().flatten(), then) {
            (Some(r), true) => Some(table.row(r)),
            (Some(r), false) => Some(index.row(r)),
            (None, true) => index.table_row_of(id).map(|r| table.row(r)),
            (None, false) => index.get(id),
        };
        for when in [0, 1] {
            for (id, s) in ids.keys().filter_map(|&id| Some((id, at(when == 0, id)?))) {
                let status = s.status();
                let held = match when {
                    0 => !status.is_done() && held_then.of(s),
                    _ => !status.is_done() && held_now.of(s),
                };
                self.count(&s, held, if when == 0 { -1 } else { 1 });
                parents.entry(id).or_default();
                if status == Status::Deleted {
                    continue;
                }
                for d in s.dependencies().filter(|d| d.kind == DepKind::ParentChild) {
                    if let Some(t) = d.target {
                        let e = parents.entry(t.id()).or_default();
                        e.children[when].0 += 1;
                        e.children[when].1 += i64::from(status == Status::Closed);
                        e.rows[when] = Some(t.row());
                    }
                }
            }
        }
        if held_then.cyclic || held_now.cyclic {
            return None;
        }
        for (id, p) in parents {
            let [then, now] = p.children;
            // Where a child's link gave the parent's row, no look-up by id is needed.
            let at = |when: bool, id: &str| match (p.rows[usize::from(!when)], when) {
                (Some(r), true) => Some(table.row(r)),
                (Some(r), false) => Some(index.row(r)),
                (None, _) => at(when, id),
            };
            // The children of a bead counted here are all counted here too (a changed
            // bead's children are reached): `then` holds them all.
            let before = match ids.contains_key(id) {
                true => then,
                false => at(true, id)
                    .and_then(|e| {
                        let row = u32::try_from(e.row().get()).ok()?;
                        let k = self.children.binary_search_by_key(&row, |c| c.0).ok()?;
                        let (_, total, closed) = self.children[k];
                        Some((i64::from(total), i64::from(closed)))
                    })
                    .unwrap_or_default(),
            };
            let after = (before.0 - then.0 + now.0, before.1 - then.1 + now.1);
            let judged = |then: bool, (total, closed): (i64, i64)| {
                at(then, id).is_some_and(|e| {
                    e.kind() == BeadType::Epic
                        && e.status() != Status::Deleted
                        && eligible(e.status(), total as usize, closed as usize)
                })
            };
            self.eligible += i64::from(judged(false, after)) - i64::from(judged(true, before));
        }
        self.beads.retain(|_, n| *n != 0);
        Some(self)
    }

    /// The counts `stats` prints, with the project's own statuses (`ready` counts
    /// those of the active category too).
    fn stats(&self, words: &Vocabulary) -> Stats {
        // What `ready` keeps with no filter: work (no container) of these statuses.
        let ready = open_only(&ListFilter::default(), words).statuses;
        let mut st = Stats::default();
        for (&(status, container, held), &n) in &self.beads {
            let n = usize::try_from(n).unwrap_or(0);
            match status {
                Status::Open => st.open += n,
                Status::InProgress => st.in_progress += n,
                Status::Closed => st.closed += n,
                Status::Blocked => {}
                Status::Custom(w) => *st.custom.entry(w.as_str().to_owned()).or_default() += n,
                Status::Deferred => st.deferred += n,
                Status::Hooked => st.hooked += n,
                Status::Pinned => st.pinned += n,
                Status::Deleted => st.tombstones += n,
            }
            if status != Status::Deleted {
                st.total += n;
            }
            if !status.is_done() {
                st.blocked += usize::from(status == Status::Blocked || held) * n;
                st.ready += usize::from(!held && !container && ready.contains(&status)) * n;
            }
        }
        st.epics_eligible_for_closure = usize::try_from(self.eligible).unwrap_or(0);
        if st.closed > 0 {
            st.average_lead_time_hours = self.lead_us as f64 / st.closed as f64 / 3_600_000_000.0;
        }
        st
    }
}

/// An epic and how far its children are.
#[derive(Clone, Debug)]
pub struct EpicProgress {
    /// The epic.
    pub epic: Summary,
    /// How many children it has (tombstones aside).
    pub total_children: usize,
    /// How many of them are closed.
    pub closed_children: usize,
}

impl EpicProgress {
    /// Whether the epic is unfinished and every one of its children is closed.
    pub fn eligible(&self) -> bool {
        eligible(self.epic.status, self.total_children, self.closed_children)
    }
}

/// Whether an epic of `status` with `total` children, `closed` of them closed, may be
/// closed: it is unfinished and every one of its children is closed.
fn eligible(status: Status, total: usize, closed: usize) -> bool {
    !status.is_done() && total > 0 && closed == total
}

/// Per row: how many children (tombstones aside) name the bead their parent, and how
/// many of them are closed.
fn epic_children(index: &Index) -> Vec<(usize, usize)> {
    let mut children = vec![(0, 0); index.row_count()];
    for s in index.rows().filter(|s| s.status() != Status::Deleted) {
        count_child(&mut children, &s);
    }
    children
}

/// Counts `s` (not a tombstone) among the children of each bead it names its parent,
/// and among the closed ones when it is closed (see [`epic_children`]).
fn count_child(children: &mut [(usize, usize)], s: &BeadRow<'_>) {
    for d in s.dependencies().filter(|d| d.kind == DepKind::ParentChild) {
        if let Some(t) = d.target {
            let e = &mut children[t.row().get()];
            e.0 += 1;
            e.1 += usize::from(s.status() == Status::Closed);
        }
    }
}

/// Every epic that is not deleted, with how far its direct children are, by id.
fn epics(index: &Index) -> Result<Vec<EpicProgress>> {
    let children = epic_children(index);
    let mut out: Vec<EpicProgress> = index
        .rows()
        .filter(|s| s.kind() == BeadType::Epic && s.status() != Status::Deleted)
        .map(|s| {
            let (total, closed) = children[s.row().get()];
            EpicProgress {
                epic: s.to_summary(),
                total_children: total,
                closed_children: closed,
            }
        })
        .collect();
    out.sort_by(|a, b| a.epic.id.cmp(&b.epic.id));
    Ok(out)
}

/// Every epic with how far its children are (`epic status`), and the documents that
/// do not parse.
pub fn epic_status(store: &Store) -> Result<(Vec<EpicProgress>, Vec<Broken>)> {
    let index = load_index(store)?;
    Ok((epics(&index)?, index.broken().to_vec()))
}

/// Every cycle of blocking dependencies (`blocks`, `parent-child`), each as the ids
/// on it, from its smallest id round; none unless one arrived by sync or import. And
/// the documents that do not parse.
pub fn dep_cycles(store: &Store) -> Result<(Vec<Vec<String>>, Vec<Broken>)> {
    let index = load_index(store)?;
    let rows: Vec<BeadRow<'_>> = index.rows().collect();
    // Each bead's place in `rows`, by its row.
    let mut place = vec![usize::MAX; index.row_count()];
    for (k, s) in rows.iter().enumerate() {
        place[s.row().get()] = k;
    }
    let found = crate::model::cycles(
        rows.len(),
        0..rows.len(),
        |k| {
            (blockers(rows[k]).iter().map(|t| place[t.row().get()]))
                .filter(|&k| k != usize::MAX)
                .collect()
        },
        |k| rows[k].id().to_owned(),
    );
    Ok((found.into_iter().collect(), index.broken().to_vec()))
}

/// The beads `s` waits on through a blocking dependency.
fn blockers<'a>(s: BeadRow<'a>) -> Vec<BeadRow<'a>> {
    s.dependencies()
        .filter(|d| d.kind.is_blocking())
        .filter_map(|d| d.target)
        .collect()
}

/// Where the store is and what it holds, for `info` and `where`.
#[derive(Clone, Debug)]
pub struct StoreInfo {
    /// The git dir every worktree shares (the store lives in its refs).
    pub common_dir: std::path::PathBuf,
    /// The ref that holds the store.
    pub store_ref: &'static str,
    /// The commit it points at.
    pub head: String,
    /// The prefix of new ids.
    pub prefix: String,
    /// The format of the store's tree.
    pub format: u32,
    /// How many beads it holds (tombstones aside).
    pub beads: usize,
}

/// Describes the store (`info`, `where`).
pub fn store_info(store: &Store) -> Result<StoreInfo> {
    let head = store.require_head()?;
    let meta = store.view()?.meta()?;
    let index = load_index(store)?;
    Ok(StoreInfo {
        common_dir: store.common_dir().to_owned(),
        store_ref: crate::store::refs::MAIN.as_str(),
        head: head.commit.to_string(),
        prefix: meta.prefix.as_str().to_owned(),
        format: meta.format,
        beads: index
            .rows()
            .filter(|s| s.status() != Status::Deleted)
            .count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dependency, ExternalDependency, Timestamp};

    /// A small random number generator (a fixed LCG: the same run every time).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (self.0 >> 33) % n
        }
    }

    fn id(n: u64) -> BeadId {
        BeadId::parse(&format!("bd-{n:04}")).expect("id")
    }

    /// A bead of random status, type, priority, age, assignee and labels, depending on
    /// random others (some not in the store, some of another project).
    fn bead(n: u64, rng: &mut Rng) -> Bead {
        let at =
            |s: u64| Timestamp::from_timestamp(1_790_000_000 + s as i64, 0).unwrap_or_default();
        let mut b = Bead::new(id(n), format!("Bead {n}"), "tester", at(rng.below(40)));
        b.updated_at = at(40 + rng.below(40));
        b.status = Status::ALL[rng.below(Status::ALL.len() as u64) as usize];
        if rng.below(2) == 0 {
            b.status = Status::Open;
        }
        let kinds = [
            BeadType::Task,
            BeadType::Bug,
            BeadType::Epic,
            BeadType::Molecule,
        ];
        b.kind = kinds[rng.below(4) as usize];
        b.priority = rng.below(3) as u8;
        b.assignee = ["alice", "bob"]
            .get(rng.below(3) as usize)
            .map(|a| (*a).to_owned());
        b.labels = (0..rng.below(3))
            .map(|k| format!("l{}", (k + n) % 3))
            .collect();
        for _ in 0..rng.below(4) {
            let kinds = [
                DepKind::Blocks,
                DepKind::ParentChild,
                DepKind::Related,
                DepKind::ConditionalBlocks,
            ];
            let kind = kinds[rng.below(4) as usize];
            match rng.below(12) {
                0 => b.external.push(ExternalDependency {
                    id: crate::model::ExternalRef::parse("external:other:x1").expect("ref"),
                    kind,
                }),
                _ => b.dependencies.push(Dependency {
                    id: id(rng.below(70)),
                    kind,
                }),
            }
        }
        if rng.below(2) == 0 {
            b.close_reason = Some("failed: it broke".to_owned());
        }
        b.dependencies.retain(|d| d.id != b.id);
        b.dependencies.sort();
        b.dependencies.dedup_by(|a, b| a.id == b.id);
        b.external.dedup();
        b
    }

    fn commit(store: &Store, op: impl FnMut(&mut crate::store::Tx<'_>)) {
        store.commit_for_tests(op);
    }

    /// The ids a listing shows, each with how many depend on it.
    fn shown(listing: &Listing) -> Vec<(String, usize)> {
        let dependents = listing.dependents();
        listing
            .beads()
            .map(|s| (s.id().to_owned(), dependents.count(&s)))
            .collect()
    }

    /// How many beads depend on each bead, counted the plain way.
    fn dependent_counts(store: &Store) -> BTreeMap<String, usize> {
        let index = load_index(store).expect("index");
        let mut counts = BTreeMap::new();
        for s in index.rows() {
            for t in s.dependencies().filter_map(|d| d.target) {
                *counts.entry(t.id().to_owned()).or_default() += 1;
            }
        }
        counts
    }

    /// A store of `n` random beads, and the generator that made them (seeded `seed`).
    fn random_store(n: u64, seed: u64) -> (tempfile::TempDir, Store, Rng) {
        let (dir, store) = Store::temp_for_tests();
        let mut rng = Rng(seed);
        commit(&store, |tx| {
            for n in 0..n {
                tx.put_bead(&bead(n, &mut rng)).expect("put");
            }
        });
        (dir, store, rng)
    }

    /// A read that comes upon a damaged piece of the index's table notices, builds the
    /// cache again and answers as from a sound one.
    #[test]
    fn a_read_that_touches_a_damaged_piece_answers_from_a_rebuilt_cache() {
        let _alone = crate::store::damage_counted_alone();
        let (_dir, store, _) = random_store(1500, 5);
        let page = ListFilter {
            limit: 3,
            ..ListFilter::default()
        };
        let ids = |l: &Listing| -> Vec<String> { l.beads().map(|s| s.id().to_owned()).collect() };
        let listed = ids(&list(&store, &page).expect("list"));
        let before = (
            shown(&ready(&store, &page).expect("ready")),
            stats(&store).expect("stats"),
        );
        let table = std::fs::read_dir(store.local_dir())
            .expect("dir")
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with("-main.bin"))
            })
            .expect("table file");
        let bytes = std::fs::read(&table).expect("read");
        // Every copy of the first listed bead's id: its own, and where others name it.
        let mut torn = bytes.clone();
        for at in memchr::memmem::find_iter(&bytes, listed[0].as_bytes()) {
            torn[at + 3] ^= 0x20;
        }
        assert_ne!(torn, bytes);
        std::fs::write(&table, &torn).expect("tear");
        let seen = crate::store::damage_seen();
        assert_eq!(ids(&list(&store, &page).expect("list")), listed);
        assert!(crate::store::damage_seen() > seen, "the damage was seen");
        assert_ne!(
            std::fs::read(&table).expect("read"),
            torn,
            "and the cache rebuilt"
        );
        assert_eq!(
            (
                shown(&ready(&store, &page).expect("ready")),
                stats(&store).expect("stats")
            ),
            before
        );
    }

    /// A page read off the front of the index (with the beads changed since its table
    /// was written) lists what the whole listing cut to the page lists, with the same
    /// total and the same dependent counts, over many random writes.
    #[test]
    fn a_page_off_the_front_is_the_whole_listing_cut() {
        let (_dir, store, mut rng) = random_store(60, 11);
        let filters = [
            ListFilter::default(),
            ListFilter {
                assignee: Some("alice".into()),
                ..ListFilter::default()
            },
            ListFilter {
                labels: vec!["l1".into()],
                all: true,
                ..ListFilter::default()
            },
            ListFilter {
                kinds: vec![BeadType::Bug],
                priorities: vec![1, 2],
                ..ListFilter::default()
            },
        ];
        for step in 0..80u64 {
            let n = rng.below(70);
            match step {
                // A new table: the whole store changed, and the cache built again.
                40 => {
                    commit(&store, |tx| {
                        for n in 0..70 {
                            tx.put_bead(&bead(n, &mut rng)).expect("put");
                        }
                    });
                    let head = store.require_head().expect("head");
                    store.index_rebuild(&head).expect("rebuilt");
                }
                _ => match rng.below(6) {
                    0 => commit(&store, |tx| tx.remove_bead(&id(n))),
                    1 => commit(&store, |tx| {
                        for k in 0..3 {
                            tx.put_bead(&bead((n + k * 7) % 70, &mut rng)).expect("put");
                        }
                    }),
                    _ => commit(&store, |tx| tx.put_bead(&bead(n, &mut rng)).expect("put")),
                },
            }
            let counts = dependent_counts(&store);
            for (f, filter) in filters.iter().enumerate() {
                let whole = ListFilter {
                    limit: 0,
                    ..filter.clone()
                };
                let (counted, _) = count(&store, filter).expect("count");
                for query in [ready, list] {
                    let all = query(&store, &whole).expect("whole");
                    for (id, count) in shown(&all) {
                        let plain = counts.get(&id).copied().unwrap_or(0);
                        assert_eq!(count, plain, "step {step}: {id}");
                    }
                    for limit in [1, 4, 25] {
                        let paged = ListFilter {
                            limit,
                            ..filter.clone()
                        };
                        let page = query(&store, &paged).expect("page");
                        let mut expected = shown(&all);
                        expected.truncate(limit);
                        assert_eq!(shown(&page), expected, "step {step}, filter {f}");
                        assert_eq!(page.total(), all.total(), "step {step}, filter {f}");
                    }
                }
                let listed = list(&store, &whole).expect("list").total();
                assert_eq!(counted, listed, "step {step}, filter {f}");
            }
            let counted = stats(&store).expect("stats");
            assert_eq!(
                (counted.blocked, counted.ready),
                held_back_and_ready(&store),
                "step {step}"
            );
            let (eligible, _) = epic_status(&store).expect("epics");
            assert_eq!(
                counted.epics_eligible_for_closure,
                eligible.iter().filter(|e| e.eligible()).count(),
                "step {step}"
            );
        }
    }

    /// `stats` (the table's kept tally, adjusted for the beads changed since) counts
    /// what one walk of every bead counts, through writes, closes, dependencies added
    /// and removed, removals, folds into a new table and rebuilds; and the adjustment
    /// itself, where it applies, gives the walk's tally.
    #[test]
    fn stats_over_a_change_counts_what_a_walk_of_every_bead_counts() {
        let _alone = crate::store::damage_counted_alone();
        let (_dir, store, mut rng) = random_store(70, 31);
        // Beads 100..140 change; they depend on the others and on each other, and none
        // of the first 70 depends on them, so many changes reach no unchanged bead.
        let churned = |n: u64, rng: &mut Rng| {
            let mut b = bead(n, rng);
            for d in &mut b.dependencies {
                if rng.below(4) == 0 {
                    d.id = id(100 + rng.below(40));
                }
            }
            // Half are children of one of the epics 140..145, most of those closed.
            if rng.below(2) == 0 {
                b.dependencies.push(Dependency {
                    id: id(140 + n % 5),
                    kind: DepKind::ParentChild,
                });
                if rng.below(4) > 0 {
                    b.status = Status::Closed;
                }
            }
            b.dependencies.retain(|d| d.id != b.id);
            b.dependencies.sort();
            b.dependencies.dedup_by(|a, b| a.id == b.id);
            b
        };
        commit(&store, |tx| {
            for n in 140..145 {
                let mut epic = Bead::new(id(n), "Epic".to_owned(), "tester", Timestamp::default());
                epic.kind = BeadType::Epic;
                tx.put_bead(&epic).expect("put");
            }
        });
        let mut adjusted = [0; 2];
        for step in 0..200u64 {
            let n = 100 + rng.below(40);
            match (step, rng.below(8)) {
                (s, _) if s % 25 == 24 => {
                    let head = store.require_head().expect("head");
                    store.index_rebuild(&head).expect("rebuilt");
                }
                // More changes than a delta holds: folded into a new table.
                (130, _) => commit(&store, |tx| {
                    for k in 0..300 {
                        tx.put_bead(&bead(1000 + k, &mut Rng(k))).expect("put");
                    }
                }),
                (_, 0) => commit(&store, |tx| tx.remove_bead(&id(n))),
                (_, 1) => commit(&store, |tx| {
                    tx.put_bead(&bead(rng.below(70), &mut Rng(step)))
                        .expect("put")
                }),
                (_, 2) => commit(&store, |tx| {
                    for k in 0..3 {
                        tx.put_bead(&churned(100 + (n + k * 7) % 40, &mut rng))
                            .expect("put");
                    }
                }),
                _ => commit(&store, |tx| {
                    tx.put_bead(&churned(n, &mut rng)).expect("put")
                }),
            }
            let (index, failures) = load_with_failures(&store).expect("index");
            let walked = Tally::walk(&index, &failures);
            assert_eq!(
                stats(&store).expect("stats"),
                walked.stats(&Vocabulary::default()),
                "step {step}"
            );
            for filter in [
                ListFilter::default(),
                ListFilter {
                    all: true,
                    ..ListFilter::default()
                },
                ListFilter {
                    statuses: vec![Status::Open, Status::Closed, Status::Deleted],
                    ..ListFilter::default()
                },
            ] {
                let plain = index.rows().filter(|s| filter.keeps(s)).count();
                assert_eq!(
                    count(&store, &filter).expect("count").0,
                    plain,
                    "step {step}"
                );
            }
            let kept: Tally = store.index_kept(&index).expect("kept");
            let reaches = index.changes_reach_table();
            let reached = match reaches {
                true => reached(&index),
                false => Some(BTreeMap::new()),
            };
            if let Some(reached) = reached.filter(|_| !kept.cyclic) {
                let Some(tally) = kept.adjusted(&store, &index, &failures, &reached) else {
                    continue;
                };
                let counts = |t: &Tally| (t.beads.clone(), t.lead_us, t.eligible);
                assert_eq!(counts(&tally), counts(&walked), "step {step}");
                adjusted[usize::from(reaches)] += 1;
            }
        }
        // Both kinds of change were adjusted for: those that reach no unchanged bead,
        // and those that do.
        assert!(
            adjusted[0] > 20 && adjusted[1] > 20,
            "adjusted {adjusted:?} times"
        );
    }

    /// How many unfinished beads are held back and how many are ready, as `stats`
    /// counts them, with the blockers listed as `blocked` lists them.
    fn held_back_and_ready(store: &Store) -> (usize, usize) {
        let (index, failures) = load_with_failures(store).expect("index");
        let ready = open_only(&ListFilter::default(), &Vocabulary::default());
        let mut blockers = Blockers::new(&index, &failures);
        let (mut blocked, mut ready_count) = (0, 0);
        for s in index.rows().filter(|s| !s.status().is_done()) {
            let held = !blockers.of(s).is_empty();
            blocked += usize::from(s.status() == Status::Blocked || held);
            ready_count += usize::from(!held && is_work(&s, &ready));
        }
        (blocked, ready_count)
    }
}

/// The order of a [`query`]'s answer (bd's `query --sort`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuerySort {
    /// Highest priority first, then newest (the order bd's store answers in).
    #[default]
    Store,
    /// Highest priority first.
    Priority,
    /// Newest first.
    Created,
    /// Most recently changed first.
    Updated,
    /// Most recently closed first, the open ones last.
    Closed,
    /// By status.
    Status,
    /// By id.
    Id,
    /// By title, ignoring case.
    Title,
    /// By type.
    Type,
    /// By assignee.
    Assignee,
}

/// How [`query`] answers.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueryOptions {
    /// Include closed beads even when the query names no status.
    pub all: bool,
    /// At most this many (0: no limit).
    pub limit: usize,
    /// The order.
    pub sort: QuerySort,
    /// The order reversed.
    pub reverse: bool,
}

/// The beads of the store and this machine's wisps that `q` matches (bd's `query`):
/// closed ones only with `all` or when the query names a status, tombstones only
/// when it names one. Each document is read, so the whole store is looked at.
pub fn query(
    store: &Store,
    q: &crate::model::query::Query,
    opts: QueryOptions,
) -> Result<Vec<Bead>> {
    let (statuses, kinds) = q.words();
    let statuses: Vec<Status> = statuses.iter().filter_map(|s| s.parse().ok()).collect();
    let kinds: Vec<BeadType> = kinds.iter().filter_map(|k| k.parse().ok()).collect();
    let main = store.view()?;
    super::config::check_words(&main, &kinds, &statuses)?;
    let named = q.names_status();
    let keeps = |s: Status| named || (s != Status::Deleted && (opts.all || s != Status::Closed));
    let mut found = Vec::new();
    for view in [main, store.view_of(crate::store::refs::WISPS)?] {
        if view.head().is_none() {
            continue;
        }
        let ids: Vec<String> = (view.index()?.rows())
            .filter(|s| keeps(s.status()))
            .map(|s| s.id().to_owned())
            .collect();
        for id in ids {
            if let Some(b) = view.bead(&BeadId::parse(&id)?)?
                && q.matches(&b)
            {
                found.push(b);
            }
        }
    }
    found.sort_by(|a, b| {
        let order = match opts.sort {
            QuerySort::Store | QuerySort::Priority => a.priority.cmp(&b.priority),
            QuerySort::Created => b.created_at.cmp(&a.created_at),
            QuerySort::Updated => b.updated_at.cmp(&a.updated_at),
            QuerySort::Closed => match (a.closed_at, b.closed_at) {
                (Some(x), Some(y)) => y.cmp(&x),
                (x, y) => y.is_some().cmp(&x.is_some()),
            },
            QuerySort::Status => a.status.as_str().cmp(b.status.as_str()),
            QuerySort::Id => a.id.cmp(&b.id),
            QuerySort::Title => a.title.to_lowercase().cmp(&b.title.to_lowercase()),
            QuerySort::Type => a.kind.as_str().cmp(b.kind.as_str()),
            QuerySort::Assignee => a.assignee.cmp(&b.assignee),
        };
        let order = match opts.sort {
            QuerySort::Store => order.then(b.created_at.cmp(&a.created_at)),
            _ => order,
        };
        let order = if opts.reverse { order.reverse() } else { order };
        order.then_with(|| a.id.cmp(&b.id))
    });
    if opts.limit > 0 {
        found.truncate(opts.limit);
    }
    Ok(found)
}
