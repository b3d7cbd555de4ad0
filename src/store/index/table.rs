//! The columnar tables of the index: fixed-width columns and one string arena, read
//! in place from the bytes of the cache file, without decoding a value per bead.
//!
//! A query over every bead (`ready`, `blocked`, a page of `list`) touches a few bytes
//! per bead in flat arrays and builds strings only for the lines it prints; the
//! dependency edges point at rows, so the blocker graph needs no lookup by id.

use std::ops::Range;
use std::sync::Arc;

use super::buffer::Buffer;
use super::pieces::Pieces;
use crate::model::{BeadType, CustomWord, DepKind, Status};

/// A section of a cache file: the file's bytes, shared, and the section's range.
pub(super) type Raw = (Arc<Buffer>, Range<usize>);

/// A dependency target that is not in the table.
pub(super) const NO_ROW: u32 = u32::MAX;

/// One bead as it goes into a table: borrowed from a summary or from another table.
pub(super) struct RowData<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub status: Status,
    pub priority: u8,
    pub kind: BeadType,
    pub assignee: Option<&'a str>,
    /// Sorted.
    pub labels: Vec<&'a str>,
    /// Sorted: on beads, then on other projects' items.
    pub dependencies: Vec<(DepKind, &'a str)>,
    pub created_us: i64,
    pub updated_us: i64,
}

/// A number as the table stores it. An index that needed more than 4 GiB of strings
/// could not be read back in one piece anyway; saturating keeps the writer total.
pub(super) fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Binary search over the positions `range`, which `cmp` orders against the target:
/// `Ok` with a position that matches, or `Err` with where the target would go. For
/// columns read in place, where there is no slice to call `binary_search_by` on.
fn bisect(range: Range<usize>, cmp: impl Fn(usize) -> std::cmp::Ordering) -> Result<usize, usize> {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match cmp(mid) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(mid),
        }
    }
    Err(lo)
}

fn word<T: Copy>(all: &[T], byte: u8, fallback: T) -> T {
    all.get(usize::from(byte)).copied().unwrap_or(fallback)
}

/// A row's `flags`: it has an assignee; its status is a word of the project's own; its
/// type is. Each custom word is one of the row's strings, after the assignee.
const ASSIGNED: u8 = 1;
const CUSTOM_STATUS: u8 = 2;
const CUSTOM_KIND: u8 = 4;

/// The byte of the status or type column for a word of the project's own (its text is
/// in the arena; see [`CUSTOM_STATUS`]).
const CUSTOM: u8 = u8::MAX;

/// The byte a built-in word is kept as: its position among the built-in words.
fn position<T: PartialEq>(all: &[T], w: &T) -> u8 {
    all.iter()
        .position(|x| x == w)
        .and_then(|p| u8::try_from(p).ok())
        .unwrap_or(CUSTOM)
}

/// Writes a table: one column per field, rows in the order listings print them
/// (priority, then age, then id), then the rows sorted by id for lookups, the edges
/// into each row and the edges to beads not in the table (for the dependent counts),
/// the string arena, and last the rows the edges into each row come from.
///
/// The strings of row `r` are `first_str[r]..first_str[r + 1]` in the arena: its id,
/// its title, its assignee, its custom status and its custom type (each when
/// `flags[r]` says it has one), its labels, then the ids of its dependencies
/// (`dep_start[r]..dep_start[r + 1]` in the dependency columns).
///
/// Rows may be pushed in any order: [`TableBuilder::finish`] puts them in listing
/// order as it writes them out, so that a rebuild can push each bead as it is parsed
/// and hold nothing else of it.
#[derive(Default)]
pub(super) struct TableBuilder {
    status: Vec<u8>,
    kind: Vec<u8>,
    priority: Vec<u8>,
    flags: Vec<u8>,
    created: Vec<i64>,
    updated: Vec<i64>,
    first_str: Vec<u32>,
    dep_start: Vec<u32>,
    dep_kind: Vec<u8>,
    str_end: Vec<u32>,
    arena: String,
}

impl TableBuilder {
    /// Appends a row.
    pub fn push(&mut self, row: &RowData<'_>) {
        if self.first_str.is_empty() {
            self.first_str.push(0);
            self.dep_start.push(0);
        }
        let status = match row.status {
            Status::Custom(w) => Some(w),
            _ => None,
        };
        let kind = match row.kind {
            BeadType::Custom(w) => Some(w),
            _ => None,
        };
        self.status.push(position(Status::ALL, &row.status));
        self.kind.push(position(BeadType::ALL, &row.kind));
        self.priority.push(row.priority);
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        self.flags.push(
            flag(row.assignee.is_some(), ASSIGNED)
                | flag(status.is_some(), CUSTOM_STATUS)
                | flag(kind.is_some(), CUSTOM_KIND),
        );
        self.created.push(row.created_us);
        self.updated.push(row.updated_us);
        let strings = [row.id, row.title]
            .into_iter()
            .chain(row.assignee)
            .chain(status.as_ref().map(CustomWord::as_str))
            .chain(kind.as_ref().map(CustomWord::as_str))
            .chain(row.labels.iter().copied())
            .chain(row.dependencies.iter().map(|(_, id)| *id));
        for s in strings {
            self.arena.push_str(s);
            self.str_end.push(offset(self.arena.len()));
        }
        self.first_str.push(offset(self.str_end.len()));
        self.dep_kind
            .extend(row.dependencies.iter().map(|(kind, _)| *kind as u8));
        self.dep_start.push(offset(self.dep_kind.len()));
    }

    /// How many rows were pushed.
    pub fn len(&self) -> usize {
        self.status.len()
    }

    /// The arena range of string `k`.
    fn span(&self, k: usize) -> Range<usize> {
        let start = match k {
            0 => 0,
            _ => self.str_end[k - 1] as usize,
        };
        start..self.str_end[k] as usize
    }

    /// The id of the `i`th row pushed.
    fn id(&self, i: usize) -> &str {
        self.arena
            .get(self.span(self.first_str[i] as usize))
            .unwrap_or_default()
    }

    /// The table as bytes, and where each pushed row went (`place[i]` is the row of
    /// the `i`th push): four counts, the columns, the dependency targets (resolved
    /// here, once every row is in), the rows by id, then the arena.
    pub fn finish(self) -> (Vec<u8>, Vec<u32>) {
        let n = self.len();
        let mut order: Vec<u32> = (0..n).map(offset).collect();
        order.sort_unstable_by(|&a, &b| {
            let key = |i: u32| {
                let i = i as usize;
                (self.priority[i], self.created[i], self.id(i))
            };
            key(a).cmp(&key(b))
        });
        let mut place = vec![0u32; n];
        for (r, &i) in order.iter().enumerate() {
            place[i as usize] = offset(r);
        }
        let mut by_id: Vec<u32> = (0..n).map(offset).collect();
        by_id.sort_unstable_by(|&a, &b| self.id(a as usize).cmp(self.id(b as usize)));
        let target = |id: &str| {
            bisect(0..n, |k| self.id(by_id[k] as usize).cmp(id))
                .map_or(NO_ROW, |k| place[by_id[k] as usize])
        };
        let rows = || order.iter().map(|&i| i as usize);
        let (d, m) = (self.dep_kind.len(), self.str_end.len());
        let mut out = Vec::with_capacity(24 + n * 36 + 12 + d * 9 + m * 4 + self.arena.len());
        let put = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&offset(v).to_le_bytes());
        // The last (edges to ids not in the table) is filled in at the end.
        for count in [n, d, m, self.arena.len(), 0] {
            put(&mut out, count);
        }
        for column in [&self.status, &self.kind, &self.priority, &self.flags] {
            out.extend(rows().map(|i| column[i]));
        }
        for column in [&self.created, &self.updated] {
            rows().for_each(|i| out.extend_from_slice(&column[i].to_le_bytes()));
        }
        let deps = |i: usize| self.dep_start[i] as usize..self.dep_start[i + 1] as usize;
        let strs = |i: usize| self.first_str[i] as usize..self.first_str[i + 1] as usize;
        out.extend(rows().flat_map(|i| deps(i).map(|e| self.dep_kind[e])));
        // Where each row's strings and dependencies start, counted in the new order.
        for count in [&strs as &dyn Fn(usize) -> Range<usize>, &deps] {
            let mut at = 0;
            put(&mut out, 0);
            for i in rows() {
                at += count(i).len();
                put(&mut out, at);
            }
        }
        // Each edge's target row, in the new order: worked out once, for the target
        // column, the edges into each row and the rows they come from.
        let targets: Vec<u32> = rows()
            .flat_map(|i| strs(i).end - deps(i).len()..strs(i).end)
            .map(|k| target(&self.arena[self.span(k)]))
            .collect();
        for t in &targets {
            out.extend_from_slice(&t.to_le_bytes());
        }
        let mut at = 0;
        for k in rows().flat_map(strs) {
            at += self.span(k).len();
            put(&mut out, at);
        }
        for &i in &by_id {
            out.extend_from_slice(&place[i as usize].to_le_bytes());
        }
        // How many edges point at each row (as a running count), and the arena indexes
        // of the ids of beads not in the table that edges point at (other projects'
        // items aside), sorted by id.
        let mut into = vec![0u32; n + 1];
        let mut dangling: Vec<(&str, u32)> = Vec::new();
        let (mut k, mut e) = (0u32, 0);
        for i in rows() {
            k += offset(strs(i).len() - deps(i).len());
            for s in strs(i).end - deps(i).len()..strs(i).end {
                let id = &self.arena[self.span(s)];
                match targets[e] {
                    NO_ROW if id.starts_with(crate::model::EXTERNAL_SCHEME) => {}
                    NO_ROW => dangling.push((id, k)),
                    t => into[t as usize + 1] += 1,
                }
                (k, e) = (k + 1, e + 1);
            }
        }
        dangling.sort_unstable();
        for r in 0..n {
            into[r + 1] += into[r];
        }
        for at in &into {
            out.extend_from_slice(&at.to_le_bytes());
        }
        for (_, k) in &dangling {
            out.extend_from_slice(&k.to_le_bytes());
        }
        for i in rows().filter(|&i| !strs(i).is_empty()) {
            let bytes = self.span(strs(i).start).start..self.span(strs(i).end - 1).end;
            out.extend_from_slice(&self.arena.as_bytes()[bytes]);
        }
        // Last, the rows each row's edges come from, by target (a row once per edge,
        // in row order): what depends on a bead, read without a pass over every edge.
        let mut from = vec![0u32; into[n] as usize];
        let mut next = into;
        let mut e = 0;
        for (r, i) in rows().enumerate() {
            for _ in deps(i) {
                if let Some(at) = next.get_mut(targets[e] as usize) {
                    from[*at as usize] = offset(r);
                    *at += 1;
                }
                e += 1;
            }
        }
        for r in &from {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out[16..20].copy_from_slice(&offset(dangling.len()).to_le_bytes());
        (out, place)
    }
}

/// Where each column of a [`Table`] starts in its bytes.
#[derive(Clone, Default)]
struct Columns {
    status: usize,
    kind: usize,
    priority: usize,
    flags: usize,
    created: usize,
    updated: usize,
    dep_kind: usize,
    first_str: usize,
    dep_start: usize,
    dep_target: usize,
    str_end: usize,
    by_id: usize,
    in_start: usize,
    dangling: usize,
    arena: usize,
    in_from: usize,
}

/// Where a table's bytes are.
#[derive(Clone)]
enum Source {
    /// In memory whole: written by a builder, or read from a file and checked whole.
    Whole(Raw),
    /// In a cache file, read a piece at a time as reads first touch it.
    Pieces(Arc<Pieces>),
}

impl Default for Source {
    fn default() -> Self {
        Source::Whole(Raw::default())
    }
}

impl Source {
    fn len(&self) -> usize {
        match self {
            Source::Whole(raw) => raw.1.len(),
            Source::Pieces(p) => p.len(),
        }
    }

    /// The `N` bytes at `at`; `None` past the end or in a damaged piece.
    #[inline]
    fn array<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        match self {
            Source::Whole(raw) => raw.0.get(raw.1.start + at..)?.get(..N)?.try_into().ok(),
            Source::Pieces(p) => p.array(at),
        }
    }

    /// The `len` bytes at `at`; `None` past the end or in a damaged piece.
    fn span(&self, at: usize, len: usize) -> Option<&[u8]> {
        match self {
            Source::Whole(raw) => raw.0.get(raw.1.start + at..)?.get(..len),
            Source::Pieces(p) => p.span(at, len),
        }
    }
}

/// Every bead of one state of the store, read in place from the bytes a
/// [`TableBuilder`] wrote.
#[derive(Clone, Default)]
pub(super) struct Table {
    source: Source,
    rows: usize,
    /// How many edges point at a bead not in the table.
    dangling: usize,
    at: Columns,
}

impl Table {
    /// Reads a table in place from bytes in memory, with no check (a builder wrote
    /// them, or the file they came from was checked whole); `None` when they do not
    /// hold one.
    pub fn decode(raw: Raw) -> Option<Table> {
        Table::decode_from(Source::Whole(raw))
    }

    /// Reads a table from a cache file a piece at a time (see [`Pieces`]); `None` when
    /// the file does not hold one or its counts are damaged.
    pub fn decode_pieces(pieces: Arc<Pieces>) -> Option<Table> {
        Table::decode_from(Source::Pieces(pieces))
    }

    fn decode_from(source: Source) -> Option<Table> {
        let count =
            |k: usize| -> Option<usize> { Some(u32::from_le_bytes(source.array(4 * k)?) as usize) };
        let (n, d, m, arena) = (count(0)?, count(1)?, count(2)?, count(3)?);
        let dangling = count(4)?;
        let mut end: usize = 20;
        let mut column = |width: usize, len: usize| -> Option<usize> {
            let start = end;
            end = end.checked_add(width.checked_mul(len)?)?;
            Some(start)
        };
        let at = Columns {
            status: column(1, n)?,
            kind: column(1, n)?,
            priority: column(1, n)?,
            flags: column(1, n)?,
            created: column(8, n)?,
            updated: column(8, n)?,
            dep_kind: column(1, d)?,
            first_str: column(4, n + 1)?,
            dep_start: column(4, n + 1)?,
            dep_target: column(4, d)?,
            str_end: column(4, m)?,
            by_id: column(4, n)?,
            in_start: column(4, n + 1)?,
            dangling: column(4, dangling)?,
            arena: column(1, arena)?,
            in_from: end,
        };
        let in_from = source.len().checked_sub(end)? / 4;
        if end + 4 * in_from != source.len() {
            return None;
        }
        let table = Table {
            source,
            rows: n,
            dangling,
            at,
        };
        let ends_fit = table.u32_at(table.at.first_str, n) as usize == m
            && table.u32_at(table.at.dep_start, n) as usize == d
            && table.u32_at(table.at.in_start, n) as usize == in_from
            && in_from <= d
            && (m == 0 || table.u32_at(table.at.str_end, m - 1) as usize == arena);
        ends_fit.then_some(table)
    }

    /// Whether the table needs no check as it is read: in memory whole, or read from
    /// its file a piece at a time until every piece was found sound.
    pub fn checked_whole(&self) -> bool {
        match &self.source {
            Source::Whole(_) => true,
            Source::Pieces(p) => p.known_sound(),
        }
    }

    /// Reads and checks every piece of a table read a piece at a time; whether all
    /// are sound.
    pub fn all_sound(&self) -> bool {
        match &self.source {
            Source::Whole(_) => true,
            Source::Pieces(p) => p.all_sound(),
        }
    }

    /// Whether two tables are read from the same bytes: the same buffer, or the same
    /// pieces of one file (see [`super::TableStamp`]).
    pub fn same_bytes(&self, other: &Table) -> bool {
        match (&self.source, &other.source) {
            (Source::Whole(a), Source::Whole(b)) => Arc::ptr_eq(&a.0, &b.0) && a.1 == b.1,
            (Source::Pieces(a), Source::Pieces(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The bytes to save: those a builder wrote. `None` for a table read from its file
    /// a piece at a time, which is saved already.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.source {
            Source::Whole(raw) => raw.0.get(raw.1.clone()),
            Source::Pieces(_) => None,
        }
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    // A damaged piece reads as zeros and empty strings (and is counted in
    // [`super::damage_seen`]), so that no damaged byte is ever taken for data.

    #[inline]
    fn byte_at(&self, column: usize, i: usize) -> u8 {
        self.source.array::<1>(column + i).map_or(0, |[b]| b)
    }

    #[inline]
    fn u32_at(&self, column: usize, i: usize) -> u32 {
        self.source
            .array(column + 4 * i)
            .map_or(0, u32::from_le_bytes)
    }

    fn i64_at(&self, column: usize, i: usize) -> i64 {
        self.source
            .array(column + 8 * i)
            .map_or(0, i64::from_le_bytes)
    }

    fn str(&self, k: usize) -> &str {
        std::str::from_utf8(self.str_bytes(k)).unwrap_or("")
    }

    /// The bytes of string `k`, unchecked as text: enough to compare it with another
    /// (UTF-8 sorts as its bytes do).
    fn str_bytes(&self, k: usize) -> &[u8] {
        let start = match k {
            0 => 0,
            _ => self.u32_at(self.at.str_end, k - 1) as usize,
        };
        let end = self.u32_at(self.at.str_end, k) as usize;
        end.checked_sub(start)
            .and_then(|len| self.source.span(self.at.arena + start, len))
            .unwrap_or_default()
    }

    fn strs(&self, r: usize) -> (usize, usize) {
        (
            self.u32_at(self.at.first_str, r) as usize,
            self.u32_at(self.at.first_str, r + 1) as usize,
        )
    }

    fn deps(&self, r: usize) -> Range<usize> {
        self.u32_at(self.at.dep_start, r) as usize..self.u32_at(self.at.dep_start, r + 1) as usize
    }

    pub fn id(&self, r: usize) -> &str {
        self.str(self.strs(r).0)
    }

    pub fn title(&self, r: usize) -> &str {
        self.str(self.strs(r).0 + 1)
    }

    pub fn status(&self, r: usize) -> Status {
        match self.byte_at(self.at.status, r) {
            CUSTOM => self
                .custom(r, CUSTOM_STATUS)
                .map_or(Status::Open, Status::Custom),
            byte => word(Status::ALL, byte, Status::Open),
        }
    }

    pub fn priority(&self, r: usize) -> u8 {
        self.byte_at(self.at.priority, r)
    }

    pub fn kind(&self, r: usize) -> BeadType {
        match self.byte_at(self.at.kind, r) {
            CUSTOM => self
                .custom(r, CUSTOM_KIND)
                .map_or(BeadType::Task, BeadType::Custom),
            byte => word(BeadType::ALL, byte, BeadType::Task),
        }
    }

    fn flag(&self, r: usize, bit: u8) -> bool {
        self.byte_at(self.at.flags, r) & bit != 0
    }

    /// The arena index of row `r`'s string after its title that `bit` flags (the
    /// assignee, the custom status, the custom type), when the row has it.
    fn flagged(&self, r: usize, bit: u8) -> Option<usize> {
        let before = self.byte_at(self.at.flags, r) & (bit - 1);
        self.flag(r, bit)
            .then(|| self.strs(r).0 + 2 + before.count_ones() as usize)
    }

    /// Row `r`'s word of the project's own that `bit` flags.
    fn custom(&self, r: usize, bit: u8) -> Option<CustomWord> {
        CustomWord::new(self.str(self.flagged(r, bit)?))
    }

    pub fn assignee(&self, r: usize) -> Option<&str> {
        self.flagged(r, ASSIGNED).map(|k| self.str(k))
    }

    /// The arena indexes of row `r`'s labels.
    pub fn label_range(&self, r: usize) -> Range<usize> {
        let (first, end) = self.strs(r);
        let flags = self.byte_at(self.at.flags, r) & (ASSIGNED | CUSTOM_STATUS | CUSTOM_KIND);
        let start = first + 2 + flags.count_ones() as usize;
        start..end.saturating_sub(self.deps(r).len()).max(start)
    }

    /// The string at arena index `k` (from [`Table::label_range`] or
    /// [`Table::dependencies`]).
    pub fn string(&self, k: usize) -> &str {
        self.str(k)
    }

    /// Whether row `r` carries `label`.
    pub fn has_label(&self, r: usize, label: &str) -> bool {
        bisect(self.label_range(r), |k| self.str(k).cmp(label)).is_ok()
    }

    /// Row `r`'s dependency edges: kind, the arena index of the target's id (read only
    /// when asked for), and target row ([`NO_ROW`] when the target was not in the table).
    pub fn dependencies(&self, r: usize) -> impl Iterator<Item = (DepKind, usize, u32)> + '_ {
        let first_id = self.strs(r).1 - self.deps(r).len();
        self.deps(r).enumerate().map(move |(k, e)| {
            (
                self.edge_kind(e),
                first_id + k,
                self.u32_at(self.at.dep_target, e),
            )
        })
    }

    /// How many edges of the table point at row `r`.
    pub fn dependents(&self, r: usize) -> usize {
        let (a, b) = (
            self.u32_at(self.at.in_start, r),
            self.u32_at(self.at.in_start, r + 1),
        );
        b.saturating_sub(a) as usize
    }

    /// How many edges of the table point at `id`, a bead not in it.
    pub fn dependents_of_missing(&self, id: &str) -> usize {
        self.dangling_of(id).len()
    }

    /// Where the edges to `id`, a bead not in the table, are among those to beads not
    /// in it (sorted by id): their positions in the `dangling` column.
    fn dangling_of(&self, id: &str) -> Range<usize> {
        let string = |k: usize| self.str(self.u32_at(self.at.dangling, k) as usize);
        let first = |past: bool| {
            bisect(0..self.dangling, |k| {
                match string(k) < id || past && string(k) == id {
                    true => std::cmp::Ordering::Less,
                    false => std::cmp::Ordering::Greater,
                }
            })
            .unwrap_or_else(|at| at)
        };
        let start = first(false);
        start..first(true).max(start)
    }

    /// The rows with an edge to row `target` (a row once per edge), and each edge's
    /// kind: read off the rows the table keeps for each target, no string read.
    pub fn edges_into(&self, target: usize) -> Vec<(usize, DepKind)> {
        let (first, end) = (
            self.u32_at(self.at.in_start, target) as usize,
            self.u32_at(self.at.in_start, target + 1) as usize,
        );
        let mut found = Vec::with_capacity(end.saturating_sub(first));
        let mut last = None;
        for k in first..end {
            let r = self.u32_at(self.at.in_from, k) as usize;
            // A row with two edges to the target comes twice: both are found at once.
            if last.replace(r) == Some(r) {
                continue;
            }
            let edges = self
                .deps(r)
                .filter(|&e| self.u32_at(self.at.dep_target, e) as usize == target);
            found.extend(edges.map(|e| (r, self.edge_kind(e))));
        }
        found
    }

    /// The rows with an edge to `id`, a bead not in the table (a row once per edge),
    /// and each edge's kind.
    pub fn edges_into_missing(&self, id: &str) -> Vec<(usize, DepKind)> {
        self.dangling_of(id)
            .map(|k| self.u32_at(self.at.dangling, k) as usize)
            .filter_map(|k| {
                // The row whose strings hold `k`, and which of its edges names it.
                let past = bisect(0..self.rows + 1, |r| {
                    match self.u32_at(self.at.first_str, r) as usize <= k {
                        true => std::cmp::Ordering::Less,
                        false => std::cmp::Ordering::Greater,
                    }
                })
                .unwrap_or_else(|at| at);
                let r = past.checked_sub(1)?;
                let (_, end) = self.strs(r);
                let e = self.deps(r).end.checked_sub(end - k)?;
                Some((r, self.edge_kind(e)))
            })
            .collect()
    }

    /// The kind of edge `e`.
    fn edge_kind(&self, e: usize) -> DepKind {
        word(
            DepKind::ALL,
            self.byte_at(self.at.dep_kind, e),
            DepKind::Related,
        )
    }

    pub fn created_us(&self, r: usize) -> i64 {
        self.i64_at(self.at.created, r)
    }

    pub fn updated_us(&self, r: usize) -> i64 {
        self.i64_at(self.at.updated, r)
    }

    /// The row with this id.
    pub fn find(&self, id: &str) -> Option<usize> {
        let row = |k: usize| self.u32_at(self.at.by_id, k) as usize;
        let id_of = |r: usize| self.str_bytes(self.strs(r).0);
        let k = bisect(0..self.rows, |k| id_of(row(k)).cmp(id.as_bytes())).ok()?;
        Some(row(k))
    }
}

/// The text a search looks in: `id`, `title` and `description`, lower-cased, each
/// followed by NUL (which no search text can contain), so that no match runs from one
/// row into the next.
pub(super) fn fold(id: &str, title: &str, description: &str) -> Vec<u8> {
    let mut text = Vec::with_capacity(id.len() + title.len() + description.len() + 3);
    fold_into(&mut text, id, title, description);
    text
}

/// [`fold`], appended to `out`.
fn fold_into(out: &mut Vec<u8>, id: &str, title: &str, description: &str) {
    for part in [id, title, description] {
        if part.is_ascii() {
            let start = out.len();
            out.extend_from_slice(part.as_bytes());
            out[start..].make_ascii_lowercase();
        } else {
            out.extend_from_slice(part.to_lowercase().as_bytes());
        }
        out.push(0);
    }
}

/// Writes the searchable text of every row of a table, in the order the rows were
/// pushed to their [`TableBuilder`], straight into the bytes it hands back (the texts
/// are most of an index: they are never copied): the row count, the end of each text,
/// the row of each text, the text of each row, then the texts.
pub(super) struct TextsBuilder {
    /// The rows the space before the texts was left for.
    room: usize,
    end: Vec<u32>,
    out: Vec<u8>,
}

impl TextsBuilder {
    /// A builder for about `rows` rows holding about `bytes` bytes of text in all.
    pub fn with_rows(rows: usize, bytes: usize) -> TextsBuilder {
        let mut out = Vec::with_capacity(4 + 12 * rows + bytes);
        out.resize(4 + 12 * rows, 0);
        TextsBuilder {
            room: rows,
            end: Vec::with_capacity(rows),
            out,
        }
    }

    /// Appends the next text, folded from its parts.
    pub fn push_fold(&mut self, id: &str, title: &str, description: &str) {
        fold_into(&mut self.out, id, title, description);
        self.ended();
    }

    fn ended(&mut self) {
        self.end.push(offset(self.out.len() - 4 - 12 * self.room));
    }

    /// The texts as bytes, given where the table put each row
    /// ([`TableBuilder::finish`]).
    pub fn finish(mut self, place: &[u32]) -> Vec<u8> {
        let n = self.end.len();
        let (had, needs) = (4 + 12 * self.room, 4 + 12 * n);
        if needs < had {
            self.out.copy_within(had.., needs);
            self.out.truncate(self.out.len() - (had - needs));
        } else if needs > had {
            self.out.splice(0..0, std::iter::repeat_n(0, needs - had));
        }
        let mut text_of = vec![0u32; n];
        for (k, &r) in place.iter().enumerate() {
            if let Some(slot) = text_of.get_mut(r as usize) {
                *slot = offset(k);
            }
        }
        let header = std::iter::once(offset(n))
            .chain(self.end.iter().copied())
            .chain(place.iter().copied())
            .chain(text_of);
        for (at, v) in header.enumerate() {
            self.out[4 * at..4 * at + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.out
    }
}

/// The header of a texts section read a piece at a time: the count, then the end of
/// each text, the row of each text and the text of each row.
struct TextsHead {
    rows: usize,
    words: Vec<u32>,
}

impl TextsHead {
    /// Reads the header of a texts section of `len` bytes for a table of `rows` rows
    /// through `read` (which fills each buffer it is given). `None` when the section
    /// does not fit the table.
    fn read(
        read: &mut dyn FnMut(&mut [u8]) -> Option<()>,
        len: usize,
        rows: usize,
    ) -> Option<TextsHead> {
        let mut bytes = vec![0u8; 4 + rows.checked_mul(12)?];
        read(&mut bytes)?;
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let head = TextsHead { rows, words };
        let fits =
            head.words[0] as usize == rows && len.checked_sub(bytes.len()) == Some(head.arena());
        fits.then_some(head)
    }

    /// The ends of the texts, in text order.
    fn ends(&self) -> &[u32] {
        &self.words[1..=self.rows]
    }

    /// How many bytes of text follow the header.
    fn arena(&self) -> usize {
        self.ends().last().map_or(0, |&e| e as usize)
    }

    /// Where text `k` lies in the arena.
    fn span(&self, k: usize) -> Range<usize> {
        let start = match k {
            0 => 0,
            _ => self.words[k] as usize,
        };
        start..self.words[k + 1] as usize
    }

    /// The row text `k` belongs to.
    fn row_of(&self, k: usize) -> usize {
        self.words[1 + self.rows + k] as usize
    }
}

/// The rows whose text contains `needle` (already folded) in a texts section of `len`
/// bytes that `read` hands over `chunk` bytes at a time (filling each buffer it is given),
/// for a table of `rows` rows: the search of [`Texts::matching`] without holding the
/// texts. `None` when the section does not fit the table.
pub(super) fn scan_texts(
    read: &mut dyn FnMut(&mut [u8]) -> Option<()>,
    len: usize,
    rows: usize,
    needle: &str,
    chunk: usize,
) -> Option<Vec<usize>> {
    let head = TextsHead::read(read, len, rows)?;
    let arena = head.arena();
    // A match may straddle two pieces: the last `keep` bytes of one go before the next.
    let keep = needle.len().saturating_sub(1);
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut buf = vec![0u8; keep + chunk.max(1).min(arena)];
    let (mut carried, mut done) = (0, 0);
    let mut hits: Vec<usize> = Vec::new();
    while done < arena {
        let take = chunk.max(1).min(arena - done);
        read(&mut buf[carried..carried + take])?;
        let window = &buf[..carried + take];
        let start = done - carried;
        if !needle.is_empty() {
            for found in finder.find_iter(window) {
                let k = head
                    .ends()
                    .partition_point(|&e| e as usize <= start + found);
                if k < rows && hits.last() != Some(&k) {
                    hits.push(k);
                }
            }
        }
        done += take;
        let next = keep.min(carried + take);
        buf.copy_within(carried + take - next..carried + take, 0);
        carried = next;
    }
    let mut found: Vec<usize> = match needle.is_empty() {
        true => (0..rows).collect(),
        false => hits.into_iter().map(|k| head.row_of(k)).collect(),
    };
    found.sort_unstable();
    Some(found)
}

/// A row of a compacted table that is new, and its folded search text.
pub(super) type NewText = (u32, Vec<u8>);

/// The search text of a compacted table, written from the old texts section and the
/// texts of the new rows without holding either: what a [`TextsBuilder`] would write
/// if it were given the kept texts in their old order, then the new ones.
pub(super) struct TextsCopy {
    /// The old texts section's header.
    old: TextsHead,
    /// The old texts that are kept, in order.
    kept: Vec<usize>,
    /// The new section's header.
    head: Vec<u8>,
    /// The new section's length.
    len: usize,
}

impl TextsCopy {
    /// Reads the header of an old texts section of `len` bytes through `read` (as
    /// [`scan_texts`] does). `moved[r]` is the new row of old row `r`, or [`NO_ROW`]
    /// when it is dropped; `new` are the new rows and their folded texts. `None` when
    /// the old section does not fit `moved`.
    pub fn begin(
        read: &mut dyn FnMut(&mut [u8]) -> Option<()>,
        len: usize,
        moved: &[u32],
        new: &[NewText],
    ) -> Option<TextsCopy> {
        let old = TextsHead::read(read, len, moved.len())?;
        let kept: Vec<usize> = (0..old.rows)
            .filter(|&k| moved.get(old.row_of(k)).is_some_and(|&r| r != NO_ROW))
            .collect();
        let texts = kept
            .iter()
            .map(|&k| (moved[old.row_of(k)], old.span(k).len()))
            .chain(new.iter().map(|(row, text)| (*row, text.len())));
        let n = kept.len() + new.len();
        let (mut ends, mut row_of, mut text_of) = (Vec::new(), Vec::new(), vec![0u32; n]);
        let mut at = 0;
        for (k, (row, len)) in texts.enumerate() {
            at += len;
            ends.push(offset(at));
            row_of.push(row);
            *text_of.get_mut(row as usize)? = offset(k);
        }
        let mut head = Vec::with_capacity(4 + 12 * n);
        for word in std::iter::once(offset(n))
            .chain(ends)
            .chain(row_of)
            .chain(text_of)
        {
            head.extend_from_slice(&word.to_le_bytes());
        }
        Some(TextsCopy {
            len: head.len() + at,
            old,
            kept,
            head,
        })
    }

    /// The new section's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Hands the new section to `write` a piece at a time, reading the rest of the old
    /// section (its texts) through `read`, `chunk` bytes at a time.
    pub fn copy(
        self,
        read: &mut dyn FnMut(&mut [u8]) -> Option<()>,
        new: &[NewText],
        write: &mut dyn FnMut(&[u8]) -> Option<()>,
        chunk: usize,
    ) -> Option<()> {
        write(&self.head)?;
        let arena = self.old.arena();
        let mut buf = vec![0u8; chunk.max(1).min(arena)];
        let (mut done, mut next) = (0, 0);
        while done < arena {
            let take = buf.len().min(arena - done);
            read(&mut buf[..take])?;
            // The kept texts that overlap this piece, each at most once in whole.
            while let Some(&k) = self.kept.get(next) {
                let text = self.old.span(k);
                if text.start >= done + take && text.start < arena {
                    break;
                }
                let (lo, hi) = (text.start.max(done), text.end.min(done + take));
                if lo < hi {
                    write(&buf[lo - done..hi - done])?;
                }
                if text.end > done + take {
                    break;
                }
                next += 1;
            }
            done += take;
        }
        new.iter().try_for_each(|(_, text)| write(text))
    }
}

/// The searchable text of every row of a [`Table`], read in place.
#[derive(Default)]
pub(super) struct Texts {
    raw: Raw,
    rows: usize,
}

impl Texts {
    /// Reads texts written by a [`TextsBuilder`].
    pub fn decode(raw: Raw) -> Option<Texts> {
        let bytes = raw.0.get(raw.1.clone())?;
        let b = bytes.get(..4)?;
        let rows = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        let arena = 4 + rows.checked_mul(12)?;
        let texts = Texts {
            rows,
            raw: raw.clone(),
        };
        let fits =
            bytes.len() >= arena && (rows == 0 || texts.end(rows - 1) == bytes.len() - arena);
        fits.then_some(texts)
    }

    /// The bytes to save (those it was read from).
    pub fn bytes(&self) -> &[u8] {
        self.raw.0.get(self.raw.1.clone()).unwrap_or_default()
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// The `k`th number of the header: the count, then the ends of the texts, the row
    /// of each text and the text of each row.
    fn word(&self, k: usize) -> usize {
        let at = self.raw.1.start + 4 * k;
        match self.raw.0.get(at..at + 4) {
            Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
            None => 0,
        }
    }

    /// The end of text `k` in the arena.
    fn end(&self, k: usize) -> usize {
        self.word(1 + k)
    }

    fn arena(&self) -> &[u8] {
        let start = self.raw.1.start + 4 + 12 * self.rows;
        self.raw.0.get(start..self.raw.1.end).unwrap_or_default()
    }

    /// The folded text of row `r`.
    pub fn get(&self, r: usize) -> &[u8] {
        let k = self.word(1 + 2 * self.rows + r);
        let start = if k == 0 { 0 } else { self.end(k - 1) };
        self.arena().get(start..self.end(k)).unwrap_or_default()
    }

    /// The rows whose text contains `needle` (already folded), in row order: one pass
    /// of a vectorised substring search over all the text at once.
    pub fn matching(&self, needle: &str) -> Vec<usize> {
        if needle.is_empty() {
            return (0..self.rows).collect();
        }
        let arena = self.arena();
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut rows = Vec::new();
        let mut at = 0;
        while let Some(found) = finder.find(&arena[at..]) {
            let hit = at + found;
            // The first text ending after the hit (an end is never equal to a search).
            let k = bisect(0..self.rows, |k| match self.end(k) <= hit {
                true => std::cmp::Ordering::Less,
                false => std::cmp::Ordering::Greater,
            })
            .unwrap_or_else(|at| at);
            if k >= self.rows {
                break;
            }
            rows.push(self.word(1 + self.rows + k));
            // Go on after this text: one hit is enough.
            at = self.end(k);
        }
        rows.sort_unstable();
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(bytes: Vec<u8>) -> Raw {
        let len = bytes.len();
        (Arc::new(bytes.into()), 0..len)
    }

    #[test]
    fn search_finds_each_row_once_and_folds_case() {
        // Texts 0, 1, 2 belong to rows 2, 0, 1; the builder left room for five.
        let mut texts = TextsBuilder::with_rows(5, 0);
        for t in ["abc\0Title\0x", "zzz\0none\0y", "q\0ABC abc\0abc"] {
            texts.push_fold("", t, "");
        }
        let texts = Texts::decode(raw(texts.finish(&[2, 0, 1]))).expect("texts");
        assert_eq!(texts.len(), 3);
        assert_eq!(texts.matching("abc"), [1, 2]);
        assert_eq!(texts.matching("title"), [2]);
        assert_eq!(texts.get(0), b"\0zzz\0none\0y\0\0");
        // Room for too few rows; rows in the reverse order of the texts.
        let place: Vec<u32> = (0..3000).rev().collect();
        let bytes = {
            let mut t = TextsBuilder::with_rows(10, 0);
            for k in 0..3000 {
                t.push_fold(&format!("id{k}"), "some title", "a needle here");
            }
            t.finish(&place)
        };
        let whole = Texts::decode(raw(bytes.clone())).expect("texts");
        assert_eq!(whole.matching("id2999\0"), [0]);
        assert_eq!(whole.get(2999), b"id0\0some title\0a needle here\0");
        for needle in ["needle", "id2999\0", "", "title\0a n", "id17"] {
            let mut at = 0;
            let mut read = |buf: &mut [u8]| {
                buf.copy_from_slice(bytes.get(at..at + buf.len())?);
                at += buf.len();
                Some(())
            };
            let scanned = scan_texts(&mut read, bytes.len(), 3000, needle, 7);
            assert_eq!(scanned, Some(whole.matching(needle)), "{needle:?}");
        }
    }

    #[test]
    fn a_table_reads_back_what_was_written_in_listing_order() {
        let mut b = TableBuilder::default();
        let row = |id, priority, deps: Vec<(DepKind, &'static str)>| RowData {
            id,
            title: "tïtle",
            status: Status::Blocked,
            priority,
            kind: BeadType::Epic,
            assignee: (id == "b").then_some("ann"),
            labels: vec!["x", "y"],
            dependencies: deps,
            created_us: -5,
            updated_us: 7,
        };
        b.push(&row(
            "c",
            3,
            vec![(DepKind::Blocks, "a"), (DepKind::Tracks, "zz")],
        ));
        b.push(&row("a", 3, vec![]));
        b.push(&row("b", 3, vec![(DepKind::ParentChild, "c")]));
        b.push(&row("d", 1, vec![]));
        let (bytes, place) = b.finish();
        // Priority first, then age, then id.
        assert_eq!(place, [3, 1, 2, 0]);
        let t = Table::decode(raw(bytes)).expect("table");
        assert_eq!(t.len(), 4);
        assert_eq!(t.find("a"), Some(1));
        assert_eq!(t.find("d"), Some(0));
        assert_eq!(t.find("zz"), None);
        assert_eq!(
            (t.id(2), t.title(2), t.assignee(2)),
            ("b", "tïtle", Some("ann"))
        );
        assert_eq!(
            (t.status(3), t.kind(3), t.priority(3), t.priority(0)),
            (Status::Blocked, BeadType::Epic, 3, 1)
        );
        assert_eq!((t.created_us(1), t.updated_us(1)), (-5, 7));
        assert!(t.has_label(2, "y") && !t.has_label(2, "ann"));
        let deps = |r| -> Vec<_> {
            t.dependencies(r)
                .map(|(kind, k, row)| (kind, t.string(k), row))
                .collect()
        };
        assert_eq!(
            deps(3),
            [(DepKind::Blocks, "a", 1), (DepKind::Tracks, "zz", NO_ROW)]
        );
        assert_eq!(deps(2), [(DepKind::ParentChild, "c", 3)]);
        assert!(deps(0).is_empty() && deps(1).is_empty());
        let (bytes, place) = TableBuilder::default().finish();
        let empty = Table::decode(raw(bytes)).expect("empty");
        assert_eq!((empty.len(), place.len()), (0, 0));
    }

    #[test]
    fn a_table_keeps_a_projects_own_status_and_type_beside_assignee_and_labels() {
        let word = |w| CustomWord::new(w).expect("word");
        let (review, gizmo) = (
            Status::Custom(word("in_review")),
            BeadType::Custom(word("gizmo")),
        );
        let mut b = TableBuilder::default();
        for (id, status, kind, assignee) in [
            ("a", review, gizmo, Some("ann")),
            ("b", Status::Open, gizmo, None),
            ("c", review, BeadType::Bug, None),
        ] {
            b.push(&RowData {
                id,
                title: "t",
                status,
                priority: 2,
                kind,
                assignee,
                labels: vec!["x", "y"],
                dependencies: vec![(DepKind::Blocks, "b")],
                created_us: 0,
                updated_us: 0,
            });
        }
        let t = Table::decode(raw(b.finish().0)).expect("table");
        let read = |id| {
            let r = t.find(id).expect("row");
            let labels: Vec<_> = t.label_range(r).map(|k| t.string(k)).collect();
            let deps: Vec<_> = t.dependencies(r).map(|(_, k, _)| t.string(k)).collect();
            (t.status(r), t.kind(r), t.assignee(r), labels, deps)
        };
        assert_eq!(
            read("a"),
            (review, gizmo, Some("ann"), vec!["x", "y"], vec!["b"])
        );
        assert_eq!(
            read("b"),
            (Status::Open, gizmo, None, vec!["x", "y"], vec!["b"])
        );
        assert_eq!(
            read("c"),
            (review, BeadType::Bug, None, vec!["x", "y"], vec!["b"])
        );
    }

    #[test]
    fn a_copy_keeps_the_texts_of_kept_rows_and_adds_the_new_ones() {
        // Old: 40 texts, text k on row 39 - k.
        let mut old = TextsBuilder::with_rows(40, 0);
        for k in 0..40 {
            old.push_fold(&format!("id{k}"), &"t".repeat(k), "");
        }
        let old = old.finish(&(0..40).rev().collect::<Vec<u32>>());
        // Every third old row goes; the others move to the end of the new table.
        let mut moved = vec![NO_ROW; 40];
        let mut kept = 0;
        for r in (0..40).filter(|r| r % 3 != 0) {
            moved[r] = 5 + kept;
            kept += 1;
        }
        let new: Vec<NewText> = (0..5).map(|k| (4 - k, fold("new", "x", ""))).collect();
        for chunk in [1, 3, 7, 1 << 20] {
            let mut at = 0;
            let mut read = |buf: &mut [u8]| {
                buf.copy_from_slice(old.get(at..at + buf.len())?);
                at += buf.len();
                Some(())
            };
            let copy = TextsCopy::begin(&mut read, old.len(), &moved, &new).expect("header");
            let len = copy.len();
            let mut out = Vec::new();
            let mut write = |bytes: &[u8]| {
                out.extend_from_slice(bytes);
                Some(())
            };
            copy.copy(&mut read, &new, &mut write, chunk).expect("copy");
            assert_eq!(out.len(), len, "chunk {chunk}");
            let texts = Texts::decode(raw(out)).expect("texts");
            assert_eq!(texts.len(), 5 + kept as usize);
            for r in (0..40).filter(|r| r % 3 != 0) {
                let k = 39 - r;
                let want = fold(&format!("id{k}"), &"t".repeat(k), "");
                assert_eq!(texts.get(moved[r] as usize), want, "chunk {chunk}, row {r}");
            }
            assert_eq!(texts.get(2), fold("new", "x", ""));
            assert_eq!(texts.matching("new"), [0, 1, 2, 3, 4]);
            assert_eq!(texts.matching("id39\0"), [] as [usize; 0]);
            assert_eq!(texts.matching("id38\0"), [5]);
        }
    }
}
