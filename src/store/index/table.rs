//! The columnar tables of the index: fixed-width columns and one string arena, read
//! in place from the bytes of the cache file, without decoding a value per bead.
//!
//! A query over every bead (`ready`, `blocked`, a page of `list`) touches a few bytes
//! per bead in flat arrays and builds strings only for the lines it prints; the
//! dependency edges point at rows, so the blocker graph needs no lookup by id.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::model::{BeadType, DepKind, Status};

/// A section of a cache file: the file's bytes, shared, and the section's range.
pub(super) type Raw = (Arc<Vec<u8>>, Range<usize>);

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
    /// Sorted.
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

/// Writes a table: one column per field, rows in the order listings print them
/// (priority, then age, then id), then the rows sorted by id for lookups, then the
/// string arena.
///
/// The strings of row `r` are `first_str[r]..first_str[r + 1]` in the arena: its id,
/// its title, its assignee when `assigned[r]`, its labels, then the ids of its
/// dependencies (`dep_start[r]..dep_start[r + 1]` in the dependency columns).
#[derive(Default)]
pub(super) struct TableBuilder {
    status: Vec<u8>,
    kind: Vec<u8>,
    priority: Vec<u8>,
    assigned: Vec<u8>,
    created: Vec<i64>,
    updated: Vec<i64>,
    first_str: Vec<u32>,
    dep_start: Vec<u32>,
    dep_kind: Vec<u8>,
    str_end: Vec<u32>,
    arena: String,
    ids: Vec<String>,
    dep_ids: Vec<String>,
}

impl TableBuilder {
    /// Appends a row; rows must come in listing order.
    pub fn push(&mut self, row: &RowData<'_>) {
        if self.first_str.is_empty() {
            self.first_str.push(0);
            self.dep_start.push(0);
        }
        self.status.push(row.status as u8);
        self.kind.push(row.kind as u8);
        self.priority.push(row.priority);
        self.assigned.push(u8::from(row.assignee.is_some()));
        self.created.push(row.created_us);
        self.updated.push(row.updated_us);
        let strings = [row.id, row.title]
            .into_iter()
            .chain(row.assignee)
            .chain(row.labels.iter().copied())
            .chain(row.dependencies.iter().map(|(_, id)| *id));
        for s in strings {
            self.arena.push_str(s);
            self.str_end.push(offset(self.arena.len()));
        }
        self.first_str.push(offset(self.str_end.len()));
        for (kind, id) in &row.dependencies {
            self.dep_kind.push(*kind as u8);
            self.dep_ids.push((*id).to_owned());
        }
        self.dep_start.push(offset(self.dep_kind.len()));
        self.ids.push(row.id.to_owned());
    }

    /// The table as bytes: four counts, the columns, the dependency targets (resolved
    /// here, once every row is in), the rows by id, then the arena.
    pub fn finish(self) -> Vec<u8> {
        let n = self.ids.len();
        let rows: HashMap<&str, u32> = self
            .ids
            .iter()
            .enumerate()
            .map(|(r, id)| (id.as_str(), offset(r)))
            .collect();
        let targets: Vec<u32> = self
            .dep_ids
            .iter()
            .map(|id| rows.get(id.as_str()).copied().unwrap_or(NO_ROW))
            .collect();
        let mut by_id: Vec<u32> = (0..n).map(offset).collect();
        by_id.sort_unstable_by(|&a, &b| self.ids[a as usize].cmp(&self.ids[b as usize]));
        let first_str = if n == 0 { vec![0] } else { self.first_str };
        let dep_start = if n == 0 { vec![0] } else { self.dep_start };
        let mut out = Vec::with_capacity(16 + n * 36 + self.str_end.len() * 4 + self.arena.len());
        for count in [n, self.dep_kind.len(), self.str_end.len(), self.arena.len()] {
            out.extend_from_slice(&offset(count).to_le_bytes());
        }
        for bytes in [&self.status, &self.kind, &self.priority, &self.assigned] {
            out.extend_from_slice(bytes);
        }
        for column in [&self.created, &self.updated] {
            column
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        out.extend_from_slice(&self.dep_kind);
        for column in [&first_str, &dep_start, &targets, &self.str_end, &by_id] {
            column
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        out.extend_from_slice(self.arena.as_bytes());
        out
    }
}

/// Where each column of a [`Table`] starts in its bytes.
#[derive(Default)]
struct Columns {
    status: usize,
    kind: usize,
    priority: usize,
    assigned: usize,
    created: usize,
    updated: usize,
    dep_kind: usize,
    first_str: usize,
    dep_start: usize,
    dep_target: usize,
    str_end: usize,
    by_id: usize,
    arena: usize,
}

/// Every bead of one state of the store, read in place from the bytes a
/// [`TableBuilder`] wrote.
#[derive(Default)]
pub(super) struct Table {
    raw: Raw,
    rows: usize,
    at: Columns,
}

impl Table {
    /// Reads a table in place; `None` when the bytes do not hold one (the file's
    /// checksum was checked before, so that means another layout).
    pub fn decode(raw: Raw) -> Option<Table> {
        let bytes = raw.0.get(raw.1.clone())?;
        let count = |k: usize| -> Option<usize> {
            let b = bytes.get(4 * k..4 * k + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let (n, d, m, arena) = (count(0)?, count(1)?, count(2)?, count(3)?);
        let mut end: usize = 16;
        let mut column = |width: usize, len: usize| -> Option<usize> {
            let start = end;
            end = end.checked_add(width.checked_mul(len)?)?;
            Some(raw.1.start + start)
        };
        let at = Columns {
            status: column(1, n)?,
            kind: column(1, n)?,
            priority: column(1, n)?,
            assigned: column(1, n)?,
            created: column(8, n)?,
            updated: column(8, n)?,
            dep_kind: column(1, d)?,
            first_str: column(4, n + 1)?,
            dep_start: column(4, n + 1)?,
            dep_target: column(4, d)?,
            str_end: column(4, m)?,
            by_id: column(4, n)?,
            arena: column(1, arena)?,
        };
        if end != bytes.len() {
            return None;
        }
        let table = Table {
            raw: raw.clone(),
            rows: n,
            at,
        };
        let ends_fit = table.u32_at(table.at.first_str, n) as usize == m
            && table.u32_at(table.at.dep_start, n) as usize == d
            && (m == 0 || table.u32_at(table.at.str_end, m - 1) as usize == arena);
        ends_fit.then_some(table)
    }

    /// The bytes to save (those it was read from).
    pub fn bytes(&self) -> &[u8] {
        self.raw.0.get(self.raw.1.clone()).unwrap_or_default()
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    fn byte_at(&self, column: usize, i: usize) -> u8 {
        self.raw.0.get(column + i).copied().unwrap_or(0)
    }

    fn u32_at(&self, column: usize, i: usize) -> u32 {
        let at = column + 4 * i;
        match self.raw.0.get(at..at + 4) {
            Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }

    fn i64_at(&self, column: usize, i: usize) -> i64 {
        let at = column + 8 * i;
        match self.raw.0.get(at..at + 8) {
            Some(b) => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => 0,
        }
    }

    fn str(&self, k: usize) -> &str {
        let start = match k {
            0 => 0,
            _ => self.u32_at(self.at.str_end, k - 1) as usize,
        };
        let end = self.u32_at(self.at.str_end, k) as usize;
        // Each string is checked as it is read (a few bytes): checking the whole arena
        // up front would cost more than a query reads.
        self.raw
            .0
            .get(self.at.arena + start..self.at.arena + end)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
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
        word(Status::ALL, self.byte_at(self.at.status, r), Status::Open)
    }

    pub fn priority(&self, r: usize) -> u8 {
        self.byte_at(self.at.priority, r)
    }

    pub fn kind(&self, r: usize) -> BeadType {
        word(BeadType::ALL, self.byte_at(self.at.kind, r), BeadType::Task)
    }

    fn assigned(&self, r: usize) -> bool {
        self.byte_at(self.at.assigned, r) != 0
    }

    pub fn assignee(&self, r: usize) -> Option<&str> {
        self.assigned(r).then(|| self.str(self.strs(r).0 + 2))
    }

    /// The arena indexes of row `r`'s labels.
    pub fn label_range(&self, r: usize) -> Range<usize> {
        let (first, end) = self.strs(r);
        let start = first + 2 + usize::from(self.assigned(r));
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
                word(
                    DepKind::ALL,
                    self.byte_at(self.at.dep_kind, e),
                    DepKind::Related,
                ),
                first_id + k,
                self.u32_at(self.at.dep_target, e),
            )
        })
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
        let k = bisect(0..self.rows, |k| self.id(row(k)).cmp(id)).ok()?;
        Some(row(k))
    }
}

/// The text a search looks in: `id`, `title` and `description`, lower-cased, each
/// followed by NUL (which no search text can contain), so that no match runs from one
/// row into the next.
pub(super) fn fold(id: &str, title: &str, description: &str) -> String {
    let mut text = String::with_capacity(id.len() + title.len() + description.len() + 3);
    for part in [id, title, description] {
        if part.is_ascii() {
            let start = text.len();
            text.push_str(part);
            text[start..].make_ascii_lowercase();
        } else {
            text.push_str(&part.to_lowercase());
        }
        text.push('\0');
    }
    text
}

/// Writes the searchable text of every row of a table, in the table's row order:
/// the row count, the end of each row's text, then the texts, straight into the bytes
/// it hands back (the texts are most of an index: they are never copied).
pub(super) struct TextsBuilder {
    rows: usize,
    end: Vec<u32>,
    out: Vec<u8>,
}

impl TextsBuilder {
    /// A builder for `rows` rows holding `bytes` bytes of text in all.
    pub fn with_rows(rows: usize, bytes: usize) -> TextsBuilder {
        let mut out = Vec::with_capacity(4 + 4 * rows + bytes);
        out.resize(4 + 4 * rows, 0);
        TextsBuilder {
            rows,
            end: Vec::with_capacity(rows),
            out,
        }
    }

    /// Appends the folded text of the next row.
    pub fn push(&mut self, folded: &[u8]) {
        self.out.extend_from_slice(folded);
        self.end.push(offset(self.out.len() - 4 - 4 * self.rows));
    }

    /// The texts as bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.out[..4].copy_from_slice(&offset(self.end.len()).to_le_bytes());
        for (k, end) in self.end.iter().enumerate() {
            self.out[4 + 4 * k..8 + 4 * k].copy_from_slice(&end.to_le_bytes());
        }
        self.out
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
    let mut count = [0u8; 4];
    read(&mut count)?;
    let mut ends = vec![0u8; rows.checked_mul(4)?];
    read(&mut ends)?;
    let ends: Vec<usize> = ends
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
        .collect();
    let arena = len.checked_sub(4 + 4 * rows)?;
    if u32::from_le_bytes(count) as usize != rows || ends.last().is_some_and(|&e| e != arena) {
        return None;
    }
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
                let r = ends.partition_point(|&e| e <= start + found);
                if r < rows && hits.last() != Some(&r) {
                    hits.push(r);
                }
            }
        }
        done += take;
        let next = keep.min(carried + take);
        buf.copy_within(carried + take - next..carried + take, 0);
        carried = next;
    }
    Some(match needle.is_empty() {
        true => (0..rows).collect(),
        false => hits,
    })
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
        let arena = 4 + rows.checked_mul(4)?;
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

    fn end(&self, r: usize) -> usize {
        let at = self.raw.1.start + 4 + 4 * r;
        match self.raw.0.get(at..at + 4) {
            Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
            None => 0,
        }
    }

    fn arena(&self) -> &[u8] {
        let start = self.raw.1.start + 4 + 4 * self.rows;
        self.raw.0.get(start..self.raw.1.end).unwrap_or_default()
    }

    /// The folded text of row `r`.
    pub fn get(&self, r: usize) -> &[u8] {
        let start = if r == 0 { 0 } else { self.end(r - 1) };
        self.arena().get(start..self.end(r)).unwrap_or_default()
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
            // The first row ending after the hit (an end is never equal to a search).
            let lo = bisect(0..self.rows, |r| match self.end(r) <= hit {
                true => std::cmp::Ordering::Less,
                false => std::cmp::Ordering::Greater,
            })
            .unwrap_or_else(|at| at);
            if lo >= self.rows {
                break;
            }
            rows.push(lo);
            // Go on after this row: one hit is enough.
            at = self.end(lo);
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(bytes: Vec<u8>) -> Raw {
        let len = bytes.len();
        (Arc::new(bytes), 0..len)
    }

    #[test]
    fn search_finds_each_row_once_and_folds_case() {
        let mut texts = TextsBuilder::with_rows(3, 0);
        for t in ["abc\0Title\0x", "zzz\0none\0y", "q\0ABC abc\0abc"] {
            texts.push(fold("", t, "").as_bytes());
        }
        let texts = Texts::decode(raw(texts.finish())).expect("texts");
        assert_eq!(texts.matching("abc"), [0, 2]);
        assert_eq!(texts.matching("title"), [0]);
        assert_eq!(texts.get(1), b"\0zzz\0none\0y\0\0");
        let bytes = {
            let mut t = TextsBuilder::with_rows(3000, 0);
            for k in 0..3000 {
                t.push(fold(&format!("id{k}"), "some title", "a needle here").as_bytes());
            }
            t.finish()
        };
        for needle in ["needle", "id2999\0", "", "title\0a n"] {
            let whole = Texts::decode(raw(bytes.clone())).expect("texts");
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
    fn a_table_reads_back_what_was_written() {
        let mut b = TableBuilder::default();
        let row = |id, deps: Vec<(DepKind, &'static str)>| RowData {
            id,
            title: "tïtle",
            status: Status::Blocked,
            priority: 3,
            kind: BeadType::Epic,
            assignee: (id == "b").then_some("ann"),
            labels: vec!["x", "y"],
            dependencies: deps,
            created_us: -5,
            updated_us: 7,
        };
        b.push(&row(
            "c",
            vec![(DepKind::Blocks, "a"), (DepKind::Tracks, "zz")],
        ));
        b.push(&row("a", vec![]));
        b.push(&row("b", vec![(DepKind::ParentChild, "c")]));
        let t = Table::decode(raw(b.finish())).expect("table");
        assert_eq!(t.len(), 3);
        assert_eq!(t.find("a"), Some(1));
        assert_eq!(t.find("zz"), None);
        assert_eq!(
            (t.id(2), t.title(2), t.assignee(2)),
            ("b", "tïtle", Some("ann"))
        );
        assert_eq!(
            (t.status(0), t.kind(0), t.priority(0)),
            (Status::Blocked, BeadType::Epic, 3)
        );
        assert_eq!((t.created_us(1), t.updated_us(1)), (-5, 7));
        assert!(t.has_label(2, "y") && !t.has_label(2, "ann"));
        let deps: Vec<_> = t
            .dependencies(0)
            .map(|(kind, k, row)| (kind, t.string(k), row))
            .collect();
        assert_eq!(
            deps,
            [(DepKind::Blocks, "a", 1), (DepKind::Tracks, "zz", NO_ROW)]
        );
        let empty = Table::decode(raw(TableBuilder::default().finish())).expect("empty");
        assert_eq!(empty.len(), 0);
    }
}
